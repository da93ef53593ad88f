"""HallusionBench kernels: judge verdicts and the two aggregations (official, VLMEvalKit).

Pure functions over plain records, no I/O. The official evaluation (``tianyi-lab/HallusionBench``
@ 744007c ``utils.py``) counts a question right from a recorded GPT judge verdict and groups
questions by figure and by question across figures; VLMEvalKit (``vlmeval/dataset/utils/yorn.py``
``Hallusion_rating`` @ e8e78f0) groups rule-based yes/no scores by ``l2-category``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..core.exceptions import InputError
from .keywords import first_keyword

__all__ = [
    "HallusionScoreError",
    "HbQuestion",
    "OfficialStats",
    "official_correct",
    "official_stats",
    "same_code",
    "verdict_code",
    "vlmevalkit_rating",
]

VERDICTS = ("0", "1", "2")


class HallusionScoreError(InputError):
    """The reproduced scorer fails on this input (a zero denominator, a duplicate question)."""


def verdict_code(reply: str) -> str:
    """The judge reply as the official code: ``"0"`` if ``incorrect`` occurs in it (lower-cased),
    else ``"1"`` if ``correct`` does, else ``"2"`` (unclear).

    QUIRK incorrect-first: ``incorrect`` contains ``correct``, so it must be tested first; a
    reply such as ``Not incorrect`` is therefore ``"0"``. Kept: it is what every recorded
    verdict of the official and lmms-eval runs was made with.

    >>> verdict_code("Correct."), verdict_code("INCORRECT"), verdict_code("unclear")
    ('1', '0', '2')
    """
    return first_keyword(reply.lower(), (("incorrect", "0"), ("correct", "1")), "2")


def same_code(reply: str) -> str:
    """The ``check_same`` reply as the official code: ``"1"`` if ``same`` occurs in it
    (lower-cased), else ``"0"`` (``different``, or anything else)."""
    return "1" if "same" in reply.lower() else "0"


def official_correct(category: str, figure_id: str, verdict: str) -> int:
    """``assign_correctness``: 1 for verdict ``"1"``; for a VS question without a figure
    (``figure_id`` 0) verdict ``"2"`` (unclear) also counts as correct.

    QUIRK unclear-without-figure: a model that says it cannot tell, when the question comes
    without its figure, is right by the official rule (it should not know); kept, it is the
    published definition.
    """
    code = str(verdict)
    if code not in VERDICTS:
        raise InputError(f"judge verdict {verdict!r} is not 0, 1 or 2")
    if category == "VS" and int(figure_id) == 0:
        return 1 if code in ("1", "2") else 0
    return 1 if code == "1" else 0


@dataclass(frozen=True)
class HbQuestion:
    """One question as the official scorer sees it (ids as strings, verdict a code)."""

    category: str
    subcategory: str
    set_id: str
    figure_id: str
    question_id: str
    visual_input: str
    verdict: str
    correct: int
    #: the ``check_same`` code (``"1"``/``"0"``), ``None`` when not recorded
    same: str | None = None
    #: the yes/no ground truth (``"1"``/``"0"``), ``None`` when not recorded
    gt_answer: str | None = None

    @property
    def question_key(self) -> str:
        return f"{self.figure_key}_{self.question_id}"

    @property
    def figure_key(self) -> str:
        return "_".join([self.category, self.subcategory, self.set_id, self.figure_id])

    @property
    def pair_key(self) -> str:
        return "_".join([self.category, self.subcategory, self.set_id, self.question_id])


@dataclass(frozen=True)
class OfficialStats:
    """The counts behind the official numbers of one set of questions."""

    n_questions: int
    correct_questions: int
    #: figures (VS figure 0 skipped): all right / none right / some right; mean per-figure share
    n_figures: int
    figures_correct: int
    figures_wrong: int
    figures_inconsistent: int
    figure_score: float | None
    #: question pairs (one question across its figures) and their easy / hard restrictions
    n_pairs: int
    pairs_correct: int
    n_easy: int
    easy_correct: int
    n_hard: int
    hard_correct: int
    #: the failure diagnosis per pair (``None`` without the ``check_same`` verdicts it needs)
    lh: int | None
    vi: int | None
    mix: int | None
    #: the same diagnosis per question (the ``_cg`` counters the leaderboard's % are of)
    lh_q: int | None
    vi_q: int | None
    mix_q: int | None


def _pairs(questions: Iterable[HbQuestion]) -> tuple[int, int]:
    groups: dict[str, list[int]] = {}
    for q in questions:
        groups.setdefault(q.pair_key, []).append(q.correct)
    return len(groups), sum(1 for v in groups.values() if all(v))


def _analysis(q: HbQuestion, orig: Mapping[str, str]) -> tuple[int, int] | None:
    """``get_eval_pair_all``'s (LH, VI) of one question; ``None`` when it needs ``same`` and the
    record has none. Figure 0 is the original question; others compare with its verdict."""
    v = q.verdict
    if q.figure_id == "0":
        if q.category == "VD":
            return (0, 1) if v in ("0", "2") else (0, 0)
        return (1, 0) if v == "0" else (0, 0)
    if q.pair_key not in orig:
        raise HallusionScoreError(
            f"question {q.question_key}: no figure-0 question {q.pair_key} to compare with (the "
            "official get_eval_pair_all looks its verdict up and fails)"
        )
    o = orig[q.pair_key]
    if q.category == "VD":
        if o == "1" and v == "0":
            if q.same is None:
                return None
            return (1, 1) if q.same == "1" else (0, 1)
        if o == "1" and v == "2":
            return (0, 1)
        return (0, 1) if v in ("0", "2") else (0, 0)
    if o == "0":
        if v == "0":
            if q.same is None:
                return None
            return (1, 0) if q.same == "1" else (1, 1)
        return (1, 1) if v == "2" else (0, 0)
    if o == "2":
        return (0, 1) if v in ("0", "2") else (0, 0)
    if v == "2":
        return (0, 1)
    if v == "0":
        if q.visual_input == "1":
            return (0, 1)
        if q.visual_input == "2":
            if q.same is None:
                return None
            return (1, 0) if q.same == "1" else (0, 1)
        raise HallusionScoreError(
            f"question {q.question_key}: visual_input {q.visual_input!r} on a VS question with a "
            "figure (the official script asserts 'Data error')"
        )
    return (0, 0)


def _diagnosis(
    questions: Sequence[HbQuestion],
) -> tuple[int, int, int, int, int, int] | None:
    """Pair-level LH / VI / Mix (a pair is Mix when both its LH and VI sums are positive) and
    the per-question counts; the pair counts must add up to the wrong pairs (asserted)."""
    orig = {q.pair_key: q.verdict for q in questions if q.figure_id == "0"}
    per_pair: dict[str, tuple[int, int]] = {}
    right: dict[str, list[int]] = {}
    lh_q = vi_q = mix_q = 0
    for q in questions:
        a = _analysis(q, orig)
        if a is None:
            return None
        if a[0] and a[1]:
            mix_q += 1
        elif a[0]:
            lh_q += 1
        elif a[1]:
            vi_q += 1
        lh, vi = per_pair.get(q.pair_key, (0, 0))
        per_pair[q.pair_key] = (lh + a[0], vi + a[1])
        right.setdefault(q.pair_key, []).append(q.correct)
    lh = vi = mix = wrong = 0
    for key, (a_lh, a_vi) in per_pair.items():
        wrong += 0 if all(right[key]) else 1
        if a_lh and a_vi:
            mix += 1
        elif a_lh:
            lh += 1
        elif a_vi:
            vi += 1
    if wrong != lh + vi + mix:
        raise HallusionScoreError(
            f"{wrong} wrong question pairs but LH + VI + Mix = {lh + vi + mix}: the official "
            "get_eval_pair_all asserts they are equal"
        )
    return lh, vi, mix, lh_q, vi_q, mix_q


def official_stats(questions: Sequence[HbQuestion], *, diagnose: bool = True) -> OfficialStats:
    """The counts of ``get_eval_all``, ``get_eval_fig``, ``get_eval_pair_all`` / ``_easy`` /
    ``_hard`` for *questions*.

    aAcc counts questions (keyed category_subcategory_set_figure_question, unique); fAcc
    groups by category_subcategory_set_figure and **skips VS figure 0** (no figure); qAcc groups
    by category_subcategory_set_question across figures; easy / hard are that pairing over
    ``visual_input != 2`` / ``== 2``. A figure or pair counts when all its questions are right.
    *diagnose*: also the LH / VI / Mix failure diagnosis (lmms-eval dropped it).
    """
    seen: set[str] = set()
    for q in questions:
        if q.question_key in seen:
            raise HallusionScoreError(
                f"question {q.question_key} twice (the official get_eval_all asserts each "
                "category_subcategory_set_figure_question is unique)"
            )
        seen.add(q.question_key)
    figures: dict[str, list[int]] = {}
    for q in questions:
        if q.category == "VS" and q.figure_id == "0":
            continue
        figures.setdefault(q.figure_key, []).append(q.correct)
    f_right = sum(1 for v in figures.values() if sum(v) == len(v))
    f_wrong = sum(1 for v in figures.values() if sum(v) == 0 and len(v))
    score = 0.0
    for v in figures.values():
        score += sum(v) / len(v)
    n_pairs, p_right = _pairs(questions)
    n_easy, e_right = _pairs(q for q in questions if q.visual_input != "2")
    n_hard, h_right = _pairs(q for q in questions if q.visual_input == "2")
    diag = _diagnosis(questions) if diagnose else None
    lh, vi, mix, lh_q, vi_q, mix_q = diag if diag is not None else (None,) * 6
    return OfficialStats(
        n_questions=len(questions),
        correct_questions=sum(1 for q in questions if q.correct),
        n_figures=len(figures),
        figures_correct=f_right,
        figures_wrong=f_wrong,
        figures_inconsistent=len(figures) - f_right - f_wrong,
        figure_score=score / len(figures) if figures else None,
        n_pairs=n_pairs,
        pairs_correct=p_right,
        n_easy=n_easy,
        easy_correct=e_right,
        n_hard=n_hard,
        hard_correct=h_right,
        lh=lh,
        vi=vi,
        mix=mix,
        lh_q=lh_q,
        vi_q=vi_q,
        mix_q=mix_q,
    )


#: one VLMEvalKit row: (category, l2-category, set_id, figure_id, question_id, score)
VlmRow = tuple[str | None, str, str, str, str, bool]


def vlmevalkit_rating(
    rows: Sequence[VlmRow], mean: Callable[[Sequence[float]], float]
) -> dict[str, dict[str, float]]:
    """``Hallusion_rating``: ``{split: {aAcc, fAcc, qAcc}}`` for ``Overall``, each category and
    each l2-category (first-seen order; VLMEvalKit iterates a ``set``, whose order varies).

    aAcc = mean(score)·100; fAcc = mean over ``l2_set_figure`` groups of all(score)·100; qAcc
    the same over ``l2_set_question`` groups. *mean* is ``np.mean`` (pairwise sum).

    QUIRK no-category-in-groups: the group keys leave out VD/VS, so a VD and a VS set with the
    same l2-category and set id merge (VLMEvalKit's own TSV prefixes l2-category with the
    category, ``VD_ocr``, so there they stay apart). QUIRK no-figure-kept: VS figure 0 is not
    skipped in fAcc. Kept: they are VLMEvalKit's (and OpenCompass's) numbers.
    """

    def rate(sel: Sequence[VlmRow]) -> dict[str, float]:
        figs: dict[str, list[bool]] = {}
        pairs: dict[str, list[bool]] = {}
        for _, l2, s, f, q, hit in sel:
            figs.setdefault(f"{l2}_{s}_{f}", []).append(hit)
            pairs.setdefault(f"{l2}_{s}_{q}", []).append(hit)
        return {
            "aAcc": mean([float(r[5]) for r in sel]) * 100,
            "fAcc": mean([float(all(v)) for v in figs.values()]) * 100,
            "qAcc": mean([float(all(v)) for v in pairs.values()]) * 100,
            "n": len(sel),
        }

    out = {"Overall": rate(rows)}
    cats: dict[str, None] = {}
    l2s: dict[str, None] = {}
    for r in rows:
        if r[0] is not None:
            cats.setdefault(r[0], None)
        l2s.setdefault(r[1], None)
    for c in cats:
        out[c] = rate([r for r in rows if r[0] == c])
    for c in l2s:
        out[c] = rate([r for r in rows if r[1] == c])
    return out
