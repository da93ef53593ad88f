"""How a :class:`~vqametrics.pipeline.vqa.VQAEvaluation` shows itself in a notebook and in
pandas, and the extras ``evaluate_vqa(metrics=..., ci=...)`` attaches (on the pipeline's floor:
nothing here needs a view; the explanation itself is :meth:`VQAEvaluation.explain`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..core.display import html_table
from ..core.exceptions import MissingDependencyError
from ..core.extras import install_hint

if TYPE_CHECKING:
    from ..aggregate import Breakdown
    from ..aggregate.stats import BootstrapResult

__all__ = [
    "evaluation_frame",
    "evaluation_html",
    "evaluation_repr",
    "extra_metrics",
    "interval_of",
]

_LABELS = {"em": "EM", "em_any": "EM-any"}


def evaluation_repr(ev: Any, extra: dict[str, Breakdown], intervals: BootstrapResult | None) -> str:
    """One line: profile, n, the overall score (with EM/EM-any/interval if computed)."""
    overall = ev.accuracy["overall"]
    parts = [f"VQA acc {overall:.{ev.digits}f}"]
    if intervals is not None:
        parts[0] += f" [{intervals.overall.low:.2f}, {intervals.overall.high:.2f}]"
    parts += [f"{_LABELS.get(k, k)} {v['overall']:.{ev.digits}f}" for k, v in extra.items()]
    missing = f", {len(ev.matched.missing)} missing" if ev.matched.missing else ""
    return (
        f"<VQAEvaluation {', '.join(parts)} | profile {ev.profile.name}, "
        f"{len(ev.scores)} questions{missing}>"
    )


def evaluation_html(ev: Any, extra: dict[str, Breakdown], intervals: BootstrapResult | None) -> str:
    """A compact table: overall and per answer type (with EM columns and intervals if
    computed), then the signature."""
    acc = ev.accuracy
    keys = ["overall", *acc["perAnswerType"]]
    header = ["", "n", "VQA acc"]
    if intervals is not None:
        header += ["95% CI"]
    header += [_LABELS.get(k, k) for k in extra]
    counts: dict[str, int] = {"overall": len(ev.scores)}
    for t in ev.dataset.answer_types:
        if t is not None:
            counts[t] = counts.get(t, 0) + 1
    rows = []
    for k in keys:
        value = acc["overall"] if k == "overall" else acc["perAnswerType"][k]
        row: list[object] = [k, counts.get(k, 0), value]
        if intervals is not None:
            iv = intervals.overall if k == "overall" else intervals.groups["perAnswerType"][k]
            row.append(f"[{iv.low:.2f}, {iv.high:.2f}]")
        for b in extra.values():
            row.append(b["overall"] if k == "overall" else b["perAnswerType"].get(k, ""))
        rows.append(row)
    caption = f"VQA evaluation · profile {ev.profile.name} · {len(ev.scores)} questions"
    sig = f"<p><code>{ev.signature.format()}</code></p>"
    notes = "".join(f"<p><small>{n}</small></p>" for n in ev.notes[:3])
    return html_table(header, rows, ev.digits, caption) + sig + notes


def evaluation_frame(ev: Any) -> Any:
    """A pandas DataFrame, one row per question: ``question_id``, ``question_type``,
    ``answer_type``, ``prediction``, ``normalized_prediction``, ``answers``, ``m``, ``score``."""
    try:
        import pandas as pd
    except ModuleNotFoundError:
        raise MissingDependencyError(
            f"to_pandas() needs pandas: {install_hint('pandas')}"
        ) from None
    d = ev.dataset
    norm: list[str | None] = []
    ms: list[int | None] = []
    for rec in ev.per_question():
        norm.append(rec.get("normalized_prediction"))
        ms.append(rec.get("m"))
    return pd.DataFrame(
        {
            "question_id": d.question_ids,
            "question_type": d.question_types,
            "answer_type": d.answer_types,
            "prediction": ev.predictions,
            "normalized_prediction": norm,
            "answers": [list(a) for a in d.answers],
            "m": pd.array(ms, dtype="Int64"),
            "score": ev.scores,
        }
    )


def extra_metrics(ev: Any, metrics: Sequence[str]) -> dict[str, Breakdown]:
    """EM / EM-any breakdowns (keys ``em``, ``em_any``) for ``evaluate_vqa(metrics=...)``;
    ``vqa`` is the evaluation itself. Unknown names raise :class:`UnknownNameError`."""
    from ..aggregate import breakdown
    from ..core.exceptions import UnknownNameError
    from ..kernels.exact_match import exact_match_scores

    wanted = []
    for m in metrics:
        key = m.strip().lower().replace("-", "_")
        if key not in ("vqa", "em", "em_any"):
            raise UnknownNameError(f"unknown metric {m!r}; valid metrics: vqa, em, em-any")
        if key != "vqa" and key not in wanted:
            wanted.append(key)
    if not wanted:
        return {}
    d = ev.dataset
    s = exact_match_scores(d, ev.predictions, ev.profile)
    per = {"em": s.em, "em_any": s.em_any}
    return {k: breakdown(per[k], d.question_types, d.answer_types, ev.digits) for k in wanted}


def interval_of(ev: Any, ci: bool | int) -> BootstrapResult | None:
    """``evaluate_vqa(ci=...)``: ``True`` for the default replicates, an int for that many."""
    if ci is False or ci is None:
        return None
    from ..aggregate.stats import DEFAULT_BOOTSTRAP, evaluation_ci

    n = DEFAULT_BOOTSTRAP if ci is True else int(ci)
    return evaluation_ci(ev, n_bootstrap=n)
