"""One comparison of a toolkit's reported numbers with ours for every task
(``pipeline.toolkit_check.compare_reported``): VQA v2's needs are a ``ReportedRule`` (data),
the ``vqa`` command prints what ``score vqav2`` prints, and the hint is every task's."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from vqametrics import evaluate_task
from vqametrics.cli import main
from vqametrics.errors import TaskMismatchWarning
from vqametrics.pipeline.toolkit_check import ReportedRule, compare_reported, reported_rule


def _vqa_sheet(folder: Path, name: str = "m_VQAv2", prediction: str = "yes.") -> Path:
    """A one-row VLMEvalKit VQAv2 sheet and its ``_acc.csv`` reporting 100. Hand-derived:
    'yes.' against ten 'yes' scores 0 officially (unanimous answers skip normalization) and
    100 under VLMEvalKit (punctuation stripped); 'yes' scores 100 under both."""
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    ws = book.active
    ws.append(["index", "question", "answer", "prediction"])
    ws.append([1, "q", str(["yes"] * 10), prediction])
    book.save(folder / f"{name}.xlsx")
    (folder / f"{name}_acc.csv").write_text('"Overall"\n"100.0"\n')
    return folder / f"{name}.xlsx"


def _block(text: str) -> list[str]:
    """The printed comparison: from its head line to the hint line."""
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("reported by"))
    end = next(i for i, ln in enumerate(lines) if ln.startswith("the numbers differ"))
    return lines[start : end + 1]


def test_vqa_prints_the_comparison_score_vqav2_prints(tmp_path: Path, capsys: Any) -> None:
    sheet = str(_vqa_sheet(tmp_path))
    assert main(["vqa", "--results", sheet]) == 0
    vqa = _block(capsys.readouterr().out)
    assert main(["score", "vqav2", "--results", sheet]) == 0
    assert _block(capsys.readouterr().out) == vqa
    assert vqa[0] == f"reported by VLMEvalKit ({tmp_path / 'm_VQAv2_acc.csv'}) vs recomputed (%):"
    assert vqa[-1] == "the numbers differ: the toolkit's rule is --profile vlmevalkit"
    assert ["Overall", "100.00", "0.00", "-100.00"] in [ln.split() for ln in vqa]
    # the document says the same, the hint included
    assert main(["vqa", "--results", sheet, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)["reported"]
    assert doc["hint"] == "the toolkit's rule is --profile vlmevalkit"
    assert doc["compared"] == [
        {"metric": "Overall", "reported": 100.0, "recomputed": 0.0, "difference": -100.0}
    ]


def test_vqa_v2_rule_is_data_of_the_one_comparison(tmp_path: Path) -> None:
    # VQA v2 compares under any profile because its rule says so: without it, the same
    # function gives every task's answer (VLMEvalKit's numbers under official: not compared)
    ev = evaluate_task("vqav2", _vqa_sheet(tmp_path))
    assert reported_rule(ev).any_profile
    c = compare_reported(ev)
    assert c is not None and c.compared and c.rows == [("Overall", 100.0, 0.0)]
    strict = compare_reported(replace(ev, toolkit_check=None))
    assert reported_rule(replace(ev, toolkit_check=None)) == ReportedRule()
    assert strict is not None and not strict.compared and strict.rows == []
    assert strict.shown == [("Overall", 100.0)] and strict.compare_with == ("vlmevalkit",)


def test_a_textvqa_sheet_read_as_vqa_v2_names_its_own_scorer(tmp_path: Path) -> None:
    sheet = _vqa_sheet(tmp_path, "m_TextVQA_VAL")
    # a supported reading, but the name says TextVQA: the run warns, whatever the numbers
    with pytest.warns(TaskMismatchWarning, match=r"`vqametrics score textvqa`.*as VQA v2 here"):
        ev = evaluate_task("vqav2", sheet, profile="vlmevalkit")
    assert reported_rule(ev).own_scorer == "textvqa"
    # 'yes.' scores 100 under VLMEvalKit's rule, as reported: nothing differs, no hint
    c = compare_reported(ev)
    assert c is not None and c.hint is None
    with pytest.warns(TaskMismatchWarning):
        ev = evaluate_task("vqav2", sheet)
    c = compare_reported(ev)
    assert c is not None and c.hint is not None
    assert c.hint.startswith("this is a textvqa file, scored by the VQA v2 script here")
    assert "vqametrics score textvqa --profile vlmevalkit" in c.hint
    assert c.hint.endswith("; the toolkit's rule is --profile vlmevalkit")


def _textvqa_log(folder: Path) -> Path:
    """An lmms-eval TextVQA log and its results.json reporting 0.7. Hand-derived: 'cat'
    against ten 'cat' scores 1 under every profile, so ours is 1.0 beside 0.7."""
    doc = {"question_id": 1, "question": "what?", "image_id": "im", "answers": ["cat"] * 10}
    row = {"doc_id": 0, "doc": doc, "target": "cat", "filtered_resps": ["cat"]}
    path = folder / "20260101_000000_samples_textvqa_val.jsonl"
    path.write_text(json.dumps(row) + "\n")
    results = {"results": {"textvqa_val": {"exact_match,none": 0.7, "alias": "textvqa_val"}}}
    (folder / "20260101_000000_results.json").write_text(json.dumps(results))
    return path


def test_every_task_gets_the_hint(tmp_path: Path, capsys: Any) -> None:
    # lmms-eval's numbers are compared under any profile; under another toolkit's profile
    # the hint names lmms-eval's, as VQA v2's names VLMEvalKit's
    log = str(_textvqa_log(tmp_path))
    assert main(["score", "textvqa", "--results", log]) == 0
    out = capsys.readouterr().out
    assert "\nthe numbers differ: the toolkit's rule is --profile lmms-eval\n" in out
    assert main(["score", "textvqa", "--results", log, "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)["reported"]
    assert rep["hint"] == "the toolkit's rule is --profile lmms-eval"
    assert rep["compared"][0]["difference"] == pytest.approx(0.3, abs=1e-12)
    # under the toolkit's own (and only lmms-eval) profile there is nothing else to try
    assert main(["score", "textvqa", "--results", log, "--profile", "lmms-eval", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)["reported"]
    assert "hint" not in rep and rep["compared"][0]["difference"] != 0


def test_several_systems_lines_carry_the_hint(tmp_path: Path, capsys: Any) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = str(_vqa_sheet(tmp_path / "a", prediction="yes"))
    b = str(_vqa_sheet(tmp_path / "b"))
    assert main(["vqa", "--results", a, "--results", b, "--name", "a", "--name", "b"]) == 0
    out = capsys.readouterr().out.splitlines()
    lines = {ln.split(":")[0]: ln for ln in out if ": reported" in ln}
    assert lines["a"].endswith(": Overall 100 vs 100; 1 of 1 number(s) equal to the last bit")
    assert lines["b"].endswith(
        ": Overall 100 vs 0; 0 of 1 number(s) equal to the last bit, largest difference "
        "Overall -100; the numbers differ: the toolkit's rule is --profile vlmevalkit"
    )
