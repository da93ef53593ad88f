"""EvalScope's VQAv2 answer processing (modelscope/evalscope @ fde259d, ``vqav2_adapter.py``).

EvalScope does not descend from the official script; it has its own extraction and normalizer
(peer-profiles.md §1.6):

* :func:`extract_answer` — ``ES_EXTRACT``: the text after the last ``ANSWER:``, outer quotes
  stripped. Applied to the prediction only.
* :func:`es_normalize` — ``ES_NORM``, also available as the four traced sub-steps
  :func:`lowercase_cleanup`, :func:`digit_commas`, :func:`punctuation_es`, then the official
  :func:`~vqametrics.normalize.official.number_words` and
  :func:`~vqametrics.normalize.official.articles`.
* :func:`answer_list` — ``ES_ANSWERS``: answers as strings, empty and whitespace-only ones dropped.

Quirks kept on purpose, so that numbers published with EvalScope can be reproduced:

* QUIRK answer-extraction: the prediction is cut to the text after the *last* ``ANSWER:``
  (case-insensitive; the captured text stops at a newline, the whitespace before it may cross
  newlines); then ``strip()`` and every leading/trailing ``"``/``'`` goes (inner whitespace stays).
* QUIRK punctuation-to-space: 31 ASCII punctuation characters (all but ``:``) become spaces,
  including ``'``, ``.``, ``#``, ``$``, ``%``, ``&``, ``*``, ``^``, ``|``, ``~``: ``3.5`` → ``3 5``,
  ``don't`` → ``don t``, ``a.m.`` → ``m`` (the split-off ``a`` is an article); ``4:30`` keeps
  its colon.
* QUIRK digit-commas-once: a comma between two digits is deleted, judged on the string before any
  deletion (``1,2,3`` → ``123``; ``1,,2`` keeps both commas, which then become spaces).
* QUIRK no-contractions: there is no contraction table (``dont`` ≠ ``don't``) and no period limit.
* QUIRK empty-prediction-zero: an empty processed prediction scores 0 (a profile flag, see
  :attr:`~vqametrics.profiles.Profile.empty_prediction_scores_zero`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from .official import articles, number_words

__all__ = [
    "ES_PUNCTUATION",
    "answer_list",
    "digit_commas",
    "es_normalize",
    "extract_answer",
    "lowercase_cleanup",
    "punctuation_es",
]

_ANSWER_LINE = re.compile(r"ANSWER:\s*(.*)", re.IGNORECASE)
_QUOTES = "\"'"


def extract_answer(prediction: str) -> str:
    """``ES_EXTRACT``: QUIRK answer-extraction."""
    found = _ANSWER_LINE.findall(prediction)
    text: str = found[-1] if found else prediction
    return text.strip().strip(_QUOTES)


def lowercase_cleanup(text: str) -> str:
    """``lower()``, ``strip()``, then ``\\n`` and ``\\t`` to spaces (in that order)."""
    return text.lower().strip().replace("\n", " ").replace("\t", " ")


_DIGIT_COMMA = re.compile(r"(?<=\d),(?=\d)")


def digit_commas(text: str) -> str:
    """QUIRK digit-commas-once: delete each comma with a digit directly on both sides."""
    return _DIGIT_COMMA.sub("", text)


#: The 31 ASCII punctuation characters EvalScope spaces out: ``string.punctuation`` minus ``:``.
ES_PUNCTUATION = "!\"#$%&'()*+,-./;<=>?@[\\]^_`{|}~"
_TO_SPACE = str.maketrans(ES_PUNCTUATION, " " * len(ES_PUNCTUATION))


def punctuation_es(text: str) -> str:
    """QUIRK punctuation-to-space, then whitespace collapse (the normalizer's ``split()``)."""
    return " ".join(text.translate(_TO_SPACE).split())


def es_normalize(text: str) -> str:
    """``ES_NORM``: lowercase and cleanup, digit commas, punctuation, number words, articles."""
    return articles(number_words(punctuation_es(digit_commas(lowercase_cleanup(text)))))


def answer_list(answers: str | Iterable[str | Mapping[str, object]]) -> list[str]:
    """``ES_ANSWERS``: the answers as strings, empty and whitespace-only ones dropped.

    A record gives its ``answer``, or if that is empty its ``text``, or else the empty string; a
    single string becomes a one-item list. Dropping never changes a score (such an answer
    normalizes to the empty string, and an empty prediction scores 0), so the profile does not
    need it; it documents what EvalScope counts.
    """
    items: Iterable[str | Mapping[str, object]] = [answers] if isinstance(answers, str) else answers
    out = []
    for item in items:
        if isinstance(item, str):
            text = item
        else:
            value = item.get("answer") or item.get("text") or ""
            if not isinstance(value, str):
                raise TypeError(f"an answer must be a string, got {type(value).__name__} {value!r}")
            text = value
        if text.strip():
            out.append(text)
    return out
