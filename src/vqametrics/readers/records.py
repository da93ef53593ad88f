"""The one reader layer: any file a user has → a list of records, with where each came from.

A *record* is one row: a dict of column name → value. :func:`read_records` accepts a JSON
document (a list of objects, or an object whose values are the rows), JSON Lines, CSV, TSV,
XLSX, any of these gzip-compressed, ``-`` for standard input, and in-memory data (a list of
dicts, a ``{id: answer}`` mapping, a pandas DataFrame). The layout is recognized from the
content (the extension is only a hint) and named in :attr:`Records.layout`, so that a command
can say what it read. Task modules interpret the columns; nothing here knows about scoring.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any, Literal

from ..core.exceptions import InputError
from ._json import (
    is_blank,
    not_utf8_error,
    parse_json_or_jsonl,
    read_raw,
    repeated_members,
    ungzip,
)
from .formats import FILE_FORMATS, InputFormat, parse_input_format

__all__ = [
    "FORMATS",
    "Records",
    "Source",
    "column_name",
    "field_value",
    "force_layout",
    "read_bytes_from",
    "read_records",
    "records_from_bytes",
    "workbooks_parsed_once",
    "xlsx_table",
]

#: The file formats ``--input-format`` accepts (it also takes layouts: see :mod:`.formats`).
FORMATS = FILE_FORMATS

Source = str | os.PathLike[str] | Sequence[Mapping[str, Any]] | Mapping[Any, Any] | Any

_ZIP_MAGIC = b"PK\x03\x04"
#: a UTF-8 byte order mark, which Windows tools write at the start of text files
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class Records:
    """Rows read from one source, with enough provenance for one-line error messages."""

    rows: list[dict[str, Any]]
    #: how the source is named in messages (a path, ``<stdin>`` or ``<list>``)
    source: str
    #: what was recognized: ``json``, ``json-mapping``, ``jsonl``, ``csv``, ``tsv``, ``xlsx``,
    #: ``list``, ``mapping`` or ``dataframe``, with ``+gzip`` when it was compressed
    layout: str
    #: the 1-based line (JSONL) or spreadsheet row (CSV/TSV/XLSX, header = row 1) of each row
    lines: list[int] | None = None
    #: the top-level JSON object when the rows came from one of its keys (e.g. TextVQA's
    #: ``{"data": [...]}``), else ``None``
    header: Mapping[str, Any] | None = None
    #: the layout forced with ``--input-format`` (``vlmevalkit``, ``llava-answers``, …;
    #: recognition is then skipped), or ``None``
    forced: str | None = None
    #: spreadsheet cells read as empty that are not: row number -> column -> what the cell is
    #: (a formula with no stored value, part of merged cells), for the "is empty" message
    cell_notes: Mapping[int, Mapping[str, str]] | None = None
    #: the layout's column name -> the user's, for the columns ``--id-field`` /
    #: ``--answer-field`` renamed (:func:`~vqametrics.readers.cells.named_columns`): a
    #: message names a cell as the user's file does, never by a column the file lacks
    user_names: Mapping[str, str] | None = None
    #: for a ``{id: answer}`` JSON object read with ``on_duplicate="last"``: how many of its
    #: members repeated an earlier key (their last value was kept, as ``json.load`` does)
    repeated_keys: int = 0

    def where(self, i: int) -> str:
        """``file: line N`` / ``file: row N`` / ``file: item N`` for row *i* (0-based)."""
        if self.lines is not None:
            unit = "line" if self.layout.startswith("jsonl") else "row"
            text = f"{self.source}: {unit} {self.lines[i]}"
            notes = self.cell_notes.get(self.lines[i]) if self.cell_notes else None
        else:
            text, notes = f"{self.source}: item {i + 1}", None
        if notes or self.user_names:
            return _Where(text, notes or {}, self.user_names or {})
        return text

    @functools.cached_property
    def columns(self) -> list[str]:
        """Every column name that occurs, in first-seen order. Worked out once (a pass over
        every row, asked four times of each results file: issue 23); the rows are never
        changed once read (a reader makes new :class:`Records` with ``replace``)."""
        first = list(self.rows[0]) if self.rows else []
        if len(set().union(*self.rows)) == len(first):
            return first  # the usual case, every row with the first row's columns: in C
        seen: dict[str, None] = {}
        for row in self.rows:
            for key in row:
                seen.setdefault(key, None)
        return list(seen)

    @property
    def typed(self) -> bool:
        """Whether the values carry their own type (JSON, JSONL or Python objects), so that a
        number where text belongs is not text; a sheet's number cell is the text it shows."""
        return self.layout.removesuffix("+gzip").startswith(_TYPED_LAYOUTS)

    def __len__(self) -> int:
        return len(self.rows)


#: record layouts whose values carry their type (``json``, ``json-mapping``, ``json:<key>``,
#: ``jsonl``, and the in-memory ``list`` and ``mapping``)
_TYPED_LAYOUTS = ("json", "jsonl", "list", "mapping")


class _Where(str):
    """A row's place in messages that also knows which of its empty cells are not empty in
    the sheet (a formula, merged cells): :func:`cell_text` names them so; and the user's
    names of renamed columns (:attr:`Records.user_names`), which :func:`column_name` gives."""

    notes: Mapping[str, str]
    names: Mapping[str, str]

    def __new__(
        cls, text: str, notes: Mapping[str, str], names: Mapping[str, str] | None = None
    ) -> _Where:
        self = super().__new__(cls, text)
        self.notes = notes
        self.names = names or {}
        return self


def column_name(where: str, column: str) -> str:
    """*column* as the user's file names it: the layout reads a column ``--id-field`` /
    ``--answer-field`` renamed under its own name, but a message about the row at *where*
    names the column the user has (``zz_id``, not ``index``)."""
    names: Mapping[str, str] = getattr(where, "names", {})
    return names.get(column, column)


def read_bytes_from(path: str | os.PathLike[str]) -> tuple[str, bytes, bool]:
    """``(name, bytes, was_gzip)`` of a file or of ``-`` (standard input), decompressed.

    A missing, unreadable or empty file, a corrupt gzip stream and a truncated one are each
    an :class:`InputError` naming the file.
    """
    name = "<stdin>" if os.fspath(path) == "-" else os.fspath(path)
    if name == "<stdin>":
        try:
            data = sys.stdin.buffer.read()
        except OSError as exc:
            raise InputError(f"{name}: cannot read: {exc.strerror or exc}") from None
        if is_blank(data):
            raise InputError(f"{name}: file is empty")
    else:
        data = read_raw(path)
    data, was_gzip = ungzip(name, data)
    return name, data, was_gzip


#: what a reader does with a key repeated in a ``{id: answer}`` JSON object: ``"error"``
#: refuses it and names ``--on-duplicate last``, ``"last"`` keeps the last value (as
#: ``json.load``), ``None`` (a caller that does not take the option) refuses it
OnDuplicate = Literal["error", "last"] | None


def read_records(
    source: Source,
    *,
    format: str | InputFormat | None = None,
    rows_key: str = "data",
    on_duplicate: OnDuplicate = None,
) -> Records:
    """Read *source* into :class:`Records`.

    Parameters
    ----------
    source : path, ``"-"``, list of dicts, mapping or pandas DataFrame
        A file (any layout of the module docstring), standard input, or data in memory.
        A mapping whose values are not dicts is read as ``{id: answer}`` rows
        ``{"question_id": id, "answer": answer}``.
    format : str, optional
        Force a file format (``json``, ``jsonl``, ``csv``, ``tsv``, ``xlsx``), a layout
        (``official``, ``llava``, ``vlmevalkit``, ``lmms-eval``, ``gqa``, ``docvqa``,
        ``vizwiz``) or both (``vlmevalkit,csv``) instead of recognizing them
        (:func:`~vqametrics.readers.formats.parse_input_format`). A forced layout's columns must
        be in the file.
    rows_key : str, default="data"
        For a JSON object whose rows sit under one key (``{"data": [...]}``, ``{"annotations":
        [...]}``), the key to take them from when it is present.
    on_duplicate : {"error", "last"}, optional
        A key repeated in a ``{id: answer}`` JSON object (which ``json.load`` silently
        resolves to its last value) is an :class:`InputError` naming the file and the key;
        ``"last"`` keeps the last value, as ``json.load`` does (counted in
        :attr:`Records.repeated_keys`). ``"error"`` says so in the message (the caller takes
        ``--on-duplicate``); the default refuses it without that hint.
    """
    fmt = parse_input_format(format)
    in_memory = _in_memory(source)
    if in_memory is not None:
        return force_layout(in_memory, fmt)
    assert isinstance(source, str | os.PathLike)
    name, data, was_gzip = read_bytes_from(source)
    return records_from_bytes(
        name, data, was_gzip, format=fmt, rows_key=rows_key, on_duplicate=on_duplicate
    )


def records_from_bytes(
    name: str,
    data: bytes,
    was_gzip: bool = False,
    *,
    format: str | InputFormat | None = None,
    rows_key: str = "data",
    on_duplicate: OnDuplicate = None,
) -> Records:
    """:func:`read_records` on bytes already read and decompressed (a pipe is read once)."""
    fmt = parse_input_format(format)
    suffix = name[:-3] if name.endswith(".gz") else name
    if fmt.file_format is None:
        kind = _sniff(suffix, data)
    else:
        kind = fmt.file_format
        if kind != "xlsx" and data[:4] == _ZIP_MAGIC:
            raise InputError(
                f"{name}: read as {kind} (--input-format), but the file is a spreadsheet (it "
                "starts with a zip header, as an .xlsx workbook does): give the format xlsx, "
                "or leave it out to have the file recognized"
            )
    if kind in ("json", "jsonl"):
        records = _parse_json(name, data, suffix, rows_key, kind == "jsonl", on_duplicate)
    else:
        records = _PARSERS[kind](name, data, suffix, rows_key)
    if was_gzip:
        records = Records(
            records.rows,
            name,
            records.layout + "+gzip",
            records.lines,
            records.header,
            repeated_keys=records.repeated_keys,
        )
    return force_layout(records, fmt)


def force_layout(records: Records, fmt: InputFormat) -> Records:
    """*records* with the layout of *fmt* forced; its id and answer columns must be there.

    A file without them is one line naming the file, the forced layout, the missing
    column(s) and the columns it has.
    """
    if fmt.layout is None:
        return records
    cols = records.columns
    missing = [c for c in fmt.columns if c not in cols]
    if missing:
        have = ", ".join(cols[:20]) or "none"
        need = ", ".join(repr(c) for c in fmt.columns)
        lack = ", ".join(repr(c) for c in missing)
        raise InputError(
            f"{records.source}: the forced layout {fmt.layout_name!r} needs the column(s) "
            f"{need}; missing {lack} (its columns: {have})"
        )
    return Records(
        records.rows,
        records.source,
        records.layout,
        records.lines,
        records.header,
        fmt.layout,
        repeated_keys=records.repeated_keys,
    )


def _in_memory(source: Source) -> Records | None:
    if isinstance(source, str | os.PathLike):
        return None
    if hasattr(source, "to_dict") and hasattr(source, "columns"):  # a pandas DataFrame
        rows = source.to_dict(orient="records")
        return Records(
            [{str(k): v for k, v in r.items()} for r in rows], "<dataframe>", "dataframe"
        )
    if isinstance(source, Mapping):
        return _mapping_rows(source, "<mapping>", "mapping")
    if isinstance(source, Sequence) and not isinstance(source, bytes):
        rows = list(source)
        for i, row in enumerate(rows):
            if not isinstance(row, Mapping):
                raise InputError(f"<list>: item {i + 1} is {type(row).__name__}, expected a dict")
        return Records([dict(r) for r in rows], "<list>", "list")
    raise InputError(
        f"cannot read {type(source).__name__}: expected a path, '-', a list of dicts, "
        "a mapping or a pandas DataFrame"
    )


def _mapping_rows(value: Mapping[Any, Any], name: str, layout: str) -> Records:
    rows = []
    for key, val in value.items():
        if isinstance(val, Mapping):
            rows.append({"question_id": key, **val})
        else:
            rows.append({"question_id": key, "answer": val})
    return Records(rows, name, layout)


def _sniff(name: str, data: bytes) -> str:
    """The layout of *data*: by content first, then by extension."""
    if data[:4] == _ZIP_MAGIC:
        return "xlsx"
    head = data.removeprefix(_BOM).lstrip()[:1]
    if head in (b"[", b"{"):
        return "json"
    lower = name.lower()
    if lower.endswith((".jsonl", ".ndjson", ".json")):
        return "json"
    if lower.endswith(".tsv"):
        return "tsv"
    if lower.endswith(".csv"):
        return "csv"
    if lower.endswith(".xlsx"):
        return "xlsx"
    first = data.split(b"\n", 1)[0]
    if b"\t" in first:
        return "tsv"
    if b"," in first:
        return "csv"
    raise InputError(
        f"{name}: layout not recognized: not JSON or JSON Lines (does not start with '[' or "
        "'{'), not a spreadsheet (no zip header), and its first line has neither tabs nor "
        "commas for CSV/TSV; pass --input-format with one of json, jsonl, csv, tsv, xlsx "
        "to say which it is"
    )


def _parse_json(
    name: str,
    data: bytes,
    suffix: str,
    rows_key: str,
    jsonl: bool = False,
    on_duplicate: OnDuplicate = None,
) -> Records:
    jsonl = jsonl or suffix.lower().endswith((".jsonl", ".ndjson"))
    # a leading byte order mark is read as the CSV/TSV reader reads it (utf-8-sig): not text
    data = data.removeprefix(_BOM)
    value, lines = parse_json_or_jsonl(name, data, jsonl)
    if lines is not None:
        if set(map(type, value)) != {dict}:  # the parser makes plain dicts: else line by line
            for i, row in enumerate(value):
                if not isinstance(row, dict):
                    raise InputError(
                        f"{name}: line {lines[i]}: expected a JSON object, got {type(row).__name__}"
                    )
        return Records(value, name, "jsonl", lines)
    if isinstance(value, list):
        _check_objects(name, value)
        return Records(value, name, "json")
    if isinstance(value, dict):
        inner = value.get(rows_key)
        if isinstance(inner, list):
            _check_objects(name, inner, f"the {rows_key!r} list")
            return Records(inner, name, f"json:{rows_key}", None, value)
        records = _mapping_rows(value, name, "json-mapping")
        # {id: answer}: orjson kept the last value of a repeated key; look for one (an {id:
        # record} mapping is not parsed again: a megabyte would cost milliseconds). A repeat
        # needs more members than keys: as many `":` as keys leaves no room for one, and the
        # usual file is not parsed twice (issue 23; counted only here: a megabyte costs 1 ms)
        if not all(isinstance(v, dict) for v in value.values()) and data.count(b'":') != len(value):
            repeats = repeated_members(name, data, on_duplicate)
            if repeats:
                records = replace(records, repeated_keys=repeats)
        return records
    raise InputError(f"{name}: expected a JSON list or object, got {type(value).__name__}")


def _check_objects(name: str, rows: list[Any], what: str = "the list") -> None:
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise InputError(
                f"{name}: item {i + 1} of {what} is {type(row).__name__}, expected an object"
            )


def _parse_delimited(name: str, data: bytes, suffix: str, rows_key: str, delimiter: str) -> Records:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        error = not_utf8_error(name, data)  # its byte, line and column: the error path only
        assert error is not None  # utf-8-sig differs from UTF-8 only in a leading BOM
        raise error from None
    import csv  # only for CSV and TSV: a JSON file's score does without it (issue 23)

    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    # a field of any length (a long generation): the csv module refuses fields beyond 128 KiB
    # by default; the limit is raised for this read only
    limit = csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    try:
        table = list(reader)
    except csv.Error as exc:
        raise InputError(f"{name}: line {reader.line_num}: malformed {suffix} ({exc})") from None
    finally:
        csv.field_size_limit(limit)
    kind = "tsv" if delimiter == "\t" else "csv"
    return _with_rows(_table_records(name, table, kind), table)


class _NoHeader(InputError):
    """A table with no row that holds anything (a workbook says more: :func:`_parse_xlsx`)."""


def _table_records(name: str, table: list[list[Any]], kind: str) -> Records:
    while table and not any(str(c).strip() for c in table[-1] if c is not None):
        table.pop()
    if not table:
        raise _NoHeader(f"{name}: no header row")
    header = [str(h) if h is not None else "" for h in table[0]]
    seen: set[str] = set()
    for col in header:
        if col in seen and col:
            raise InputError(f"{name}: column {col!r} appears twice in the header")
        seen.add(col)
    rows, lines = [], []
    width = len(header)
    named = all(header)  # every column has a name: a row is the header zipped with its cells
    for rowno, cells in enumerate(table[1:], 2):
        if not any(c is not None and str(c) != "" for c in cells):
            continue
        if len(cells) > width and any(c not in (None, "") for c in cells[width:]):
            raise InputError(
                f"{name}: row {rowno} has {len(cells)} cells but the header has {width}"
            )
        if len(cells) < width and kind in ("csv", "tsv"):
            raise InputError(
                f"{name}: row {rowno} has {len(cells)} cell(s) but the header has "
                f"{width} (a truncated file?)"
            )
        # an empty cell is None whether the sheet is CSV ("") or XLSX (None)
        if named and len(cells) >= width and "" not in cells:
            # the same dict without a call per cell (cells past the header are empty: above)
            row = dict(zip(header, cells, strict=False))
        else:
            row = {h: _cell(cells, j) for j, h in enumerate(header) if h}
        rows.append(row)
        lines.append(rowno)
    return Records(rows, name, kind, lines)


def _with_rows(records: Records, table: list[list[Any]]) -> Records:
    """*records* of a table, when it has a row below its header; else the error naming the
    header's columns (a task would otherwise see a file without columns)."""
    if records.rows:
        return records
    header = [str(h) for h in table[0] if h is not None and str(h) != ""]
    shown = ", ".join(map(repr, header[:20])) + (", …" if len(header) > 20 else "")
    has = "its first worksheet has" if records.layout == "xlsx" else "it has"
    raise InputError(
        f"{records.source}: {has} a header row ({shown}) but no rows below it: nothing to read"
    )


def _cell(cells: list[Any], j: int) -> Any:
    value = cells[j] if j < len(cells) else None
    return None if value == "" else value


def _parse_xlsx(name: str, data: bytes, suffix: str, rows_key: str) -> Records:
    """The first worksheet's cells, as openpyxl reads them (``read_only``, ``data_only``).

    python-calamine (compiled; the ``xlsx`` extra) reads a sheet in about a tenth of the time;
    its values are made openpyxl's: an integral number is an ``int`` (openpyxl's for a number
    written without a point or exponent) and an empty cell ``None``. Where that rule could not
    give openpyxl's value — a number written as ``1.0`` or ``1E2``, an integer of 16 digits or
    more, an error, a date, a text of only spaces or with ``_xHHHH_`` escapes, anything not
    text, number or boolean — the file is read with openpyxl instead (the XML is scanned for
    these first, and checked well-formed: calamine reads past a mismatched tag). A damaged
    workbook is one :class:`InputError` naming the file.
    """
    table = xlsx_table(name, data)
    try:
        records = _table_records(name, table, "xlsx")
    except _NoHeader:
        raise _empty_first_sheet(name, data) from None
    records = _with_rows(records, table)
    notes = _cell_notes(data, table[0] if table else [])
    return replace(records, cell_notes=notes) if notes else records


def _empty_first_sheet(name: str, data: bytes) -> InputError:
    """The error for a workbook whose first worksheet holds nothing: it names the workbook's
    sheets (the first one is the one read: VLMEvalKit writes its results on one sheet)."""
    import html
    import zipfile

    names: list[str] = []
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            xml = archive.read("xl/workbook.xml")
    except Exception:  # it was read as a workbook: the names are a courtesy
        xml = b""
    for m in _pattern("sheet").finditer(xml):
        found = re.search(rb'\bname="([^"]*)"', m.group(0))
        if found:
            names.append(html.unescape(found.group(1).decode("utf-8", "replace")))
    if len(names) < 2:
        return InputError(f"{name}: its worksheet is empty (no header row)")
    return InputError(
        f"{name}: its first worksheet ({names[0]!r}) is empty; the workbook has the sheets "
        f"{', '.join(map(repr, names))} and only the first is read (VLMEvalKit writes its "
        "results on one sheet): move the results to the first sheet, or save their sheet as "
        "a file of its own"
    )


#: the workbooks parsed inside :func:`workbooks_parsed_once` (their bytes and tables); ``None``
#: outside it. A context variable: the demo server's threads each have their own.
_PARSED: ContextVar[list[tuple[bytes, list[list[Any]]]] | None] = ContextVar(
    "vqametrics_parsed_workbooks", default=None
)


@contextlib.contextmanager
def workbooks_parsed_once() -> Iterator[None]:
    """Inside the block a workbook read again (the same bytes) is not parsed again: MMBench's
    VLMEvalKit sheet is both its data file and its predictions (issue 23). Nothing is kept
    after the block."""
    outer = _PARSED.get()
    token = _PARSED.set([] if outer is None else outer)  # a block inside one shares it
    try:
        yield
    finally:
        _PARSED.reset(token)


def xlsx_table(name: str, data: bytes) -> list[list[Any]]:
    """The first worksheet of the workbook *data* as rows of cells, each value as openpyxl
    reads it (``read_only``, ``data_only``): by python-calamine where that gives the same
    values, else by openpyxl (see :func:`_parse_xlsx`). *name* is used in messages. A new
    list of new rows each call: the caller may change them."""
    parsed = _PARSED.get()
    for seen, rows in parsed or ():
        if seen == data:
            return [list(row) for row in rows]
    table = _calamine_table(data)
    if table is None:
        table = _openpyxl_table(name, data)
    if parsed is not None:
        parsed.append((data, [list(row) for row in table]))
    return table


#: the patterns of a workbook's XML, by name (compiled by :func:`_pattern` on first use)
_PATTERNS: dict[str, tuple[bytes | str, int]] = {
    "sheet": (rb"<sheet\b[^>]*>", 0),
    "relation": (rb"<Relationship\b[^>]*>", 0),
    "cell": (rb'<c\b[^>]*?\br="([A-Z]+)(\d+)"[^>]*?(?:/>|>(.*?)</c>)', re.DOTALL),
    "merged": (rb'<mergeCell\b[^>]*?\bref="([A-Z]+)(\d+):([A-Z]+)(\d+)"', 0),
    "stored": (rb"<v(?:\s[^>]*)?>[^<]", 0),
    "dimension": (rb'<dimension\b[^>]*?\bref="([A-Z]+)(\d+)', 0),
}


@functools.cache
def _pattern(name: str) -> re.Pattern[Any]:
    """The pattern *name* of :data:`_PATTERNS`, compiled once, on first use: reading a JSON
    file never compiles the spreadsheet patterns (issue 23)."""
    source, flags = _PATTERNS[name]
    return re.compile(source, flags)


def _column_number(letters: bytes) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + ch - 64
    return n


def _first_worksheet(archive: Any) -> str | None:
    """The member of the workbook's first worksheet (what openpyxl's ``worksheets[0]`` is)."""
    targets = {}
    for m in _pattern("relation").finditer(archive.read("xl/_rels/workbook.xml.rels")):
        rid = re.search(rb'\bId="([^"]+)"', m.group(0))
        target = re.search(rb'\bTarget="([^"]+)"', m.group(0))
        if rid and target:
            targets[rid.group(1)] = target.group(1).decode()
    for m in _pattern("sheet").finditer(archive.read("xl/workbook.xml")):
        sheet_id = re.search(rb':id="([^"]+)"', m.group(0))
        path = targets.get(sheet_id.group(1)) if sheet_id else None
        if path and "worksheets/" in path:
            return path.lstrip("/") if path.startswith("/") else f"xl/{path}"
    return None


def _cell_notes(data: bytes, header: list[Any]) -> dict[int, dict[str, str]]:
    """Cells of the first worksheet that read as empty but are not: a formula whose value
    was never stored (a workbook saved without calculating), or a cell of merged cells other
    than the first (its value is the first's). Keyed by row number as :attr:`Records.lines`."""
    import zipfile

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            member = _first_worksheet(archive)
            xml = archive.read(member) if member else b""
    except Exception:  # the reader read it: notes are a courtesy
        return {}
    if b"<f" not in xml and b"<mergeCell" not in xml:
        return {}
    dim = _pattern("dimension").search(xml)
    col0, row0 = (_column_number(dim.group(1)), int(dim.group(2))) if dim else (1, 1)
    names = [str(h) if h is not None else "" for h in header]

    def place(col: int, row: int) -> tuple[int, str] | None:
        j = col - col0
        name = names[j] if 0 <= j < len(names) else ""
        return (row - row0 + 1, name) if name else None

    notes: dict[int, dict[str, str]] = {}
    if b"<f" in xml:
        for m in _pattern("cell").finditer(xml):
            body = m.group(3) or b""
            if b"<f" in body and _pattern("stored").search(body) is None:  # no <v>, or an empty one
                at = place(_column_number(m.group(1)), int(m.group(2)))
                if at is not None:
                    ref = (m.group(1) + m.group(2)).decode()
                    notes.setdefault(at[0], {})[at[1]] = (
                        f"a formula ({ref}) with no stored value: the workbook was saved "
                        "without calculating it; open and save it in a spreadsheet program, "
                        "or export its values"
                    )
    for m in _pattern("merged").finditer(xml):
        c1, r1, c2, r2 = (_column_number(m.group(1)), int(m.group(2)),
                          _column_number(m.group(3)), int(m.group(4)))  # fmt: skip
        first = (m.group(1) + m.group(2)).decode()
        span = f"{first}:{(m.group(3) + m.group(4)).decode()}"
        if (c2 - c1 + 1) * (r2 - r1 + 1) > 1_000_000:
            continue  # a whole-sheet merge: not worth naming cell by cell
        for row in range(r1, r2 + 1):
            for col in range(c1, c2 + 1):
                at = place(col, row) if (row, col) != (r1, c1) else None
                if at is not None:
                    notes.setdefault(at[0], {}).setdefault(
                        at[1], f"part of the merged cells {span} (only {first} holds a value)"
                    )
    return notes


# in a worksheet's XML: a number written with a point or an exponent (openpyxl reads a float,
# calamine's value is made an int when integral: such a cell must not be integral), and an
# integer of 16 digits or more (a float may not hold it exactly)
_PATTERNS["decimal"] = (rb"<v>([-+]?(?:\d*\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+))</v>", 0)
_PATTERNS["long_int"] = (rb"<v>[-+]?\d{16,}</v>", 0)
# in the text of a cell: one not marked xml:space="preserve" that starts or ends with
# whitespace (calamine trims it, or drops a text of only spaces; openpyxl keeps it); phonetic
# runs; and in a sheet's inline strings, the _xHHHH_ escapes that calamine decodes and openpyxl
# leaves as written (it decodes them in shared strings, as calamine does)
_PATTERNS["text_differs"] = (rb"<t>\s|<t>[^<]*\s</t>|<rPh\b", 0)
_PATTERNS["inline_escape"] = (rb"_x[0-9A-Fa-f]{4}_", 0)
_FLOAT_LIMIT = 2.0**53


def _calamine_table(data: bytes) -> list[list[Any]] | None:
    """The first worksheet by python-calamine, with openpyxl's values; ``None`` when calamine
    is not installed, cannot read the file, or a cell may not come out as openpyxl's."""
    try:
        from python_calamine import CalamineWorkbook
    except ImportError:
        return None
    if _needs_openpyxl(data):
        return None
    try:
        book = CalamineWorkbook.from_filelike(io.BytesIO(data))
        sheets = [m.name for m in book.sheets_metadata if str(m.typ).endswith("WorkSheet")]
        if not sheets:
            return None
        rows = book.get_sheet_by_name(sheets[0]).to_python(skip_empty_area=False)
    except Exception:  # damaged, or a feature calamine does not read: openpyxl decides
        return None
    table: list[list[Any]] = []
    for row in rows:
        out: list[Any] = []
        for value in row:
            if isinstance(value, str):
                out.append(value if value else None)
            elif isinstance(value, bool):
                out.append(value)
            elif isinstance(value, float):
                if value.is_integer():
                    if abs(value) >= _FLOAT_LIMIT:
                        return None
                    out.append(int(value))
                else:
                    out.append(value)
            elif isinstance(value, int):
                out.append(value)
            else:  # a date, a time, a duration: openpyxl's types differ
                return None
        table.append(out)
    while table and table[-1] and all(v is None for v in table[-1]):
        table.pop()  # calamine pads with empty rows openpyxl does not return
    return table


def _needs_openpyxl(data: bytes) -> bool:
    """Whether a worksheet holds a cell whose value calamine would not give as openpyxl does."""
    import zipfile

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for info in archive.infolist():
                if info.filename == "xl/sharedStrings.xml":
                    xml = archive.read(info)
                    if not _well_formed(xml) or _pattern("text_differs").search(xml):
                        return True
                elif info.filename.startswith("xl/worksheets/") and info.filename.endswith(".xml"):
                    xml = archive.read(info)
                    if not _well_formed(xml):
                        return True  # calamine reads past mismatched tags: openpyxl names them
                    if (
                        b't="e"' in xml
                        or _pattern("long_int").search(xml)
                        or _pattern("text_differs").search(xml)
                    ):
                        return True  # an error cell; an integer a float may not hold; a text
                    if b"inlineStr" in xml and _pattern("inline_escape").search(xml):
                        return True  # an escape openpyxl leaves in an inline string
                    for m in _pattern("decimal").finditer(xml):
                        if float(m.group(1)).is_integer():
                            return True  # openpyxl's float, calamine's (made) int
    except Exception:  # a damaged archive: openpyxl reads it or names the fault
        return True
    return False


def _well_formed(xml: bytes) -> bool:
    """Whether *xml* parses (expat, no handlers). calamine accepts a closing tag that does not
    match its opening one (one flipped bit in a damaged file), and would read on silently."""
    from xml.parsers import expat

    try:
        expat.ParserCreate().Parse(xml, True)
    except expat.ExpatError:
        return False
    return True


def _openpyxl_table(name: str, data: bytes) -> list[list[Any]]:
    try:
        import openpyxl
    except ImportError:
        from ..core.exceptions import MissingDependencyError
        from ..core.extras import install_hint

        raise MissingDependencyError(
            f"{name}: reading .xlsx needs openpyxl: {install_hint('xlsx')}"
        ) from None
    import warnings

    with warnings.catch_warnings():
        # openpyxl warns of styles and extensions it ignores; they do not change a cell
        warnings.simplefilter("ignore")
        try:
            book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        except Exception as exc:  # openpyxl raises many types for a damaged file
            raise InputError(f"{name}: not a readable .xlsx workbook ({_reason(exc)})") from None
        try:
            sheet = book.worksheets[0]
            # the sheet's XML is parsed while the rows are read: a damaged member fails here
            return [list(r) for r in sheet.iter_rows(values_only=True)]
        except Exception as exc:
            raise InputError(
                f"{name}: not a readable .xlsx workbook: its first sheet is damaged "
                f"({_reason(exc)})"
            ) from None
        finally:
            book.close()


def _reason(exc: BaseException) -> str:
    """A one-line reason: the exception's type and message."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


_PARSERS = {
    "json": _parse_json,
    "jsonl": lambda n, d, s, k: _parse_json(n, d, s, k, jsonl=True),
    "csv": lambda n, d, s, k: _parse_delimited(n, d, s, k, ","),
    "tsv": lambda n, d, s, k: _parse_delimited(n, d, s, k, "\t"),
    "xlsx": _parse_xlsx,
}


def parse_list_cell(value: Any, where: str) -> list[str]:
    """A ground-truth cell that holds several answers, as VLMEvalKit writes them.

    VLMEvalKit writes a list of answers as a Python literal in a string
    (``"['dakota', 'dakota digital']"``); it is parsed as a literal, never evaluated. A plain
    string that does not start with ``[`` is one answer. Anything else is an
    :class:`InputError` naming *where*.
    """
    if isinstance(value, list | tuple):
        items = list(value)
    elif isinstance(value, str) and value.lstrip().startswith("["):
        try:
            items = _list_literal(value.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            raise InputError(
                f"{where}: answer cell is not a valid list literal: {value[:80]!r}"
            ) from None
        if not isinstance(items, list):
            raise InputError(f"{where}: answer cell is not a list: {value[:80]!r}")
    elif isinstance(value, str):
        return [value]
    elif isinstance(value, int | float) and not isinstance(value, bool):
        return [_number_text(value)]
    else:
        raise InputError(f"{where}: answer cell is {type(value).__name__}, expected text")
    out = []
    for item in items:
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, int | float) and not isinstance(item, bool):
            out.append(_number_text(item))
        else:
            raise InputError(f"{where}: answer list holds {type(item).__name__}, expected text")
    return out


# a list of quoted texts as Python's repr writes it, each text free of what a literal could
# escape or refuse (a backslash, its own quote, a line break, a null, a lone surrogate): its
# value is then the characters between the quotes, as ast.literal_eval would give
_PLAIN = r"[^{q}\\\n\r\x00\ud800-\udfff]*"
_QUOTED = f"'{_PLAIN.format(q=chr(39))}'|\"{_PLAIN.format(q=chr(34))}\""
_PATTERNS["repr_list"] = (f"\\[(?:(?:{_QUOTED})(?:, (?:{_QUOTED}))*)?\\]", 0)
_PATTERNS["repr_item"] = (_QUOTED, 0)


def _list_literal(text: str) -> Any:
    """``ast.literal_eval(text)``, read directly when *text* is a plain list of quoted texts
    (every VLMEvalKit answer cell, about 15× faster), else by ``ast``."""
    if _pattern("repr_list").fullmatch(text):
        return [item[1:-1] for item in _pattern("repr_item").findall(text)]
    import ast

    return ast.literal_eval(text)


def _number_text(value: int | float) -> str:
    """A number cell as the text a spreadsheet shows (``12.0`` → ``12``)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def field_value(value: Any, where: str, column: str, *, allow_bool: bool = False) -> Any:
    """A row's *column* kept as an item field (a split, a category: a key of the breakdowns,
    or of a pairing), unchanged: text, a number, or ``None`` when absent — the one rule for
    such keys (:func:`~vqametrics.readers.cells.group_text` is its text form); *allow_bool*
    for a field that is a verdict.

    Anything else is an error naming the row, never a key made of its ``str()``: ``true``,
    a list or an object (which JSON can hold) would be a group of its own in Python's
    spelling, and a spreadsheet's date cell would become ``2024-03-01 00:00:00`` whatever
    the sheet shows (its display format is not in the file's values)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        if allow_bool:
            return value
    elif isinstance(value, int | float) or _is_real(value):
        return value
    raise _key_error(value, where, column)


def _is_real(value: Any) -> bool:
    """A number of another library (numpy's ``int64`` in a list of dicts built by hand)."""
    import numbers

    return isinstance(value, numbers.Real)


def _key_error(value: Any, where: str, column: str) -> InputError:
    """The error for a key cell of a type no key is made of (see :func:`field_value`)."""
    import datetime

    name = column_name(where, column)
    if isinstance(value, datetime.date | datetime.time | datetime.timedelta):
        return InputError(
            f"{where}: {name!r} is a date or time cell ({value}), expected text or a number: "
            "its text depends on the sheet's display format; format the column as text, or "
            "save the sheet as CSV"
        )
    shown = str(value)[:40]
    return InputError(
        f"{where}: {name!r} is {type(value).__name__} ({shown}), expected text or a number"
    )


def cell_text(value: Any, where: str, *, column: str, allow_missing: bool = False) -> str | None:
    """A text cell (a prediction or an answer); numbers are read as the text they show.

    An empty spreadsheet cell is ``None``; that is an error unless *allow_missing*.
    """
    if value is None or (isinstance(value, float) and value != value):
        if allow_missing:
            return None
        name = column_name(where, column)
        note = getattr(where, "notes", {}).get(name)
        if note is not None:  # not empty in the sheet: say what it is
            raise InputError(f"{where}: column {name!r} has no value: the cell is {note}")
        raise InputError(f"{where}: column {name!r} is empty")
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _number_text(value)
    raise InputError(
        f"{where}: column {column_name(where, column)!r} holds {type(value).__name__}, "
        "expected text"
    )
