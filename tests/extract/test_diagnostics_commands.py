"""Diagnostics are always on: every command that scores VQA predictions warns about verbose
ones, naming the file when it scores several (and never changes a score)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vqametrics.cli import main

ANN = [{"question_id": i, "answers": ["blue"] * 10} for i in range(4)]


def _files(tmp_path: Path) -> tuple[str, str, str]:
    ann = tmp_path / "ann.json"
    ann.write_text(json.dumps(ANN), encoding="utf-8")
    chat = tmp_path / "chat.json"
    chat.write_text(
        json.dumps([{"question_id": i, "answer": "The answer is blue."} for i in range(4)]),
        encoding="utf-8",
    )
    plain = tmp_path / "plain.json"
    plain.write_text(
        json.dumps([{"question_id": i, "answer": "blue"} for i in range(4)]), encoding="utf-8"
    )
    return str(ann), str(chat), str(plain)


@pytest.mark.parametrize(
    "command",
    [
        ["vqa"],
        ["profiles"],
        ["compare"],
    ],
)
def test_one_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    ann, chat, _ = _files(tmp_path)
    assert main([*command, "--annotations", ann, "--results", chat]) == 0
    err = capsys.readouterr().err
    assert "4 of 4 predictions look verbose" in err and "--extract" in err


def test_diff_names_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ann, chat, plain = _files(tmp_path)
    assert main(["diff", "--annotations", ann, "--results-a", plain, "--results-b", chat]) == 0
    err = capsys.readouterr().err
    assert f"warning: {chat}: 4 of 4 predictions look verbose" in err
    assert plain + ":" not in err
