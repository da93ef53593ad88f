"""The command's exit (``cli.console_main``): it leaves without the interpreter's teardown only
when nothing is left to run at exit, and never loses output, the exit code or an exit handler."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SRC = str(Path(__file__).resolve().parent.parent / "src")


def _inputs(tmp: Path) -> list[str]:
    anns = [
        {
            "question_id": q,
            "image_id": q,
            "question_type": "what",
            "answer_type": "other",
            "multiple_choice_answer": "red",
            "answers": [{"answer": "red", "answer_id": i} for i in range(1, 11)],
        }
        for q in range(5)
    ]
    (tmp / "ann.json").write_text(json.dumps({"annotations": anns}))
    (tmp / "res.json").write_text(
        json.dumps([{"question_id": q, "answer": "red"} for q in range(5)])
    )
    return ["vqa", "--annotations", str(tmp / "ann.json"), "--results", str(tmp / "res.json")]


def _run(code: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp, check=False
    )


def test_buffered_output_and_exit_code_survive(tmp_path: Path) -> None:
    args = _inputs(tmp_path)
    # stdout is a pipe (block-buffered): the whole document arrives before the process leaves
    done = _run(
        f"import sys; sys.argv = {['vqametrics', *args, '--json']!r}; "
        "from vqametrics.cli import console_main; console_main()",
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["metrics"]["overall"] == 100.0
    bad = _run(
        f"import sys; sys.argv = {['vqametrics', 'vqa', '--annotations', 'no.json', *args[3:]]!r}; "
        "from vqametrics.cli import console_main; console_main()",
        tmp_path,
    )
    assert bad.returncode == 2
    assert bad.stderr.startswith("vqametrics: error:") and "no.json" in bad.stderr


def test_a_registered_exit_handler_still_runs(tmp_path: Path) -> None:
    args = _inputs(tmp_path)
    done = _run(
        "import atexit, sys\n"
        "atexit.register(lambda: print('handler ran'))\n"
        f"sys.argv = {['vqametrics', *args]!r}\n"
        "from vqametrics.cli import console_main\n"
        "console_main()\n",
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("handler ran")


def test_python_dash_m_uses_it(tmp_path: Path) -> None:
    args = _inputs(tmp_path)
    env = {**os.environ, "PYTHONPATH": SRC}
    done = subprocess.run(
        [sys.executable, "-m", "vqametrics", *args, "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["task"] == "vqav2"


def test_the_results_are_left_for_the_exit_only_under_console_main(tmp_path: Path) -> None:
    # freeing a large evaluation object by object is what os._exit skips: console_main holds
    # the last one until the process leaves; main() in a process of one's own holds nothing
    args = _inputs(tmp_path)
    leave = (
        "import os, sys\n"
        "from vqametrics.cli import _exit\n"
        "real = os._exit\n"
        "def leave(code):\n"
        "    held = [(type(o).__name__, o.accuracy['overall']) for o in _exit._held]\n"
        "    print('held', held, file=sys.stderr)\n"
        "    sys.stderr.flush()\n"
        "    real(code)\n"
        "os._exit = leave\n"
    )
    done = _run(
        leave + f"sys.argv = {['vqametrics', *args]!r}\n"
        "from vqametrics.cli import console_main\n"
        "console_main()\n",
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "held [('VQAEvaluation', 100.0)]" in done.stderr.splitlines()
    in_process = _run(
        f"from vqametrics.cli import _exit, main\n"
        f"assert main({args!r}) == 0\n"
        "print('held', len(_exit._held))\n",
        tmp_path,
    )
    assert in_process.returncode == 0, in_process.stderr
    assert in_process.stdout.splitlines()[-1] == "held 0"
    with_handler = _run(
        "import atexit, sys\n"
        "from vqametrics.cli import _exit\n"
        "atexit.register(lambda: print('held at exit', len(_exit._held)))\n"
        f"sys.argv = {['vqametrics', *args]!r}\n"
        "from vqametrics.cli import console_main\n"
        "console_main()\n",
        tmp_path,
    )
    assert with_handler.returncode == 0, with_handler.stderr
    assert with_handler.stdout.rstrip().endswith("held at exit 0")  # released before the exit


def test_only_the_last_object_handed_is_held() -> None:
    from vqametrics.cli import _exit

    first, second = object(), object()
    _exit.hold_until_exit(first)
    assert _exit._held == []  # not under console_main: nothing is held
    _exit.holding(True)
    try:
        _exit.hold_until_exit(first)
        _exit.hold_until_exit(second)  # a command scoring several files hands each in turn
        assert _exit._held == [second]
    finally:
        _exit.release()
    assert _exit._held == []
    _exit.hold_until_exit(first)
    assert _exit._held == []  # released: holding is off again


def test_blas_threads_are_one_under_the_command_unless_set(tmp_path: Path) -> None:
    # no command does linear algebra: the command asks OpenBLAS for one thread (its start-up
    # thread pool cost 20 ms of numpy's import); a user's setting, and main() in a process of
    # one's own, are left alone
    args = _inputs(tmp_path)
    show = (
        "import atexit, os, sys\n"
        "atexit.register(lambda: print('blas', os.environ.get('OPENBLAS_NUM_THREADS')))\n"
        f"sys.argv = {['vqametrics', *args]!r}\n"
        "from vqametrics.cli import console_main\n"
        "console_main()\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    for preset, expected in ((None, "1"), ("4", "4")):
        run_env = {**env, "PYTHONPATH": SRC, **({"OPENBLAS_NUM_THREADS": preset} if preset else {})}
        done = subprocess.run(
            [sys.executable, "-c", show], capture_output=True, text=True, env=run_env, cwd=tmp_path
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.rstrip().endswith(f"blas {expected}")
    in_process = subprocess.run(
        [sys.executable, "-c", f"import os\nfrom vqametrics.cli import main\nmain({args!r})\n"
         "print('blas', os.environ.get('OPENBLAS_NUM_THREADS'))"],
        capture_output=True, text=True, env={**env, "PYTHONPATH": SRC}, cwd=tmp_path,
    )  # fmt: skip
    assert in_process.stdout.rstrip().endswith("blas None"), in_process.stderr
