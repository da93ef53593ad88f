"""Killing ``vqametrics vqa --out`` at any moment never leaves a mixed or truncated folder.

A 60,000-question input (large enough for the forked ``per_question.jsonl`` writer) is scored
into the same folder again and again with two different results files; each run is killed
(SIGKILL, or SIGTERM as ``timeout`` and SLURM send it) at a different point. After every kill the
folder must be exactly the complete output of run A or of run B (checked against ``manifest.json``
and against reference runs), no writer process may survive its parent, and after SIGTERM no
temporary may remain.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from vqametrics.views.output import MANIFEST, verify_dir

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs Linux /proc"),
]

N = 60_000
WORDS = ["yes", "no", "two", "2", "a dog", "Dog.", "red", "none", "0", "café"]


def _inputs(tmp: Path) -> tuple[Path, Path, Path]:
    anns = [
        {
            "question_id": 1000 + q,
            "image_id": q // 3,
            "question_type": f"what is {q % 7}",
            "answer_type": ["yes/no", "number", "other"][q % 3],
            "answers": [{"answer": WORDS[(q * i + i) % 10], "answer_id": i} for i in range(10)],
        }
        for q in range(N)
    ]
    paths = tmp / "ann.json", tmp / "a.json", tmp / "b.json"
    paths[0].write_bytes(orjson.dumps({"annotations": anns}))
    for path, k in zip(paths[1:], (3, 7), strict=True):
        preds = [{"question_id": 1000 + q, "answer": WORDS[(q * k) % 10]} for q in range(N)]
        path.write_bytes(orjson.dumps(preds))
    return paths


def _start(ann: Path, results: Path, out: Path, log: Path) -> subprocess.Popen[bytes]:
    """Run in the background; stderr goes to *log* (a pipe would make waiting for the parent
    also wait for any child holding it)."""
    argv = ["vqa", "--annotations", str(ann), "--results", str(results), "--out", str(out)]
    with log.open("wb") as err:
        return subprocess.Popen(
            [sys.executable, "-m", "vqametrics", *argv], stdout=subprocess.DEVNULL, stderr=err
        )


def _children(pid: int) -> set[int]:
    try:
        return {int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()}
    except OSError:
        return set()


def _running(pid: int) -> bool:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] != "Z"  # a zombie has finished


def _staged_size(out: Path, pid: int) -> int:
    """The size of the ``per_question.jsonl`` staged by process *pid* (0 if none yet)."""
    for tmp in out.parent.glob(f".{out.name}.vqm-tmp-{pid}-*"):
        try:
            return (tmp / "per_question.jsonl").stat().st_size
        except OSError:
            pass
    return 0


def _files(folder: Path) -> dict[str, object]:
    manifest = verify_dir(folder)  # every listed file present with its size and sha256
    assert sorted(p.name for p in folder.iterdir()) == sorted([*manifest["files"], MANIFEST])
    files: dict[str, object] = manifest["files"]
    return files


def test_killed_runs_leave_a_complete_folder(tmp_path: Path) -> None:
    ann, res_a, res_b = _inputs(tmp_path)
    log = tmp_path / "stderr.txt"
    refs = {}
    started = time.monotonic()
    for name, res in (("a", res_a), ("b", res_b)):
        proc = _start(ann, res, tmp_path / f"ref_{name}", log)
        assert proc.wait(120) == 0, log.read_text()
        refs[name] = _files(tmp_path / f"ref_{name}")
    assert refs["a"] != refs["b"]
    run_time = (time.monotonic() - started) / 2
    out = tmp_path / "work" / "out"
    # killed while reading (a fraction of a run), or once the staged per_question.jsonl (26 MB
    # when complete) has reached a size: while the forked writer writes, and near the end
    trials = [
        (signal.SIGKILL, 0.3 * run_time, None),
        (signal.SIGTERM, 0.3 * run_time, None),
        (signal.SIGKILL, 60.0, 1 << 20),
        (signal.SIGTERM, 60.0, 1 << 20),
        (signal.SIGKILL, 60.0, 12 << 20),
        (signal.SIGTERM, 60.0, 12 << 20),
        (signal.SIGKILL, 60.0, 24 << 20),
        (signal.SIGTERM, 60.0, 24 << 20),
    ]
    outcomes = []
    for i, (sig, delay, staged_size) in enumerate(trials):
        proc = _start(ann, res_a if i % 2 else res_b, out, log)
        children: set[int] = set()
        end = time.monotonic() + delay
        while time.monotonic() < end and proc.poll() is None:
            children |= _children(proc.pid)
            if staged_size is not None and _staged_size(out, proc.pid) >= staged_size:
                break
            time.sleep(0.002)
        if proc.poll() is None:
            proc.send_signal(sig)
        code = proc.wait(60)  # the parent is gone from here on
        err = log.read_text()
        assert "Traceback" not in err, err
        outcomes.append((sig.name, code, len(children)))
        if sig == signal.SIGKILL and staged_size is not None:
            time.sleep(0.02)  # one write already under way may complete
            before = _staged_size(out, proc.pid)
            time.sleep(0.3)
            assert _staged_size(out, proc.pid) == before, "a writer went on after its parent died"
        deadline = time.monotonic() + 2
        while any(_running(c) for c in children) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not any(_running(c) for c in children), f"a writer outlived its parent ({sig})"
        if out.exists():
            assert _files(out) in (refs["a"], refs["b"]), f"mixed folder after {sig} at {delay}s"
        if sig == signal.SIGTERM:
            assert code in (0, 1), err
            if code == 1:
                assert "vqametrics: terminated" in err
            if out.parent.exists():
                assert not [p for p in out.parent.iterdir() if ".vqm-" in p.name]
    # a complete run afterwards cleans the temporaries a SIGKILL left
    proc = _start(ann, res_a, out, log)
    assert proc.wait(120) == 0, log.read_text()
    assert _files(out) == refs["a"]
    assert sorted(p.name for p in out.parent.iterdir()) == ["out"]
    assert sum(code != 0 for _, code, _ in outcomes) >= 6, outcomes  # really interrupted
