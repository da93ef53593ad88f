"""Renderings of the analyses' results: ``compare``'s text and table, ``profiles``' table.

They sit with the analyses (not in :mod:`vqametrics.views`) because they read the analyses'
result types; they draw with the views' primitives.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.display import answer_counts
from ..core.display import text_table as table
from ..views.tables import Table
from .compare import Comparison, QuestionComparison
from .profile_diff import ProfileComparison

__all__ = ["comparison_table", "comparison_text", "profiles_table"]


def comparison_text(c: Comparison) -> str:
    """A terminal rendering of :func:`vqametrics.analysis.compare.compare_vqa` / ``compare_aokvqa``.

    The scores with their chance baselines, then each disagreement category with its count and
    examples, the notes and the signature.
    """

    def num(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.{c.digits}f}"

    values = [num(m.value) for m in c.metrics]
    chances = [num(m.chance) if m.chance is not None else "" for m in c.metrics]
    wv = max(len(v) for v in values)
    wc = max(len(v) for v in chances)
    rows: list[list[object]] = [
        [m.label, v.rjust(wv), m.n, ch.rjust(wc), m.note or ""]
        for m, v, ch in zip(c.metrics, values, chances, strict=True)
    ]
    out = [
        f"{c.source}: {c.n_questions} questions, profile {c.profile.name}",
        "",
        table(rows, ["metric", "score", "n", "chance", "note"]),
        "",
        "disagreements",
    ]
    for d in c.disagreements:
        out.append(f"  {d.key}: {d.count} question(s)  {d.description}")
        for q in d.examples:
            out.append("    " + _example_line(q))
    out += [f"note: {n}" for n in c.notes]
    out.append(c.signature.format())
    return "\n".join(out)


def _example_line(q: QuestionComparison) -> str:
    ref = q.reference
    tie = f", tied with {', '.join(map(repr, ref.tied))}" if ref.tied else ""
    answers = answer_counts(q.answers)
    parts = [
        f"{q.question_id!r}: prediction {q.prediction!r}",
        f"reference {ref.raw!r} ({ref.votes}/{ref.n_answers}{tie})",
        f"VQA {q.vqa:.2f} EM {q.em:.0f} EM-any {q.em_any:.0f}",
    ]
    if q.choices:
        chosen = "none" if q.mc_choice is None else repr(q.choices[q.mc_choice])
        right = "?" if q.correct_choice is None else repr(q.choices[q.correct_choice])
        parts.append(f"MC {chosen} ({q.mc_source}) vs {right}")
        if q.circular_correct is not None:
            parts.append(f"circular {'right' if q.circular_correct else 'wrong'}")
    return " | ".join(parts) + f"\n      answers: {answers}"


def comparison_table(names: Sequence[str], results: Sequence[Comparison], digits: int = 2) -> Table:
    """``compare``: VQA accuracy, EM, EM-any (and multiple choice) per system, in percent."""
    labels: dict[str, str] = {}
    for r in results:
        for m in r.metrics:
            labels.setdefault(m.key, m.label)
    rows = []
    for name, r in zip(names, results, strict=True):
        values = {m.key: m.value for m in r.metrics}
        rows.append((name, r.n_questions, *(values.get(k) for k in labels)))
    notes = tuple(dict.fromkeys(r.signature.format() for r in results))
    return Table(("system", "n", *labels.values()), tuple(rows), notes=notes, digits=digits)


def profiles_table(
    names: Sequence[str], results: Sequence[ProfileComparison], digits: int = 2
) -> Table:
    """``profiles``: the overall VQA accuracy of each system under every profile (percent,
    unrounded in CSV/JSON)."""
    profiles = list(results[0].profiles)
    rows = [
        (name, len(r.question_ids), len(r.differing), *(r.accuracy(p, None) for p in profiles))
        for name, r in zip(names, results, strict=True)
    ]
    return Table(("system", "n", "questions differing", *profiles), tuple(rows), digits=digits)
