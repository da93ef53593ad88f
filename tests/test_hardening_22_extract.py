"""Issue 22, extractors and rewards: linear in the input, bounded in what they scan.

The audit's repro: ``rewards.compute_score`` on a 56 KB rollout of repeated ``<think>`` took
5–13 s (the plain ``re.sub`` of a lazy block pattern rescans the rest of the text from every
unclosed opening). The scanners that replace those ``re`` calls are held equal to the
expressions they replace — written out below as they stood (main 608fb35) — by differential
property tests; the repros pin the rewards. Timings: ``benchmarks/bench_rewards.py``.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vqametrics import InputError, UnknownNameError
from vqametrics.extract import (
    MAX_SCAN_CHARS,
    diagnose,
    extract_answer,
    get_answer_extractor,
    list_answer_extractors,
)
from vqametrics.extract import answer as answer_rules
from vqametrics.extract._diagnostics import _long_patterns
from vqametrics.extract.peers import extract_evalscope
from vqametrics.integrations.rewards import compute_score

# --- the expressions as they stood, applied plainly: the reference ---------------------------
TAGS = "think|thinking|reasoning|analysis|reflection"
REF_BLOCK = re.compile(rf"<({TAGS})\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
REF_OPEN = re.compile(rf"<(?:{TAGS})\b[^>]*>", re.IGNORECASE)
REF_ANSWER_TAG = re.compile(r"<answer\b[^>]*>(.*?)</answer\s*>", re.IGNORECASE | re.DOTALL)
REF_HEADING = re.compile(r"^\s*#{1,6}\s+", re.MULTILINE)
REF_SINGLE = re.compile(r"(?<![\w*])[*_](?=\S)(.+?)(?<=\S)[*_](?![\w*])")
REF_MARKDOWN = re.compile(r"\*\*|__\S|`|^\s*#{1,6}\s|^\s*[-*+•]\s+\S", re.MULTILINE)
REF_ES_THINK = re.compile(
    r'<think(?:\s+signature="([^"]*)")?(?:\s+redacted="(true)")?\s*>(.*?)</think>', re.DOTALL
)

# fragments that make the patterns' edge cases likely: tags of every name and case (and the
# letters the regex engine folds: İ matches i, ı does not match as a backreference), tags
# without ">", emphasis marks, headings after blank lines, line separators
FRAGMENTS = [
    "<think>", "</think>", "<THINK>", "</Think >", "<thinking>", "</thinking>", "<think x=1>",
    "<reasoning>", "</reasoning>", "<analysis", "</analysis>", "<reflection>", "</reflection\n>",
    "<thİnk>", "</thİnk>", "</thınk>", "<thınk>", "<think", "</think", ">", "<", "</",
    "<answer>", "</answer>", "</ANSWER >", "<answer", "<answer k>",
    "*", "_", "**", "__", "*a*", "_b_", "a", "b", " ", "\n", "\n\n", "\t", "\u2028", "\r",
    "#", "##", "#######", "# ", "- ", "1. ", "x", "ſ", '<think signature="s">',
    '<think redacted="true">', '"', "。", ".",
]  # fmt: skip
TEXT = st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join)
ANY = st.one_of(TEXT, st.text(max_size=60))


def _ref_first_open(text: str) -> int:
    m = REF_OPEN.search(text)
    return -1 if m is None else m.start()


def _ref_answer_tag(text: str) -> str:
    found = REF_ANSWER_TAG.findall(text)
    return found[-1].strip() if found else text


def _ref_evalscope_span(text: str) -> tuple[int, int] | None:
    m = REF_ES_THINK.search(text)
    return None if m is None else m.span()


@settings(max_examples=1500, deadline=None)
@given(ANY)
def test_each_scanner_equals_the_expression_it_replaces(text: str) -> None:
    assert answer_rules._drop_blocks(text) == REF_BLOCK.sub(" ", text)
    assert answer_rules._first_open(text) == _ref_first_open(text)
    assert answer_rules._answer_tag(text) == _ref_answer_tag(text)
    assert answer_rules._drop_headings(text) == REF_HEADING.sub("", text)
    assert answer_rules._single_emphasis(text) == REF_SINGLE.sub(r"\1", text)


@settings(max_examples=800, deadline=None)
@given(ANY)
def test_the_markdown_sign_is_found_as_the_expression_finds_it(text: str) -> None:
    found = _long_patterns()[2].search(text) is not None
    assert found == (REF_MARKDOWN.search(text) is not None)


@settings(max_examples=800, deadline=None)
@given(ANY)
def test_evalscope_cuts_the_block_the_expression_finds(text: str) -> None:
    span = _ref_evalscope_span(text)
    got = extract_evalscope(text)
    if span is None:
        assert "think_block" not in got.rules
    else:
        cut = (text[: span[0]] + text[span[1] :]).strip()
        # the rest of the adapter on the reference's cut text, by hand: last ANSWER: line
        found = re.findall(r"ANSWER:\s*(.*)", cut, re.IGNORECASE)
        rest = found[-1].strip() if found else cut.strip()
        assert got.text == rest.strip("\"'")


# --- the audit's repros ----------------------------------------------------------------------
ROLLOUT = "<think>" * 8000  # 56,000 characters: the audit's looping model


def test_a_56kb_rollout_of_repeated_think_scores_its_reward() -> None:
    assert len(ROLLOUT) == 56_000
    # unclosed reasoning runs to the end: no answer after it, reward 0 (hand-derived)
    assert compute_score("vqav2", ROLLOUT, ["blue"] * 10) == 0.0
    # the first <think> opens the block the one </think> closes: the answer follows (1.0)
    assert compute_score("vqav2", ROLLOUT + "</think> blue", ["blue"] * 10) == 1.0
    assert extract_answer(ROLLOUT).text == ""


@pytest.mark.parametrize("unit", ["*a ", "_a ", "<answer>", "<answer", "<think", "# \n"])
def test_pathological_markup_is_left_alone(unit: str) -> None:
    # openers with no closer anywhere (each took seconds): no rule can change the text
    text = "x" + unit * (60_000 // len(unit))
    assert extract_answer(text).text == text.strip() or unit in ("<think", "# \n")


def test_many_blank_lines_keep_the_first_line() -> None:
    # 56k blank lines took 32 s in the answer extractor and 58 s in the diagnostics
    text = "x" + "\n" * 56_000 + "y"
    assert extract_answer(text).text == "x"
    found = diagnose([text])
    assert found.verbose == 1
    assert {k: v for k, v in found.reasons.items() if v} == {"sentences": 1}  # two lines


def test_a_text_beyond_the_bound_is_cut_to_its_tail_and_says_so() -> None:
    filler = "<think>" * (MAX_SCAN_CHARS // 7 + 10)  # longer than the bound, cut mid-tag
    text = filler + "</think> The answer is blue."
    assert len(text) > MAX_SCAN_CHARS
    for ext in list_answer_extractors():
        got = ext(text)
        assert got.rules[0] == "truncated", ext.name
        assert "truncated" in ext.rules, ext.name
    assert extract_answer(text).text == "blue"
    assert get_answer_extractor("vlmevalkit")(text).text == "The answer is blue."
    exact = "a" * (MAX_SCAN_CHARS - 1) + " blue"  # not beyond the bound: no cut
    assert "truncated" not in extract_answer(exact[:MAX_SCAN_CHARS]).rules


@pytest.mark.parametrize(
    ("args", "error", "fragment"),
    [
        ((None, "a", ["a"] * 10), UnknownNameError, "data_source"),
        ((3, "a", ["a"] * 10), UnknownNameError, "data_source"),
        (("vqav2", "a", ["a"] * 10, ["not", "a", "mapping"]), InputError, "extra_info"),
        (("vqav2", None, ["a"] * 10), InputError, "solution_str"),
    ],
)
def test_compute_score_raises_only_the_librarys_errors(
    args: tuple[object, ...], error: type[Exception], fragment: str
) -> None:
    with pytest.raises(error, match=fragment):
        compute_score(*args)  # type: ignore[arg-type]
