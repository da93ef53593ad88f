"""ANLS (DocVQA, InfographicVQA, ST-VQA): every golden case for every profile it names, the
spec's edge table (§5.3) as quirk goldens, the Levenshtein DP against an independent one,
properties, the RRC validation rules, the readers and the speed on a val-sized run.

Expected values come from ``vqa-family-cases.json`` (the toolkits' own code), the spec's
table, or hand derivation (stated beside each number). DocVQA data cannot be redistributed:
every string here is synthetic.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vqametrics.cli import main
from vqametrics.kernels.anls import (
    UndefinedScoreError,
    anls_lmms_eval,
    anls_mmf,
    anls_official,
    anls_paper,
    anls_pix2struct,
    anls_stvqa_2019,
    anls_vlmevalkit,
    levenshtein,
)
from vqametrics.tasks import get_task, score_answer
from vqametrics.tasks._run import evaluate_task

from ._anls_synthetic import N_DOCVQA_VAL, synthetic_docvqa
from .conftest import case_params, family_cases

TASKS = ("docvqa", "infographicvqa", "stvqa")
PEERS = {"lmms_eval": "lmms-eval", "vlmevalkit": "vlmevalkit", "mmf_stvqa": "mmf"}
PEERS |= {"pix2struct": "pix2struct", "pypi_anls": "paper"}
SCORERS = {
    "official": anls_official,
    "stvqa-2019": anls_stvqa_2019,
    "lmms-eval": anls_lmms_eval,
    "vlmevalkit": anls_vlmevalkit,
    "mmf": anls_mmf,
    "pix2struct": anls_pix2struct,
    "paper": anls_paper,
}


def _single(case: dict[str, Any]) -> bool:
    return "prediction" in case["input"]


# --- golden cases --------------------------------------------------------------------------


def _single_params(profiles: dict[str, str]) -> list[Any]:
    """The per-answer cases (the dataset-level one is ``test_dataset_case``)."""
    return [p for p in case_params("anls", profiles) if _single(p.values[0])]


@pytest.mark.parametrize("task", ["docvqa", "infographicvqa"])
@pytest.mark.parametrize(
    ("case", "profile", "expected"),
    _single_params({"official_docvqa_infovqa": "official", **PEERS}),
)
def test_cases_docvqa_infovqa(
    task: str, case: dict[str, Any], profile: str, expected: float
) -> None:
    inp = case["input"]
    assert score_answer(task, inp["prediction"], inp["gt_answers"], profile=profile) == expected


@pytest.mark.parametrize(
    ("case", "profile", "expected"),
    _single_params({"official_stvqa_2019": "official", **PEERS}),
)
def test_cases_stvqa(case: dict[str, Any], profile: str, expected: float) -> None:
    inp = case["input"]
    assert score_answer("stvqa", inp["prediction"], inp["gt_answers"], profile=profile) == expected


def _gt_and_submission(pairs: list[Any], tmp: Path) -> tuple[Path, list[dict[str, Any]]]:
    data = [
        {"questionId": 100 + i, "question": f"q{i}", "answers": answers}
        for i, (_, answers) in enumerate(pairs)
    ]
    gt = tmp / "gt.json"
    gt.write_text(json.dumps({"dataset_name": "synthetic", "data": data}), encoding="utf-8")
    # the submission in reverse order: the script indexes it by questionId
    sub = [{"questionId": 100 + i, "answer": p} for i, (p, _) in enumerate(pairs)][::-1]
    return gt, sub


@pytest.mark.parametrize("task", ["docvqa", "infographicvqa"])
def test_dataset_case(task: str, tmp_path: Path) -> None:
    (case,) = [c for c in family_cases("anls") if not _single(c)]
    gt, sub = _gt_and_submission(case["input"]["pairs"], tmp_path)
    r = evaluate_task(task, sub, annotations=gt)
    assert r.metrics["ANLS"] == case["expected"]["official_docvqa_infovqa"]
    assert r.metrics["n"] == 13
    assert r.aggregate.units == "fraction" and r.aggregate.digits == 4  # the script's {:2.4f}


# --- the spec's edge table (§5.3), quirk by quirk ------------------------------------------

F13_15 = 1 - 2 / 15  # distance 2 over 15 characters: "0.8667" in the table

EDGE_TABLE = [
    # (prediction, answer, official, stvqa-2019, lmms-eval, vlmevalkit, mmf, pix2struct, paper)
    ("abcd", "abef", 0.5, 0.5, 0.5, 0.5, 0.5, 0.0, 0.0),
    ("ab   ", "ac", 0.8, 0.0, 0.5, 0.8, 0.5, 0.0, 0.0),
    ("Dear  Dr.  Lobo", "Dear Dr. Lobo", 1.0, F13_15, 1.0, 1.0, F13_15, F13_15, 1.0),
    ("42", " 42 ", 1.0, 0.5, 1.0, 1.0, 1.0, 0.0, 1.0),
    ("ß", "s", 0.5, 0.5, 0.5, 0.5, 0.0, 0.0, 0.0),
]
ORDER = ("official", "stvqa-2019", "lmms-eval", "vlmevalkit", "mmf", "pix2struct", "paper")


@pytest.mark.parametrize("row", EDGE_TABLE, ids=[r[0] for r in EDGE_TABLE])
def test_edge_table(row: tuple[Any, ...]) -> None:
    pred, answer, *expected = row
    got = [SCORERS[name](pred, [answer]) for name in ORDER]
    assert got == expected


def test_quirk_half_is_kept_by_rrc_and_dropped_by_the_paper() -> None:
    # NL = 2/4 exactly: the RRC script zeroes only s < 0.5; pix2struct and the paper need NL < 0.5
    for task in TASKS:
        assert score_answer(task, "abcd", ["abef"]) == 0.5
        assert score_answer(task, "abcd", ["abef"], profile="paper") == 0.0
        assert score_answer(task, "abcd", ["abef"], profile="pix2struct") == 0.0


def test_quirk_raw_length_rewards_padding() -> None:
    # distance 1 ("ab" vs "ac") over len("AB   ") = 5 → 0.8; lmms-eval strips first → 1/2
    assert anls_official("ab   ", ["ac"]) == 0.8
    assert anls_lmms_eval("ab   ", ["ac"]) == 0.5
    # and more padding scores higher still: 1 - 1/9
    assert anls_official("ab       ", ["ac"]) == 1 - 1 / 9


def test_quirk_upper_lengthens_sharp_s() -> None:
    # "ß".upper() == "SS": distance 1 over length 2 → 0.5 (kept); MMF measures 1 → 0
    assert anls_official("ß", ["s"]) == 0.5
    assert anls_mmf("ß", ["s"]) == 0.0


def test_quirk_stvqa_counts_spaces() -> None:
    # ST-VQA 2019 does not strip: " 42 " vs "42" is 2 edits over 4 characters
    assert score_answer("stvqa", "42", [" 42 "]) == 0.5
    assert score_answer("docvqa", "42", [" 42 "]) == 1.0


def test_two_empty_strings() -> None:
    for name in ("official", "stvqa-2019", "lmms-eval", "vlmevalkit", "paper"):
        assert SCORERS[name]("", [""]) == 1.0
    for name in ("mmf", "pix2struct"):
        with pytest.raises(UndefinedScoreError, match="divides by zero") as exc:
            SCORERS[name]("", [""])
        assert isinstance(exc.value, ValueError)
    # MMF strips first: two blank strings divide by zero too
    with pytest.raises(UndefinedScoreError):
        anls_mmf("  ", [" "])
    # a non-empty answer in the list does not save MMF (every answer is scored)
    with pytest.raises(UndefinedScoreError):
        anls_mmf("", ["abc", ""])


def test_max_over_answers() -> None:
    # 1 − 1/8 for "12/15/88" against the typo; the exact answer wins
    assert anls_official("12/15/89", ["12/15/88"]) == 0.875
    assert anls_official("12/15/89", ["12/15/88", "12/15/89"]) == 1.0
    assert anls_mmf("12/15/89", ["zzzz", "12/15/88"]) == 0.875


def test_no_references_is_an_error() -> None:
    for scorer in SCORERS.values():
        with pytest.raises(ValueError, match="non-empty list"):
            scorer("a", [])


# --- Levenshtein ---------------------------------------------------------------------------


def _reference_distance(a: str, b: str) -> int:
    """The textbook full-matrix DP, independent of the implementation under test."""
    rows = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        rows[i][0] = i
    for j in range(len(b) + 1):
        rows[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
    return rows[len(a)][len(b)]


def test_levenshtein_known() -> None:
    assert levenshtein("kitten", "sitting") == 3
    assert levenshtein("", "abc") == 3
    assert levenshtein("flaw", "lawn") == 2
    assert levenshtein("ß", "ss") == 2  # code points, not case folding


TEXT = st.text(alphabet="abcß ", max_size=12)


@settings(max_examples=400, deadline=None)
@given(TEXT, TEXT, st.integers(min_value=0, max_value=8))
def test_levenshtein_matches_reference(a: str, b: str, bound: int) -> None:
    d = _reference_distance(a, b)
    assert levenshtein(a, b) == d
    assert levenshtein(b, a) == d
    assert levenshtein(a, b, bound) == (d if d <= bound else bound + 1)


# --- properties ----------------------------------------------------------------------------

ANY_TEXT = st.text(max_size=15)


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT, st.lists(ANY_TEXT, min_size=1, max_size=3))
def test_scores_are_in_unit_interval_and_thresholded(pred: str, answers: list[str]) -> None:
    for name, scorer in SCORERS.items():
        try:
            s = scorer(pred, answers)
        except UndefinedScoreError:
            assert name in ("mmf", "pix2struct")
            continue
        assert s == 0.0 or 0.5 <= s <= 1.0, name
        if name in ("pix2struct", "paper"):
            assert s != 0.5  # NL must be strictly below 0.5


@settings(max_examples=300, deadline=None)
@given(ANY_TEXT)
def test_identical_strings_score_one(text: str) -> None:
    for name, scorer in SCORERS.items():
        if name in ("mmf", "pix2struct") and not (
            text.lower().strip() if name == "mmf" else text.lower()
        ):
            continue  # the documented raise
        assert scorer(text, [text]) == 1.0, name


@settings(max_examples=200, deadline=None)
@given(ANY_TEXT, st.lists(ANY_TEXT, min_size=1, max_size=3))
def test_peer_identities(pred: str, answers: list[str]) -> None:
    # lmms-eval is the RRC formula on the stripped generation; VLMEvalKit is the RRC formula
    assert anls_lmms_eval(pred, answers) == anls_official(pred.strip(), answers)
    assert anls_vlmevalkit(pred, answers) == anls_official(pred, answers)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="abcXYZ .", max_size=12), st.text(alphabet="abcXYZ .", max_size=12))
def test_case_never_matters_on_ascii(pred: str, answer: str) -> None:
    for name, scorer in SCORERS.items():
        if name in ("mmf", "pix2struct") and not pred.strip() and not answer.strip():
            continue
        try:
            assert scorer(pred.upper(), [answer]) == scorer(pred.lower(), [answer]), name
        except UndefinedScoreError:
            assert name in ("mmf", "pix2struct")


# --- tasks, readers, validation ------------------------------------------------------------


def test_aliases() -> None:
    assert get_task("infovqa").name == "infographicvqa"
    assert get_task("InfographicsVQA").name == "infographicvqa"
    assert get_task("st-vqa").name == "stvqa"
    assert get_task("doc-vqa").name == "docvqa"
    for name in TASKS:
        profiles = [p.name for p in get_task(name).profiles]
        assert profiles == ["official", "lmms-eval", "vlmevalkit", "mmf", "pix2struct", "paper"]


def _write_gt(tmp: Path, data: list[dict[str, Any]], name: str = "gt.json") -> Path:
    path = tmp / name
    path.write_text(json.dumps({"dataset_name": "docvqa", "data": data}), encoding="utf-8")
    return path


GT = [
    {"questionId": 1, "question": "a", "answers": ["Denver Broncos"], "question_types": ["form"]},
    {
        "questionId": 2,
        "question": "b",
        "answers": ["12/15/88"],
        "question_types": ["form", "table"],
    },
    {"questionId": 3, "question": "c", "answers": ["abef"], "question_types": ["table"]},
]
SUB = [
    {"questionId": 1, "answer": "denver  broncos"},  # 1.0 after collapsing
    {"questionId": 2, "answer": "12/15/89"},  # 0.875
    {"questionId": 3, "answer": "abcd"},  # 0.5
]


def test_official_run_and_question_types(tmp_path: Path) -> None:
    gt = _write_gt(tmp_path, GT)
    r = evaluate_task("docvqa", SUB, annotations=gt)
    assert r.scores == [1.0, 0.875, 0.5]
    assert r.metrics["ANLS"] == (1.0 + 0.875 + 0.5) / 3
    types = r.aggregate.breakdowns["question_types"]
    assert types["form"] == {"ANLS": (1.0 + 0.875) / 2, "n": 2}
    assert types["table"] == {"ANLS": (0.875 + 0.5) / 2, "n": 2}
    assert r.signature.format().startswith("docvqa-anls|profile:official|toolkit:rrc-anls@")


def test_infographic_types_use_the_script_names_and_empty_types_do_not_crash(
    tmp_path: Path,
) -> None:
    data = [
        {
            "questionId": 7,
            "question": "q",
            "answers": ["12"],
            "answer_type": ["non span"],
            "evidence": ["figure", "textual"],
            "operation/reasoning": ["counting"],
        }
    ]
    gt = _write_gt(tmp_path, data)
    r = evaluate_task("infovqa", [{"questionId": 7, "answer": "12"}], annotations=gt)
    b = r.aggregate.breakdowns
    assert b["answer_type"] == {"None span": {"ANLS": 1.0, "n": 1}}
    assert set(b["evidence"]) == {"Figure", "Text"}
    assert b["operation/reasoning"] == {"Counting": {"ANLS": 1.0, "n": 1}}
    # the official -a would divide by zero for the types no question has: named, not raised
    assert any("Image-Span" in n and "divides by zero" in n for n in r.notes)


def test_ground_truth_without_dataset_name_is_scored_with_a_note(tmp_path: Path) -> None:
    gt = tmp_path / "bare.json"
    gt.write_text(json.dumps(GT), encoding="utf-8")  # a bare list: the script wants "data"
    r = evaluate_task("docvqa", SUB, annotations=gt)
    assert r.scores == [1.0, 0.875, 0.5]
    assert any("dataset_name" in n for n in r.notes)
    assert not evaluate_task("docvqa", SUB, annotations=_write_gt(tmp_path, GT)).notes


def test_types_only_when_the_ground_truth_has_them(tmp_path: Path) -> None:
    gt = _write_gt(tmp_path, [{k: v for k, v in q.items() if k != "question_types"} for q in GT])
    r = evaluate_task("docvqa", SUB, annotations=gt)
    assert r.aggregate.breakdowns == {}


@pytest.mark.parametrize(
    ("profile", "key", "value"),
    [
        ("lmms-eval", "anls", (1.0 + 0.875 + 0.5) / 3),
        # MMF and pix2struct do not collapse the double space: 1 edit over 15 characters
        ("mmf", "ANLS", ((1 - 1 / 15) + 0.875 + 0.5) / 3),
        ("paper", "ANLS", (1.0 + 0.875 + 0.0) / 3),  # NL = 0.5 dropped
        ("pix2struct", "anls", (100.0 * ((1 - 1 / 15) + 0.875 + 0.0)) / 3),
        ("vlmevalkit", "Overall", 100 * (1.0 + 0.875 + 0.5) / 3),
    ],
)
def test_profile_units(tmp_path: Path, profile: str, key: str, value: float) -> None:
    r = evaluate_task("docvqa", SUB, annotations=_write_gt(tmp_path, GT), profile=profile)
    assert r.metrics[key] == pytest.approx(value, rel=1e-15)
    assert r.aggregate.units == (
        "percent" if profile in ("pix2struct", "vlmevalkit") else "fraction"
    )


def test_cli_json_and_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gt = _write_gt(tmp_path, GT)
    sub = tmp_path / "sub.json"
    sub.write_text(json.dumps(SUB), encoding="utf-8")
    args = ["score", "docvqa", "--results", str(sub), "--annotations", str(gt)]
    assert main([*args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metrics"]["ANLS"] == (1.0 + 0.875 + 0.5) / 3  # unrounded: 0.7916666666666666
    assert out["breakdowns"]["question_types"]["table"]["n"] == 2
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "0.7917" in text  # the script's {:2.4f}


def _cli_error(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def test_validation_missing_extra_duplicate_list(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gt = str(_write_gt(tmp_path, GT))

    def run(sub: list[dict[str, Any]]) -> str:
        f = tmp_path / "sub.json"
        f.write_text(json.dumps(sub), encoding="utf-8")
        return _cli_error(["score", "docvqa", "--results", str(f), "--annotations", gt], capsys)

    assert "3" in run(SUB[:2]) and "no prediction" in run(SUB[:2])
    assert "99" in run([*SUB, {"questionId": 99, "answer": "x"}])
    assert "duplicate" in run([*SUB, SUB[0]])
    err = run([SUB[0], SUB[1], {"questionId": 3, "answer": ["a", "b"]}])
    assert "single string" in err and "item 3" in err


def test_bad_ground_truth(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sub = tmp_path / "sub.json"
    sub.write_text(json.dumps(SUB[:1]), encoding="utf-8")
    gt = _write_gt(tmp_path, [{"questionId": 1, "question": "q"}])
    err = _cli_error(["score", "docvqa", "--results", str(sub), "--annotations", str(gt)], capsys)
    assert "no 'answers'" in err and "question 1" in err
    gt = _write_gt(tmp_path, [{"questionId": 1, "answers": []}])
    assert "empty" in _cli_error(
        ["score", "docvqa", "--results", str(sub), "--annotations", str(gt)], capsys
    )
    gt = _write_gt(tmp_path, [{"id": 1, "answers": ["a"]}])
    assert "no questionId" in _cli_error(
        ["score", "docvqa", "--results", str(sub), "--annotations", str(gt)], capsys
    )
    err = _cli_error(["score", "docvqa", "--results", str(sub)], capsys)
    assert "--annotations" in err


def test_undefined_score_names_the_question(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gt = _write_gt(tmp_path, [{"questionId": 41, "answers": [""]}])
    sub = tmp_path / "sub.json"
    sub.write_text(json.dumps([{"questionId": 41, "answer": ""}]), encoding="utf-8")
    args = ["score", "docvqa", "--results", str(sub), "--annotations", str(gt)]
    err = _cli_error([*args, "--profile", "mmf"], capsys)
    assert "question 41" in err and "divides by zero" in err
    assert main([*args, "--json"]) == 0  # the RRC script gives 1.0
    assert json.loads(capsys.readouterr().out)["metrics"]["ANLS"] == 1.0


def test_unknown_profile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sub = tmp_path / "sub.json"
    sub.write_text(json.dumps(SUB), encoding="utf-8")
    err = _cli_error(["score", "stvqa", "--results", str(sub), "--profile", "nope"], capsys)
    assert "nope" in err and "pix2struct" in err


def test_vlmevalkit_tsv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "m_DocVQA_VAL.tsv"
    f.write_text(
        "index\tquestion\tanswer\tprediction\n"
        "0\tq\t['Denver Broncos', 'Broncos']\tbroncos\n"
        "1\tq\t['12/15/88']\t12/15/89 \n",
        encoding="utf-8",
    )
    r = evaluate_task("docvqa", f, profile="vlmevalkit")
    # "12/15/89 ": distance 1 over len("12/15/89 ") = 9 → 1 − 1/9 (VLMEvalKit does not strip)
    assert r.scores == [1.0, 1 - 1 / 9]
    assert r.metrics["Overall"] == (1.0 + (1 - 1 / 9)) / 2 * 100
    f.write_text("index\tquestion\tanswer\tprediction\n0\tq\t['a', 'b'\tx\n", encoding="utf-8")
    err = _cli_error(["score", "docvqa", "--results", str(f)], capsys)
    assert "row 2" in err and "list literal" in err
    f.write_text("index\tquestion\tanswer\tprediction\n0\tq\t['a']\ta\n", encoding="utf-8")
    r = evaluate_task("docvqa", f, annotations=f)  # its index is not a questionId: ignored
    assert r.scores == [1.0]
    assert any("--annotations ignored" in n for n in r.notes)


def test_lmms_eval_samples(tmp_path: Path) -> None:
    rows = [
        {
            "doc_id": i,
            "doc": {"questionId": 500 + i, "answers": answers, "question_types": ["form"]},
            "filtered_resps": [pred],
            "anls": None,
        }
        for i, (pred, answers) in enumerate([(" ab   ", ["ac"]), ("Dr. Lobo", ["Dr. Lobo"])])
    ]
    f = tmp_path / "samples_docvqa_val.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    r = evaluate_task("docvqa", f, profile="lmms-eval")
    assert [it.id for it in r.data.items] == [500, 501]
    assert r.scores == [0.5, 1.0]  # lmms-eval strips " ab   " to "ab": 1 − 1/2
    assert r.metrics["anls"] == 0.75
    assert evaluate_task("docvqa", f).scores == [1 - 1 / 6, 1.0]  # RRC: raw length 6
    # with the ground truth, records join by the doc's questionId (not doc_id)
    gt = _write_gt(tmp_path, [{"questionId": 501, "answers": ["x"]}])
    r = evaluate_task("docvqa", f, annotations=gt, ignore_extra=True)
    assert [(it.id, it.prediction) for it in r.data.items] == [(501, "Dr. Lobo")]


def test_docvqa_val_size_work_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole DocVQA val size is scored with at most one edit distance per (prediction,
    answer) pair, each bounded by the threshold, so a long wrong sentence stops early
    (``benchmarks/bench_tasks.py`` measures the time)."""
    import importlib

    kernel = importlib.import_module("vqametrics.kernels.anls")
    bounds: list[int | None] = []
    distance = kernel._distance  # the scorers' one edit-distance call (rapidfuzz, cut off)

    def spy(a: str, b: str, bound: int | None) -> int:
        bounds.append(bound)
        result: int = distance(a, b, bound)
        return result

    monkeypatch.setattr(kernel, "_distance", spy)
    gt, sub = synthetic_docvqa(tmp_path)
    r = evaluate_task("docvqa", sub, annotations=gt)
    assert len(r.scores) == N_DOCVQA_VAL
    pairs = sum(len(q["answers"]) for q in json.loads(gt.read_text(encoding="utf-8"))["data"])
    assert 0 < len(bounds) <= pairs
    assert None not in bounds


def test_per_item_shows_each_answers_score(tmp_path: Path) -> None:
    gt = _write_gt(tmp_path, [{"questionId": 1, "answers": ["Dear Dr. Lobo", "Dr. Lobo"]}])
    sub = [{"questionId": 1, "answer": "Dr Lobo"}]
    (rec,) = evaluate_task("docvqa", sub, annotations=gt).per_item()
    # 6 edits / 13 characters → 0.538…; 1 edit / 8 characters → 0.875 (the item's score)
    assert rec["answer_scores"] == [1 - 6 / 13, 0.875]
    assert rec["score"] == 0.875
    out = tmp_path / "out"
    gt_args = ["--annotations", str(gt)]
    f = tmp_path / "sub.json"
    f.write_text(json.dumps(sub), encoding="utf-8")
    assert main(["score", "docvqa", "--results", str(f), *gt_args, "--out", str(out)]) == 0
    line = json.loads((out / "per_item.jsonl").read_text(encoding="utf-8"))
    assert line["answer_scores"] == [1 - 6 / 13, 0.875]


def _rrc_gt(tmp_path: Path, first: str) -> Path:
    data = [
        {"questionId": 10, "question": "q", "answers": [first]},
        {"questionId": 11, "question": "q", "answers": ["hello world"]},
        {"questionId": 12, "question": "q", "answers": ["42"]},
    ]
    path = tmp_path / f"gt_{first}.json"
    path.write_text(json.dumps({"dataset_name": "docvqa", "data": data}))
    return path


def test_lmms_eval_log_without_doc_is_joined_by_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 11: a log with only doc_id is joined to --annotations by position, and said.
    # Hand-derived ANLS: 'abc'/'abc' 1; 'hello wrld'/'hello world' 1 - 1/11; 'xyz'/'42' 0
    gt = _rrc_gt(tmp_path, "abc")
    rows = [(2, "xyz"), (0, "abc"), (1, "hello wrld")]
    log = tmp_path / "x_samples_docvqa_val.jsonl"
    log.write_text(
        "".join(json.dumps({"doc_id": i, "filtered_resps": [p]}) + "\n" for i, p in rows)
    )
    assert main(["score", "docvqa", "--results", str(log), "--annotations", str(gt), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["metrics"]["ANLS"] == pytest.approx((1 + 10 / 11 + 0) / 3)
    assert any("BY POSITION" in n for n in payload["notes"])


def test_lmms_eval_doc_ground_truth_that_differs_from_the_annotations_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # given both ground truths the annotations win (question 10: 'xyz', so 'abc' scores 0)
    # and the question whose logged doc.answers differ is counted in a note
    gt = _rrc_gt(tmp_path, "xyz")
    docs = json.loads(_rrc_gt(tmp_path, "abc").read_text())["data"]
    log = tmp_path / "x_samples_docvqa_val.jsonl"
    log.write_text(
        "".join(
            json.dumps({"doc_id": i, "doc": d, "filtered_resps": [d["answers"][0]]}) + "\n"
            for i, d in enumerate(docs)
        )
    )
    assert main(["score", "docvqa", "--results", str(log), "--annotations", str(gt), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["metrics"]["ANLS"] == pytest.approx(2 / 3)
    assert any(
        n.startswith("1 ground truth(s)") and "differ from" in n and "10" in n
        for n in payload["notes"]
    )
