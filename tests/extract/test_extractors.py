"""Answer extractors: our ``answer`` rules, and each toolkit's post-processing.

Peer cases come from the toolkits' own tests and code (cited per block); the expected values are
what that code returns, derived by hand from it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import vqametrics
from vqametrics.core.exceptions import UnknownNameError
from vqametrics.extract import (
    ANSWER_RULES,
    BUILTIN_EXTRACTORS,
    answer_extractor_names,
    apply_extractor,
    extract_answer,
    get_answer_extractor,
    list_answer_extractors,
    rule_counts,
)
from vqametrics.mmbench import list_extractors as list_mmbench_extractors

ANSWER_CASES = [
    ("The answer is 2.", "2", ("answer_marker", "trailing_period")),
    ("Answer: red", "red", ("answer_marker",)),
    ("ANSWER: red", "red", ("answer_marker",)),
    ("Final answer: **3**", "3", ("markdown", "answer_marker")),
    ("**Answer:** two", "two", ("markdown", "answer_marker")),
    ("The final answer is: 12", "12", ("answer_marker",)),
    ("**Yes**", "Yes", ("markdown",)),
    ("*red*", "red", ("markdown",)),
    ("- skiing", "skiing", ("markdown",)),
    ("<think>The sky looks blue.</think> blue", "blue", ("reasoning_block",)),
    ("<THINKING>hmm</THINKING>\n\nNo", "No", ("reasoning_block",)),
    ("reasoning only\n</think>\n\nNo", "No", ("reasoning_block",)),
    ("<think>ran out of tokens", "", ("reasoning_block",)),
    ("<think>a</think><answer> dog </answer>", "dog", ("reasoning_block", "answer_tag")),
    ("The answer is $\\boxed{4}$.", "4", ("boxed",)),
    ("Yes, there is a dog in the picture.", "yes", ("yes_no",)),
    ("No. There is no dog.", "no", ("yes_no",)),
    ("It is red.\nThe car is red.", "It is red", ("first_line", "trailing_period")),
    ('"cat"', "cat", ("quotes",)),
    ("“cat”", "cat", ("quotes",)),
    ("yes.", "yes", ("trailing_period",)),
    # left alone: short answers, decimals, abbreviations, inner underscores and apostrophes
    ("red", "red", ()),
    ("Yes", "Yes", ()),
    ("2.5", "2.5", ()),
    ("Mr. T", "Mr. T", ()),
    ("snake_case", "snake_case", ()),
    ("the man's hat", "the man's hat", ()),
    ("...", "...", ()),
]


@pytest.mark.parametrize(("raw", "text", "rules"), ANSWER_CASES)
def test_answer_rules(raw: str, text: str, rules: tuple[str, ...]) -> None:
    got = extract_answer(raw)
    assert (got.text, got.rules) == (text, rules)
    assert got.rule == ("+".join(rules) if rules else None)
    assert set(rules) <= set(ANSWER_RULES)


# lmms-eval@75571cfe: test/eval/test_reasoning.py and test/eval/test_strip_thinking_filter.py,
# plus branches of lmms_eval/api/reasoning.py (default tags <think>, <analysis>).
LMMS_EVAL_CASES = [
    ("<think>\nreasoning\n</think>\n\nYes", "Yes"),
    ("reasoning from completion only\n</think>\n\nNo", "No"),
    ("<think>long chain of reasoning</think>\n\nParis", "Paris"),
    ("<think>maybe the answer is (A)?</think> The answer is (C)", "The answer is (C)"),
    ("Just a plain answer.", "Just a plain answer."),
    ("<analysis>a</analysis> b <think>c</think> d", "b  d"),
    ("<THINK>x</THINK>y", "<THINK>x</THINK>y"),  # case-sensitive
    ("<think>unclosed", "<think>unclosed"),  # an unclosed tag passes through
    ("<thinking>x</thinking> y", "<thinking>x</thinking> y"),  # not a default CLI tag
    ("</think> a <think> b", "</think> a <think> b"),  # close before open: loop breaks
]

# VLMEvalKit@e8e78f05: vlmeval/inference.py split_thinking (SPLIT_THINK=1)
VLMEVALKIT_CASES = [
    ("<think>a</think> b ", "b"),
    ("no tags ", "no tags "),  # unchanged, not even stripped
    ("x</think>y</think> z", "z"),  # the text after the LAST </think>
    ("prefilled</think>\nNo", "No"),
    ("<THINK>x</THINK>y", "<THINK>x</THINK>y"),
    ("<think>unclosed", "<think>unclosed"),
]

# evalscope@fde259d2: evalscope/api/messages/utils.py parse_content_with_reasoning, then
# evalscope/benchmarks/vqav2/vqav2_adapter.py extract_answer; the first case is from
# tests/test_multi_choices.py (an unpaired </think> is not a reasoning block there).
EVALSCOPE_CASES = [
    ("Energy conservation gives option B.\n\nNeed answer.</think>ANSWER: B", "B"),
    ('<think>x</think> The answer is red.\nANSWER: "red"', "red"),
    ('<think signature="s1">x</think>ANSWER: blue', "blue"),
    ("answer: one\nAnswer: two", "two"),  # the last match, any case
    ("  'two'  ", "two"),
    ("<think>a</think><think>b</think> c", "<think>b</think> c"),  # first block only
    ("ANSWER:\nred", "red"),  # \s* crosses the newline
    ("The answer is 3", "The answer is 3"),  # only the ANSWER: line counts
]


@pytest.mark.parametrize(("raw", "want"), LMMS_EVAL_CASES)
def test_lmms_eval(raw: str, want: str) -> None:
    assert get_answer_extractor("lmms-eval")(raw).text == want


@pytest.mark.parametrize(("raw", "want"), VLMEVALKIT_CASES)
def test_vlmevalkit(raw: str, want: str) -> None:
    assert get_answer_extractor("vlmevalkit")(raw).text == want


@pytest.mark.parametrize(("raw", "want"), EVALSCOPE_CASES)
def test_evalscope(raw: str, want: str) -> None:
    assert get_answer_extractor("evalscope")(raw).text == want


def test_registry() -> None:
    names = [e.name for e in list_answer_extractors()]
    assert names == ["answer", "lmms-eval", "vlmevalkit", "evalscope"]
    for e in list_answer_extractors():
        assert e.reproduces == "vqametrics" or "@" in e.reproduces
    with pytest.raises(UnknownNameError, match="valid: answer, lmms-eval"):
        get_answer_extractor("nope")
    # the MMBench choice extractors are a separate registry with the same names
    assert "vlmevalkit" in [e.name for e in list_mmbench_extractors()]


def test_the_names_listed_without_loading_are_the_registrys() -> None:
    # --extract's choices come from BUILTIN_EXTRACTORS before any extractor is imported
    assert list(BUILTIN_EXTRACTORS) == [e.name for e in list_answer_extractors()]
    assert answer_extractor_names() == list(BUILTIN_EXTRACTORS)


def test_a_run_with_extract_loads_the_extractors(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from vqametrics.extract import answer_extractor_names, apply_extractor\n"
        "names = answer_extractor_names()\n"
        "before = 'vqametrics.extract.answer' in sys.modules\n"
        "run = apply_extractor('answer', ['The answer is 2.'])\n"
        "print(names, before, run.texts)\n"
    )
    src = str(Path(vqametrics.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": src}
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=tmp_path,
    ).stdout
    assert out.split() == [
        "['answer',",
        "'lmms-eval',",
        "'vlmevalkit',",
        "'evalscope']",
        "False",
        "['2']",
    ]


def test_apply_and_counts() -> None:
    run = apply_extractor("answer", ["The answer is 2.", None, "red", "The answer is 2."])
    assert run.texts == ["2", None, "red", "2"]
    assert run.traces[0] is run.traces[3]  # each distinct string once
    assert rule_counts(run.traces) == {"answer_marker": 2, "trailing_period": 2}
    assert run.as_dict() == {
        "name": "answer",
        "changed": 2,
        "rules": {"answer_marker": 2, "trailing_period": 2},
    }
    assert run.record(0) == {
        "raw_prediction": "The answer is 2.",
        "extracted": "2",
        "extract_rule": "answer_marker+trailing_period",
    }
    assert run.record(1) == {}


@given(st.text(max_size=60))
def test_extractors_total_and_idempotent_on_plain(text: str) -> None:
    for e in list_answer_extractors():
        out = e(text)
        assert isinstance(out.text, str)
        if not out.rules:  # no rule fired: the text is kept (ours trims the ends)
            assert out.text.strip() == text.strip()
    plain = "".join(c for c in text if c.isalnum())[:20]
    assert extract_answer(plain).text == plain
