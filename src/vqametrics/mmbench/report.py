"""MMBench reports: per-split accuracy tables (``report_acc``), the text view and the JSON dict.

Pure functions over per-question records; the result object lives in :mod:`.circular`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "L2_ABBREVIATIONS",
    "PassRecord",
    "QuestionRecord",
    "accuracy_table",
    "format_table",
]

#: How the reference names the six L2 abilities in report columns.
L2_ABBREVIATIONS: Mapping[str, str] = {
    "coarse_perception": "CP",
    "finegrained_perception (instance-level)": "FP-S",
    "finegrained_perception (cross-instance)": "FP-C",
    "logic_reasoning": "LR",
    "relation_reasoning": "RR",
    "attribute_reasoning": "AR",
}


@dataclass(frozen=True)
class PassRecord:
    """One row of a question as scored.

    ``prediction`` is ``None`` when the row has no prediction; ``stage`` is then ``"missing"``.
    """

    index: int
    prediction: str | None
    letter: str | None
    stage: str
    answer: str
    judge_calls: int = 0
    #: the judge's prompt and last reply, when it was asked
    judge_prompt: str | None = None
    judge_reply: str | None = None

    def as_dict(self) -> dict[str, object]:
        names = ("index", "prediction", "letter", "stage", "answer", "judge_calls")
        out: dict[str, object] = {k: getattr(self, k) for k in names}
        if self.judge_calls:
            out["judge"] = {
                "prompt": self.judge_prompt,
                "response": self.judge_reply,
                "decision": self.letter if self.stage == "judge" else None,
            }
        return out


@dataclass(frozen=True)
class QuestionRecord:
    """One scored question: a circular group, or one row in VanillaEval."""

    index: int
    hit: int
    complete: bool
    split: str
    category: str
    l2_category: str
    passes: tuple[PassRecord, ...]

    def as_dict(self) -> dict[str, object]:
        out = {k: getattr(self, k) for k in ("index", "hit", "complete", "split", "category")}
        return {
            **out,
            "l2-category": self.l2_category,
            "passes": [p.as_dict() for p in self.passes],
        }


Cell = float | None


def _split_name(split: str) -> str:
    # The reference names the single split "none" when there is no split column; we do the
    # same for empty cells (pandas would read them as NaN and report NaN rows).
    return split or "none"


def accuracy_table(
    records: Iterable[QuestionRecord],
) -> tuple[list[dict[str, str | Cell]], list[dict[str, str | int]]]:
    r"""Per-split accuracies, the reference's ``report_acc``.

    .. math::

        \mathrm{acc}(S) = \frac{1}{|S|}\sum_{q \in S} \mathrm{hit}_q

    for ``S`` = the questions of a split (``Overall``), of a split and an L2 ability, of a split
    and an L3 ability: plain means over questions, never means of sub-category means.

    Returns
    -------
    (scores, counts)
        One dict per split, sorted by split name, with the reference's column order: ``split``,
        ``Overall``, the L2 abilities sorted by raw name and shown abbreviated (``CP``,
        ``FP-S``, ...), then the L3 abilities sorted. A column absent from a split is ``None``
        (the reference's NaN). *counts* has the same shape with question counts.

    Notes
    -----
    Empty L2/L3 cells (e.g. CCBench has no L2) form no column; the reference would add a NaN
    column for them.
    """
    recs = list(records)
    splits = sorted({_split_name(r.split) for r in recs})
    l2_names = sorted({r.l2_category for r in recs} - {""})
    l3_names = sorted({r.category for r in recs} - {""})
    scores: list[dict[str, str | Cell]] = []
    counts: list[dict[str, str | int]] = []
    for sp in splits:
        in_split = [r for r in recs if _split_name(r.split) == sp]
        row: dict[str, str | Cell] = {"split": sp}
        crow: dict[str, str | int] = {"split": sp}
        columns: list[tuple[str, Sequence[QuestionRecord]]] = [("Overall", in_split)]
        columns += [
            (L2_ABBREVIATIONS.get(n, n), [r for r in in_split if r.l2_category == n])
            for n in l2_names
        ]
        columns += [(n, [r for r in in_split if r.category == n]) for n in l3_names]
        for name, group in columns:
            row[name] = sum(r.hit for r in group) / len(group) if group else None
            crow[name] = len(group)
        scores.append(row)
        counts.append(crow)
    return scores, counts


def format_table(
    title: str,
    scores: Sequence[Mapping[str, str | Cell]],
    counts: Sequence[Mapping[str, str | int]],
) -> str:
    """A text table with one line per ability and one column per split: ``acc% (n)``."""
    if not scores:
        return f"{title}\n(no questions)"
    columns = [k for k in scores[0] if k != "split"]
    width = max(len("ability"), *(len(c) + 2 for c in columns))
    cells: list[list[str]] = []
    for sc, ct in zip(scores, counts, strict=True):
        col = []
        for c in columns:
            v = sc[c]
            col.append("-" if v is None else f"{100 * float(v):.2f} ({ct[c]})")
        cells.append(col)
    heads = [str(sc["split"]) for sc in scores]
    widths = [max(len(h), *(len(x) for x in col)) for h, col in zip(heads, cells, strict=True)]
    lines = [title]
    lines.append(
        "ability".ljust(width)
        + "".join("  " + h.rjust(w) for h, w in zip(heads, widths, strict=True))
    )
    for i, c in enumerate(columns):
        label = c if c in ("Overall", *L2_ABBREVIATIONS.values()) else "  " + c
        lines.append(
            label.ljust(width)
            + "".join("  " + col[i].rjust(w) for col, w in zip(cells, widths, strict=True))
        )
    return "\n".join(lines)
