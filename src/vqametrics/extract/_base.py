"""What an answer extractor returns, and the registry it lives in."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..core.exceptions import UnknownNameError
from ._names import BUILTIN_EXTRACTORS, MAX_SCAN_CHARS

__all__ = [
    "BUILTIN_EXTRACTORS",
    "MAX_SCAN_CHARS",
    "AnswerExtractor",
    "Extraction",
    "ExtractionRun",
    "get_answer_extractor",
    "list_answer_extractors",
    "register_answer_extractor",
]


@dataclass(frozen=True)
class Extraction:
    """The text an extractor kept and the trace of the rules that changed it.

    Attributes
    ----------
    text:
        The extracted answer (the raw text when no rule fired).
    rules:
        The names of the rules that changed the text, in the order they ran; empty when the
        raw text was kept as is.
    """

    text: str
    rules: tuple[str, ...] = ()

    @property
    def rule(self) -> str | None:
        """The rules that fired joined by ``+`` (``None`` when none did): the per-item trace."""
        return "+".join(self.rules) if self.rules else None

    @property
    def changed(self) -> bool:
        return bool(self.rules)


_CUT = re.compile(r"[<\s]")


def _tail(text: str) -> str:
    """The last :data:`MAX_SCAN_CHARS` characters, moved on to the first ``<`` or space among
    the first 256 so that the cut does not leave half a tag or a word at the start."""
    tail = text[-MAX_SCAN_CHARS:]
    m = _CUT.search(tail, 0, 256)
    return tail[m.start() :] if m is not None else tail


def bounded(fn: Callable[[str], Extraction]) -> Callable[[str], Extraction]:
    """Wrap an extraction function so that it sees at most the last :data:`MAX_SCAN_CHARS`
    characters of its text, the cut traced as the rule ``truncated``."""

    @functools.wraps(fn)
    def extract(text: str) -> Extraction:
        if len(text) <= MAX_SCAN_CHARS:
            return fn(text)
        inner = fn(_tail(text))
        return Extraction(inner.text, ("truncated", *inner.rules))

    return extract


class _Trace:
    """Apply named rules in order, recording the ones that changed the text."""

    __slots__ = ("rules", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.rules: list[str] = []

    def apply(self, name: str, new: str) -> None:
        if new != self.text:
            self.rules.append(name)
            self.text = new

    def result(self) -> Extraction:
        return Extraction(self.text, tuple(self.rules))


@dataclass(frozen=True)
class AnswerExtractor:
    """One named answer-extraction rule set (ours or a toolkit's post-processing).

    Attributes
    ----------
    name:
        Registry name; the signature records it as ``extract:<name>``.
    description:
        One line: what it does.
    reproduces:
        ``vqametrics`` for our own rules, else the toolkit code (``repo@commit:path``).
    rules:
        The rule names it can report, in the order it tries them.
    """

    name: str
    description: str
    reproduces: str
    rules: tuple[str, ...]
    _fn: Callable[[str], Extraction]

    def __post_init__(self) -> None:
        object.__setattr__(self, "_fn", bounded(self._fn))  # every extractor is bounded

    def __call__(self, text: str) -> Extraction:
        """Extract the answer from one raw prediction (at most its last
        :data:`MAX_SCAN_CHARS` characters are scanned)."""
        return self._fn(text)

    def many(self, texts: Iterable[str | None]) -> list[Extraction | None]:
        """Extract from many predictions, each distinct string once (``None`` stays ``None``)."""
        cache: dict[str, Extraction] = {}
        fn = self._fn
        out: list[Extraction | None] = []
        for t in texts:
            if t is None:
                out.append(None)
                continue
            hit = cache.get(t)
            if hit is None:
                hit = cache[t] = fn(t)
            out.append(hit)
        return out


@dataclass(frozen=True, eq=False)
class ExtractionRun:
    """An extractor applied to aligned predictions: the raw texts and the per-item traces."""

    name: str
    raw: list[str | None]
    traces: list[Extraction | None]

    @property
    def texts(self) -> list[str | None]:
        """The extracted predictions (``None`` stays ``None``)."""
        return [None if t is None else t.text for t in self.traces]

    def rule_counts(self) -> dict[str, int]:
        """How many answers each rule changed (an answer changed by two rules counts twice)."""
        out: dict[str, int] = {}
        for t in self.traces:
            if t is not None:
                for r in t.rules:
                    out[r] = out.get(r, 0) + 1
        return out

    def as_dict(self) -> dict[str, Any]:
        """The ``"extract"`` entry of ``--json``."""
        changed = sum(1 for t in self.traces if t is not None and t.rules)
        return {"name": self.name, "changed": changed, "rules": self.rule_counts()}

    def record(self, i: int) -> dict[str, Any]:
        """The per-question fields: raw text, extracted text and the rules that fired."""
        t = self.traces[i]
        if t is None:
            return {}
        return {"raw_prediction": self.raw[i], "extracted": t.text, "extract_rule": t.rule}


_REGISTRY: dict[str, AnswerExtractor] = {}


def register_answer_extractor(extractor: AnswerExtractor) -> AnswerExtractor:
    """Add *extractor* to the registry (a name is registered once)."""
    if extractor.name in _REGISTRY:
        raise ValueError(f"answer extractor {extractor.name!r} is already registered")
    _REGISTRY[extractor.name] = extractor
    return extractor


def list_answer_extractors() -> list[AnswerExtractor]:
    """The registered answer extractors: ``answer`` (ours) first, then the toolkits', then any
    registered by the user, whatever order their modules were imported in."""
    ours = [_REGISTRY[name] for name in BUILTIN_EXTRACTORS if name in _REGISTRY]
    return ours + [e for name, e in _REGISTRY.items() if name not in BUILTIN_EXTRACTORS]


def get_answer_extractor(name: str | AnswerExtractor) -> AnswerExtractor:
    """Look an answer extractor up by name.

    Raises
    ------
    UnknownNameError
        *name* is not registered; the message lists the valid names.
    """
    if isinstance(name, AnswerExtractor):
        return name
    try:
        return _REGISTRY[name]
    except KeyError:
        valid = ", ".join(e.name for e in list_answer_extractors())
        raise UnknownNameError(f"unknown answer extractor {name!r}; valid: {valid}") from None
