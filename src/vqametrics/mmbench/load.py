"""Reading and writing MMBench tables: TSV, CSV, XLSX and JSONL. All I/O of the package is here.

Validation happens at this edge: every problem raises :class:`~vqametrics.InputError` with one
line naming the file, the line (or spreadsheet row) and the index.

TSV/CSV follow the quoting of the official files (a field is quoted only when it holds a tab,
newline or quote; inner quotes doubled), read and written with the stdlib :mod:`csv` module.
"""

from __future__ import annotations

import contextlib
import csv
import io
import math
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, TextIO

import orjson

from ..core.exceptions import InputError
from ..readers.join import check_unique
from .model import MMBenchData, MMBenchRow, Predictions

__all__ = [
    "PREDICTION_FORMATS",
    "MissingColumnsError",
    "Table",
    "load_mmbench_tsv",
    "load_predictions",
    "read_table",
    "rows_from_table",
    "write_tsv",
]

#: The toolkit layouts ``input_format=`` may force for predictions: VLMEvalKit's (index,
#: prediction); the others carry no MMBench index.
MMBENCH_LAYOUTS = ("vlmevalkit",)

#: File name endings :func:`load_predictions` accepts.
PREDICTION_FORMATS = (".tsv", ".csv", ".xlsx", ".jsonl")

_DATA_COLUMNS = ("index", "question", "answer", "A", "B")
_OPTION_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXY"


@dataclass(frozen=True)
class Table:
    """A table as read: header, rows (column -> cell; ``None`` = empty cell) and row locations.

    ``where[i]`` is how messages refer to row *i*, e.g. ``"line 7"`` or ``"row 3"``.
    """

    source: str
    header: tuple[str, ...]
    rows: tuple[Mapping[str, str | None], ...]
    where: tuple[str, ...]
    lines: tuple[int, ...]


@contextlib.contextmanager
def _big_fields() -> Iterator[None]:
    # Official TSVs hold base64 images far above csv's default 128 KiB field limit. The limit
    # is process-wide, so raise it only while reading and restore it afterwards.
    old = csv.field_size_limit()
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    try:
        yield
    finally:
        csv.field_size_limit(old)


def _read_text(path: Path) -> str:  # whole file, decompressed when it is gzip
    from ..readers._json import read_bytes

    try:
        return read_bytes(path).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _is_gzip(path: Path) -> bool:
    """Whether *path* is gzip-compressed (by its magic bytes) or named ``.gz``."""
    from ..readers._json import GZIP_MAGIC

    if path.name.lower().endswith(".gz"):
        return True
    try:
        with path.open("rb") as fh:
            return fh.read(2) == GZIP_MAGIC
    except OSError:
        return False  # the reader words it


def _read_delimited(path: Path, delimiter: str) -> Table:
    src = str(path)
    if _is_gzip(path):
        with _big_fields():
            return _parse_delimited(src, io.StringIO(_read_text(path), newline=""), delimiter)
    try:
        with path.open(encoding="utf-8-sig", newline="") as f, _big_fields():
            return _parse_delimited(src, f, delimiter)
    except UnicodeDecodeError as exc:
        raise InputError(f"{src}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise InputError(f"{src}: cannot read: {exc.strerror or exc}") from None


def _parse_delimited(src: str, f: TextIO, delimiter: str) -> Table:
    reader = csv.reader(f, delimiter=delimiter, strict=True)
    rows: list[Mapping[str, str | None]] = []
    where: list[str] = []
    lines: list[int] = []
    header: list[str] | None = None
    line_num = 0
    while True:
        start = line_num + 1
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise InputError(f"{src}: line {start}: malformed row: {exc}") from None
        line_num = reader.line_num
        if header is None:
            header = cells
            dup = sorted({c for c in header if header.count(c) > 1})
            if dup:
                raise InputError(f"{src}: line 1: duplicate column name(s) {dup}")
            continue
        if not cells:
            continue  # a blank line
        if len(cells) != len(header):
            raise InputError(
                f"{src}: line {start}: expected {len(header)} fields like the header, "
                f"got {len(cells)}"
            )
        rows.append({h: (c if c != "" else None) for h, c in zip(header, cells, strict=True)})
        where.append(f"line {start}")
        lines.append(start)
    if header is None:
        raise InputError(f"{src}: empty file (no header line)")
    return Table(src, tuple(header), tuple(rows), tuple(where), tuple(lines))


def _xlsx_cell(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    text = str(value)
    return text if text != "" else None


def _read_xlsx(path: Path) -> Table:
    """The first worksheet, read by the readers' spreadsheet reader (python-calamine where it
    gives openpyxl's values, else openpyxl: issue 23)."""
    from ..readers._json import read_bytes
    from ..readers.records import xlsx_table

    src = str(path)
    if _is_gzip(path):
        data = read_bytes(path)
    else:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise InputError(f"{src}: cannot read: {exc.strerror or exc}") from None
    raw_rows = xlsx_table(src, data)
    if not raw_rows:
        raise InputError(f"{src}: empty workbook (no header row)")
    header = tuple("" if v is None else str(v) for v in raw_rows[0])
    while header and header[-1] == "":
        header = header[:-1]
    rows: list[Mapping[str, str | None]] = []
    where: list[str] = []
    lines: list[int] = []
    for n, values in enumerate(raw_rows[1:], start=2):
        cells = [_xlsx_cell(v) for v in values]
        if all(c is None for c in cells):
            continue
        if any(c is not None for c in cells[len(header) :]):
            raise InputError(f"{src}: row {n}: more cells than the {len(header)} header columns")
        cells += [None] * (len(header) - len(cells))
        rows.append(dict(zip(header, cells[: len(header)], strict=True)))
        where.append(f"row {n}")
        lines.append(n)
    return Table(src, header, tuple(rows), tuple(where), tuple(lines))


def _jsonl_cell(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return value if isinstance(value, str) else str(value)


def _lmms_eval_row(obj: Mapping[str, object]) -> dict[str, object] | None:
    """A line of an lmms-eval ``--log_samples`` file as a result-sheet row: the benchmark row
    from ``doc`` and the answer from ``filtered_resps[0]``, stripped as
    ``mmbench_process_results`` strips it; without ``doc``, the ``gpt_eval_score`` record that
    function logs (index, question, options, answer, prediction). ``None`` for another line.

    QUIRK lmms-eval-nan: lmms-eval writes an absent option (and hint) as the text ``"nan"``
    (``doc.get(c, "nan")``) and skips such options when it builds the prompt; read as absent.
    """
    if "doc_id" not in obj:
        return None
    doc, record, resps = obj.get("doc"), obj.get("gpt_eval_score"), obj.get("filtered_resps")
    if isinstance(doc, dict) and isinstance(resps, list) and resps and isinstance(resps[0], str):
        row = {k: v for k, v in doc.items() if not isinstance(v, dict | list)}
        row["prediction"] = resps[0].strip()
    elif isinstance(record, dict) and "prediction" in record:
        row = {k: v for k, v in record.items() if not isinstance(v, dict | list)}
    else:
        return None
    if "L2-category" in row and "l2-category" not in row:
        row["l2-category"] = row.pop("L2-category")
    for key in ("A", "B", "C", "D", "E", "hint"):
        if row.get(key) == "nan":
            row[key] = None
    return row


def _read_jsonl(path: Path) -> Table:
    src = str(path)
    text = _read_text(path)
    rows: list[Mapping[str, str | None]] = []
    where: list[str] = []
    lines: list[int] = []
    header: list[str] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            from ..readers._json import json_error_text

            raise InputError(f"{src}: {json_error_text(exc, n)}") from None
        if not isinstance(obj, dict):
            raise InputError(f"{src}: line {n}: expected a JSON object, got {type(obj).__name__}")
        obj = _lmms_eval_row(obj) or obj
        for key in obj:
            if key not in header:
                header.append(key)
        for key, value in obj.items():
            if isinstance(value, dict | list):
                raise InputError(
                    f"{src}: line {n}: field {key!r} must be a string, a number or null, "
                    f"got a JSON {'object' if isinstance(value, dict) else 'array'}"
                )
        rows.append({k: _jsonl_cell(v) for k, v in obj.items()})
        where.append(f"line {n}")
        lines.append(n)
    if not rows:
        raise InputError(f"{src}: empty file (no JSON lines)")
    return Table(src, tuple(header), tuple(rows), tuple(where), tuple(lines))


def read_table(path: str | Path, default_format: str = ".tsv") -> Table:
    """Read a TSV, CSV, XLSX or JSONL file, chosen by its ending (else *default_format*);
    any of them may be gzip-compressed (recognized by content; a ``.gz`` ending is skipped).

    Raises
    ------
    InputError
        Unreadable file, bad encoding, malformed rows, an unknown format; the message names the
        file and line.
    """
    p = Path(path)
    suffix = Path(p.name.removesuffix(".gz").removesuffix(".GZ")).suffix.lower()
    if suffix not in PREDICTION_FORMATS:
        suffix = default_format
    if suffix == ".xlsx":
        return _read_xlsx(p)
    if suffix == ".jsonl":
        return _read_jsonl(p)
    return _read_delimited(p, "," if suffix == ".csv" else "\t")


class MissingColumnsError(InputError):
    """A benchmark table lacks columns it needs (a results sheet without the benchmark's)."""


def _require(table: Table, columns: Sequence[str]) -> None:
    missing = [c for c in columns if c not in table.header]
    if missing:
        found = ", ".join(table.header) or "none"
        raise MissingColumnsError(
            f"{table.source}: missing column(s) {', '.join(missing)} (found: {found})"
        )


def _parse_index(value: str | None, where: str, column: str = "index") -> int:
    text = (value or "").strip()
    try:
        index = int(text)
    except ValueError:
        try:
            number = float(text)
        except ValueError:
            raise InputError(f"{where}: {column} {value!r} is not an integer") from None
        if not (math.isfinite(number) and number.is_integer()):
            raise InputError(f"{where}: {column} {value!r} is not an integer") from None
        index = int(number)
    if index < 0:
        raise InputError(f"{where}: {column} {index} is negative")
    return index


def rows_from_table(
    table: Table, *, on_duplicate: Literal["error", "last"] = "error"
) -> MMBenchData:
    """Validate an MMBench table and turn it into rows.

    Every row needs an integer ``index``, a ``question`` column, at least two non-empty
    options among the single-letter columns and an ``answer`` that is one of them. An index
    given twice is an error naming both lines, unless *on_duplicate* is ``"last"`` (the one
    rule for repeated rows, :func:`~vqametrics.readers.join.check_unique`).

    Raises
    ------
    InputError
        Missing columns, a bad or duplicate index, too few options, a missing answer or an
        answer letter that is not an option; the message names the file, line and index.
    """
    _require(table, _DATA_COLUMNS)
    letters = [c for c in _OPTION_LETTERS if c in table.header]
    n_columns = sum(1 for c in "ABCD" if c in table.header)
    rows: list[MMBenchRow] = []
    for cells, where, line in zip(table.rows, table.where, table.lines, strict=True):
        loc = f"{table.source}: {where}"
        index = _parse_index(cells.get("index"), loc)
        loc = f"{loc} (index {index})"
        options = {c: v for c in letters if (v := cells.get(c)) is not None}
        if len(options) < 2:
            raise InputError(f"{loc}: needs at least 2 non-empty options, found {len(options)}")
        answer = (cells.get("answer") or "").strip()
        if not answer:
            raise InputError(f"{loc}: no answer (a split without answers cannot be scored)")
        if answer not in options:
            raise InputError(f"{loc}: answer {answer!r} is not an option ({', '.join(options)})")
        rows.append(
            MMBenchRow(
                index=index,
                options=MappingProxyType(options),
                answer=answer,
                question=cells.get("question") or "",
                hint=cells.get("hint") or "",
                category=cells.get("category") or "",
                l2_category=cells.get("l2-category") or "",
                split=cells.get("split") or "",
                n_columns=n_columns,
                line=line,
            )
        )
    if not rows:
        raise InputError(f"{table.source}: no data rows")
    places = [f"{table.source}: {where}" for where in table.where]
    keep = check_unique(
        [r.index for r in rows], places, what="index", on_duplicate=on_duplicate, warn=True
    )
    return MMBenchData(tuple(rows[k] for k in keep), table.source)


def load_mmbench_tsv(
    path: str | Path, *, on_duplicate: Literal["error", "last"] = "error"
) -> MMBenchData:
    """Load an MMBench data file in the official TSV layout (circular copies included).

    Columns used: ``index``, ``question``, ``hint``, ``A``.. (options), ``answer``,
    ``category``, ``l2-category``, ``split``; others (``image`` …) are ignored. A ``.csv`` or
    ``.xlsx`` ending selects that format instead.

    Parameters
    ----------
    path : str or Path
        The file.

    Returns
    -------
    MMBenchData
        The validated rows, in file order.

    Raises
    ------
    InputError
        See :func:`rows_from_table` and :func:`read_table`.

    Notes
    -----
    An empty cell is an absent value, as pandas reads it (NaN): an empty option is no option.
    pandas' other NaN spellings (``NA``, ``None``, ``null`` …) are read as text here.
    """
    return rows_from_table(read_table(path), on_duplicate=on_duplicate)


def load_predictions(
    path: str | Path | Any,
    *,
    input_format: str | None = None,
    id_field: str | None = None,
    answer_field: str | None = None,
    on_duplicate: Literal["error", "last"] = "error",
) -> Predictions:
    """Load predictions through the one reader layer (:mod:`vqametrics.readers.records`).

    Any layout it reads: TSV, CSV, XLSX (VLMEvalKit's default output), JSON, JSONL, gzip of
    any, ``-`` for standard input, or in-memory records (*input_format*: a file format, or
    ``vlmevalkit`` to require its columns; see :mod:`vqametrics.readers.formats`). Each row needs
    ``index`` and ``prediction`` (other names with *id_field* / *answer_field*); other columns
    are ignored (the ground truth always comes from the data file).

    An index given twice is an error, unless *on_duplicate* is ``"last"``: the last row is
    kept and counted (``Predictions.duplicates``).

    Returns
    -------
    Predictions
        Index -> prediction text; ``None`` for an empty cell or a JSON ``null``.

    Raises
    ------
    InputError
        Unreadable file, invalid line, missing columns, a bad or duplicate index; the message
        names the file and line.
    """
    from ..readers.answers import not_text_error
    from ..readers.formats import parse_input_format
    from ..readers.records import read_records

    fmt = parse_input_format(input_format, layouts=MMBENCH_LAYOUTS)
    source = os.fspath(path) if isinstance(path, Path) else path
    records = read_records(source, format=fmt, on_duplicate=on_duplicate)
    idc, ansc = id_field or "index", answer_field or "prediction"
    rows: list[Mapping[str, Any]] = list(records.rows)
    cols = records.columns
    lmms = [_lmms_eval_row(r) for r in rows]
    if rows and all(r is not None for r in lmms):  # an lmms-eval log: its rows as a sheet's
        rows = [r for r in lmms if r is not None]
        cols = list(dict.fromkeys(k for r in rows for k in r))
    missing = [c for c in (idc, ansc) if c not in cols]
    if missing:
        found = ", ".join(cols) or "none"
        hint = " (name them with --id-field / --answer-field)" if records.rows else ""
        raise InputError(
            f"{records.source}: missing column(s) {', '.join(missing)} (found: {found}){hint}"
        )
    json_rows = records.typed
    values: dict[int, str | None] = {}
    seen: dict[int, str] = {}
    duplicates = 0
    for i, cells in enumerate(rows):
        loc = records.where(i)
        where = loc.removeprefix(f"{records.source}: ")
        index = _parse_index(_cell(cells.get(idc), loc, idc), loc, idc)
        if index in seen:
            if on_duplicate != "last":
                raise InputError(
                    f"{loc} (index {index}): duplicate index, first seen at {seen[index]}"
                )
            duplicates += 1
        else:
            seen[index] = where
        if ansc not in cells:
            raise InputError(f"{loc} (index {index}): no {ansc!r} field")
        values[index] = _cell(cells[ansc], loc, ansc)
        if json_rows and isinstance(cells[ansc], int | float):
            # JSON says what a value is: a number or a boolean where the answer text belongs
            # is not an answer (a sheet's number cell is the text it shows)
            raise not_text_error(loc, ansc, cells[ansc])
    if not values:
        raise InputError(f"{records.source}: no prediction rows")
    return Predictions(MappingProxyType(values), records.source, duplicates)


def _cell(value: object, where: str, column: str) -> str | None:
    """A cell as text, ``None`` when empty (pandas' NaN): numbers as a spreadsheet shows them."""
    if value is None or value == "":
        return None
    if isinstance(value, dict | list):
        raise InputError(
            f"{where}: field {column!r} must be a string, a number or null, "
            f"got a JSON {'object' if isinstance(value, dict) else 'array'}"
        )
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return value if isinstance(value, str) else str(value)


def write_tsv(
    path: str | Path, header: Sequence[str], rows: Sequence[Mapping[str, str | None]]
) -> None:
    """Write rows as a TSV with the official quoting (quote only tab/newline/quote fields)."""
    Path(path).write_text(tsv_text(header, rows), encoding="utf-8", newline="")


def tsv_text(header: Sequence[str], rows: Sequence[Mapping[str, str | None]]) -> str:
    """The text :func:`write_tsv` writes."""
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(header)
    for row in rows:
        writer.writerow(["" if (v := row.get(h)) is None else v for h in header])
    return buf.getvalue()
