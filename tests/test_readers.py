"""Every results layout scores exactly like the official layout on the same predictions.

Each fixture is built here from the bundled VQA v2 val sample (CC BY 4.0) and its
``results_messy-majority.json`` predictions (mixed case and punctuation, so normalization
matters); the reference is the official list scored by ``evaluate_vqa``.
"""

from __future__ import annotations

import csv
import gzip
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from reference import official_vqa
from vqametrics import evaluate_vqa
from vqametrics.cli import main
from vqametrics.tasks import get_task, list_tasks, score_answer
from vqametrics.tasks._run import evaluate_task

SAMPLE = Path(__file__).resolve().parents[1] / "src" / "vqametrics" / "data" / "vqa2_val_sample"
ANN = SAMPLE / "annotations.json"
RES = SAMPLE / "results_messy-majority.json"


@pytest.fixture(scope="module")
def truth() -> list[dict[str, Any]]:
    return json.loads(ANN.read_text(encoding="utf-8"))["annotations"]


@pytest.fixture(scope="module")
def preds() -> list[dict[str, Any]]:
    return json.loads(RES.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def reference() -> Any:
    return evaluate_vqa(ANN, RES)


def _same(ev: Any, reference: Any) -> None:
    assert ev.question_ids == reference.question_ids
    assert ev.scores == reference.scores
    assert ev.accuracy["overall"] == reference.accuracy["overall"]


def _write_delimited(path: Path, rows: list[dict[str, Any]], delimiter: str) -> Path:
    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]), delimiter=delimiter)
        w.writeheader()
        w.writerows(rows)
    return path


def _write_xlsx(path: Path, rows: list[dict[str, Any]]) -> Path:
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    sheet = book.active
    header = list(rows[0])
    sheet.append(header)
    for r in rows:
        sheet.append([r[h] for h in header])
    book.save(path)
    return path


def _vlmevalkit_rows(truth: list[dict[str, Any]], preds: list[dict[str, Any]]) -> list[dict]:
    by_id = {p["question_id"]: p["answer"] for p in preds}
    return [
        {
            "index": t["question_id"],
            "question": "q",
            "answer": repr([a["answer"] for a in t["answers"]]),
            "prediction": by_id[t["question_id"]],
            "category": "vqa",
        }
        for t in truth
    ]


def _lmms_rows(
    truth: list[dict[str, Any]], preds: list[dict[str, Any]], with_doc: bool
) -> list[dict]:
    by_id = {p["question_id"]: p["answer"] for p in preds}
    rows = []
    for i, t in enumerate(truth):
        row: dict[str, Any] = {"doc_id": i, "target": t["answers"][0]["answer"]}
        if with_doc:
            row["doc"] = {"question_id": t["question_id"], "answers": t["answers"], "question": "q"}
        row["filtered_resps"] = [by_id[t["question_id"]]]
        row["resps"] = [[by_id[t["question_id"]]]]
        rows.append(row)
    return rows


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


# --- plain layouts: every one scores like the official list ------------------------------------


@pytest.mark.parametrize(
    "layout", ["jsonl", "mapping-json", "csv", "tsv", "xlsx", "json.gz", "csv.gz", "csv-upper"]
)
def test_plain_layouts_score_like_official(
    tmp_path: Path, preds: list[dict[str, Any]], reference: Any, layout: str
) -> None:
    if layout == "jsonl":
        path = _jsonl(tmp_path / "r.jsonl", preds)
    elif layout == "mapping-json":
        path = tmp_path / "r.json"
        path.write_text(json.dumps({str(p["question_id"]): p["answer"] for p in preds}))
    elif layout == "csv":
        path = _write_delimited(tmp_path / "r.csv", preds, ",")
    elif layout == "tsv":
        path = _write_delimited(tmp_path / "r.tsv", preds, "\t")
    elif layout == "xlsx":
        path = _write_xlsx(tmp_path / "r.xlsx", preds)
    elif layout == "json.gz":
        path = tmp_path / "r.json.gz"
        path.write_bytes(gzip.compress(RES.read_bytes()))
    elif layout == "csv.gz":
        plain = _write_delimited(tmp_path / "r.csv", preds, ",")
        path = tmp_path / "r.csv.gz"
        path.write_bytes(gzip.compress(plain.read_bytes()))
    else:  # unusual column names, named with --id-field / --answer-field
        rows = [{"QID": p["question_id"], "Pred": p["answer"]} for p in preds]
        path = _write_delimited(tmp_path / "r.csv", rows, ",")
        ev = evaluate_vqa(ANN, path, id_field="QID", answer_field="Pred")
        _same(ev, reference)
        return
    ev = evaluate_vqa(ANN, path)
    _same(ev, reference)


def test_csv_layout_is_named_in_the_notes(tmp_path: Path, preds: list[dict[str, Any]]) -> None:
    path = _write_delimited(tmp_path / "r.csv", preds, ",")
    ev = evaluate_vqa(ANN, path)
    assert any("official results layout [official (csv)]" in n for n in ev.notes)
    assert ev.as_dict()["input_layout"] == "official (csv)"


def test_input_format_forces_a_layout(tmp_path: Path, preds: list[dict[str, Any]]) -> None:
    path = _write_delimited(tmp_path / "predictions.txt", preds, "\t")
    ev = evaluate_vqa(ANN, path, input_format="tsv")
    assert ev.layout == "official (tsv)"


def test_in_memory_records_mapping_and_dataframe_like(
    preds: list[dict[str, Any]], reference: Any
) -> None:
    _same(evaluate_vqa(ANN, preds), reference)
    _same(evaluate_vqa(ANN, {p["question_id"]: p["answer"] for p in preds}), reference)

    class FrameLike:  # what the reader asks of a pandas DataFrame, without pandas
        columns = ("question_id", "answer")

        def to_dict(self, orient: str) -> list[dict[str, Any]]:
            assert orient == "records"
            return list(preds)

    _same(evaluate_vqa(ANN, FrameLike()), reference)


def test_pandas_dataframe(preds: list[dict[str, Any]], reference: Any) -> None:
    pd = pytest.importorskip("pandas")
    _same(evaluate_vqa(ANN, pd.DataFrame(preds)), reference)


def test_stdin(tmp_path: Path, reference: Any) -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "vqametrics",
            "vqa",
            "--annotations",
            str(ANN),
            "--results",
            "-",
            "--json",
        ],
        input=gzip.compress(RES.read_bytes()),
        capture_output=True,
        check=True,
    )
    payload = json.loads(out.stdout)
    assert round(payload["metrics"]["overall"], 2) == reference.accuracy["overall"]
    assert payload["layouts"] == ["official (json+gzip)"]


def test_truncated_stdin_is_one_clear_line() -> None:
    data = RES.read_bytes()[:5000]
    out = subprocess.run(
        [sys.executable, "-m", "vqametrics", "vqa", "--annotations", str(ANN), "--results", "-"],
        input=data,
        capture_output=True,
    )
    assert out.returncode == 2
    err = out.stderr.decode().strip().splitlines()
    assert len(err) == 1 and "<stdin>" in err[0] and "invalid JSON" in err[0]
    assert out.stdout == b""


# --- toolkit layouts ------------------------------------------------------------------------------


def test_llava_answers(tmp_path: Path, preds: list[dict[str, Any]], reference: Any) -> None:
    rows = [
        {
            "question_id": p["question_id"],
            "prompt": "What?\nAnswer the question using a single word or phrase.",
            "text": p["answer"],
            "answer_id": "x",
            "model_id": "llava-v1.5-7b",
            "metadata": {},
        }
        for p in preds
    ]
    ev = evaluate_vqa(ANN, _jsonl(tmp_path / "answers.jsonl", rows))
    _same(ev, reference)
    assert any("LLaVA answers.jsonl" in n for n in ev.notes)


@pytest.mark.parametrize("with_annotations", [True, False])
def test_vlmevalkit_sheet(
    tmp_path: Path,
    truth: list[dict[str, Any]],
    preds: list[dict[str, Any]],
    reference: Any,
    with_annotations: bool,
) -> None:
    path = _write_xlsx(tmp_path / "model_VQAv2.xlsx", _vlmevalkit_rows(truth, preds))
    ev = evaluate_vqa(ANN if with_annotations else None, path)
    _same(ev, reference)
    assert ev.layout == "vlmevalkit (xlsx)"


def test_vlmevalkit_ground_truth_disagreement_is_noted(
    tmp_path: Path, truth: list[dict[str, Any]], preds: list[dict[str, Any]], reference: Any
) -> None:
    rows = _vlmevalkit_rows(truth, preds)
    rows[4]["answer"] = repr(["something else"] * 10)
    path = _write_delimited(tmp_path / "model_VQAv2.tsv", rows, "\t")
    ev = evaluate_vqa(ANN, path)
    _same(ev, reference)  # the annotations win
    note = next(n for n in ev.notes if "differ from" in n)
    assert note.startswith("1 ground truth(s)") and repr(truth[4]["question_id"]) in note


@pytest.mark.parametrize("with_annotations", [True, False])
def test_lmms_eval_samples_with_doc(
    tmp_path: Path,
    truth: list[dict[str, Any]],
    preds: list[dict[str, Any]],
    reference: Any,
    with_annotations: bool,
) -> None:
    path = _jsonl(tmp_path / "x_samples_vqav2_val.jsonl", _lmms_rows(truth, preds, True))
    ev = evaluate_vqa(ANN if with_annotations else None, path)
    _same(ev, reference)
    assert ev.layout == "lmms-eval-samples (jsonl)"


def test_lmms_eval_samples_without_doc_join_by_position(
    tmp_path: Path, truth: list[dict[str, Any]], preds: list[dict[str, Any]], reference: Any
) -> None:
    path = _jsonl(tmp_path / "x_samples_vqav2_val.jsonl", _lmms_rows(truth, preds, False))
    ev = evaluate_vqa(ANN, path)
    _same(ev, reference)
    assert any("BY POSITION" in n for n in ev.notes)


def test_lmms_eval_samples_without_doc_need_annotations(
    tmp_path: Path,
    truth: list[dict[str, Any]],
    preds: list[dict[str, Any]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _jsonl(tmp_path / "x_samples_vqav2_val.jsonl", _lmms_rows(truth, preds, False))
    assert main(["vqa", "--results", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "carries no ground truth" in err and "--annotations" in err and "\n" not in err


def test_lmms_eval_reported_and_per_sample_metric(
    tmp_path: Path,
    truth: list[dict[str, Any]],
    preds: list[dict[str, Any]],
    reference: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    rows = _lmms_rows(truth, preds, True)
    for row, score in zip(rows, reference.scores, strict=True):
        row["exact_match"] = score
    rows[0]["exact_match"] = 1.0 - rows[0]["exact_match"]  # one disagreement, no rule explains
    path = _jsonl(tmp_path / "20250101_000000_samples_vqav2_val.jsonl", rows)
    mean = sum(r["exact_match"] for r in rows) / len(rows)
    (tmp_path / "20250101_000000_results.json").write_text(
        json.dumps({"results": {"vqav2_val": {"alias": "vqav2_val", "exact_match,none": mean}}})
    )
    assert main(["vqa", "--results", str(path), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    rep = payload["reported"]
    assert rep["toolkit"] == "lmms-eval"
    assert rep["values"] == {"vqav2_val": {"exact_match,none": mean}}
    (row,) = rep["compared"]
    assert row["metric"] == "vqav2_val / exact_match,none" and row["reported"] == 100 * mean
    assert rep["per_sample"]["n_disagree"] == 1
    assert rep["per_sample"]["by_rule"][0]["examples"][0]["id"] == truth[0]["question_id"]
    assert main(["vqa", "--results", str(path)]) == 0
    text = capsys.readouterr().out
    assert "reported by lmms-eval" in text and "1 of 3427 item(s) disagree" in text


# --- the task registry: vqav2 / okvqa ---------------------------------------------------------


def _official_port(truth: list[dict[str, Any]], preds: list[dict[str, Any]]) -> list[float]:
    """Per-question accuracies by the literal port of the official script (tests/reference)."""
    by_id = {p["question_id"]: p["answer"] for p in preds}
    return [official_vqa.question_accuracy(a["answers"], by_id[a["question_id"]]) for a in truth]


def _port_overall(accs: list[float]) -> float:
    """The script's rounded overall accuracy (the sample has no question or answer types)."""
    untyped = ["-"] * len(accs)
    return float(official_vqa.aggregate(accs, untyped, untyped)["overall"])


def test_vqav2_task_gives_the_official_numbers(
    tmp_path: Path, truth: list[dict[str, Any]], preds: list[dict[str, Any]], fixture_5q: Path
) -> None:
    # the official script's own outputs on the 5-question fixture
    official = json.loads((fixture_5q / "official_accuracy.json").read_text(encoding="utf-8"))
    per_question = json.loads((fixture_5q / "official_evalQA.json").read_text(encoding="utf-8"))
    five = evaluate_task(
        "vqav2", fixture_5q / "results.json", annotations=fixture_5q / "annotations.json"
    )
    assert round(five.metrics["overall"], 2) == official["overall"] == 98.0
    rounded = zip(five.data.items, five.scores, strict=True)
    assert {str(it.id): round(100 * s, 2) for it, s in rounded} == per_question
    # the 3,427-question sample: the literal port of the script, question by question
    expected = _official_port(truth, preds)
    result = evaluate_task("vqav2", RES, annotations=ANN)
    assert [it.id for it in result.data.items] == [a["question_id"] for a in truth]
    assert result.scores == expected
    assert round(result.metrics["overall"], 2) == _port_overall(expected)
    assert result.signature.format().startswith(
        "vqa-acc|profile:official|toolkit:vqaEval@a013f00|answers:10|n:3427|"
    )
    assert get_task("vqa") is get_task("vqa-v2") is get_task("vqav2")
    assert get_task("ok-vqa").name == "okvqa"
    names = {t.name for t in list_tasks()}
    assert {"vqav2", "okvqa"} <= names
    csv_path = _write_delimited(tmp_path / "r.csv", preds, ",")
    assert evaluate_task("okvqa", csv_path, annotations=ANN).scores == expected


def test_score_answer_vqav2_is_vqa_accuracy() -> None:
    from vqametrics import vqa_accuracy

    answers = ["two", "2", "2", "two", "2", "two", "2", "2", "2", "two"]
    assert score_answer("vqav2", "2", answers) == vqa_accuracy("2", answers)
    assert score_answer("vqav2", "two", answers, profile="official") == vqa_accuracy("two", answers)


def test_score_vqav2_cli_gives_the_official_numbers(
    fixture_5q: Path,
    truth: list[dict[str, Any]],
    preds: list[dict[str, Any]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    official = json.loads((fixture_5q / "official_accuracy.json").read_text(encoding="utf-8"))
    five = ["--annotations", str(fixture_5q / "annotations.json")]
    five += ["--results", str(fixture_5q / "results.json"), "--json"]
    for argv in (["vqa", *five], ["score", "vqav2", *five]):
        assert main(argv) == 0
        payload = json.loads(capsys.readouterr().out)
        overall = payload["metrics"]["overall"]  # one document for both commands
        assert round(overall, 2) == official["overall"], argv[:2]
    # on the sample, both commands give the literal port's overall and the same signature
    expected = _official_port(truth, preds)
    port = _port_overall(expected)
    assert main(["vqa", "--annotations", str(ANN), "--results", str(RES), "--json"]) == 0
    vqa = json.loads(capsys.readouterr().out)
    assert main(["score", "vqav2", "--annotations", str(ANN), "--results", str(RES), "--json"]) == 0
    score = json.loads(capsys.readouterr().out)
    assert round(score["metrics"]["overall"], 2) == port
    assert score == vqa  # one document (schema 1) for both commands


def test_score_vqav2_shows_lmms_eval_reported(
    tmp_path: Path,
    truth: list[dict[str, Any]],
    preds: list[dict[str, Any]],
    reference: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _jsonl(
        tmp_path / "20250101_000000_samples_vqav2_val.jsonl", _lmms_rows(truth, preds, True)
    )
    mean = sum(reference.scores) / len(reference.scores)
    (tmp_path / "20250101_000000_results.json").write_text(
        json.dumps(
            {"results": {"vqav2_val": {"exact_match,none": mean, "exact_match_stderr,none": 0.1}}}
        )
    )
    assert main(["score", "vqav2", "--results", str(path), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["reported"]["toolkit"] == "lmms-eval"
    assert payload["reported"]["values"] == {"vqav2_val": {"exact_match,none": mean}}
    assert main(["score", "vqav2", "--results", str(path)]) == 0
    text = capsys.readouterr().out
    row = next(ln for ln in text.splitlines() if ln.startswith("vqav2_val / exact_match,none"))
    assert row.split()[-3:] == [f"{100 * mean:.2f}", f"{reference.accuracy['overall']:.2f}", "0"]


def test_per_sample_disagreement_is_grouped_by_its_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 'Yes.' against ten 'yes': the official script skips normalization when the ten answers
    # agree (0.0); lmms-eval normalizes always and records exact_match 1.0 -> rule "unanimity".
    # 'blue' against ten 'red' is 0 for both: no disagreement.
    rows = [
        {
            "doc_id": 0,
            "doc": {"question_id": 1, "answers": ["yes"] * 10},
            "filtered_resps": ["Yes."],
            "exact_match": 1.0,
        },
        {
            "doc_id": 1,
            "doc": {"question_id": 2, "answers": ["red"] * 10},
            "filtered_resps": ["blue"],
            "exact_match": 0.0,
        },
    ]
    path = _jsonl(tmp_path / "s.jsonl", rows)
    assert main(["vqa", "--results", str(path), "--json"]) == 0
    per_sample = json.loads(capsys.readouterr().out)["reported"]["per_sample"]
    assert per_sample["n_compared"] == 2 and per_sample["n_disagree"] == 1
    (group,) = per_sample["by_rule"]
    assert group["rule"] == "unanimity" and group["n"] == 1
    assert group["examples"] == [{"id": 1, "prediction": "Yes.", "toolkit": 1.0, "ours": 0.0}]


def test_two_self_contained_sheets_in_one_table(
    tmp_path: Path,
    truth: list[dict[str, Any]],
    preds: list[dict[str, Any]],
    reference: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    rows = _vlmevalkit_rows(truth, preds)
    a = _write_delimited(tmp_path / "A_VQAv2.tsv", rows, "\t")
    b = _write_delimited(tmp_path / "B_VQAv2.tsv", [dict(r, prediction="no") for r in rows], "\t")
    assert main(["vqa", "--results", str(a), "--results", str(b), "--json"]) == 0
    systems = json.loads(capsys.readouterr().out)["systems"]
    assert [s["name"] for s in systems] == ["A", "B"]
    assert round(systems[0]["accuracy"], 2) == reference.accuracy["overall"]
    # B answers 'no' everywhere: the same score as the official list of 'no' answers
    no = evaluate_vqa(ANN, [{"question_id": t["question_id"], "answer": "no"} for t in truth])
    assert round(systems[1]["accuracy"], 2) == no.accuracy["overall"]


def test_per_sample_under_the_toolkit_profile_and_per_lmms_task(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the 'Yes.' row above: under lmms-eval's own VQAv2 profile it scores 1.0, as recorded
    row = {
        "doc_id": 0,
        "doc": {"question_id": 1, "answers": ["yes"] * 10},
        "filtered_resps": ["Yes."],
        "exact_match": 1.0,
    }
    path = _jsonl(tmp_path / "s.jsonl", [row])
    assert main(["vqa", "--results", str(path), "--profile", "lmms-eval-vqav2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["reported"]["per_sample"]["n_disagree"] == 0
    # an OK-VQA log is checked against lmms-eval's OK-VQA scorer (the TextVQA-style profile);
    # a recorded 0.3 no profile gives is named as not reproduced by that profile
    ok = _jsonl(tmp_path / "20260101_samples_ok_vqa_val2014.jsonl", [dict(row, exact_match=0.3)])
    assert main(["vqa", "--results", str(ok), "--json"]) == 0
    (group,) = json.loads(capsys.readouterr().out)["reported"]["per_sample"]["by_rule"]
    assert group["rule"] == "unexplained" and "lmms-eval-textvqa" in group["title"]


def test_vqa_doc_log_notes_that_lmms_eval_rewrote_its_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # QUIRK processed-doc: lmms-eval@75571cf vqav2/utils.py rewrites doc["answers"] in place
    row = {
        "doc_id": 0,
        "doc": {"question_id": 1, "answers": ["yes"] * 10},
        "filtered_resps": ["yes"],
    }
    path = _jsonl(tmp_path / "s.jsonl", [row])
    assert main(["vqa", "--results", str(path), "--json"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert any("AFTER its process_results rewrote them" in n for n in notes)


def test_per_sample_profile_is_chosen_from_the_file_name_not_its_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a VQAv2 log kept in a folder named after TextVQA is still checked against lmms-eval's
    # VQAv2 scorer (the task comes from the samples file's own name)
    folder = tmp_path / "textvqa_runs"
    folder.mkdir()
    row = {
        "doc_id": 0,
        "doc": {"question_id": 1, "answers": ["yes"] * 10},
        "filtered_resps": ["yes"],
        "exact_match": 0.3,
    }
    path = _jsonl(folder / "20260101_samples_vqav2_val.jsonl", [row])
    assert main(["vqa", "--results", str(path), "--json"]) == 0
    (group,) = json.loads(capsys.readouterr().out)["reported"]["per_sample"]["by_rule"]
    assert "lmms-eval-vqav2" in group["title"]
