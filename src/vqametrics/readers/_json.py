"""Read JSON and JSONL files with precise, one-line errors."""

from __future__ import annotations

import codecs
import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any

from ..core.exceptions import InputError
from ._paths import path_text

if TYPE_CHECKING:  # imported where used: a command that reads no JSON never loads orjson
    import mmap

    import orjson

__all__ = [
    "Repeat",
    "decode_typed",
    "display_name",
    "json_error_text",
    "member_line",
    "not_utf8_error",
    "object_pairs",
    "parse_json_or_jsonl",
    "read_bytes",
    "read_json_or_jsonl",
    "read_raw",
    "repeated_key",
    "repeated_members",
    "ungzip",
]

#: the first two bytes of a gzip stream: gzip is recognized by content, not by the name
GZIP_MAGIC = b"\x1f\x8b"

PathLike = str | os.PathLike[str]


def display_name(path: PathLike) -> str:
    """How a path is named in messages."""
    return os.fspath(path)


def read_raw(path: PathLike) -> bytes:
    """Read a whole file as stored (no decompression); a missing or empty file is an
    :class:`InputError`."""
    name = display_name(path)
    try:
        with open(path_text(path), "rb") as fh:  # Path(path).read_bytes(), without pathlib
            data = fh.read()
    except FileNotFoundError:
        if name == "-":  # standard input is read once, as the results (read_bytes_from)
            raise InputError(
                "-: no such file: standard input ('-') is read here only for --results (the "
                "predictions); give this file by its path"
            ) from None
        raise InputError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{name}: is a directory, expected a file") from None
    except OSError as exc:
        raise InputError(f"{name}: cannot read: {exc.strerror or exc}") from None
    if is_blank(data):
        raise InputError(f"{name}: file is empty")
    return data


def is_blank(data: bytes) -> bool:
    """``not data.strip()`` without the copy ``strip`` makes of a file that ends with a newline
    (a page-faulted megabyte for each results file): empty, or ASCII whitespace throughout."""
    return not data or data.isspace()


def ungzip(name: str, data: bytes) -> tuple[bytes, bool]:
    """``(data, was_gzip)``: *data* decompressed when it starts with the gzip magic bytes.

    A corrupt or truncated gzip stream, a file named ``.gz`` that is not gzip and one that
    decompresses to nothing are each an :class:`InputError` naming *name*.
    """
    if data[:2] != GZIP_MAGIC:
        if name.endswith(".gz"):
            raise InputError(f"{name}: named .gz but is not gzip-compressed")
        return data, False
    import gzip  # only for gzip input
    import zlib

    try:
        out = gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(f"{name}: not a valid gzip stream ({exc})") from None
    if is_blank(out):
        raise InputError(f"{name}: file is empty (once decompressed)")
    return out, True


def read_bytes(path: PathLike) -> bytes:
    """Read a whole file, decompressed if it is gzip (recognized by its magic bytes); a
    missing, empty, corrupt or truncated file is an :class:`InputError`."""
    return ungzip(display_name(path), read_raw(path))[0]


def read_json_or_jsonl(path: PathLike) -> tuple[Any, list[int] | None]:
    """Parse a JSON document, or JSON Lines (one value per line).

    Returns ``(value, lines)``: for JSONL, *value* is the list of per-line values and *lines*
    their 1-based line numbers; for a JSON document *lines* is ``None``.
    """
    return parse_json_or_jsonl(display_name(path), read_bytes(path), is_jsonl(path))


def is_jsonl(path: PathLike) -> bool:
    """Whether a file is read as JSON Lines whatever its content (by its extension, a
    ``.gz`` after it ignored)."""
    return str(path).removesuffix(".gz").endswith((".jsonl", ".ndjson"))


def parse_json_or_jsonl(name: str, data: bytes, jsonl: bool) -> tuple[Any, list[int] | None]:
    """:func:`read_json_or_jsonl` on bytes already read; *name* is used in messages."""
    import orjson

    if not jsonl:
        try:
            return orjson.loads(data), None
        except orjson.JSONDecodeError as exc:
            if not _looks_like_jsonl(data, exc):
                # orjson words a byte that is not UTF-8 as "str is not valid UTF-8: surrogates
                # not allowed" at line 1, column 1, wherever it is: find it (the error path only)
                raise not_utf8_error(name, data) or InputError(
                    f"{name}: {json_error_text(exc)}"
                ) from None
    raw = data.split(b"\n")
    if all(map(bytes.strip, raw[:-1])):  # no blank line but maybe the last: numbers by position
        kept = raw if raw[-1].strip() else raw[:-1]
        lines = list(range(1, len(kept) + 1))
    else:
        pairs = [(n, line) for n, line in enumerate(raw, 1) if line.strip()]
        lines = [n for n, _ in pairs]
        kept = [line for _, line in pairs]
    try:
        # each line parsed on its own, as below, in one C-level loop (no joined document: a
        # line that is not JSON by itself must stay an error)
        return list(map(orjson.loads, kept)), lines
    except orjson.JSONDecodeError:
        pass
    for lineno, line in zip(lines, kept, strict=True):  # the first bad line, worded
        try:
            orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise not_utf8_error(name, data, line) or InputError(
                f"{name}: {json_error_text(exc, lineno)}"
            ) from None
    raise AssertionError("unreachable: a line failed once and parsed the second time")


#: the non-numbers Python's ``json.dump`` writes for a float ``nan`` or ``inf`` (its default
#: ``allow_nan=True``), which JSON does not have
_NOT_JSON_NUMBERS = {"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}


def json_error_text(exc: orjson.JSONDecodeError, line: int | None = None) -> str:
    """Where a document (or JSON Lines' *line*, a document of its own) stops being JSON and
    why, for messages that name the file first."""
    if line is not None:
        return f"line {line}: invalid JSON at column {exc.colno}: {_reason(exc)}"
    return f"invalid JSON at line {exc.lineno}, column {exc.colno}: {_reason(exc)}"


def _reason(exc: orjson.JSONDecodeError) -> str:
    """orjson's message, or for ``NaN`` / ``Infinity`` what they are and what to write."""
    doc, pos = exc.doc, exc.pos
    if doc.startswith("-Infinity", max(pos - 1, 0)):  # orjson stops after the sign
        token = "-Infinity"
    else:
        token = next((t for t in ("NaN", "Infinity") if doc.startswith(t, pos)), "")
    if not token:
        return str(exc.msg)
    return (
        f"{token} is not a JSON value (Python's json.dump writes it for a float "
        f"{_NOT_JSON_NUMBERS[token]}); write null, or a number, instead"
    )


def not_utf8_error(name: str, data: bytes, part: bytes | None = None) -> InputError | None:
    """The error for *data* that is not UTF-8 text, naming the first bad byte by its offset
    in the file (0-based, as the CSV reader names it), its line and its column (1-based, in
    characters); ``None`` when *data* (or only its *part*, one line of it, when given) is valid
    UTF-8. For the error path only: it decodes the bytes again."""
    try:
        codecs.utf_8_decode(data if part is None else part, "strict", True)
    except UnicodeDecodeError as exc:
        bad = exc
    else:
        return None
    if part is not None:  # the line's bad byte as a place in the whole file
        try:
            codecs.utf_8_decode(data, "strict", True)
        except UnicodeDecodeError as exc:
            bad = exc
    start = bad.start
    line_start = data.rfind(b"\n", 0, start) + 1
    line = data.count(b"\n", 0, start) + 1
    column = len(codecs.utf_8_decode(data[line_start:start], "replace", True)[0]) + 1
    return InputError(
        f"{name}: not UTF-8 text (byte {start}, line {line}, column {column}): {bad.reason}; "
        "save it as UTF-8"
    )


class Repeat:
    """A key repeated in a JSON object: the first one to repeat, the members (numbered from 1)
    where it first occurs and where it comes again (its second occurrence), how often it
    occurs, and how many members in all repeat an earlier key (what ``json.load`` drops).
    A plain class: a ``NamedTuple`` would cost every import of the readers 0.1 ms."""

    __slots__ = ("again", "first", "key", "occurrences", "repeats")

    def __init__(self, key: str, first: int, again: int, occurrences: int, repeats: int) -> None:
        self.key, self.first, self.again = key, first, again
        self.occurrences, self.repeats = occurrences, repeats


def repeated_key(data: bytes) -> Repeat | None:
    """The keys repeated in the top-level JSON object *data* (orjson, like ``json.loads``,
    silently keeps the last value of each), from :func:`object_pairs`; ``None`` when no key
    repeats, or when the standard library cannot parse what orjson did (nesting deeper than
    its recursion limit: such a value is no answer, and is refused as one).

    Call it only once orjson has accepted *data* as an object (it parses again).
    """
    try:
        keys = [key for key, _ in object_pairs(data)]
    except (ValueError, RecursionError):  # pragma: no cover - orjson accepted it
        return None
    distinct = dict.fromkeys(keys)
    if len(distinct) == len(keys):
        return None
    first: dict[str, int] = {}
    for n, key in enumerate(keys, 1):
        if first.setdefault(key, n) != n:
            return Repeat(key, first[key], n, keys.count(key), len(keys) - len(distinct))
    raise AssertionError("unreachable: a key repeats")  # pragma: no cover


def member_line(data: bytes, repeat: Repeat) -> int | None:
    """The line where *repeat*'s key comes again, found by its usual spelling as a member name
    (``"key":``, no escapes); ``None`` when that spelling does not occur exactly as often as
    the key does (escaped, or also inside a value). For a message only."""
    import re

    import orjson

    spelled = re.escape(orjson.dumps(repeat.key)) + rb"\s*:"
    found = [m.start() for m in re.finditer(spelled, data)]
    if len(found) != repeat.occurrences:
        return None
    return data.count(b"\n", 0, found[1]) + 1  # *again* is the key's second occurrence


def repeated_members(
    name: str,
    data: bytes,
    on_duplicate: str | None,
    *,
    what: str = "key",
    keeper: str = "json.load",
) -> int:
    """How many members of the JSON object *data* repeat an earlier key (its *what*: ``key``,
    ``question id``), whose last value orjson, like *keeper*, kept: under ``on_duplicate="last"``
    that count; else the first repeat is an :class:`InputError` naming the file *name*, the line
    and the key, with the ``--on-duplicate last`` hint unless *on_duplicate* is ``None`` (a
    caller that takes no such option). It parses *data* again: callers first rule a repeat out
    cheaply where they can (a member count)."""
    repeat = repeated_key(data)
    if repeat is None:
        return 0
    if on_duplicate == "last":
        return repeat.repeats
    line = member_line(data, repeat)
    where = f"{name}: line {line}" if line is not None else name
    hint = "pass --on-duplicate last to keep the last one" if on_duplicate else "keep one of them"
    raise InputError(
        f"{where}: {what} {repeat.key!r} is repeated (members {repeat.first} and {repeat.again} "
        f"of the object): {keeper} would silently keep its last value; {hint}"
    )


def object_pairs(data: bytes) -> list[tuple[str, Any]]:
    """The members of a JSON document whose top level is an object, in file order, with
    repeated keys kept (orjson, like ``json.loads``, silently keeps the last value of a repeated
    key; a mapping of predictions must see every one to apply ``--on-duplicate``).

    Call it only once orjson has accepted *data* as an object: it parses again, with the
    slower standard library, so the common list layouts do not pay for it.
    """
    import json

    last: list[list[tuple[str, Any]]] = []

    def keep(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        last[:] = [pairs]  # the top-level object is the last one closed
        return dict(pairs)

    json.loads(data, object_pairs_hook=keep)
    return last[0]


def _looks_like_jsonl(data: bytes, exc: orjson.JSONDecodeError) -> bool:
    import orjson

    if exc.msg != "unexpected content after document":
        return False
    text = data.lstrip()
    end = text.find(b"\n")
    first = text if end < 0 else text[:end]  # text.split(b"\n", 1)[0], without copying the rest
    try:
        return isinstance(orjson.loads(first), dict)
    except orjson.JSONDecodeError:
        return False


def decode_typed(data: bytes | mmap.mmap, spec: Any, *, check_utf8: bool = True) -> Any:
    """Decode *data* into the msgspec type *spec*, or return ``None``.

    The fast path of the loaders: only the fields a type names are decoded (and checked); the
    rest is skipped. ``None`` means "use the slow path", which parses everything with orjson
    and words any error precisely: msgspec is missing, the document does not fit *spec*, or it
    is not valid JSON. Non-ASCII input is also checked to be valid UTF-8 throughout, because
    msgspec does not check the strings it skips and orjson rejects invalid UTF-8 anywhere.
    Known, accepted difference: in fields that are skipped, msgspec accepts a number that
    overflows a double (``1e400``) and nesting deeper than orjson's 1024 levels.
    ``check_utf8=False`` skips that check, for a second decode of bytes that are checked by
    another one.
    """
    try:
        import msgspec
    except ImportError:  # pragma: no cover - a broken install: use the slow path
        return None
    try:
        value = msgspec.json.decode(data, type=spec)
    except (msgspec.DecodeError, RecursionError):
        return None
    if check_utf8 and not _is_ascii(data):
        try:
            codecs.utf_8_decode(data, "strict", True)
        except UnicodeDecodeError:
            return None
    return value


def _is_ascii(data: bytes | mmap.mmap) -> bool:
    if isinstance(data, bytes):
        return data.isascii()
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - a broken install: use the slow path
        return False
    view = np.frombuffer(data, dtype=np.uint8)
    try:
        return not len(view) or int(view.max()) < 0x80
    finally:
        del view  # release the buffer, so that the map can be closed


@contextmanager
def closing_map(mapped: mmap.mmap) -> Iterator[mmap.mmap]:
    """Close *mapped* on leaving, like ``with mapped:``, except while an exception (such as
    Ctrl-C or SIGTERM arriving mid-decode) is on its way out: its traceback may still hold a
    view into the map, and closing would then replace it with a ``BufferError``; the map is
    closed when that traceback is collected."""
    try:
        yield mapped
    except BaseException:
        with suppress(BufferError):
            mapped.close()
        raise
    mapped.close()


def map_file(path: PathLike) -> mmap.mmap | None:
    """Memory-map a file for the fast path (no copy of a large file into memory); ``None``
    when that fails, e.g. for an empty or missing file: :func:`read_bytes` then says why."""
    try:
        with open(path, "rb") as fh:
            if fh.read(2) == GZIP_MAGIC:
                return None  # compressed: read_bytes decompresses it
            import mmap

            return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
