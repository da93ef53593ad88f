"""Diagnostics count verbose predictions and never change a score; ``--extract answer`` on the
bundled sample wrapped in chat templates comes back within 1 point of the plain answers."""

from __future__ import annotations

import json
from importlib import resources

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vqametrics.extract import REASONS, diagnose, verbose_reasons
from vqametrics.tasks.vqav2 import evaluate_vqa

from .chat_templates import wrap

SAMPLE = resources.files("vqametrics") / "data" / "vqa2_val_sample"


@pytest.mark.parametrize(
    ("text", "reasons"),
    [
        ("2", ()),
        ("red car", ()),
        ("living room", ()),
        ("The answer is 2.", ("answer_marker", "sentences")),
        ("**Yes**", ("markdown",)),
        ("<think>x</think> blue", ("reasoning_block",)),
        ("Yes, there is a dog in the picture.", ("sentences", "long")),
        ("It is red.", ("sentences",)),
        ("red\nbecause", ("sentences",)),
        ("one two three four five six", ("long",)),
        ("\\boxed{3}", ("answer_marker",)),
    ],
)
def test_reasons(text: str, reasons: tuple[str, ...]) -> None:
    assert verbose_reasons(text) == reasons
    assert set(reasons) <= set(REASONS)


def test_counts_flags_examples() -> None:
    d = diagnose(["2", None, "The answer is 2.", "**Yes**", "The answer is 2."])
    assert (d.n, d.verbose) == (4, 3)
    assert d.flags[0] == () and d.flags[1] is None and d.flags[3] == ("markdown",)
    assert d.reasons["answer_marker"] == 2
    assert [e[0] for e in d.examples] == [2, 3, 4]
    assert d.as_dict()["verbose_predictions"] == 3
    assert d.warning() is not None and d.warning().startswith("warning: 3 of 4 predictions")
    assert diagnose(["a", "b"]).warning() is None


def test_per_item_word_limit() -> None:
    title = "The Lord of the Rings and the Return of the King"
    assert diagnose([title]).verbose == 1
    assert diagnose([title], max_words=[30]).verbose == 0
    with pytest.raises(ValueError, match="one per prediction"):
        diagnose([title], max_words=[1, 2])


def _sample() -> tuple[list[dict[str, object]], str]:
    plain = json.loads((SAMPLE / "results_majority.json").read_text())
    return plain, str(SAMPLE / "annotations.json")


def test_wrapped_sample_is_diagnosed_and_extracted() -> None:
    plain, ann = _sample()
    wrapped = {r["question_id"]: wrap(str(r["answer"]), i) for i, r in enumerate(plain)}
    base = evaluate_vqa(ann, {r["question_id"]: r["answer"] for r in plain})
    raw = evaluate_vqa(ann, wrapped)
    assert raw.accuracy["overall"] < base.accuracy["overall"] - 20  # the faithful, useless score
    diag = diagnose(raw.predictions)
    # every wrapped answer is seen as verbose except the quoted short answers (no sign)
    quoted = sum(1 for t in wrapped.values() if t.startswith('"') and len(t.split()) <= 5)
    assert diag.verbose == len(wrapped) - quoted
    fixed = evaluate_vqa(ann, wrapped, extract="answer")
    assert abs(fixed.accuracy["overall"] - base.accuracy["overall"]) <= 1.0
    assert "extract:answer" in fixed.signature.format()
    assert "extract" not in raw.signature.format()


def test_diagnostics_never_change_a_score() -> None:
    from vqametrics.pipeline.vqa import score_dataset

    plain, ann = _sample()
    wrapped = {r["question_id"]: wrap(str(r["answer"]), i) for i, r in enumerate(plain)}
    a = evaluate_vqa(ann, wrapped)
    assert a.diagnostics.verbose > 0
    # score_dataset scores the same aligned predictions without any diagnostics
    assert a.scores == score_dataset(a.dataset, a.predictions)


@given(st.lists(st.one_of(st.none(), st.text(max_size=40)), max_size=30))
def test_diagnose_is_total_and_consistent(preds: list[str | None]) -> None:
    d = diagnose(preds)
    assert d.n == sum(p is not None for p in preds)
    assert d.verbose == sum(1 for f in d.flags if f)
    assert [f is None for f in d.flags] == [p is None for p in preds]
    for f, p in zip(d.flags, preds, strict=True):
        if p is not None:
            assert f == verbose_reasons(p)
