"""Helpers shared by the subcommands: output formats and small argparse conveniences."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import orjson

__all__ = ["add_json_flag", "add_profile_option", "print_json"]


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    """``--json``: print the result as JSON on stdout instead of a table."""
    parser.add_argument(
        "--json", action="store_true", help="print the result as JSON on stdout instead of a table"
    )


def add_profile_option(parser: argparse.ArgumentParser, default: str = "official") -> None:
    """``--profile NAME`` with the registered profiles as choices."""
    from ..profiles import list_profiles

    names = [p.name for p in list_profiles()]
    parser.add_argument(
        "--profile",
        default=default,
        choices=names,
        metavar="NAME",
        help=f"scoring profile (default: {default}); one of: {', '.join(names)}",
    )


def print_json(obj: Any) -> None:
    """Write *obj* as indented JSON to stdout."""
    sys.stdout.write(orjson.dumps(obj, option=orjson.OPT_INDENT_2).decode() + "\n")
