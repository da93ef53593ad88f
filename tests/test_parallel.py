"""The forked workers (``load/_fork.py``): same bytes as the sequential path, errors surface as
the same one line, and no child process is left behind."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from vqametrics.cli import main
from vqametrics.core.compiled import PURE_PYTHON_ENV, compiled
from vqametrics.kernels import _fast
from vqametrics.pipeline import vqa_outputs as files
from vqametrics.pipeline._vqa_bulk import JsonlLines
from vqametrics.readers import _fork
from vqametrics.readers._fork import Forked

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")

ANSWERS = ["yes", "no", "two", "2", "a dog", "Dog.", "red", "none", "0", "café"]


def _write_inputs(tmp: Path, n: int = 300, short_every: int = 0) -> list[str]:
    """Official-layout inputs for *n* questions; with *short_every*, every such question has
    three answers instead of ten (a row the bulk writer leaves to the per-question loop)."""
    anns = [
        {
            "question_id": 1000 + q,
            "image_id": q // 3,
            "question_type": f"what is {q % 7}",
            "answer_type": ["yes/no", "number", "other"][q % 3],
            "multiple_choice_answer": ANSWERS[q % 10],
            "answers": [
                {"answer": ANSWERS[(q * i + i) % 10], "answer_confidence": "yes", "answer_id": i}
                for i in range(1, 4 if short_every and q % short_every == 0 else 11)
            ],
        }
        for q in range(n)
    ]
    questions = {
        "info": {},
        "task_type": "Open-Ended",
        "data_type": "mscoco",
        "data_subtype": "val2014",
        "license": {},
        "questions": [{"question_id": 1000 + q, "image_id": q // 3} for q in range(n)],
    }
    results = [{"question_id": 1000 + q, "answer": ANSWERS[(q * 3) % 10]} for q in range(n)]
    paths = []
    for name, obj in (("ann.json", {"annotations": anns}), ("q.json", questions)):
        (tmp / name).write_text(json.dumps(obj))
        paths.append(str(tmp / name))
    (tmp / "res.json").write_text(json.dumps(results))
    return ["--annotations", paths[0], "--questions", paths[1], "--results", str(tmp / "res.json")]


@pytest.fixture
def bulk(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Score in bulk from 1 question on (the forked writer needs the bulk scorer)."""
    monkeypatch.setattr(_fast, "MIN_QUESTIONS", 1)
    yield


def _run(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, str, str]:
    code = main(["vqa", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _spy_forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    started: list[int] = []
    real_init = Forked.__init__

    def init(self: Forked, fn: Any, *args: Any) -> None:
        real_init(self, fn, *args)
        started.append(1)

    monkeypatch.setattr(Forked, "__init__", init)
    return started


@pytest.fixture(params=[files.CHILD_SHARE, 0.0], ids=["rest-sent", "all-sent"])
def share(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> float:
    """The child's share of the lines: CHILD_SHARE (this process sends it the rest: without the
    compiled joiner) or none (this process sends them all: with it)."""
    value: float = request.param
    monkeypatch.setattr(files, "_child_share", lambda: value)
    return value


@pytest.mark.parametrize("short_every", [0, 7])
def test_forked_writer_writes_the_same_bytes(
    tmp_path: Path,
    bulk: None,
    share: float,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    short_every: int,
) -> None:
    # with short_every, rows written one at a time fall in the child's lines and in this
    # process's (with CHILD_SHARE the child writes the first 68 % of the 300 lines)
    args = _write_inputs(tmp_path, short_every=short_every)
    forks = _spy_forks(monkeypatch)
    monkeypatch.setattr(files, "PARALLEL_MIN_QUESTIONS", 10**9)
    seq = _run(capsys, [*args, "--out", str(tmp_path / "seq")])
    assert not forks
    monkeypatch.setattr(files, "PARALLEL_MIN_QUESTIONS", 1)
    par = _run(capsys, [*args, "--out", str(tmp_path / "par")])
    assert forks
    assert seq[:2] == par[:2]
    assert seq[2].replace("/seq", "/DIR") == par[2].replace("/par", "/DIR")
    names = sorted(p.name for p in (tmp_path / "seq").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "par").iterdir())
    assert "per_question.jsonl" in names
    for name in names:
        assert (tmp_path / "seq" / name).read_bytes() == (tmp_path / "par" / name).read_bytes()


def test_with_the_compiled_joiner_this_process_assembles_every_line(
    tmp_path: Path, bulk: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(PURE_PYTHON_ENV, raising=False)
    if compiled("vqametrics.pipeline._joinrows", "join_rows") is None:
        pytest.skip("the compiled row joiner is not built")
    assert files._child_share() == 0.0
    prepared: list[tuple[int, int]] = []  # (pid, children alive) of each preparation
    real_init = JsonlLines.__init__

    def init(self: JsonlLines, *args: Any) -> None:
        prepared.append((os.getpid(), len(_children())))
        real_init(self, *args)

    monkeypatch.setattr(JsonlLines, "__init__", init)
    monkeypatch.setattr(files, "PARALLEL_MIN_QUESTIONS", 1)
    code, _, err = _run(capsys, [*_write_inputs(tmp_path), "--out", str(tmp_path / "o")])
    assert code == 0, err
    # prepared once, here, before the writer was forked (after it, every object touched would
    # be a page copied); the child prepared nothing: it only wrote and hashed what it was sent
    assert prepared == [(os.getpid(), 0)]
    assert len((tmp_path / "o" / "per_question.jsonl").read_bytes().splitlines()) == 300
    monkeypatch.setenv(PURE_PYTHON_ENV, "1")
    assert files._child_share() == files.CHILD_SHARE


def test_forked_writer_failure_is_the_same_one_line(
    tmp_path: Path, bulk: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = _write_inputs(tmp_path)

    def full_disk(*args: object) -> Iterator[bytes]:
        yield b"{}\n"
        raise OSError(28, "No space left on device")

    # both writers assemble their lines here (inherited by a forked child)
    monkeypatch.setattr(JsonlLines, "chunks", full_disk)
    outcomes = []
    for threshold, out in ((10**9, "seq"), (1, "par")):
        monkeypatch.setattr(files, "PARALLEL_MIN_QUESTIONS", threshold)
        code, stdout, err = _run(capsys, [*args, "--out", str(tmp_path / out)])
        lines = [ln for ln in err.splitlines() if ln.startswith("vqametrics: error:")]
        assert len(lines) == 1 and "Traceback" not in err, err
        assert stdout == ""
        outcomes.append((code, lines[0]))
        assert not (tmp_path / out).exists()  # nothing published, no temporary left
        assert not [p for p in tmp_path.iterdir() if ".vqm-" in p.name]
    assert outcomes[0] == outcomes[1]
    assert outcomes[0] == (1, "vqametrics: error: [Errno 28] No space left on device")


@pytest.mark.parametrize("fails", ["first lines", "received lines"])
def test_a_failure_in_the_child_alone_is_its_one_line(
    tmp_path: Path,
    bulk: None,
    share: float,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fails: str,
) -> None:
    # the child fails while writing its own lines, or the lines this process sent it; this
    # process then finds the pipe closed (or not) and must report the child's error, not its own
    # (with no line of its own, the child fails at once: on the file it opens)
    args = _write_inputs(tmp_path)
    parent = os.getpid()
    real_chunks, real_received = JsonlLines.chunks, files._received

    def chunks(self: JsonlLines, start: int, stop: int) -> Iterator[bytes]:
        if os.getpid() != parent and fails == "first lines":
            raise OSError(28, "No space left on device")
        return real_chunks(self, start, stop)

    def received(fd: int) -> Iterator[bytes]:
        yield from real_received(fd)
        if fails == "received lines":
            raise OSError(28, "No space left on device")

    real_send = files._send

    def send_after_the_child_died(fd: int, tail: list[bytes]) -> None:
        if fails == "first lines":  # the pipe's far end closed first: the write meets EPIPE
            import select
            import time

            poller = select.poll()
            poller.register(fd, select.POLLOUT)
            deadline = time.monotonic() + 10
            while not any(ev & select.POLLERR for _, ev in poller.poll(0)):
                assert time.monotonic() < deadline, "the child did not stop"
                time.sleep(0.005)
        real_send(fd, tail)

    real_write = files.write_chunks

    def write(path: Path, chunks: Any) -> Any:
        if os.getpid() != parent and fails == "first lines" and share == 0.0:
            raise OSError(28, "No space left on device")
        return real_write(path, chunks)

    monkeypatch.setattr(JsonlLines, "chunks", chunks)
    monkeypatch.setattr(files, "write_chunks", write)
    monkeypatch.setattr(files, "_received", received)
    monkeypatch.setattr(files, "_send", send_after_the_child_died)
    monkeypatch.setattr(files, "PARALLEL_MIN_QUESTIONS", 1)
    forks = _spy_forks(monkeypatch)
    code, stdout, err = _run(capsys, [*args, "--out", str(tmp_path / "o")])
    assert forks
    lines = [ln for ln in err.splitlines() if ln.startswith("vqametrics: error:")]
    assert lines == ["vqametrics: error: [Errno 28] No space left on device"], err
    assert (code, stdout) == (1, "") and "Traceback" not in err
    assert not (tmp_path / "o").exists()
    assert not [p for p in tmp_path.iterdir() if ".vqm-" in p.name]


def test_an_output_name_taken_by_a_folder_is_refused_before_scoring(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = _write_inputs(tmp_path)
    (tmp_path / "o" / "per_question.jsonl").mkdir(parents=True)
    code, stdout, err = _run(capsys, [*args, "--out", str(tmp_path / "o")])
    assert (code, stdout) == (2, "")
    assert "per_question.jsonl" in err and "is a folder" in err and "Traceback" not in err
    assert [p.name for p in (tmp_path / "o").iterdir()] == ["per_question.jsonl"]


def test_small_inputs_do_not_fork(
    tmp_path: Path, bulk: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    forks = _spy_forks(monkeypatch)
    code, _, _ = _run(capsys, [*_write_inputs(tmp_path, 20), "--out", str(tmp_path / "o")])
    assert code == 0 and not forks


def test_no_fork_without_os_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "fork")
    assert not _fork.can_fork()


def _boom(message: str) -> None:
    raise ValueError(message)


def _suicide() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _children() -> set[int]:
    path = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children")
    return set(map(int, path.read_text().split())) if path.exists() else set()


def test_forked_returns_value_and_reraises_errors() -> None:
    before = _children()
    with Forked(sum, [1, 2, 3]) as job:
        assert job.result() == 6
    with Forked(_boom, "bad thing") as job, pytest.raises(ValueError, match=r"^bad thing"):
        job.result()
    with Forked(_suicide) as job, pytest.raises(ChildProcessError, match="signal 9"):
        job.result()
    assert _children() == before  # all reaped: no zombies


def _big(n: int) -> bytes:
    return bytes(range(256)) * n


@pytest.mark.parametrize("value_file", [True, False])
def test_forked_values_of_any_size_arrive_whole(
    monkeypatch: pytest.MonkeyPatch, value_file: bool
) -> None:
    # by the in-memory value file (Linux), or through the pipe where there is none; a value
    # larger than any pipe, an empty one, an error
    if not value_file:
        monkeypatch.setattr(_fork, "_value_file", lambda: -1)
    read_from_file: list[int] = []
    real_read = _fork._read_value

    def spy(fd: int, size: int) -> bytes:
        read_from_file.append(size)
        return real_read(fd, size)

    monkeypatch.setattr(_fork, "_read_value", spy)
    before = _children()
    open_before = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    for n in (20_000, 0):
        with Forked(_big, n) as job:
            assert job.result() == bytes(range(256)) * n
    with Forked(_boom, "bad thing") as job, pytest.raises(ValueError, match=r"^bad thing"):
        job.result()
    assert _children() == before
    if value_file and hasattr(os, "memfd_create"):
        assert read_from_file and read_from_file[0] > 5_000_000  # the big value, by the file
    else:
        assert not read_from_file
    if open_before is not None:  # no descriptor left open (the pipe, the value file)
        assert len(os.listdir("/proc/self/fd")) == open_before


def test_forked_cancel_kills_and_reaps() -> None:
    before = _children()
    with pytest.raises(KeyError), Forked(signal.pause):
        raise KeyError("the parent fails while the child runs")
    assert _children() == before


def test_the_sender_thread_absorbs_a_closed_pipe_and_raises_other_failures() -> None:
    import threading

    before = threading.active_count()
    read_end, write_end = os.pipe()
    os.close(read_end)  # the child stopped reading: its own error is the one reported
    sender = files._Sender(write_end)
    sender.send([b"x" * 100_000, b"y"])
    sender.join()
    unwritable = os.open(os.devnull, os.O_RDONLY)  # a write to it fails (EBADF)
    failing = files._Sender(unwritable)
    failing.send(iter([b"x"]))
    with pytest.raises(OSError):
        failing.join()

    def broken() -> Iterator[bytes]:
        yield b"x"
        raise ValueError("making the chunks failed")

    read_end, write_end = os.pipe()
    half = files._Sender(write_end)
    with pytest.raises(ValueError, match="making the chunks failed"):
        half.send(broken())
    half.join()  # the end was queued all the same: the pipe is closed, the thread done
    assert os.read(read_end, 10) == b"x" and os.read(read_end, 10) == b""
    os.close(read_end)
    assert threading.active_count() == before
