"""The hardening audit of issue 22, re-run as a whole: hostile input and misuse for every task.

For every registered task, its small valid input (``tests/contract/fixtures.py``) is turned into
the audit's classes of hostile input — empty, truncated, bit-flipped and binary files, wrong
JSON types, duplicated, missing and extra items, non-string answers, huge fields, NaN/inf,
unicode oddities, the wrong layout, corrupt gzip and xlsx — and into the same data in another
format (which must score the same). Each case runs through ``vqametrics score TASK`` in this
process (``vqametrics.cli.main``, output captured) and through ``vqametrics.evaluate``; the
Python API is also called with wrong types (``score_answer``, ``compute_score`` and every
public callable of ``vqametrics.__all__``, from the baselines of
``tests/test_hardening_22_types.py``). Each case has a time limit (a signal alarm).

Every outcome is classified:

- ``clean-error``: exit 2 with one ``vqametrics: error:`` line, or a ``VqaMetricsError``;
- ``scored``: scored, and what was expected of the numbers holds;
- ``noted``: hostile input scored, with a warning saying so;
- bad: ``traceback`` (an exception out of the CLI), ``foreign-exception`` (the API raised
  something else than the library's errors), ``hang`` (over the time limit), ``silent-wrong``
  (hostile input scored without a word, or numbers that differ from what they must be),
  ``refused`` (valid input given an error), ``poor-error`` (an error that is not one line).

Prints one table per class and per task, then each bad case; exits 1 if there is any.

Usage: ``python benchmarks/audit.py [--task NAME ...] [--class NAME ...] [--sample K]
[--limit S] [--verbose]``
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import gzip
import io
import json
import math
import random
import shutil
import signal
import sys
import tempfile
import time
import warnings
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the contract fixtures: each task's small valid input

from contract.fixtures import FIXTURES, Fixture, Row  # noqa: E402

Expect = Literal["reject", "score", "same", "either"]
GOOD = ("clean-error", "scored", "noted")
BAD = ("traceback", "foreign-exception", "hang", "silent-wrong", "refused", "poor-error")
OUTCOMES = GOOD + BAD
HUGE = 200 * 1024  # past the csv module's default field limit (128 KiB)
SEED = 22


class Hang(BaseException):
    """The case ran over its time limit (a BaseException: no ``except Exception`` eats it)."""


@dataclass(frozen=True)
class Inputs:
    """What one case gives the scorer: the results file, the ground truth, the options."""

    results: str
    annotations: str | None = None
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Case:
    """One hostile input (or misuse) of one task and what a correct scorer does with it.

    ``expect``: ``reject`` (a clean error), ``score`` (scored, with ``n_delta`` more items than
    the fixture when it is set), ``same`` (the fixture's numbers exactly), ``either`` (a clean
    error or a score with finite numbers).
    """

    task: str
    cls: str
    name: str
    expect: Expect
    make: Callable[[Path], Inputs] | None = None
    call: Callable[[], Any] | None = None  # an API misuse instead of a file
    n_delta: int | None = None
    api: bool = True
    #: for ``either``: when it scores, the fixture's numbers exactly (the same data)
    same_if_scored: bool = False
    #: the command prints its JSON document (``--json``); else only its exit code is judged
    json: bool = True


@dataclass
class Outcome:
    case: Case
    via: str  # cli or api
    outcome: str
    detail: str = ""


# --------------------------------------------------------------------------- writing inputs


def _columns(rows: list[Row]) -> list[str]:
    cols: list[str] = []
    for row in rows:
        cols += [c for c in row if c not in cols]
    return cols


def _cell(value: Any) -> str:
    if value is None:
        return ""
    return (
        value
        if isinstance(value, str)
        else json.dumps(value)
        if isinstance(value, list | dict)
        else str(value)
    )


def delimited(rows: list[Row], delimiter: str = "\t") -> bytes:
    """*rows* as a sheet's text (tab- or comma-separated)."""
    out = io.StringIO()
    w = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    cols = _columns(rows)
    w.writerow(cols)
    for row in rows:
        w.writerow([_cell(row.get(c)) for c in cols])
    return out.getvalue().encode("utf-8")


def jsonl(rows: list[Row]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode("utf-8")


def _numeric(value: Any) -> Any:
    """The value a spreadsheet holds for a cell: numbers as numbers (as pandas writes them)."""
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            try:
                number = float(value)
            except ValueError:
                return value
            return number if math.isfinite(number) else value
    return value


def xlsx(rows: list[Row]) -> bytes:
    """*rows* as a workbook; columns whose every value is a number hold numbers."""
    import openpyxl

    cols = _columns(rows)
    numeric = {
        c
        for c in cols
        if all(isinstance(_numeric(r.get(c)), int | float) for r in rows if r.get(c) is not None)
    }
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(cols)
    for row in rows:
        cells = [row.get(c) for c in cols]
        sheet.append(
            [_numeric(v) if c in numeric else _cell(v) for c, v in zip(cols, cells, strict=True)]
        )
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def native(fx: Fixture, rows: list[Row]) -> tuple[str, bytes]:
    """The fixture's own format: (suffix, bytes)."""
    return (".jsonl", jsonl(rows)) if fx.format == "jsonl" else (".tsv", delimited(rows))


def _rewrite_member(
    data: bytes, member: str | None, edit: Callable[[bytes], bytes | None]
) -> bytes:
    """The workbook *data* with one member edited (None: removed); the zip itself stays valid."""
    src = zipfile.ZipFile(io.BytesIO(data))
    name = member or next(n for n in src.namelist() if n.startswith("xl/worksheets/"))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info.filename)
            if info.filename == name:
                edited = edit(body)
                if edited is None:
                    continue
                body = edited
            dst.writestr(info.filename, body)
    return out.getvalue()


def flip(data: bytes, position: int, bit: int = 0x01) -> bytes:
    position %= max(len(data), 1)
    return data[:position] + bytes([data[position] ^ bit]) + data[position + 1 :] if data else data


# --------------------------------------------------------------------------- the cases


class Builder:
    """The cases of one task, built from its fixture."""

    def __init__(self, task: str, fx: Fixture, others: dict[str, Fixture]) -> None:
        self.task, self.fx, self.others = task, fx, others
        self.rows = [dict(r) for r in fx.rows]
        self.idc, self.pc = fx.id_column, fx.prediction_column
        self.cases: list[Case] = []
        self.rng = random.Random(f"{SEED}:{task}")

    # ---- helpers

    def files(
        self,
        suffix: str,
        data: bytes,
        annotations: bytes | None = None,
        annotations_suffix: str | None = None,
        **options: Any,
    ) -> Callable[[Path], Inputs]:
        """A maker writing *data* as the results file (named as the fixture's), and
        *annotations* (when given) as the ground truth (named as the fixture's)."""
        fx = self.fx

        def make(folder: Path) -> Inputs:
            results = folder / f"{fx.name}{suffix}"
            results.write_bytes(data)
            ann = fx.annotations(folder) if fx.annotations else None
            if annotations is not None and ann is not None:
                if annotations_suffix is not None:
                    ann.unlink()
                    ann = ann.with_suffix(annotations_suffix)
                ann.write_bytes(annotations)
            return Inputs(str(results), ann and str(ann), options)

        return make

    def add(
        self, cls: str, name: str, expect: Expect, make: Callable[[Path], Inputs], **kw: Any
    ) -> None:
        self.cases.append(Case(self.task, cls, name, expect, make, **kw))

    def rows_case(self, cls: str, name: str, expect: Expect, rows: list[Row], **kw: Any) -> None:
        options = kw.pop("options", {})
        self.add(cls, name, expect, self.files(*native(self.fx, rows), **options), **kw)

    def native_bytes(self) -> tuple[str, bytes]:
        return native(self.fx, self.rows)

    def with_(self, i: int, **changes: Any) -> list[Row]:
        rows = [dict(r) for r in self.rows]
        rows[i].update(changes)
        return rows

    @property
    def last(self) -> int:
        """The row whose prediction the cases change: the last (POPE's fixture needs its first
        'yes' in each split, without which the official script divides by zero)."""
        return len(self.rows) - 1

    @property
    def extract_applies(self) -> bool:
        from vqametrics.tasks import get_task

        return bool(get_task(self.task).extract_applies)

    @property
    def answer_column(self) -> str | None:
        return next((c for c in ("answer", "gt_answer") if c in self.rows[0]), None)

    @property
    def empty_scored(self) -> bool:
        return self.fx.empty_prediction == "scored"

    @property
    def embedded(self) -> bool:
        """The results carry their ground truth (no separate annotations)."""
        return self.fx.annotations is None

    def annotation_bytes(self, edit: Callable[[list[Row]], list[Row]]) -> bytes | None:
        """The fixture's annotation sheet with its rows edited (None: no annotations)."""
        rows = self.annotation_rows()
        return None if rows is None else delimited(edit(rows))

    def annotation_rows(self) -> list[Row] | None:
        """The rows of the fixture's annotation sheet (None: no annotations)."""
        if self.fx.annotations is None:
            return None
        folder = Path(tempfile.mkdtemp(prefix="vqm-audit-ann-"))
        try:
            path = self.fx.annotations(folder)
            with path.open(encoding="utf-8", newline="") as f:
                rows: list[Row] = list(csv.DictReader(f, delimiter="\t"))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return rows

    # ---- the classes

    def build(self) -> list[Case]:
        for method in (
            self.same_data,
            self.broken_files,
            self.json_types,
            self.non_string_answers,
            self.duplicates,
            self.missing,
            self.extra,
            self.huge,
            self.nan_inf,
            self.unicode,
            self.wrong_layout,
            self.gzip_corrupt,
            self.xlsx_corrupt,
            self.paths,
        ):
            method()
        return self.cases

    def same_data(self) -> None:
        """The fixture in every format a toolkit writes it in: the fixture's numbers."""
        rows = self.rows
        self.rows_case("same-data", "native", "same", rows)
        self.rows_case("same-data", "reversed rows", "same", rows[::-1])
        self.rows_case(
            "same-data", "an unknown extra column", "same", [r | {"zz_note": "x"} for r in rows]
        )
        if self.fx.format == "tsv":
            self.add("same-data", "as csv", "same", self.files(".csv", delimited(rows, ",")))
            self.add(
                "same-data", "as xlsx (numbers as numbers)", "same", self.files(".xlsx", xlsx(rows))
            )
        else:
            self.add(
                "same-data",
                "as a json list",
                "same",
                self.files(".json", json.dumps(rows).encode()),
            )
        flipped = [r | {self.idc: _flip_id(r[self.idc])} for r in rows]
        if self.fx.format == "tsv":  # JSON of a sheet: read the same if it is read at all
            for label, body in (("as jsonl", rows), ("ids of the other type (jsonl)", flipped)):
                made = self.files(".jsonl", jsonl(body))
                self.add("same-data", label, "either", made, same_if_scored=True)
        else:
            self.rows_case("same-data", "ids of the other type", "same", flipped)
        renamed = [{("zz_pred" if k == self.pc else k): v for k, v in r.items()} for r in rows]
        self.rows_case(
            "same-data",
            "--answer-field zz_pred",
            "same",
            renamed,
            options={"answer_field": "zz_pred"},
        )
        renamed = [{("zz_id" if k == self.idc else k): v for k, v in r.items()} for r in rows]
        self.rows_case(
            "same-data", "--id-field zz_id", "same", renamed, options={"id_field": "zz_id"}
        )
        truth = self.annotation_rows()
        if truth is not None:
            for suffix, body in ((".csv", delimited(truth, ",")), (".xlsx", xlsx(truth))):
                self.add(
                    "same-data",
                    f"the ground truth as {suffix[1:]}",
                    "same",
                    self.files(*self.native_bytes(), body, annotations_suffix=suffix),
                )
            self.add(
                "same-data",
                "ground truth xlsx, results jsonl with text ids",
                "same",
                self.files(".jsonl", jsonl(flipped), xlsx(truth), annotations_suffix=".xlsx"),
            )

    def broken_files(self) -> None:
        suffix, data = self.native_bytes()
        add = self.add
        add("empty", "0 bytes", "reject", self.files(suffix, b""))
        add("empty", "blank lines", "reject", self.files(suffix, b"\n\n  \n"))
        header = data.split(b"\n", 1)[0] + b"\n" if suffix == ".tsv" else b"[]"
        add("empty", "header only / []", "reject", self.files(suffix, header))
        for frac in (0.5, 0.9):
            cut = int(len(data) * frac)
            add("truncated", f"cut at {frac:.0%}", "either", self.files(suffix, data[:cut]))
        add("truncated", "last 3 bytes cut", "either", self.files(suffix, data[:-3]))
        for k in range(4):
            position = self.rng.randrange(len(data))
            add(
                "bit-flip",
                f"byte {position} bit {k}",
                "either",
                self.files(suffix, flip(data, position, 1 << k)),
            )
        add(
            "bit-flip",
            "high bit (invalid UTF-8)",
            "either",
            self.files(suffix, flip(data, len(data) // 2, 0x80)),
        )
        noise = bytes(self.rng.randrange(256) for _ in range(4096))
        add("binary", "4 KiB of noise", "reject", self.files(suffix, noise))
        add("binary", "a PNG", "reject", self.files(suffix, b"\x89PNG\r\n\x1a\n" + noise[:512]))
        add("binary", "NUL bytes", "reject", self.files(suffix, b"\x00" * 1024))

    def json_types(self) -> None:
        """Every field of the JSON lines of the fixture given a value of a wrong type."""
        for column in _columns(self.rows):
            if column == self.pc:
                continue  # non_string_answers
            for label, value in (
                ("null", None),
                ("true", True),
                ("a float", 2.5),
                ("a list", ["x"]),
                ("an object", {"a": 1}),
            ):
                rows = self.with_(0, **{column: value})
                expect: Expect = "reject" if column == self.idc else "either"
                self.add(
                    "json-types", f"{column} = {label}", expect, self.files(".jsonl", jsonl(rows))
                )

    def non_string_answers(self) -> None:
        for label, value in (
            ("an int", 1),
            ("a float", 2.5),
            ("true", True),
            ("null", None),
            ("a list", ["A"]),
            ("an object", {"a": "b"}),
        ):
            rows = self.with_(0, **{self.pc: value})
            expect: Expect = "either" if value is None and self.empty_scored else "reject"
            self.add(
                "non-string", f"prediction = {label}", expect, self.files(".jsonl", jsonl(rows))
            )

    def duplicates(self) -> None:
        rows = self.rows
        dup = [*rows, dict(rows[0])]
        self.rows_case("duplicated", "a repeated row", "reject", dup)
        self.rows_case(
            "duplicated",
            "a repeated row, --on-duplicate last",
            "same",
            dup,
            options={"on_duplicate": "last"},
        )
        changed = [*rows, rows[0] | {self.pc: "zzz"}]
        self.rows_case("duplicated", "the same id, another prediction", "reject", changed)
        suffix, data = self.native_bytes()
        self.add("duplicated", "cat file file", "reject", self.files(suffix, data + data))
        other = [*rows, rows[0] | {self.idc: _flip_id(rows[0][self.idc])}]
        self.add(
            "duplicated",
            "the id once as int, once as str",
            "reject",
            self.files(".jsonl", jsonl(other)),
        )
        if self.fx.format == "tsv":
            self.add(
                "duplicated",
                "a repeated sheet row (xlsx)",
                "reject",
                self.files(".xlsx", xlsx(dup)),
            )
        ann = self.annotation_bytes(lambda r: [*r, dict(r[0])])
        if ann is not None:
            self.add(
                "duplicated", "a repeated ground-truth row", "reject", self.files(suffix, data, ann)
            )

    def missing(self) -> None:
        rows = self.rows
        blank = self.with_(self.last, **{self.pc: ""})
        self.rows_case(
            "missing",
            "an empty prediction",
            "score" if self.empty_scored else "reject",
            blank,
            n_delta=0,
        )
        self.rows_case(
            "missing",
            "an empty prediction, --allow-missing",
            "score",
            blank,
            n_delta=0,
            options={"allow_missing": True},
        )
        self.rows_case(
            "missing",
            "no prediction column",
            "reject",
            [{k: v for k, v in r.items() if k != self.pc} for r in rows],
        )
        self.rows_case("missing", "an empty id", "reject", self.with_(1, **{self.idc: ""}))
        if not self.embedded:
            self.rows_case("missing", "a results row missing", "reject", rows[1:])
            self.rows_case(
                "missing",
                "a results row missing, --allow-missing",
                "score",
                rows[1:],
                n_delta=0,
                options={"allow_missing": True},
            )

    def extra(self) -> None:
        rows = self.rows
        unknown = rows[0] | {self.idc: _unused_id(rows, self.idc)}
        if not self.embedded:
            self.rows_case("extra", "a prediction for an unknown id", "reject", [*rows, unknown])
            self.rows_case(
                "extra",
                "an unknown id, --ignore-extra",
                "same",
                [*rows, unknown],
                options={"ignore_extra": True},
            )
        elif self.answer_column:
            self.rows_case(
                "extra",
                "an item without ground truth",
                "either",
                [*rows, unknown | {self.answer_column: ""}],
                n_delta=1,
            )

    def huge(self) -> None:
        big = "".join(self.rng.choice("abcdefghij klmnop") for _ in range(HUGE))
        rows = self.rows
        for fmt, write in (("tsv", delimited), ("csv", lambda r: delimited(r, ","))):
            if self.fx.format != "tsv":
                break
            suffix = f".{fmt}"
            self.add(
                "huge",
                f"200 KiB in another column ({fmt})",
                "same",
                self.files(suffix, write([r | {"zz_note": big} for r in rows])),
            )
            self.add(
                "huge",
                f"a 200 KiB prediction ({fmt})",
                "score",
                self.files(suffix, write(self.with_(self.last, **{self.pc: big}))),
                n_delta=0,
            )
        if self.fx.format == "jsonl":
            self.rows_case(
                "huge",
                "a 200 KiB prediction",
                "score",
                self.with_(self.last, **{self.pc: big}),
                n_delta=0,
            )
        if self.answer_column:
            self.rows_case(
                "huge",
                "a 200 KiB ground truth",
                "either",
                self.with_(0, **{self.answer_column: big}),
                n_delta=0,
            )
        self.rows_case(
            "huge",
            "a 2 MiB prediction",
            "score",
            self.with_(self.last, **{self.pc: big * 10}),
            n_delta=0,
        )
        looping = "<think>" + "wait, " * 200_000 + "</think> The answer is A."
        extract = {"extract": "answer"} if self.extract_applies else {}
        self.rows_case(
            "huge",
            f"a 1 MiB looping rollout{', --extract answer' if extract else ''}",
            "score",
            self.with_(self.last, **{self.pc: looping}),
            n_delta=0,
            options=extract,
        )
        many = [r | {f"c{k}": "x" for k in range(3000)} for r in rows]
        self.rows_case("huge", "3000 extra columns", "same", many)

    def nan_inf(self) -> None:
        for text in ("nan", "NaN", "inf", "-Infinity"):
            self.rows_case(
                "nan-inf",
                f"prediction text {text!r}",
                "either",
                self.with_(0, **{self.pc: text}),
                n_delta=0,
            )
        rest = jsonl(self.rows[1:]).decode()
        for token in ("NaN", "Infinity"):
            for what, column in (("prediction", self.pc), ("id", self.idc)):
                body = _json_with_token(self.rows[0], column, token) + "\n" + rest
                made = self.files(".jsonl", body.encode())
                self.add("nan-inf", f"{what} {token} (json)", "reject", made)
        for column in _numeric_columns(self.rows, exclude={self.idc, self.pc}):
            for text in ("nan", "inf", "1e999"):
                self.rows_case(
                    "nan-inf",
                    f"{column} = {text}",
                    "either",
                    self.with_(0, **{column: text}),
                    n_delta=0,
                )

    def unicode(self) -> None:
        suffix, data = self.native_bytes()
        self.add("unicode", "UTF-8 BOM", "same", self.files(suffix, b"\xef\xbb\xbf" + data))
        self.add(
            "unicode", "CRLF line ends", "same", self.files(suffix, data.replace(b"\n", b"\r\n"))
        )
        for label, text in (
            ("zero-width and RTL marks", "\u200b\u200f\u202ecat\u2066"),
            ("combining marks", "c\u0301a\u0308t"),
            ("emoji", "\U0001f408 cat"),
            ("a lone surrogate escape", "\ud800"),
            ("a NUL", "ca\x00t"),
            ("a vertical tab and form feed", "ca\x0bt\x0c"),
        ):
            rows = self.with_(0, **{self.pc: text})
            # csv before Python 3.11 cannot write a NUL (nor read one: "line contains NUL")
            no_csv = "\ud800" in text or ("\x00" in text and sys.version_info < (3, 11))
            if self.fx.format == "jsonl" or no_csv:
                data_ = "".join(json.dumps(r) + "\n" for r in rows).encode("utf-8")
                self.add("unicode", label, "either", self.files(".jsonl", data_), n_delta=0)
            else:
                self.rows_case("unicode", label, "either", rows, n_delta=0)
        text = data.decode("utf-8")
        self.add("unicode", "UTF-16 with BOM", "either", self.files(suffix, text.encode("utf-16")))
        accented = text.replace("question", "qu\xe9stion")
        self.add(
            "unicode", "Latin-1 bytes", "either", self.files(suffix, accented.encode("latin-1"))
        )
        self.rows_case(
            "unicode",
            "full-width digits in an id",
            "either",
            self.with_(0, **{self.idc: "\uff11\uff10"}),
        )

    def wrong_layout(self) -> None:
        for other, fx in self.others.items():
            if other == self.task:
                continue
            suffix, data = native(fx, fx.rows)
            self.add(
                "wrong-layout",
                f"the {other} fixture",
                "either",
                self.files(suffix, data),
                api=False,
            )
        suffix, data = self.native_bytes()
        for layout in (
            "official",
            "llava",
            "vlmevalkit",
            "lmms-eval",
            "gqa",
            "docvqa",
            "vizwiz",
            "json",
            "xlsx",
        ):
            self.add(
                "wrong-layout",
                f"--input-format {layout}",
                "either",
                self.files(suffix, data, format=layout),
            )
        for label, body in (
            ("a JSON number", b"3"),
            ("a JSON string", b'"x"'),
            ("JSON null", b"null"),
            ("a list of lists", b"[[1, 2]]"),
            ("a mapping of ints", b'{"1": 1}'),
        ):
            self.add(
                "wrong-layout",
                label,
                "reject" if label != "a mapping of ints" else "either",
                self.files(".json", body),
            )

    def gzip_corrupt(self) -> None:
        suffix, data = self.native_bytes()
        packed = gzip.compress(data, mtime=0)
        gz = suffix + ".gz"
        self.add("gzip", "gzip of the fixture", "same", self.files(gz, packed))
        self.add("gzip", "gzip twice", "either", self.files(gz, gzip.compress(packed, mtime=0)))
        self.add("gzip", "truncated", "reject", self.files(gz, packed[: len(packed) // 2]))
        self.add(
            "gzip",
            "a flipped payload byte",
            "reject",
            self.files(gz, flip(packed, len(packed) // 2, 0x10)),
        )
        self.add("gzip", "a flipped CRC", "reject", self.files(gz, flip(packed, len(packed) - 6)))
        self.add("gzip", "plain text named .gz", "either", self.files(gz, data))
        self.add("gzip", "only the gzip magic", "reject", self.files(gz, b"\x1f\x8b"))

    def xlsx_corrupt(self) -> None:
        if self.fx.format != "tsv":
            return
        book = xlsx(self.rows)
        add = self.add
        add(
            "xlsx",
            "the first sheet's XML cut in half",
            "reject",
            self.files(".xlsx", _rewrite_member(book, None, lambda b: b[: len(b) // 2])),
        )
        add(
            "xlsx",
            "a flipped bit in the sheet's XML",
            "either",
            self.files(
                ".xlsx", _rewrite_member(book, None, lambda b: flip(b, b.find(b"<row"), 0x02))
            ),
        )
        add(
            "xlsx",
            "no worksheet member",
            "reject",
            self.files(".xlsx", _rewrite_member(book, None, lambda b: None)),
        )
        add(
            "xlsx",
            "a broken workbook.xml",
            "reject",
            self.files(".xlsx", _rewrite_member(book, "xl/workbook.xml", lambda b: b"<not xml")),
        )
        add(
            "xlsx",
            "a broken [Content_Types].xml",
            "either",
            self.files(
                ".xlsx", _rewrite_member(book, "[Content_Types].xml", lambda b: b"\x00\x01")
            ),
        )
        add(
            "xlsx",
            "a bad CRC in the zip",
            "reject",
            self.files(".xlsx", _corrupt_zip_payload(book)),
        )
        add("xlsx", "truncated zip", "reject", self.files(".xlsx", book[: len(book) // 2]))
        add("xlsx", "text named .xlsx", "reject", self.files(".xlsx", self.native_bytes()[1]))
        add("xlsx", "a zip with no workbook", "reject", self.files(".xlsx", _empty_zip()))

    def paths(self) -> None:
        def missing(folder: Path) -> Inputs:
            return Inputs(str(folder / "nope.tsv"))

        def directory(folder: Path) -> Inputs:
            (folder / "d").mkdir()
            return Inputs(str(folder / "d"))

        self.add("paths", "no such file", "reject", missing)
        self.add("paths", "an empty folder", "reject", directory)


def _flip_id(value: Any) -> Any:
    """The id as the other type: 1 -> "1", "1" -> 1 (when it is a number)."""
    if isinstance(value, int):
        return str(value)
    try:
        return int(value)
    except (TypeError, ValueError):
        return value


def _unused_id(rows: list[Row], column: str) -> Any:
    first = rows[0][column]
    if isinstance(first, int):
        return max(int(r[column]) for r in rows) + 100
    return f"{first}_zz_unknown"


def _numeric_columns(rows: list[Row], exclude: set[str]) -> list[str]:
    return [
        c
        for c in _columns(rows)
        if c not in exclude
        and all(isinstance(r.get(c), int | float) and not isinstance(r.get(c), bool) for r in rows)
    ]


def _json_with_token(row: Row, column: str, token: str) -> str:
    """*row* as JSON with *column*'s value the bare token (``NaN``, ``Infinity``)."""
    return json.dumps(row | {column: "__TOKEN__"}).replace('"__TOKEN__"', token)


def _corrupt_zip_payload(book: bytes) -> bytes:
    """*book* with one byte of the worksheet's compressed data changed (its CRC no longer holds)."""
    archive = zipfile.ZipFile(io.BytesIO(book))
    info = next(i for i in archive.infolist() if i.filename.startswith("xl/worksheets/"))
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    return flip(book, start + info.compress_size // 2, 0x20)


def _empty_zip() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("hello.txt", "hi")
    return out.getvalue()


# --------------------------------------------------------------------------- API misuse

#: values of common wrong types for an argument
WRONG: list[Any] = [None, True, 0, 2.5, math.nan, b"x", [1], [None], {"a": 1}, {1, 2}, object()]


def api_cases(task: str) -> list[Case]:
    """score_answer, compute_score and evaluate of *task* with one argument of a wrong type."""
    import vqametrics
    from vqametrics.integrations.rewards import compute_score

    cases = []

    def add(name: str, call: Callable[[], Any], expect: Expect = "either") -> None:
        cases.append(Case(task, "api-types", name, expect, call=call))

    refs = ["a"] * 10
    for v in WRONG:
        add(
            f"score_answer(task, {v!r:.20}, refs)",
            lambda v=v: vqametrics.score_answer(task, v, refs),
            "reject",
        )
        add(
            f"score_answer(task, 'a', {v!r:.20})", lambda v=v: vqametrics.score_answer(task, "a", v)
        )
        add(
            f"score_answer(task, 'a', refs, profile={v!r:.20})",
            lambda v=v: vqametrics.score_answer(task, "a", refs, profile=v),
        )
        add(
            f"compute_score(task, {v!r:.20}, refs)",
            lambda v=v: compute_score(task, v, refs),
            "reject",
        )
        add(
            f"compute_score(task, 'a', {v!r:.20})",
            lambda v=v: compute_score(task, "a", v),
            "either" if isinstance(v, bytes) else "reject",  # bytes: a parquet cell, decoded
        )
        add(
            f"compute_score(task, 'a', refs, {v!r:.20})",
            lambda v=v: compute_score(task, "a", refs, v),
        )
        add(f"evaluate(task, {v!r:.20})", lambda v=v: vqametrics.evaluate(task, v), "reject")
        for option in (
            "allow_missing",
            "on_duplicate",
            "profile",
            "format",
            "id_field",
            "extract",
            "ci",
        ):
            add(
                f"evaluate(task, [], {option}={v!r:.20})",
                lambda v=v, o=option: vqametrics.evaluate(task, [{}], **{o: v}),
                "reject",
            )
    add("compute_score(task, 'a', b'\\xff')", lambda: compute_score(task, "a", b"\xff"), "reject")
    return cases


def public_cases() -> list[Case]:
    """Every public callable of ``vqametrics.__all__`` with one argument of a wrong type, from
    the baselines (and the table of what each argument takes) of the property test."""
    try:
        import test_hardening_22_types as types_test
    except ImportError as exc:  # the test's own dependencies (pytest, hypothesis)
        print(f"(public API sweep skipped: {exc})", file=sys.stderr)
        return []
    cases = []
    for name, param in types_test.PAIRS:
        kind = types_test.BASELINES[name][2][param]
        for value in types_test.HOSTILE:
            if types_test.TAKES[kind](value):
                continue  # a value of a type the argument takes (as the property test skips)
            cases.append(
                Case(
                    "-",
                    "api-public",
                    f"{name}({param}={value!r:.20})",
                    "reject",
                    call=lambda n=name, p=param, v=value: types_test._call(n, p, v),
                )
            )
    return cases


def cli_misuse_cases() -> list[Case]:
    """Wrong option values on the command line (argparse's one error line, exit 2)."""
    cases = []
    fx = FIXTURES["chartqa"]
    make = Builder("chartqa", fx, {}).files(".tsv", delimited(fx.rows))
    for argv in (
        ["--digits", "abc"],
        ["--digits", "99"],
        ["--on-duplicate", "first"],
        ["--profile", "nope"],
        ["--bootstrap", "-1"],
        ["--input-format", "yaml"],
        ["--extract", "nope"],
        ["--format", "pdf"],
        ["--name", "a", "--name", "b"],
        ["--id-field", "nope"],
        ["--answer-field", "nope"],
    ):
        cases.append(
            Case(
                "chartqa",
                "cli-options",
                " ".join(argv),
                "reject",
                make=_with_argv(make, argv),
                api=False,
            )
        )
    hostile = [
        r | {"prediction": f"{r['prediction']} | a\\b & 50% $x_1$ \u202e{{}}"} for r in fx.rows
    ]
    shown = Builder("chartqa", fx, {}).files(".tsv", delimited(hostile))
    for argv in (
        ["--format", "text"],
        ["--format", "csv"],
        ["--format", "markdown"],
        ["--format", "latex"],
        ["--format", "markdown", "--name", "a|b\nc"],
        ["--format", "latex", "--name", "$\\&%_#{}~^"],
        ["--format", "csv", "--name", '"q",\r\n'],
        ["--ci", "--bootstrap", "50", "--format", "text"],
    ):
        cases.append(
            Case("chartqa", "outputs", " ".join(argv), "score", _with_argv(shown, argv), json=False)
        )

    def out_is_a_file(folder: Path) -> Inputs:
        inputs = shown(folder)
        (folder / "taken").write_text("x")
        return Inputs(inputs.results, None, {"argv": ["-o", str(folder / "taken")]})

    def out_twice(folder: Path) -> Inputs:
        inputs = shown(folder)
        (folder / "out").mkdir()
        (folder / "out" / "metrics.json").write_text("{}")
        return Inputs(inputs.results, None, {"argv": ["-o", str(folder / "out")]})

    def out_fresh(folder: Path) -> Inputs:
        inputs = shown(folder)
        return Inputs(inputs.results, None, {"argv": ["-o", str(folder / "new" / "deep")]})

    cases.append(Case("chartqa", "outputs", "-o FILE", "reject", out_is_a_file, api=False))
    cases.append(
        Case("chartqa", "outputs", "-o an existing folder", "either", out_twice, api=False)
    )
    cases.append(Case("chartqa", "outputs", "-o a new folder", "score", out_fresh, api=False))
    return cases


def _with_argv(make: Callable[[Path], Inputs], argv: list[str]) -> Callable[[Path], Inputs]:
    def wrapped(folder: Path) -> Inputs:
        inputs = make(folder)
        return Inputs(inputs.results, inputs.annotations, {"argv": argv})

    return wrapped


# --------------------------------------------------------------------------- running


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    def on_alarm(signum: int, frame: Any) -> None:
        raise Hang

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def cli_argv(task: str, inputs: Inputs, as_json: bool = True) -> list[str]:
    argv = ["score", task, "--results", inputs.results]
    if inputs.annotations:
        argv += ["--annotations", inputs.annotations]
    for key, value in inputs.options.items():
        if key == "argv":
            argv += value
        elif value is True:
            argv.append("--" + key.replace("_", "-"))
        else:
            flag = "--input-format" if key == "format" else "--" + key.replace("_", "-")
            argv += [flag, str(value)]
    return [*argv, "--json"] if as_json else argv


def run_cli(
    task: str, inputs: Inputs, limit: float, as_json: bool = True
) -> tuple[str, int | None, str, str]:
    """(status, exit code, stdout, stderr): status ``ok``, ``traceback`` or ``hang``."""
    from vqametrics.cli import main

    out, err = io.StringIO(), io.StringIO()
    status, code = "ok", None
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), time_limit(limit):
            try:
                code = main(cli_argv(task, inputs, as_json))
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 2
    except Hang:
        status = "hang"
    except Exception as exc:  # an exception out of main: the user sees a traceback
        status, err = "traceback", io.StringIO(f"{type(exc).__name__}: {exc}")
    return status, code, out.getvalue(), err.getvalue()


def _error_lines(stderr: str) -> list[str]:
    return [
        line
        for line in stderr.splitlines()
        if line.strip() and not line.startswith(("warning:", "vqametrics: warning", "usage:", " "))
    ]


#: warnings that are not about the input being wrong (they do not make a hostile input noted)
UNRELATED = ("look verbose",)


def _noted(stderr: str) -> bool:
    return any(
        line.startswith(("warning:", "vqametrics: warning"))
        and not any(u in line for u in UNRELATED)
        for line in stderr.splitlines()
    )


def judge_doc(
    case: Case, doc: dict[str, Any], baseline: dict[str, Any], noted: bool
) -> tuple[str, str]:
    """The outcome of a case that scored, from its JSON document."""
    metrics = doc.get("metrics", {})
    if case.expect == "reject":
        return (
            ("noted", "")
            if noted
            else ("silent-wrong", f"scored n={doc.get('n')} with no error or note")
        )
    if case.expect == "same" or case.same_if_scored:
        differ = [
            k
            for k in set(baseline["metrics"]) | set(metrics)
            if not _close(metrics.get(k), baseline["metrics"].get(k))
        ]
        if differ or doc.get("n") != baseline.get("n"):
            shown = ", ".join(
                f"{k}: {baseline['metrics'].get(k)!r} -> {metrics.get(k)!r}"
                for k in sorted(differ)[:3]
            )
            return (
                "silent-wrong",
                f"not the fixture's numbers (n {baseline.get('n')} -> {doc.get('n')}; {shown})",
            )
        return "scored", ""
    bad = [k for k, v in metrics.items() if isinstance(v, float) and not math.isfinite(v)]
    if bad and not all(
        isinstance(baseline["metrics"].get(k), float) and not math.isfinite(baseline["metrics"][k])
        for k in bad
    ):
        return "silent-wrong", f"non-finite {', '.join(bad[:3])}"
    if case.n_delta is not None and isinstance(baseline.get("n"), int):
        want = baseline["n"] + case.n_delta
        if doc.get("n") != want and not noted:
            return "silent-wrong", f"n={doc.get('n')}, expected {want}, no note"
    return "scored", ""


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)
    return bool(a == b)


def judge_error(case: Case, message: str, lines: int) -> tuple[str, str]:
    if case.expect in ("score", "same"):
        return "refused", message
    if lines != 1:
        return "poor-error", message
    return "clean-error", message


def classify_cli(case: Case, inputs: Inputs, baseline: dict[str, Any], limit: float) -> Outcome:
    status, code, out, err = run_cli(case.task, inputs, limit, case.json)
    if status != "ok":
        return Outcome(case, "cli", status, err.strip()[:300])
    if code == 0 and not case.json:
        if case.expect == "reject":
            return Outcome(case, "cli", "noted" if _noted(err) else "silent-wrong", "exit 0")
        return Outcome(
            case, "cli", "scored" if out.strip() or "-o" in str(inputs.options) else "silent-wrong"
        )
    if code == 0:
        try:
            doc = json.loads(out)
        except ValueError:
            return Outcome(case, "cli", "silent-wrong", "exit 0 without a JSON document")
        outcome, detail = judge_doc(case, doc, baseline, _noted(err))
        return Outcome(case, "cli", outcome, detail)
    lines = _error_lines(err)
    message = lines[-1][:300] if lines else err.strip()[:300]
    if (
        code != 2
        or not lines
        or not lines[-1].startswith(("vqametrics: error:", "vqametrics score: error:"))
    ):
        return Outcome(
            case,
            "cli",
            "poor-error" if case.expect not in ("score", "same") else "refused",
            f"exit {code}: {message}",
        )
    if "usage:" in err and lines[-1].startswith("vqametrics score: error:"):
        return Outcome(
            case, "cli", *judge_error(case, message, 1)
        )  # argparse: usage, then one line
    return Outcome(case, "cli", *judge_error(case, message, len(lines)))


def classify_api(
    case: Case, inputs: Inputs | None, baseline: dict[str, Any], limit: float
) -> Outcome:
    import vqametrics
    from vqametrics.core.exceptions import VqaMetricsError

    try:
        with warnings.catch_warnings(record=True) as caught, time_limit(limit):
            warnings.simplefilter("always")
            if inputs is not None:
                options = {k: v for k, v in inputs.options.items() if k != "argv"}
                value = vqametrics.evaluate(
                    case.task, inputs.results, annotations=inputs.annotations, **options
                )
            else:
                assert case.call is not None
                value = case.call()
    except Hang:
        return Outcome(case, "api", "hang")
    except VqaMetricsError as exc:
        text = str(exc)
        return Outcome(
            case, "api", *judge_error(case, text[:300], 1 if "\n" not in text.strip() else 2)
        )
    except Exception as exc:
        return Outcome(case, "api", "foreign-exception", f"{type(exc).__name__}: {exc}"[:300])
    noted = any(
        issubclass(w.category, vqametrics.VqaMetricsWarning)
        and not any(u in str(w.message) for u in UNRELATED)
        for w in caught
    )
    if inputs is None:
        if case.expect == "reject":
            return Outcome(case, "api", "silent-wrong", f"returned {value!r:.80}")
        return Outcome(case, "api", "scored")
    doc = json.loads(json.dumps(value.as_dict()))
    return Outcome(case, "api", *judge_doc(case, doc, baseline, noted))


def baseline_of(task: str, fx: Fixture, folder: Path) -> dict[str, Any]:
    """The fixture's own JSON document (what ``same`` cases must reproduce)."""
    import vqametrics

    suffix, data = native(fx, fx.rows)
    results = folder / f"{fx.name}{suffix}"
    results.write_bytes(data)
    ann = fx.annotations(folder) if fx.annotations else None
    ev = vqametrics.evaluate(task, str(results), annotations=ann and str(ann))
    doc: dict[str, Any] = json.loads(json.dumps(ev.as_dict()))
    return doc


def all_cases(tasks: list[str]) -> list[Case]:
    cases: list[Case] = []
    for task in tasks:
        cases += Builder(task, FIXTURES[task], FIXTURES).build()
        cases += api_cases(task)
    cases += cli_misuse_cases()
    cases += public_cases()
    return cases


def sample(cases: list[Case], k: int) -> list[Case]:
    """The first *k* cases of every (class, task) pair, rotating over tasks: deterministic."""
    by_class: dict[str, list[Case]] = {}
    for case in cases:
        by_class.setdefault(case.cls, []).append(case)
    out = []
    for group in by_class.values():
        seen: Counter[str] = Counter()
        picked = []
        for case in group:
            if seen[case.task] < 1 and len(picked) < k:
                picked.append(case)
                seen[case.task] += 1
        out += picked
    return out


def run(
    cases: list[Case], limit: float = 20.0, progress: Callable[[Outcome], None] | None = None
) -> list[Outcome]:
    """Every case through the CLI (file cases) and the API; their outcomes."""
    outcomes: list[Outcome] = []
    baselines: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="vqm-audit-") as tmp:
        root = Path(tmp)
        for number, case in enumerate(cases):
            if case.task not in baselines and case.task in FIXTURES:
                base = root / f"base-{case.task}"
                base.mkdir()
                baselines[case.task] = baseline_of(case.task, FIXTURES[case.task], base)
            baseline = baselines.get(case.task, {"metrics": {}})
            results: list[Outcome] = []
            if case.make is not None:
                folder = root / str(number)
                folder.mkdir()
                inputs = case.make(folder)
                results.append(classify_cli(case, inputs, baseline, limit))
                if case.api and "argv" not in inputs.options:
                    results.append(classify_api(case, inputs, baseline, limit))
                shutil.rmtree(folder, ignore_errors=True)
            else:
                results.append(classify_api(case, None, baseline, limit))
            for outcome in results:
                if progress is not None:
                    progress(outcome)
            outcomes += results
    return outcomes


# --------------------------------------------------------------------------- reporting


def table(outcomes: list[Outcome], key: Callable[[Outcome], str], title: str) -> str:
    counts: dict[str, Counter[str]] = {}
    for o in outcomes:
        counts.setdefault(key(o), Counter())[o.outcome] += 1
    width = max([len(title), *map(len, counts)])
    head = f"{title:<{width}} " + " ".join(f"{name[:11]:>11}" for name in OUTCOMES) + "  total"
    lines = [head, "-" * len(head)]
    total: Counter[str] = Counter()
    for name in sorted(counts):
        c = counts[name]
        total.update(c)
        lines.append(
            f"{name:<{width}} "
            + " ".join(f"{c[o]:>11}" for o in OUTCOMES)
            + f"  {sum(c.values()):>5}"
        )
    lines.append(
        f"{'all':<{width}} "
        + " ".join(f"{total[o]:>11}" for o in OUTCOMES)
        + f"  {sum(total.values()):>5}"
    )
    return "\n".join(lines)


def _label(o: Outcome) -> str:
    return f"{o.case.task} / {o.case.cls} / {o.case.name} ({o.via})"


def report(outcomes: list[Outcome]) -> str:
    parts = [
        table(outcomes, lambda o: o.case.cls, "class"),
        table(outcomes, lambda o: o.case.task, "task"),
    ]
    bad = [o for o in outcomes if o.outcome in BAD]
    if bad:
        parts.append(
            f"{len(bad)} bad outcomes:\n"
            + "\n".join(
                f"  [{o.outcome}] {_label(o)} (expected {o.case.expect}): {o.detail}" for o in bad
            )
        )
    return "\n\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--task", action="append", help="only this task (repeat)")
    parser.add_argument("--class", dest="classes", action="append", help="only this class (repeat)")
    parser.add_argument("--sample", type=int, help="only K cases per class (the CI subset)")
    parser.add_argument("--limit", type=float, default=20.0, help="seconds per case (20)")
    parser.add_argument("--verbose", action="store_true", help="print every outcome")
    args = parser.parse_args(argv)
    from vqametrics.tasks import list_tasks

    tasks = args.task or [t.name for t in list_tasks()]
    unknown = sorted(set(tasks) - set(FIXTURES))
    if unknown:
        parser.error(f"no fixture for {', '.join(unknown)}")
    cases = all_cases(tasks)
    if args.classes:
        cases = [c for c in cases if c.cls in args.classes]
    if args.sample:
        cases = sample(cases, args.sample)
    started = time.perf_counter()

    def progress(o: Outcome) -> None:
        if args.verbose:
            print(
                f"{o.outcome:>17}  {_label(o)} {o.detail[:120]}",
                flush=True,
            )

    outcomes = run(cases, args.limit, progress)
    print(report(outcomes))
    print(f"\n{len(cases)} cases, {len(outcomes)} runs in {time.perf_counter() - started:.0f} s")
    return 1 if any(o.outcome in BAD for o in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
