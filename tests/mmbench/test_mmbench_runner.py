"""MMBench through the one task runner: rows are the items, CircularEval their aggregation.

Expected values are derived by hand from the synthetic rows below (spec mmbench.md §1-§2:
copy k of question g has index g + k·1e6, options rotated left by k).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vqametrics
from vqametrics import evaluate_mmbench
from vqametrics.core.exceptions import InputError
from vqametrics.mmbench import MMBenchData, MMBenchRow, Predictions
from vqametrics.tasks import TaskInputs, get_task

OPTS = {"A": "cat", "B": "dog", "C": "horse"}
# question 1 (answer B) and question 2 (answer A), each with its three rotations
ROWS = (
    MMBenchRow(1, {"A": "cat", "B": "dog", "C": "horse"}, "B", category="c1", split="dev"),
    MMBenchRow(1000001, {"A": "dog", "B": "horse", "C": "cat"}, "A", category="c1", split="dev"),
    MMBenchRow(2000001, {"A": "horse", "B": "cat", "C": "dog"}, "C", category="c1", split="dev"),
    MMBenchRow(2, {"A": "red", "B": "blue", "C": "green"}, "A", category="c2", split="dev"),
    MMBenchRow(1000002, {"A": "blue", "B": "green", "C": "red"}, "C", category="c2", split="dev"),
    MMBenchRow(2000002, {"A": "green", "B": "red", "C": "blue"}, "B", category="c2", split="dev"),
)
DATA = MMBenchData(ROWS, "<rows>")


def _run(preds: dict[int, str | None], **options: object) -> vqametrics.TaskEvaluation:
    return vqametrics.evaluate("mmbench", Predictions(preds), annotations=DATA, **options)


def test_rows_are_scored_and_questions_reported() -> None:
    # question 1: every pass right; question 2: pass 2 says A (red there is B) -> a miss
    preds = {1: "B", 1000001: "A", 2000001: "C", 2: "A", 1000002: "C", 2000002: "A"}
    ev = _run(preds)
    assert [(it.id, s) for it, s in zip(ev.data.items, ev.scores, strict=True)] == [
        (1, 1.0),
        (2, 0.0),
    ]
    assert ev.metrics["Overall"] == 0.5
    assert ev.aggregate.breakdowns["category"] == {
        "c1": {"accuracy": 1.0, "n": 1},
        "c2": {"accuracy": 0.0, "n": 1},
    }
    assert ev.signature.format().startswith(
        "mmbench|profile:vlmevalkit|mode:circular|extractor:vlmevalkit|strict:yes|judge:no|n:2|"
    )
    # one run, one signature (docs/mmbench.md's example), whichever entry point scored it
    direct = evaluate_mmbench(DATA, preds)
    assert direct.score == 0.5
    assert direct.signature.startswith(
        "mmbench|profile:vlmevalkit|mode:circular|extractor:vlmevalkit|strict:yes|judge:no|n:2|"
    )


def test_vanilla_counts_pass_zero_rows() -> None:
    # the position-biased model: 'A' everywhere is right only on row 2 and copy 1000001
    preds = {i.index: "A" for i in ROWS}
    ev = _run(preds, mode="vanilla")
    assert [it.id for it in ev.data.items] == [1, 2]
    assert ev.scores == [0.0, 1.0] and ev.metrics["Overall"] == 0.5
    res = evaluate_mmbench(DATA, preds, mode="vanilla")
    assert res.tables["vanilla_all"][0]["Overall"] == 2 / 6


def test_a_duplicated_index_is_an_error_unless_the_last_is_kept(tmp_path: Path) -> None:
    data = tmp_path / "d.tsv"
    lines = ["index\tquestion\tA\tB\tanswer"]
    lines += ["1\tq\tcat\tdog\tA", "1000001\tq\tdog\tcat\tB"]
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    preds = tmp_path / "p.jsonl"
    rows = [(1, "B"), (1000001, "B"), (1, "A")]  # the last answer of row 1 is right
    preds.write_text("".join(json.dumps({"index": i, "prediction": p}) + "\n" for i, p in rows))
    with pytest.raises(InputError, match=r"line 3 \(index 1\): duplicate index"):
        vqametrics.evaluate("mmbench", str(preds), annotations=str(data))
    ev = vqametrics.evaluate("mmbench", str(preds), annotations=str(data), on_duplicate="last")
    assert ev.scores == [1.0] and ev.data.n_duplicates == 1


def test_an_empty_cell_is_scored_as_the_reference_reads_it() -> None:
    # spec §2: an empty cell is "" (strict: unparsed, a miss) or str(NaN) = "nan" (the
    # reference), which the option-text stage matches to an option 'NaN'
    rows = (
        MMBenchRow(1, {"A": "NaN", "B": "0.0"}, "A"),
        MMBenchRow(1000001, {"A": "0.0", "B": "NaN"}, "B"),
    )
    data = MMBenchData(rows)
    strict = vqametrics.evaluate("mmbench", Predictions({1: None, 1000001: "B"}), annotations=data)
    assert strict.scores == [0.0] and strict.data.n_missing == 0
    ref = vqametrics.evaluate(
        "mmbench",
        Predictions({1: None, 1000001: "B"}),
        annotations=data,
        reference_compatible=True,
    )
    assert ref.scores == [1.0]


def test_the_judge_is_a_stage_of_the_runner() -> None:
    # spec §2 step 5: only the unparsed pass goes to the judge; its letter decides the group
    preds = {1: "B", 1000001: "the first one", 2000001: "C", 2: "A", 1000002: "C", 2000002: "B"}
    calls: list[str] = []

    def judge(prompt: str) -> str:
        calls.append(prompt)
        return "A"

    ev = _run(preds, choice_judge=judge, judge_name="fake")
    assert ev.scores == [1.0, 1.0] and len(calls) == 1
    assert "|judge:fake|" in ev.signature.format()
    assert _run(preds).scores == [0.0, 1.0]  # no judge: the unparsed pass is a miss


def test_parse_choice_reads_with_the_profile_lineage() -> None:
    # spec §3.2: HEAD reads the option text 'dog'; the 2024 lineage reads the article 'A'
    choices = {"A": "teddy bear", "B": "rabbit", "C": "cat", "D": "dog"}
    text = "A dog is lying on the sofa."
    assert vqametrics.parse_choice(text, choices, task="mmbench") == "D"
    assert vqametrics.parse_choice(text, choices, task="mmbench", profile="vlmevalkit-2024") == "A"


_TEXTS = st.sampled_from(["A", "B", "C", "The answer is B.", "dog", "none", "", "A or B", "Z"])


@settings(max_examples=60, deadline=None)
@given(st.lists(_TEXTS, min_size=6, max_size=6), st.sampled_from(["circular", "vanilla"]))
def test_score_batch_equals_the_per_row_scorer_without_a_judge(texts: list[str], mode: str) -> None:
    """Without judge or random fallback, score_batch is the per-row scorer bit for bit."""
    task = get_task("mmbench")
    preds = {row.index: t for row, t in zip(ROWS, texts, strict=True)}
    for prof in task.profiles:
        data = task.read(TaskInputs(Predictions(preds), DATA, options={"mode": mode}))
        assert prof.score_batch is not None
        batch = prof.score_batch(data.items, data)
        assert batch == [prof.score_item(it) for it in data.items], prof.name
