"""The ``vqametrics`` command line: a thin layer over the library.

Each subcommand lives in its own module of this package and exposes ``register(subparsers)``;
``register`` must stay cheap (heavy imports go inside the handler). A run imports only the
module of its command: the others are listed from :data:`_COMMANDS` (name and help line), so
``vqametrics --help`` and a small ``score`` start in about the time of Python itself. Exit
codes: 0 success, 1 runtime failure, 2 usage error or bad input (one line on stderr naming the
file and the question id or line).
"""

from __future__ import annotations

import codecs
import os
import sys

from .._version import __version__
from ._table import COMMANDS, DESCRIPTION, EPILOG, columns

TYPE_CHECKING = False  # typing, argparse and re are not imported for --help and --version
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

__all__ = ["console_main", "main"]

_COMMANDS = COMMANDS
_columns = columns


#: what argparse prints for the top level (tests/test_cli_lazy.py holds the two equal)
_USAGE = "usage: vqametrics [-h] [--version] COMMAND ..."
_OPTIONS = (
    ("-h, --help", "show this help message and exit"),
    ("--version", "show program's version number and exit"),
)


def _letter(ch: str) -> bool:
    """``[^\\d\\W]`` of textwrap's word splitting: a word character that is not a digit."""
    return (ch.isalnum() or ch == "_") and not ch.isdecimal()


def _hyphen_letter(text: str) -> bool:
    return len(text) == 2 and text[0] == "-" and _letter(text[1])


def _chunks(word: str) -> list[str]:
    """*word* cut after each hyphen where textwrap may break it (two letters before it, or a
    letter-hyphen-letter; a letter, an optional hyphen and a letter after it)."""
    out, start, n = [], 0, len(word)
    for i, ch in enumerate(word):
        if ch != "-" or i == start:
            continue
        before = (i >= 2 and _letter(word[i - 2]) and _letter(word[i - 1])) or (
            i >= 3 and _letter(word[i - 3]) and word[i - 2] == "-" and _letter(word[i - 1])
        )
        next_ = word[i + 2 : i + 4]  # after the letter that follows the hyphen
        after = i + 1 < n and _letter(word[i + 1])
        after = after and ((next_[:1] != "" and _letter(next_[0])) or _hyphen_letter(next_))
        if before and after:
            out.append(word[start : i + 1])
            start = i + 1
    return [*out, word[start:]]


def _wrap(text: str, width: int) -> list[str] | None:
    """``textwrap.wrap(text, width)`` of words separated by single spaces, without textwrap
    (and ``re``); None for what this does not cover (a word longer than the line, ``--``)."""
    words = text.split(" ")
    if "" in words or "--" in text or not all(word.isprintable() for word in words):
        return None
    lines: list[str] = []
    line = ""
    for word in words:
        for k, chunk in enumerate(_chunks(word)):
            if len(chunk) > width:
                return None
            joined = (f"{line} {chunk}" if k == 0 else line + chunk) if line else chunk
            if len(joined) <= width:
                line = joined
            else:
                lines.append(line)
                line = chunk
    return [*lines, line]


def _help_entry(indent: int, name: str, text: str, position: int, width: int) -> list[str] | None:
    """One command or option as argparse lays it out: the name, its help wrapped from
    column *position* (on the next line when the name is too long for the gap)."""
    lines = _wrap(text, max(width - position, 11))
    if lines is None:
        return None
    rest = [" " * position + line for line in lines[1:]]
    gap = position - indent - 2
    if len(name) <= gap:
        return [f"{' ' * indent}{name:<{gap}}  {lines[0]}", *rest]
    return [" " * indent + name, " " * position + lines[0], *rest]


def _command_indent() -> int | None:
    """The indent at which this Python's argparse measures a command's name when it places
    the help column: 2 (the listing's own) up to 3.12.1, 4 in 3.13 (CPython gh-87041, which
    may also be in later 3.12 releases). ``None`` where no such layout was checked against
    argparse (those 3.12 releases; 3.14, whose help is in colour): argparse lays it out."""
    version = sys.version_info
    if version < (3, 12, 2):
        return 2
    if (3, 13) <= version < (3, 14):
        return 4
    return None


def _fast_help(width: int) -> str | None:
    """The top-level ``--help`` text, identical to argparse's for a *width* (the terminal's
    less 2) where it can be laid out without argparse; None where it cannot (then argparse
    does it). argparse, ``re`` and ``textwrap`` cost more than the interpreter's own start."""
    command_indent = _command_indent()
    if command_indent is None or len(_USAGE) > width:
        return None
    longest = max(
        2 + len("COMMAND"),
        command_indent + max(map(len, _COMMANDS)),
        2 + max(len(o) for o, _ in _OPTIONS),
    )
    position = min(longest + 2, min(24, max(width - 20, 4)))
    out = [_USAGE, "", DESCRIPTION, "", "positional arguments:", "  COMMAND"]
    for name, (_, text) in _COMMANDS.items():
        entry = _help_entry(4, name, text, position, width)
        if entry is None:
            return None
        out += entry
    out += ["", "options:"]
    for name, text in _OPTIONS:
        entry = _help_entry(2, name, text, position, width)
        if entry is None:
            return None
        out += entry
    return "\n".join([*out, "", EPILOG]) + "\n"


def _print_and_exit(text: str) -> None:
    """Print *text* and leave with status 0, as argparse's ``--help`` and ``--version`` do."""
    try:  # noqa: SIM105 - contextlib is not imported for --help
        sys.stdout.write(text)
    except (AttributeError, OSError):
        pass
    raise SystemExit(0)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser: with *command*, that command alone, in full (no other module is
    imported); without, every command in full."""
    from ._parser import build_parser as build

    return build(command)


def _command(arguments: Sequence[str]) -> str | None:
    """The command a command line runs: its first argument that is not an option (the top
    level has only ``--help`` and ``--version``, which take no value); ``None`` for none or
    an unknown one (then the parser lists the commands)."""
    for arg in arguments:
        if arg == "--":
            return None
        if not arg.startswith("-"):
            return arg if arg in _COMMANDS else None
    return None


def _listing_parser() -> argparse.ArgumentParser:
    """Every command by name and help line, none imported (``vqametrics``, ``--help``)."""
    from ._parser import listing_parser

    return listing_parser()


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
            try:  # noqa: SIM105 - contextlib is not imported for --help
                reconfigure(errors="vqametrics.escape")
            except Exception:  # e.g. a stream that is not a text wrapper
                pass


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
    if arguments == ["--version"]:
        _print_and_exit(f"vqametrics {__version__}\n")
    if arguments in (["--help"], ["-h"]):
        text = _fast_help(_columns() - 2)
        if text is not None:
            _print_and_exit(text)
    command = _command(arguments)
    # only the command that runs is imported and registered; without one, none is (--help)
    parser = build_parser(command) if command is not None else _listing_parser()
    # a command may take options declared by what it loads (``score TASK``'s task options):
    # it gets the arguments nothing else recognized; for every other command they are an error
    args, extra = parser.parse_known_args(arguments)
    if extra and not getattr(args, "takes_extra", False):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.extra = extra
    if hasattr(args, "output_format"):
        args.json = args.output_format == "json"
    previous = None
    import signal  # after parsing: --help and --version do without it

    try:  # only the main thread may set a handler (threading itself is not imported)
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    except ValueError:  # main() called from another thread: SIGTERM keeps its handler
        previous = None
    try:
        return _run(args)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def console_main() -> None:
    """The ``vqametrics`` and ``python -m vqametrics`` commands: :func:`main`, then the exit.

    When nothing is left to run at exit (no exit handler registered, no other thread), the
    process leaves at once (``os._exit``) once its streams are flushed: the interpreter's
    teardown frees every object one by one, which measured 17 ms of a small score's 150 ms of
    CPU and 0.1 s after a 214k-question run, for nothing (and a command's results are held
    until then: ``_exit.py``). :func:`main` called in a process of one's own (a notebook, a
    test) returns as always.
    """
    from . import _exit

    _exit.holding(True)  # a command's large results are left for the exit (_exit.py)
    # numpy's OpenBLAS starts a thread per CPU when numpy is imported (20 ms), and no
    # vqametrics command does linear algebra; a user's own setting is kept
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    code = main()
    if _nothing_at_exit():
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (AttributeError, OSError, ValueError):
            pass  # the interpreter's own exit reports it, as it always has
        else:
            os._exit(code)
    _exit.release()
    sys.exit(code)


def _nothing_at_exit() -> bool:
    """Whether leaving without the interpreter's teardown skips nothing: no ``atexit``
    handler (logging, a plotting or HTTP library may register one) and no other thread."""
    import atexit

    count = getattr(atexit, "_ncallbacks", None)  # CPython's; elsewhere, the normal exit
    threading = sys.modules.get("threading")  # not imported: no other thread was started
    return (
        count is not None and count() == 0 and (threading is None or threading.active_count() == 1)
    )


def _discard_staged_outputs() -> None:
    """Remove the staged output folders of an interrupted run (when the run wrote any)."""
    output = sys.modules.get("vqametrics.core.output")
    if output is not None:
        output.discard_unpublished()


def _run(args: argparse.Namespace) -> int:
    import warnings

    from ..core.exceptions import VqaMetricsError, VqaMetricsWarning, command_line_spelling

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
            return int(getattr(exc, "exit_code", 2))  # 1 for a runtime failure (the judge)
        except KeyboardInterrupt:
            _discard_staged_outputs()
            print("vqametrics: interrupted", file=sys.stderr)
            return 1
        except _Terminated:
            _discard_staged_outputs()
            print("vqametrics: terminated", file=sys.stderr)
            return 1
        except OSError as exc:
            # "out.html: is a folder, expected a file name", not "[Errno 21] …: 'out.html'"
            shown = f"{exc.filename}: {exc.strerror}" if exc.filename and exc.strerror else exc
            print(f"vqametrics: error: {shown}", file=sys.stderr)
            bad_path = FileNotFoundError | IsADirectoryError | NotADirectoryError | FileExistsError
            return 2 if isinstance(exc, bad_path) else 1
    return code
