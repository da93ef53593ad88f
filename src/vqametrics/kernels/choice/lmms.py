"""lmms-eval's multiple-choice rules at 75571cf: the shared ``extract_mcq_answer`` and the
per-task rules of MMStar, RealWorldQA, AI2D and SEED-Bench (spec mcq-reasoning.md §4–7, §14.3).

The per-task rules only compare a response with a gold letter; as lineages they return the
letter that would be scored correct (``hit-test``), or ``None`` when no letter would be.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Mapping, Sequence

from ...core.toolkits import LMMS_EVAL as LMMS_EVAL_PIN
from ._registry import Lineage, register_lineage

__all__ = [
    "ai2d_filter",
    "ai2d_hit",
    "blink_letter",
    "extract_mcq_answer",
    "mmstar_hit",
    "mmvp_letter",
    "realworldqa_hit",
    "seedbench_first_char",
    "seedbench_hit",
]

_LMMS = LMMS_EVAL_PIN.at()
_DEFAULT_CHOICES = ("A", "B", "C", "D", "E", "F", "G", "H")
_ABCD = ("A", "B", "C", "D")

# lmms-eval@75571cf lmms_eval/tasks/_task_utils/mcq_extract.py _ANSWER_PHRASES, in its order
_PHRASES = (
    "the answer is",
    "answer is",
    "the correct answer is",
    "correct answer is",
    "the best answer is",
    "best answer is",
    "the correct option is",
    "correct option is",
    "the best option is",
    "best option is",
    "the choice is",
    "choice is",
    "the correct choice is",
    "correct choice is",
    "i choose",
    "i select",
    "i pick",
    "my answer is",
    "my choice is",
    "옵션",
    "정답은",
    "답은",
    "답:",
    "答案是",
    "答案为",
    "选",
    "答えは",
)
_PRIORITY = {
    "start": 10,
    "end": 9,
    "phrase": 7,
    "parentheses": 6,
    "period": 5,
    "colon": 4,
    "right_paren": 3,
    "space": 2,
    "fallback": 0,
}
# (format, text before the letter, text after it): each a plain substring test
_WRAPPED = (
    ("parentheses", "(", ")"),
    ("period", "", "."),
    ("colon", "", ":"),
    ("right_paren", "", ")"),
    ("space", "", " "),
)


def extract_mcq_answer(response: str, choices: Sequence[str] | None = None) -> str:
    """lmms-eval's shared MCQ extractor: the best-ranked (format, position) letter, or ``""``.

    Strip ``, . ! ? ; : ' "`` from both ends (in that order) and pad with spaces; collect each
    letter's last position in the formats ``(X)``, ``X.``, ``X:``, ``X)``, ``X `` (substring
    tests), after the first occurrence of each answer phrase (case-sensitive letter search),
    at the start and at the end (next/previous character not a letter); any occurrence only
    if nothing else matched. Rank: start 10 > end 9 > phrase 7 > ( ) 6 > . 5 > : 4 > ) 3 >
    space 2 > fallback 0; later position first within a rank.

    QUIRK substring-formats: ``DNA `` counts as ``A `` and ``Definitely a Bird`` gives B by the
    fallback; kept, lmms-eval scores that way.
    """
    if not response or not response.strip():
        return ""
    letters = tuple(choices) if choices else _DEFAULT_CHOICES
    text = response.strip()
    for char in (",", ".", "!", "?", ";", ":", "'", '"'):
        text = text.strip(char)
    text = " " + text + " "
    found: list[tuple[str, int, str]] = []
    for fmt, before, after in _WRAPPED:
        for ch in letters:
            token = before + ch + after
            if token in text:
                found.append((ch, text.rfind(token), fmt))
    lower = text.lower()
    for phrase in _PHRASES:
        idx = lower.find(phrase)
        if idx != -1:
            end = idx + len(phrase)
            for ch in letters:
                pos = text.find(ch, end)
                if pos != -1:
                    found.append((ch, pos, "phrase"))
    bare = text.strip()
    for ch in letters:
        if bare.startswith(ch) and (len(bare) == 1 or not bare[1].isalpha()):
            found.append((ch, 0, "start"))
    for ch in letters:
        if bare.endswith(ch) and (len(bare) == 1 or not bare[-2].isalpha()):
            found.append((ch, len(text) - 1, "end"))
    if not found:
        found = [(ch, text.rfind(ch), "fallback") for ch in letters if ch in text]
    if not found:
        return ""
    # a stable sort, descending: among equal keys the first collected wins, as in lmms-eval
    found.sort(key=lambda c: (_PRIORITY[c[2]], c[1]), reverse=True)
    return found[0][0]


def _extract_shared(response: str, choices: Mapping[str, str]) -> str | None:
    return extract_mcq_answer(response, list(choices) or None) or None


def mmstar_hit(response: str, gold: str) -> bool:
    """lmms-eval MMStar ``exact_match``: ``extract_mcq_answer(response, A–D) ==
    gold.strip().upper()``.

    QUIRK abcd-only: MMStar and RealWorldQA pass choices A–D whatever the item has, so an E
    or F is never found; kept, lmms-eval scores that way.
    """
    return extract_mcq_answer(response, _ABCD) == gold.strip().upper()


def realworldqa_hit(response: str, gold: str) -> bool:
    """lmms-eval ``realworldqa_process_results``: a letter gold (A–D) is compared with
    ``extract_mcq_answer(response, A–D)``; any other gold (``0``, ``Downhill``) with
    ``response.lower().strip().rstrip('.')`` against the lower-cased gold."""
    gt = gold.strip()
    if gt.upper() in _ABCD:
        return extract_mcq_answer(response, _ABCD) == gt.upper()
    return response.lower().strip().rstrip(".") == gt.lower()


_OPTION_LETTER_AT_START = re.compile(r"^\s*([A-Z])\.")
_NO_PUNCT = str.maketrans("", "", string.punctuation)


def ai2d_filter(response: str) -> str:
    """lmms-eval AI2D ``MultiChoiceRegexFilter``: the capital letter of a leading ``X.``, else
    the whole response unchanged."""
    m = _OPTION_LETTER_AT_START.match(response)
    return m.group(1) if m else response


def ai2d_hit(response: str, gold: str) -> bool:
    """AI2D ``exact_match`` with ignore_case and ignore_punctuation on the filtered response:
    ``lower(filter(r))`` minus ASCII punctuation equals ``lower(gold)`` minus punctuation.

    So ``B``, ``(B)``, ``**C**``, ``B.`` and ``B. dog`` are right; ``The answer is B.``,
    ``B dog`` and ``C) bird`` are wrong (nothing but a leading ``X.`` is extracted).
    """
    return ai2d_filter(response).lower().translate(_NO_PUNCT) == gold.lower().translate(_NO_PUNCT)


def seedbench_first_char(response: str) -> str:
    """lmms-eval ``seed_process_result``'s ``pred``: the first character of the stripped
    response (the whole of it when it has one character or none)."""
    pred = response.strip()
    return pred[0] if len(pred) > 1 else pred


def seedbench_hit(response: str, gold: str) -> bool:
    """lmms-eval SEED: ``pred.lower().strip() == answer.lower().strip()``.

    QUIRK first-char: ``(B)``, ``The answer is C`` and ``Answer: D`` are misses, and
    ``Answer: D`` hits a gold A; kept, lmms-eval's SEED numbers are scored that way.
    """
    return seedbench_first_char(response).lower().strip() == gold.lower().strip()


# lmms-eval@75571cf tasks/mmvp/utils.py _extract_answer_letter: its patterns, tried in order,
# each searched case-insensitively over the stripped response
_MMVP_PATTERNS = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"^\s*\(?([AB])\)?\.?\s*$",
        r"^\s*\(?([AB])\)?[\.\s]",
        r"answer\s+is\s+\(?([AB])\)?",
        r"option\s+\(?([AB])\)?",
        r"\(?([AB])\)?(?:\s|$)",
    )
)


def mmvp_letter(response: str) -> str:
    """lmms-eval MMVP ``_extract_answer_letter``: the first of five patterns that matches
    (a bare letter, a leading letter, ``answer is X``, ``option X``, a letter before a space
    or the end), upper-cased; else the first character if it is A or B; else ``""``.

    QUIRK lower-case-article: the patterns ignore case, so the article in ``a dog`` is the
    letter A (``I see a dog`` gives A); kept, lmms-eval's MMVP numbers are scored that way.
    """
    text = response.strip()
    for pattern in _MMVP_PATTERNS:
        m = pattern.search(text)
        if m:
            return m.group(1).upper()
    if text and text[0].upper() in ("A", "B"):
        return text[0].upper()
    return ""


_LEADING_LETTER = re.compile(r"[\(\s]*([A-Z])[\)\.\s]*", re.IGNORECASE)


def blink_letter(response: str) -> str:
    """lmms-eval BLINK / CV-Bench ``_extract_answer_letter``: the first letter of the stripped
    response after any ``(`` or spaces, upper-cased (``re.match``); ``""`` when it does not
    start with one.

    QUIRK first-letter: any leading word gives its first letter (``The answer is B`` is T,
    ``Based on …`` is B); kept, lmms-eval's BLINK and CV-Bench numbers are scored that way.
    """
    m = _LEADING_LETTER.match(response.strip())
    return m.group(1).upper() if m else ""


def _first_of(read: Callable[[str], str]) -> Callable[[str, Mapping[str, str]], str | None]:
    """An extractor as a lineage: its letter when it is one of the options, else ``None``."""

    def fn(response: str, choices: Mapping[str, str]) -> str | None:
        letter = read(response)
        return letter if letter in choices else None

    return fn


def _hitting(
    test: Callable[[str, str], bool],
) -> Callable[[str, Mapping[str, str]], str | None]:
    """A hit-test as a lineage: the first offered letter that *test* scores correct."""

    def fn(response: str, choices: Mapping[str, str]) -> str | None:
        for letter in choices:
            if test(response, letter):
                return letter
        return None

    return fn


def _register() -> None:
    src = f"{_LMMS} lmms_eval/tasks"
    for lineage in (
        Lineage(
            "lmms_eval_extract_mcq_answer",
            f"{src}/_task_utils/mcq_extract.py extract_mcq_answer",
            "ranked formats (start, end, answer phrase, (X), X., X:, X), X ) over the options",
            _extract_shared,
        ),
        Lineage(
            "lmms_eval_mmstar",
            f"{src}/mmstar/utils.py exact_match",
            "extract_mcq_answer with choices A-D, compared with the gold",
            _hitting(mmstar_hit),
            kind="hit-test",
        ),
        Lineage(
            "lmms_eval_realworldqa",
            f"{src}/realworldqa/utils.py realworldqa_process_results",
            "extract_mcq_answer with choices A-D for a gold A-D, else a lower-cased text match",
            _hitting(realworldqa_hit),
            kind="hit-test",
        ),
        Lineage(
            "lmms_eval_ai2d",
            f"{src}/ai2d/utils.py MultiChoiceRegexFilter + api/metrics.py exact_match",
            "a leading 'X.' else the response, exact match ignoring case and punctuation",
            _hitting(ai2d_hit),
            kind="hit-test",
        ),
        Lineage(
            "lmms_eval_seedbench",
            f"{src}/seedbench/utils.py seed_process_result + seed_aggregation_result",
            "the first character of the stripped response, compared case-insensitively",
            _hitting(seedbench_hit),
            kind="hit-test",
        ),
        Lineage(
            "lmms_eval_mmvp",
            f"{src}/mmvp/utils.py _extract_answer_letter",
            "five A/B patterns in order (case-insensitive), else an A/B first character",
            _first_of(mmvp_letter),
        ),
        Lineage(
            "lmms_eval_blink",
            f"{src}/blink/utils.py and cv_bench/utils.py _extract_answer_letter",
            "the first letter after any leading '(' or spaces, upper-cased",
            _first_of(blink_letter),
        ),
    ):
        register_lineage(lineage)


_register()
