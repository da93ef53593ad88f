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

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ._names import BUILTIN_EXTRACTORS, MAX_SCAN_CHARS

if TYPE_CHECKING:
    from ._base import AnswerExtractor, Extraction, ExtractionRun
    from ._diagnostics import REASONS, Diagnostics, diagnose, verbose_reasons, word_limit
    from .answer import ANSWER_RULES, extract_answer

__all__ = [
    "ANSWER_RULES",
    "BUILTIN_EXTRACTORS",
    "MAX_SCAN_CHARS",
    "REASONS",
    "AnswerExtractor",
    "Diagnostics",
    "Extraction",
    "ExtractionRun",
    "answer_extractor_names",
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

_builtins_loaded = False


def _load_builtins() -> None:
    """Import the modules that register this package's extractors, once, on first use of the
    registry: their patterns are compiled only by a run that extracts (issue 23)."""
    global _builtins_loaded
    if not _builtins_loaded:
        from . import answer, peers  # noqa: F401 - imported for their registrations

        _builtins_loaded = True


def answer_extractor_names() -> list[str]:
    """The registered extractors' names, in listing order, without importing the built-in
    ones while nothing else is registered (what the command line offers as choices)."""
    base = sys.modules.get(f"{__name__}._base")  # nothing is registered before it is loaded
    if base is None or not base._REGISTRY:
        return list(BUILTIN_EXTRACTORS)
    _load_builtins()
    return [e.name for e in base.list_answer_extractors()]


def list_answer_extractors() -> list[AnswerExtractor]:
    """The registered answer extractors: ``answer`` (ours) first, then the toolkits'."""
    from . import _base

    _load_builtins()
    return _base.list_answer_extractors()


def get_answer_extractor(name: str | AnswerExtractor) -> AnswerExtractor:
    """The extractor named *name* (an ``UnknownNameError`` listing the names if none is)."""
    from . import _base

    _load_builtins()
    return _base.get_answer_extractor(name)


def register_answer_extractor(extractor: AnswerExtractor) -> AnswerExtractor:
    """Add *extractor* to the registry (a name is registered once, ours first)."""
    from . import _base

    _load_builtins()
    return _base.register_answer_extractor(extractor)


#: names read from the ``answer`` module on first use: its patterns are compiled only then
_FROM_ANSWER = ("ANSWER_RULES", "extract_answer")
#: names read from ``_base`` on first use: its dataclasses are made only by a run that
#: extracts (a score without ``--extract`` needs the diagnostics alone: issue 23)
_FROM_BASE = ("AnswerExtractor", "Extraction", "ExtractionRun")


#: the diagnostics, loaded on first use: a run whose parser reads sentences by design (yes/no,
#: choices) never diagnoses, and their patterns and dataclass cost 3 ms to import (issue 23)
_FROM_DIAGNOSTICS = {"REASONS", "Diagnostics", "diagnose", "verbose_reasons", "word_limit"}


def __getattr__(name: str) -> Any:
    if name in _FROM_DIAGNOSTICS:
        from . import _diagnostics

        return getattr(_diagnostics, name)
    if name in _FROM_ANSWER:
        from . import answer

        return getattr(answer, name)
    if name in _FROM_BASE:
        from . import _base

        return getattr(_base, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def apply_extractor(
    name: str | AnswerExtractor, predictions: Sequence[str | None]
) -> ExtractionRun:
    """Run the extractor *name* over aligned predictions, each distinct string once.

    Raises
    ------
    UnknownNameError
        *name* is not registered.
    """
    from ._base import ExtractionRun

    ext = get_answer_extractor(name)
    return ExtractionRun(ext.name, list(predictions), ext.many(predictions))


def rule_counts(traces: Sequence[Extraction | None]) -> dict[str, int]:
    """How many answers each rule changed (an answer changed by two rules counts for both)."""
    from ._base import ExtractionRun

    return ExtractionRun("", [], list(traces)).rule_counts()
