"""The ``vqametrics`` command line: a thin layer over the library.

Each subcommand lives in its own module of this package and exposes ``register(subparsers)``;
``register`` must stay cheap (heavy imports go inside the handler). Exit codes: 0 success,
1 runtime failure, 2 usage error or bad input (one line on stderr naming the file and the
question id or line).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import warnings
from collections.abc import Sequence

from .._exceptions import VqaMetricsError, VqaMetricsWarning
from .._version import __version__

__all__ = ["main"]

# Subcommand modules, in the order ``--help`` lists them.
_COMMANDS = ("vqa", "score", "explain", "profiles", "diff", "mmbench", "compare", "report", "demo")

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
    parser = build_parser()
    args = parser.parse_args(argv)
    if hasattr(args, "output_format"):
        args.json = args.output_format == "json"
    with warnings.catch_warnings():
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
        except OSError as exc:
            print(f"vqametrics: error: {exc}", file=sys.stderr)
            bad_path = FileNotFoundError | IsADirectoryError | NotADirectoryError | FileExistsError
            return 2 if isinstance(exc, bad_path) else 1
    return code
