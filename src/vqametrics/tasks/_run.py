"""Score a whole run of any task: read → per-item scores → aggregate → signature."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, NoReturn

from ..core.arguments import ArgumentTypeError, check, check_choice
from ..core.collector import gc_paused
from ..core.exceptions import (
    InputError,
    MissingDependencyError,
    UnknownNameError,
    VqaMetricsError,
)
from ..core.signature import Signature
from ..readers.items import TOOLKIT_SCORE
from ..readers.toolkit_names import warn_if_other_task
from . import get_task
from ._base import (
    Aggregate,
    Item,
    ItemColumns,
    Task,
    TaskData,
    TaskInputs,
    TaskProfile,
    item_column,
)

if TYPE_CHECKING:  # loaded by the runs that diagnose or extract (many do neither); the
    # input types are for type checkers only (a Protocol and unions cost a run 0.2 ms)
    from typing import Protocol, TypeAlias

    from ..aggregate.stats import BootstrapResult
    from ..extract import Diagnostics, ExtractionRun
    from ..mmbench.model import MMBenchData
    from ..mmbench.model import Predictions as MMBenchPredictions
    from ..pipeline.explanation import Explanation
    from ..pipeline.toolkit_check import SampleCheck
    from ..readers.vqa import Results as VQAResults
    from ..readers.vqa import VQADataset
    from ._explain import ItemExplanation

    class DataFrameLike(Protocol):
        """What a pandas ``DataFrame`` of predictions is read through (pandas is not needed)."""

        @property
        def columns(self) -> Any: ...

        def to_dict(self, orient: Any = ...) -> Any: ...

    #: what :func:`evaluate` reads as the predictions: a path (``"-"``: standard input), a list of
    #: records, a ``{question_id: answer}`` mapping, a DataFrame, or a reader's own loaded object
    PredictionSource: TypeAlias = (
        str
        | os.PathLike[str]
        | Sequence[Mapping[str, Any]]
        | Mapping[Any, Any]
        | DataFrameLike
        | VQAResults
        | MMBenchPredictions
    )
    #: the ground truth or the questions: a path, a list of records, the document already loaded
    #: (the official ``{"annotations": [...]}``, TextVQA's ``{"data": [...]}``) or a reader's own
    GroundTruthSource: TypeAlias = (
        str
        | os.PathLike[str]
        | Sequence[Mapping[str, Any]]
        | Mapping[str, Any]
        | VQADataset
        | MMBenchData
    )


__all__ = ["SCHEMA_VERSION", "TaskEvaluation", "evaluate", "evaluate_task", "with_intervals"]

#: The version of the JSON document of :meth:`TaskEvaluation.as_dict`
#: (``vqametrics/schema/evaluation-1.json``)
SCHEMA_VERSION = 1


@dataclass(frozen=True, eq=False)
class TaskEvaluation:
    """The result of :func:`evaluate`: per-item scores, the aggregate, the signature.

    Read-only by intent (its mappings and lists are not copied: do not change them); two runs
    compare by identity, so compare their :meth:`as_dict`. It pickles (its task and profile by
    their registered names), so it crosses process pools.
    """

    task: Task
    profile: TaskProfile
    data: TaskData
    #: unrounded per-item scores, in item order
    scores: list[float]
    aggregate: Aggregate
    signature: Signature
    #: verbose-looking raw predictions (never used by a score)
    diagnostics: Diagnostics | None = None
    #: the ``extract=`` stage: raw texts and per-item traces (``None``: not asked)
    extraction: ExtractionRun | None = None
    #: yes/no judge (``judge=``): item position -> ``judge.Judgement``, and the counts
    judgements: Mapping[int, Any] | None = None
    judge_stats: Any = None
    #: the toolkit's recorded per-sample scores beside ours (lmms-eval logs), by rule
    sample_check: SampleCheck | None = None
    #: bootstrap intervals when asked (``ci=``), else ``None``
    intervals: BootstrapResult | None = None
    #: what the results file adds to every task's check (VQA v2's ``toolkit_check.ToolkitCheck``:
    #: the ``ReportedRule`` its reported numbers are compared by; its samples are ``sample_check``)
    toolkit_check: Any = None
    #: the signatures of extra metrics beside the headline's (VQA v2's EM: ``{"em": ...}``)
    signatures: Mapping[str, str] = field(default_factory=dict)
    #: an open-ended judge's summary beside (never instead of) the score (``vqa --judge-url``)
    judge_summary: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        where = "TaskEvaluation"
        for name, kind in (
            ("task", Task),
            ("profile", TaskProfile),
            ("data", TaskData),
            ("aggregate", Aggregate),
            ("signature", Signature),
        ):
            check(where, name, getattr(self, name), None, also=(kind,))
        if not hasattr(self.scores, "__len__"):
            raise ArgumentTypeError(f"{where}: scores must be a list of numbers")
        if len(self.scores) != len(self.data.items):
            raise InputError(f"{where}: {len(self.scores)} scores for {len(self.data.items)} items")

    @property
    def metrics(self) -> Mapping[str, float | int]:
        """The toolkit's numbers, unrounded, in its units (``aggregate.metrics``)."""
        return self.aggregate.metrics

    @property
    def headline(self) -> float | int:
        """The main number (``metrics[aggregate.headline]``)."""
        return self.aggregate.metrics[self.aggregate.headline]

    @property
    def notes(self) -> tuple[str, ...]:
        return self.data.notes + self.aggregate.notes

    def __repr__(self) -> str:
        missing = f", {self.data.n_missing} missing" if self.data.n_missing else ""
        return (
            f"<TaskEvaluation {self.task.name} {self.aggregate.headline}={self.headline!r} "
            f"({self.aggregate.units}) | profile {self.profile.name}, "
            f"{len(self.scores)} items{missing}>"
        )

    def _repr_html_(self) -> str:
        from ..core.display import html_table

        rows = [[k, v] for k, v in self.metrics.items()]
        caption = f"{self.task.title} · profile {self.profile.name} · {len(self.scores)} items"
        notes = "".join(f"<p><small>{n}</small></p>" for n in self.notes[:3])
        return (
            html_table(["metric", "value"], rows, self.aggregate.digits, caption)
            + f"<p><code>{self.signature.format()}</code></p>"
            + notes
        )

    def index(self, item_id: Any) -> int:
        """The position of item *item_id* (``"7"`` finds the integer id ``7`` and back); an
        unknown id is an :class:`~vqametrics.UnknownNameError` naming the id and the file."""
        positions = self._positions()
        for key in (item_id, str(item_id), _as_int(item_id)):
            if key is not None and key in positions:
                return positions[key]
        items = self.data.items
        shown = ", ".join(repr(i) for i in item_column(items, "id")[:3])
        raise UnknownNameError(
            f"{', '.join(self.data.sources) or '<input>'}: no item with id {item_id!r} among its "
            f"{len(items)} items" + (f" (ids such as {shown})" if shown else "")
        )

    def _positions(self) -> dict[Any, int]:
        hit: dict[Any, int] | None = self.__dict__.get("_positions_memo")
        if hit is None:
            hit = {}
            for i, item_id in enumerate(item_column(self.data.items, "id")):
                hit.setdefault(item_id, i)
            object.__setattr__(self, "_positions_memo", hit)
        return hit

    def explain(self, item_id: Any) -> Explanation | ItemExplanation:
        """Why item *item_id* scored as it did: the task's own explanation (VQA v2: every
        normalization step and the leave-one-out table, as :func:`vqametrics.explain`), else
        :func:`vqametrics.views.explanation.explain_item`."""
        i = self.index(item_id)
        if self.task.explain is not None:
            explained: Explanation | ItemExplanation = self.task.explain(self, i)
            return explained
        from ._explain import explain_item

        return explain_item(self, item_id)

    def record(self, i: int) -> dict[str, Any]:
        """The :meth:`per_item` record of the item at position *i*."""
        return next(self._records(range(i, i + 1)))

    def to_pandas(self) -> Any:
        """One row per item (``id``, ``prediction``, ``references``, ``score`` and the detail
        fields of :meth:`per_item`) as a pandas DataFrame (``pip install 'vqametrics[pandas]'``)."""
        try:
            import pandas as pd
        except ModuleNotFoundError:
            from ..core.extras import install_hint

            raise MissingDependencyError(
                f"to_pandas() needs pandas: {install_hint('pandas')}"
            ) from None
        records = list(self.per_item())
        head = ["id", "prediction", "references", "score"]
        columns = head + sorted({k for r in records for k in r} - set(head))
        return pd.DataFrame.from_records(records, columns=columns)

    def per_item(self) -> Iterator[dict[str, Any]]:
        """One record per item: id, prediction, references, score and the profile's detail."""
        if len(self.data.items) != len(self.scores):
            for _ in zip(self.data.items, self.scores, strict=True):  # raise as zip(strict)
                pass
        return self._records(range(len(self.scores)))

    def _records(self, rows: range) -> Iterator[dict[str, Any]]:
        flags = self.diagnostics.flags if self.diagnostics is not None else None
        ex = self.extraction
        for i in rows:
            item, score = self.data.items[i], self.scores[i]
            rec: dict[str, Any] = {
                "id": item.id,
                "prediction": item.prediction,
                "references": list(item.references),
                "score": score,
            }
            if item.prediction is None:
                rec["missing"] = True
            else:
                if ex is not None:
                    rec.update(ex.record(i))
                if flags is not None:
                    rec["verbose"] = bool(flags[i])
                    if flags[i]:
                        rec["verbose_reasons"] = list(flags[i] or ())
                if self.judgements is not None and i in self.judgements:
                    rec["judge"] = self.judgements[i].as_dict()
                rec.update(self.profile.item_detail(item))
            rec.update({k: v for k, v in item.fields.items() if _plain(v)})
            yield rec

    def as_dict(self) -> dict[str, Any]:
        """The JSON document of this evaluation (``--json``, ``metrics.json``): schema 1
        (``schema/evaluation-1.json``), the same for every task and command; every number
        unrounded, in the benchmark's own units."""
        agg = self.aggregate
        out: dict[str, Any] = {
            "schema": SCHEMA_VERSION,
            "task": self.task.name,
            "profile": self.profile.name,
            "n": len(self.scores),
            "headline": agg.headline,
            "units": agg.units,
            "metrics": dict(agg.metrics),
            "breakdowns": {
                k: {g: dict(m) for g, m in v.items()} for k, v in agg.breakdowns.items()
            },
            "signature": self.signature.format(),
            "layouts": list(self.data.layouts),
            "sources": list(self.data.sources),
            "n_missing": self.data.n_missing,
            "n_extra_ignored": self.data.n_extra_ignored,
            "n_duplicates": self.data.n_duplicates,
            "notes": list(self.notes),
        }
        if self.signatures:
            out["signatures"] = {"headline": out["signature"], **self.signatures}
        from ..pipeline.toolkit_check import reported_block  # only for the document

        reported = reported_block(self)
        if reported is not None:
            out["reported"] = reported
        if self.intervals is not None:
            out["intervals"] = {
                "ci95": self.intervals.ci95,
                "se": self.intervals.se,
                "bootstrap": self.intervals.settings(),
            }
        if self.diagnostics is not None:
            out["diagnostics"] = self.diagnostics.as_dict(item_column(self.data.items, "id"))
        if self.extraction is not None:
            out["extract"] = self.extraction.as_dict()
        if self.judge_stats is not None:
            out["judge"] = self.judge_stats.as_dict()
        elif self.judge_summary is not None:
            out["judge"] = dict(self.judge_summary)
        return out


def _as_int(x: Any) -> int | None:
    try:
        return int(x)
    except (TypeError, ValueError):
        return None


def _plain(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _check_arguments(args: dict[str, Any]) -> None:
    """:func:`evaluate`'s arguments of a wrong type: the library's error, before any work."""
    for name in ("profile", "format", "id_field", "answer_field", "extract"):
        check("evaluate", name, args[name], "str", optional=True)
    for name in ("allow_missing", "ignore_extra"):
        check("evaluate", name, args[name], "bool")
    check_choice("evaluate", "on_duplicate", args["on_duplicate"], ("error", "last"))
    check("evaluate", "reported", args["reported"], "path", optional=True)
    if not isinstance(args["ci"], bool):
        check("evaluate", "ci", args["ci"], "int", minimum=1, also=(bool,))
    check("evaluate", "seed", args["seed"], "int", optional=True, minimum=0)
    judge = args["judge"]
    if judge is not None and not (hasattr(judge, "complete_many") and hasattr(judge, "model")):
        raise ArgumentTypeError(
            f"evaluate: judge must be a vqametrics.judge.JudgeClient, got {type(judge).__name__}"
        )


def _check_options(t: Task, options: Mapping[str, Any]) -> None:
    """A keyword :func:`evaluate` does not know and the task does not declare
    (``Task.options``) is an error, not silently ignored: a misspelled option changes nothing."""
    own = [*(name.replace("-", "_") for name, _ in t.options), *t.api_options]
    unknown = [name for name in options if name not in own]
    if not unknown:
        return
    import difflib
    import inspect

    known = [*(p for p in inspect.signature(evaluate).parameters if p not in _NOT_KEYWORDS), *own]
    name = unknown[0]
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"; did you mean {close[0]}=?" if close else ""
    raise UnknownNameError(
        f"evaluate: unknown keyword argument {name}= for task {t.name!r}{hint} (the task's own "
        f"options: {', '.join(f'{o}=' for o in own) or 'none'})"
    )


#: :func:`evaluate`'s parameters that are not keyword options
_NOT_KEYWORDS = ("task", "results", "options")


def evaluate(
    task: str | Task,
    results: PredictionSource,
    *,
    annotations: GroundTruthSource | None = None,
    questions: GroundTruthSource | None = None,
    profile: str | None = None,
    format: str | None = None,
    id_field: str | None = None,
    answer_field: str | None = None,
    allow_missing: bool = False,
    ignore_extra: bool = False,
    on_duplicate: Literal["error", "last"] = "error",
    reported: Any = None,
    extract: str | None = None,
    judge: Any = None,
    ci: bool | int = False,
    seed: int | None = None,
    **options: Any,
) -> TaskEvaluation:
    """Score a results file (or in-memory predictions) of *task*: the one entry point, for
    every registered task (VQA v2, OK-VQA, TextVQA, POPE, MME, MMBench, …).

    Parameters
    ----------
    task : str or Task
        A registered task name (``textvqa``, ``pope``, …; see :func:`list_tasks`).
    results : path, ``"-"``, list of records, mapping or DataFrame
        The predictions, in any layout the task reads (``Task.layouts``): a path, a list of
        ``{question_id, answer}`` records, a ``{qid: answer}`` mapping or a pandas DataFrame.
    annotations, questions : path, optional
        The ground truth and the question file, where the task needs them; a results file
        that carries its ground truth (VLMEvalKit, lmms-eval with ``doc``) needs neither.
    profile : str, optional
        The toolkit to reproduce (default: the task's official scorer).
    format : str, optional
        Force how *results* is read: a file format (``json``, ``jsonl``, ``csv``, ``tsv``,
        ``xlsx``), a toolkit layout (``official``, ``llava``, ``vlmevalkit``, ``lmms-eval``,
        ``gqa``, ``docvqa``, ``vizwiz``) or both (``vlmevalkit,csv``); by default both are
        recognized from the content.
    id_field, answer_field : str, optional
        The results' id and answer columns, when the layout is unusual.
    reported : path, optional
        The toolkit's own scores (VLMEvalKit ``_acc.csv``, lmms-eval ``results.json``); by
        default looked for beside the results file.
    extract : str, optional
        An answer extractor (``answer``, ``lmms-eval``, ``vlmevalkit``, ``evalscope``; see
        :func:`~vqametrics.extract.list_answer_extractors`) run on each prediction before
        scoring; recorded in the signature (``extract:NAME``). Default: score the text as is.
    judge : vqametrics.judge.JudgeClient, optional
        Yes/no tasks only: answers the profile's parser leaves ``other`` are read by the LLM
        judge (as VLMEvalKit does for POPE/MME); a decided answer is scored as ``yes``/``no``,
        an unjudged one stays as written. In the signature as ``judge:<model>``.
    ci : bool or int, default=False
        ``True`` (or a number of bootstrap replicates): 95% intervals of the mean per-item
        score and of every breakdown in ``intervals`` (:func:`vqametrics.evaluation_ci`);
        recorded in the signature.
    seed : int, optional
        The bootstrap's seed (default 12345); given without ``ci``, it implies ``ci=True``, as
        the command line's ``--seed`` implies ``--ci``.
    options
        Task-specific options (``Task.options``: GQA's ``choices=``, VQA v2's
        ``metrics="em,em-any"``, …); a name that is neither one of them nor an argument above
        is an :class:`~vqametrics.UnknownNameError`.

    Returns
    -------
    TaskEvaluation
        ``metrics`` unrounded in the toolkit's units; ``scores`` per item.
    """
    _check_arguments(locals())
    t = get_task(task)
    _check_options(t, options)
    if seed is not None and ci is False:
        ci = True  # as the command line's --seed implies --ci
    prof = t.profile(profile)
    inputs = TaskInputs(
        results=results,
        annotations=annotations,
        questions=questions,
        format=format,
        id_field=id_field,
        answer_field=answer_field,
        allow_missing=allow_missing,
        ignore_extra=ignore_extra,
        on_duplicate=on_duplicate,
        options=options,
        reported=reported,
        profile=prof.name,
    )
    if extract is not None and not t.extract_applies:
        raise InputError(
            f"score {t.name}: --extract does not apply (the profile reads the raw response)"
        )
    if extract is not None:
        from ..extract import get_answer_extractor

        get_answer_extractor(extract)  # an unknown name fails before any file is read
    if judge is not None and prof.parse is None and t.judge is None:
        raise InputError(
            f"the LLM judge reads yes/no answers; task {t.name!r} (profile {prof.name!r}) has "
            "no yes/no parser"
        )
    # a run builds many acyclic objects (VQA v2: millions): the cyclic collector's passes over
    # them cost 16 % of a 214k-question `score vqav2`, and none can be part of a cycle. Not
    # while a judge is asked: its HTTP client may run for long and make cycles
    with gc_paused() if judge is None else contextlib.nullcontext():
        result = _run(t, prof, inputs, extract=extract, judge=judge)
    warn_if_other_task(results, t.name, t.title)  # x_MME.xlsx scored as POPE: say so
    if ci is False or ci is None:
        return result
    return with_intervals(result, None if ci is True else int(ci), seed)


def with_intervals(
    result: TaskEvaluation, n_bootstrap: int | None = None, seed: int | None = None
) -> TaskEvaluation:
    """*result* with its bootstrap intervals (``intervals``) and their settings in the
    signature (``bootstrap:N|seed:S``)."""
    from ..aggregate.stats import DEFAULT_BOOTSTRAP, DEFAULT_SEED, evaluation_ci

    n = DEFAULT_BOOTSTRAP if n_bootstrap is None else n_bootstrap
    s = DEFAULT_SEED if seed is None else seed
    intervals = evaluation_ci(result, n_bootstrap=n, seed=s)
    return replace(
        result, intervals=intervals, signature=result.signature.with_fields(bootstrap=n, seed=s)
    )


def _run(
    t: Task, prof: TaskProfile, inputs: TaskInputs, *, extract: str | None, judge: Any
) -> TaskEvaluation:
    """read → extract → judge → score → aggregate → signature."""
    data = t.read(inputs)
    if data.reported and "n_samples" in data.reported:
        data = _with_sample_count_note(data)
    # whole columns (not built items) where the reader gave columns (``ItemColumns``)
    raw = item_column(data.items, "prediction")
    diagnostics = None  # a yes/no or choice parser reads sentences by design: nothing to flag
    if not prof.parses_free_text:
        from ..extract import diagnose

        diagnostics = diagnose(raw, references=item_column(data.items, "references"))
    extraction = None
    items = data.items
    if extract is not None:
        from ..extract import apply_extractor

        extraction = apply_extractor(extract, raw)
        items = [
            item if text is None else replace(item, prediction=text)
            for item, text in zip(items, extraction.texts, strict=True)
        ]
        data = replace(data, items=items)
    judgements = stats = None
    own_stage = t.judge is not None and prof.parse is None
    if judge is not None and prof.parse is not None:
        items, judgements, stats = _judge_other(items, prof.parse, judge)
        data = replace(data, items=items)
    elif own_stage and t.judge is not None:  # the task's judge (its signature names it)
        data, judgements, stats = t.judge(data, prof, judge, inputs)
        items = data.items
    try:
        if prof.score_batch is not None:
            scores = prof.score_batch(items, data)
        else:
            scores = _score_all(prof, items, data.sources)
        aggregate = prof.aggregate(items, scores)
    except VqaMetricsError as exc:  # a fault of the run as a whole: name its file
        _raise_in(exc, data.sources, inputs.results)
    if t.signature_for is not None:
        signature = t.signature_for(prof, data, extract)
    else:
        signature = t.signature(prof, data)
        if extraction is not None:
            signature = signature.with_fields(extract=extraction.name)
    if judge is not None and not own_stage:  # no reply: fail, or named (--allow-unjudged)
        from ..judge import judge_signature_value

        signature = signature.with_fields(judge=judge_signature_value(judge, stats))
    evaluation = TaskEvaluation(
        t,
        prof,
        data,
        scores,
        aggregate,
        signature,
        diagnostics,
        extraction,
        judgements,
        stats,
        sample_check=_sample_check(t, prof, items, scores),
    )
    if t.finish is not None:
        finished: TaskEvaluation = t.finish(evaluation, inputs)
        return finished
    return evaluation


def _with_sample_count_note(data: TaskData) -> TaskData:
    """*data*, with a note when lmms-eval's ``results.json`` says it scored another number of
    samples than the items here (a log with lines lost, or another run's results file)."""
    assert data.reported is not None  # the caller's test
    said, reported = data.reported["n_samples"], data.reported["source"]
    n = len(data.items)  # the log's samples: scored alone, its items; joined, those matched
    if said in (n, n - data.n_missing + data.n_extra_ignored):
        return data
    note = (
        f"{reported} says lmms-eval scored {said} samples (n-samples), but {n} are read here: "
        "lines of the log missing, or the results file of another run?"
    )
    return replace(data, notes=(*data.notes, note))


def _sample_check(
    t: Task, prof: TaskProfile, items: Sequence[Item], scores: Sequence[float]
) -> SampleCheck | None:
    """The toolkit's recorded per-sample scores beside ours (``toolkit_check.check_samples``),
    which is not imported when no item can carry one: columns without them (POPE's, VQA
    v2's), or items none of which has one (MME's folder, a VLMEvalKit sheet)."""
    if isinstance(items, ItemColumns):
        if TOOLKIT_SCORE not in items.field_names:
            return None
    elif not any(TOOLKIT_SCORE in item.fields for item in items):
        return None  # check_samples finds no recorded score to compare
    from ..pipeline.toolkit_check import check_samples

    return check_samples(t, prof, items, scores)


def evaluate_task(task: str | Task, results: Any, **kwargs: Any) -> TaskEvaluation:
    """An alias of :func:`evaluate` (its earlier name), with the same arguments and result."""
    return evaluate(task, results, **kwargs)


def _judge_other(
    items: Sequence[Item], parse: Callable[[str], str], client: Any
) -> tuple[list[Item], dict[int, Any], Any]:
    """Send the answers *parse* leaves ``other`` to the yes/no judge; decided ones become
    ``yes``/``no``, the rest stay as written (unjudged, counted)."""
    from ..judge import JudgeStats, judge_yes_no_records

    ask = [
        i
        for i, it in enumerate(items)
        if it.prediction is not None and parse(it.prediction) == "other"
    ]
    records = judge_yes_no_records(
        [items[i].prediction or "" for i in ask],
        client,
        questions=[str(items[i].fields.get("question") or "") for i in ask],
    )
    out = list(items)
    for i, j in zip(ask, records, strict=True):
        if j.decision is not None:
            out[i] = replace(out[i], prediction=j.decision)
    return out, dict(zip(ask, records, strict=True)), JudgeStats.of(client.model, records)


def _score_all(prof: TaskProfile, items: Sequence[Item], sources: tuple[str, ...]) -> list[float]:
    """Every item's score; an error raised by the scorer names the item it was scoring. A
    profile whose items are scored by ``score(prediction, references)`` alone (no context,
    :meth:`TaskProfile.score_item` as declared) reads the two columns: no item is built."""
    scores: list[float] = []
    append = scores.append
    if prof.context or type(prof).score_item is not TaskProfile.score_item:
        for item in items:
            try:
                append(prof.score_item(item))
            except VqaMetricsError as exc:
                _raise_naming(exc, item, sources)
        return scores
    score = prof.score
    predictions = item_column(items, "prediction")
    try:
        for prediction, references in zip(
            predictions, item_column(items, "references"), strict=True
        ):
            append(0.0 if prediction is None else score(prediction, references))
    except VqaMetricsError as exc:
        _raise_naming(exc, items[len(scores)], sources)
    return scores


def _raise_in(exc: VqaMetricsError, sources: tuple[str, ...], results: Any) -> NoReturn:
    """Raise *exc* (being handled) naming the results file, unless it names a file already
    (the scorer's own "split random: 1415 questions, an odd number" says neither). The results
    are named as given: the order of a run's *sources* is each reader's own."""
    text = str(exc)
    named = os.fspath(results) if isinstance(results, str | os.PathLike) else None
    if named in (None, "-") or any(source in text for source in (*sources, named)):
        raise exc
    raise type(exc)(f"{named}: {text}") from None


def _raise_naming(exc: VqaMetricsError, item: Item, sources: tuple[str, ...]) -> NoReturn:
    """Raise *exc* (being handled) naming the item it was raised for, and the file at fault
    (the ground truth's, always the first source, for its own faults; else the results')."""
    from .textvqa import AnswerCountError

    text = str(exc)
    ground_truth = isinstance(exc, AnswerCountError)
    source = (sources[0] if ground_truth else sources[-1]) if sources else "input"
    if source in text:
        raise exc
    if repr(item.id) in text or str(item.id) in text:
        raise type(exc)(f"{source}: {text}") from None
    raise type(exc)(f"{source}: item {item.id!r}: {text}") from None
