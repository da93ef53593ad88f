"""Issues 22/23, spreadsheets: python-calamine reads ``.xlsx`` with every cell value openpyxl
gives (openpyxl stays the reference and the fallback), and a damaged member inside a valid
workbook is one line naming the file, never an XML ``ParseError``."""

from __future__ import annotations

import datetime as dt
import io
import re
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from vqametrics import InputError
from vqametrics.readers import records
from vqametrics.readers.records import read_records

openpyxl = pytest.importorskip("openpyxl")
pytest.importorskip("python_calamine")


def _same(a: list[list[Any]], b: list[list[Any]]) -> list[tuple[int, int, Any, Any]]:
    """The cells where the two tables differ in value or type (a missing cell included)."""
    out = []
    for i in range(max(len(a), len(b))):
        ra = a[i] if i < len(a) else []
        rb = b[i] if i < len(b) else []
        for j in range(max(len(ra), len(rb))):
            x = ra[j] if j < len(ra) else "<absent>"
            y = rb[j] if j < len(rb) else "<absent>"
            if type(x) is not type(y) or x != y:
                out.append((i, j, x, y))
    return out


def _book(rows: list[list[Any]]) -> bytes:
    wb = openpyxl.Workbook()
    ws = wb.active
    for row in rows:
        ws.append(row)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


@pytest.mark.shared
@pytest.mark.slow
def test_every_shared_sheet_reads_as_openpyxl_reads_it(shared_data: Path) -> None:
    sheets = sorted(shared_data.rglob("*.xlsx"))
    assert sheets, "no .xlsx in the shared data"
    for path in sheets:
        data = path.read_bytes()
        reference = records._openpyxl_table(str(path), data)
        fast = records._calamine_table(data)
        assert fast is not None, f"{path}: calamine was not used"
        assert _same(reference, fast) == [], path
        # and what the readers see (header, rows, empty cells as None)
        assert read_records(path).rows == records._table_records(str(path), reference, "xlsx").rows


@pytest.mark.parametrize(
    "rows",
    [
        [["id", "prediction", "answer"], [1, "two", "2"], [2, None, "x"], [3, 4, 4.5]],
        [["id", "v"], [1, 1.0], [2, 2.5]],  # a float written so that openpyxl reads 1.0?
        [["id", "v"], [1, 2**60], [2, 12345678901234567]],  # beyond a float's integers
        [["id", "v"], [1, True], [2, False]],
        [["id", "v"], [1, dt.datetime(2024, 5, 1, 12, 30)], [2, dt.date(2024, 1, 2)]],
        [["id", "v"], [1, "=1+1"], [2, "x"]],  # a formula with no cached value
        [["id", "v"], [1, 1e-7], [2, -0.0], [3, 1e22]],
        [["id", "v"], [1, ""], [2, " "], [3, "0"]],
    ],
)
def test_the_fast_reader_gives_openpyxls_values(rows: list[list[Any]], tmp_path: Path) -> None:
    data = _book(rows)
    reference = records._openpyxl_table("x.xlsx", data)
    path = tmp_path / "x.xlsx"
    path.write_bytes(data)
    got = read_records(path).rows
    assert got == records._table_records("x.xlsx", reference, "xlsx").rows
    table = records._calamine_table(data)
    if table is not None:  # calamine used: cell for cell as openpyxl
        assert _same(reference, table) == []


def test_without_calamine_openpyxl_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "x.xlsx"
    path.write_bytes(_book([["id", "answer"], [1, "a"], [2, 3]]))
    monkeypatch.setitem(sys.modules, "python_calamine", None)  # the import fails
    assert records._calamine_table(path.read_bytes()) is None
    assert read_records(path).rows == [{"id": 1, "answer": "a"}, {"id": 2, "answer": 3}]


def _corrupt(data: bytes, member: str, tag: bytes) -> bytes:
    """*data* with one bit flipped in a closing *tag* in the middle of *member* (the zip
    itself stays valid; the XML no longer is: its tags do not match)."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info)
            if info.filename == member:
                at = body.index(tag, len(body) // 2) + 2  # the first letter of the name
                body = body[:at] + bytes([body[at] ^ 0x01]) + body[at + 1 :]
            dst.writestr(info, body)
    return out.getvalue()


def _shared_strings_book(rows: list[list[Any]]) -> bytes:
    """A workbook whose text sits in xl/sharedStrings.xml (as Excel and pandas write it):
    openpyxl writes inline strings, so the sheet is rewritten to point into a string table."""
    strings: list[str] = []
    sheet = ["<sheetData>"]
    for r, row in enumerate(rows, 1):
        sheet.append(f'<row r="{r}">')
        for c, value in enumerate(row):
            ref = f"{'AB'[c]}{r}"
            if isinstance(value, str):
                strings.append(value)
                sheet.append(f'<c r="{ref}" t="s"><v>{len(strings) - 1}</v></c>')
            else:
                sheet.append(f'<c r="{ref}"><v>{value}</v></c>')
        sheet.append("</row>")
    sheet.append("</sheetData>")
    base = zipfile.ZipFile(io.BytesIO(_book([["x"]])))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in base.infolist():
            body = base.read(info)
            if info.filename == "xl/worksheets/sheet1.xml":
                head, rest = body.split(b"<sheetData>", 1)
                head = re.sub(
                    rb'<dimension ref="[^"]*"', f'<dimension ref="A1:B{len(rows)}"'.encode(), head
                )
                body = head + "".join(sheet).encode() + rest.split(b"</sheetData>", 1)[1]
            elif info.filename == "[Content_Types].xml":
                body = body.replace(
                    b"</Types>",
                    b'<Override PartName="/xl/sharedStrings.xml" ContentType="application/'
                    b'vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
                    b"</Types>",
                )
            elif info.filename == "xl/_rels/workbook.xml.rels":
                body = body.replace(
                    b"</Relationships>",
                    b'<Relationship Id="rIdS" Type="http://schemas.openxmlformats.org/'
                    b'officeDocument/2006/relationships/sharedStrings" '
                    b'Target="sharedStrings.xml"/></Relationships>',
                )
            dst.writestr(info, body)
        items = "".join(f"<si><t>{t}</t></si>" for t in strings)
        dst.writestr(
            "xl/sharedStrings.xml",
            '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
            f'count="{len(strings)}" uniqueCount="{len(strings)}">{items}</sst>',
        )
    return out.getvalue()


ROWS = [["id", "prediction"], *([i, f"answer number {i}"] for i in range(50))]


def test_the_shared_strings_book_reads() -> None:
    table = records._openpyxl_table("s.xlsx", _shared_strings_book(ROWS))
    assert table == ROWS  # the fixture is a valid workbook before it is damaged


@pytest.mark.parametrize(
    ("member", "tag"), [("xl/worksheets/sheet1.xml", b"</row>"), ("xl/sharedStrings.xml", b"</si>")]
)
def test_a_damaged_member_is_one_line_naming_the_file(
    member: str, tag: bytes, tmp_path: Path
) -> None:
    # the audit: a bit-flipped member inside a valid .xlsx raised xml.etree's ParseError
    path = tmp_path / "broken.xlsx"
    path.write_bytes(_corrupt(_shared_strings_book(ROWS), member, tag))
    with pytest.raises(InputError) as err:
        read_records(path)
    message = str(err.value)
    assert message.startswith(f"{path}: not a readable .xlsx workbook")
    assert "\n" not in message


def _pope_sheet(tmp_path: Path) -> Path:
    """A VLMEvalKit-style sheet whose row 3 prediction is a formula never calculated and whose
    rows 4-5 share one merged prediction cell (D4:D5)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["index", "question", "answer", "prediction"])
    ws.append([1, "Is there a dog?", "yes", "yes"])
    ws.append([2, "Is there a cat?", "no", '=CONCAT("n","o")'])  # openpyxl stores no value
    ws.append([3, "Is there a car?", "no", "no"])
    ws.append([4, "Is there a bus?", "no", "no"])
    ws.merge_cells("D4:D5")
    path = tmp_path / "sheet.xlsx"
    wb.save(path)
    return path


def _one_row(rec: records.Records, i: int) -> records.Records:
    return records.Records(
        rec.rows[i : i + 1], rec.source, rec.layout, rec.lines[i : i + 1] if rec.lines else None,
        cell_notes=rec.cell_notes,
    )  # fmt: skip


def test_a_formula_without_a_value_is_named_not_called_empty(tmp_path: Path) -> None:
    from vqametrics.readers.layouts import predictions_from

    rec = read_records(_pope_sheet(tmp_path))
    assert rec.rows[1]["prediction"] is None  # as openpyxl reads it: no stored value
    with pytest.raises(InputError) as err:
        predictions_from(_one_row(rec, 1))
    message = str(err.value)
    assert "row 3: column 'prediction' has no value" in message
    assert "a formula (D3) with no stored value" in message
    assert predictions_from(_one_row(rec, 1), allow_missing_answer=True).texts == [None]


def test_a_merged_cell_is_named_not_called_empty(tmp_path: Path) -> None:
    from vqametrics.readers.layouts import predictions_from

    rec = read_records(_pope_sheet(tmp_path))
    assert predictions_from(_one_row(rec, 2)).texts == ["no"]  # D4 holds the value
    with pytest.raises(InputError, match=r"row 5: .*part of the merged cells D4:D5 \(only D4"):
        predictions_from(_one_row(rec, 3))


def test_a_plain_empty_cell_is_still_empty(tmp_path: Path) -> None:
    from vqametrics.readers.layouts import predictions_from

    path = tmp_path / "plain.xlsx"
    path.write_bytes(_book([["index", "prediction"], [1, None], [2, "x"]]))
    rec = read_records(path)
    assert rec.cell_notes is None
    with pytest.raises(InputError, match=r"row 2: column 'prediction' is empty$"):
        predictions_from(rec)
