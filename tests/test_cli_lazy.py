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

COMMAND_MODULES = tuple(f"vqametrics.cli.{m}" for m, _ in cli._COMMANDS.values())
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
    commands = [m for m in mods if m.startswith(COMMAND_MODULES)]
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


# --- --help and --version without argparse ---------------------------------------------------


def _bare_modules(argv: list[str], tmp: Path) -> set[str]:
    """The modules a fresh interpreter holds after ``main(ARGV)``, the probe importing nothing
    of its own (``json`` would bring ``re``): printed on stderr after the command's output."""
    code = (
        "import sys\n"
        "from vqametrics.cli import main\n"
        "try:\n"
        f"    main({argv!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "sys.stderr.write(' '.join(sorted(sys.modules)))\n"
    )
    src = str(Path(cli.__file__).resolve().parents[2])
    env = {**os.environ, "COLUMNS": "100", "PYTHONPATH": src}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env, cwd=tmp
    )
    return set(out.stderr.split())


def _interpreter_modules(tmp: Path) -> set[str]:
    """The modules a fresh interpreter holds before running anything: its own, and those the
    environment's ``.pth`` files import (matplotlib 3.7's namespace hook brings ``warnings``)."""
    code = "import sys; sys.stderr.write(' '.join(sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp
    )
    return set(out.stderr.split())


@pytest.mark.parametrize("argv", [["--help"], ["-h"], ["--version"]])
def test_help_and_version_import_neither_argparse_nor_re(argv: list[str], tmp_path: Path) -> None:
    # argparse (with re, enum, gettext) alone costs about as much as the interpreter's start
    if argv != ["--version"] and cli._command_indent() is None:
        pytest.skip("argparse lays out the help on this Python (cli._command_indent)")
    mods = _bare_modules(argv, tmp_path) - _interpreter_modules(tmp_path)
    assert {"argparse", "re", "typing", "textwrap", "warnings"} & mods == set()
    assert {m for m in mods if m.startswith("vqametrics.")} <= {
        "vqametrics._version",
        "vqametrics.cli",
        "vqametrics.cli._table",
    }


def _argparse_help(width: int, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("COLUMNS", str(width + 2))  # the formatter's width is the terminal's - 2
    return _help(cli._listing_parser())


def test_the_fast_help_is_argparses_at_every_width(monkeypatch: pytest.MonkeyPatch) -> None:
    laid_out = []
    for width in range(8, 240):
        fast = cli._fast_help(width)
        if fast is not None:
            assert fast == _argparse_help(width, monkeypatch), width
            laid_out.append(width)
    if cli._command_indent() is None:  # a Python whose layout was not checked: argparse's
        assert laid_out == []
    else:  # every width from where the usage line fits is laid out without argparse
        assert laid_out == list(range(len(cli._USAGE), 240))


def test_a_python_whose_layout_was_not_checked_gets_argparses_help(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Where the layout is unknown (a later 3.12, 3.14), --help is argparse's own, not a guess."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setattr(cli, "_command_indent", lambda: None)
    assert cli._fast_help(78) is None
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert capsys.readouterr().out == _argparse_help(78, monkeypatch)


def test_help_and_version_print_what_argparse_prints(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    for argv in (["--help"], ["-h"], ["--version"]):
        with pytest.raises(SystemExit) as exc:
            cli.main(argv)
        assert exc.value.code == 0
        fast = capsys.readouterr().out
        with pytest.raises(SystemExit) as exc:
            cli._listing_parser().parse_args(argv)
        assert exc.value.code == 0
        assert fast == capsys.readouterr().out
    monkeypatch.setenv("COLUMNS", "30")  # too narrow for the usage line: argparse lays it out
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    wrapped = "usage: vqametrics [-h]\n" + " " * 18 + "[--version]\n"
    assert capsys.readouterr().out.startswith(wrapped)


@pytest.mark.parametrize(
    "text",
    [
        "score VQA predictions (official-exact soft accuracy)",
        "a b-c de-fg hi-j-kl mn--op x-- -y z_-ab ab-12 é-àb self-contained",
        "paired comparison of two results files: A − B, interval, p-value, changed questions",
    ],
)
def test_the_wrap_is_textwraps(text: str) -> None:
    import textwrap

    for width in range(1, len(text) + 2):
        lines = cli._wrap(text, width)
        if lines is not None:
            assert lines == textwrap.wrap(text, width), width
    assert cli._wrap(text, len(text)) == [text] or "--" in text


@pytest.mark.parametrize("command", sorted(cli._COMMANDS))
def test_a_commands_help_is_the_full_parsers(
    command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # the command that runs gets its width without shutil; the full parser's is argparse's own
    monkeypatch.setenv("COLUMNS", "70")
    with pytest.raises(SystemExit):
        cli.main([command, "--help"])
    lazy = capsys.readouterr().out
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args([command, "--help"])
    assert lazy == capsys.readouterr().out


def test_a_small_score_imports_no_numpy_and_no_vqa_pipeline(tmp_path: Path) -> None:
    rows = [
        {"index": i, "question": "Is there a dog?", "prediction": "Yes" if i % 2 else "No"}
        | {"answer": "Yes", "category": "random"}
        for i in range(20)
    ]
    small = tmp_path / "pope.json"
    small.write_text(json.dumps(rows), encoding="utf-8")
    argv = ["score", "pope", "--results", str(small), "--profile", "vlmevalkit"]
    mods = set(_imported_after(argv, tmp_path))
    assert "vqametrics.tasks.pope" in mods  # it did run
    unneeded = {"numpy", "shutil", "tempfile", "zipfile", "importlib.resources"}
    unneeded |= {"vqametrics.pipeline.vqa", "vqametrics.views.explanation"}
    unneeded |= {"vqametrics.extract.answer", "vqametrics.extract.peers"}  # no --extract given
    assert unneeded & mods == set()


def test_an_mmmu_score_from_its_json_files_imports_no_pathlib(tmp_path: Path) -> None:
    """pathlib (with urllib.parse and ipaddress) is only for an output folder or a sheet's
    judge record: the official ``{id: answer}`` file and answer dict do without (issue 23)."""
    ids = [f"validation_Art_{i}" for i in range(1, 6)]
    results = tmp_path / "total_val_output.json"
    results.write_text(json.dumps(dict.fromkeys(ids, "A")), encoding="utf-8")
    gold = {i: {"question_type": "multiple-choice", "ground_truth": "A"} for i in ids}
    answers = tmp_path / "answer_dict_val.json"
    answers.write_text(json.dumps(gold), encoding="utf-8")
    argv = ["score", "mmmu", "--results", str(results), "--annotations", str(answers)]
    mods = set(_imported_after(argv, tmp_path))
    assert "vqametrics.kernels.choice.mmmu" in mods  # it did run
    assert {"pathlib", "urllib.parse", "ipaddress"} & mods == set()
