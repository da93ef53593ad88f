"""Run one function in a forked child process and get its return value back.

Used to overlap work on the second core for large inputs (the output writer writes
``per_question.jsonl`` in one). A forked child
inherits the parent's memory copy-on-write, so it can read anything already built without any
transfer; only its return value is pickled back through a pipe, so it must be compact (numpy
arrays, a few thousand strings).

Guarantees: the child never runs the parent's cleanup (it always leaves with ``os._exit``); an
exception raised in the child is re-raised in the parent (same type and message, so the CLI
prints the same one line as without a child); the child is always reaped, and killed first if the
parent stops waiting for it (an error elsewhere, Ctrl-C), so neither zombies nor stray processes
remain. The child also dies with the parent: it asks the kernel for SIGKILL when its parent
dies (Linux ``PR_SET_PDEATHSIG``) and takes the default action on SIGINT and SIGTERM, so a killed
run leaves no writer behind. Where ``fork`` is missing (Windows) or unsafe (other threads are
running), :func:`can_fork` is false and callers take their sequential path; they take it too
where the process may use one CPU only (:func:`fork_worthwhile`: ``taskset``, a one-CPU batch
job), as a child would then only add work.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import threading
import traceback
from collections.abc import Callable
from typing import Any

__all__ = ["Forked", "can_fork", "fork_worthwhile", "usable_cpus"]


def can_fork() -> bool:
    """Whether :class:`Forked` may be used: ``os.fork`` exists and no other thread runs (forking
    a multi-threaded process can deadlock the child)."""
    return hasattr(os, "fork") and threading.active_count() == 1


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the OS has one: ``taskset``,
    a container's or a batch job's CPU set), else the machine's count."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def fork_worthwhile() -> bool:
    """Whether to move work to a forked child: :func:`can_fork`, and a second CPU to run it on.

    On one CPU a child only adds work: the split decode parses the file twice, and a forked
    writer copies the pages it touches; the sequential paths give the same bytes for less.
    """
    return can_fork() and usable_cpus() > 1


class Forked:
    """``fn(*args)`` running in a forked child; :meth:`result` waits and returns its value.

    Use it as a context manager: leaving the block without having called :meth:`result` (for
    example because of an exception) kills and reaps the child.
    """

    def __init__(self, fn: Callable[..., Any], *args: Any) -> None:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()  # or the child could print the parent's buffered text again
        self._value_fd = _value_file()
        read_fd, write_fd = os.pipe()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child (coverage does not follow it)
            os.close(read_fd)
            _die_with_parent(parent)
            _child(write_fd, self._value_fd, fn, args)
        os.close(write_fd)
        self._pid: int | None = pid
        self._read_fd = read_fd

    def __enter__(self) -> Forked:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cancel()

    def result(self, *, reap: bool = True) -> Any:
        """Wait for the child; its return value, or its exception re-raised here.

        With ``reap=False`` a child that sent its value is reaped only on leaving the ``with``
        block: it has nothing left to do but exit, and meanwhile the caller can work instead of
        waiting for the kernel to free the child's memory (tens of ms for a large one).
        """
        if self._read_fd < 0:
            raise RuntimeError("the result was already collected")
        # the pipe is this call's to close from here on, even if a signal (SIGTERM) interrupts
        # the read: cancel() must not close the descriptor again
        fd, self._read_fd = self._read_fd, -1
        with os.fdopen(fd, "rb") as pipe:
            data = pipe.read()  # read before waiting: a full pipe would block the child
        if not data:
            code = os.waitstatus_to_exitcode(self._reap())
            how = f"killed by signal {-code}" if code < 0 else f"exited with status {code}"
            raise ChildProcessError(f"a worker process {how} before finishing its work")
        if reap:
            self._reap()
        payload: bytes | memoryview
        if data[:1] == _IN_FILE:
            payload = _read_value(self._value_fd, int.from_bytes(data[1:], "little"))
        else:
            payload = memoryview(data)[1:]
        self._close_value_file()
        ok, value = pickle.loads(payload)
        if ok:
            return value
        raise value

    def _close_value_file(self) -> None:
        if self._value_fd >= 0:
            os.close(self._value_fd)
            self._value_fd = -1

    def _reap(self) -> int:
        """Wait for the child to exit; its wait status."""
        assert self._pid is not None
        pid, self._pid = self._pid, None
        return os.waitpid(pid, 0)[1]

    def cancel(self) -> None:
        """Kill the child if it still runs, and reap it (no-op once it is reaped)."""
        self._close_value_file()
        if self._read_fd >= 0:
            os.close(self._read_fd)
            self._read_fd = -1
        if self._pid is not None:
            pid, self._pid = self._pid, None
            with contextlib.suppress(ProcessLookupError):  # already gone: still to reap
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


def _die_with_parent(parent: int) -> None:  # pragma: no cover - runs in the child
    """Make this child die with its parent: default SIGINT/SIGTERM actions, and on Linux a
    SIGKILL from the kernel when the parent dies (checked once more afterwards, in case the
    parent died before the request)."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:
        os._exit(1)


_PR_SET_PDEATHSIG = 1


#: how the child's message on the pipe begins: its value follows, or it is in the value file
#: (then its size follows, 8 bytes little-endian)
_ON_PIPE, _IN_FILE = b"P", b"F"


def _value_file() -> int:
    """An anonymous in-memory file for the child's pickled value (Linux ``memfd_create``), or
    -1: the value then goes through the pipe. Through the file, the child writes it at memory
    speed without waiting, and this process reads it in one copy instead of pipe-sized pieces
    (VQA v2's 19 MB of answer codes: about 15 ms instead of 40-90 ms)."""
    create = getattr(os, "memfd_create", None)
    if create is None:  # pragma: no cover - not Linux
        return -1
    try:
        fd: int = create("vqametrics-worker-value", getattr(os, "MFD_CLOEXEC", 0))
    except OSError:  # pragma: no cover - e.g. a seccomp filter
        return -1
    return fd


def _read_value(fd: int, size: int) -> bytes:
    """The *size* bytes the child wrote into the value file *fd*."""
    parts, offset = [], 0
    while offset < size:
        part = os.pread(fd, size - offset, offset)
        if not part:
            raise ChildProcessError("a worker process left a shorter value than it announced")
        parts.append(part)
        offset += len(part)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _child(write_fd: int, value_fd: int, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    """The child's side: run *fn*, send ``(ok, value or exception)``, leave with ``os._exit``."""
    code = 1
    try:
        try:
            payload = pickle.dumps((True, fn(*args)), protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException as exc:  # every failure goes back to the parent
            payload = _pickled_error(exc)
        in_file = False
        if value_fd >= 0:
            with contextlib.suppress(OSError):  # no room: the pipe then carries it
                view = memoryview(payload)
                while view:
                    view = view[os.write(value_fd, view) :]
                in_file = True
        with os.fdopen(write_fd, "wb") as pipe:
            if in_file:
                pipe.write(_IN_FILE + len(payload).to_bytes(8, "little"))
            else:
                pipe.write(_ON_PIPE)
                pipe.write(payload)
        code = 0
    finally:
        os._exit(code)


def _pickled_error(exc: BaseException) -> bytes:
    """The exception, pickled with its traceback as a note (Python 3.11+) for debugging; an
    exception that cannot be pickled becomes a ``RuntimeError`` with the same text."""
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    add_note = getattr(exc, "add_note", None)
    try:
        if add_note is not None:
            add_note(f"raised in a worker process:\n{tb}")
        return pickle.dumps((False, exc), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # e.g. one holding an unpicklable object
        error = RuntimeError(f"{type(exc).__name__} in a worker process: {exc}\n{tb}")
        return pickle.dumps((False, error), protocol=pickle.HIGHEST_PROTOCOL)
