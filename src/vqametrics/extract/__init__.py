"""Answers from chat and reasoning models: diagnostics (always on) and extraction (on request).

``diagnose(predictions)`` says how many predictions look like chat replies ("The answer is 2.",
``<think>…</think>``, ``**yes**``) rather than short answers; it never changes a score.
``get_answer_extractor(name)`` returns a named, traced extraction stage that runs before
normalization only when asked (``--extract NAME``): ``answer`` (our rules) or a toolkit's own
post-processing (``lmms-eval``, ``vlmevalkit``, ``evalscope``). Pure functions, no I/O.

Bounded: an extractor scans at most the last :data:`MAX_SCAN_CHARS` characters of a text (rule
``truncated``), and each is linear in what it scans, so a looping model's 100 KB output costs
milliseconds, not seconds.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import answer as _answer  # registers "answer" first
from . import peers as _peers  # registers the toolkits' extractors
from ._base import (
    MAX_SCAN_CHARS,
    AnswerExtractor,
    Extraction,
    ExtractionRun,
    get_answer_extractor,
    list_answer_extractors,
    register_answer_extractor,
)
from .answer import ANSWER_RULES, extract_answer
from .diagnose import REASONS, Diagnostics, diagnose, verbose_reasons, word_limit

__all__ = [
    "ANSWER_RULES",
    "MAX_SCAN_CHARS",
    "REASONS",
    "AnswerExtractor",
    "Diagnostics",
    "Extraction",
    "ExtractionRun",
    "apply_extractor",
    "diagnose",
    "extract_answer",
    "get_answer_extractor",
    "list_answer_extractors",
    "register_answer_extractor",
    "rule_counts",
    "verbose_reasons",
    "word_limit",
]

del _answer, _peers


def apply_extractor(
    name: str | AnswerExtractor, predictions: Sequence[str | None]
) -> ExtractionRun:
    """Run the extractor *name* over aligned predictions, each distinct string once.

    Raises
    ------
    UnknownNameError
        *name* is not registered.
    """
    ext = get_answer_extractor(name)
    return ExtractionRun(ext.name, list(predictions), ext.many(predictions))


def rule_counts(traces: Sequence[Extraction | None]) -> dict[str, int]:
    """How many answers each rule changed (an answer changed by two rules counts for both)."""
    return ExtractionRun("", [], list(traces)).rule_counts()
