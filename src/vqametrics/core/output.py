"""Write output files so that nobody ever reads a partial or mixed run, nor loses an input.

Every command that writes files goes through this module:

* :func:`publish_dir` (or :class:`StagedDir` for a writer that streams a large file, possibly
  from a forked child) writes a run's files into a temporary sibling folder
  ``.NAME.vqm-tmp-PID-XXXX`` and writes ``manifest.json`` last: each file with its size and
  sha256, and the run's signature. Only then is the folder published, by swapping it with the
  previous one in one atomic step (``renameat2(RENAME_EXCHANGE)`` on Linux; two renames
  elsewhere, with the previous folder restored by the next run if it was killed in between).
  A process killed at any moment therefore leaves either the previous complete outputs or the
  new complete ones. :func:`verify_dir` tells a complete folder from any other.
* A folder that also holds files that are not outputs (the user's own) is never swapped: the
  outputs are renamed into it one by one, with SIGINT and SIGTERM held off; its old
  ``manifest.json`` is removed first and the new one renamed in last, so a folder whose manifest
  does not match (or is missing) is incomplete.
* :func:`open_output_file` / :func:`write_output_file` do the same for one file: written under
  a temporary sibling name, renamed into place when complete.
* :func:`check_not_input` refuses (:class:`~vqametrics.InputError`, exit 2 in the CLI) an output
  path that is one of the inputs: same device and inode (so hard links, symlinks and ``..``
  are seen through) or the same resolved path. Files are created with ``O_EXCL|O_NOFOLLOW``
  and renamed over the final name, so a symlink at the final name is replaced, never followed.

Temporaries left by a killed run (their process is gone) are removed by the next run writing
to the same place. Not guaranteed: durability across a power loss (no ``fsync``; the files are
complete as soon as the process that wrote them exits).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import shutil
import signal
import stat
import sys
import tempfile
import threading
import weakref
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, NamedTuple

import orjson

from .exceptions import InputError

__all__ = [
    "MANIFEST",
    "FileDigest",
    "StagedDir",
    "check_not_input",
    "check_out_dir",
    "check_output_file",
    "discard_unpublished",
    "open_output_file",
    "publish_dir",
    "verify_dir",
    "write_chunks",
    "write_output_file",
]

PathLike = str | os.PathLike[str]

#: The manifest written last into every output folder.
MANIFEST = "manifest.json"
#: Its ``format`` field.
MANIFEST_FORMAT = "vqametrics-outputs/1"
_TMP = ".vqm-tmp-"
_OLD = ".vqm-old-"
_STALE = re.compile(r"\.vqm-(tmp|old)-(\d+)-")
# Every staged folder of this process not yet published or discarded: a signal that arrives
# between its creation and the ``with`` block that owns it still finds it (discard_unpublished).
_OPEN: weakref.WeakSet[StagedDir] = weakref.WeakSet()


class FileDigest(NamedTuple):
    """The size in bytes and the hex sha256 of a file written."""

    size: int
    sha256: str


def check_not_input(output: PathLike, inputs: Iterable[PathLike | None]) -> None:
    """Raise :class:`InputError` if writing *output* would write over one of *inputs*.

    Compared by device and inode when both exist (hard links, symlinks, ``..``), else by
    resolved path. ``None`` entries (options not given) are skipped.
    """
    out_stat = _stat(output)
    out_real = os.path.realpath(output)
    for inp in inputs:
        if inp is None:
            continue
        st = _stat(inp)
        same_file = (
            out_stat is not None
            and st is not None
            and (st.st_dev, st.st_ino) == (out_stat.st_dev, out_stat.st_ino)
        )
        if same_file or os.path.realpath(inp) == out_real:
            raise InputError(
                f"{os.fspath(output)}: refusing to overwrite the input file {os.fspath(inp)}"
            )


def check_out_dir(
    out_dir: PathLike, names: Iterable[str], inputs: Iterable[PathLike | None]
) -> None:
    """Fail early (before any work) if *out_dir* cannot take the outputs *names*: it is an
    existing non-folder, an output name in it is a folder, or an output would replace an input.
    """
    out = Path(out_dir)
    inputs = list(inputs)
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {os.fspath(out)}: exists and is not a directory")
    for name in (*names, MANIFEST):
        path = out / name
        if path.is_dir():
            raise IsADirectoryError(
                errno.EISDIR, "is a folder, cannot write an output there", str(path)
            )
        check_not_input(path, inputs)


def publish_dir(
    out_dir: PathLike,
    files: Mapping[str, bytes],
    *,
    inputs: Sequence[PathLike | None] = (),
    signature: str = "",
) -> list[Path]:
    """Write *files* (name -> content) into *out_dir* as one run, atomically; the paths.

    The folder is created if needed (with its parents). *inputs* are the run's input files:
    an output that would replace one is refused with :class:`InputError` before anything is
    written. *signature* (the run's signature line) is recorded in ``manifest.json``, written
    last with each file's size and sha256. A process killed at any time leaves either the
    previous complete folder or the new one (see the module docstring).
    """
    with StagedDir(out_dir, files, inputs=inputs) as staged:
        for name, data in files.items():
            staged.write(name, data)
        return staged.publish(signature)


@contextlib.contextmanager
def _named_as(path: Path) -> Iterator[None]:
    """An ``OSError`` raised within names *path*, the output the user asked for, not the
    staging folder it is written in first (``.out.vqm-tmp-…`` means nothing to them)."""
    try:
        yield
    except OSError as exc:
        if exc.filename is None or _TMP not in os.fspath(exc.filename):
            raise
        raise type(exc)(exc.errno, f"cannot be written ({exc.strerror})", os.fspath(path)) from None


class StagedDir:
    """An output folder being written: files go into a temporary sibling folder until
    :meth:`publish`. A context manager: leaving it without publishing removes the temporary
    folder. For a file written by a streaming writer (possibly a forked child), write to
    :meth:`path` (e.g. with :func:`write_chunks`) and pass its digest to :meth:`record`.
    """

    def __init__(
        self, out_dir: PathLike, names: Iterable[str], *, inputs: Sequence[PathLike | None] = ()
    ) -> None:
        self.names = list(names)
        for name in self.names:
            if name == MANIFEST or not name or os.sep in name or name.startswith("."):
                raise ValueError(f"not a plain output file name: {name!r}")
        target = Path(os.path.abspath(out_dir))  # "." and "a/.." have a name and a parent
        if target.is_symlink() and target.is_dir():
            target = Path(os.path.realpath(target))  # publish into the folder it points to
        self.final = target
        check_out_dir(target, self.names, inputs)
        target.parent.mkdir(parents=True, exist_ok=True)
        _clean_stale(target)
        self._pid = os.getpid()
        with _signals_held(), _named_as(target):  # registered as soon as it exists
            self.staging: Path | None = Path(
                tempfile.mkdtemp(prefix=f".{target.name}{_TMP}{self._pid}-", dir=target.parent)
            )
            _OPEN.add(self)
        os.chmod(self.staging, 0o777 & ~_umask())
        self._digests: dict[str, FileDigest] = {}

    def __enter__(self) -> StagedDir:
        return self

    def __exit__(self, *exc: object) -> None:
        self.discard()

    def path(self, name: str) -> Path:
        """Where the file *name* is staged (write it there, then :meth:`record` it)."""
        if name not in self.names or self.staging is None:
            raise ValueError(f"{name!r} is not one of this run's outputs")
        return self.staging / name

    def write(self, name: str, data: bytes) -> None:
        """Stage the file *name* with content *data*."""
        with _named_as(self.final / name):
            self.record(name, write_chunks(self.path(name), (data,)))

    def record(self, name: str, digest: FileDigest) -> None:
        """Note the digest of a file staged through :meth:`path`."""
        self._digests[name] = digest

    def publish(self, signature: str = "") -> list[Path]:
        """Write the manifest and put the folder in place; the final paths of the files."""
        if self.staging is None:
            raise RuntimeError("already published or discarded")
        staging = self.staging
        for name in self.names:
            if name not in self._digests:  # staged by other means: hash it now
                self._digests[name] = _digest_file(staging / name)
        manifest = {
            "format": MANIFEST_FORMAT,
            "complete": True,
            "signature": signature,
            "files": {
                n: {"size": d.size, "sha256": d.sha256} for n, d in sorted(self._digests.items())
            },
        }
        data = orjson.dumps(manifest, option=orjson.OPT_INDENT_2) + b"\n"
        write_chunks(staging / MANIFEST, (data,))
        with _signals_held():
            if not os.path.lexists(self.final):
                os.rename(staging, self.final)
                self.staging = None
            elif _only_outputs(self.final, self.names) and not _holds_cwd(self.final):
                self._swap(staging)
            else:
                self._merge(staging)
        return [self.final / n for n in self.names]

    def _swap(self, staging: Path) -> None:
        if _exchange(staging, self.final):  # staging now holds the previous outputs
            self.staging = None
            shutil.rmtree(staging, ignore_errors=True)
            return
        old = Path(
            tempfile.mkdtemp(
                prefix=f".{self.final.name}{_OLD}{os.getpid()}-", dir=self.final.parent
            )
        )
        os.rename(self.final, old / "d")
        os.rename(staging, self.final)
        self.staging = None
        shutil.rmtree(old, ignore_errors=True)

    def _merge(self, staging: Path) -> None:
        """Rename the files one by one into a folder that holds other files too."""
        final = self.final
        old_names = set(_manifest_files(final)) - set(self.names)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(final / MANIFEST)  # from here on the folder reads as incomplete
        for name in old_names:
            if name and os.sep not in name and name != MANIFEST:
                with contextlib.suppress(OSError):
                    os.unlink(final / name)
        for name in self.names:
            os.replace(staging / name, final / name)
        os.replace(staging / MANIFEST, final / MANIFEST)
        self.discard()

    def discard(self) -> None:
        """Remove the temporary folder (no-op once published)."""
        if self.staging is not None:
            staging, self.staging = self.staging, None
            shutil.rmtree(staging, ignore_errors=True)


def discard_unpublished() -> None:
    """Remove every staged folder this process has not published (on Ctrl-C or SIGTERM, from
    the command line's top level: it also catches a signal that came before a ``with``)."""
    for staged in list(_OPEN):
        if staged._pid == os.getpid():
            staged.discard()


def write_chunks(path: PathLike, chunks: Iterable[bytes]) -> FileDigest:
    """Create the new file *path* (``O_EXCL|O_NOFOLLOW``) from *chunks*; its size and sha256.

    Usable in a forked child: the digest is its return value.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_BINARY", 0)
    h = hashlib.sha256()
    size = 0
    with os.fdopen(os.open(path, flags, 0o666), "wb") as fh:
        for chunk in chunks:
            fh.write(chunk)
            h.update(chunk)
            size += len(chunk)
    return FileDigest(size, h.hexdigest())


def check_output_file(path: PathLike, inputs: Iterable[PathLike | None] = ()) -> Path:
    """*path* as a file an output may be written to, checked before any work: not one of
    *inputs*, not a folder, not a device, pipe or socket (also behind a symlink: ``/dev/stdout``
    is one), in a folder that exists; else the ``OSError`` (or :class:`InputError`) saying so."""
    final = Path(path)
    check_not_input(final, inputs)
    if final.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a folder, expected a file name", str(final))
    st = _stat(final)
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise FileExistsError(
            errno.EEXIST,
            "is not a regular file (a device, a pipe or a socket): the output is a new file "
            "renamed onto its path, which would replace it; name a file",
            str(final),
        )
    if not final.parent.is_dir():
        what = "is not a folder" if final.parent.exists() else "no such folder"
        raise FileNotFoundError(errno.ENOENT, what, str(final.parent))
    return final


@contextlib.contextmanager
def open_output_file(
    path: PathLike,
    *,
    inputs: Iterable[PathLike | None] = (),
    binary: bool = False,
    newline: str | None = None,
) -> Iterator[IO[Any]]:
    """Open a temporary sibling of *path* for writing; renamed to *path* when the block ends
    without an error (removed otherwise). Refuses (:class:`InputError`) a path that is one of
    *inputs*; text is UTF-8. A symlink at *path* is replaced, never written through; a device,
    pipe or socket there (or behind the symlink) is refused, never replaced."""
    final = check_output_file(path, inputs)
    _clean_stale(final)
    fd, tmp = tempfile.mkstemp(prefix=f".{final.name}{_TMP}{os.getpid()}-", dir=final.parent)
    try:
        os.chmod(tmp, 0o666 & ~_umask())
        if binary:
            with os.fdopen(fd, "wb") as fh:
                yield fh
        else:
            with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as fh:
                yield fh
        with _signals_held():
            os.replace(tmp, final)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_output_file(
    path: PathLike, data: bytes, *, inputs: Iterable[PathLike | None] = ()
) -> Path:
    """Write *data* to *path* atomically (see :func:`open_output_file`); the path."""
    with open_output_file(path, inputs=inputs, binary=True) as fh:
        fh.write(data)
    return Path(path)


def verify_dir(out_dir: PathLike) -> dict[str, Any]:
    """The manifest of a complete output folder; :class:`InputError` naming what is wrong
    (no manifest, a file missing, of another size or content) for any other folder."""
    folder = Path(out_dir)
    try:
        manifest = orjson.loads((folder / MANIFEST).read_bytes())
    except FileNotFoundError:
        raise InputError(f"{folder}: no {MANIFEST}: not a complete vqametrics output") from None
    except (OSError, orjson.JSONDecodeError) as exc:
        raise InputError(f"{folder / MANIFEST}: unreadable: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT:
        raise InputError(f"{folder / MANIFEST}: not a {MANIFEST_FORMAT} manifest")
    for name, want in manifest.get("files", {}).items():
        try:
            got = _digest_file(folder / name)
        except OSError:
            raise InputError(f"{folder / name}: listed in the manifest but missing") from None
        if got != FileDigest(want.get("size"), want.get("sha256")):
            raise InputError(f"{folder / name}: does not match the manifest (size or sha256)")
    return dict(manifest)


def _digest_file(path: Path) -> FileDigest:
    h = hashlib.sha256()
    size = 0
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
            size += len(chunk)
    return FileDigest(size, h.hexdigest())


def _stat(path: PathLike) -> os.stat_result | None:
    try:
        return os.stat(path)
    except (OSError, ValueError):
        return None


def _umask() -> int:
    mask = os.umask(0o22)
    os.umask(mask)
    return mask


def _manifest_files(folder: Path) -> list[str]:
    try:
        files = orjson.loads((folder / MANIFEST).read_bytes()).get("files", {})
        return [n for n in files if isinstance(n, str)]
    except (OSError, orjson.JSONDecodeError, AttributeError):
        return []


def _only_outputs(folder: Path, names: Sequence[str]) -> bool:
    """Whether *folder* holds nothing but outputs (files named as outputs, of this or of the
    previous run): then it can be swapped whole. A folder or another file in it: no."""
    try:
        entries = list(os.scandir(folder))
    except NotADirectoryError:
        return False
    ours = {*names, *_manifest_files(folder), MANIFEST}
    return all(e.name in ours and not e.is_dir(follow_symlinks=False) for e in entries)


def _holds_cwd(folder: Path) -> bool:
    """Whether the working directory is *folder* or inside it (never swap that away)."""
    try:
        cwd = os.path.realpath(os.getcwd())
    except OSError:
        return True
    real = os.path.realpath(folder)
    return cwd == real or cwd.startswith(real.rstrip(os.sep) + os.sep)


def _clean_stale(target: Path) -> None:
    """Remove the temporaries of killed runs next to *target*; if a run was killed between the
    two renames of a swap (no *target*, a ``.vqm-old-`` folder), put the previous folder back."""
    prefix = f".{target.name}."
    try:
        entries = [e for e in os.scandir(target.parent) if e.name.startswith(prefix)]
    except OSError:
        return
    for entry in entries:
        m = _STALE.match(entry.name, len(prefix) - 1)
        if m is None or _alive(int(m.group(2))):
            continue
        path = Path(entry.path)
        if m.group(1) == "old" and (path / "d").is_dir() and not os.path.lexists(target):
            with contextlib.suppress(OSError):
                os.rename(path / "d", target)
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.unlink(path)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True
    return True


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux ``renameat2``); False where that is not available."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    status: int = fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    return status == 0


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM off during the few renames that publish outputs (the main
    thread of a POSIX process only; elsewhere a no-op)."""
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    held = {signal.SIGINT, signal.SIGTERM}
    previous = mask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        mask(signal.SIG_SETMASK, previous)
