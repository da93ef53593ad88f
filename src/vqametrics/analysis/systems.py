"""Several systems on the same questions: one table, one row per system, each compared with
the first exactly as ``vqametrics diff`` compares A with B (sacreBLEU's ``-i sys1 sys2 …``).

The comparison of row *k* is ``system_k − system_0`` (A = the row's system, B = the first one)
from :func:`vqametrics.aggregate.stats.paired_test`: the difference of the unrounded scores,
a paired
bootstrap interval and a sign-flip permutation p-value, resampling whole images when they are
known. With ``ci=True`` each row also gets its own percentile bootstrap interval
(:func:`vqametrics.aggregate.stats.bootstrap_ci`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..core.exceptions import InputError
from ..views.tables import Table, short_names

if TYPE_CHECKING:
    from ..aggregate.stats import Difference, Interval, ResultsDiff
    from ..core.signature import Signature
    from ..pipeline.vqa import VQAEvaluation
    from ..tasks._run import TaskEvaluation

__all__ = [
    "SystemRow",
    "SystemsTable",
    "compare_task_systems",
    "compare_vqa_systems",
    "short_names",
]

#: the ``--json`` keys of the VQA table's columns (those of ``vqametrics vqa --json``)
VQA_JSON_KEYS = {"VQA acc": "accuracy", "EM": "em", "EM-any": "em_any"}


@dataclass(frozen=True)
class SystemRow:
    """One system: its headline score (unrounded), other columns, interval, and comparison."""

    name: str
    score: float
    n: int
    columns: Mapping[str, float | None] = field(default_factory=dict)
    interval: Interval | None = None
    #: this system − the first one (``None`` for the first row, or when not a mean of items)
    vs_first: Difference | None = None
    #: what the single-file ``--json`` says beside the scores (``input_layout``,
    #: ``diagnostics``, ``reported``, ``extract``): kept in this system's JSON record
    details: Mapping[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        d = "" if self.vs_first is None else f", Δ {self.vs_first.delta:+.2f}"
        return f"SystemRow({self.name!r}: {self.score:.2f}{d})"


def _headline_delta(row: SystemRow, first: SystemRow) -> float | None:
    """``row − first`` of the headlines (``None`` for the first row itself)."""
    return None if row is first else row.score - first.score


@dataclass(frozen=True)
class SystemsTable:
    """:func:`compare_vqa_systems` / :func:`compare_task_systems`: rows and how they were made."""

    metric: str
    rows: tuple[SystemRow, ...]
    signature: Signature
    settings: Mapping[str, Any]
    notes: tuple[str, ...] = ()
    #: JSON key of a column label (``VQA acc`` → ``accuracy``, ``EM-any`` → ``em_any``: the keys
    #: of the single-file ``--json``); labels not listed are their own key
    keys: Mapping[str, str] = field(default_factory=dict)
    #: columns that are answer-type groups: nested under ``perAnswerType`` in the JSON, as in
    #: the single-file ``--json``
    groups: tuple[str, ...] = ()

    def __repr__(self) -> str:
        body = ", ".join(f"{r.name}={r.score:.2f}" for r in self.rows)
        return f"SystemsTable({self.metric}: {body})"

    def table(self, digits: int = 2) -> Table:
        """The rows as a :class:`~vqametrics.views.tables.Table` (one row per system)."""
        extra = list(self.rows[0].columns)
        ci = any(r.interval is not None for r in self.rows)
        paired = len(self.rows) > 1
        first = self.rows[0].name
        header = ["system", "n", self.metric]
        if ci:
            header += ["95% CI low", "95% CI high"]
        header += extra
        if paired:
            header += [f"Δ (row − {first})", "Δ 95% CI low", "Δ 95% CI high", "p"]
        rows = []
        for r in self.rows:
            row: list[Any] = [r.name, r.n, r.score]
            if ci:
                row += [None, None] if r.interval is None else [r.interval.low, r.interval.high]
            row += [r.columns.get(k) for k in extra]
            if paired:
                d = r.vs_first
                if d is not None:
                    row += [d.delta, d.low, d.high, d.p_value]
                else:  # not a mean of items: the headline difference alone
                    row += [_headline_delta(r, self.rows[0]), None, None, None]
            rows.append(tuple(row))
        notes = [*self.notes, self.signature.format()]
        if any(r.vs_first is not None for r in self.rows):
            s = self.settings
            notes.insert(
                0,
                f"Δ = system − {first} in points; paired {s['method']} bootstrap "
                f"({s['n_bootstrap']} replicates) and sign-flip p-value, resampling "
                f"{s['resampled']}, seed {s['seed']} (as vqametrics diff)",
            )
        elif paired:  # no paired test was run: Δ is the difference of the headlines alone
            notes.insert(0, f"Δ = system − {first}, in the headline's units")
        p_digits = {len(header) - 1: max(digits, 4)} if paired else {}
        return Table(
            tuple(header), tuple(rows), notes=tuple(notes), digits=digits, column_digits=p_digits
        )

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: one record per system, unrounded."""
        out = []
        key = self.keys.get(self.metric, self.metric)
        for r in self.rows:
            rec: dict[str, Any] = {"name": r.name, "n": r.n, key: r.score}
            for label, value in r.columns.items():
                if label in self.groups:
                    rec.setdefault("perAnswerType", {})[label] = value
                else:
                    rec[self.keys.get(label, label)] = value
            if r.interval is not None:
                rec["ci95"] = [r.interval.low, r.interval.high]
                rec["se"] = r.interval.se
            if r.vs_first is not None:
                rec["vs_first"] = r.vs_first.as_dict()
            elif (delta := _headline_delta(r, self.rows[0])) is not None:
                rec["vs_first"] = {"delta": delta}
            rec.update(r.details)
            out.append(rec)
        return {
            "metric": key,
            "systems": out,
            "settings": dict(self.settings),
            "notes": list(self.notes),
            "signature": self.signature.format(),
        }


@dataclass(frozen=True)
class _Resampling:
    """What a caller asked of the resampling: ``ci`` gives each row its own interval; a
    ``None`` count or seed is the default of ``vqametrics diff``."""

    ci: bool
    n_bootstrap: int | None
    n_permutations: int | None
    seed: int | None


def _build(
    metric: str,
    names: Sequence[str],
    evaluations: Sequence[VQAEvaluation | TaskEvaluation],
    headlines: Sequence[float],
    columns: Sequence[Mapping[str, float | None]],
    resampling: _Resampling,
    *,
    paired_ok: bool,
    clusters: Sequence[Any] | None,
    detail_keys: Sequence[str],
    notes: Sequence[str] = (),
) -> SystemsTable:
    """The table of *evaluations* (the first one is the baseline): rows with their paired
    comparisons when *paired_ok*, each system's details, and every file's notes after
    *notes*."""
    from ..aggregate.stats import (
        DEFAULT_BOOTSTRAP,
        DEFAULT_PERMUTATIONS,
        DEFAULT_SEED,
        bootstrap_ci,
        paired_test,
        require_numpy,
    )

    if len(names) != len(evaluations):
        raise InputError(f"{len(names)} --name for {len(evaluations)} results files")
    ci = resampling.ci
    nb = DEFAULT_BOOTSTRAP if resampling.n_bootstrap is None else resampling.n_bootstrap
    npm = DEFAULT_PERMUTATIONS if resampling.n_permutations is None else resampling.n_permutations
    sd = DEFAULT_SEED if resampling.seed is None else resampling.seed
    if len(evaluations) > 1 or ci:
        require_numpy()
    rows = []
    resampled = "images" if clusters is not None else "questions"
    first = evaluations[0].scores
    for k, (name, ev, head, cols) in enumerate(
        zip(names, evaluations, headlines, columns, strict=True)
    ):
        sc = ev.scores
        interval = None
        if ci and paired_ok:
            interval = bootstrap_ci(sc, clusters=clusters, n_bootstrap=nb, seed=sd).overall
        diff = None
        if k > 0 and paired_ok:
            diff = paired_test(
                sc, first, clusters=clusters, n_bootstrap=nb, n_permutations=npm, seed=sd
            ).overall
        details = _details(ev.as_dict(), detail_keys)
        rows.append(SystemRow(name, head, len(sc), dict(cols), interval, diff, details))
    settings = {
        "method": "percentile",
        "n_bootstrap": nb,
        "n_permutations": npm,
        "seed": sd,
        "resampled": resampled,
    }
    resampled_at_all = paired_ok and (ci or len(rows) > 1)
    sig = evaluations[0].signature
    sig = sig.with_fields(bootstrap=nb, seed=sd) if resampled_at_all else sig
    notes = (*notes, *_system_notes(names, [ev.notes for ev in evaluations]))
    return SystemsTable(metric, tuple(rows), sig, settings, notes)


def compare_vqa_systems(
    evaluations: Sequence[VQAEvaluation],
    names: Sequence[str],
    *,
    ci: bool = False,
    metrics: Sequence[str] = ("vqa",),
    n_bootstrap: int | None = None,
    n_permutations: int | None = None,
    seed: int | None = None,
) -> SystemsTable:
    """One row per evaluation (same annotations, same profile): VQA accuracy, the answer-type
    breakdown, EM / EM-any when asked, and the paired comparison with the first evaluation
    (the numbers ``vqametrics diff`` prints for that pair).

    Raises
    ------
    InputError
        The evaluations do not cover the same questions or use different profiles.
    """
    from ..aggregate.stats import _images, evaluations_test

    if not evaluations:
        raise InputError("no results to compare")
    first = evaluations[0]
    for ev in evaluations[1:]:
        evaluations_test(first, ev, n_bootstrap=1, n_permutations=1)  # validates the pairing
    columns: list[dict[str, float | None]] = []
    wanted = [m.replace("-", "_") for m in metrics if m != "vqa"]
    from ..aggregate import percent

    for ev in evaluations:
        # unrounded, as every number of the table (the renderer rounds for display)
        cols: dict[str, float | None] = dict(_group_means(ev.scores, ev.dataset.answer_types))
        if wanted:
            from ..kernels.exact_match import exact_match_scores

            em = exact_match_scores(ev.dataset, ev.predictions, ev.profile)
            for m in wanted:
                values = em.em if m == "em" else em.em_any
                cols[{"em": "EM", "em_any": "EM-any"}[m]] = percent(values, None)
        columns.append(cols)

    table = _build(
        "VQA acc",
        names,
        evaluations,
        [percent(ev.scores, None) for ev in evaluations],
        columns,
        _Resampling(ci, n_bootstrap, n_permutations, seed),
        paired_ok=True,
        clusters=_images(first),
        detail_keys=("input_layout",),
    )
    groups = tuple(k for k in columns[0] if k not in ("EM", "EM-any"))
    notes = table.notes + _reported_notes(names, evaluations)
    return replace(table, keys=VQA_JSON_KEYS, groups=groups, notes=notes)


def _reported_notes(names: Sequence[str], evaluations: Sequence[VQAEvaluation]) -> tuple[str, ...]:
    """One line per system whose file came with the toolkit's numbers, from the task's result
    as every task's table (:func:`_task_reported_notes`)."""
    from ..tasks import get_task
    from ..tasks.vqav2 import evaluation_to_task

    task = get_task("vqav2")
    pairs = [
        (name, evaluation_to_task(task, task.profile(ev.profile.name), ev))
        for name, ev in zip(names, evaluations, strict=True)
        if ev.reported is not None
    ]
    return _task_reported_notes([n for n, _ in pairs], [e for _, e in pairs])


def _details(payload: Mapping[str, Any], keys: Sequence[str] = ()) -> dict[str, Any]:
    """The entries of a single-file ``--json`` *payload* that a system's record keeps."""
    wanted = (*keys, "notes", "reported", "diagnostics", "extract")
    return {k: payload[k] for k in wanted if k in payload}


def _system_notes(names: Sequence[str], notes: Sequence[Sequence[str]]) -> tuple[str, ...]:
    """Every file's notes under the one table (a positional join, a ground truth that differs
    is said for each file, never only for one): once when every file has it, else named."""
    common = set(notes[0]).intersection(*notes[1:]) if notes else set()
    out = [n for n in notes[0] if n in common] if notes else []
    for name, own in zip(names, notes, strict=True):
        out.extend(f"{name}: {n}" for n in own if n not in common)
    return tuple(dict.fromkeys(out))


def _group_means(scores: Sequence[float], keys: Sequence[str | None]) -> dict[str, float]:
    """Unrounded percent per group, first-seen order, summed left to right (as the script)."""
    from ..aggregate.formulas import group_by, percent

    return {k: percent(v, None) for k, v in group_by(keys, scores).items()}


def _number(value: Any) -> float:
    """A metric as a table cell: a count of items stays an integer (printed without the
    accuracy's decimals), anything else becomes a float."""
    return value if isinstance(value, int) else float(value)


def _is_item_mean(ev: TaskEvaluation) -> bool:
    """Whether the task's headline is 100 × the mean of its per-item scores (then a paired
    test of the items is a test of the headline)."""
    from ..aggregate import percent

    if not ev.scores or ev.aggregate.units != "percent":
        return False
    return abs(float(ev.headline) - percent(ev.scores, None)) < 1e-9


def compare_task_systems(
    evaluations: Sequence[TaskEvaluation],
    names: Sequence[str],
    *,
    ci: bool = False,
    n_bootstrap: int | None = None,
    n_permutations: int | None = None,
    seed: int | None = None,
) -> SystemsTable:
    """One row per task evaluation: the headline and every other overall metric; paired
    comparisons with the first when the headline is a mean of per-item scores in percent
    (accuracy-like tasks), otherwise only the headline difference is shown."""
    if not evaluations:
        raise InputError("no results to compare")
    from ..readers.join import same_ids

    first = evaluations[0]
    ids = [it.id for it in first.data.items]
    for ev in evaluations[1:]:
        if not same_ids([it.id for it in ev.data.items], ids):  # "1" (CSV) is 1 (XLSX)
            raise InputError(
                f"{ev.data.sources[0] if ev.data.sources else 'results'}: not the same items as "
                f"{first.data.sources[0] if first.data.sources else 'the first results'} "
                "(a paired comparison needs the same questions in the same order)"
            )
        if ev.profile.name != first.profile.name:
            raise InputError("the results were scored with different profiles")
    paired_ok = all(_is_item_mean(ev) for ev in evaluations)
    headline = first.aggregate.headline
    columns = [
        {k: _number(v) for k, v in ev.metrics.items() if k not in (headline, "n")}
        for ev in evaluations
    ]
    notes: list[str] = []
    if not paired_ok and len(evaluations) > 1:
        notes.append(
            f"{first.task.title}'s {headline} is not a mean of per-item scores: no paired "
            "interval or p-value; compare the headlines only"
        )
    table = _build(
        headline,
        names,
        evaluations,
        [float(ev.headline) for ev in evaluations],
        columns,
        _Resampling(ci, n_bootstrap, n_permutations, seed),
        paired_ok=paired_ok,
        clusters=_task_images(first),
        detail_keys=("layouts",),
        notes=notes,
    )
    return replace(table, notes=table.notes + _task_reported_notes(names, evaluations))


def _task_reported_notes(
    names: Sequence[str], evaluations: Sequence[TaskEvaluation]
) -> tuple[str, ...]:
    """One line per system whose file came with the toolkit's numbers: reported vs ours
    (:func:`~vqametrics.pipeline.toolkit_check.compare_reported`, as ``score TASK`` prints them
    for one file), the same line for every task."""
    from ..views.task_text import unit_suffix
    from .toolkit_check import compare_reported

    out = []
    for name, ev in zip(names, evaluations, strict=True):
        c = compare_reported(ev)
        if c is None:
            continue
        head = f"{name}: reported by {c.toolkit or 'the toolkit'} ({c.source})"
        if not c.compared:
            out.append(f"{head}: not compared under profile {ev.profile.name}")
            continue
        units = unit_suffix(ev)
        if not c.rows:
            out.append(f"{head} vs recomputed{units}: no number in common")
            continue
        # the first pair (the overall number), then a count; `score TASK` on the one file
        # prints every pair
        label, theirs, mine = c.rows[0]
        line = f"{head} vs recomputed{units}: {label} {theirs:g} vs {mine:g}"
        equal = sum(1 for _, t, m in c.rows if t == m)
        line += f"; {equal} of {len(c.rows)} number(s) equal to the last bit"
        if equal < len(c.rows):
            far = max(c.rows, key=lambda p: abs(p[2] - p[1]))
            line += f", largest difference {far[0]} {far[2] - far[1]:+.4g}"
        if c.hint is not None:
            line += f"; the numbers differ: {c.hint}"
        out.append(line)
    return tuple(out)


def _task_images(ev: TaskEvaluation) -> list[Any] | None:
    """The items' image ids when they carry them (VQA v2, OK-VQA): whole images are then
    resampled, as ``vqametrics vqa`` and ``diff`` do for the same file (same seed, same
    interval); ``None`` (resample questions) otherwise."""
    ids = [it.fields.get("image_id") for it in ev.data.items]
    return ids if any(i is not None for i in ids) else None


def diff_table(
    diff: ResultsDiff,
    a: VQAEvaluation,
    b: VQAEvaluation,
    name_a: str,
    name_b: str,
    digits: int = 2,
) -> Table:
    """``vqametrics diff`` as a table: overall, then per answer type and per question type,
    with both scores, Δ = A − B, its paired 95% interval and the p-value."""

    t = diff.test
    rows: list[tuple[Any, ...]] = [
        (
            "overall",
            t.overall.n,
            diff.score_a,
            diff.score_b,
            t.overall.delta,
            t.overall.low,
            t.overall.high,
            t.overall.p_value,
        )
    ]
    d = a.dataset
    for name, keys in (("perAnswerType", d.answer_types), ("perQuestionType", d.question_types)):
        ma, mb = _group_means(a.scores, keys), _group_means(b.scores, keys)
        label = "answer type" if name == "perAnswerType" else "question type"
        for key, g in t.groups.get(name, {}).items():
            rows.append(
                (f"{label}: {key}", g.n, ma[key], mb[key], g.delta, g.low, g.high, g.p_value)
            )
    s = t.settings()
    header = ("group", "n", name_a, name_b, "Δ (A − B)", "Δ 95% CI low", "Δ 95% CI high", "p")
    notes = (
        f"A = {name_a}, B = {name_b}; Δ in points; paired {s['method']} bootstrap "
        f"({s['n_bootstrap']} replicates) and sign-flip p-value ({s['permutation']}, "
        f"{s['n_permutations']} permutations at most), resampling {s['resampled']}, "
        f"seed {s['seed']}",
        diff.signature.format(),
    )
    return Table(header, tuple(rows), notes=notes, digits=digits, column_digits={7: max(4, digits)})
