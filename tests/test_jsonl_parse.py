"""JSON Lines parsed in one loop per file (issue 23): the same values and line numbers as a
line-at-a-time parse, and the first bad line named, even when the lines would parse joined."""

from __future__ import annotations

import json

import pytest

from vqametrics.core.exceptions import InputError
from vqametrics.readers._json import parse_json_or_jsonl


def _one_at_a_time(data: bytes) -> tuple[list[object], list[int]]:
    """The reference: each non-blank line parsed by itself with the standard library."""
    pairs = [(n, line) for n, line in enumerate(data.split(b"\n"), 1) if line.strip()]
    return [json.loads(line) for _, line in pairs], [n for n, _ in pairs]


@pytest.mark.parametrize(
    "data",
    [
        b'{"a": 1}\n{"a": 2}\n',
        b'{"a": 1}\n{"a": 2}',
        b'{"a": 1}\n\n  \n{"a": 2}\n\n',
        b'{"a": 1}\r\n{"a": 2}\r\n',
        b'\n\n{"a": 1}\n',
        b'{"a": 1}\n \t',
        b'1\n[2]\n"x"\n',
    ],
)
def test_values_and_line_numbers_are_a_line_at_a_times(data: bytes) -> None:
    assert parse_json_or_jsonl("f.jsonl", data, True) == _one_at_a_time(data)


@pytest.mark.parametrize(
    ("data", "line"),
    [
        (b'{"a": 1}\n{"a": \n2}\n', 2),  # one object over two lines: valid only when joined
        (b'{"a": 1}\n\n{"a": [1\n, 2]}\n', 3),
        (b'{"a": 1}\n{"a": 2}\n{"a"}\n{"b"}\n', 3),  # the first of two bad lines
    ],
)
def test_the_first_bad_line_is_named(data: bytes, line: int) -> None:
    with pytest.raises(InputError, match=rf"^f\.jsonl: line {line}: invalid JSON at column"):
        parse_json_or_jsonl("f.jsonl", data, True)


@pytest.mark.parametrize(
    ("value", "written_for"),
    [(float("nan"), "nan"), (float("inf"), "inf"), (float("-inf"), "-inf")],
)
@pytest.mark.parametrize("jsonl", [False, True])
def test_python_s_nan_and_infinity_are_named(value: float, written_for: str, jsonl: bool) -> None:
    # json.dump's default allow_nan=True writes NaN / Infinity / -Infinity, which are not JSON:
    # orjson's "unexpected character" (or "no digit after sign") did not say what was wrong
    text = json.dumps({"question_id": 1, "answer": "x", "score": value})
    token = text.split(": ")[-1].rstrip("}")
    data = (text if jsonl else f"[{text}]").encode()
    with pytest.raises(InputError) as caught:
        parse_json_or_jsonl("f.json", data, jsonl)
    where = "line 1: invalid JSON at column" if jsonl else "invalid JSON at line 1, column"
    assert str(caught.value).startswith(f"f.json: {where} ")
    assert str(caught.value).endswith(
        f": {token} is not a JSON value (Python's json.dump writes it for a float "
        f"{written_for}); write null, or a number, instead"
    )


def test_other_bad_json_keeps_its_own_reason() -> None:
    with pytest.raises(InputError, match=r"column 8: unexpected character"):
        parse_json_or_jsonl("f.json", b'[{"a": x}]', False)
