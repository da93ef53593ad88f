"""Score a whole run of any task: read → per-item scores → aggregate → signature."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from .._exceptions import VqaMetricsError
from ..extract import Diagnostics, ExtractionRun, apply_extractor, diagnose
from ..signature import Signature
from . import get_task
from ._base import Aggregate, Item, Task, TaskData, TaskInputs, TaskProfile
from ._check import SampleCheck, check_samples

__all__ = ["TaskEvaluation", "evaluate_task"]


@dataclass(frozen=True, eq=False)
class TaskEvaluation:
    """The result of :func:`evaluate_task`: per-item scores, the aggregate, the signature."""

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
        return (
            f"<TaskEvaluation {self.task.name} profile={self.profile.name} "
            f"n={len(self.scores)} {self.aggregate.headline}={self.headline!r}>"
        )

    def _repr_html_(self) -> str:
        from .._display import html_table

        rows = [[k, v] for k, v in self.metrics.items()]
        caption = f"{self.task.title} · profile {self.profile.name} · {len(self.scores)} items"
        return (
            html_table(["metric", "value"], rows, self.aggregate.digits, caption)
            + f"<p><code>{self.signature.format()}</code></p>"
        )

    def per_item(self) -> Iterator[dict[str, Any]]:
        """One record per item: id, prediction, references, score and the profile's detail."""
        flags = self.diagnostics.flags if self.diagnostics is not None else None
        ex = self.extraction
        for i, (item, score) in enumerate(zip(self.data.items, self.scores, strict=True)):
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
        """The ``--json`` payload: every number unrounded, in the toolkit's units."""
        agg = self.aggregate
        out: dict[str, Any] = {
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
            "notes": list(self.notes),
        }
        if self.data.reported is not None:
            out["reported"] = dict(self.data.reported)
        if self.sample_check is not None:
            out.setdefault("reported", {})["per_sample"] = self.sample_check.as_dict()
        if self.diagnostics is not None:
            out["diagnostics"] = self.diagnostics.as_dict([it.id for it in self.data.items])
        if self.extraction is not None:
            out["extract"] = self.extraction.as_dict()
        if self.judge_stats is not None:
            out["judge"] = self.judge_stats.as_dict()
        return out


def _plain(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def evaluate_task(
    task: str | Task,
    results: Any,
    *,
    annotations: Any = None,
    questions: Any = None,
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
    **options: Any,
) -> TaskEvaluation:
    """Score a results file (or in-memory predictions) of *task*.

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
    options
        Task-specific options (e.g. GQA's ``choices=``).

    Returns
    -------
    TaskEvaluation
        ``metrics`` unrounded in the toolkit's units; ``scores`` per item.
    """
    t = get_task(task)
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
    )
    if extract is not None:
        from ..extract import get_answer_extractor

        get_answer_extractor(extract)  # an unknown name fails before any file is read
    if judge is not None and prof.parse is None:
        from .._exceptions import InputError

        raise InputError(
            f"the LLM judge reads yes/no answers; task {t.name!r} (profile {prof.name!r}) has "
            "no yes/no parser"
        )
    if t.evaluator is not None:
        result: TaskEvaluation = t.evaluator(t, prof, inputs, extract=extract, judge=judge)
        return result
    data = t.read(inputs)
    raw = [item.prediction for item in data.items]
    diagnostics = diagnose(raw, references=[item.references for item in data.items])
    extraction = None
    items = data.items
    if extract is not None:
        extraction = apply_extractor(extract, raw)
        items = [
            item if text is None else replace(item, prediction=text)
            for item, text in zip(items, extraction.texts, strict=True)
        ]
        data = replace(data, items=items)
    judgements = stats = None
    if judge is not None and prof.parse is not None:
        items, judgements, stats = _judge_other(items, prof.parse, judge)
        data = replace(data, items=items)
    scores = _score_all(prof, items, data.sources)
    aggregate = prof.aggregate(items, scores)
    signature = t.signature(prof, data)
    if extraction is not None:
        signature = signature.with_fields(extract=extraction.name)
    if judge is not None:  # items with no reply fail the run, or are named (--allow-unjudged)
        from ..judge import judge_signature_value

        signature = signature.with_fields(judge=judge_signature_value(judge, stats))
    return TaskEvaluation(
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
        sample_check=check_samples(t, prof, items, scores),
    )


def _judge_other(
    items: list[Item], parse: Callable[[str], str], client: Any
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


def _score_all(prof: TaskProfile, items: list[Item], sources: tuple[str, ...]) -> list[float]:
    """Every item's score; an error raised by the scorer names the item it was scoring."""
    scores = []
    for item in items:
        try:
            scores.append(prof.score_item(item))
        except VqaMetricsError as exc:
            from .textvqa import AnswerCountError

            text = str(exc)
            # the ground truth's file (always the first source) for its own faults, else the
            # results file's
            ground_truth = isinstance(exc, AnswerCountError)
            source = (sources[0] if ground_truth else sources[-1]) if sources else "input"
            if source in text:
                raise
            if repr(item.id) in text or str(item.id) in text:
                raise type(exc)(f"{source}: {text}") from None
            raise type(exc)(f"{source}: item {item.id!r}: {text}") from None
    return scores
