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
