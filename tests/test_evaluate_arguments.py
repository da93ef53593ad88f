"""``evaluate``'s arguments as a Python caller gives them: an unknown keyword is refused, the
official documents may be passed already loaded, a non-string answer is refused as it is from a
file, and messages name the keyword arguments (docs/inputs.md: the caller's language)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import vqametrics
from vqametrics import InputError, UnknownNameError
from vqametrics.cli import main
from vqametrics.core.exceptions import ArgumentTypeError, command_line_spelling


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------- unknown keywords


@pytest.mark.parametrize(
    ("keyword", "hint"),
    [("metric", "did you mean metrics=?"), ("allow_mising", "did you mean allow_missing=?")],
)
def test_a_misspelled_keyword_is_refused_with_the_close_name(
    fixture_5q: Path, keyword: str, hint: str
) -> None:
    with pytest.raises(UnknownNameError, match=rf"unknown keyword argument {keyword}=") as err:
        vqametrics.evaluate(
            "vqav2",
            fixture_5q / "results.json",
            annotations=fixture_5q / "annotations.json",
            **{keyword: "em"},
        )
    assert hint in str(err.value) and "the task's own options: metrics=" in str(err.value)


def test_another_tasks_option_is_refused(fixture_5q: Path) -> None:
    # GQA's choices= means nothing to VQA v2: refused, not ignored
    with pytest.raises(UnknownNameError, match="choices= for task 'vqav2'"):
        vqametrics.evaluate(
            "vqav2",
            fixture_5q / "results.json",
            annotations=fixture_5q / "annotations.json",
            choices="x.json",
        )


def test_the_tasks_own_option_is_taken(fixture_5q: Path) -> None:
    r = vqametrics.evaluate(
        "vqav2",
        fixture_5q / "results.json",
        annotations=fixture_5q / "annotations.json",
        metrics="em",
    )
    assert "em" in r.metrics  # official_accuracy.json's 98.0 beside it, unchanged
    assert round(r.metrics["overall"], 2) == _load(fixture_5q / "official_accuracy.json")["overall"]


def test_seed_alone_implies_intervals_as_on_the_command_line(fixture_5q: Path) -> None:
    r = vqametrics.evaluate(
        "vqav2", fixture_5q / "results.json", annotations=fixture_5q / "annotations.json", seed=7
    )
    assert r.intervals is not None
    assert "|bootstrap:1000|seed:7|" in r.signature.format()


def test_an_unknown_item_id_is_an_unknown_name(fixture_5q: Path) -> None:
    r = vqametrics.evaluate(
        "vqav2", fixture_5q / "results.json", annotations=fixture_5q / "annotations.json"
    )
    with pytest.raises(UnknownNameError, match="no item with id 'nope' among its 5 items"):
        r.explain("nope")


# ---------------------------------------------------------------------------- loaded documents


def test_the_official_annotations_document_may_be_passed_loaded(fixture_5q: Path) -> None:
    r = vqametrics.evaluate(
        "vqav2",
        _load(fixture_5q / "results.json"),
        annotations=_load(fixture_5q / "annotations.json"),
    )
    # the official script's own output for these files (official_accuracy.json)
    assert round(r.metrics["overall"], 2) == 98.0 and r.metrics["n"] == 5


def test_a_loaded_document_without_its_list_is_named(fixture_5q: Path) -> None:
    with pytest.raises(InputError, match=r"'annotations' list.*found an object with keys: data"):
        vqametrics.evaluate("vqav2", fixture_5q / "results.json", annotations={"data": []})


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({"annotations": 5}, "annotations must be a path, a list of questions, .* got int"),
        ({"questions": 3}, "questions must be a path or the official .* got int"),
    ],
)
def test_annotations_or_questions_of_a_wrong_type(
    fixture_5q: Path, keywords: dict[str, Any], message: str
) -> None:
    keywords.setdefault("annotations", fixture_5q / "annotations.json")
    with pytest.raises(ArgumentTypeError, match=message):
        vqametrics.evaluate("vqav2", fixture_5q / "results.json", **keywords)


def test_a_loaded_questions_document_is_checked_as_the_file(fixture_5q: Path) -> None:
    # the official script copies five header keys from the questions file (spec §2)
    with pytest.raises(InputError, match="<questions>: missing header key"):
        vqametrics.evaluate(
            "vqav2",
            fixture_5q / "results.json",
            annotations=fixture_5q / "annotations.json",
            questions={"questions": []},
        )


# ---------------------------------------------------------------------------- answer types


def _with_int_answer(fixture_5q: Path) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = _load(fixture_5q / "results.json")
    records[0]["answer"] = 3
    return records


def test_a_number_answer_is_refused_in_memory_as_from_a_file(
    fixture_5q: Path, tmp_path: Path
) -> None:
    records = _with_int_answer(fixture_5q)
    path = tmp_path / "int_answer.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    ann = fixture_5q / "annotations.json"
    with pytest.raises(InputError, match="answer must be a string, got 3"):
        vqametrics.evaluate("vqav2", path, annotations=ann)
    with pytest.raises(InputError, match=r"<list>: item 1: answer is int \(3\)"):
        vqametrics.evaluate("vqav2", records, annotations=ann)
    qid = records[0]["question_id"]
    with pytest.raises(InputError, match=r"<mapping>: item 1: answer is int \(3\)"):
        vqametrics.evaluate("vqav2", {qid: 3}, annotations=ann)


# ---------------------------------------------------------------------------- the caller's words


def test_a_message_names_the_keyword_in_python_and_the_option_on_the_command_line(
    fixture_5q: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = fixture_5q / "results.json"
    with pytest.raises(InputError, match=r"carries no ground truth .*; pass annotations=$"):
        vqametrics.evaluate("vqav2", results)
    assert main(["score", "vqav2", "--results", str(results)]) == 2
    assert capsys.readouterr().err.rstrip().endswith("pass --annotations")


@pytest.mark.parametrize(
    ("cli", "python"),
    [
        ("score it with --profile lmms-eval, or", "score it with profile='lmms-eval', or"),
        ("score mmmu: --extract does not apply", "score mmmu: extract= does not apply"),
        ("no such file (--reported)", "no such file (reported=)"),
        ("pass --on-duplicate last to keep it", "pass on_duplicate='last' to keep it"),
        ("--answer-field cannot be used", "answer_field= cannot be used"),
        ("name it with --verdict-field", "name it with verdict_field="),
        ("run lmms-eval with --log_samples", "run lmms-eval with --log_samples"),  # not ours
        ("--json prints it", "--json prints it"),  # the command line's only
    ],
)
def test_the_python_spelling_of_an_option(cli: str, python: str) -> None:
    err = InputError(cli)
    assert str(err) == python
    with command_line_spelling():
        assert str(err) == cli


# ---------------------------------------------------------------------------- mmbench-circular


def test_mmbench_circular_takes_the_duplicate_option_its_message_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "plain.tsv"
    data.write_text(
        "index\tquestion\tA\tB\tanswer\n1\tq\tcat\tdog\tA\n1\tq2\tred\tblue\tB\n",
        encoding="utf-8",
    )
    out = tmp_path / "circular.tsv"
    assert main(["mmbench-circular", str(data), str(out)]) == 2
    assert "pass --on-duplicate last" in capsys.readouterr().err
    assert main(["mmbench-circular", str(data), str(out), "--on-duplicate", "last"]) == 0
    rows = out.read_text(encoding="utf-8").splitlines()
    # the last row kept, and its two circular passes (2 options): red/blue, then blue/red
    assert rows[1].split("\t")[:5] == ["1", "q2", "red", "blue", "B"]
    assert rows[2].split("\t")[:5] == ["1000001", "q2", "blue", "red", "A"]
    assert len(rows) == 3
