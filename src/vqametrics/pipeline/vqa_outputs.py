"""Write an evaluation's files: the official four, ``per_question.jsonl``, ``signature.txt``.

They are published together, with ``manifest.json``, through :mod:`vqametrics.core.output`:
an interrupted run leaves the previous complete folder or the new one, never a mix.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import chain
from pathlib import Path

import orjson

from ..core.collector import gc_paused
from ..core.compiled import ROW_JOINER, compiled
from ..core.output import FileDigest, StagedDir, write_chunks
from ..readers._fork import Forked, fork_worthwhile
from .vqa import VQA_OUTPUTS, VQAEvaluation

__all__ = ["VQA_OUTPUTS", "PendingOutputs", "start_vqa_outputs", "write_vqa_outputs"]

InputPaths = Sequence[str | os.PathLike[str] | None]

_OPTS = orjson.OPT_NON_STR_KEYS
#: From this many (bulk-scored) questions, ``per_question.jsonl`` is written by two processes:
#: a forked child prepares the lines and writes the first of them while this process writes
#: the other files, then prepares the lines again and assembles the rest, which it hands to the
#: child through a pipe to append. The file is most of the writing time; the child inherits the
#: evaluation copy-on-write, so nothing has to be handed over first. Below it, a fork costs
#: more than it saves.
PARALLEL_MIN_QUESTIONS = 50_000

#: the share of ``per_question.jsonl``'s lines the child writes, so that both finish together:
#: this process first writes the four official files. Measured at 214k questions (seconds):
#: the prepared columns 0.15-0.2 in each process, the official files 0.25, all lines 0.3-0.6
#: in the child and 0.4 here. With the compiled line joiner (``_joinrows.c``) the child writes
#: none of its own (:func:`_child_share`)
CHILD_SHARE = 0.68


def _child_share() -> float:
    """:data:`CHILD_SHARE`, or none where the compiled joiner assembles the lines: then this
    process assembles every one (prepared once, in 0.1 s, and joined in 0.1 s at 214k
    questions) and a thread streams them to the child while this process writes the official
    files; the child only writes and hashes them (0.2 s, the part that cannot be shared)."""
    if compiled(*ROW_JOINER) is not None:
        return 0.0
    return CHILD_SHARE


def write_vqa_outputs(
    result: VQAEvaluation,
    out_dir: str | Path,
    *,
    inputs: InputPaths = (),
    extra: Mapping[str, bytes] | None = None,
) -> list[Path]:
    """Write the official ``accuracy``/``evalQA``/``evalQuesType``/``evalAnsType`` JSON files
    (question ids become string keys, as with the script's ``json.dump``), plus
    ``per_question.jsonl``, ``signature.txt`` and ``manifest.json``, published together;
    returns the paths written. An output that would replace one of *inputs* is refused;
    *extra* files (name -> content, e.g. ``judge.jsonl``) are published with them."""
    with start_vqa_outputs(result, out_dir, inputs=inputs, extra=extra) as pending:
        return pending.wait()


class PendingOutputs:
    """Files being written by :func:`start_vqa_outputs`; :meth:`wait` finishes them.

    A context manager: leaving it without :meth:`wait` stops the child writer, if any, and
    removes the staged files (the output folder keeps its previous content).
    """

    def __init__(self, staged: StagedDir, worker: _SplitJsonl | None, signature: str) -> None:
        self._staged = staged
        self._worker = worker
        self._signature = signature

    def __enter__(self) -> PendingOutputs:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._worker is not None:
            self._worker.cancel()
        self._staged.discard()

    def wait(self) -> list[Path]:
        """Finish ``per_question.jsonl`` with the child writer (re-raising its error, e.g. a
        full disk), then publish the files with their manifest; the paths."""
        if self._worker is not None:
            worker, self._worker = self._worker, None
            self._staged.record("per_question.jsonl", worker.finish())
        return self._staged.publish(self._signature)


class _SplitJsonl:
    """``per_question.jsonl`` written by two processes: a forked child writes the first lines
    (:func:`_child_share` of them), this process assembles the rest and sends them to the
    child, which appends them and hashes the whole file as it writes it (a hash cannot be
    handed over between processes, and reading the file back to hash it cost this process
    0.1 s at 214k questions). When the child writes none of its own, this process sends every
    line at once (:meth:`send_early`, before the official files); otherwise it sends the rest
    when :meth:`finish` is called.

    Where the child writes lines of its own, each process prepares the lines' columns itself
    (:class:`JsonlLines`), after the fork. Where it writes none, this process prepares them once,
    before the fork: after it, every object touched would be a page copied.
    """

    def __init__(self, result: VQAEvaluation, path: Path) -> None:
        from ._vqa_bulk import JsonlLines  # imported once, before the fork, for both

        self._result = result
        self._split = int(len(result.dataset) * _child_share())
        self._sender: _Sender | None = None
        self._lines: JsonlLines | None = None
        if self._split == 0:  # prepared before the fork: after it, each object touched here
            with gc_paused():  # would be a page copied (0.1 s more at 214k questions)
                self._lines = JsonlLines(result, result._fast)
        read_end, self._send_end = os.pipe()
        _widen(self._send_end)
        try:
            self._child = Forked(_write_lines, result, path, self._split, read_end, self._send_end)
        except BaseException:
            os.close(self._send_end)
            raise
        finally:
            os.close(read_end)

    def send_early(self) -> None:
        """Where the child writes no line of its own, assemble them all now and hand them to a
        thread that sends them (:class:`_Sender`): the child writes them while this process goes
        on with the official files, instead of waiting on the pipe for the child's disk."""
        if self._lines is not None:  # prepared before the fork: the child writes none
            lines, self._lines = self._lines, None
            with gc_paused():
                send_end, self._send_end = self._send_end, -1
                try:
                    self._sender = _Sender(send_end)
                except BaseException:
                    os.close(send_end)
                    raise
                self._sender.send(lines.chunks(0, lines.n))

    def _send_lines(self) -> None:
        from ._vqa_bulk import JsonlLines

        with gc_paused():
            lines = JsonlLines(self._result, self._result._fast)
            send_end, self._send_end = self._send_end, -1
            _send(send_end, lines.chunks(self._split, lines.n))

    def finish(self) -> FileDigest:
        """Send the last lines, if not sent yet; the whole file's digest."""
        try:
            if self._sender is not None:
                sender, self._sender = self._sender, None
                sender.join()
            elif self._send_end >= 0:
                self._send_lines()
            digest: FileDigest = self._child.result()
        except BaseException:
            self.cancel()
            raise
        return digest

    def cancel(self) -> None:
        self._child.cancel()  # a sender writing to it then meets a closed pipe, and stops
        if self._sender is not None:
            sender, self._sender = self._sender, None
            with contextlib.suppress(BaseException):
                sender.join()
        if self._send_end >= 0:
            os.close(self._send_end)
            self._send_end = -1


class _Sender:
    """A thread writing chunks to a pipe (:func:`_send`) as they are handed to it: a write to a
    full pipe waits for the reader without holding the interpreter, so the caller goes on. At
    214k questions the child takes 0.2 s to write and hash 82 MB, which the parent spent
    waiting on the pipe before it could write the official files."""

    def __init__(self, fd: int) -> None:
        import queue
        import threading

        self._queue: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._failed: list[BaseException] = []
        self._thread = threading.Thread(target=self._run, args=(fd,), name="vqametrics-send")
        self._thread.start()

    def _run(self, fd: int) -> None:
        try:
            _send(fd, iter(self._queue.get, None))
        except BaseException as exc:  # re-raised by join, in the caller's thread
            self._failed.append(exc)

    def send(self, chunks: Iterable[bytes]) -> None:
        """Queue every chunk, then the end (also when making them fails: the pipe is closed)."""
        try:
            for chunk in chunks:
                self._queue.put(chunk)
        finally:
            self._queue.put(None)

    def join(self) -> None:
        """Wait until every chunk is sent and the pipe closed; a failure to send is raised."""
        self._thread.join()
        if self._failed:
            raise self._failed[0]


def _write_lines(
    result: VQAEvaluation, path: Path, stop: int, read_end: int, send_end: int
) -> FileDigest:
    """The child's part of :class:`_SplitJsonl`: lines 0 to *stop* into the new file *path*,
    then the lines the parent sends through *read_end* until it closes the pipe; the digest."""
    from ._vqa_bulk import JsonlLines

    os.close(send_end)  # the parent's end: while open here, the pipe would never end
    with gc_paused():
        if stop == 0:  # every line comes from the parent
            return write_chunks(path, _received(read_end))
        lines = JsonlLines(result, result._fast)
        return write_chunks(path, chain(lines.chunks(0, stop), _received(read_end)))


def _send(fd: int, chunks: Iterable[bytes]) -> None:
    """Write *chunks* to the pipe *fd*, then close it (also when making them fails). A child
    that stopped reading has failed: its own error is then what :meth:`Forked.result`
    raises."""
    try:
        for chunk in chunks:
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view) :]
    except BrokenPipeError:
        pass
    finally:
        os.close(fd)


def _received(fd: int) -> Iterator[bytes]:
    """The bytes arriving on the pipe *fd*, a block at a time, until the sender closes it."""
    with os.fdopen(fd, "rb", buffering=0) as pipe:
        while block := pipe.read(_PIPE_BYTES):
            yield block


#: the pipe's capacity asked for (Linux ``F_SETPIPE_SZ``; 1 MiB is the default limit there):
#: fewer switches between the processes than with the default 64 KiB
_PIPE_BYTES = 1 << 20


def _widen(fd: int) -> None:
    """Ask for a pipe of :data:`_PIPE_BYTES` where the system allows it (nothing otherwise)."""
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
    except (ImportError, AttributeError, OSError):  # not Linux, or above the system's limit
        pass


def start_vqa_outputs(
    result: VQAEvaluation,
    out_dir: str | Path,
    *,
    inputs: InputPaths = (),
    extra: Mapping[str, bytes] | None = None,
) -> PendingOutputs:
    """Start :func:`write_vqa_outputs`: for a large input a forked child starts writing
    ``per_question.jsonl`` while this call writes the other files and the caller does other
    work (renders its table); :meth:`PendingOutputs.wait` writes the file's last lines. The
    bytes are the same either way."""
    extra = extra or {}
    staged = StagedDir(out_dir, (*VQA_OUTPUTS, *extra), inputs=inputs)
    jsonl = staged.path("per_question.jsonl")
    worker = None
    try:
        large = result._fast is not None and len(result.scores) >= PARALLEL_MIN_QUESTIONS
        if large and fork_worthwhile():
            worker = _SplitJsonl(result, jsonl)
            worker.send_early()
        _write_official(result, staged)
        if worker is None:
            staged.record("per_question.jsonl", _write_jsonl(result, jsonl))
        signature = result.signature.format()
        staged.write("signature.txt", (signature + "\n").encode())
        for name, data in extra.items():
            staged.write(name, data)
    except BaseException:
        if worker is not None:
            worker.cancel()
        staged.discard()
        raise
    return PendingOutputs(staged, worker, signature)


def _write_official(result: VQAEvaluation, staged: StagedDir) -> None:
    """Stage the four official files."""
    with gc_paused():
        files = None
        if result._fast is not None:
            # the same bytes, assembled in bulk (score/_fast.py)
            from ._vqa_bulk import official_files

            files = official_files(result, result._fast)
        if files is None:
            files = {k: orjson.dumps(v, option=_OPTS) for k, v in result.official_outputs().items()}
        for name, data in files.items():
            staged.write(f"{name}.json", data)


def _write_jsonl(result: VQAEvaluation, path: Path) -> FileDigest:
    """``per_question.jsonl`` in this process: one ``orjson.dumps`` line per record (in bulk
    when possible); its size and sha256."""
    with gc_paused():
        return write_chunks(path, _jsonl_chunks(result))


def _jsonl_chunks(result: VQAEvaluation) -> Iterator[bytes]:
    if result._fast is not None:
        from ._vqa_bulk import jsonl_chunks

        yield from jsonl_chunks(result, result._fast)
    else:
        for rec in result.per_question():
            yield orjson.dumps(rec, option=_OPTS | orjson.OPT_APPEND_NEWLINE)
