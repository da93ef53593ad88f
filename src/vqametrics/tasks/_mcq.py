"""Shared machinery of the multiple-choice tasks: VLMEvalKit MCQ sheets, their recorded judge
decisions, and each toolkit's aggregation (spec mcq-reasoning.md §14, §15, §16).

Reading (:func:`read_mcq_sheet`): a VLMEvalKit prediction sheet ``{model}_{dataset}.xlsx`` or
its record ``{model}_{dataset}_{judge}_result.xlsx`` (the sheet plus ``hit`` and ``log``).
Column names other than single capital letters are lower-cased, as VLMEvalKit does; the
options are the columns ``A``, ``B``, … in order, and an empty cell is an *absent* option
(VLMEvalKit's ``build_choices`` drops NaN cells; the row stays in the denominator).

Scoring (:func:`vlmevalkit_scorer`): the rules (``can_infer`` of the toolkit's version) decide
first; a row they cannot read is decided from the record of the judge, replayed through the
same ``can_infer`` (:func:`vlmevalkit_decision`). The toolkit's own per-row ``hit`` is checked
against ours (:func:`recorded_hit_note`).

Aggregation: :func:`report_acc` (VLMEvalKit: micro ``Overall`` and per group),
:func:`macro_over` (lmms-eval MMStar: the mean of per-group means), fixed denominators
(MMStar's official script, in its task module), :func:`pair_accuracy` (MMVP).
"""

from __future__ import annotations

import glob
import os
import random
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from ..aggregate.formulas import group_by, mean_of_means, naive_mean
from ..core.exceptions import InputError
from ..core.signature import Signature
from ..core.toolkits import LMMS_EVAL as LMMS_EVAL_PIN
from ..core.toolkits import VLMEVALKIT as VLMEVALKIT_PIN
from ..kernels.choice import RANDOM
from ..readers._paths import path_text
from ..readers.cells import group_text, json_answer, named_columns, row_id
from ..readers.join import unique_items, unique_rows
from ..readers.layouts import find_reported, locate_reported
from ..readers.records import Records, cell_text, read_records
from ._base import (
    Aggregate,
    Aggregator,
    Item,
    ItemScorer,
    Task,
    TaskData,
    TaskInputs,
    TaskProfile,
)
from ._common import group_keys, mean_aggregate, numpy_mean, ungrouped_note

if TYPE_CHECKING:
    from pathlib import Path

    from ._lmms import MetricRecord

__all__ = [
    "CIRCULAR_STRIDE",
    "JUDGE_FAILED_PREFETCH",
    "JUDGE_RANDOM",
    "JUDGE_RECORD_OPTION",
    "ChoiceTask",
    "Decision",
    "LmmsDoc",
    "Rotation",
    "agreement_note",
    "circular_decision",
    "circular_items",
    "decided_letter",
    "decided_scorer",
    "decision_note",
    "doc_answer",
    "doc_choices",
    "draw_fields",
    "exact_match_doc",
    "exact_match_mean",
    "fallback_letter",
    "find_judge_record",
    "hit_profile",
    "lmms_hit_profile",
    "lmms_letter_profile",
    "macro_over",
    "mcq_profile",
    "no_options",
    "pair_accuracy",
    "paren_gold",
    "read_mcq",
    "read_mcq_sheet",
    "record_hit",
    "recorded_hit_note",
    "report_acc",
    "require_options",
    "sheet_choices",
    "vlmevalkit_choice_task",
    "vlmevalkit_decision",
    "vlmevalkit_profiles",
    "vlmevalkit_scorer",
    "with_decisions",
]

#: VLMEvalKit's log when no judge was called (``exact_matching``, or a judge whose ``working()``
#: check failed: the toolkit only warns): the row is ``Z``, a miss
JUDGE_FAILED_PREFETCH = "Failed in Prefetch, no GPT-based answer matching under `exact_matching`"
#: VLMEvalKit's log after three judge replies it could not parse: an unseeded random letter
JUDGE_RANDOM = "Failed to predict, thus randomly generate one."
_MATCH_LOG = "Match Log: "
#: where VLMEvalKit's generic MCQ profiles were read (the vanilla path and ``report_acc``)
_VANILLA_MCQ = "vlmeval/dataset/utils/multiple_choice.py mcq_vanilla_eval + report_acc"
#: the ``--judge-record`` option of a task scored by VLMEvalKit's rules with a recorded judge
JUDGE_RECORD_OPTION = ("judge-record", "VLMEvalKit's _{judge}_result.xlsx (default: beside it)")

#: how a row was decided: by the rules, by a recorded judge reply, by the toolkit's recorded
#: random draw, with no judge (the record says so), or not at all (no record: exact matching)
DecidedBy = Literal["rules", "judge", "random", "no-judge", "unrecorded", "other-rules"]


@dataclass(frozen=True)
class Decision:
    """The letter a VLMEvalKit MCQ row ends with, and what decided it."""

    letter: str | None
    by: DecidedBy


class ChoiceTask(Task):
    """A multiple-choice task: its signature says ``judge:recorded`` when a VLMEvalKit profile
    replayed a record of the judge (``TaskData.extra["judge_record"]``), then the fields the
    reader's letter decisions name (``extra["signature"]``, set by :func:`with_decisions`)."""

    def signature(self, prof: TaskProfile, data: TaskData) -> Signature:
        sig = super().signature(prof, data)
        if prof.toolkit.startswith("VLMEvalKit") and data.extra.get("judge_record"):
            sig = sig.with_fields(judge="recorded")
        return sig.with_fields(**dict(data.extra.get("signature", ())))


def with_decisions(
    data: TaskData,
    items: Sequence[Item],
    notes: Sequence[str],
    signature: Sequence[tuple[str, Any]],
) -> TaskData:
    """*data* with its letters decided: the decided *items*, the *notes* saying how, and the
    *signature* fields they name (appended by :meth:`ChoiceTask.signature`)."""
    return replace(
        data,
        items=list(items),
        notes=tuple(notes),
        extra={**data.extra, "signature": tuple(signature)},
    )


def draw_fields(seed: int | None, counts: Mapping[str, int]) -> tuple[tuple[str, Any], ...]:
    """The signature fields of a run's random letters: the seed (``none``: counted, not
    drawn), how many answers reached a random letter, how many of those were replayed."""
    return (
        ("fallback-seed", seed if seed is not None else "none"),
        ("random", sum(counts.values())),
        ("replayed", counts.get("replayed") or None),
    )


def agreement_note(
    pairs: Sequence[tuple[Any, Any, Any]],
    *,
    what: str,
    rows: str,
    theirs: str,
    shown: int,
    hint: str,
    label: str = "",
    agreed: str | None = None,
) -> str | None:
    """A toolkit's recorded per-row value (*what*) against ours, pairs ``(id, ours, theirs)``:
    the agreement on all *agreed* (default *rows*), or the *rows* that differ (the first
    *shown*, each id after *label*) and *hint*; ``None`` when nothing was recorded."""
    if not pairs:
        return None
    differ = [(i, ours, rec) for i, ours, rec in pairs if ours != rec]
    if not differ:
        return f"{what} agrees with ours on all {len(pairs)} {agreed or rows}"
    listed = "; ".join(f"{label}{i!r}: ours {o}, {theirs} {t}" for i, o, t in differ[:shown])
    more = "; …" if len(differ) > shown else ""
    return (
        f"{what} differs from ours on {len(differ)} of {len(pairs)} {rows} ({listed}{more}): {hint}"
    )


def vlmevalkit_choice_task(
    *,
    name: str,
    title: str,
    description: str,
    dataset: str,
    lmms_eval: TaskProfile,
    read: Callable[[TaskInputs], TaskData],
    layouts: tuple[str, ...],
    note: str,
    aliases: tuple[str, ...] = (),
    aggregate: Aggregator | None = None,
    reproduces: str = _VANILLA_MCQ,
) -> ChoiceTask:
    """A multiple-choice task no official scorer was read for (AI2D, BLINK, CV-Bench, MMVP,
    RealWorldQA, SEED-Bench), metric ``{name}-acc``: VLMEvalKit's era profiles of *dataset*
    (:func:`vlmevalkit_profiles`, *aggregate* and *reproduces* passed on) by default, then the
    task's *lmms_eval* profile; its sheets carry the ground truth; the ``--judge-record``
    option."""
    return ChoiceTask(
        name=name,
        kind="multiple-choice",
        title=title,
        metric=f"{name}-acc",
        description=description,
        profiles=(*vlmevalkit_profiles(dataset, aggregate, reproduces=reproduces), lmms_eval),
        read=read,
        layouts=layouts,
        aliases=aliases,
        default_profile="vlmevalkit",
        annotations_optional=True,
        note=note,
        options=(JUDGE_RECORD_OPTION,),
    )


# --- reading ----------------------------------------------------------------------------------


def sheet_choices(row: Mapping[str, Any]) -> dict[str, str]:
    """VLMEvalKit ``build_choices``: the cells ``A``–``Z`` that are not empty, in letter order.

    A number cell becomes ``str(value)``, as ``can_infer_text`` casts it. QUIRK nan-option: an
    option whose text was the word ``None`` (or ``NA``, ``null``) was read as NaN by pandas
    before the sheet was written, so it is absent here as it was for VLMEvalKit.
    """
    out: dict[str, str] = {}
    for ch in string.ascii_uppercase:
        value = row.get(ch)
        if value is None or (isinstance(value, float) and value != value):
            continue
        out[ch] = value if isinstance(value, str) else str(value)
    return out


def _lower_name(key: str) -> str:
    # VLMEvalKit: ``data[k.lower() if k not in ascii_uppercase else k] = data.pop(k)``
    return key if key in string.ascii_uppercase else key.lower()


def _lower_columns(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each row with its column names as VLMEvalKit lower-cases them (:func:`_lower_name`).
    Rows with the first row's columns in its order (a sheet's) are renamed by one zip each,
    when no two names lower-case alike (issue 23)."""
    first = tuple(rows[0]) if rows else ()
    names = [_lower_name(k) for k in first]
    if len(set(names)) < len(names):
        first = ()  # two columns become one: each row as VLMEvalKit's loop leaves it
    out: list[dict[str, Any]] = []
    for row in rows:
        if first and tuple(row) == first:
            out.append(dict(zip(names, row.values(), strict=True)))
        else:
            out.append({_lower_name(k): v for k, v in row.items()})
    return out


def find_judge_record(results: Any) -> Path | None:
    """``{stem}_{judge}_result.xlsx`` (or ``.tsv``/``.csv``, as VLMEvalKit writes the record in the
    sheet's format) beside a prediction sheet ``{stem}.xlsx`` (``openai``,
    ``gpt4``, a model name or ``exact_matching``); the first by name when there are several."""
    if not isinstance(results, str | os.PathLike) or os.fspath(results) == "-":
        return None
    from pathlib import Path  # only for a sheet: a JSON read does without (issue 23)

    path = Path(results)
    stem = path.name.rsplit(".", 1)[0]
    if stem.endswith("_result"):
        return None
    found = sorted(
        p
        for p in path.parent.glob(f"{glob.escape(stem)}_*_result.*")
        if p.suffix in (".xlsx", ".tsv", ".csv")
    )
    return found[0] if found else None


def _sheet_stem_path(results: Any) -> Any:
    """The prediction sheet's name for a record ``…_{judge}_result.xlsx`` (its ``_acc.csv`` is
    named after the sheet, not the record)."""
    if not isinstance(results, str | os.PathLike) or os.fspath(results) == "-":
        return results
    from pathlib import Path

    path = Path(results)
    stem, _, suffix = path.name.rpartition(".")
    if stem.endswith("_result") and "_" in stem[: -len("_result")]:
        return path.with_name(stem[: -len("_result")].rsplit("_", 1)[0] + "." + suffix)
    return results


def _reported(inputs: TaskInputs) -> dict[str, Any] | None:
    if inputs.reported is not None:
        return locate_reported(inputs.results, inputs.reported)
    found = locate_reported(inputs.results)
    if found is None:
        other = _sheet_stem_path(inputs.results)
        if other is not inputs.results:
            vk = find_reported(other)
            if vk is not None:
                return {"source": vk[0], "toolkit": "VLMEvalKit", "values": vk[1]}
    return found


def _record_of(records: Records) -> dict[Any, tuple[str | None, int | None]] | None:
    if "hit" not in records.columns or "log" not in records.columns:
        return None
    out: dict[Any, tuple[str | None, int | None]] = {}
    for i, row in enumerate(records.rows):
        hit = row.get("hit")
        if isinstance(hit, str) and hit.strip() in ("0", "1"):
            hit = int(hit)
        if hit is not None and (isinstance(hit, bool) or not isinstance(hit, int | float)):
            raise InputError(f"{records.where(i)}: column 'hit' holds {hit!r}, expected 0 or 1")
        log = row.get("log")
        key = _item_id(row.get("index"), records.where(i))
        out[key] = (None if log is None else str(log), None if hit is None else int(hit))
    return out


def read_mcq_sheet(
    inputs: TaskInputs,
    *,
    fields: Sequence[str] = ("category", "l2-category", "l2_category", "split", "question"),
    records: Records | None = None,
) -> TaskData:
    """A VLMEvalKit MCQ sheet (or its ``_result`` record) as items.

    Each item: ``id`` = ``index``, ``prediction`` = ``str(prediction)`` (an empty cell is
    ``"nan"``, as VLMEvalKit casts it), ``references`` = ``(answer,)`` (a number cast to
    text), ``fields``: ``options`` (the present options), the named *fields*, and from a
    judge record ``judge_log`` and ``recorded_hit``. Items are sorted by ``index`` when every
    index is an integer, as VLMEvalKit sorts the sheet before scoring.
    """
    if records is None:
        records = read_records(
            inputs.results, format=inputs.format, on_duplicate=inputs.on_duplicate
        )
    records = named_columns(
        records, inputs.id_field, inputs.answer_field, id_column="index", answer_column="prediction"
    )
    rows = _lower_columns(records.rows)
    columns = {_lower_name(c) for c in records.columns}
    for need in ("index", "prediction", "answer"):
        if need not in columns:
            raise InputError(
                f"{records.source}: no {need!r} column; a VLMEvalKit multiple-choice sheet has "
                "index, question, A, B, …, answer, prediction"
            )
    if "A" not in columns:
        raise InputError(
            f"{records.source}: no option columns (A, B, …): not a multiple-choice sheet"
        )
    wheres = [records.where(i) for i in range(len(rows))]
    ids = [_item_id(r.get("index"), w) for r, w in zip(rows, wheres, strict=True)]
    keep, repeated = unique_rows(ids, wheres, what="index", on_duplicate=inputs.on_duplicate)
    rows, ids, wheres = [rows[i] for i in keep], [ids[i] for i in keep], [wheres[i] for i in keep]
    notes: list[str] = [repeated] if repeated else []
    layouts = ["vlmevalkit-mcq"]
    record = _record_of(records)
    record_source: str | None = records.source if record is not None else None
    if record is not None:
        layouts = ["vlmevalkit-mcq-result"]
    else:
        given = inputs.options.get("judge_record")
        path = path_text(given) if given else find_judge_record(inputs.results)
        if path is not None:
            rec = read_records(path)
            rec = replace(rec, rows=_lower_columns(rec.rows))
            record = _record_of(rec)
            if record is None:
                raise InputError(f"{rec.source}: a judge record needs the 'hit' and 'log' columns")
            record_source = rec.source
            known = set(ids)
            unknown = [k for k in record if k not in known]
            if unknown:
                notes.append(
                    f"{len(unknown)} row(s) of {rec.source} are not in {records.source} "
                    f"(e.g. {unknown[0]!r}); ignored"
                )
    if inputs.annotations is not None:
        notes.append(
            f"--annotations ignored: {records.source} carries its questions, options and answers"
        )
    if inputs.questions is not None:
        notes.append(f"--questions ignored: {records.source} carries its questions")
    items: list[Item] = []
    n_nan_pred = 0
    absent_gold: list[Any] = []
    for row, key, where in zip(rows, ids, wheres, strict=True):
        pred = row.get("prediction")
        if pred is None:
            n_nan_pred += 1
            text = "nan"
        else:
            pred = json_answer(records, pred, where, "prediction")
            text = pred if isinstance(pred, str) else str(pred)
        gold = cell_text(row.get("answer"), where, column="answer")
        assert gold is not None
        options = sheet_choices(row)
        if gold not in options and len(gold) == 1 and gold in string.ascii_uppercase:
            absent_gold.append(key)
        extra: dict[str, Any] = {"options": options}
        for f in fields:
            if row.get(f) is not None:
                extra[f] = group_text(row[f], where, f)
        if record is not None and key in record:
            extra["judge_log"], extra["recorded_hit"] = record[key]
        items.append(Item(key, text, (gold,), extra))
    if all(isinstance(it.id, int) for it in items):
        items.sort(key=lambda it: it.id)
    if n_nan_pred:
        notes.append(
            f"{n_nan_pred} empty prediction cell(s) read as the text 'nan', as VLMEvalKit "
            "casts them (str(NaN)); they stay in the denominator"
        )
    if absent_gold:
        notes.append(
            f"{len(absent_gold)} row(s) have an answer letter whose option cell is empty (e.g. "
            f"index {absent_gold[0]!r}: an option text such as 'None' read as missing): VLMEvalKit "
            "drops the option, keeps the row in the denominator and can never hit it; so does "
            "every VLMEvalKit profile here"
        )
    sources: tuple[str, ...] = (records.source,)
    if record_source is not None and record_source != records.source:
        sources = (records.source, record_source)
        layouts.append("vlmevalkit-judge-record")
    return TaskData(
        items,
        sources,
        tuple(layouts),
        tuple(notes),
        _reported(inputs),
        extra={"judge_record": record_source},
    )


def _item_id(value: Any, where: str) -> str | int:
    """A sheet's ``index``: a string or an integer (:func:`row_id`); a CSV/TSV index is text,
    and ``'12'`` is VLMEvalKit's 12 (pandas reads it as a number)."""
    key = row_id(value, where, "index")
    if isinstance(key, str) and key.strip().lstrip("-").isdigit():
        return int(key.strip())
    return key


# --- VLMEvalKit decisions -----------------------------------------------------------------------


def _logged(log: str) -> str:
    """What ``eval_vanilla`` wrapped in ``Match Log: {x}. ``."""
    text = log[len(_MATCH_LOG) :] if log.startswith(_MATCH_LOG) else log
    return text[:-2] if text.endswith(". ") else text


def vlmevalkit_decision(
    prediction: str,
    options: Mapping[str, str],
    judge_log: str | None,
    can_infer: Callable[[str, Mapping[str, str]], str | None],
) -> Decision:
    """How VLMEvalKit's ``extract_answer_from_item`` ends for one row (spec §14.6, §15).

    The rules first (``can_infer(prediction)``); otherwise the recorded log: the judge's reply
    is replayed through the same ``can_infer``; ``Failed in Prefetch…`` means no judge answered
    (``Z``); ``Failed to predict…`` is the toolkit's unseeded random draw. Without a record the
    row ends as VLMEvalKit's exact matching ends it: ``Z``.
    """
    letter = can_infer(prediction, options)
    if letter:
        return Decision(letter, "rules")
    if judge_log is None:
        return Decision("Z", "unrecorded")
    logged = _logged(judge_log)
    if logged.startswith(JUDGE_FAILED_PREFETCH):
        return Decision("Z", "no-judge")
    if logged.startswith(JUDGE_RANDOM):
        return Decision(None, "random")
    if logged == prediction:
        # the record's rules read this prediction (its log is the prediction): the sheet was
        # scored by another version of can_infer; these rules leave it unread (a miss)
        return Decision(None, "other-rules")
    replay = can_infer(logged, options)
    return Decision(replay or None, "judge")


#: VLMEvalKit's circular copies: rotation *k* of question *g* has ``index = g + k * 1e6``
CIRCULAR_STRIDE = 1_000_000

#: one circular copy: (prediction, its options, its gold letter)
Rotation = tuple[str, Mapping[str, str], str]


def circular_items(data: TaskData) -> TaskData:
    """A circular sheet's rows (``{dataset}_circular``) as one item per question: the main
    row (``index == g_index``, ``g_index = index % 1e6`` as ``mcq_circular_eval`` sets it),
    with every copy of the group as ``fields["rotations"]`` in index order. A copy whose
    main row is absent is an error naming it (VLMEvalKit would drop the group silently)."""
    groups: dict[int, list[Item]] = {}
    for it in data.items:
        if not isinstance(it.id, int):
            raise InputError(f"{data.sources[0]}: circular index {it.id!r} is not an integer")
        groups.setdefault(it.id % CIRCULAR_STRIDE, []).append(it)
    items = []
    for g, rows in groups.items():
        main = next((r for r in rows if r.id == g), None)
        if main is None:
            raise InputError(
                f"{data.sources[0]}: circular copies of question {g} (e.g. index {rows[0].id}) "
                f"but no main row with index {g}"
            )
        rotations = tuple(
            (r.prediction or "", r.fields.get("options") or {}, r.references[0])
            for r in sorted(rows, key=lambda r: r.id)
        )
        items.append(replace(main, fields={**main.fields, "rotations": rotations}))
    note = (
        f"circular sheet: {len(data.items)} rows = {len(items)} questions; a question is "
        "right only when every circular copy is (VLMEvalKit mcq_circular_eval)"
    )
    return replace(data, items=items, notes=(*data.notes, note))


def circular_decision(
    rotations: Sequence[Rotation],
    judge_log: str | None,
    recorded_hit: int | None,
    can_infer: Callable[[str, Mapping[str, str]], str | None],
) -> tuple[float, DecidedBy]:
    """``prefetch_circular_group``: a copy whose letter the rules read and is not its gold
    decides 0 at once; every copy read and right decides 1; otherwise the judge decided the
    group (its recorded ``hit``), or no judge ran (``Failed in Prefetch``, or no record:
    VLMEvalKit's exact matching), a miss."""
    letters = [can_infer(pred, opts) for pred, opts, _ in rotations]
    for letter, (_, _, gold) in zip(letters, rotations, strict=True):
        if letter and letter != gold:
            return 0.0, "rules"
    if all(letter == gold for letter, (_, _, gold) in zip(letters, rotations, strict=True)):
        return 1.0, "rules"
    if judge_log is None or recorded_hit is None:
        return 0.0, "unrecorded"
    if _logged(judge_log).startswith(JUDGE_FAILED_PREFETCH):
        return 0.0, "no-judge"
    return float(recorded_hit), "judge"


def vlmevalkit_scorer(can_infer: Callable[[str, Mapping[str, str]], str | None]) -> ItemScorer:
    """The per-item scorer of a VLMEvalKit profile: 1.0 when the decided letter is the gold;
    a recorded random draw scores what the toolkit recorded (its ``hit``)."""

    def score(
        prediction: str,
        references: Sequence[str],
        options: Mapping[str, str] | None = None,
        judge_log: str | None = None,
        recorded_hit: int | None = None,
        rotations: Sequence[Rotation] | None = None,
    ) -> float:
        if rotations:
            return circular_decision(rotations, judge_log, recorded_hit, can_infer)[0]
        if not isinstance(options, Mapping):
            raise InputError("a VLMEvalKit profile needs options={'A': text, 'B': text, …}")
        d = vlmevalkit_decision(prediction, options, judge_log, can_infer)
        if d.by == "random":
            return float(recorded_hit or 0)
        return 1.0 if d.letter is not None and d.letter == references[0] else 0.0

    return score


def decision_note(
    items: Sequence[Item], can_infer: Callable[[str, Mapping[str, str]], str | None]
) -> list[str]:
    """What decided the rows the rules could not read (say it, never hide it)."""
    counts: dict[str, list[Any]] = {}
    for it in items:
        if it.fields.get("rotations"):
            _, by = circular_decision(
                it.fields["rotations"],
                it.fields.get("judge_log"),
                it.fields.get("recorded_hit"),
                can_infer,
            )
            counts.setdefault("circular-" + by, []).append(it.id)
            continue
        if it.prediction is None:
            continue
        d = vlmevalkit_decision(
            it.prediction, it.fields.get("options") or {}, it.fields.get("judge_log"), can_infer
        )
        counts.setdefault(d.by, []).append(it.id)
    notes = []
    if counts.get("circular-judge"):
        notes.append(
            f"{len(counts['circular-judge'])} circular question(s) had a copy the rules cannot "
            "read: the judge decided them, and the record's hit is used (its replies per copy "
            "are not in the record)"
        )
    if counts.get("circular-no-judge") or counts.get("circular-unrecorded"):
        ids = counts.get("circular-no-judge", []) + counts.get("circular-unrecorded", [])
        notes.append(
            f"{len(ids)} circular question(s) had a copy the rules cannot read and no judge "
            f"decision (e.g. question {ids[0]!r}): a miss, as VLMEvalKit's exact matching "
            "scores them"
        )
    if counts.get("judge"):
        notes.append(
            f"{len(counts['judge'])} row(s) decided by the recorded judge reply, replayed "
            "through can_infer"
        )
    if counts.get("other-rules"):
        ids = counts["other-rules"]
        notes.append(
            f"{len(ids)} row(s) these rules cannot read were read by the rules of the version "
            f"that wrote the record (its log is the prediction, e.g. index {ids[0]!r}): scored "
            "as a miss here; the record comes from another VLMEvalKit version"
        )
    if counts.get("no-judge"):
        ids = counts["no-judge"]
        notes.append(
            f"{len(ids)} row(s) the rules could not read were recorded as 'Failed in Prefetch' "
            f"(e.g. index {ids[0]!r}): VLMEvalKit had no working judge for them and silently "
            "fell back to exact matching (a miss), whatever the file's judge name says"
        )
    if counts.get("random"):
        ids = counts["random"]
        notes.append(
            f"{len(ids)} row(s) were decided by VLMEvalKit's unseeded random letter after three "
            f"unparseable judge replies (e.g. index {ids[0]!r}); their recorded hit is used"
        )
    if counts.get("unrecorded"):
        ids = counts["unrecorded"]
        shown = ", ".join(repr(i) for i in ids[:5])
        notes.append(
            f"{len(ids)} row(s) the rules could not read would have needed the judge (index "
            f"{shown}{', …' if len(ids) > 5 else ''}); no judge record was found, so they are "
            "scored as VLMEvalKit's exact matching scores them (Z, a miss), which VLMEvalKit "
            "also does silently when its judge is not working"
        )
    return notes


def recorded_hit_note(items: Sequence[Item], scores: Sequence[float]) -> str | None:
    """The toolkit's own per-row ``hit`` against ours: agreement, or the rows that differ."""
    pairs = [
        (it.id, int(s), it.fields["recorded_hit"])
        for it, s in zip(items, scores, strict=True)
        if it.fields.get("recorded_hit") is not None
    ]
    return agreement_note(
        pairs,
        what="the toolkit's recorded hit",
        rows="rows",
        agreed="recorded rows",
        theirs="recorded",
        shown=5,
        hint="another VLMEvalKit version's rules? try the vlmevalkit-2024 / vlmevalkit-2025 "
        "profiles",
        label="index ",
    )


# --- aggregation ------------------------------------------------------------------------------


def report_acc(
    items: Sequence[Item],
    scores: Sequence[float],
    groups: Sequence[str] = ("l2-category", "category"),
) -> Aggregate:
    """VLMEvalKit ``report_acc``: ``Overall = np.mean(hit)`` and ``np.mean`` per value of each
    group column present (sorted), as fractions; per ``split`` when the sheet has one."""
    breakdowns: dict[str, dict[str, dict[str, float | int]]] = {}
    notes: list[str] = []
    for field in groups:
        keys = group_keys(items, field)
        buckets = group_by(keys, scores)
        if buckets:
            breakdowns[field] = {
                g: {"accuracy": numpy_mean(buckets[g]), "n": len(buckets[g])}
                for g in sorted(buckets)
            }
            notes += ungrouped_note(items, keys, field)
    keys = group_keys(items, "split")
    splits = group_by(keys, scores)
    if len(splits) > 1:
        breakdowns["split"] = {
            g: {"Overall": numpy_mean(v), "n": len(v)} for g, v in sorted(splits.items())
        }
        notes += ungrouped_note(items, keys, "split")
    return Aggregate(
        metrics={"Overall": numpy_mean(list(scores)), "n": len(scores)},
        headline="Overall",
        units="fraction",
        digits=4,
        breakdowns=breakdowns,
        notes=tuple(notes),
    )


def macro_over(items: Sequence[Item], scores: Sequence[float], key: str) -> float:
    """``sum(group means) / len(groups)`` over the values of *key*, groups and sums in
    first-seen order with the builtin ``sum`` (lmms-eval ``mmstar_aggregate_results``)."""
    return mean_of_means(group_by([str(it.fields.get(key)) for it in items], scores))


def pair_accuracy(hits: Sequence[float]) -> tuple[float, float]:
    """VLMEvalKit ``report_acc_MMVP``: ``(Average, Overall)`` = (the item mean, the share of
    positional pairs (2i, 2i+1) with both items right), each with ``np.mean``."""
    if len(hits) % 2:
        raise InputError(f"MMVP pairs items 2i and 2i+1: {len(hits)} rows is an odd count")
    both = [float(bool(hits[2 * i]) and bool(hits[2 * i + 1])) for i in range(len(hits) // 2)]
    return numpy_mean(list(hits)), numpy_mean(both)


#: lmms-eval ``mean`` of the per-sample ``exact_match``: ``sum(scores) / len(scores)`` left to
#: right, ``nan`` for no items (AI2D, RealWorldQA)
exact_match_mean = mean_aggregate("exact_match", average=naive_mean)


def mcq_profile(
    era: tuple[str, str, str, str],
    dataset: str,
    aggregate: Callable[[Sequence[Item], Sequence[float]], Aggregate] | None,
    reproduces: str,
) -> TaskProfile:
    """The VLMEvalKit MCQ profile of *dataset* in one of :data:`VLMEVALKIT_ERAS` (what it
    *reproduces* there): the era's ``can_infer`` lineage, the record of the judge,
    ``report_acc`` (or *aggregate*), and notes on how rows were decided."""
    from ..kernels.choice import get_lineage

    name, lineage, toolkit, period = era
    can_infer = get_lineage(lineage)
    agg = aggregate or report_acc

    def aggregate_with_notes(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
        out = agg(items, scores)
        notes = list(out.notes) + decision_note(items, can_infer)
        check = recorded_hit_note(items, scores)
        if check:
            notes.append(check)
        return Aggregate(
            out.metrics, out.headline, out.units, out.digits, out.breakdowns, tuple(notes)
        )

    def detail(item: Item) -> Mapping[str, Any]:
        if item.fields.get("rotations"):
            rotations = item.fields["rotations"]
            return {
                "letters": [can_infer(p, o) for p, o, _ in rotations],
                "decided_by": circular_decision(
                    rotations,
                    item.fields.get("judge_log"),
                    item.fields.get("recorded_hit"),
                    can_infer,
                )[1],
            }
        if item.prediction is None:
            return {}
        d = vlmevalkit_decision(
            item.prediction,
            item.fields.get("options") or {},
            item.fields.get("judge_log"),
            can_infer,
        )
        return {"letter": d.letter, "decided_by": d.by}

    return TaskProfile(
        name=name,
        description=f"VLMEvalKit {dataset}: can_infer ({period}), recorded judge, np.mean",
        reproduces=f"open-compass/{toolkit} {reproduces}",
        toolkit=toolkit,
        score=vlmevalkit_scorer(can_infer),
        aggregate=aggregate_with_notes,
        context=("options", "judge_log", "recorded_hit", "rotations"),
        detail=detail,
        choice=can_infer,
    )


#: VLMEvalKit's three ``can_infer`` eras: profile name → (choice lineage, toolkit, period)
VLMEVALKIT_ERAS = (
    ("vlmevalkit", "vlmevalkit_can_infer", VLMEVALKIT_PIN.token, "since a67ace5, Jun 2026"),
    (
        "vlmevalkit-2025",
        "vlmevalkit_can_infer_pre_a67ace5",
        "VLMEvalKit@c337155",
        "Aug 2025 - Jun 2026, before a67ace5",
    ),
    ("vlmevalkit-2024", "vlmevalkit_can_infer_2024", "VLMEvalKit@c026693", "Dec 2023 - Jul 2025"),
)


def vlmevalkit_profiles(
    dataset: str,
    aggregate: Aggregator | None = None,
    *,
    reproduces: str = _VANILLA_MCQ,
) -> tuple[TaskProfile, ...]:
    """The ``vlmevalkit`` / ``vlmevalkit-2025`` / ``vlmevalkit-2024`` profiles of a vanilla
    MCQ dataset: the era's ``can_infer``, the recorded judge, *aggregate* (``report_acc``)."""
    return tuple(mcq_profile(era, dataset, aggregate, reproduces) for era in VLMEVALKIT_ERAS)


def hit_profile(
    name: str,
    *,
    description: str,
    reproduces: str,
    toolkit: str,
    hit: Callable[[str, str], bool],
    lineage: str,
    aggregate: Callable[[Sequence[Item], Sequence[float]], Aggregate],
) -> TaskProfile:
    """A profile whose rule compares the response with the gold letter (lmms-eval's and the
    official MCQ rules): 1.0 when ``hit(response, gold)``."""
    from ..kernels.choice import get_lineage

    lin = get_lineage(lineage)

    def score(prediction: str, references: Sequence[str], options: Any = None) -> float:
        return 1.0 if hit(prediction, references[0]) else 0.0

    def detail(item: Item) -> Mapping[str, Any]:
        if item.prediction is None:
            return {}
        return {"letter": lin(item.prediction, item.fields.get("options") or _ABCD)}

    return TaskProfile(
        name=name,
        description=description,
        reproduces=reproduces,
        toolkit=toolkit,
        score=score,
        aggregate=aggregate,
        context=("options",),
        detail=detail,
        choice=lin,
    )


_ABCD = {"A": "", "B": "", "C": "", "D": ""}


# --- lmms-eval --log_samples ------------------------------------------------------------------


@dataclass(frozen=True)
class LmmsDoc:
    """How one task's lmms-eval ``doc`` rows are read (spec §16): the id keys, the gold letter,
    the options (letter → text, possibly none), the fields kept, and the toolkit's own
    per-sample hit from the record (``None`` when it did not record one); ``record``: where
    a log without ``doc`` (lmms-eval 0.4 on) holds the same ground truth (``_lmms.MetricRecord``),
    ``None`` when its record does not."""

    id_keys: tuple[str, ...]
    gold: Callable[[Mapping[str, Any], str], str]
    options: Callable[[Mapping[str, Any]], dict[str, str]]
    fields: tuple[str, ...] = ()
    recorded: Callable[[Mapping[str, Any], str], float | None] | None = None
    record: MetricRecord | None = None
    #: the gold of a stand-in doc built from the record (default: its ``answer``, the logged
    #: ``target``); BLINK / CV-Bench log ``(A)`` and score against ``target.strip("()")``
    record_gold: Callable[[Mapping[str, Any], str], str] | None = None
    #: the doc keys naming a record's task in a log of several concatenated (BLINK's
    #: ``sub_task``), whose doc_ids start again at 0 (``_lmms.unique_doc_ids``)
    subtasks: tuple[str, ...] = ()


def exact_match_doc(
    gold: Callable[[Mapping[str, Any], str], str],
    options: Callable[[Mapping[str, Any]], dict[str, str]],
) -> LmmsDoc:
    """The ``doc`` reading of a task lmms-eval scores with its builtin ``exact_match`` (AI2D,
    RealWorldQA): the id ``question_id`` (or ``index``), the recorded per-sample
    ``exact_match``; a log without ``doc`` holds that bare ``exact_match`` beside ``target``,
    and its id is the ``doc_id``."""
    from ._lmms import MetricRecord, sample_score

    return LmmsDoc(
        id_keys=("question_id", "index"),
        gold=gold,
        options=options,
        recorded=lambda row, where: sample_score(row, ("exact_match",)),
        record=MetricRecord(metrics=("exact_match",)),
    )


def doc_answer(doc: Mapping[str, Any], where: str) -> str:
    """``doc["answer"]`` as text (a number cast to text); an error naming *where* if absent."""
    return str(cell_text(doc.get("answer"), where, column="doc.answer"))


def record_hit(*metrics: str) -> Callable[[Mapping[str, Any], str], float | None]:
    """The toolkit's own per-sample verdict, ``is_correct`` of the first of *metrics* whose
    record the row holds (MMVP's, BLINK's and CV-Bench's ``process_results``)."""

    def recorded(row: Mapping[str, Any], where: str) -> float | None:
        for key in metrics:
            value = row.get(key)
            if isinstance(value, Mapping) and isinstance(value.get("is_correct"), bool):
                return float(value["is_correct"])
        return None

    return recorded


def require_options(data: TaskData, profile: str, task: str) -> TaskData:
    """*data* for *profile*, refused when a VLMEvalKit profile would read an lmms-eval log
    without option texts (every row would silently become VLMEvalKit's ``Z``, a miss)."""
    if profile.startswith("vlmevalkit") and any(not it.fields.get("options") for it in data.items):
        raise InputError(
            f"{data.sources[0]}: this log holds no option texts (an lmms-eval log without "
            f"'doc'); profile {profile!r} needs them: score it with --profile lmms-eval, or give "
            f"a VLMEvalKit sheet of {task}"
        )
    return data


def doc_choices(doc: Mapping[str, Any]) -> dict[str, str]:
    """``doc["choices"]`` lettered A, B, … as the prompts number them (BLINK, CV-Bench)."""
    got = doc.get("choices")
    return {chr(ord("A") + i): str(c) for i, c in enumerate(got)} if isinstance(got, list) else {}


def paren_gold(doc: Mapping[str, Any], where: str) -> str:
    """``doc["answer"].strip("()")``: BLINK's and CV-Bench's gold (``(A)`` → ``A``)."""
    return doc_answer(doc, where).strip("()")


def lmms_hit_profile(
    task_dir: str,
    hit: Callable[[str, str], bool],
    lineage: str,
    description: str,
    aggregate: Callable[[Sequence[Item], Sequence[float]], Aggregate] = exact_match_mean,
    *,
    reproduces: str = "utils.py",
) -> TaskProfile:
    """The ``lmms-eval`` profile of a multiple-choice task: ``hit(response, gold)`` as
    ``lmms_eval/tasks/{task_dir}/`` *reproduces* decides it, *aggregate* (``mean``)."""
    return hit_profile(
        "lmms-eval",
        description=description,
        reproduces=LMMS_EVAL_PIN.at(f"lmms_eval/tasks/{task_dir}/{reproduces}"),
        toolkit=LMMS_EVAL_PIN.token,
        hit=hit,
        lineage=lineage,
        aggregate=aggregate,
    )


def lmms_letter_profile(
    task_dir: str,
    letter: Callable[[str], str],
    lineage: str,
    aggregate: Callable[[Sequence[Item], Sequence[float]], Aggregate],
    description: str,
) -> TaskProfile:
    """The ``lmms-eval`` profile of a task whose ``process_results`` reads one letter
    (``letter(response)``) and compares it with the gold letter."""
    return lmms_hit_profile(
        task_dir, lambda response, gold: letter(response) == gold, lineage, description, aggregate
    )


def no_options(doc: Mapping[str, Any]) -> dict[str, str]:
    """A ``doc`` without option texts (MMStar, RealWorldQA embed them in the question)."""
    return {}


def read_mcq(inputs: TaskInputs, *, fields: Sequence[str], lmms: LmmsDoc | None) -> TaskData:
    """A VLMEvalKit sheet (:func:`read_mcq_sheet`), or an lmms-eval ``--log_samples`` file
    whose records carry ``doc`` (read with *lmms*; the toolkit's recorded per-sample score is
    kept for the sample-by-sample check)."""
    from ._lmms import (
        TOOLKIT_SCORE,
        has_docs,
        lmms_eval_predictions,
        no_doc_error,
        record_docs,
        unique_doc_ids,
    )

    records = read_records(inputs.results, format=inputs.format, on_duplicate=inputs.on_duplicate)
    preds = lmms_eval_predictions(records, inputs)
    if preds is None:
        return read_mcq_sheet(inputs, fields=fields, records=records)
    if lmms is None:
        raise InputError(
            f"{records.source}: an lmms-eval samples log, but this task is not an lmms-eval task "
            f"at lmms-eval@{LMMS_EVAL_PIN.commit}; it reads VLMEvalKit sheets"
        )
    notes: tuple[str, ...] = ()
    newer = record_docs(preds, lmms.record) if lmms.record is not None else None
    gold = lmms.gold
    if newer is not None:  # no annotation file to join: the record is the ground truth
        preds = newer
        # the stand-in doc's answer is `target`: the gold as scored
        gold = lmms.record_gold or doc_answer
        notes = (
            f"{records.source} logs no 'doc': the gold letter is its 'target' and no option "
            "texts are known, so only the lmms-eval profile scores it as logged",
        )
    if not has_docs(preds):
        raise no_doc_error(records.source, "a log written with its dataset rows ('doc')")
    preds, doc_id_note = unique_doc_ids(preds, inputs.on_duplicate, lmms.subtasks)
    items = []
    for row, key, text, where in zip(
        preds.records.rows, preds.ids, preds.texts, preds.wheres, strict=True
    ):
        doc = row["doc"]
        item_id = _doc_id(doc, key, lmms.id_keys, where)
        extra: dict[str, Any] = {"options": lmms.options(doc)}
        extra.update({f: doc[f] for f in lmms.fields if doc.get(f) is not None})
        if lmms.recorded is not None:
            rec = lmms.recorded(row, where)
            if rec is not None:
                extra[TOOLKIT_SCORE] = rec
        pred = "" if text is None else text if isinstance(text, str) else str(text)
        items.append(Item(item_id, pred, (gold(doc, where),), extra))
    items, repeated = unique_items(items, preds.wheres, on_duplicate=inputs.on_duplicate)
    return TaskData(
        items,
        (records.source,),
        (preds.layout,),
        (*notes, *(n for n in (doc_id_note, repeated) if n)),
        locate_reported(inputs.results, inputs.reported),
    )


def _doc_id(doc: Mapping[str, Any], doc_id: Any, keys: Sequence[str], where: str) -> str | int:
    """A logged sample's id: the first of the doc's *keys* it holds, else its ``doc_id``, by
    the one id rule (:func:`row_id`): a list, an object, a boolean or a fraction is an error
    naming the line, never ``str()`` of it."""
    for k in keys:
        if doc.get(k) is not None:
            return row_id(doc[k], where, f"doc.{k}")
    return row_id(doc_id, where, "doc_id")


def fallback_letter(
    options: Mapping[str, str],
    recorded: Any,
    rng: random.Random | None,
    counts: dict[str, int],
) -> str:
    """The letter of an answer no rule reads, where the toolkit draws an unseeded random
    one: a draw of *rng* (``--fallback-seed``), else the draw the file *recorded* when it is
    an option, else :data:`RANDOM` (unresolved, scored 0); counted in *counts* under
    ``drawn`` / ``replayed`` / ``unresolved``."""
    if rng is not None:
        counts["drawn"] += 1
        return rng.choice(list(options))
    if isinstance(recorded, str) and recorded in options:
        counts["replayed"] += 1
        return recorded
    counts["unresolved"] += 1
    return RANDOM


def decided_scorer(
    rule: Callable[[str, Mapping[str, str]], str | None],
    *,
    task: str,
    random_hint: str,
    raw_without_options: bool = False,
) -> Callable[..., float]:
    """The per-item scorer of a profile whose reader decides the letters (``parsed_pred``):
    1.0 when the letter (:func:`decided_letter`, with *rule*) equals the gold; with
    *raw_without_options*, an undecided item without options compares the raw response."""

    def score(
        prediction: str,
        references: Sequence[str],
        options: Mapping[str, str] | None = None,
        parsed_pred: str | None = None,
    ) -> float:
        if raw_without_options and not options and parsed_pred is None:
            return 1.0 if prediction == references[0] else 0.0
        letter = decided_letter(
            prediction, options, parsed_pred, rule, task=task, random_hint=random_hint
        )
        return 1.0 if letter == references[0] else 0.0

    return score


def decided_letter(
    prediction: str,
    options: Mapping[str, str] | None,
    parsed_pred: str | None,
    rule: Callable[[str, Mapping[str, str]], str | None],
    *,
    task: str,
    random_hint: str,
) -> str | None:
    """The letter one answer is scored by: ``parsed_pred`` when the run decided it already (its
    seeded or replayed draw), else *rule* on *options*; a rule that would draw an unseeded
    random letter is an error (with *random_hint*), never a guess."""
    if parsed_pred is not None:
        return parsed_pred
    if not options:
        raise InputError(f"{task} needs options={{'A': text, …}}")
    letter = rule(prediction, options)
    if letter == RANDOM:
        raise InputError(f"{prediction[:60]!r}: {random_hint}")
    return letter
