"""The argparse side of the command line: the top-level parser and its lazily registered
commands. Kept out of ``cli/__init__`` so that ``vqametrics --help`` and ``--version``, which
are laid out there without argparse, import neither argparse nor ``re``."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence

from .._version import __version__
from ._table import COMMANDS as _COMMANDS
from ._table import DESCRIPTION, EPILOG
from ._table import columns as _columns

__all__ = ["build_parser", "listing_parser", "parse_task_options", "sized"]

_PACKAGE = __name__.rpartition(".")[0]


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """The top-level help, as wide as argparse makes it (the terminal's width less 2)."""

    def __init__(self, prog: str, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("width", _columns() - 2)
        super().__init__(prog, *args, **kwargs)  # type: ignore[arg-type]


def sized(formatter: type[argparse.HelpFormatter]) -> type[argparse.HelpFormatter]:
    """*formatter* given the width argparse would compute with ``shutil`` (which it imports,
    with bz2 and lzma, for the first formatter made: every ``add_argument`` makes one)."""

    class Sized(formatter):  # type: ignore[valid-type,misc]
        def __init__(self, prog: str, *args: object, **kwargs: object) -> None:
            kwargs.setdefault("width", _columns() - 2)
            super().__init__(prog, *args, **kwargs)

    return Sized


def parse_task_options(
    prog: str, options: Sequence[tuple[str, str]], extra: Sequence[str]
) -> tuple[dict[str, str], list[str]]:
    """A task's own options (``Task.options``: ``(name, help)`` pairs, GQA's ``--choices``) among
    *extra*: the values given, by key (``judge_record``), and the arguments left unknown. Each
    option is accepted with hyphens or underscores (``--judge-record``, ``--judge_record``), as
    tasks once declared it either way."""
    parser = argparse.ArgumentParser(
        prog=prog, add_help=False, formatter_class=sized(argparse.HelpFormatter)
    )
    for name, text in options:
        spellings = dict.fromkeys(
            f"--{n}" for n in (name, name.replace("_", "-"), name.replace("-", "_"))
        )
        parser.add_argument(*spellings, dest=name.replace("-", "_"), metavar="V", help=text)
    values, unknown = parser.parse_known_args(list(extra))
    return {k: v for k, v in vars(values).items() if v is not None}, unknown


class _Only:
    """What a module's ``register`` is given when one of its commands runs: its other
    commands (a module may register several) are built on parsers that go nowhere."""

    def __init__(self, sub: argparse._SubParsersAction[argparse.ArgumentParser], keep: str):
        self._sub = sub
        self._keep = keep

    def add_parser(self, name: str, **kwargs: object) -> argparse.ArgumentParser:
        if name == self._keep:
            wanted = kwargs.get("formatter_class", argparse.HelpFormatter)
            kwargs["formatter_class"] = sized(wanted)  # type: ignore[arg-type]
            return self._sub.add_parser(name, **kwargs)  # type: ignore[arg-type]
        return argparse.ArgumentParser(add_help=False)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser: with *command*, that command alone, in full (no other module is
    imported); with ``""``, every command listed by name and help line only; without, every
    command in full."""
    parser = argparse.ArgumentParser(
        prog="vqametrics",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="version", version=f"vqametrics {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    imported: set[str] = set()
    for name, (module_name, help_line) in _COMMANDS.items():
        if command and name != command:
            continue  # a command that runs needs no parser for the others (issue 23)
        if command is not None and name != command:
            sub.add_parser(name, help=help_line, formatter_class=_Formatter)  # listed only
            continue
        if module_name in imported:
            continue  # registered with the module's first command
        try:
            module = importlib.import_module(f".{module_name}", _PACKAGE)
        except ModuleNotFoundError as exc:
            if exc.name == f"{_PACKAGE}.{module_name}":
                continue  # subcommand not built yet
            raise
        imported.add(module_name)
        module.register(sub if command is None else _Only(sub, name))
    return parser


def listing_parser() -> argparse.ArgumentParser:
    """Every command by name and help line, none imported (``vqametrics``, ``--help``)."""
    return build_parser(command="")
