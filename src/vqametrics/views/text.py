"""Plain-text views for the terminal."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..core.display import answer_counts
from ..core.display import text_table as table

if TYPE_CHECKING:
    from ..aggregate.stats import Difference, ResultsDiff
    from ..pipeline.vqa import VQAEvaluation
    from .explanation import Explanation

__all__ = [
    "answer_counts",
    "diff_text",
    "explanation_text",
    "table",
    "vqa_table",
]


def vqa_table(
    result: VQAEvaluation, extra: Mapping[str, Mapping[str, object]] | None = None
) -> str:
    """Overall, per answer type and per question type, with the signature underneath.

    *extra* maps a column name (e.g. ``"EM"``) to another breakdown of the same shape.
    """
    cols = {"VQA acc": result.accuracy, **(extra or {})}
    d = result.dataset
    if len(d.question_types) != len(d.answer_types):
        raise ValueError("question_types and answer_types differ in length")
    # Counter counts in C; only the keys of the breakdowns are looked up (never None)
    counts_q = Counter(d.question_types)
    counts_a = Counter(d.answer_types)
    rows: list[list[object]] = [
        ["overall", "", len(result.scores), *(_get(c, None) for c in cols.values())]
    ]
    for key in result.accuracy["perAnswerType"]:
        rows.append(
            [
                "answer type",
                key,
                counts_a[key],
                *(_get(c, ("perAnswerType", key)) for c in cols.values()),
            ]
        )
    for key in result.accuracy["perQuestionType"]:
        rows.append(
            [
                "question type",
                key,
                counts_q[key],
                *(_get(c, ("perQuestionType", key)) for c in cols.values()),
            ]
        )
    lines = [table(rows, ["", "group", "n", *cols], result.digits)]
    lines += [f"note: {n}" for n in result.notes]
    lines.append(result.signature.format())
    return "\n".join(lines)


def _get(breakdown: Mapping[str, object], key: tuple[str, str] | None) -> object:
    if key is None:
        return breakdown["overall"]
    group = breakdown[key[0]]
    return group.get(key[1], "") if isinstance(group, Mapping) else ""


def explanation_text(e: Explanation) -> str:
    """A terminal rendering of :func:`vqametrics.explain` (:meth:`Explanation.text`)."""
    return e.text()


def diff_text(d: ResultsDiff, label_a: str = "A", label_b: str = "B", top: int = 10) -> str:
    """A terminal rendering of :func:`vqametrics.aggregate.stats.diff_results`
    (``vqametrics diff``).

    The difference A − B overall and per breakdown with its paired interval and p-value, the
    *top* questions whose score changed most (with both predictions and the human answers),
    the method and the signature.
    """
    t = d.test
    out = [f"A: {label_a}  {d.score_a:.2f}", f"B: {label_b}  {d.score_b:.2f}", ""]
    rows: list[list[str]] = [_diff_row("overall", "", t.overall)]
    for name, label in (("perAnswerType", "answer type"), ("perQuestionType", "question type")):
        for key, diff in t.groups.get(name, {}).items():
            rows.append(_diff_row(label, key, diff))
    header = ["", "group", "n", "A − B", "95% lo", "95% hi", "p", "changed"]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    rows = [[c if i < 2 else c.rjust(widths[i]) for i, c in enumerate(r)] for r in rows]
    out.append(table(rows, header))
    s = t.settings()
    unit = "images" if s["resampled"] == "images" else "questions"
    out.append(
        f"note: A − B in percentage points (unrounded: {t.overall.delta!r}); 95% interval: "
        f"paired {s['method']} bootstrap over {s['clusters']} {unit} ({s['n_bootstrap']} "
        f"replicates); p: two-sided sign-flip permutation test flipping whole {unit} "
        f"({s['permutation']}, {s['n_permutations']} permutations); seed {s['seed']}"
    )
    if any(t.groups.get(name) for name in t.groups):
        out.append("note: the breakdowns' p-values are not corrected for multiple comparisons")
    flips = d.flips
    if flips:
        better_a = sum(1 for f in flips if f["difference"] > 0)
        shown = flips[: max(0, top)]
        out += [
            "",
            f"{len(flips)} question(s) changed score: A better on {better_a}, B better on "
            f"{len(flips) - better_a}" + (f"; the {len(shown)} largest changes:" if shown else ""),
        ]
        if shown:
            qrows = [
                [
                    repr(f["question_id"]),
                    f"{f['difference']:+.2f}",
                    f"{_short(f['prediction_a'])} ({f['score_a']:.2f})",
                    f"{_short(f['prediction_b'])} ({f['score_b']:.2f})",
                    answer_counts(f["answers"]),
                ]
                for f in shown
            ]
            out.append(table(qrows, ["question", "A − B", "A", "B", "human answers"]))
    else:
        out += ["", "no question changed score"]
    out.append(d.signature.format())
    return "\n".join(out)


def _diff_row(label: str, key: str, diff: Difference) -> list[str]:
    def signed(x: float) -> str:
        return "n/a" if x != x else f"{x:+.2f}"

    return [
        label,
        key,
        str(diff.n),
        signed(diff.delta),
        signed(diff.low),
        signed(diff.high),
        f"{diff.p_value:.4f}",
        str(diff.n_differ),
    ]


def _short(text: str | None, width: int = 30) -> str:
    if text is None:
        return "(missing)"
    r = repr(text)
    return r if len(r) <= width else r[: width - 1] + "…"
