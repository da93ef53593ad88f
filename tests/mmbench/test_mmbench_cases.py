"""Every case of mmbench-cases.json (spec mmbench.md §5).

The expected values were produced by running the reference code (VLMEvalKit e8e78f05, c3371551,
c026693a; lmms-eval 75571cfe) with a scripted fake judge. ``tests/data/mmbench/mmbench-cases.json``
is a verbatim copy of ``shared/spec/mmbench-cases.json``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from vqametrics import evaluate_mmbench
from vqametrics.mmbench import (
    MMBenchRow,
    circular_copies,
    explain_choice,
    extract_choice,
    resolve_choice,
)

CASES_PATH = Path(__file__).resolve().parents[1] / "data" / "mmbench" / "mmbench-cases.json"
CASES: list[dict[str, Any]] = json.loads(CASES_PATH.read_text("utf-8"))

# Case-file lineage labels -> our extractor names (spec §0).
LINEAGES = {
    "vlmevalkit_head (e8e78f05)": "vlmevalkit",
    "vlmevalkit_2025-08..2026-06 (c3371551)": "vlmevalkit-2025",
    "vlmevalkit_2023-12..2025-07 (c026693a)": "vlmevalkit-2024",
    "lmms-eval/opencompass-2023 gen1 (75571cfe)": "lmms-eval",
}


def of_kind(kind: str) -> list[dict[str, Any]]:
    return [c for c in CASES if c["kind"] == kind]


def test_case_counts_match_the_spec_table() -> None:
    counts = {k: len(of_kind(k)) for k in {c["kind"] for c in CASES}}
    assert counts == {
        "extract": 30,
        "extract_env": 2,
        "llm_fallback": 6,
        "circular_build": 3,
        "circular_group": 10,
        "aggregate": 1,
    }


class ScriptedJudge:
    """Replies from a script, in order; counts calls. Running out is a test failure."""

    def __init__(self, replies: Sequence[str] | None) -> None:
        self.replies = list(replies or [])
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        assert len(self.prompts) <= len(self.replies), "judge called more often than scripted"
        return self.replies[len(self.prompts) - 1]

    @property
    def calls(self) -> int:
        return len(self.prompts)


# --- extract ----------------------------------------------------------------------------------

EXTRACT = [
    pytest.param(c, id=f"x{i}-{c['note'].split(' |')[0]}") for i, c in enumerate(of_kind("extract"))
]


@pytest.mark.parametrize("case", EXTRACT)
def test_extract_head_letter_and_stage(case: dict[str, Any]) -> None:
    res = explain_choice(case["input"]["prediction"], case["input"]["choices"])
    assert (res.letter, res.stage) == (case["expected"]["letter"], case["expected"]["stage"])


@pytest.mark.parametrize("case", EXTRACT)
@pytest.mark.parametrize("label", list(LINEAGES))
def test_extract_every_lineage(case: dict[str, Any], label: str) -> None:
    got = extract_choice(case["input"]["prediction"], case["input"]["choices"], LINEAGES[label])
    assert got == case["expected"]["by_version"][label]


@pytest.mark.parametrize("case", EXTRACT)
def test_extract_never_mutates_choices(case: dict[str, Any]) -> None:
    # The reference lower-cases the choices dict in place; we must not.
    choices = dict(case["input"]["choices"])
    before = dict(choices)
    for name in LINEAGES.values():
        extract_choice(case["input"]["prediction"], choices, name)
    assert choices == before


# --- extract_env: the VERBOSE dependence is documented, not copied -----------------------------


@pytest.mark.parametrize("verbose", [None, "0", "1"])
def test_verbose_environment_is_ignored(
    verbose: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    unset_case, set_case = of_kind("extract_env")
    assert unset_case["input"]["env"] == {"VERBOSE": None}
    assert set_case["input"]["env"] == {"VERBOSE": "0"}
    # The reference gives A with VERBOSE unset and None with VERBOSE="0"; we always give the
    # VERBOSE-unset answer, whatever the environment says.
    assert set_case["expected"]["letter"] is None
    if verbose is None:
        monkeypatch.delenv("VERBOSE", raising=False)
    else:
        monkeypatch.setenv("VERBOSE", verbose)
    for name in ("vlmevalkit", "vlmevalkit-2025", "vlmevalkit-2024"):
        got = extract_choice(
            unset_case["input"]["prediction"], unset_case["input"]["choices"], name
        )
        assert got == unset_case["expected"]["letter"] == "A"


def test_verbose_note_is_in_the_docstrings() -> None:
    assert "VERBOSE" in (explain_choice.__doc__ or "")
    assert "VERBOSE" in (evaluate_mmbench.__doc__ or "")


# --- llm_fallback -----------------------------------------------------------------------------

FALLBACK = [pytest.param(c, id=f"j{i}") for i, c in enumerate(of_kind("llm_fallback"))]


@pytest.mark.parametrize("case", FALLBACK)
def test_llm_fallback(case: dict[str, Any]) -> None:
    inp, exp = case["input"], case["expected"]
    judge = ScriptedJudge(inp["judge_replies"]) if inp["judge_replies"] is not None else None
    if exp["letter"] == "RANDOM":
        support = set(exp["random_support"])
        seen = set()
        for seed in range(200):
            judge = ScriptedJudge(inp["judge_replies"])
            res = resolve_choice(
                inp["prediction"],
                inp["choices"],
                question=inp["question"],
                judge=judge,
                rng=random.Random(seed),
            )
            assert res.stage == "random_fallback"
            assert judge.calls == res.judge_calls == exp["judge_calls"]
            seen.add(res.letter)
        assert seen == support  # uniform over 5 letters: 200 draws miss one with p < 1e-18
        # Without a random generator we never guess: the row stays unparsed (a miss).
        judge = ScriptedJudge(inp["judge_replies"])
        res = resolve_choice(
            inp["prediction"], inp["choices"], question=inp["question"], judge=judge
        )
        assert (res.letter, res.stage, res.judge_calls) == (None, "judge_failed", 3)
        return
    res = resolve_choice(inp["prediction"], inp["choices"], question=inp["question"], judge=judge)
    assert res.judge_calls == exp["judge_calls"]
    if judge is None:
        # The reference writes Z (a miss); we report "unparsed" (None), which scores the same.
        assert exp["letter"] == "Z"
        assert (res.letter, res.stage) == (None, "none")
    else:
        assert judge.calls == exp["judge_calls"]
        assert res.letter == exp["letter"]
        assert res.stage == "judge"


def test_judge_prompt_holds_question_options_and_answer() -> None:
    case = of_kind("llm_fallback")[0]["input"]
    judge = ScriptedJudge(["B"])
    resolve_choice(case["prediction"], case["choices"], question=case["question"], judge=judge)
    (prompt,) = judge.prompts
    assert case["question"] in prompt and case["prediction"] in prompt
    for letter, text in case["choices"].items():
        assert f"{letter}. {text}" in prompt
    assert "A, B, C, D, Z" in prompt


def test_judge_prompt_uses_chinese_template_for_cjk_question() -> None:
    judge = ScriptedJudge(["A"])
    resolve_choice("不确定", {"A": "猫", "B": "狗"}, question="图中是什么动物？", judge=judge)
    assert "问题" in judge.prompts[0] and "选项" in judge.prompts[0]


def test_random_support_two_options_and_gen1() -> None:
    # Spec §3.1 step 4: 3 outcomes for a 2-option item (VLMEvalKit); gen1 counts the A-D
    # columns that exist (4 here), so a 2-option item draws from A-E.
    failing = ["Failed to obtain answer via API"] * 3
    seen_head, seen_gen1 = set(), set()
    for seed in range(300):
        res = resolve_choice(
            "hmm", {"A": "yes", "B": "no"}, judge=ScriptedJudge(failing), rng=random.Random(seed)
        )
        seen_head.add(res.letter)
        res = resolve_choice(
            "hmm",
            {"A": "yes", "B": "no"},
            extractor="lmms-eval",
            judge=ScriptedJudge(failing),
            rng=random.Random(seed),
            n_columns=4,
        )
        seen_gen1.add(res.letter)
    assert seen_head == {"A", "B", "Z"}
    assert seen_gen1 == {"A", "B", "C", "D", "E"}


# --- circular_build ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "case", [pytest.param(c, id=f"b{i}") for i, c in enumerate(of_kind("circular_build"))]
)
def test_circular_build(case: dict[str, Any]) -> None:
    inp = case["input"]
    copies = circular_copies(inp["options"], inp["answer"], inp["g_index"])
    got = [
        {"index_offset": c.index - inp["g_index"], "options": dict(c.options), "answer": c.answer}
        for c in copies
    ]
    assert got == case["expected"]["passes"]


# --- circular_group ---------------------------------------------------------------------------


def rows_of(case_rows: list[dict[str, Any]]) -> list[MMBenchRow]:
    return [
        MMBenchRow(
            index=r["index"],
            options=r["options"],
            answer=r["answer"],
            question="What is in the image?",
            category=r.get("category", ""),
            l2_category=r.get("l2_category", ""),
            split=r.get("split", ""),
        )
        for r in case_rows
    ]


def predictions_of(case_rows: list[dict[str, Any]], missing: Sequence[int] = ()) -> dict[int, str]:
    return {r["index"]: r["prediction"] for r in case_rows if r["index"] not in missing}


GROUPS = [
    pytest.param(c, id=f"g{c['input']['rows'][0]['index']}") for c in of_kind("circular_group")
]


@pytest.mark.parametrize("case", GROUPS)
def test_circular_group_reference_compatible(case: dict[str, Any]) -> None:
    inp, exp = case["input"], case["expected"]
    judge = ScriptedJudge(inp["judge_replies"]) if inp["judge_replies"] is not None else None
    result = evaluate_mmbench(
        rows_of(inp["rows"]),
        predictions_of(inp["rows"], inp["missing_rows"]),
        reference_compatible=True,
        judge=judge,
    )
    assert {str(q.index): q.hit for q in result.questions} == exp["hits"]
    if "judge_calls" in exp:
        assert judge is not None and judge.calls == exp["judge_calls"]
        assert result.counts["judge_calls"] == exp["judge_calls"]


@pytest.mark.parametrize("case", GROUPS)
def test_circular_group_strict(case: dict[str, Any]) -> None:
    # Strict mode differs from the reference only for a missing copy (spec §2 recommendation):
    # the group is a miss and counted as incomplete.
    inp, exp = case["input"], case["expected"]
    judge = ScriptedJudge(inp["judge_replies"]) if inp["judge_replies"] is not None else None
    result = evaluate_mmbench(
        rows_of(inp["rows"]), predictions_of(inp["rows"], inp["missing_rows"]), judge=judge
    )
    expected = dict(exp["hits"])
    if inp["missing_rows"]:
        expected = dict.fromkeys(expected, 0)
    assert {str(q.index): q.hit for q in result.questions} == expected
    assert result.counts["incomplete"] == (1 if inp["missing_rows"] else 0)


def test_only_unparsed_rows_go_to_the_judge() -> None:
    # Spec §2 step 5 (G6): group 5 of the case file has one unparsed pass ("I am not sure.",
    # answer B) and three right ones; with a judge replying "B" it passes after exactly 1 call.
    (case,) = [c for c in of_kind("circular_group") if c["input"]["rows"][0]["index"] == 5]
    rows = case["input"]["rows"]
    judge = ScriptedJudge(["B"])
    result = evaluate_mmbench(rows_of(rows), predictions_of(rows), judge=judge)
    assert [q.hit for q in result.questions] == [1]
    assert judge.calls == 1 and "I am not sure." in judge.prompts[0]
    assert [p.stage for p in result.questions[0].passes] == ["option_letter"] * 3 + ["judge"]
    # a judge reply naming the wrong letter fails the group after that one call
    judge = ScriptedJudge(["C"])
    result = evaluate_mmbench(rows_of(rows), predictions_of(rows), judge=judge)
    assert [q.hit for q in result.questions] == [0] and judge.calls == 1


def test_missing_copy_is_reported_per_pass() -> None:
    (case,) = [c for c in of_kind("circular_group") if c["input"]["missing_rows"]]
    inp = case["input"]
    result = evaluate_mmbench(
        rows_of(inp["rows"]), predictions_of(inp["rows"], inp["missing_rows"])
    )
    (q,) = result.questions
    assert not q.complete
    assert [p.stage for p in q.passes][-1] == "missing"
    assert q.passes[-1].index == inp["missing_rows"][0]


def test_missing_pass0_drops_question_only_in_reference_mode() -> None:
    # Spec §2 table (G12): the reference silently drops a question whose pass-0 row has no
    # prediction (the denominator shrinks); strict mode keeps it as an incomplete miss.
    # Rows from the case file: group 1 (all passes right) and group 10 (3 options, all right).
    groups = {c["input"]["rows"][0]["index"]: c["input"]["rows"] for c in of_kind("circular_group")}
    rows = groups[1] + groups[10]
    preds = predictions_of(rows, [1])
    ref = evaluate_mmbench(rows_of(rows), preds, reference_compatible=True)
    strict = evaluate_mmbench(rows_of(rows), preds)
    assert {q.index: q.hit for q in ref.questions} == {10: 1}
    assert (ref.counts["dropped"], ref.counts["questions"], ref.score) == (1, 1, 1.0)
    assert {q.index: q.hit for q in strict.questions} == {1: 0, 10: 1}
    assert (strict.counts["incomplete"], strict.counts["questions"], strict.score) == (1, 2, 0.5)


# --- aggregate --------------------------------------------------------------------------------


def approx_row(row: dict[str, Any]) -> dict[str, Any]:
    return {
        k: (v if v is None or isinstance(v, str) else pytest.approx(v, abs=5e-7))
        for k, v in row.items()
    }


@pytest.mark.parametrize("reference_compatible", [False, True])
def test_aggregate(reference_compatible: bool) -> None:
    (case,) = of_kind("aggregate")
    rows, exp = case["input"]["rows"], case["expected"]
    circ = evaluate_mmbench(
        rows_of(rows), predictions_of(rows), reference_compatible=reference_compatible
    )
    assert {str(q.index): q.hit for q in circ.questions} == exp["circular_hits"]
    (table,) = circ.tables["circular"]
    assert table == approx_row(exp["circular"])
    assert list(table) == list(exp["circular"])  # the reference's column order
    van = evaluate_mmbench(
        rows_of(rows),
        predictions_of(rows),
        mode="vanilla",
        reference_compatible=reference_compatible,
    )
    (all_rows,) = van.tables["vanilla_all"]
    (pass0,) = van.tables["vanilla_pass0"]
    assert all_rows == approx_row(exp["vanilla_all_rows"])
    assert pass0 == approx_row(exp["vanilla_pass0"])
    # Spec §2 worked example: circular 4/6, vanilla all rows 15/17, vanilla pass 0 6/6.
    assert circ.score == pytest.approx(4 / 6)
    assert van.score == 1.0
    assert van.table_counts["vanilla_all"][0]["Overall"] == 17


def test_aggregate_per_split() -> None:
    # Same rows, questions 104-106 moved to split "test": the report gets one row per split,
    # each a plain mean over its own questions, and NaN (None) where an ability is absent.
    (case,) = of_kind("aggregate")
    rows = [dict(r) for r in case["input"]["rows"]]
    for r in rows:
        if r["index"] % 1_000_000 in (104, 105, 106):
            r["split"] = "test"
    result = evaluate_mmbench(rows_of(rows), predictions_of(rows))
    dev, test = result.tables["circular"]
    # dev: 101 (1), 102 (0), 103 (1) -> 2/3; all FP-S; CP absent.
    assert dev == approx_row(
        {
            "split": "dev",
            "Overall": 2 / 3,
            "CP": None,
            "FP-S": 2 / 3,
            "attribute_recognition": 1.0,
            "image_scene": None,
            "object_localization": 0.5,
        }
    )
    # test: 104 (1), 105 (0), 106 (1) -> 2/3; all CP / image_scene.
    assert test == approx_row(
        {
            "split": "test",
            "Overall": 2 / 3,
            "CP": 2 / 3,
            "FP-S": None,
            "attribute_recognition": None,
            "image_scene": 2 / 3,
            "object_localization": None,
        }
    )
