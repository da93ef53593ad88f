"""Differential tests: the optimized normalizer, scorer, aggregates and writers against a literal
implementation of the spec (``tests/reference/``), on hypothesis-generated messy input.

Everything must agree exactly: strings equal, floats bit-equal (compared with ``float.hex``).
The bulk scorer (``score/_fast.py``) only runs from 2,000 questions on; these tests lower that
threshold so that both the bulk path and the per-question loop are checked on small inputs.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference import official_vqa as ref
from vqametrics.aggregate import breakdown, official_outputs
from vqametrics.core.answers import answer_codes
from vqametrics.kernels import _fast
from vqametrics.kernels.question import QuestionNormalizer
from vqametrics.pipeline.vqa import score_dataset
from vqametrics.pipeline.vqa_outputs import write_vqa_outputs
from vqametrics.profiles import get_profile, list_profiles
from vqametrics.readers import _bulk
from vqametrics.readers.vqa import as_dataset, load_annotations, load_results
from vqametrics.tasks.vqav2 import evaluate_vqa

# Pieces that exercise every rule of spec §3: punctuation (spaced or not), the comma trigger,
# periods around digits, number words, articles, contractions, case, whitespace, non-ASCII.
_PIECES = [
    "yes", "Yes", "no", "NO", "a", "an", "the", "The", "two", "Two", "none", "zero", "ten",
    "eleven", "dont", "Dont", "doesnt", "im", "ive", "somebody'd", "let's", "dog", "dogs",
    "t-shirt", "red", "white", "1", "2", "3.5", "1,000", "2.", ".5", "e.g.", "a.m.", "st.",
    "4:30", "$5", "5%", "#1", "&", "50+", "1/2", "café", "ＹＥＳ", "٣,٥", "İstanbul", "x" * 3,
]  # fmt: skip
_PUNCT = [*";/[]\"{}()=+\\_-><@`,?!.'", " ", "  ", "\n", "\t", " .", ". ", ", "]

messy = st.lists(
    st.one_of(st.sampled_from(_PIECES), st.sampled_from(_PUNCT), st.text(max_size=3)),
    max_size=6,
).map("".join)
# strings from a small pool, so that answers and predictions often match
pooled = st.sampled_from(["yes", "Yes.", "dog", "a dog", "two", "2", "none", "0", " yes\n"])
answer_text = st.one_of(pooled, pooled, messy)


@settings(max_examples=400, deadline=None)
@given(messy)
def test_normalization_matches_reference(text: str) -> None:
    prof = get_profile("official")
    assert prof.normalize(text, "answer") == ref.process_digit_article(
        ref.process_punctuation(ref.cleanup(text))
    )
    p17 = get_profile("official-2017")
    assert p17.normalize(text, "prediction") == ref.process_digit_article(
        ref.process_punctuation(ref.cleanup(text))
    )
    assert p17.normalize(text, "answer") == ref.process_punctuation(text)


def _record(texts: list[str], ids: str, qid: int, qtype: str, atype: str) -> dict[str, Any]:
    answers: list[dict[str, Any]] = []
    for i, t in enumerate(texts):
        a: dict[str, Any] = {"answer": t, "answer_confidence": "yes"}
        if ids == "distinct":
            a["answer_id"] = i + 1
        elif ids == "some-equal":
            a["answer_id"] = i // 2
        answers.append(a)
    return {"question_id": qid, "answers": answers, "question_type": qtype, "answer_type": atype}


question = st.tuples(
    st.one_of(
        st.lists(answer_text, min_size=10, max_size=10),
        st.lists(answer_text, min_size=1, max_size=12),
        st.builds(lambda t: [t] * 10, answer_text),
    ),
    st.sampled_from(["distinct", "distinct", "distinct", "none", "some-equal"]),
    st.one_of(answer_text, st.none()),
    st.sampled_from(["what is", "how many", "is the"]),
    st.sampled_from(["other", "number", "yes/no"]),
)


@contextmanager
def bulk_threshold(n: int) -> Iterator[None]:
    """Run the bulk scorer from *n* questions on (0: always; huge: never)."""
    old = _fast.MIN_QUESTIONS
    _fast.MIN_QUESTIONS = n
    try:
        yield
    finally:
        _fast.MIN_QUESTIONS = old


def _build(rows: list[Any]) -> tuple[list[dict[str, Any]], list[str | None]]:
    records = [
        _record(texts, ids, 1000 + q, qt, at) for q, (texts, ids, _, qt, at) in enumerate(rows)
    ]
    return records, [pred for _, _, pred, _, _ in rows]


def _hex(values: list[float]) -> list[str]:
    return [float(v).hex() for v in values]


@pytest.mark.filterwarnings("ignore::vqametrics.VqaMetricsWarning")
@pytest.mark.parametrize(("profile", "flow"), [("official", "head"), ("official-2017", "2017")])
@settings(max_examples=150, deadline=None)
@given(rows=st.lists(question, min_size=1, max_size=30))
def test_scores_match_reference(profile: str, flow: str, rows: list[Any]) -> None:
    records, preds = _build(rows)
    expected = [
        0.0 if pred is None else ref.question_accuracy(rec["answers"], pred, flow)
        for rec, pred in zip(records, preds, strict=True)
    ]
    with bulk_threshold(0):
        assert _hex(score_dataset(as_dataset(records), preds, profile)) == _hex(expected)
    with bulk_threshold(10**9):  # the per-question loop gives the same bits
        assert _hex(score_dataset(as_dataset(records), preds, profile)) == _hex(expected)


def _fast_fields(f: _fast.FastScores) -> dict[str, Any]:
    """A FastScores as plain values (its caches and mask tables left out)."""

    def plain(v: Any) -> Any:
        if isinstance(v, tuple):
            return tuple(map(plain, v))
        return v.tolist() if hasattr(v, "tolist") else v

    return {k: plain(v) for k, v in vars(f).items() if k not in ("groups", "memo", "tables")}


@pytest.mark.filterwarnings("ignore::vqametrics.VqaMetricsWarning")
@settings(max_examples=80, deadline=None)
@given(
    rows=st.lists(question, min_size=1, max_size=20),
    name=st.sampled_from([p.name for p in list_profiles()]),
)
def test_answers_traced_ahead_score_the_same(rows: list[Any], name: str) -> None:
    # the loader's child may trace the answers through the profile's steps (AnswerTracer);
    # the scorer then looks them up instead of tracing them again: every column the same
    records, preds = _build(rows)
    dataset = as_dataset(records)
    codes = answer_codes(dataset.answers)
    prof = get_profile(name)
    plain = _fast_fields(_fast.score_fast(codes, dataset.groups, preds, prof))
    tracer = _fast.AnswerTracer(prof)
    prepared, finished = traced = tracer(codes.strings)
    ahead = replace(codes, traces=(tracer, traced))
    real, calls = _fast._traced, [0, 0]

    def counted(text: str, steps: Any) -> tuple[str, int]:
        calls[k] += 1
        return real(text, steps)

    _fast._traced = counted
    try:
        k = 0
        assert _fast_fields(_fast.score_fast(codes, dataset.groups, preds, prof)) == plain
        k = 1
        assert _fast_fields(_fast.score_fast(ahead, dataset.groups, preds, prof)) == plain
    finally:
        _fast._traced = real
    # what the tracer did is exactly what the scorer no longer does: each distinct answer
    # through the unconditional steps, each distinct result through the conditional ones
    assert calls[0] - calls[1] == len(prepared) + len(finished)
    # traces made for other steps are not used: the scores are the profile's own
    for other in list_profiles():
        tracer = _fast.AnswerTracer(other)
        if tracer.stages != _fast.AnswerTracer(prof).stages:
            made = replace(codes, traces=(tracer, tracer(codes.strings)))
            assert _fast_fields(_fast.score_fast(made, dataset.groups, preds, prof)) == plain
            break


def test_every_mask_of_the_table_matches_reference() -> None:
    """All 1024 placements of matches among 10 distinct records (spec §4's exact floats)."""
    tables = _fast.mask_tables(get_profile("official"))
    for mask in range(1024):
        answers = [{"answer": "yes" if mask >> i & 1 else "no", "answer_id": i} for i in range(10)]
        assert float(tables.scores[mask]).hex() == ref.question_accuracy(answers, "yes").hex()
    assert {tables.scores_list[m] for m in range(1024) if bin(m).count("1") == 2} == {
        0.6,
        0.6000000000000001,
        0.5999999999999999,
    }


@pytest.mark.filterwarnings("ignore::vqametrics.VqaMetricsWarning")
@settings(max_examples=60, deadline=None)
@given(rows=st.lists(question, min_size=1, max_size=30), digits=st.integers(0, 4))
def test_aggregates_and_files_match(
    tmp_path_factory: pytest.TempPathFactory, rows: list[Any], digits: int
) -> None:
    records, preds = _build(rows)
    mapping = {
        rec["question_id"]: p for rec, p in zip(records, preds, strict=True) if p is not None
    }
    if not mapping:
        return
    with bulk_threshold(0):
        result = evaluate_vqa(records, mapping, allow_missing=True, digits=digits)
    assert result._fast is not None
    accs = [
        0.0 if p is None else ref.question_accuracy(rec["answers"], p)
        for rec, p in zip(records, preds, strict=True)
    ]
    qtypes = [r["question_type"] for r in records]
    atypes = [r["answer_type"] for r in records]
    assert result.accuracy == ref.aggregate(accs, qtypes, atypes, digits)
    assert result.accuracy == breakdown(result.scores, qtypes, atypes, digits)
    qids = [r["question_id"] for r in records]
    slow_outputs = official_outputs(qids, result.scores, qtypes, atypes, digits)
    opts = orjson.OPT_NON_STR_KEYS
    assert orjson.dumps(result.official_outputs(), option=opts) == orjson.dumps(
        slow_outputs, option=opts
    )
    # the files: bulk byte assembly against one orjson.dumps per value/record
    out = tmp_path_factory.mktemp("out")
    write_vqa_outputs(result, out)
    for name, value in slow_outputs.items():
        assert (out / f"{name}.json").read_bytes() == orjson.dumps(value, option=opts)
    slow_lines = b"".join(
        orjson.dumps(rec, option=opts | orjson.OPT_APPEND_NEWLINE)
        for rec in result._per_question_slow(range(len(records)))
    )
    assert (out / "per_question.jsonl").read_bytes() == slow_lines
    assert list(result.per_question()) == list(result._per_question_slow(range(len(records))))


@settings(max_examples=80, deadline=None)
@given(rows=st.lists(question, min_size=1, max_size=20))
def test_fast_loader_matches_slow_loader(
    tmp_path_factory: pytest.TempPathFactory, rows: list[Any]
) -> None:
    records, preds = _build(rows)
    path = tmp_path_factory.mktemp("ann") / "annotations.json"
    path.write_text(json.dumps({"info": {}, "annotations": records}), encoding="utf-8")
    fast = load_annotations(path)
    slow = as_dataset(records)
    for column in ("question_ids", "answers", "groups", "question_types", "answer_types"):
        assert getattr(fast, column) == getattr(slow, column), column
    if hasattr(os, "fork"):  # the split decode (one half in a child process) agrees too
        old, _bulk.SPLIT_MIN_BYTES = _bulk.SPLIT_MIN_BYTES, 0
        try:
            split = load_annotations(path)
        finally:
            _bulk.SPLIT_MIN_BYTES = old
        assert vars(split).keys() == vars(fast).keys()
        for column, value in vars(fast).items():
            if column == "_answer_codes":
                _same_codes(split._answer_codes, value)
            else:
                assert getattr(split, column) == value, column
    res = tmp_path_factory.mktemp("res") / "results.json"
    pairs = [
        {"question_id": r["question_id"], "answer": p or ""}
        for r, p in zip(records, preds, strict=True)
    ]
    res.write_text(json.dumps(pairs), encoding="utf-8")
    assert load_results(res).pairs == [(p["question_id"], p["answer"]) for p in pairs]


def _same_codes(a: Any, b: Any) -> None:
    if a is None or b is None:
        assert a is b
        return
    assert a.strings == b.strings
    assert a.codes.dtype == b.codes.dtype and (a.codes == b.codes).all()
    assert (a.regular == b.regular).all()


def test_question_normalizer_caches_do_not_change_results() -> None:
    norm = QuestionNormalizer(get_profile("official"))
    for _ in range(2):
        assert norm.question("Two.", ["2", "two", "3"]) == ("2", ["2", "2", "3"], False)
        assert norm.question("Yes", ["yes"] * 10) == ("Yes", ["yes"] * 10, True)


def test_reference_tables_are_the_spec_tables() -> None:
    """The reference reads its own copy of the spec's tables, not the package's: same content
    as the spec's file (when the shared spec is present) and the entries the spec names."""
    here = json.loads((Path(__file__).parent / "reference" / "official_tables.json").read_text())
    assert here["articles"] == ["a", "an", "the"]
    assert here["number_words"]["none"] == "0" and here["number_words"]["ten"] == "10"
    assert here["contractions"]["dont"] == "don't" and len(here["contractions"]) == 120
    assert "".join(here["punctuation"]) == ';/[]"{}()=+\\_-><@`,?!'  # §3.2, in script order
    spec = Path(__file__).parents[2] / "shared" / "spec" / "official-tables.json"
    if not spec.is_file():
        pytest.skip(f"spec tables not found at {spec}")
    assert here == json.loads(spec.read_text("utf-8"))


@pytest.mark.filterwarnings("ignore::vqametrics.VqaMetricsWarning")
@pytest.mark.parametrize("profile", [p.name for p in list_profiles()])
@settings(max_examples=40, deadline=None)
@given(rows=st.lists(question, min_size=1, max_size=30))
def test_task_score_batch_is_its_per_item_scorer(profile: str, rows: list[Any]) -> None:
    """VQA v2's vectorized ``score_batch`` (what the runner uses) equals its per-item scorer
    bit for bit, on the items its reader builds; for the official profiles both are the
    literal port of the script."""
    from vqametrics.tasks import get_task
    from vqametrics.tasks._base import TaskInputs

    records, preds = _build(rows)
    results = [
        {"question_id": r["question_id"], "answer": p}
        for r, p in zip(records, preds, strict=True)
        if p is not None
    ]
    task = get_task("vqav2")
    prof = task.profile(profile)
    if not results:
        return
    inputs = TaskInputs(results, annotations=records, allow_missing=True, profile=profile)
    data = task.read(inputs)
    assert prof.score_batch is not None
    per_item = [prof.score_item(item) for item in data.items]
    with bulk_threshold(0):
        assert _hex(prof.score_batch(data.items, data)) == _hex(per_item)
    if profile.startswith("official"):
        flow = "head" if profile == "official" else "2017"
        expected = [
            0.0 if p is None else ref.question_accuracy(r["answers"], p, flow)
            for r, p in zip(records, preds, strict=True)
        ]
        assert _hex(per_item) == _hex(expected)
