"""Issue 23, the lazy command line: a command imports only its own module, ``--help`` none.

The audit: every command imported all nine subcommand modules (orjson pulling in dataclasses,
inspect and ast; socket from the demo; shutil with bz2/lzma; the stats module), which cost
more than a whole peer scoring script. Timings are in ``benchmarks/bench_startup.py``; these
tests pin what is imported and that the listing is unchanged."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from vqametrics import cli

HEAVY = ("orjson", "numpy", "socket", "shutil", "vqametrics.aggregate.stats", "vqametrics.tasks")


def _imported_after(argv: list[str], tmp: Path) -> list[str]:
    """The modules a fresh interpreter holds after ``vqametrics ARGV`` (exit ignored)."""
    code = (
        "import sys, json, contextlib, io\n"
        "from vqametrics.cli import main\n"
        "out, err = io.StringIO(), io.StringIO()\n"
        "with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):\n"
        "    try:\n"
        f"        main({argv!r})\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    src = str(Path(cli.__file__).resolve().parents[2])  # this tree's vqametrics, not another
    env = {**os.environ, "COLUMNS": "100", "PYTHONPATH": src}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env, cwd=tmp
    )
    return list(json.loads(out.stdout))


def _help(parser: argparse.ArgumentParser) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        parser.parse_args(["--help"])
    return out.getvalue()


def test_the_command_table_matches_what_the_modules_register() -> None:
    full = cli.build_parser()
    (sub,) = [a for a in full._actions if isinstance(a, argparse._SubParsersAction)]
    registered = {a.dest: a.help for a in sub._choices_actions}
    listed = {name: help_line for name, (_, help_line) in cli._COMMANDS.items()}
    assert registered == listed
    assert list(registered) == list(listed)  # the same order in --help


def test_the_listing_is_the_full_parsers_help(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    assert _help(cli._listing_parser()) == _help(cli.build_parser())


@pytest.mark.parametrize("argv", [["--help"], ["--version"], []])
def test_help_imports_no_command(argv: list[str], tmp_path: Path) -> None:
    mods = _imported_after(argv, tmp_path)
    commands = [m for m in mods if m.startswith("vqametrics.cli.")]
    assert commands == []
    assert [m for m in mods if m.startswith(HEAVY)] == []


def test_a_command_imports_its_own_module_only(tmp_path: Path) -> None:
    mods = _imported_after(["explain", "--help"], tmp_path)
    commands = {m for m in mods if m.startswith("vqametrics.cli.")}
    assert "vqametrics.cli.explain" in commands
    others = {f"vqametrics.cli.{m}" for m, _ in cli._COMMANDS.values()} - {"vqametrics.cli.explain"}
    assert commands & others == set()
    assert "socket" not in mods  # the demo's import of it is not paid by other commands


def test_a_second_command_of_a_module_runs(capsys: pytest.CaptureFixture[str]) -> None:
    # mmbench registers mmbench and mmbench-circular: each runs alone, the other only listed
    with pytest.raises(SystemExit) as exc:
        cli.main(["mmbench-circular", "--help"])
    assert exc.value.code == 0
    assert "usage: vqametrics mmbench-circular" in capsys.readouterr().out


def test_an_unknown_command_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["scroe"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'scroe'" in err
    assert all(name in err for name in cli._COMMANDS)


def test_options_before_the_command_are_not_commands() -> None:
    assert cli._command(["--version"]) is None
    assert cli._command(["score", "pope"]) == "score"
    assert cli._command(["-h", "vqa"]) == "vqa"
    assert cli._command(["--", "vqa"]) is None
