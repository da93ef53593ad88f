"""The ``vqametrics`` command line: a thin layer over the library.

Each subcommand lives in its own module of this package and exposes ``register(subparsers)``;
``register`` must stay cheap (heavy imports go inside the handler). Exit codes: 0 success,
1 runtime failure, 2 usage error or bad input (one line on stderr naming the file and the
question id or line).
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import importlib
import os
import signal
import sys
import threading
import warnings
from collections.abc import Sequence

from .._exceptions import VqaMetricsError, VqaMetricsWarning, command_line_spelling
from .._version import __version__

__all__ = ["main"]

# Subcommand modules, in the order ``--help`` lists them.
_COMMANDS = (
    "vqa",
    "score",
    "explain",
    "profiles",
    "diff",
    "mmbench",
    "compare",
    "report",
    "table",
    "demo",
)

EPILOG = """exit codes: 0 success, 1 runtime failure, 2 usage error or bad input.
Every score comes with a signature that pins how it was computed; quote it in papers."""


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, with every available subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="vqametrics",
        description="Reproducible, explainable VQA scoring.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"vqametrics {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in _COMMANDS:
        try:
            module = importlib.import_module(f".{name}", __name__)
        except ModuleNotFoundError as exc:
            if exc.name == f"{__name__}.{name}":
                continue  # subcommand not built yet
            raise
        module.register(sub)
    return parser


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: object = None,
    line: str | None = None,
) -> None:
    print(f"vqametrics: warning: {message}", file=sys.stderr)


class _Terminated(BaseException):
    """SIGTERM arrived (``timeout``, SLURM, ``kill``): unwind, so that a forked writer is
    stopped and staged outputs are removed, as on Ctrl-C."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise _Terminated


def _escape_unencodable(exc: UnicodeError) -> tuple[str, int]:
    r"""Codec error handler: a character the stream cannot encode is written as ``\uXXXX``
    (``\ud83d\ude00`` beyond the BMP), which keeps ``--json`` output valid JSON and tables
    readable on any terminal (e.g. cp1252)."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    out = []
    for ch in exc.object[exc.start : exc.end]:
        code = ord(ch)
        if code > 0xFFFF:
            code -= 0x10000
            out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
        else:
            out.append(f"\\u{code:04x}")
    return "".join(out), exc.end


codecs.register_error("vqametrics.escape", _escape_unencodable)


def _tolerant_streams() -> None:
    """Make stdout and stderr escape what their encoding cannot represent (never a crash)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(Exception):  # e.g. a stream that is not a text wrapper
                reconfigure(errors="vqametrics.escape")


def _undecodable_argument(argv: Sequence[str]) -> str | None:
    """The first argument that was not valid text in the locale's encoding (Python keeps its
    bytes as lone surrogates), escaped for display; or None."""
    for arg in argv:
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            raw = os.fsencode(arg) if isinstance(arg, str) else bytes(arg)
            return raw.decode("ascii", "backslashreplace")
    return None


def _pipe_closed() -> int:
    """The reader of our output went away (``vqametrics diff … | head``): stop quietly.

    As the Python docs advise (signal module, "Note on SIGPIPE"), point stdout at devnull so
    that the interpreter's final flush does not raise again, and exit 0 with no message.
    """
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (tests, notebooks)
        pass
    finally:
        os.close(devnull)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    _tolerant_streams()
    arguments = list(sys.argv[1:] if argv is None else argv)
    bad = _undecodable_argument(arguments)
    if bad is not None:
        print(
            f"vqametrics: error: argument '{bad}' is not valid UTF-8 text; rename the file "
            "or pass the text in UTF-8",
            file=sys.stderr,
        )
        return 2
    parser = build_parser()
    # a command may take options declared by what it loads (``score TASK``'s task options):
    # it gets the arguments nothing else recognized; for every other command they are an error
    args, extra = parser.parse_known_args(arguments)
    if extra and not getattr(args, "takes_extra", False):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.extra = extra
    if hasattr(args, "output_format"):
        args.json = args.output_format == "json"
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        return _run(args)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _run(args: argparse.Namespace) -> int:
    # messages name the --options of the command line, not keyword arguments
    with warnings.catch_warnings(), command_line_spelling():
        warnings.simplefilter("always", VqaMetricsWarning)
        warnings.showwarning = _show_warning
        try:
            code: int = args.func(args)
            sys.stdout.flush()
        except BrokenPipeError:
            return _pipe_closed()
        except VqaMetricsError as exc:
            print(f"vqametrics: error: {exc}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print("vqametrics: interrupted", file=sys.stderr)
            return 1
        except _Terminated:
            print("vqametrics: terminated", file=sys.stderr)
            return 1
        except OSError as exc:
            print(f"vqametrics: error: {exc}", file=sys.stderr)
            bad_path = FileNotFoundError | IsADirectoryError | NotADirectoryError | FileExistsError
            return 2 if isinstance(exc, bad_path) else 1
    return code
