"""One self-contained HTML report of one or more VQA results files.

Everything is inline: the styles, and the charts as SVG drawn by matplotlib. Nothing is fetched
over the network. Every number comes from the library's result objects
(:class:`~vqametrics.pipeline.vqa.VQAEvaluation`, the EM scores, :func:`vqametrics.explain`);
this module only
lays them out. matplotlib is an optional dependency (``pip install 'vqametrics[report]'``).
"""

from __future__ import annotations

import html
import io
import re
import warnings
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import orjson

from .._version import __version__
from ..aggregate import percent
from ..aggregate.stats import BootstrapResult, ResultsDiff, diff_results, evaluation_ci
from ..core.display import answer_counts
from ..core.exceptions import InputError, VqaMetricsWarning
from ..pipeline.vqa import VQAEvaluation
from ..profiles import Profile, get_profile, list_profiles
from ..readers._json import PathLike, read_bytes
from ..readers.results import read_results, resolve_positions
from ..readers.vqa import Results, VQADataset, load_annotations, load_questions
from ..tasks.vqav2 import evaluate_vqa
from .explanation import explain, trace_steps
from .nearmiss import KINDS, NearMisses, near_misses
from .question_table import question_rows, question_table_html
from .tables import short_names

__all__ = ["Progress", "ReportModel", "build_report", "render_report", "write_report"]

#: ``progress(done, total, what)`` is called after each stage of a report.
Progress = Callable[[int, int, str], None]

_PALETTE = ("#2e6fd6", "#b35c00", "#146c3a", "#7a4cc2", "#a3231a", "#4f5862")


@dataclass
class ModelRun:
    """One results file: its evaluation under the chosen profile and what the report needs."""

    name: str
    path: str
    evaluation: VQAEvaluation
    em: dict[str, Any]
    em_scores: list[float]
    em_any_scores: list[float]
    by_profile: dict[str, float] = field(default_factory=dict)
    #: step name -> [questions whose prediction it changed, whose answers it changed]
    rule_changes: dict[str, list[int]] = field(default_factory=dict)
    unanimous_skips: int = 0
    #: without ``extract``: the overall score ``extract="answer"`` would give (verbose runs)
    if_extracted: float | None = None
    #: the headline's 95% interval (``evaluation_ci``)
    interval: BootstrapResult | None = None
    near: NearMisses | None = None


@dataclass
class ReportModel:
    """Everything a report shows, computed once (the HTML is a pure rendering of this)."""

    profile: Profile
    dataset: VQADataset
    annotations: str
    runs: list[ModelRun]
    question_texts: dict[Any, str]
    n_cards: int
    paired: list[dict[str, Any]] = field(default_factory=list)
    extract: str | None = None
    #: ``(i, j, diff_results(run i, run j))`` for every pair i < j: Δ = run i − run j, as
    #: ``vqametrics diff --results <run i> --results <run j>`` prints it
    diffs: list[tuple[int, int, ResultsDiff]] = field(default_factory=list)


def _question_texts(
    annotations: PathLike | VQADataset, questions: PathLike | None
) -> dict[Any, str]:
    """Question texts for the cards, best effort: from the questions file or flat annotations."""
    sources: list[Any] = []
    if questions is not None:
        sources.append(questions)
    if not isinstance(annotations, VQADataset):
        sources.append(annotations)
    texts: dict[Any, str] = {}
    for src in sources:
        try:
            raw = orjson.loads(read_bytes(src))
        except (InputError, orjson.JSONDecodeError, ValueError):
            continue
        records = raw.get("questions", raw.get("annotations")) if isinstance(raw, dict) else raw
        if not isinstance(records, list):
            continue
        for rec in records:
            if isinstance(rec, dict) and isinstance(rec.get("question"), str):
                texts.setdefault(rec.get("question_id"), rec["question"])
    return texts


def _rule_changes(run: VQAEvaluation) -> tuple[dict[str, list[int]], int]:
    """Per step: how many predictions and how many questions' answers it changed."""
    prof = run.profile
    d = run.dataset
    pred_cache: dict[tuple[str, bool], frozenset[str]] = {}
    ans_cache: dict[tuple[str, bool], frozenset[str]] = {}

    def changed(
        text: str, skip: bool, steps: Sequence[Any], cache: dict[tuple[str, bool], frozenset[str]]
    ) -> frozenset[str]:
        key = (text, skip)
        hit = cache.get(key)
        if hit is None:
            hit = cache[key] = frozenset(
                t.step for t in trace_steps(text, steps, skip) if t.changed
            )
        return hit

    names = [s.name for s in prof.prediction_steps]
    names += [s.name for s in prof.answer_steps if s.name not in names]
    counts = {n: [0, 0] for n in names}
    skips = 0
    for i, rec in enumerate(run.per_question()):
        if rec.get("missing"):
            continue
        skip = bool(rec["unanimous_skip"])
        skips += skip
        for name in changed(rec["prediction"], skip, prof.prediction_steps, pred_cache):
            counts[name][0] += 1
        touched: set[str] = set()
        for a in d.answers[i]:
            touched |= changed(a, skip, prof.answer_steps, ans_cache)
        for name in touched:
            counts[name][1] += 1
    return counts, skips


def _rescore(dataset: VQADataset, res: Results, **kwargs: Any) -> VQAEvaluation:
    """Score the same inputs again (another profile, or extracted): the first evaluation has
    already given their warnings (ids, answer counts), so they are not repeated."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VqaMetricsWarning)
        return evaluate_vqa(dataset, res, **kwargs)


def build_report(
    annotations: PathLike | VQADataset | None,
    results: Sequence[PathLike],
    *,
    profile: str | Profile = "official",
    questions: PathLike | None = None,
    allow_missing: bool = False,
    ignore_extra: bool = False,
    on_duplicate: Literal["error", "last"] = "error",
    n_cards: int = 12,
    progress: Progress | None = None,
    extract: str | None = None,
    names: Sequence[str] | None = None,
    input_format: str | None = None,
    id_field: str | None = None,
    answer_field: str | None = None,
) -> ReportModel:
    """Score every results file and gather what the report shows.

    Parameters
    ----------
    annotations : path, VQADataset or None
        ``None``: the ground truth the first results file carries (a VLMEvalKit sheet,
        lmms-eval samples with ``doc``), as ``vqametrics vqa`` without ``--annotations``.
    results : sequence of paths
        One or more results files, scored on the same annotations.
    profile : str or Profile, default="official"
        The profile of the headline numbers (every registered profile is shown too).
    questions : path, optional
        The official questions file: validated, and its texts shown on the cards.
    allow_missing, ignore_extra, on_duplicate
        As in :func:`vqametrics.evaluate_vqa`.
    n_cards : int, default=12
        How many lowest-scoring questions get a "why this score" card (per model).
    progress : callable, optional
        ``progress(done, total, what)`` after each stage.
    extract : str, optional
        An answer extractor run before normalization, as in :func:`vqametrics.evaluate_vqa`.
    names : sequence of str, optional
        A label per results file (default: the file names without what they share).
    input_format, id_field, answer_field
        How the results files are read (``load/results.py``), when their layout is unusual.
    """
    from ..kernels.exact_match import exact_match_scores
    from .em_summary import exact_match_breakdowns

    if not results:
        raise ValueError("build_report needs at least one results file")
    prof = get_profile(profile)
    profiles = list_profiles()
    paths = [str(r) for r in results]
    labels = list(names) if names else short_names(paths)
    if len(labels) != len(paths):
        from ..core.exceptions import InputError

        raise InputError(f"{len(labels)} names for {len(paths)} results files")
    n_pairs = len(paths) * (len(paths) - 1) // 2
    total = 2 + len(paths) * (4 + len(profiles)) + n_pairs
    done = 0

    def tick(what: str) -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(min(done, total), total, what)

    first_file = None
    if annotations is None:
        from ..core.exceptions import InputError
        from ..readers.vqa import as_dataset

        first_file = read_results(
            paths[0], input_format=input_format, id_field=id_field, answer_field=answer_field
        )
        if first_file.ground_truth is None:
            raise InputError(
                f"{first_file.source}: carries no ground truth (it is {first_file.layout}); "
                "pass --annotations"
            )
        dataset = as_dataset(first_file.ground_truth, first_file.source, on_duplicate)
        annotations = dataset
    else:
        dataset = (
            annotations
            if isinstance(annotations, VQADataset)
            else load_annotations(annotations, on_duplicate=on_duplicate)
        )
    if questions is not None:
        load_questions(questions, dataset)
    texts = _question_texts(annotations, questions)
    tick("annotations")
    runs: list[ModelRun] = []
    opts: dict[str, Any] = {
        "allow_missing": allow_missing,
        "ignore_extra": ignore_extra,
        "on_duplicate": on_duplicate,
        "extract": extract,
    }
    for k, (name, path) in enumerate(zip(labels, paths, strict=True)):
        rfile = (
            first_file
            if k == 0 and first_file is not None
            else read_results(
                path, input_format=input_format, id_field=id_field, answer_field=answer_field
            )
        )
        if rfile.positional:
            rfile = resolve_positions(rfile, dataset.question_ids)
        res: Results = rfile.results
        tick(f"{name}: load")
        ev = evaluate_vqa(dataset, res, profile=prof, **opts)
        em = exact_match_breakdowns(ev, ["em", "em-any"])
        ems = exact_match_scores(dataset, ev.predictions, prof)
        run = ModelRun(name, path, ev, dict(em), list(ems.em), list(ems.em_any))
        tick(f"{name}: {prof.name}")
        for p in profiles:
            other = ev if p.name == prof.name else _rescore(dataset, res, profile=p, **opts)
            run.by_profile[p.name] = other.accuracy["overall"]
            tick(f"{name}: {p.name}")
        run.rule_changes, run.unanimous_skips = _rule_changes(ev)
        if extract is None and ev.diagnostics is not None and ev.diagnostics.verbose:
            alt = _rescore(dataset, res, profile=prof, **{**opts, "extract": "answer"})
            run.if_extracted = alt.accuracy["overall"]
        run.near = near_misses(ev)
        tick(f"{name}: rules")
        run.interval = evaluation_ci(ev)
        tick(f"{name}: interval")
        runs.append(run)
    model = ReportModel(prof, dataset, _display(annotations), runs, texts, n_cards)
    model.extract = extract
    for i in range(len(runs)):
        for j in range(i + 1, len(runs)):
            d = diff_results(runs[i].evaluation, runs[j].evaluation)
            model.diffs.append((i, j, d))
            model.paired.append(_pair(runs[i], runs[j], d))
            tick(f"{runs[i].name} − {runs[j].name}")
    tick("done")
    return model


def _display(path: PathLike | VQADataset) -> str:
    if isinstance(path, VQADataset):
        return path.source
    return str(path)


def _pair(a: ModelRun, b: ModelRun, d: ResultsDiff) -> dict[str, Any]:
    """A − B as ``vqametrics diff --results A --results B`` prints it, with win/tie/loss
    counts (questions where A scores higher, the same, lower)."""
    sa, sb = a.evaluation.scores, b.evaluation.scores
    wins = sum(1 for x, y in zip(sa, sb, strict=True) if x > y)
    losses = sum(1 for x, y in zip(sa, sb, strict=True) if x < y)
    t = d.test.overall
    return {
        "a": a.name,
        "b": b.name,
        "wins": wins,
        "losses": losses,
        "ties": len(sa) - wins - losses,
        "delta": t.delta,
        "low": t.low,
        "high": t.high,
        "p_value": t.p_value,
        "seed": d.test.seed,
    }


# ---------------------------------------------------------------------------------------------
# charts (matplotlib, inline SVG)

_SVG_HEAD = re.compile(r"^.*?(?=<svg)", re.S)
_SVG_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)


def _svg(fig: Any, label: str) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    import matplotlib.pyplot as plt

    plt.close(fig)
    text = _SVG_METADATA.sub("", _SVG_HEAD.sub("", buf.getvalue(), count=1))
    return text.replace(
        "<svg ", f'<svg role="img" aria-label="{html.escape(label, quote=True)}" ', 1
    )


def _figure(salt: str, width: float, height: float) -> tuple[Any, Any]:
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    plt.rcParams.update(
        {
            "svg.fonttype": "none",
            "svg.hashsalt": salt,
            "font.size": 10,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.edgecolor": "#4f5862",
            "axes.labelcolor": "#1b1f24",
            "xtick.color": "#1b1f24",
            "ytick.color": "#1b1f24",
        }
    )
    return plt.subplots(figsize=(width, height))


def _short(name: str, n: int = 32) -> str:
    return name if len(name) <= n else name[: n - 1] + "…"


def _barh(
    salt: str,
    labels: Sequence[str],
    series: Mapping[str, Sequence[float]],
    xlabel: str,
    title: str,
    xmax: float | None = 100.0,
    fmt: str = "{:.2f}",
) -> str:
    """Horizontal bars, one group per label, one bar per series; values printed at bar ends."""
    n_series = max(1, len(series))
    height = 0.45 + 0.32 * len(labels) * max(1, n_series * 0.8)
    fig, ax = _figure(salt, 7.2, min(max(height, 1.6), 14.0))
    step = 0.8 / n_series
    for k, (sname, values) in enumerate(series.items()):
        ys = [i + (k - (n_series - 1) / 2) * step for i in range(len(labels))]
        bars = ax.barh(
            ys,
            values,
            height=step * 0.92,
            color=_PALETTE[k % len(_PALETTE)],
            label=_short(sname, 40),
        )
        ax.bar_label(bars, labels=[fmt.format(v) for v in values], padding=3, fontsize=8)
    ax.set_yticks(range(len(labels)), [_short(lb) for lb in labels])
    ax.invert_yaxis()
    if xmax is not None:
        ax.set_xlim(0, xmax * 1.12)
    ax.set_xlabel(xlabel)
    ax.set_title(title, loc="left", fontsize=11)
    if n_series > 1:
        ax.legend(loc="upper left", bbox_to_anchor=(0.0, -0.22), fontsize=8, frameon=False)
    return _svg(fig, title)


def _distribution_chart(runs: Sequence[ModelRun]) -> str:
    """Per-question scores, bucketed by their rounded value (0, 30, 60, 90, 100 on 10 answers)."""
    buckets: list[float] = sorted({percent([s]) for r in runs for s in r.evaluation.scores})
    fig, ax = _figure("dist", 7.2, 3.2)
    n = len(runs)
    width = 0.8 / n
    for k, run in enumerate(runs):
        counts = Counter(percent([s]) for s in run.evaluation.scores)
        xs = [i + (k - (n - 1) / 2) * width for i in range(len(buckets))]
        bars = ax.bar(
            xs,
            [counts.get(b, 0) for b in buckets],
            width=width * 0.92,
            color=_PALETTE[k % len(_PALETTE)],
            label=_short(run.name, 40),
        )
        ax.bar_label(bars, fontsize=8, padding=2)
    ax.set_xticks(range(len(buckets)), [f"{b:g}" for b in buckets])
    ax.set_xlabel("per-question VQA accuracy (%)")
    ax.set_ylabel("questions")
    title = "Distribution of per-question scores"
    ax.set_title(title, loc="left", fontsize=11)
    if n > 1:
        ax.legend(loc="upper left", bbox_to_anchor=(0.0, -0.25), fontsize=8, frameon=False)
    return _svg(fig, title)


# ---------------------------------------------------------------------------------------------
# HTML

_CSS = """
:root{--ink:#1b1f24;--muted:#4f5862;--line:#d3d9e0;--accent:#1a56b8;--hit:#146c3a;
--hitbg:#e3f4e9;--bad:#a3231a;--warn:#fff4d6}
*{box-sizing:border-box}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;
color:var(--ink);background:#f6f8fa;line-height:1.5}
main{max-width:72rem;margin:0 auto;padding:1.5rem clamp(1rem,4vw,2.5rem) 3rem}
h1{font-size:1.7rem;margin:.2rem 0}h2{font-size:1.3rem;margin:2rem 0 .5rem;
border-bottom:2px solid var(--line);padding-bottom:.2rem}h3{font-size:1.05rem;margin:1rem 0 .3rem}
.muted{color:var(--muted)}.small{font-size:.85rem}
code,.mono{font-family:ui-monospace,Menlo,Consolas,monospace}
.sig{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.8rem;overflow-wrap:anywhere;
color:var(--muted)}
.cards{display:grid;gap:.75rem;grid-template-columns:repeat(auto-fill,minmax(min(100%,24rem),1fr))}
.headline{background:#fff;border:1px solid var(--line);border-radius:8px;padding:.8rem 1rem}
.headline .name{font-weight:700;overflow-wrap:anywhere}
.nums{display:flex;gap:1.2rem;flex-wrap:wrap;margin:.4rem 0}
.num b{display:block;font-size:1.7rem;color:var(--accent);font-variant-numeric:tabular-nums}
.num span{font-size:.8rem;color:var(--muted)}
figure{margin:.5rem 0 1rem;background:#fff;border:1px solid var(--line);border-radius:8px;
padding:.5rem;overflow-x:auto}
figure svg{max-width:100%;height:auto}
figcaption{font-size:.85rem;color:var(--muted);padding:.2rem .4rem}
.tw{overflow-x:auto;background:#fff;border:1px solid var(--line);border-radius:8px;margin:.5rem 0}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{padding:.35rem .6rem;border-bottom:1px solid #e7ebef;text-align:left;vertical-align:top}
thead th{background:#f1f4f7;font-size:.8rem}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.why{background:#fff;border:1px solid var(--line);border-left:4px solid var(--bad);
border-radius:8px;padding:.7rem .9rem}
.why h3{margin:0 0 .2rem;font-size:1rem}
.why table{font-size:.82rem}.why td,.why th{padding:.15rem .4rem}
tr.hit td{background:var(--hitbg)}
.badge{display:inline-block;font-size:.75rem;font-weight:700;padding:0 .45rem;border-radius:999px;
border:1px solid var(--line)}
.badge.hit{color:var(--hit);border-color:var(--hit);background:var(--hitbg)}
.note{background:var(--warn);border-left:4px solid #d8a100;padding:.4rem .7rem;border-radius:4px}
.why-grid{display:grid;gap:.75rem;grid-template-columns:repeat(auto-fill,minmax(21rem,1fr))}
@media (max-width:600px){.why-grid{grid-template-columns:1fr}}
"""


def _e(x: object) -> str:
    return html.escape(str(x), quote=True)


def _f(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def _table(header: Sequence[str], rows: Sequence[Sequence[object]], numeric: Sequence[bool]) -> str:
    head = "".join(f'<th scope="col">{_e(h)}</th>' for h in header)
    body = []
    for r in rows:
        cells = []
        for j, c in enumerate(r):
            text = _f(c) if isinstance(c, float) else _e(c)
            if j == 0:
                cells.append(f'<th scope="row">{text}</th>')
            else:
                cells.append(f'<td class="n">{text}</td>' if numeric[j] else f"<td>{text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f'<div class="tw"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def _figure_html(svg: str, caption: str) -> str:
    return f"<figure>{svg}<figcaption>{_e(caption)}</figcaption></figure>"


def _headline(model: ReportModel) -> str:
    parts = ['<h2 id="headline">Headline scores</h2><div class="cards">']
    for run in model.runs:
        ev = run.evaluation
        em = run.em.get("em", {}).get("overall")
        em_any = run.em.get("em_any", {}).get("overall")
        parts.append(
            '<div class="headline">'
            f'<div class="name">{_e(run.name)}</div>'
            '<div class="nums">'
            f'<div class="num"><b>{_f(ev.accuracy["overall"])}</b><span>VQA accuracy'
            f"{_ci_text(run)}</span></div>"
            f'<div class="num"><b>{_f(em)}</b><span>EM</span></div>'
            f'<div class="num"><b>{_f(em_any)}</b><span>EM-any</span></div>'
            "</div>"
            f'<div class="small muted">{len(ev.scores)} questions · profile '
            f"<code>{_e(ev.profile.name)}</code></div>"
            f'<div class="sig">{_e(ev.signature.format())}</div>'
            + "".join(f'<p class="note small">{_e(n)}</p>' for n in ev.notes)
            + "</div>"
        )
    parts.append("</div>")
    return "".join(parts)


def _ci_text(run: ModelRun) -> str:
    """`` · 95% CI [lo, hi]`` under the headline (percentile bootstrap, images resampled)."""
    if run.interval is None:
        return ""
    o = run.interval.overall
    return f"<br>95% CI [{o.low:.2f}, {o.high:.2f}]"


def _breakdowns(model: ReportModel) -> str:
    out = ['<h2 id="types">Per answer type and per question type</h2>']
    first = model.runs[0].evaluation
    if not first.accuracy["perAnswerType"] and not first.accuracy["perQuestionType"]:
        out.append(
            '<p class="note">These annotations carry no <code>answer_type</code> or '
            "<code>question_type</code>, so there is no breakdown.</p>"
        )
        return "".join(out)
    for key, title in (("perAnswerType", "answer type"), ("perQuestionType", "question type")):
        labels = list(first.accuracy[key])  # type: ignore[literal-required]
        if not labels:
            continue
        series = {
            r.name: [r.evaluation.accuracy[key].get(lb, 0.0) for lb in labels]  # type: ignore[literal-required]
            for r in model.runs
        }
        counts = Counter(
            first.dataset.answer_types if key == "perAnswerType" else first.dataset.question_types
        )
        svg = _barh(f"type-{key}", labels, series, "VQA accuracy (%)", f"VQA accuracy per {title}")
        out.append(_figure_html(svg, f"Per {title}; groups in first-seen order."))
        rows = [
            [lb, counts.get(lb, 0), *(series[r.name][i] for r in model.runs)]
            for i, lb in enumerate(labels)
        ]
        out.append(
            _table(
                [title, "n", *(r.name for r in model.runs)],
                rows,
                [False, True, *([True] * len(model.runs))],
            )
        )
    return "".join(out)


def _rules(model: ReportModel) -> str:
    out = [
        '<h2 id="rules">What each normalization rule changed</h2>',
        f"<p>Under profile <code>{_e(model.profile.name)}</code>: how many predictions each step "
        "changed, and in how many questions it changed at least one human answer. "
        "Skipped steps (unanimous answers) change nothing.</p>",
    ]
    for run in model.runs:
        names = list(run.rule_changes)
        series = {
            "predictions changed": [float(run.rule_changes[n][0]) for n in names],
            "questions with an answer changed": [float(run.rule_changes[n][1]) for n in names],
        }
        title = f"Normalization steps: {_short(run.name, 48)}"
        svg = _barh(f"rules-{run.name}", names, series, "questions", title, xmax=None, fmt="{:.0f}")
        n = len(run.evaluation.scores)
        out.append(
            _figure_html(
                svg,
                f"{run.unanimous_skips} of {n} questions have unanimous answers: the official "
                "rule skips every step but cleanup there.",
            )
        )
    return "".join(out)


def _chat(model: ReportModel) -> str:
    """Diagnostics of chat-style predictions and, under ``extract``, what each rule changed."""
    out = [
        '<h2 id="chat">Chat-style answers</h2>',
        "<p>Predictions that look like chat replies rather than short answers (answer markers, "
        "reasoning blocks, markdown, full sentences, many words). Diagnostics never change a "
        "score: the official score counts such text as written. "
        + (
            f"Here the answers were extracted first with <code>{_e(model.extract)}</code> "
            f"(<code>extract:{_e(model.extract)}</code> in the signature).</p>"
            if model.extract
            else "<code>--extract answer</code> scores the answer inside them instead.</p>"
        ),
    ]
    for run in model.runs:
        ev = run.evaluation
        d = ev.diagnostics
        if d is None:
            continue
        out.append(f"<h3>{_e(run.name)}</h3>")
        line = f"{d.verbose} of {d.n} predictions look verbose."
        if run.if_extracted is not None:
            line += (
                f" With <code>--extract answer</code> the overall score would be "
                f"{run.if_extracted:.2f} instead of {ev.accuracy['overall']:.2f}."
            )
        out.append(f"<p>{line}</p>")
        if d.verbose:
            rows = [[k, v] for k, v in d.reasons.items() if v]
            out.append(_table(["sign", "predictions"], rows, [False, True]))
            ex = [[i + 1, repr(t), ", ".join(r)] for i, t, r in d.examples]
            out.append(_table(["#", "example (raw)", "signs"], ex, [False, False, False]))
        if ev.extraction is not None:
            counts = ev.extraction.rule_counts()
            rows = [[k, v] for k, v in counts.items()]
            out.append(
                f"<p>Extractor <code>{_e(ev.extraction.name)}</code> changed "
                f"{ev.extraction.as_dict()['changed']} answers; per rule:</p>"
            )
            out.append(_table(["rule", "answers changed"], rows, [False, True]))
            shown = [
                [ev.question_ids[i], repr(ev.extraction.raw[i]), repr(t.text), t.rule]
                for i, t in enumerate(ev.extraction.traces)
                if t is not None and t.rules
            ][:5]
            out.append(
                _table(
                    ["question", "raw", "extracted", "rules"], shown, [False, False, False, False]
                )
            )
    return "".join(out)


def _profiles(model: ReportModel) -> str:
    names = [p.name for p in list_profiles()]
    series = {r.name: [r.by_profile[p] for p in names] for r in model.runs}
    svg = _barh(
        "profiles", names, series, "VQA accuracy (%)", "The same predictions under every profile"
    )
    rows = [[p, *(r.by_profile[p] for r in model.runs)] for p in names]
    return (
        '<h2 id="profiles">The same results under each profile</h2>'
        "<p>Each profile reproduces one toolkit's scoring rules. Differences here are differences "
        "of scoring, not of models: quote the signature next to every number.</p>"
        + _figure_html(svg, "VQA accuracy (%) per profile.")
        + _table(
            ["profile", *(r.name for r in model.runs)], rows, [False, *([True] * len(model.runs))]
        )
    )


def _records_for_explain(answers: Sequence[str], groups: Sequence[int] | None) -> list[Any]:
    """Answers as explain() needs them to leave records out as the evaluation did."""
    if groups is None:
        return list(answers)
    return [{"answer": a, "record": g} for a, g in zip(answers, groups, strict=True)]


def _unanimous(ev: VQAEvaluation) -> list[bool]:
    return [bool(rec.get("unanimous_skip")) for rec in ev.per_question()]


def _cards(model: ReportModel) -> str:
    out = [
        '<h2 id="why">Lowest-scoring questions: why this score</h2>',
        "<p>For each model, the lowest-scoring questions (ties: unanimous answers first, then "
        "file order), with the "
        "prediction and every human answer after normalization.</p>",
    ]
    d = model.dataset
    for run in model.runs:
        ev = run.evaluation
        skipped = _unanimous(ev)
        # lowest first; among equal scores, unanimous questions (the exact-match quirk) first
        order = sorted(range(len(ev.scores)), key=lambda i: (ev.scores[i], not skipped[i]))
        order = order[: model.n_cards]
        out.append(f'<h3>{_e(run.name)}</h3><div class="why-grid">')
        for i in order:
            qid = d.question_ids[i]
            pred = ev.predictions[i]
            text = model.question_texts.get(qid, "")
            head = (
                f'<div class="why"><h3>Question {_e(qid)} · score '
                f"{_f(percent([ev.scores[i]]))}</h3>" + (f"<p>{_e(text)}</p>" if text else "")
            )
            if pred is None:
                out.append(head + "<p>No prediction: scored 0.</p></div>")
                continue
            e = explain(pred, _records_for_explain(d.answers[i], d.groups[i]), ev.profile)
            # identical slips are one row with their count, most frequent first
            grouped = Counter(zip(e.answers, e.normalized_answers, e.matches, strict=True))
            rows = "".join(
                f'<tr class="{"hit" if hit else ""}"><td class="n">×{count}</td>'
                f"<td><code>{_e(raw)}</code></td><td><code>{_e(norm)}</code></td>"
                f"<td>{'✓' if hit else ''}</td></tr>"
                for (raw, norm, hit), count in grouped.most_common()
            )
            why = []
            if e.unanimous:
                why.append(
                    "All answers are identical after cleanup, so nothing else is "
                    "normalized and matching is exact."
                )
            why.append(
                f"m = {e.m} of {len(e.answers)} answers match; "
                f"textbook min(1, m/3) = {_f(percent([e.textbook_score]))}, "
                f"official = {_f(percent([e.score]))}."
            )
            out.append(
                head
                + f"<p>Prediction <code>{_e(pred)}</code> → <code>{_e(e.normalized_prediction)}"
                "</code></p>"
                "<table><thead><tr><th>slips</th><th>answer</th><th>normalized</th><th>match</th>"
                f"</tr></thead><tbody>{rows}</tbody></table>"
                + "".join(f'<p class="small">{_e(w)}</p>' for w in why)
                + "</div>"
            )
        out.append("</div>")
    return "".join(out)


def _comparison(model: ReportModel) -> str:
    if len(model.runs) < 2:
        return ""
    labels = ["VQA accuracy", "EM", "EM-any"]
    series = {
        r.name: [
            r.evaluation.accuracy["overall"],
            float(r.em.get("em", {}).get("overall", 0.0)),
            float(r.em.get("em_any", {}).get("overall", 0.0)),
        ]
        for r in model.runs
    }
    svg = _barh("compare", labels, series, "score (%)", "Models side by side")
    rows = []
    for p in model.paired:
        rows.append(
            [
                f"{p['a']} − {p['b']}",
                p["wins"],
                p["ties"],
                p["losses"],
                f"{p['delta']:+.2f}",
                f"[{p['low']:+.2f}, {p['high']:+.2f}]",
                f"{p['p_value']:.4f}",
            ]
        )
    out = [
        '<h2 id="compare">Comparison of the models</h2>',
        _figure_html(svg, "Headline scores of every model."),
        "<p>Every pair A − B, oriented as <code>vqametrics diff --results A --results B</code> "
        "prints it: questions where A scores higher, the same, or lower than B; Δ = A − B in "
        "points (unrounded before display) with a paired bootstrap 95% interval and a "
        "sign-flip permutation p-value (vqametrics.aggregate.stats, whole images resampled).</p>",
        _table(
            ["A − B", "A higher", "same", "B higher", "Δ VQA acc", "95% CI", "p"],
            rows,
            [False, True, True, True, True, False, True],
        ),
    ]
    if len(model.runs) >= 3:
        out.append(_matrix(model))
    out.append(_changed(model))
    return "".join(out)


def _matrix(model: ReportModel) -> str:
    """Row − column for every pair: Δ and p (the lower triangle is the upper one negated)."""
    names = [r.name for r in model.runs]
    cell: dict[tuple[int, int], str] = {}
    for i, j, d in model.diffs:
        t = d.test.overall
        cell[(i, j)] = f"{t.delta:+.2f} (p {t.p_value:.4f})"
        cell[(j, i)] = f"{-t.delta:+.2f} (p {t.p_value:.4f})"
    rows = [[a, *(cell.get((i, j), "—") for j in range(len(names)))] for i, a in enumerate(names)]
    return (
        "<h3>Pairwise matrix: row − column</h3>"
        "<p>Δ VQA accuracy of the row's model minus the column's, with the permutation "
        "p-value of that pair.</p>"
        + _table(["row − column", *names], rows, [False, *([True] * len(names))])
    )


def _changed(model: ReportModel, top: int = 15) -> str:
    """The questions whose score changed, per pair, largest change first (as ``diff``)."""
    out = ["<h3>Changed questions</h3>"]
    for i, j, d in model.diffs:
        a, b = model.runs[i].name, model.runs[j].name
        rows = [
            [
                str(f["question_id"]),
                _short(model.question_texts.get(f["question_id"], ""), 60),
                f"{100 * f['difference']:+.0f}",
                "(missing)" if f["prediction_a"] is None else f["prediction_a"],
                "(missing)" if f["prediction_b"] is None else f["prediction_b"],
                answer_counts(f["answers"]),
            ]
            for f in d.flips[:top]
        ]
        out.append(
            f"<details><summary>{_e(a)} − {_e(b)}: {len(d.flips)} questions changed "
            f"(top {min(top, len(d.flips))} shown)</summary>"
            + _table(
                ["question", "text", "Δ", f"{a}", f"{b}", "human answers"],
                rows,
                [False, False, True, False, False, False],
            )
            + "</details>"
        )
    return "".join(out)


_KIND_TEXT = {
    "unanimity": "unanimity rule (would match if normalized)",
    "plural": "singular vs plural",
    "number": "number word vs digits",
    "answer in prediction": "majority answer inside the prediction",
    "prediction in answer": "prediction inside the majority answer",
    "verbose": "verbose (4+ words)",
}


def _near_misses(model: ReportModel) -> str:
    """Counts per near-miss kind and model, then examples."""
    runs = [r for r in model.runs if r.near is not None]
    if not runs:
        return ""
    rows: list[list[object]] = []
    for k in KINDS:
        row: list[object] = [_KIND_TEXT[k]]
        for r in runs:
            assert r.near is not None
            entry = r.near.kinds[k]
            detail = ", ".join(f"{e} {n}" for e, n in sorted(entry.by_detail.items()))
            row.append(f"{entry.count}" + (f" ({detail})" if detail else ""))
        rows.append(row)
    rows.append(["questions scored 0", *(r.near.zeros for r in runs if r.near is not None)])
    out = [
        '<h2 id="nearmiss">Near misses among the wrong answers</h2>',
        "<p>Questions scored 0 whose prediction is close to the majority human answer (both "
        "fully normalized): the first kind that fits names it (vqametrics.views.nearmiss).</p>",
        _table(["kind", *(r.name for r in runs)], rows, [False, *([True] * len(runs))]),
    ]
    d = model.dataset
    for r in runs:
        assert r.near is not None
        ex_rows = []
        for k in KINDS:
            for ex in r.near.kinds[k].examples[:3]:
                i = ex["index"]
                answers = answer_counts(d.answers[i])
                ex_rows.append([k, str(ex["question_id"]), ex["prediction"], answers])
        if ex_rows:
            out.append(
                f"<details><summary>Examples: {_e(r.name)}</summary>"
                + _table(["kind", "question", "prediction", "human answers"], ex_rows, [False] * 4)
                + "</details>"
            )
    return "".join(out)


def _questions(model: ReportModel) -> str:
    d = model.dataset
    header, rows = question_rows(
        d.question_ids,
        model.question_texts,
        d.answer_types,
        d.answers,
        [(r.name, r.evaluation.predictions, r.evaluation.scores) for r in model.runs],
    )
    return question_table_html(header, rows)


def render_report(model: ReportModel) -> str:
    """The report as one HTML string (styles and SVG charts inline)."""
    nav = [
        ("headline", "Headline"),
        ("distribution", "Distribution"),
        ("types", "Types"),
        ("rules", "Normalization"),
        ("chat", "Chat answers"),
        ("profiles", "Profiles"),
        ("why", "Why this score"),
        ("nearmiss", "Near misses"),
    ]
    if len(model.runs) > 1:
        nav.append(("compare", "Comparison"))
    nav.append(("questions", "Every question"))
    links = " · ".join(f'<a href="#{a}">{_e(t)}</a>' for a, t in nav)
    body = [
        '<header><p class="mono small muted">vqametrics report</p>',
        f"<h1>VQA evaluation of {len(model.runs)} result file(s)</h1>",
        f'<p class="small muted">annotations: <code>{_e(model.annotations)}</code> · '
        f"{len(model.dataset)} questions · profile <code>{_e(model.profile.name)}</code> "
        f"({_e(model.profile.reproduces)}) · vqametrics {_e(__version__)}</p>",
        f'<nav class="small">{links}</nav></header>',
        _headline(model),
        '<h2 id="distribution">Distribution of per-question scores</h2>',
        _figure_html(
            _distribution_chart(model.runs),
            "How many questions got each score. With 10 answers the official values "
            "are 0, 30, 60, 90 and 100 (m = 0, 1, 2, 3, 4+ matching answers).",
        ),
        _breakdowns(model),
        _rules(model),
        _chat(model),
        _profiles(model),
        _cards(model),
        _near_misses(model),
        _comparison(model),
        _questions(model),
        '<footer class="small muted"><p>Generated by vqametrics '
        f"{_e(__version__)}; self-contained, no network needed.</p></footer>",
    ]
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>vqametrics report — {_e(', '.join(r.name for r in model.runs))}</title>"
        f"<style>{_CSS}</style></head><body><main>" + "".join(body) + "</main></body></html>\n"
    )


def write_report(out: str | Path, *args: Any, **kwargs: Any) -> Path:
    """:func:`build_report` then :func:`render_report` into the file *out* (written under a
    temporary name, then renamed into place); returns its path."""
    from .output import write_output_file

    text = render_report(build_report(*args, **kwargs))
    return write_output_file(out, text.encode("utf-8"))
