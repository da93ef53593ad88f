"""Any VQA results file a user has → ``(question_id, answer)`` pairs, and its ground truth if
it carries one.

The official layouts (a JSON list of ``{question_id, answer}``, JSONL, ``{qid: answer}``) keep
the fast path of :mod:`vqametrics.readers.vqa` (msgspec, no copy of the rows). Everything else goes
through the one reader layer (:func:`~vqametrics.readers.records.read_records` and
:func:`~vqametrics.readers.layouts.predictions_from`): CSV/TSV/XLSX with id and answer columns,
gzip, ``-`` (standard input), in-memory records, a pandas DataFrame, LLaVA ``answers.jsonl``,
VLMEvalKit spreadsheets (ground truth inside) and lmms-eval ``--log_samples`` files (ground
truth inside when ``doc`` was logged; otherwise ``doc_id`` is a position in the annotations).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..core.exceptions import InputError
from ._dataset import QuestionId, VQADataset
from ._json import is_jsonl, parse_json_or_jsonl
from .join import disagreement_note, first_spelling
from .vqa import ReadAhead, Results, load_results, results_from_bytes

if TYPE_CHECKING:
    from .items import Item
    from .layouts import Predictions
    from .records import Records

# The generic readers (records, layouts: csv, gzip, openpyxl, …) are imported on first use,
# so the official layout's fast path costs nothing more to import than before.

__all__ = [
    "ResultsFile",
    "describe_reported",
    "ground_truth_disagreements",
    "read_results",
    "resolve_positions",
]

#: what the notes call each recognized layout
LAYOUT_TITLES = {
    "official": "the official results layout",
    "llava-answers": "LLaVA answers.jsonl (answer in 'text')",
    "vlmevalkit": "a VLMEvalKit result sheet (answer in 'prediction', ground truth in 'answer')",
    "lmms-eval-samples": "lmms-eval --log_samples (answer = filtered_resps[0])",
    "gqa-predictions": "a GQA predictions file (questionId, prediction)",
    "docvqa-submission": "a DocVQA submission (questionId, answer)",
    "vizwiz-results": "a VizWiz results file (image, answer)",
    "custom": "the columns named by --id-field/--answer-field",
}


@dataclass(frozen=True, eq=False)
class ResultsFile:
    """A results file as read: its predictions and what came with them."""

    results: Results
    #: what was recognized: ``official (json)``, ``llava-answers (jsonl)``, ``vlmevalkit (xlsx)`` …
    layout: str
    #: the ground truth the file carries (VLMEvalKit, lmms-eval with ``doc``), as annotation
    #: records ``{question_id, answers, …}`` in file order; ``None`` when it carries none
    ground_truth: list[dict[str, Any]] | None = None
    #: lmms-eval without ``doc``: the ids are ``doc_id`` positions in the annotations
    positional: bool = False
    #: per-sample metrics the toolkit recorded (lmms-eval): name → ``{question_id: value}``
    sample_metrics: Mapping[str, Mapping[QuestionId, float]] = field(default_factory=dict)
    #: the toolkit's own aggregate numbers found beside the file (or given): ``{"source",
    #: "toolkit", "values"}``
    reported: Mapping[str, Any] | None = None
    notes: tuple[str, ...] = ()

    @property
    def source(self) -> str:
        return self.results.source

    @property
    def is_official(self) -> bool:
        return self.layout.startswith("official")


def _official_path(source: Any) -> bool:
    """A JSON/JSONL path that the fast official path may read (not stdin, not gzip)."""
    if not isinstance(source, str | os.PathLike):
        return False
    name = os.fspath(source)
    return (
        name != "-"
        and not name.endswith(".gz")
        and name.lower().endswith((".json", ".jsonl", ".ndjson"))
    )


def _looks_official(data: Any) -> bool:
    """The official results layouts: ``{qid: answer}``, or rows with ``question_id`` and
    ``answer`` (the first row decides; the validating reader words any later problem)."""
    if isinstance(data, dict):
        return not any(isinstance(v, dict) for v in data.values())
    if isinstance(data, list):
        if not data:
            return True
        first = data[0]
        return not isinstance(first, dict) or ("question_id" in first and "answer" in first)
    return True


def read_results(
    source: Any,
    *,
    input_format: str | None = None,
    id_field: str | None = None,
    answer_field: str | None = None,
    reported: Any = None,
    ahead: ReadAhead | None = None,
) -> ResultsFile:
    """Read a results file (or in-memory predictions) in any layout of the module docstring.

    Parameters
    ----------
    source : path, ``"-"``, list of dicts, ``{qid: answer}`` mapping or pandas DataFrame
    input_format : str, optional
        A file format (``json``, ``jsonl``, ``csv``, ``tsv``, ``xlsx``), a layout
        (``official``, ``llava``, ``vlmevalkit``, ``lmms-eval``, ``gqa``, ``docvqa``,
        ``vizwiz``) or both (``vlmevalkit,csv``): forced instead of recognized
        (:mod:`vqametrics.readers.formats`).
    id_field, answer_field : str, optional
        The id and answer columns, when the layout is unusual.
    reported : path, optional
        The toolkit's own scores (a VLMEvalKit ``_acc.csv``/``_score.csv`` or an lmms-eval
        ``results.json``); by default they are looked for beside the file.
    """
    from .formats import parse_input_format
    from .records import read_bytes_from, read_records, records_from_bytes

    fmt = parse_input_format(input_format)
    # forcing only the official layout keeps the fast official path (it checks the columns)
    forced = fmt.file_format is not None or fmt.layout not in (None, "official")
    custom = forced or id_field is not None or answer_field is not None
    if isinstance(source, Results):
        return ResultsFile(source, "official (in memory)")
    if (
        isinstance(source, Mapping)
        and fmt.layout in (None, "official")
        and all(isinstance(v, str) for v in source.values())
    ):
        from .vqa import results_from_pairs

        return ResultsFile(results_from_pairs(source, "<mapping>"), "official (mapping)")
    if _official_path(source) and not custom and _is_regular(source):
        res = _read_official(source, ahead)
        if res is not None:
            kind = "official (jsonl)" if is_jsonl(source) else "official (json)"
            return _with_reported(ResultsFile(res, kind), source, reported)
    if isinstance(source, str | os.PathLike):
        # read once: a pipe or standard input cannot be read twice
        name, data, was_gzip = read_bytes_from(source)
        if not custom:
            official = _official_from_bytes(name, data, was_gzip)
            if official is not None:
                return _with_reported(official, source, reported)
        records = records_from_bytes(name, data, was_gzip, format=fmt)
    else:
        records = read_records(source, format=fmt)
    if not records.rows:
        raise InputError(f"{records.source}: contains no predictions")
    return _with_reported(_from_records(records, id_field, answer_field), source, reported)


def _is_regular(path: Any) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True  # missing: the loader words it


def _official_from_bytes(name: str, data: bytes, was_gzip: bool) -> ResultsFile | None:
    """The official layouts in bytes already read; ``None`` for another layout."""
    if data.lstrip()[:1] not in (b"[", b"{"):
        return None
    base = name[:-3] if name.endswith(".gz") else name
    jsonl = base.endswith((".jsonl", ".ndjson"))
    try:
        res = results_from_bytes(name, data, jsonl)
    except InputError:
        value, _ = parse_json_or_jsonl(name, data, jsonl)
        if _looks_official(value):
            raise
        return None
    kind = "jsonl" if jsonl else "json"
    return ResultsFile(res, f"official ({kind}{'+gzip' if was_gzip else ''})")


def _read_official(path: Any, ahead: ReadAhead | None) -> Results | None:
    """The official layouts through the fast validating loader; ``None`` for another layout."""
    name = os.fspath(path)
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return None  # the reader words it (no such file, a directory, …)
    if head[:2] in (b"\x1f\x8b", b"PK"):
        return None  # gzip or a spreadsheet named .json: the reader recognizes it
    try:
        return load_results(path, ahead=ahead)
    except InputError:
        from .records import read_bytes_from

        _, raw, _ = read_bytes_from(path)
        data, _ = parse_json_or_jsonl(name, raw, is_jsonl(path))
        if _looks_official(data):
            raise  # an official file with a problem: the loader's precise message stands
        return None


def _from_records(records: Records, id_field: str | None, answer_field: str | None) -> ResultsFile:
    """Predictions in any other layout, the toolkit decided once (:func:`~.detect.detect`), and
    the ground truth a VLMEvalKit sheet or an lmms-eval log with ``doc`` carries, read by
    the one reader of each (:mod:`.vlmevalkit`, :mod:`.lmms_eval`)."""
    from .detect import detect
    from .items import TaskInputs
    from .layouts import nan_note, predictions_from

    found = detect(TaskInputs(None, id_field=id_field, answer_field=answer_field), records)
    preds = found.log or predictions_from(
        records, id_field=id_field, answer_field=answer_field, allow_missing_answer=True
    )
    notes: list[str] = []
    nan = nan_note(preds)
    if nan is not None:
        notes.append(nan)
    from .vlmevalkit import sheet_id

    # an empty cell stays None: a missing prediction (match_predictions)
    ids: list[QuestionId] = [sheet_id(k, records.layout) for k in preds.ids]
    ground_truth: list[dict[str, Any]] | None = None
    positional = False
    metrics: Mapping[str, Mapping[QuestionId, float]] = {}
    if found.kind == "lmms-eval":
        ground_truth = _log_ground_truth(preds)
        positional = ground_truth is None
        if ground_truth is not None:
            ids = [rec["question_id"] for rec in ground_truth]
        from .lmms_eval import logged_metrics

        metrics = logged_metrics(records, ids)
    elif found.kind == "vlmevalkit" and "answer" in records.columns:
        # JSON keeps an id's type: 1 and "1" are one item written twice, a duplicate
        ids = [_question_id(k) for k in first_spelling(ids)]
        truth = _sheet_ground_truth(records, preds)
        ground_truth = [rec | {"question_id": k} for rec, k in zip(truth, ids, strict=True)]
    kind = preds.layout.split(" ", 1)[0]
    title = LAYOUT_TITLES.get(kind, kind)
    if kind != "custom":  # a renamed column replaces the layout's own: the note says which
        renamed = [
            f"{option} {field!r}"
            for option, field in (("--id-field", id_field), ("--answer-field", answer_field))
            if field is not None
        ]
        if renamed:
            title += f", with {' and '.join(renamed)}"
    notes.insert(0, f"read {records.source} as {title} [{preds.layout}]")
    pairs = list(zip(ids, preds.texts, strict=True))
    return ResultsFile(
        Results(records.source, pairs, answer_field or preds.answer_field),
        preds.layout,
        ground_truth,
        positional,
        metrics,
        None,
        tuple(notes),
    )


def _question_id(key: Any) -> QuestionId:
    """An id as the VQA readers keep it (a string or an integer)."""
    return key if isinstance(key, str | int) else str(key)


def _annotation(item: Item, keep: Callable[[Any], bool]) -> dict[str, Any]:
    """An item read by a toolkit reader as an annotation record ``{question_id, answers, …}``
    (its fields that *keep* accepts), for :func:`~.vqa.as_dataset`."""
    rec: dict[str, Any] = {"question_id": item.id, "answers": list(item.references)}
    rec.update((k, v) for k, v in item.fields.items() if keep(v))
    return rec


def _sheet_ground_truth(records: Records, preds: Predictions) -> list[dict[str, Any]]:
    """A VLMEvalKit sheet's ground truth (its ``answer`` cells; a blank one is an error)."""
    from .vlmevalkit import sheet_items

    items = sheet_items(
        records, preds, fields=("question_type", "answer_type"), blank_is_empty=True
    )
    return [_annotation(it, lambda v: isinstance(v, str)) for it in items]


def _log_ground_truth(preds: Predictions) -> list[dict[str, Any]] | None:
    """With ``doc`` (the dataset row) in every record: its ``question_id`` and ``answers`` are
    the id and the ground truth (lmms-eval's VQA v2 docs keep the answer records). Without:
    ``None``, and ``doc_id`` is a position (:func:`resolve_positions`)."""
    from .lmms_eval import has_docs, lmms_eval_items

    if not has_docs(preds):
        docs = [isinstance(row.get("doc"), dict) for row in preds.records.rows]
        if any(docs):
            i = docs.index(False)
            raise InputError(f"{preds.wheres[i]}: no 'doc' object, unlike other samples")
        return None
    items = lmms_eval_items(
        preds,
        id_keys=("question_id",),
        references=_doc_answers,
        fields=("question_type", "answer_type", "image_id"),
        id_required=True,
    )
    return [_annotation(it, lambda v: True) for it in items]


def _doc_answers(doc: dict[str, Any], where: str) -> tuple[Any, ...]:
    """A logged doc's ``answers`` (or ``answer``): the answer records or texts as logged, a
    list literal in a text cell parsed."""
    answers = doc.get("answers", doc.get("answer"))
    if answers is None:
        raise InputError(f"{where}: the logged doc has no 'answers' (fields: {', '.join(doc)})")
    if not isinstance(answers, list):
        from .records import parse_list_cell

        answers = parse_list_cell(answers, where)
    return tuple(answers)


def resolve_positions(results: ResultsFile, question_ids: Sequence[QuestionId]) -> ResultsFile:
    """lmms-eval samples without ``doc``: ``doc_id`` *i* is the *i*-th question of the
    annotations (lmms-eval numbers the rows of its dataset split), so the ids become those."""
    n = len(question_ids)
    pairs = []
    for (doc_id, answer), where in zip(
        results.results.pairs, range(len(results.results.pairs)), strict=True
    ):
        if not isinstance(doc_id, int) or not 0 <= doc_id < n:
            raise InputError(
                f"{results.source}: sample {where + 1}: doc_id {doc_id!r} is not a position in "
                f"the {n} annotated questions (lmms-eval samples without 'doc' are joined to "
                "the annotations by position)"
            )
        pairs.append((question_ids[doc_id], answer))
    metrics = {
        k: {question_ids[int(i)]: v for i, v in m.items() if isinstance(i, int) and 0 <= i < n}
        for k, m in results.sample_metrics.items()
    }
    note = (
        f"{results.source} logs no 'doc': its doc_id was joined to the annotations BY POSITION "
        "(doc_id i = the i-th annotated question); check the annotations are lmms-eval's split "
        "in its order"
    )
    return ResultsFile(
        Results(results.source, pairs, results.results.answer_column),
        results.layout,
        None,
        False,
        metrics,
        results.reported,
        (*results.notes, note),
    )


def ground_truth_disagreements(
    dataset: VQADataset, ground_truth: Sequence[Mapping[str, Any]], source: str, examples: int = 3
) -> str | None:
    """A note when the ground truth inside a results file differs from the annotations'
    (compared as lists of answer texts, by question id); ``None`` when they agree."""
    differ: list[QuestionId] = []
    for rec in ground_truth:
        qid = rec["question_id"]
        j = dataset.index.get(qid)
        if j is None and isinstance(qid, str) and qid.isdecimal():
            j = dataset.index.get(int(qid))
        if j is None:
            continue
        theirs = [a if isinstance(a, str) else a.get("answer") for a in rec["answers"]]
        if theirs != dataset.answers[j]:
            differ.append(qid)
    return disagreement_note(differ, f"ground truth(s) carried by {source}", dataset.source)


def _with_reported(res: ResultsFile, source: Any, reported: Any) -> ResultsFile:
    from .layouts import locate_reported

    rep = locate_reported(source, reported)
    if rep is None:
        return res
    return ResultsFile(
        res.results,
        res.layout,
        res.ground_truth,
        res.positional,
        res.sample_metrics,
        rep,
        res.notes,
    )


def describe_reported(results: ResultsFile) -> str:
    """``"; lmms-eval reported for task 'x': metric=value (file)"`` for messages, or ``""``."""
    rep = results.reported
    if not rep:
        return ""
    parts = []
    for group, metrics in rep.get("values", {}).items():
        if isinstance(metrics, Mapping):
            shown = ", ".join(f"{k}={v:.6g}" for k, v in list(metrics.items())[:3])
            parts.append(f"{group!r}: {shown}")
    what = "; ".join(parts[:2]) or "no numbers"
    return f" ({rep.get('toolkit')} reported {what} in {rep.get('source')})"
