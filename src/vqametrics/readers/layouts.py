"""Recognize which toolkit wrote a results file, and take ids and answers out of its rows.

Layouts (each recognized by its columns, see :data:`PREDICTION_LAYOUTS`): the official VQA
list (``question_id``, ``answer``), LLaVA ``answers.jsonl`` (``question_id``, ``prompt``,
``text``), VLMEvalKit spreadsheets (``index``, ``prediction``, and the ground truth in
``answer``), lmms-eval ``--log_samples`` (``doc_id``, ``filtered_resps``), GQA / DocVQA
submissions (``questionId`` with ``prediction`` or ``answer``) and VizWiz results (``image``,
``answer``). ``--id-field`` / ``--answer-field`` name the columns of anything else.
"""

from __future__ import annotations

import os
import re
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core.exceptions import InputError
from ._paths import path_name, path_with_name
from .formats import PREDICTION_LAYOUTS
from .records import Records, cell_text, column_name

if TYPE_CHECKING:  # pathlib and csv are imported where a toolkit's scores are looked for
    from pathlib import Path

__all__ = [
    "PREDICTION_LAYOUTS",
    "Predictions",
    "find_lmms_eval_reported",
    "find_reported",
    "is_lmms_eval_log",
    "is_vlmevalkit",
    "item_id",
    "locate_reported",
    "nan_note",
    "not_utf8",
    "predictions_from",
    "read_reported",
    "reported_numbers",
    "score_csv_rows",
]


@dataclass(frozen=True)
class Predictions:
    """Ids and answer texts taken out of a results file's rows, with where each was read."""

    ids: list[Hashable]
    texts: list[str | None]
    wheres: list[str]
    #: the recognized layout (``official``, ``llava-answers``, ``vlmevalkit``, …) and the file
    #: layout it was read from (``jsonl``, ``xlsx``, …)
    layout: str
    records: Records
    id_field: str
    answer_field: str
    #: VLMEvalKit rows of a pandas DataFrame whose prediction was NaN, read as the text
    #: ``'nan'`` (see :func:`predictions_from`)
    nan_as_text: int = 0

    @property
    def source(self) -> str:
        return self.records.source


#: a tuple, not ``str | int``: the union is built anew at every call of a hot function
_ID_TYPES = (str, int)


def item_id(value: Any, where: str, column: str) -> str | int:
    """The one rule for an item id, in every reader: a string or an integer (a spreadsheet's
    ``12.0`` is the id ``12``); an empty cell, a boolean, a fraction, a list or an object is an
    error naming the row, never an id made of its ``str()``."""
    if isinstance(value, _ID_TYPES) and value is not True and value is not False:
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    column = column_name(where, column)  # as the user's file names it
    if value is None:
        raise InputError(f"{where}: the {column!r} cell is empty")
    raise InputError(
        f"{where}: {column} is {type(value).__name__} ({str(value)[:40]}), expected a string "
        "or integer"
    )


def _recognize(
    records: Records, id_field: str | None, answer_field: str | None
) -> tuple[str, str, str]:
    cols = set(records.columns)
    if records.forced is not None:
        # forced with --input-format: no recognition; --id-field/--answer-field still rename
        # (read_records checked the layout's own columns)
        _, idc, ansc, _ = next(r for r in PREDICTION_LAYOUTS if r[0] == records.forced)
        return records.forced, id_field or idc, answer_field or ansc
    if id_field and answer_field:
        return "custom", id_field, answer_field
    for name, idc, ansc, also in PREDICTION_LAYOUTS:
        idc = id_field or idc
        ansc = answer_field or ansc
        if idc in cols and ansc in cols and all(c in cols for c in also):
            return name, idc, ansc
    tried = []
    for name, idc, ansc, also in PREDICTION_LAYOUTS[:-1]:
        idc = id_field or idc
        ansc = answer_field or ansc
        lacking = [c for c in (idc, ansc, *also) if c not in cols]
        tried.append(f"{name} (no {'/'.join(repr(c) for c in lacking)})")
    have = ", ".join(sorted(cols)[:20]) or "none"
    raise InputError(
        f"{records.source}: layout not recognized: its {records.layout} rows have the fields "
        f"{have}; tried {'; '.join(tried)}; name the columns with --id-field and --answer-field"
    )


def predictions_from(
    records: Records,
    *,
    id_field: str | None = None,
    answer_field: str | None = None,
    allow_missing_answer: bool = False,
) -> Predictions:
    """Take each row's id and answer, recognizing the layout by its columns.

    lmms-eval's ``filtered_resps`` is a list whose first element is the answer (a nested list
    in some versions is unwrapped). A row without the answer column is an error that lists the
    row's fields and the option to name another one.
    """
    layout, idc, ansc = _recognize(records, id_field, answer_field)
    # QUIRK pandas-nan (VLMEvalKit), kept so a DataFrame scores as the file: VLMEvalKit reads
    # its sheet with pandas, which turns the TEXT "nan" into NaN, then scores str(x) == "nan".
    # The file holds "nan" (openpyxl reads it so); a DataFrame of it holds NaN: read as "nan".
    nan_text = layout == "vlmevalkit" and records.layout == "dataframe"
    typed = records.typed  # JSON or Python objects: a number is not an answer
    nans = 0
    ids: list[Hashable] = []
    texts: list[str | None] = []
    wheres: list[str] = []
    for i, row in enumerate(records.rows):
        where = records.where(i)
        if idc not in row:
            raise InputError(
                f"{where}: no {column_name(where, idc)!r} field (fields: {_fields(row, where)}); "
                "name it with --id-field"
            )
        key = item_id(row[idc], where, idc)
        if ansc not in row:
            raise InputError(
                f"{where}: no {column_name(where, ansc)!r} field (fields: {_fields(row, where)}); "
                "name the answer field with --answer-field"
            )
        value = row[ansc]
        if layout == "lmms-eval-samples":
            value = _first_response(value, where)
        if nan_text and isinstance(value, float) and value != value:
            value = "nan"
            nans += 1
        if typed and value is not None and not isinstance(value, str):
            # JSON says what a value is: a number or a list where the answer text belongs is
            # not an answer (LLaVA's "text": 1), unlike a spreadsheet's number cell
            raise InputError(
                f"{where}: {column_name(where, ansc)} is {type(value).__name__} "
                f"({str(value)[:40]}), expected the answer as a string"
            )
        texts.append(cell_text(value, where, column=ansc, allow_missing=allow_missing_answer))
        ids.append(key)
        wheres.append(where)
    name = layout if layout == "custom" else f"{layout} ({records.layout})"
    return Predictions(ids, texts, wheres, name, records, idc, ansc, nans)


def _fields(row: Mapping[str, Any], where: str) -> str:
    """A row's fields for a message, as the user's file names them."""
    return ", ".join(column_name(where, k) for k in row)


def nan_note(preds: Predictions) -> str | None:
    """The note when VLMEvalKit predictions in a DataFrame were NaN (read as ``'nan'``)."""
    if not preds.nan_as_text:
        return None
    return (
        f"{preds.nan_as_text} prediction(s) are NaN in {preds.source} (pandas reads the text "
        "'nan' as NaN): scored as the text 'nan', as VLMEvalKit does (str(x))"
    )


def _first_response(value: Any, where: str) -> Any:
    while isinstance(value, list):
        if not value:
            raise InputError(f"{where}: filtered_resps is an empty list")
        value = value[0]
    return value


def is_vlmevalkit(
    records: Records, *, id_field: str | None = None, answer_field: str | None = None
) -> bool:
    """Whether *records* look like a VLMEvalKit result spreadsheet (ground truth inside), or
    were forced to be one; a file forced to another layout never is.

    ``--id-field`` / ``--answer-field`` (*id_field*, *answer_field*) win over the sheet's own
    names: a sheet whose prediction column is renamed is still one when it carries its ground
    truth in ``answer`` (which then cannot be the prediction column)."""
    if records.forced is not None:
        return records.forced == "vlmevalkit"
    cols = set(records.columns)
    idc, ansc = id_field or "index", answer_field or "prediction"
    if ansc == "answer" or not {idc, ansc} <= cols:
        return False
    return (idc, ansc) == ("index", "prediction") or "answer" in cols


def is_lmms_eval_log(records: Records) -> bool:
    """Whether *records* look like an lmms-eval ``--log_samples`` file (``doc_id`` and
    ``filtered_resps``), or were forced to be one; a file forced to another layout never is."""
    if records.forced is not None:
        return records.forced == "lmms-eval-samples"
    return {"doc_id", "filtered_resps"} <= set(records.columns)


def locate_reported(results: Any, given: Any = None) -> dict[str, Any] | None:
    """The toolkit's own numbers for a results file: ``--reported FILE`` (*given*), else
    VLMEvalKit's ``_acc.csv``/``_score.csv`` or lmms-eval's ``results.json`` found beside it;
    as ``{"source", "toolkit", "values"}``, or ``None``."""
    if given is not None:
        toolkit, source, values = read_reported(given)
    else:
        vk = find_reported(results)
        found = ("VLMEvalKit", *vk) if vk is not None else find_lmms_eval_reported(results)
        if found is None:
            return None
        toolkit, source, values = found
    out: dict[str, Any] = {"source": source, "toolkit": toolkit, "values": values}
    if toolkit == "lmms-eval" and len(values) == 1:
        n = _lmms_sample_count(source, next(iter(values)))
        if n is not None:
            out["n_samples"] = n
    return out


def _lmms_sample_count(path: str | Path, task: str) -> int | None:
    """How many samples lmms-eval says it scored for *task* (``n-samples.<task>.effective`` of
    its ``results.json``, ``original`` without ``--limit``), or ``None`` where it does not say."""
    import orjson

    try:
        with open(path, "rb") as fh:
            entry = orjson.loads(fh.read()).get("n-samples", {}).get(task)
    except (OSError, ValueError, AttributeError):
        return None  # read once already for its numbers: a fault there was worded then
    if isinstance(entry, dict):
        entry = entry.get("effective", entry.get("original"))
    return entry if isinstance(entry, int) and not isinstance(entry, bool) else None


def reported_numbers(reported: Mapping[str, Any]) -> Iterator[tuple[str, str, float]]:
    """``(group, metric, value)`` for every number of a found or given ``reported`` record
    (``{"source", "toolkit", "values": {group: {metric: value}}}``); text cells (a split's
    name) are skipped. The group is ``all`` for a one-row VLMEvalKit file and lmms-eval's
    task otherwise."""
    for group, metrics in reported.get("values", {}).items():
        if isinstance(metrics, Mapping):
            for key, value in metrics.items():
                if isinstance(value, float):
                    yield str(group), str(key), value


def find_reported(results_path: Any) -> tuple[str, dict[str, Any]] | None:
    """VLMEvalKit's own scores beside its result file, if they are there.

    For ``{model}_{dataset}.xlsx`` VLMEvalKit writes ``{model}_{dataset}_acc.csv`` or
    ``_score.csv``: a header row of metric names and one or more rows of values (the first
    column names the split when there are several). Returns ``(path, {row: {metric: value}})``
    with the values as floats where they parse, or ``None``.
    """
    if not isinstance(results_path, str | os.PathLike) or os.fspath(results_path) == "-":
        return None
    stem = path_name(results_path)  # as pathlib spells the names, without it (issue 23)
    for suffix in (".xlsx", ".tsv", ".csv", ".json", ".jsonl"):
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    for kind in ("_acc.csv", "_score.csv"):
        cand = path_with_name(results_path, stem + kind)
        if os.path.isfile(cand):
            return cand, _read_reported(cand)
    return None


def not_utf8(path: str | Path, data: bytes, exc: UnicodeDecodeError) -> InputError:
    """The error for a toolkit's score file that is not UTF-8 text (Excel saves CSV as cp1252,
    a Chinese one may be GBK), naming the byte and its line."""
    line = data.count(b"\n", 0, exc.start) + 1
    return InputError(
        f"{path}: not UTF-8 text (byte {exc.start}, line {line}): {exc.reason}; save it as UTF-8"
    )


def score_csv_rows(path: str | Path) -> list[list[str]]:
    """The rows of a toolkit's score CSV (VLMEvalKit's ``_acc.csv``, MM-Vet's
    ``-cap-score-`` file), read as UTF-8; a file that is not UTF-8 text or not CSV is an
    :class:`InputError` naming it, never a traceback."""
    import csv
    import io

    with open(path, "rb") as fh:
        data = fh.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise not_utf8(path, data, exc) from None
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        return list(reader)
    except csv.Error as exc:
        raise InputError(f"{path}: line {reader.line_num}: not readable as CSV ({exc})") from None


def _read_reported(path: str | Path) -> dict[str, Any]:
    rows = score_csv_rows(path)
    if len(rows) < 2:
        raise InputError(f"{path}: expected a header row and at least one row of scores")
    header = rows[0]
    out: dict[str, Any] = {}
    if len(rows) == 2:
        out["all"] = {h: _number(v) for h, v in zip(header, rows[1], strict=False)}
        return out
    for row in rows[1:]:
        if row:
            out[row[0]] = {h: _number(v) for h, v in zip(header[1:], row[1:], strict=False)}
    return out


def _number(text: str) -> float | str:
    try:
        return float(text)
    except ValueError:
        return text


def rows_by_column(records: Records, column: str) -> Sequence[Any]:
    """The values of one column, in row order (``None`` where a row lacks it)."""
    return [row.get(column) for row in records.rows]


#: lmms-eval's samples file names: ``{date}_samples_{task}.jsonl`` (v0.3+) and
#: ``samples_{task}_{date}.jsonl`` (older, as lm-evaluation-harness)
_LMMS_SAMPLES = (
    re.compile(r"^(?P<date>.+?)_samples_(?P<task>.+)\.jsonl(?:\.gz)?$"),
    re.compile(r"^samples_(?P<task>.+)_(?P<date>[^_]+)\.jsonl(?:\.gz)?$"),
)


def find_lmms_eval_reported(samples_path: Any) -> tuple[str, str, dict[str, Any]] | None:
    """lmms-eval's aggregate scores beside its ``--log_samples`` file, if they are there.

    ``{date}_samples_{task}.jsonl`` sits next to ``{date}_results.json`` (older versions:
    ``samples_{task}_{date}.jsonl`` next to ``results_{date}.json``), whose
    ``results.<task>`` maps ``"<metric>,<filter>"`` to the value. Returns ``("lmms-eval",
    path, {task: {"<metric>,<filter>": value}})`` with the task of the samples file only.
    """
    if not isinstance(samples_path, str | os.PathLike) or os.fspath(samples_path) == "-":
        return None
    for i, pattern in enumerate(_LMMS_SAMPLES):
        m = pattern.match(path_name(samples_path))  # pathlib's spelling, without it (issue 23)
        if m is None:
            continue
        name = f"{m['date']}_results.json" if i == 0 else f"results_{m['date']}.json"
        cand = path_with_name(samples_path, name)
        if os.path.isfile(cand):
            values = _lmms_results(cand)
            task = m["task"]
            if task in values:
                return "lmms-eval", cand, {task: values[task]}
            return "lmms-eval", cand, values
    return None


def _lmms_results(path: str | Path) -> dict[str, Any]:
    import orjson

    try:
        with open(path, "rb") as fh:  # Path(path).read_bytes()
            raw = fh.read()
    except OSError as exc:
        raise InputError(f"{path}: not a readable lmms-eval results.json ({exc})") from None
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        try:  # orjson words a bad byte as "surrogates not allowed … char 0"
            raw.decode("utf-8")
        except UnicodeDecodeError as bad:
            raise not_utf8(path, raw, bad) from None
        from ._json import json_error_text

        raise InputError(
            f"{path}: not a readable lmms-eval results.json ({json_error_text(exc)})"
        ) from None
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, dict):
        raise InputError(f"{path}: no 'results' object (not an lmms-eval results.json)")
    out: dict[str, Any] = {}
    for task, metrics in results.items():
        if not isinstance(metrics, dict):
            continue
        kept = {
            k: float(v)
            for k, v in metrics.items()
            if "," in k
            and "_stderr" not in k
            and isinstance(v, int | float)
            and not isinstance(v, bool)
        }
        if kept:
            out[str(task)] = kept
    return out


def read_reported(path: Any) -> tuple[str, str, dict[str, Any]]:
    """``--reported FILE``: a VLMEvalKit ``_acc.csv``/``_score.csv`` or an lmms-eval
    ``results.json``, as ``(toolkit, path, values)``."""
    from pathlib import Path

    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: no such file (--reported)")
    if p.suffix.lower() == ".json":
        return "lmms-eval", os.fspath(p), _lmms_results(p)
    if p.suffix.lower() == ".csv":
        return "VLMEvalKit", os.fspath(p), _read_reported(p)
    raise InputError(
        f"{p}: --reported takes a VLMEvalKit _acc.csv/_score.csv or an lmms-eval results.json"
    )
