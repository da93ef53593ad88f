"""Diagnostics: which predictions look like chat replies rather than short answers.

A prediction is *verbose* when it shows one of these signs (the reasons):

=================  ==========================================================================
reason             sign
=================  ==========================================================================
reasoning_block    a ``<think>``-style tag (``think``, ``thinking``, ``reasoning``,
                   ``analysis``, ``reflection``)
answer_marker      "the answer is", "answer:", "final answer", ``<answer>``, ``\\boxed{}``
markdown           ``**bold**``, ``__x__``, code ticks, a heading or a list bullet
sentences          several sentences or lines, or one full sentence (3+ words and a final
                   ``.``, ``!`` or ``?``)
long               more words than the question's short answers have: more than
                   :func:`word_limit` of its references (5, or twice the longest
                   reference), or a fixed 5 when the references are not given
=================  ==========================================================================

Diagnostics never change a score: they say why a faithful score may be low and point to
``--extract``. Each distinct prediction string is examined once, so a large file with few
distinct answers costs little.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, cast

__all__ = ["REASONS", "Diagnostics", "diagnose", "verbose_reasons", "word_limit"]

REASONS = ("reasoning_block", "answer_marker", "markdown", "sentences", "long")

#: Words above which a prediction counts as long for a short-answer task.
DEFAULT_MAX_WORDS = 5
#: Examples kept for the reports.
N_EXAMPLES = 5


@functools.cache
def _long_patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The reasoning-block, answer-marker and markdown patterns, compiled on first use: short
    predictions (the common case, below) never need them (issue 23)."""
    reasoning = re.compile(r"</?(?:think|thinking|reasoning|analysis|reflection)\b", re.IGNORECASE)
    marker = re.compile(
        r"\banswer\s*(?:is\b|:|=)|<answer\b|\\boxed\{|答案\s*(?:是|为|：|:)", re.IGNORECASE
    )
    # ``^[^\S\n]*``, not ``^\s*``: found or not the same (a heading mark after blank lines is at
    # the start of its own line too), but ``\s*`` rescans a run of blank lines from each (n²)
    markdown = re.compile(r"\*\*|__\S|`|^[^\S\n]*#{1,6}\s|^[^\S\n]*[-*+•]\s+\S", re.MULTILINE)
    return reasoning, marker, markdown


@functools.cache
def _short_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The sentence-end pattern and the characters behind every sign but "sentences" and
    "long", compiled on first use: a task that never diagnoses (yes/no, choices) never
    compiles them (issue 23)."""
    sentence_end = re.compile(r"[.!?。！？](?:\s+|$)")
    special = re.compile(r"[<*`_#\\\n]|answer|答案", re.IGNORECASE)
    return sentence_end, special


def _reasons(text: str, max_words: int) -> tuple[str, ...]:
    sentence_end, special = _short_patterns()
    stripped = text.strip()
    n_words = len(stripped.split())
    if n_words <= 2 and special.search(stripped) is None:  # the common case, cheaply
        return ("sentences",) if len(sentence_end.findall(stripped)) >= 2 else ()
    found = []
    reasoning, marker, markdown = _long_patterns()
    if reasoning.search(stripped):
        found.append("reasoning_block")
    if marker.search(stripped):
        found.append("answer_marker")
    if markdown.search(stripped):
        found.append("markdown")
    ends = len(sentence_end.findall(stripped))
    lines = sum(1 for line in stripped.split("\n") if line.strip())
    full_sentence = n_words >= 3 and stripped[-1] in ".!?。！？"
    if ends >= 2 or lines >= 2 or full_sentence:
        found.append("sentences")
    if n_words > max_words:
        found.append("long")
    return tuple(found)


def word_limit(references: Sequence[str], minimum: int = DEFAULT_MAX_WORDS) -> int:
    """Words above which a prediction looks long for a question with these *references*:
    ``max(minimum, 2 × words of the longest reference)``.

    A short-answer task's answers are a few words (the limit is 5); a task whose answers are
    titles or sentences (OCR-VQA, ChartQA labels) allows twice its longest reference, so an
    answer as long as the truth is never called verbose.

    Examples
    --------
    >>> word_limit(["yes", "no"])
    5
    >>> word_limit(["the lord of the rings"])
    10
    """
    longest = max((len(r.split()) for r in references), default=0)
    return max(minimum, 2 * longest)


def verbose_reasons(text: str, *, max_words: int = DEFAULT_MAX_WORDS) -> tuple[str, ...]:
    """The reasons (see :data:`REASONS`) why *text* looks verbose; empty when it does not.

    Examples
    --------
    >>> verbose_reasons("The answer is 2.")
    ('answer_marker', 'sentences')
    >>> verbose_reasons("2")
    ()
    """
    return _reasons(text, max_words)


@dataclass(frozen=True)
class Diagnostics:
    """How many predictions look verbose, why, and a few examples.

    Attributes
    ----------
    n:
        Predictions examined (missing ones are not counted).
    verbose:
        Predictions with at least one reason.
    reasons:
        Reason -> how many predictions show it (a prediction may show several).
    examples:
        Up to 5 verbose predictions as ``(position, text, reasons)``, first ones first.
    flags:
        Per position of the input, the reasons (empty tuple: not verbose; ``None``: missing).
    """

    n: int
    verbose: int
    reasons: dict[str, int]
    examples: tuple[tuple[int, str, tuple[str, ...]], ...]
    _flags: Callable[[], list[tuple[str, ...] | None]] = field(repr=False, compare=False)

    @cached_property
    def flags(self) -> list[tuple[str, ...] | None]:
        """Per position of the input: the reasons (``()``: not verbose; ``None``: missing)."""
        return self._flags()

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled with its flags worked out (they are built by a closure, on demand)."""
        fixed: Callable[[], list[tuple[str, ...] | None]] = functools.partial(list, self.flags)
        return (type(self), (self.n, self.verbose, self.reasons, self.examples, fixed))

    def as_dict(self, ids: Sequence[Any] | None = None) -> dict[str, Any]:
        """The ``"diagnostics"`` entry of ``--json``; with *ids* (the question ids, in the
        order of the predictions) each example names its question too."""
        examples = []
        for i, t, r in self.examples:
            ex: dict[str, Any] = {"position": i}
            if ids is not None and i < len(ids):
                ex["question_id"] = ids[i]
            examples.append({**ex, "text": t, "reasons": list(r)})
        return {
            "verbose_predictions": self.verbose,
            "predictions": self.n,
            "reasons": dict(self.reasons),
            "examples": examples,
        }

    def warning(self) -> str | None:
        """The stderr line when some predictions look verbose, else ``None``."""
        if not self.verbose:
            return None
        top = ", ".join(f"{k} {v}" for k, v in self.reasons.items() if v)
        return (
            f"warning: {self.verbose} of {self.n} predictions look verbose ({top}); the score "
            "counts them as written. To score the answer inside them, see --extract "
            "(e.g. --extract answer)"
        )


def diagnose(
    predictions: Sequence[str | None],
    *,
    max_words: int | Sequence[int] = DEFAULT_MAX_WORDS,
    references: Sequence[Sequence[str]] | None = None,
) -> Diagnostics:
    """Count the predictions that look like chat replies rather than short answers.

    Parameters
    ----------
    predictions : sequence of str or None
        Raw predictions; ``None`` (missing) is skipped.
    max_words : int or sequence of int, default=5
        Words above which a prediction counts as ``long``; one value, or one per prediction
        (tasks with long answers, such as book titles, pass a limit from their references).
    references : sequence of sequences of str, optional
        Each prediction's reference answers: the limit of each question is then
        ``word_limit(references[i], max_words)`` (*max_words* an int). Every command uses this,
        so ``vqa`` and ``score TASK`` count the same predictions on the same file.

    Returns
    -------
    Diagnostics
        Counts, examples and per-position flags. Never used by any score.
    """
    if references is not None:
        if not isinstance(max_words, int):
            raise ValueError("max_words: give one value when references are given")
        if len(references) != len(predictions):
            raise ValueError("references: give one list per prediction")
        return _diagnose_with_references(predictions, references, max_words)
    if isinstance(max_words, int):
        fixed, limits = max_words, None
    else:
        fixed, limits = 0, list(max_words)
        if len(limits) != len(predictions):
            raise ValueError("max_words: give one value, or one per prediction")
    if limits is None:
        # one look per distinct string (a large file has few distinct answers); the per-position
        # flags are built only when a per-question output asks for them
        tally, missing, seen = _distinct(predictions, fixed)
        verbose, counts = _tally_reasons(tally, seen)
        preds = predictions

        def flags() -> list[tuple[str, ...] | None]:
            return _flags_of(seen, preds)

        examples = _examples(preds, lambda i, t: seen[t]) if verbose else ()
        return Diagnostics(len(predictions) - missing, verbose, counts, examples, flags)
    cache: dict[tuple[str, int], tuple[str, ...]] = {}
    per = [
        None if text is None else _reasons_cached(cache, text, limit)
        for text, limit in zip(predictions, limits, strict=True)
    ]
    counts = dict.fromkeys(REASONS, 0)
    kept: list[tuple[int, str, tuple[str, ...]]] = []
    verbose = 0
    for i, flag in enumerate(per):
        if flag:
            verbose += 1
            for r in flag:
                counts[r] += 1
            if len(kept) < N_EXAMPLES:
                kept.append((i, predictions[i] or "", flag))
    n = len(per) - per.count(None)
    return Diagnostics(n, verbose, counts, tuple(kept), lambda: per)


def _distinct(
    predictions: Sequence[str | None], limit: int
) -> tuple[Counter[str], int, dict[str, tuple[str, ...]]]:
    """The distinct predictions with their counts, how many are missing, and the reasons of
    each distinct string under *limit*: a string is examined once however often it stands."""
    tally: Counter[str | None] = Counter(predictions)
    missing = tally.pop(None, 0)
    present: Counter[str] = tally  # type: ignore[assignment]  # None was popped
    return present, missing, {t: _reasons(t, limit) for t in present}


def _flags_of(
    seen: dict[str, tuple[str, ...]], predictions: Sequence[str | None]
) -> list[tuple[str, ...] | None]:
    """The reasons of each prediction (``None`` where it is missing), from the reasons of each
    distinct text: *seen* holds every text, and no ``None``."""
    lookup = cast("dict[str | None, tuple[str, ...]]", seen)
    return list(map(lookup.get, predictions))


def _tally_reasons(
    tally: Counter[str], seen: dict[str, tuple[str, ...]]
) -> tuple[int, dict[str, int]]:
    """How many predictions look verbose, and how many show each reason, from the reasons of
    each distinct string times its count."""
    counts = dict.fromkeys(REASONS, 0)
    verbose = 0
    for text, c in tally.items():
        hits = seen[text]
        if hits:
            verbose += c
            for r in hits:
                counts[r] += c
    return verbose, counts


def _reasons_cached(
    cache: dict[tuple[str, int], tuple[str, ...]], text: str, limit: int
) -> tuple[str, ...]:
    """``_reasons(text, limit)``, examined once per (text, limit) pair."""
    key = (text, limit)
    hit = cache.get(key)
    if hit is None:
        hit = cache[key] = _reasons(text, limit)
    return hit


def _examples(
    predictions: Sequence[str | None], hits_of: Callable[[int, str], tuple[str, ...]]
) -> tuple[tuple[int, str, tuple[str, ...]], ...]:
    """The first :data:`N_EXAMPLES` verbose predictions as ``(position, text, reasons)``, the
    reasons of position *i* being ``hits_of(i, text)``."""
    examples: list[tuple[int, str, tuple[str, ...]]] = []
    for i, text in enumerate(predictions):
        if text is None:
            continue
        hits = hits_of(i, text)
        if hits:
            examples.append((i, text, hits))
            if len(examples) == N_EXAMPLES:
                break
    return tuple(examples)


def _diagnose_with_references(
    predictions: Sequence[str | None], references: Sequence[Sequence[str]], minimum: int
) -> Diagnostics:
    """:func:`diagnose` with a per-question limit, at the cost of the fixed one.

    A question's limit is never below *minimum*, so only a prediction that is long under
    *minimum* can change: the distinct strings are examined once with *minimum*, and only
    the positions holding a long one are examined again with their own limit.
    """
    tally, missing, seen = _distinct(predictions, minimum)
    long_texts = {t for t, hits in seen.items() if "long" in hits}
    cache: dict[tuple[str, int], tuple[str, ...]] = {}
    changed: dict[int, tuple[str, ...]] = {}
    if long_texts:
        for i, text in enumerate(predictions):
            if text is not None and text in long_texts:
                limit = word_limit(references[i], minimum)
                if limit > minimum:
                    changed[i] = _reasons_cached(cache, text, limit)
    verbose, counts = _tally_reasons(tally, seen)
    for i, hits in changed.items():
        old = seen[predictions[i]]  # type: ignore[index]  # a changed position holds a text
        for r in old:
            counts[r] -= 1
        for r in hits:
            counts[r] += 1
        verbose -= bool(old) - bool(hits)

    def hits_at(i: int, text: str) -> tuple[str, ...]:
        return changed.get(i, seen[text])

    examples = _examples(predictions, hits_at) if verbose else ()

    def flags() -> list[tuple[str, ...] | None]:
        out = _flags_of(seen, predictions)
        for i, hits in changed.items():
            out[i] = hits
        return out

    return Diagnostics(len(predictions) - missing, verbose, counts, examples, flags)
