"""Bad toolkit files (audit B): a reported-score file that is not UTF-8 text, and lmms-eval
logs whose doc_ids repeat within one task.

A reported file beside a results file (VLMEvalKit's ``_acc.csv``, lmms-eval's
``results.json``) that cannot be decoded stops ``score`` as an empty one does (exit 2, the file
named) and is a note in ``table``; a ``doc_id`` logged twice in one task's log is an error
naming the file, the line and the doc_id (``--on-duplicate last`` keeps the last), while logs
of several subtasks concatenated, each numbered from 0, are still scored.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from vqametrics.cli import main
from vqametrics.core.exceptions import InputError
from vqametrics.readers.layouts import read_reported
from vqametrics.tasks._run import evaluate, evaluate_task

MMSTAR = ("mmstar", "vlmevalkit")
SHEET = "vila_8b_MMStar.xlsx"
ACC = "vila_8b_MMStar_acc.csv"
LOG = "20260218_234435_samples_scienceqa_img.jsonl"
RESULTS = "20260218_234435_results.json"


def _copy(src: Path, dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    for f in src.iterdir():
        if f.is_file():
            shutil.copyfile(f, dest / f.name)
    return dest


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


# ----- C1: a reported-score file that is not UTF-8 ------------------------------------------


@pytest.fixture
def mmstar_run(shared_data: Path, tmp_path: Path) -> Path:
    """A copy of the VILA MMStar run (sheet, judge sheet, _acc.csv) to corrupt."""
    return _copy(shared_data.joinpath(*MMSTAR), tmp_path / "run")


@pytest.mark.shared
def test_score_stops_on_a_latin1_acc_csv_naming_it(
    mmstar_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    acc = mmstar_run / ACC
    data = acc.read_bytes() + b"Cat\xe9gorie\n"  # Excel's cp1252
    acc.write_bytes(data)
    assert main(["score", "mmstar", "--results", str(mmstar_run / SHEET)]) == 2
    err = capsys.readouterr().err
    offset, line = data.index(b"\xe9"), data.count(b"\n")  # the byte is on the last line
    assert f"{acc}: not UTF-8 text (byte {offset}, line {line})" in err
    assert "Traceback" not in err


@pytest.mark.shared
@pytest.mark.parametrize("content", [b"", b"Overall\n0.5\xe9\n"], ids=["empty", "latin1"])
def test_score_treats_an_undecodable_acc_csv_as_an_empty_one(
    mmstar_run: Path, content: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    (mmstar_run / ACC).write_bytes(content)
    assert main(["score", "mmstar", "--results", str(mmstar_run / SHEET)]) == 2
    err = capsys.readouterr().err
    assert f"error: {mmstar_run / ACC}: " in err and "Traceback" not in err


@pytest.mark.shared
@pytest.mark.parametrize("content", [b"", b"Overall\n0.5\xe9\n"], ids=["empty", "latin1"])
def test_table_notes_an_undecodable_acc_csv_as_an_empty_one(
    mmstar_run: Path, content: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    (mmstar_run / ACC).write_bytes(content)
    assert main(["table", str(mmstar_run)]) == 0
    out = capsys.readouterr()
    text = out.out + out.err
    assert "the reported file could not be read" in text and ACC in text
    if content:
        assert "not UTF-8 text" in text
    assert "Traceback" not in text


def test_reported_csv_not_utf8_names_the_file_byte_and_line(tmp_path: Path) -> None:
    path = tmp_path / "m_CCBench_acc.csv"
    data = "split,Overall,书法\n".encode("gbk") + b"none,0.5,0.4\n"
    path.write_bytes(data)
    with pytest.raises(InputError) as err:
        read_reported(path)
    message = str(err.value)
    offset = len(b"split,Overall,")  # the first byte of GBK's 书
    assert message.startswith(f"{path}: not UTF-8 text (byte {offset}, line 1)")


def test_lmms_eval_results_json_not_utf8_names_the_file_byte_and_line(tmp_path: Path) -> None:
    path = tmp_path / "20260101_results.json"
    data = b'{\n  "results": {\n    "pope": {"alias": "p\xe9pe", "pope_accuracy,none": 0.5}}}\n'
    path.write_bytes(data)
    offset = data.index(b"\xe9")
    with pytest.raises(InputError, match=rf"not UTF-8 text \(byte {offset}, line 3\)"):
        read_reported(path)


@pytest.mark.shared
def test_score_stops_on_a_latin1_results_json_beside_the_log(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _copy(shared_data / "lmms_eval_logs", tmp_path / "lm")
    results = run / RESULTS
    results.write_bytes(results.read_bytes().replace(b'"results"', b'"r\xe9sultats": 1, "results"'))
    args = ["score", "scienceqa", "--profile", "lmms-eval", "--results", str(run / LOG)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"{results}: not UTF-8 text (byte " in err and "Traceback" not in err


def test_mmvet_cap_score_csv_not_utf8_is_an_input_error(tmp_path: Path) -> None:
    from vqametrics.tasks.mmvet import _official_reported

    grade = tmp_path / "m_gpt-4-0613-grade-1runs.json"
    grade.write_text("{}", encoding="utf-8")
    cap = tmp_path / "m_gpt-4-0613-cap-score-1runs.csv"
    data = b",rec,total\n0,50.0\xe9,50.0\n"
    cap.write_bytes(data)
    offset = data.index(b"\xe9")
    expected = rf"^{re.escape(str(cap))}: not UTF-8 text \(byte {offset}, line 2\)"
    with pytest.raises(InputError, match=expected):
        _official_reported(grade)


# ----- D1: a doc_id repeated within one task's lmms-eval log -------------------------------


@pytest.fixture
def scienceqa_lines(shared_data: Path) -> list[str]:
    return (shared_data / "lmms_eval_logs" / LOG).read_text(encoding="utf-8").splitlines(True)


def _scienceqa_run(tmp_path: Path, shared_data: Path, lines: list[str]) -> Path:
    run = tmp_path / "lm"
    run.mkdir()
    shutil.copyfile(shared_data / "lmms_eval_logs" / RESULTS, run / RESULTS)
    (run / LOG).write_text("".join(lines), encoding="utf-8")
    return run / LOG


@pytest.mark.shared
def test_scienceqa_log_with_a_line_twice_is_an_error(
    shared_data: Path, scienceqa_lines: list[str], tmp_path: Path, capsys: Any
) -> None:
    log = _scienceqa_run(tmp_path, shared_data, [*scienceqa_lines, scienceqa_lines[10]])
    args = ["score", "scienceqa", "--profile", "lmms-eval", "--results", str(log)]
    assert main(args) == 2
    err = capsys.readouterr().err
    doc_id = json.loads(scienceqa_lines[10])["doc_id"]
    last = len(scienceqa_lines) + 1
    assert f"{log}: line {last}: duplicate sample, doc_id {doc_id} again" in err
    assert f"first at {log}: line 11" in err and "Traceback" not in err


@pytest.mark.shared
def test_scienceqa_log_with_a_doc_id_changed_is_an_error_unless_last(
    shared_data: Path, scienceqa_lines: list[str], tmp_path: Path, capsys: Any
) -> None:
    row = json.loads(scienceqa_lines[10])
    other = json.loads(scienceqa_lines[5])["doc_id"]
    lines = list(scienceqa_lines)
    lines[10] = json.dumps({**row, "doc_id": other}) + "\n"
    log = _scienceqa_run(tmp_path, shared_data, lines)
    args = ["score", "scienceqa", "--profile", "lmms-eval", "--results", str(log)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"{log}: line 11: " in err and f"doc_id {other} again" in err
    assert "Traceback" not in err
    ev = evaluate_task("scienceqa", str(log), profile="lmms-eval", on_duplicate="last")
    ids = [it.id for it in ev.data.items]
    assert len(ids) == len(set(ids)) == len(lines) - 1
    assert any("kept (--on-duplicate last)" in n for n in ev.notes)


_SQA_DOC = {"question": "q", "choices": ["x", "y"], "hint": "", "subject": "natural science"}


def test_scienceqa_log_doc_id_again_with_another_doc(tmp_path: Path) -> None:
    rows = [
        {"doc_id": 0, "doc": _SQA_DOC | {"answer": 0}, "target": "A", "filtered_resps": ["A"]},
        {"doc_id": 1, "doc": _SQA_DOC | {"answer": 1}, "target": "B", "filtered_resps": ["B"]},
        {"doc_id": 0, "doc": _SQA_DOC | {"answer": 1}, "target": "B", "filtered_resps": ["A"]},
    ]
    path = _jsonl(tmp_path / "x_samples_scienceqa_img.jsonl", rows)
    expected = r"line 3: duplicate doc_id 0 \(first at .*line 1; with another doc"
    with pytest.raises(InputError, match=expected):
        evaluate_task("scienceqa", path, profile="lmms-eval")
    ev = evaluate_task("scienceqa", path, profile="lmms-eval", on_duplicate="last")
    assert [it.prediction for it in ev.data.items] == ["A", "B"]  # the last record of doc_id 0
    assert [it.references for it in ev.data.items] == [("B",), ("B",)]


def _pope_nodoc(n: int) -> list[dict[str, Any]]:
    """lmms-eval@75571cf records without doc: question_id k + 1 at doc_id k."""
    rows = []
    for k in range(n):
        label = "yes" if k % 2 == 0 else "no"
        rec = {"question_id": k + 1, "score": 1.0, "prediction": label, "ground_truth": label}
        rows.append({"doc_id": k, "target": label, "filtered_resps": label, "pope_accuracy": rec})
    return rows


def test_pope_log_without_doc_with_a_doc_id_changed_is_an_error(tmp_path: Path) -> None:
    rows = _pope_nodoc(10)
    rows[8]["doc_id"] = 7
    path = _jsonl(tmp_path / "x_samples_pope.jsonl", rows)
    expected = r"x_samples_pope\.jsonl: line 9: duplicate doc_id 7 \(first at .*line 8"
    with pytest.raises(InputError, match=expected):
        evaluate_task("pope", path, profile="lmms-eval")
    ev = evaluate_task("pope", path, profile="lmms-eval", on_duplicate="last")
    assert len(ev.data.items) == 9
    assert any("1 repeated doc_id row(s)" in n and "--on-duplicate last" in n for n in ev.notes)


def _pope_doc(doc_id: int, qid: int, category: str) -> dict[str, Any]:
    doc = {"question_id": str(qid), "question": "q", "answer": "yes", "category": category}
    return {"doc_id": doc_id, "doc": doc, "target": "yes", "filtered_resps": ["yes"]}


def test_pope_log_doc_id_again_in_one_split_is_an_error(tmp_path: Path) -> None:
    rows = [_pope_doc(0, 1, "adversarial"), _pope_doc(1, 2, "adversarial")]
    rows.append(_pope_doc(1, 3, "adversarial"))
    path = _jsonl(tmp_path / "s.jsonl", rows)
    with pytest.raises(InputError) as err:
        evaluate_task("pope", path)
    message = str(err.value)
    assert message.startswith(f"{path}: line 3: duplicate doc_id 1 (first at {path}: line 2, ")
    assert "both of category 'adversarial'; with another doc" in message


def test_pope_logs_of_splits_concatenated_are_still_scored(tmp_path: Path) -> None:
    # pope_adv + pope_pop: each split numbered from 0; the category tells them apart
    rows = [_pope_doc(k, k + 1, split) for split in ("adversarial", "popular") for k in range(3)]
    ev = evaluate_task("pope", _jsonl(tmp_path / "s.jsonl", rows))
    assert len(ev.data.items) == 6


def _blink(doc_id: int, sub: str, k: int) -> dict[str, Any]:
    rec = {"id": f"val_{sub}_{k}", "gt_content": "A", "pred_parsed": "A", "pred": "A"}
    rec |= {"sub_task": sub, "is_correct": True}
    return {"doc_id": doc_id, "target": "(A)", "filtered_resps": "A", "blink_acc": rec}


def test_blink_subtask_logs_concatenated_are_still_scored(tmp_path: Path) -> None:
    rows = [_blink(k, sub, k + 1) for sub in ("Counting", "Jigsaw") for k in range(2)]
    ev = evaluate_task("blink", _jsonl(tmp_path / "s.jsonl", rows), profile="lmms-eval")
    assert len(ev.data.items) == 4


def test_blink_doc_id_again_in_one_subtask_is_an_error(tmp_path: Path) -> None:
    rows = [_blink(0, "Counting", 1), _blink(1, "Counting", 2), _blink(1, "Counting", 3)]
    path = _jsonl(tmp_path / "s.jsonl", rows)
    expected = r"s\.jsonl: line 3: duplicate doc_id 1 \(first at .*sub_task 'Counting'"
    with pytest.raises(InputError, match=expected):
        evaluate_task("blink", path, profile="lmms-eval")


def test_chartqa_log_doc_id_again_is_an_error_unless_last(tmp_path: Path) -> None:
    docs = [{"question": f"q{i}", "answer": a, "type": "human_test"} for i, a in enumerate("123")]
    rows = [
        {"doc_id": i, "doc": d, "target": d["answer"], "filtered_resps": [d["answer"]]}
        for i, d in enumerate(docs)
    ]
    rows[2]["doc_id"] = 0
    path = _jsonl(tmp_path / "x_samples_chartqa.jsonl", rows)
    with pytest.raises(InputError, match=r"chartqa\.jsonl: line 3: duplicate doc_id 0 \(first at"):
        evaluate_task("chartqa", path)
    ev = evaluate_task("chartqa", path, on_duplicate="last")
    assert [it.prediction for it in ev.data.items] == ["3", "2"]  # doc_id 0's last record
    assert any("1 repeated doc_id row(s)" in n for n in ev.notes)


def test_a_doc_id_met_three_times_keeps_only_its_last_record(tmp_path: Path) -> None:
    # doc_id 0 with doc A, then doc B, then doc A again: one sample, its last record
    docs = [{"question": q, "answer": a, "type": "human_test"} for q, a in ("A1", "B2", "A1")]
    rows = [
        {"doc_id": 0, "doc": d, "target": d["answer"], "filtered_resps": [str(k)]}
        for k, d in enumerate(docs)
    ]
    rows.append({"doc_id": 1, "doc": {**docs[1], "question": "C"}, "target": "2",
                 "filtered_resps": ["2"]})  # fmt: skip
    path = _jsonl(tmp_path / "x_samples_chartqa.jsonl", rows)
    ev = evaluate_task("chartqa", path, on_duplicate="last")
    assert [it.prediction for it in ev.data.items] == ["2", "2"]  # the third record, then doc 1
    assert any("1 repeated sample(s)" in n for n in ev.notes)  # the two records of doc A
    assert any("1 repeated doc_id row(s)" in n for n in ev.notes)  # and doc B's


# ---------------------------------------------------------------------------- n-samples


def _log_and_results(tmp_path: Path, lines: int, said: object) -> Path:
    # the shape of lmms-eval's scienceqa_img log without doc (../shared/data/lmms_eval_logs)
    log = tmp_path / "20260101_000000_samples_scienceqa_img.jsonl"
    rows = [
        {"doc_id": i, "target": "B", "filtered_resps": ["B"], "exact_match": 1.0}
        for i in range(lines)
    ]
    log.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    results = {
        "results": {"scienceqa_img": {"exact_match,none": 1.0}},
        "n-samples": {"scienceqa_img": said},
    }
    (tmp_path / "20260101_000000_results.json").write_text(json.dumps(results), encoding="utf-8")
    return log


@pytest.mark.parametrize(
    ("said", "noted"),
    [
        ({"original": 4, "effective": 4}, False),
        ({"original": 5, "effective": 5}, True),  # a line of the log lost
        ({"original": 9, "effective": 4}, False),  # --limit 4: the effective count
        (4, False),  # an older results.json: the count alone
    ],
)
def test_a_log_short_of_its_n_samples_is_noted(tmp_path: Path, said: object, noted: bool) -> None:
    log = _log_and_results(tmp_path, 4, said)
    run = evaluate("scienceqa", log, profile="lmms-eval")
    notes = [n for n in run.notes if "(n-samples)" in n]
    assert bool(notes) is noted
    if noted:
        assert notes[0].startswith(f"{tmp_path / '20260101_000000_results.json'} says lmms-eval")
        assert "scored 5 samples (n-samples), but 4 are read here" in notes[0]
