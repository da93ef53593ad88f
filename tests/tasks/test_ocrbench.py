"""OCRBench: example.py's containment rule, lmms-eval's and VLMEvalKit's variants (§9.1).

Expected values come from the spec's ``ocrbench`` cases or are derived by hand from the rule;
every fixture is synthetic (the items of OCRBench.json come from ~30 datasets with their own
terms, so none is bundled).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vqametrics.cli import main
from vqametrics.tasks import score_answer
from vqametrics.tasks._run import evaluate_task
from vqametrics.tasks.ocrbench import DATASETS, HME_CATEGORY, TYPES

from .conftest import case_params

PROFILES = {"official": "official", "lmms_eval": "lmms-eval", "vlmevalkit": "vlmevalkit"}


@pytest.mark.parametrize(("case", "profile", "expected"), case_params("ocrbench", PROFILES))
def test_cases(case: dict[str, Any], profile: str, expected: int) -> None:
    inp = case["input"]
    got = score_answer(
        "ocrbench",
        inp["prediction"],
        inp["answers"],
        profile=profile,
        dataset_name=inp["dataset_name"],
        category=inp["type"],
    )
    assert got == expected


def _score(pred: str, answers: str | list[str], profile: str = "official", **ctx: Any) -> float:
    ctx.setdefault("dataset_name", "IIIT5K")
    return score_answer("ocrbench", pred, answers, profile=profile, **ctx)


def test_quirks_of_example_py() -> None:
    # containment: "1" is in "10"; an empty answer is in everything
    assert _score("10", "1") == 1.0
    assert _score("anything", "") == 1.0
    # the newline becomes a space after the strip: "cen\ntre" → "cen tre", no "centre" in it
    assert _score("cen\ntre", "centre") == 0.0
    # full-width letters are other characters (folded by lmms-eval since bbddc79 only)
    assert _score("ＡＢＣ", "ABC") == 0.0
    assert _score("ＡＢＣ", "ABC", profile="lmms-eval") == 1.0
    assert _score("ＡＢＣ", "ABC", profile="lmms-eval-2025") == 0.0
    # HME100k: case-sensitive, every space removed; other datasets: case-insensitive
    assert _score("X ^ 2", "x^2", dataset_name="HME100k") == 0.0
    assert _score("x ^ 2", "x^2", dataset_name="HME100k") == 1.0
    assert _score("X ^ 2", "x^2") == 0.0  # spaces are kept outside HME100k
    assert _score("X^2", "x^2") == 1.0


def test_hme_routing_by_category_without_dataset_name() -> None:
    # VLMEvalKit routes by category; the others fall back to it without a dataset name
    for profile in ("official", "vlmevalkit", "lmms-eval"):
        got = score_answer(
            "ocrbench", "A B", "AB", profile=profile, category=HME_CATEGORY, dataset_name=None
        )
        assert got == 1.0, profile


def test_unknown_context_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="takes no context"):
        score_answer("ocrbench", "a", "a", split="x")


def _full_file() -> tuple[list[dict[str, Any]], dict[str, int]]:
    """1000 items: 50 per recognition type, 200 per VQA/KIE type, 100 HME; the first k of
    each type answered correctly with k = 10, 11, … (so every sum is known by hand)."""
    sizes = [50] * 6 + [200] * 3 + [100]
    items, expected = [], {}
    n = 0
    for t, (typ, size) in enumerate(zip(TYPES, sizes, strict=True)):
        k = 10 + t
        expected[typ] = k
        for j in range(size):
            n += 1
            hme = typ == HME_CATEGORY
            item = {
                "id": n,
                "dataset_name": "HME100k" if hme else DATASETS[t],
                "type": typ,
                "answers": "a b" if hme else ["word", "other"],
                "predict": ("ab" if hme else "A WORD!") if j < k else "nothing",
            }
            items.append(item)
    return items, expected


def test_full_file_official_lmms_eval_vlmevalkit() -> None:
    items, sums = _full_file()
    final = sum(sums.values())  # 10 + 11 + … + 19 = 145
    assert final == 145
    r = evaluate_task("ocrbench", items)
    assert r.metrics["Final Score"] == final
    assert r.metrics["Text Recognition"] == 10 + 11 + 12 + 13 + 14 + 15
    for typ, k in sums.items():
        assert r.metrics[typ] == k
    assert r.aggregate.units == "count"
    lm = evaluate_task("ocrbench", items, profile="lmms-eval")
    assert lm.metrics["ocrbench_accuracy"] == 0.145 and lm.aggregate.units == "fraction"
    # a second run in the same process does not double-count (lmms-eval's module-level bug)
    assert evaluate_task("ocrbench", items, profile="lmms-eval").metrics["Final Score"] == final
    vk = evaluate_task("ocrbench", items, profile="vlmevalkit")
    assert vk.metrics["Final Score"] == final and vk.metrics["Final Score Norm"] == 14.5


def test_partial_file_reports_datasets_present() -> None:
    items = [
        {"dataset_name": "IIIT5K", "type": TYPES[0], "answers": "a", "predict": "a"},
        {"dataset_name": "IIIT5K", "type": TYPES[0], "answers": "a", "predict": "b"},
        {"dataset_name": "IIIT5K", "type": TYPES[0], "answers": "a", "predict": "cat"},
        {"dataset_name": "svt", "type": TYPES[0], "answers": "x", "predict": "y"},
    ]
    r = evaluate_task("ocrbench", items)
    per = r.aggregate.breakdowns["dataset_name"]
    assert per["IIIT5K"] == {"accuracy": 2 / 3.0, "n": 3}
    assert per["svt"] == {"accuracy": 0.0, "n": 1}
    assert r.metrics["correct"] == 2
    assert "Final Score" not in r.metrics
    note = next(n for n in r.notes if "ZeroDivisionError" in n)
    assert "'IC13_857'" in note and "28 of its 30" in note and "HME100k" in note


def test_missing_predict(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    items = [
        {"dataset_name": "svt", "type": TYPES[0], "answers": "a", "predict": "a"},
        {"dataset_name": "svt", "type": TYPES[0], "answers": "a"},
    ]
    f = tmp_path / "OCRBench_pred.json"
    f.write_text(json.dumps(items), encoding="utf-8")
    assert main(["score", "ocrbench", "--results", str(f)]) == 2
    err = capsys.readouterr().err
    assert "item 2" in err and "--allow-missing" in err and "Traceback" not in err
    assert main(["score", "ocrbench", "--results", str(f), "--allow-missing", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["breakdowns"]["dataset_name"]["svt"] == {"accuracy": 0.5, "n": 2}
    assert out["n_missing"] == 1


def test_vlmevalkit_tsv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "model_OCRBench.tsv"
    f.write_text(
        "index\tquestion\tanswer\tcategory\tprediction\n"
        f"0\tq\t['x ^ 2']\t{HME_CATEGORY}\tx^2\n"
        f"1\tq\t['centre', 'center']\t{TYPES[0]}\tThe CENTER.\n"
        f"2\tq\t['12']\t{TYPES[7]}\t1 2\n",
        encoding="utf-8",
    )
    assert (
        main(["score", "ocrbench", "--results", str(f), "--profile", "vlmevalkit", "--json"]) == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["metrics"]["Final Score"] == 2
    assert out["metrics"]["Final Score Norm"] == 0.2
    assert out["metrics"][HME_CATEGORY] == 1 and out["metrics"]["Text Recognition"] == 1


def test_bad_inputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad_list = tmp_path / "m_OCRBench.tsv"
    bad_list.write_text(
        f"index\tanswer\tcategory\tprediction\n0\t['a', \t{TYPES[0]}\ta\n", encoding="utf-8"
    )
    bad_answers = tmp_path / "a.json"
    bad_answers.write_text(
        json.dumps([{"dataset_name": "svt", "type": TYPES[0], "answers": 3, "predict": "a"}]),
        encoding="utf-8",
    )
    wrong_layout = tmp_path / "w.json"
    wrong_layout.write_text(json.dumps([{"questionId": "1", "prediction": "a"}]), "utf-8")
    items, _ = _full_file()
    items[5]["type"] = "Poetry"
    unknown_type = tmp_path / "u.json"
    unknown_type.write_text(json.dumps(items), encoding="utf-8")
    runs = [
        (bad_list, "row 2: answer cell is not a valid list literal"),
        (bad_answers, "a.json: item 1: 'answers' must be a string or a list"),
        (wrong_layout, "not an OCRBench results file"),
        (unknown_type, "item 6: type 'Poetry' is not one of OCRBench's 10 types"),
    ]
    for path, message in runs:
        assert main(["score", "ocrbench", "--results", str(path)]) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err, (path, err)


_ascii = st.text(alphabet="aB1 \n.", max_size=8)


@given(_ascii, _ascii, _ascii)
def test_an_answer_inside_the_prediction_always_scores(a: str, left: str, right: str) -> None:
    assert _score(left + a + right, [a]) == 1.0
    assert _score(left + a + right, [a], dataset_name="HME100k") == 1.0


_wide = st.text(alphabet="aBＡｂ \u3000\n1１", max_size=8)


@given(_wide, _wide)
def test_folding_only_adds_matches(pred: str, answer: str) -> None:
    official = _score(pred, [answer])
    assert _score(pred, [answer], profile="lmms-eval") >= official
    assert _score(pred, [answer], profile="lmms-eval-2025") == official


def test_per_item_shows_what_was_compared() -> None:
    items = [
        {
            "id": "a",
            "dataset_name": "svt",
            "type": TYPES[0],
            "answers": "centre",
            "predict": "cen\ntre",
        },
        {
            "id": "b",
            "dataset_name": "HME100k",
            "type": HME_CATEGORY,
            "answers": "X ^ 2",
            "predict": "x^2",
        },
    ]
    rows = list(evaluate_task("ocrbench", items).per_item())
    assert rows[0]["compared_prediction"] == "cen tre" and rows[0]["score"] == 0.0
    assert rows[1]["hme_rule"] is True and rows[1]["compared_answers"] == ["X^2"]
    assert rows[1]["score"] == 0.0  # HME100k keeps the case


def test_vlmevalkit_tsv_on_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # the reader looks at the columns first; standard input must still be read only once
    import io
    import sys

    tsv = f"index\tquestion\tanswer\tcategory\tprediction\n1\tq\t['ab']\t{TYPES[0]}\txaby\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(tsv.encode())))
    code = main(["score", "ocrbench", "--results", "-", "--profile", "vlmevalkit", "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    # 'ab' is contained in 'xaby': one correct Regular Text Recognition item
    assert json.loads(captured.out)["metrics"]["Final Score"] == 1


# -- lmms-eval --log_samples logs ------------------------------------------------------------
# The record layout is lmms-eval@75571cf's: evaluator.py logs doc_id, doc (the echo840/OCRBench
# row: dataset, question, question_type, answer), target (doc_to_target "answer") and
# filtered_resps, plus what ocrbench_process_results returned: {"ocrbench_accuracy": {...,
# "score": 0 or 1}} (tasks/ocrbench/utils.py).


def _lmms_rows(items: list[dict[str, Any]], *, with_doc: bool = True) -> list[dict[str, Any]]:
    rows = []
    for i, it in enumerate(items):
        answer = it["answers"] if isinstance(it["answers"], list) else [it["answers"]]
        # the score written by hand from _full_file: "A WORD!" contains "word", "ab" is
        # "a b" without spaces; "nothing" contains neither
        score = 0 if it["predict"] == "nothing" else 1
        row: dict[str, Any] = {
            "doc_id": i,
            "target": answer,
            "filtered_resps": [it["predict"]],
            "ocrbench_accuracy": {"question_type": it["type"], "score": score},
        }
        if with_doc:
            row["doc"] = {
                "dataset": it["dataset_name"],
                "question": "q",
                "question_type": it["type"],
                "answer": answer,
            }
        rows.append(row)
    return rows


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _truth(path: Path, items: list[dict[str, Any]]) -> Path:
    path.write_text(
        json.dumps([{k: v for k, v in it.items() if k != "predict"} for it in items]), "utf-8"
    )
    return path


@pytest.mark.parametrize("profile", ["official", "lmms-eval", "vlmevalkit"])
def test_lmms_eval_log_with_doc_scores_like_ocrbench_json(tmp_path: Path, profile: str) -> None:
    items, _ = _full_file()
    log = _jsonl(tmp_path / "samples_ocrbench.jsonl", _lmms_rows(items))
    r = evaluate_task("ocrbench", log, profile=profile)
    assert r.metrics == evaluate_task("ocrbench", items, profile=profile).metrics
    assert r.metrics["Final Score"] == 145  # 10 + 11 + … + 19, by construction
    assert r.data.sources == (str(log),)


def test_lmms_eval_log_records_the_toolkit_score(tmp_path: Path) -> None:
    items, _ = _full_file()
    r = evaluate_task("ocrbench", _jsonl(tmp_path / "s.jsonl", _lmms_rows(items)))
    recorded = [it.fields["toolkit_score"] for it in r.data.items]
    assert recorded == [0.0 if it["predict"] == "nothing" else 1.0 for it in items]
    # the doc's names are OCRBench.json's here: dataset → dataset_name, question_type → type
    assert r.data.items[0].fields["dataset_name"] == DATASETS[0]
    assert r.data.items[-1].fields["category"] == HME_CATEGORY


def test_lmms_eval_log_with_doc_and_annotations(tmp_path: Path) -> None:
    items, _ = _full_file()
    rows = _lmms_rows(items)
    # a doc whose answer disagrees with OCRBench.json: the annotations win
    rows[3]["doc"]["answer"] = ["changed"]
    log = _jsonl(tmp_path / "samples_ocrbench.jsonl", rows)
    truth = _truth(tmp_path / "OCRBench.json", items)
    r = evaluate_task("ocrbench", log, annotations=truth, profile="lmms-eval")
    assert r.metrics == evaluate_task("ocrbench", items, profile="lmms-eval").metrics
    assert any("by doc_id position" in n for n in r.notes)
    note = next(n for n in r.notes if "differ from" in n)
    assert note.startswith("1 doc(s)") and "(e.g. 4)" in note  # OCRBench.json's id 4
    assert r.data.items[0].fields["toolkit_score"] == 1.0
    # without the disagreement, no such note
    clean = _jsonl(tmp_path / "clean.jsonl", _lmms_rows(items))
    r2 = evaluate_task("ocrbench", clean, annotations=truth, profile="lmms-eval")
    assert not any("differs" in n for n in r2.notes)


def test_lmms_eval_log_without_doc_joins_by_position(tmp_path: Path) -> None:
    items, _ = _full_file()
    log = _jsonl(tmp_path / "samples_ocrbench.jsonl", _lmms_rows(items, with_doc=False))
    truth = _truth(tmp_path / "OCRBench.json", items)
    r = evaluate_task("ocrbench", log, annotations=truth)
    assert r.metrics == evaluate_task("ocrbench", items).metrics
    assert any("BY POSITION" in n for n in r.notes)
    assert [it.fields["toolkit_score"] for it in r.data.items][:11] == [1.0] * 10 + [0.0]


def test_lmms_eval_log_without_doc_needs_annotations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items, _ = _full_file()
    log = _jsonl(tmp_path / "samples_ocrbench.jsonl", _lmms_rows(items[:3], with_doc=False))
    with pytest.raises(ValueError, match=r"samples_ocrbench\.jsonl: .*no 'doc'.*annotations="):
        evaluate_task("ocrbench", log)
    assert main(["score", "ocrbench", "--results", str(log)]) == 2
    err = capsys.readouterr().err
    assert "samples_ocrbench.jsonl" in err and "Traceback" not in err


def test_lmms_eval_log_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    items, _ = _full_file()
    log = _jsonl(tmp_path / "samples_ocrbench.jsonl", _lmms_rows(items))
    argv = ["score", "ocrbench", "--results", str(log), "--profile", "lmms-eval", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metrics"]["ocrbench_accuracy"] == 0.145


def test_annotations_still_refused_beside_ocrbench_json(tmp_path: Path) -> None:
    items, _ = _full_file()
    f = tmp_path / "pred.json"
    f.write_text(json.dumps(items), encoding="utf-8")
    with pytest.raises(ValueError, match="only with lmms-eval logs"):
        evaluate_task("ocrbench", f, annotations=f)


def test_lmms_eval_results_json_beside_the_log_is_reported(tmp_path: Path) -> None:
    items, _ = _full_file()
    log = _jsonl(tmp_path / "20250101_samples_ocrbench.jsonl", _lmms_rows(items))
    (tmp_path / "20250101_results.json").write_text(
        json.dumps({"results": {"ocrbench": {"ocrbench_accuracy,none": 0.145}}}), "utf-8"
    )
    r = evaluate_task("ocrbench", log, profile="lmms-eval")
    assert r.data.reported is not None
    assert r.data.reported["values"] == {"ocrbench": {"ocrbench_accuracy,none": 0.145}}
    assert r.metrics["ocrbench_accuracy"] == 0.145


def test_reported_names_are_the_lmms_eval_metrics(tmp_path: Path) -> None:
    from vqametrics.tasks.ocrbench import LMMS_EVAL_METRICS, LMMS_EVAL_REPORTED

    assert set(LMMS_EVAL_REPORTED) == set(LMMS_EVAL_METRICS)
    items, _ = _full_file()
    r = evaluate_task(
        "ocrbench", _jsonl(tmp_path / "s.jsonl", _lmms_rows(items)), profile="lmms-eval"
    )
    assert set(LMMS_EVAL_REPORTED.values()) <= set(r.metrics)
