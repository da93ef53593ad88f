"""Answers from chat and reasoning models: diagnostics (always on) and extraction (on request).

``diagnose(predictions)`` says how many predictions look like chat replies ("The answer is 2.",
``<think>…</think>``, ``**yes**``) rather than short answers; it never changes a score.
``get_answer_extractor(name)`` returns a named, traced extraction stage that runs before
normalization only when asked (``--extract NAME``): ``answer`` (our rules) or a toolkit's own
post-processing (``lmms-eval``, ``vlmevalkit``, ``evalscope``). Pure functions, no I/O.
"""

from __future__ import annotations

from . import answer as _answer  # registers "answer" first
from . import peers as _peers  # registers the toolkits' extractors
from ._base import (
    AnswerExtractor,
    Extraction,
    get_answer_extractor,
    list_answer_extractors,
    register_answer_extractor,
)
from .answer import ANSWER_RULES, extract_answer
from .diagnose import REASONS, Diagnostics, diagnose, verbose_reasons

__all__ = [
    "ANSWER_RULES",
    "REASONS",
    "AnswerExtractor",
    "Diagnostics",
    "Extraction",
    "apply_extractor",
    "diagnose",
    "extract_answer",
    "get_answer_extractor",
    "list_answer_extractors",
    "register_answer_extractor",
    "rule_counts",
    "verbose_reasons",
]

del _answer, _peers


def apply_extractor(
    name: str | AnswerExtractor, predictions: list[str | None]
) -> tuple[list[str | None], list[Extraction | None]]:
    """Run the extractor *name* over aligned predictions.

    Returns the extracted texts (``None`` stays ``None``) and the per-item
    :class:`Extraction` traces; each distinct string is extracted once.
    """
    ext = get_answer_extractor(name)
    traces = ext.many(predictions)
    return [None if t is None else t.text for t in traces], traces


def rule_counts(traces: list[Extraction | None]) -> dict[str, int]:
    """How many answers each rule changed (an answer changed by two rules counts for both)."""
    out: dict[str, int] = {}
    for t in traces:
        if t is not None:
            for r in t.rules:
                out[r] = out.get(r, 0) + 1
    return out
