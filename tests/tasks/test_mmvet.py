"""MM-Vet: each toolkit's reading of the judge's reply (mmvet_judge_reply cases), the replay of
recorded replies, and the three aggregations from recorded grades."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vqametrics.core.exceptions import InputError
from vqametrics.kernels.mmvet import (
    MmvetScoreError,
    Retry,
    lmms_eval_reply,
    official_reply,
    read_replies,
    vlmevalkit_reply,
)
from vqametrics.tasks import get_task
from vqametrics.tasks._base import TaskInputs
from vqametrics.tasks._run import evaluate_task

CASES = Path(__file__).resolve().parents[1] / "data" / "mcq-reasoning-cases.json"
READERS: dict[str, Callable[[str], float | Retry]] = {
    "official_mm_vet_evaluator": official_reply,
    "vlmevalkit_MMVet_auxeval": vlmevalkit_reply,
    "lmms_eval": lmms_eval_reply,
}


def _params() -> list[Any]:
    cases = json.loads(CASES.read_text(encoding="utf-8"))["mmvet_judge_reply"]
    out = []
    for case in cases:
        for key, expected in case["expected"].items():
            out.append(
                pytest.param(case["input"]["judge_reply"], key, expected, id=f"{case['id']}-{key}")
            )
    return out


@pytest.mark.parametrize(("reply", "key", "expected"), _params())
def test_reply_cases(reply: str, key: str, expected: Any) -> None:
    got = READERS[key](reply)
    if isinstance(expected, float | int):
        assert got == expected and not isinstance(got, Retry)
    elif expected == "nan":
        assert isinstance(got, float) and math.isnan(got)
    elif expected == "retry":
        assert isinstance(got, Retry)
    elif expected.startswith("retry(parse"):
        assert got == Retry("parse")
    else:
        assert expected.startswith("retry(range")
        assert got == Retry("range")


def test_nan_passes_two_range_checks() -> None:
    # hand-derived: every comparison with NaN is False
    assert math.isnan(official_reply("nan"))  # type: ignore[arg-type]
    assert math.isnan(vlmevalkit_reply("nan"))  # type: ignore[arg-type]
    assert lmms_eval_reply("nan") == Retry("range")


def _sheet(grades: list[tuple[str, float]], **extra: Any) -> list[dict[str, Any]]:
    return [
        {"index": i, "question": "q", "answer": "a", "category": cat, "prediction": "p",
         "score": s, "log": "Succeed", **extra}
        for i, (cat, s) in enumerate(grades)
    ]  # fmt: skip


GRADES = [
    ("rec,ocr", 0.5),
    ("ocr", 1.0),
    ("know,rec", 0.0),
    ("gen,rec", 0.3),
    ("spat,ocr", 0.8),
    ("math,ocr", 1.0),
]


def test_vlmevalkit_counts_a_one_capability_item_twice() -> None:
    # QUIRK shared-counter: the 'ocr' row adds the ocr-only item as capability and as fine key:
    # (0.5 + 1.0 + 0.8 + 1.0 + 1.0) / 5 * 100, not / 4 (hand-derived from MMVet_acc)
    r = evaluate_task("mmvet", _sheet(GRADES), profile="vlmevalkit")
    ocr = r.aggregate.breakdowns["capability"]["ocr"]
    assert ocr["tot"] == 5
    assert ocr["acc"] == (0.5 + 1.0 + 0.8 + 1.0 + 1.0) / 5 * 100
    assert r.metrics["Overall"] == (0.5 + 1.0 + 0.0 + 0.3 + 0.8 + 1.0) / 6 * 100
    # the official counts it once
    off = evaluate_task("mmvet", _sheet(GRADES), profile="official")
    assert off.aggregate.breakdowns["capability"]["ocr"]["score"] == (3.3 / 4) * 100
    assert off.aggregate.breakdowns["capability"]["ocr"]["n"] == 4


def test_lmms_eval_overall_is_sum_over_n() -> None:
    r = evaluate_task("mmvet", _sheet(GRADES), profile="lmms-eval")
    assert r.metrics["Overall"] == sum(s for _, s in GRADES) / 6 * 100
    assert r.aggregate.breakdowns["capability"]["rec"]["score"] == (0.5 + 0.0 + 0.3) / 3 * 100


def test_missing_grade_names_item_and_field() -> None:
    rows = _sheet(GRADES)
    del rows[2]["score"]
    with pytest.raises(InputError) as err:
        evaluate_task("mmvet", rows, profile="vlmevalkit")
    msg = str(err.value)
    assert "item 2" in msg and "'score'" in msg and "judge_reply" in msg and "\n" not in msg


def test_capability_without_items_is_vlmevalkits_division_by_zero() -> None:
    with pytest.raises(MmvetScoreError, match="'math'"):
        evaluate_task(
            "mmvet", _sheet([("rec", 1.0), ("ocr,spat,gen,know", 0.0)]), profile="vlmevalkit"
        )


def test_nan_grade_is_flagged() -> None:
    rows = _sheet(GRADES)
    rows[0]["score"] = float("nan")
    # issue 22: a NaN total is no number to report: an error naming the row, unless the
    # toolkits' NaN is asked for with --allow-missing
    with pytest.raises(InputError, match=r"item 1: no judge grade"):
        evaluate_task("mmvet", rows, profile="official")
    r = evaluate_task("mmvet", rows, profile="official", allow_missing=True)
    assert math.isnan(r.metrics["total"])
    assert any("NaN" in n for n in r.notes)


# ---------------------------------------------------------------------------- replay


def test_replay_the_same_replies_three_ways() -> None:
    replies = ["0.8 because the answer mentions both items", " 0.7"]
    # official: first token of the first reply; VLMEvalKit: rejects it, takes " 0.7"
    assert read_replies(replies, "official") == (0.8, 1)
    assert read_replies(replies, "vlmevalkit") == (0.7, 2)
    assert read_replies(replies, "lmms-eval") == (0.8, 1)
    # lmms-eval's get_chat_response strips the reply before its inline step
    assert read_replies([" 0.7"], "lmms-eval") == (0.7, 1)


def test_replay_gives_up_as_each_toolkit_does() -> None:
    bad = ["Score: 1"] * 5
    assert read_replies(bad, "official") == (0.0, 5)
    assert read_replies(bad, "vlmevalkit") == (0.0, 5)
    assert read_replies(bad[:4], "lmms-eval") == (0.0, 4)  # temperature 0.5 × 4 = 2
    with pytest.raises(MmvetScoreError, match="next reply"):
        read_replies(bad[:3], "official")
    with pytest.raises(MmvetScoreError):
        read_replies(["1.5"] * 9, "lmms-eval")  # out of range: asked again without limit


def test_records_with_replies_are_replayed_per_profile() -> None:
    rows = [
        {"question_id": "v1", "capability": "rec", "judge_reply": ["0.8 because", "0.6"],
         "score": 0.6},
        {"question_id": "v2", "capability": "ocr,know,gen,spat,math", "judge_reply": "1"},
    ]  # fmt: skip
    off = evaluate_task("mmvet", rows, profile="official")
    assert off.scores == [0.8, 1.0]
    assert any("1 recorded grade(s) differ from the replayed ones" in n for n in off.notes)
    vlm = evaluate_task("mmvet", rows, profile="vlmevalkit")
    assert vlm.scores == [0.6, 1.0]
    assert "judge:recorded" in vlm.signature.format()


# ---------------------------------------------------------------------------- files


def test_official_grade_file_with_runs(tmp_path: Path) -> None:
    meta = {
        "v1": {"question": "q1", "answer": "a", "capability": ["rec", "ocr"], "imagename": "1"},
        "v2": {"question": "q2", "answer": "b", "capability": ["ocr"], "imagename": "2"},
    }
    grades = {
        "v1": {"model": ["gpt-4-0613"] * 2, "content": ["1.0", "0.5"], "score": [1.0, 0.5]},
        "v2": {"model": ["gpt-4-0613"] * 2, "content": ["0.0", "0.3"], "score": [0.0, 0.4]},
    }
    (tmp_path / "mm-vet.json").write_text(json.dumps(meta), encoding="utf-8")
    grade_file = tmp_path / "m_gpt-4-0613-grade-2runs.json"
    grade_file.write_text(json.dumps(grades), encoding="utf-8")
    (tmp_path / "m_gpt-4-0613-cap-score-2runs.csv").write_text(
        ',ocr,rec,total,std,runs\nm,47.5,75.0,47.5,2.5,"[50.0, 45.0]"\n', encoding="utf-8"
    )
    r = evaluate_task("mmvet", grade_file, annotations=tmp_path / "mm-vet.json", profile="official")
    # hand-derived: run totals (1.0+0.0)/2*100 = 50, (0.5+0.4)/2*100 = 45; mean 47.5, std 2.5
    assert r.metrics["total"] == 47.5
    assert r.metrics["std"] == 2.5
    assert r.aggregate.breakdowns["capability"]["rec"]["score"] == 75.0
    assert list(r.aggregate.breakdowns["capability"]) == ["ocr", "rec"]  # most common first
    assert "judge_model:gpt-4-0613" in r.signature.format()
    assert r.data.reported is not None and r.data.reported["values"]["all"]["total"] == 47.5
    # v2's second stored grade (0.4) is not what its stored content (0.3) reads as
    assert any("1 stored grade(s) differ from the official reading" in n for n in r.notes)


def test_grade_file_needs_the_metadata(tmp_path: Path) -> None:
    grade_file = tmp_path / "m_gpt-4-0613-grade-1runs.json"
    grade_file.write_text(json.dumps({"v1": {"model": ["g"], "content": ["1"], "score": [1.0]}}))
    with pytest.raises(InputError, match=r"annotations= mm-vet\.json"):
        evaluate_task("mmvet", grade_file)


@pytest.mark.parametrize(
    ("rows", "what"),
    [
        ({"v1": {"model": ["g"], "content": ["1"], "score": [1.0]}}, "grade"),
        ({"v1": "a"}, "answer"),
    ],
    ids=["grade-file", "official-results"],
)
def test_official_files_joined_to_the_metadata(
    tmp_path: Path, rows: dict[str, Any], what: str
) -> None:
    # both official {id: ...} files are joined to mm-vet.json by id: an id it lacks is an error
    # (left out with ignore_extra), an annotated id the file lacks is one (left out, counted,
    # with allow_missing)
    meta = {
        "v1": {"question": "q1", "answer": "a", "capability": ["rec"], "imagename": "1"},
        "v2": {"question": "q2", "answer": "b", "capability": ["ocr"], "imagename": "2"},
    }
    ann = tmp_path / "mm-vet.json"
    ann.write_text(json.dumps(meta), encoding="utf-8")
    path = tmp_path / "m.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    with pytest.raises(InputError, match=rf"1 of the 2 annotated questions have no {what} "):
        evaluate_task("mmvet", path, annotations=ann, profile="official")
    path.write_text(json.dumps({**rows, "v9": rows["v1"]}), encoding="utf-8")
    with pytest.raises(InputError, match=r"'v9' is not in the annotations \(2 ids\)"):
        evaluate_task("mmvet", path, annotations=ann, profile="official", allow_missing=True)
    inputs = TaskInputs(path, ann, allow_missing=True, ignore_extra=True, profile="official")
    data = get_task("mmvet").read(inputs)
    assert [it.id for it in data.items] == ["v1"]
    assert [it.fields["capabilities"] for it in data.items] == [("rec",)]


def test_lmms_eval_log_and_its_results(tmp_path: Path) -> None:
    log = tmp_path / "20250101_120000_samples_mmvet.jsonl"
    lines = []
    for i, (cap, s) in enumerate([("rec,ocr", 0.5), ("ocr", 1.0), ("gen,rec", 0.2)]):
        doc = {"question_id": f"v{i}", "question": "q", "answer": "a", "capability": cap}
        rec = {"question_id": f"v{i}", "capabilities": cap, "score": s, "eval_model": "gpt-4o"}
        lines.append(json.dumps({"doc_id": i, "doc": doc, "target": "a",
                                 "filtered_resps": ["p"], "gpt_eval_score": rec}))  # fmt: skip
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    overall = (0.5 + 1.0 + 0.2) / 3 * 100
    (tmp_path / "20250101_120000_results.json").write_text(
        json.dumps({"results": {"mmvet": {"gpt_eval_score,none": overall}}}), encoding="utf-8"
    )
    r = evaluate_task("mmvet", log, profile="lmms-eval")
    assert r.metrics["Overall"] == overall
    assert "judge_model:gpt-4o" in r.signature.format()
    assert r.data.reported is not None
    assert r.data.reported["values"]["mmvet"]["gpt_eval_score,none"] == overall
    assert r.data.reported["units"] == "percent"  # lmms-eval's mmvet score is already × 100


def test_grades_of_another_toolkit_are_said_so() -> None:
    r = evaluate_task("mmvet", _sheet(GRADES), profile="official")
    assert any("by vlmevalkit's rule, not official's" in n for n in r.notes)
    same = evaluate_task("mmvet", _sheet(GRADES), profile="vlmevalkit")
    assert not any("rule, not" in n for n in same.notes)


def test_score_answer_replays_a_reply_per_profile() -> None:
    from vqametrics.tasks import score_answer

    reply = ["0.8 because the answer mentions both items", "0.6"]
    assert score_answer("mmvet", "p", ["a"], judge_replies=reply) == 0.8
    assert score_answer("mmvet", "p", ["a"], profile="vlmevalkit", judge_replies=reply) == 0.6
    assert score_answer("mmvet", "p", ["a"], profile="lmms-eval", grade=0.4) == 0.4


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=12), min_size=5, max_size=12))
def test_a_settled_grade_is_in_range(replies: list[str]) -> None:
    # official and VLMEvalKit settle within 5 replies; lmms-eval may not (range retries)
    for toolkit in ("official", "vlmevalkit"):
        score, read = read_replies(replies, toolkit)  # type: ignore[arg-type]
        assert read <= 5
        assert math.isnan(score) or 0.0 <= score <= 1.0
    try:
        score, _ = read_replies(replies, "lmms-eval")
    except MmvetScoreError:
        return
    assert 0.0 <= score <= 1.0  # lmms-eval's range test rejects nan


@given(st.integers(0, 10), st.text(alphabet="abc ", max_size=10))
def test_first_token_vs_whole_reply(tenths: int, tail: str) -> None:
    value = tenths / 10
    reply = f"{value} {tail}"
    assert official_reply(reply) == value
    assert vlmevalkit_reply(reply) == (value if not tail.strip() else Retry("parse"))


def test_an_empty_score_cell_of_a_sheet_is_nan_as_pandas_reads_it(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    pytest.importorskip("openpyxl")
    rows = _sheet(GRADES)
    rows[1]["score"] = None
    path = tmp_path / "m_MMVet_gpt-4-turbo.xlsx"
    pd.DataFrame(rows).to_excel(path, index=False)
    with pytest.raises(InputError, match=r"row 3: no judge grade"):
        evaluate_task("mmvet", path, profile="vlmevalkit")
    r = evaluate_task("mmvet", path, profile="vlmevalkit", allow_missing=True)
    assert math.isnan(r.metrics["Overall"])
    assert not math.isnan(r.aggregate.breakdowns["capability"]["rec"]["acc"])  # no ocr-only item
    assert any("NaN" in n for n in r.notes)
    assert "judge_model:gpt-4-turbo" in r.signature.format()


@pytest.mark.parametrize("profile", ["official", "vlmevalkit", "lmms-eval"])
def test_open_answers_graded_by_the_judge_get_no_verbose_warning(profile: str) -> None:
    # issue 22: the judge reads the whole answer, so "N of N predictions look verbose … see
    # --extract" was a false alarm on every MM-Vet file (here 6 of 6 sentences)
    rows = _sheet(GRADES)
    for row in rows:
        row["prediction"] = "The sign in the picture reads 'STOP', written in white letters."
    r = evaluate_task("mmvet", rows, profile=profile)
    assert r.diagnostics is None
