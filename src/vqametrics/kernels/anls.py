r"""ANLS (Average Normalized Levenshtein Similarity), exactly as each toolkit computes it.

.. math::

    s_q = \max_{a \in A_q} \bigl(1 - \mathrm{NL}(p_q, a)\bigr)\ \text{if kept, else } 0,
    \qquad
    \mathrm{NL}(p, a) = \frac{\mathrm{lev}(f(a), f(p))}{L(p, a)}

Every toolkit agrees on this shape and disagrees on the edges: the normalizer :math:`f`, the
length :math:`L` (raw or normalized strings, ``.upper()`` or not), whether a similarity of
exactly 0.5 is kept, and what two empty strings give (spec ``vqa-family.md`` §5). One pure
function per toolkit below; each names the quirks it reproduces. The aggregation (a mean, ×100
for some) lives with the tasks (``tasks/anls.py``).

The edit distance is the Levenshtein distance over Python code points. :func:`levenshtein` asks
rapidfuzz (bit-parallel C++, imported on first use) with a *bound*: when the distance cannot keep
a similarity above the threshold, it reports "more than the bound" (the score is then 0 whatever
the exact distance), which keeps two long dissimilar answers linear-ish instead of quadratic.
:func:`levenshtein_reference` is the plain DP written here, the reference the tests compare the
fast path against (and the fallback when rapidfuzz is not importable).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..core.exceptions import InputError

__all__ = [
    "UndefinedScoreError",
    "anls_lmms_eval",
    "anls_mmf",
    "anls_official",
    "anls_paper",
    "anls_pix2struct",
    "anls_stvqa_2019",
    "anls_vlmevalkit",
    "levenshtein",
    "levenshtein_reference",
]


class UndefinedScoreError(InputError):
    """The reproduced scorer has no value here (it divides by zero); vqametrics raises this
    ``ValueError`` instead of inventing a number."""


_Distance = Callable[..., int]
_fast: _Distance | None = None


def _load_fast() -> _Distance:
    """rapidfuzz's ``Levenshtein.distance`` (imported once, on first use: it costs tens of
    milliseconds that a command scoring no ANLS task should not pay); the pure DP without it."""
    global _fast
    fast: _Distance
    try:
        from rapidfuzz.distance import Levenshtein
    except ImportError:  # rapidfuzz is a core dependency: only a broken install lands here

        def pure(a: str, b: str, *, score_cutoff: int | None = None) -> int:
            return levenshtein_reference(a, b, score_cutoff)

        fast = pure
    else:
        fast = Levenshtein.distance
    _fast = fast
    return fast


def levenshtein(a: str, b: str, bound: int | None = None) -> int:
    """Edit distance (insertions, deletions, substitutions; cost 1 each) between *a* and *b*,
    over code points, from rapidfuzz.

    With *bound*, any distance above it is reported as ``bound + 1`` (rapidfuzz's
    ``score_cutoff`` has exactly this meaning); distances up to *bound* are exact. The result is
    always that of :func:`levenshtein_reference`.

    >>> levenshtein("kitten", "sitting")
    3
    """
    _check(a, b, bound)
    return _distance(a, b, bound)


def _distance(a: str, b: str, bound: int | None) -> int:
    """The scorers' edit distance (arguments already checked): rapidfuzz with the cut-off."""
    return (_fast or _load_fast())(a, b, score_cutoff=bound)


def levenshtein_reference(a: str, b: str, bound: int | None = None) -> int:
    """The plain Levenshtein DP in Python: the reference :func:`levenshtein` is tested against.

    With *bound*, any distance above it is reported as ``bound + 1`` (the DP stops as soon as
    every cell of a row exceeds the bound); distances up to *bound* are exact. Exits that change
    no result: equal strings, common prefix and suffix, a length gap beyond the bound.

    >>> levenshtein_reference("kitten", "sitting")
    3
    """
    _check(a, b, bound)
    if a == b:
        return 0
    # common prefix and suffix never take part in an optimal alignment's edits
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    j = 0
    while j < n - i and a[-1 - j] == b[-1 - j]:
        j += 1
    if i or j:
        a = a[i : len(a) - j]
        b = b[i : len(b) - j]
    if len(a) > len(b):
        a, b = b, a
    la, lb = len(a), len(b)
    if bound is not None and lb - la > bound:
        return bound + 1
    if la == 0:
        return lb
    prev = list(range(la + 1))
    for row, cb in enumerate(b, 1):
        cur = [row]
        left = row
        for col, ca in enumerate(a):
            value = prev[col]  # diagonal: a match costs nothing
            if ca != cb:
                up = prev[col + 1]
                if up < value:
                    value = up
                if left < value:
                    value = left
                value += 1
            cur.append(value)
            left = value
        if bound is not None and min(cur) > bound:
            return bound + 1
        prev = cur
    d = prev[la]
    return d if bound is None or d <= bound else bound + 1


def _check(a: object, b: object, bound: object) -> None:
    if not isinstance(a, str) or not isinstance(b, str):
        raise InputError(f"levenshtein compares two strings, got {a!r} and {b!r}")
    if bound is not None and (not isinstance(bound, int) or isinstance(bound, bool) or bound < 0):
        raise InputError(f"levenshtein's bound is a count of edits (an int >= 0), got {bound!r}")


def _need(prediction: object, references: Sequence[str]) -> None:
    """The library's error (not an ``AttributeError`` deep inside) for arguments of the wrong
    kind: a string prediction and a non-empty sequence of string answers."""
    if not isinstance(prediction, str):
        raise InputError(f"ANLS scores a string prediction, got {prediction!r}")
    if (
        isinstance(references, str)
        or not isinstance(references, Sequence)
        or not references
        or not all(isinstance(a, str) for a in references)
    ):
        raise InputError(
            f"ANLS needs a non-empty list of string reference answers, got {references!r}"
        )


def _bound(length: int, threshold: float) -> int:
    """A distance above which no rule keeps a similarity (d/L beyond both t and 1 − t)."""
    return int(max(threshold, 1.0 - threshold) * length) + 1


def _collapse(text: str) -> str:
    """``" ".join(text.strip().lower().split())``: the RRC script's normalization."""
    return " ".join(text.strip().lower().split())


def _rrc_nl(det_norm: str, det_len: int, answer: str, norm: str, threshold: float) -> float:
    """One answer's NL in the RRC script: distance on normalized strings, length of the RAW
    strings' ``.upper()``."""
    length = max(len(answer.upper()), det_len)
    if length == 0:
        return 0.0
    d = _distance(norm, det_norm, _bound(length, threshold))
    return float(d) / float(length)


def _rrc_similarity(
    prediction: str, references: Sequence[str], norm: Callable[[str], str], threshold: float
) -> float:
    """``1 - min_a NL(norm(p), norm(a))`` with the raw ``.upper()`` lengths, zeroed below
    *threshold*: the RRC scripts, which differ only in *norm*."""
    det = norm(prediction)
    norms = [norm(a) for a in references]
    if det in norms:  # an NL of 0 is the minimum: skip the other answers' DPs
        return 1.0
    det_len = len(prediction.upper())
    best = min(
        _rrc_nl(det, det_len, a, n, threshold) for a, n in zip(references, norms, strict=True)
    )
    result = 1 - best
    return 0.0 if result < threshold else result


def anls_official(prediction: str, references: Sequence[str], threshold: float = 0.5) -> float:
    r"""The DocVQA / InfographicVQA RRC script: :math:`1 - \min_a \mathrm{NL}`, zeroed when
    below *threshold*.

    Quirks kept, because they are what the leaderboard computed:

    * **raw length** — the distance is measured on stripped, lower-cased, whitespace-collapsed
      strings, but divided by ``max(len(a.upper()), len(p.upper()))`` of the RAW strings, so
      padding a prediction with spaces *raises* its score (``"ab   "`` vs ``"ac"`` → 0.8) and
      ``ß`` (``.upper()`` = ``SS``) counts two;
    * **0.5 is kept** — only a similarity strictly below the threshold is zeroed;
    * two empty strings give NL 0, so similarity 1.

    >>> anls_official("ab   ", ["ac"])
    0.8
    """
    _need(prediction, references)
    return _rrc_similarity(prediction, references, _collapse, threshold)


def anls_stvqa_2019(prediction: str, references: Sequence[str], threshold: float = 0.5) -> float:
    """The ST-VQA (2019, RRC ch=11) form: the distance on ``.lower()`` only — no strip, no
    whitespace collapse — with the same raw ``.upper()`` length and 0.5 kept.

    Quirk kept: surrounding spaces count as edits (``"42"`` vs ``" 42 "`` → 0.5).
    """
    _need(prediction, references)
    return _rrc_similarity(prediction, references, str.lower, threshold)


def anls_lmms_eval(prediction: str, references: Sequence[str], threshold: float = 0.5) -> float:
    """lmms-eval ``anls``: the RRC formula on the generation *after* lmms-eval strips it
    (``api/task.py``), so the raw length shrinks (``"ab   "`` vs ``"ac"`` → 0.5, not 0.8)."""
    _need(prediction, references)
    return anls_official(prediction.strip(), references, threshold)


def anls_vlmevalkit(prediction: str, references: Sequence[str], threshold: float = 0.5) -> float:
    """VLMEvalKit ``anls_compute`` + ``hit_calculate`` (DocVQA, InfoVQA): the RRC formula on
    the unstripped prediction (``str(prediction)``); identical per item to :func:`anls_official`."""
    return anls_official(prediction, references, threshold)


def anls_mmf(prediction: str, references: Sequence[str], threshold: float = 0.5) -> float:
    """MMF ``STVQAANLSEvaluator``: ``.lower().strip()`` (no collapse), lengths of those
    stripped strings, similarity ``>= 0.5`` kept.

    Quirk reproduced as an error: two strings that are empty after stripping divide by zero in
    MMF, so :class:`UndefinedScoreError` is raised.
    """
    _need(prediction, references)
    det = prediction.lower().strip()
    if det and any(det == a.lower().strip() for a in references):
        return 1.0  # a non-empty prediction never divides by zero
    best = 0.0
    for answer in references:
        gt = answer.lower().strip()
        length = max(len(det), len(gt))
        if length == 0:
            raise UndefinedScoreError(
                "MMF's ANLS divides by zero when the prediction and an answer are both empty "
                f"after lower().strip() (prediction {prediction!r}, answer {answer!r})"
            )
        d = _distance(det, gt, _bound(length, threshold))
        iou = 1 - d / length
        score = iou if iou >= threshold else 0.0
        if score > best:
            best = score
    return best


def anls_pix2struct(prediction: str, references: Sequence[str], threshold: float = 0.5) -> float:
    """pix2struct ``anls_metric`` with ``normalize_fn=lower``: lower-case only, lengths of the
    lowered strings, kept only when NL is strictly below *threshold* (so NL = 0.5 gives 0).

    Quirk reproduced as an error: two empty strings divide by zero in pix2struct, so
    :class:`UndefinedScoreError` is raised.
    """
    _need(prediction, references)
    det = prediction.lower()
    if det and any(det == a.lower() for a in references):
        return 1.0  # a non-empty prediction never divides by zero
    best = 0.0
    for answer in references:
        gt = answer.lower()
        length = max(len(gt), len(det))
        if length == 0:
            raise UndefinedScoreError(
                "pix2struct's anls_metric divides by zero when the prediction and an answer "
                f"are both empty (prediction {prediction!r}, answer {answer!r})"
            )
        nl = _distance(gt, det, _bound(length, threshold)) / length
        score = 1 - nl if nl < threshold else 0.0
        if score > best:
            best = score
    return best


def anls_paper(prediction: str, references: Sequence[str], threshold: float = 0.5) -> float:
    """The paper's formula as PyPI ``anls`` (shunk031/ANLS) computes it: both sides stripped,
    lower-cased and whitespace-collapsed, the length measured on those *normalized* strings'
    ``.upper()``, kept only when NL is strictly below *threshold*; two empty strings give 1."""
    _need(prediction, references)
    det = _collapse(prediction)
    if any(det == _collapse(a) for a in references):
        return 1.0
    det_len = len(det.upper())
    best = 0.0
    for answer in references:
        gt = _collapse(answer)
        length = max(det_len, len(gt.upper()))
        nl = 0.0 if length == 0 else _distance(det, gt, _bound(length, threshold)) / length
        score = 1 - nl if nl < threshold else 0.0
        if score > best:
            best = score
    return best
