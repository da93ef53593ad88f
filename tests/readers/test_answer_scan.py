"""The compiled answer scanner (``readers/_answerscan.c``) against its reference, the pure-Python
``readers._bulk._batched_answers``: on any answer lists it gives the reference's result or
``None`` (the reference then decides), and on ordinary VQA answers it really gives a result."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from compiled_helpers import built
from vqametrics.core.compiled import ANSWER_SCANNER, PURE_PYTHON_ENV
from vqametrics.readers import _bulk
from vqametrics.readers.vqa import load_annotations


@pytest.fixture(scope="module")
def scan() -> Callable[[list[Any]], Any]:
    found = built(ANSWER_SCANNER)
    if found is None:
        pytest.skip("the compiled answer scanner is not built (no compiler at install time)")
    return found


def _columns(got: Any) -> tuple[list[int], list[str], list[int]] | None:
    """A result of either implementation as plain lists (numpy arrays or int64 bytearrays)."""
    import numpy as np

    if got is None:
        return None
    counts, strings, codes = got
    as_list = lambda a: np.frombuffer(a, dtype=np.int64).tolist()  # noqa: E731
    if isinstance(counts, np.ndarray):
        assert counts.dtype == codes.dtype == np.int64
        return counts.tolist(), strings, codes.tolist()
    return as_list(counts), strings, as_list(codes)


# ---- JSON text written token by token: random whitespace, key order, escapes, duplicates ----

WS = st.sampled_from(["", "", " ", "\n", "\t ", "\r\n  "])
PIECES = ["a", "b", "yes", "no", "2", " ", "é", "猫", "😀", '"', "\\", "\x01", "/"]
TEXTS = st.lists(st.sampled_from(PIECES), max_size=4).map("".join)


@st.composite
def json_string(draw: st.DrawFn, text: str | None = None) -> str:
    """A JSON string literal, each character written plainly or as an escape at random."""
    if text is None:
        text = draw(TEXTS)
    out = []
    for ch in text:
        plain = json.dumps(ch, ensure_ascii=False)[1:-1]  # escapes '"', '\\' and controls
        escaped = json.dumps(ch)[1:-1] if ord(ch) > 0x7F else f"\\u{ord(ch):04x}"
        options = [plain, escaped] + (["\\/"] if ch == "/" else [])
        out.append(draw(st.sampled_from(options)))
    return '"' + "".join(out) + '"'


def _compose(draw: st.DrawFn, value: Any) -> str:
    """Any JSON value with random whitespace and string escapes."""
    if isinstance(value, str):
        return draw(json_string(value))
    if isinstance(value, list):
        items = [draw(WS) + _compose(draw, v) + draw(WS) for v in value]
        return "[" + ",".join(items) + "]" if items else "[" + draw(WS) + "]"
    if isinstance(value, dict):
        items = [
            f"{draw(WS)}{draw(json_string(k))}{draw(WS)}:{draw(WS)}{_compose(draw, v)}{draw(WS)}"
            for k, v in value.items()
        ]
        return "{" + ",".join(items) + "}" if items else "{" + draw(WS) + "}"
    return json.dumps(value)


EXTRA = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXTS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["k", "é", 'q"', "answer"]), inner, max_size=2)
    ),
    max_leaves=5,
)
# ids the schema accepts, distinct as numbers, among them the edges of int64
VALID_IDS = [str(i) for i in range(1, 11)] + ["0", "-7", str(2**63 - 1), str(-(2**63))]
# what msgspec's int (with the schema's int64 bounds) rejects, or a repeat ("-0" is 0)
ODD_IDS = [
    str(2**63),
    str(-(2**63) - 1),
    str(2**64 + 5),
    "-0",
    "1",
    "1.0",
    "1e2",
    "1E+0",
    "-1.5e-3",
    "null",
    "true",
    '"3"',
    "[1]",
    "{}",
]
# each irregularity is rare, so that many generated lists are regular and really compared
RARE = st.sampled_from([False] * 79 + [True])


@st.composite
def answer_record(draw: st.DrawFn, id_text: str, ordinary: bool = False) -> str:
    """One answer record as JSON text with answer_id *id_text* (at times an odd one);
    *ordinary*: a plain string answer without escapes, whatever else is around it."""
    fields: list[tuple[str, str]] = []
    if ordinary:
        pieces = st.sampled_from(["a", "yes", "no", "2", " ", "é", "😀"])
        text = "".join(draw(st.lists(pieces, max_size=3)))
        fields.append(('"answer"', json.dumps(text, ensure_ascii=False)))
        fields.append(('"answer_id"', id_text))
    else:
        if not draw(RARE):  # at times no answer
            text = _compose(draw, draw(EXTRA)) if draw(RARE) else draw(json_string())
            fields.append((draw(json_string("answer")), text))
        if not draw(RARE):  # at times no answer_id
            odd = draw(st.sampled_from(ODD_IDS)) if draw(RARE) else id_text
            fields.append((draw(json_string("answer_id")), odd))
        if fields and draw(RARE):
            fields.append(draw(st.sampled_from(fields)))  # a repeated key
    others = st.sampled_from(["answer_confidence", "x", "é\\", ""])
    for key in draw(st.lists(others, max_size=2, unique=True)):
        fields.append((draw(json_string(key)), _compose(draw, draw(EXTRA))))
    fields = draw(st.permutations(fields))
    body = ",".join(f"{draw(WS)}{k}{draw(WS)}:{draw(WS)}{v}{draw(WS)}" for k, v in fields)
    return "{" + (body or draw(WS)) + "}"


@st.composite
def answer_list(draw: st.DrawFn, ordinary: bool = False) -> bytes:
    """One question's raw answers: a JSON array of records (at times something else)."""
    ids = draw(st.permutations(VALID_IDS))[: draw(st.integers(1, 10))]
    if not ordinary and draw(RARE):
        ids = []  # a question without answers
    records = [draw(answer_record(i, ordinary)) for i in ids]
    if not ordinary and draw(RARE):
        records.append(_compose(draw, draw(EXTRA)))  # not a record
    items = ",".join(draw(WS) + r + draw(WS) for r in records)
    text = "[" + (items or draw(WS)) + "]"
    if not ordinary and draw(RARE):
        text = _compose(draw, {"answer": "a", "answer_id": 1})  # not a list
    return text.encode()


@settings(max_examples=500, deadline=None)
@given(raws=st.lists(answer_list(), min_size=0, max_size=4))
def test_the_scanner_gives_the_reference_result_or_none(
    scan: Callable[[list[Any]], Any], raws: list[bytes]
) -> None:
    for raw in raws:
        json.loads(raw)  # only valid JSON reaches the scanner (msgspec.Raw)
    got = _columns(scan(raws))
    event("scanned" if got is not None else "left to the reference")
    if got is not None:
        assert got == _columns(_bulk._batched_answers(raws))


@settings(max_examples=300, deadline=None)
@given(raws=st.lists(answer_list(ordinary=True), min_size=1, max_size=6))
def test_the_scanner_reads_ordinary_answers_itself(
    scan: Callable[[list[Any]], Any], raws: list[bytes]
) -> None:
    """Plain string answers with distinct integer ids: never handed back to the reference."""
    got = _columns(scan(raws))
    assert got is not None
    assert got == _columns(_bulk._batched_answers(raws))


@pytest.mark.parametrize(
    "raw",
    [
        b'[{"answer": "caf\\u00e9", "answer_id": 1}, {"answer": "caf\xc3\xa9", "answer_id": 2}]',
        b'[{"answ\\u0065r": "a", "answer\\u005fid": 1}]',  # keys match decoded
        b'[{"answer": "\\ud83d\\ude00 \\"q\\" \\\\ \\/ \\b\\f\\n\\r\\t", "answer_id": 1}]',
        b'[{"x": {"a": [1, -2.5e+3, "\\"]", {}], "b": null}, "answer_id": -9223372036854775808,'
        b' "answer": "", "y": true}]',
    ],
)
def test_escapes_in_answers_are_decoded_as_msgspec_decodes_them(
    scan: Callable[[list[Any]], Any], raw: bytes
) -> None:
    got = _columns(scan([raw]))
    assert got is not None
    assert got == _columns(_bulk._batched_answers([raw]))


@pytest.mark.parametrize(
    "raw",
    [
        b'[{"answer": "a", "answer_id": 1.0}]',  # a float to msgspec
        b'[{"answer": "a", "answer_id": 9223372036854775808}]',  # beyond int64
        b'[{"answer": "a", "answer_id": 1, "answer": "b"}]',  # a repeated key
        b'[{"answer": "\\ud83d", "answer_id": 1}]',  # half a surrogate pair
        b'[{"answer": "a", "answer_id": 1}, {"answer": "b", "answer_id": 1}]',  # equal ids
        b'[{"answer": "a"}]',
        b"[]",
    ],
)
def test_what_the_scanner_is_unsure_of_goes_to_the_reference(
    scan: Callable[[list[Any]], Any], raw: bytes
) -> None:
    assert scan([raw]) is None


def _annotations(tmp_path: Path) -> Path:
    answers = [["yes", "no", "Café", "猫 2"], ["2", "two", "😀"], ["yes"]]
    anns = [
        {
            "question_id": q,
            "question_type": "what",
            "answer_type": "other",
            "answers": [
                {"answer": a, "answer_confidence": "yes", "answer_id": i + 1}
                for i, a in enumerate(texts)
            ],
        }
        for q, texts in enumerate(answers)
    ]
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps({"annotations": anns}), encoding="utf-8")  # \u escapes
    return path


def test_a_file_loads_through_the_scanner(
    scan: Callable[[list[Any]], Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the scanner built, the loader takes it (the reference is not called)."""

    def reference(raws: list[Any]) -> None:
        raise AssertionError("the pure-Python answers path ran")

    path = _annotations(tmp_path)
    monkeypatch.delenv(PURE_PYTHON_ENV, raising=False)  # the suite may run with it set
    monkeypatch.setattr(_bulk, "_batched_answers", reference)
    dataset = load_annotations(path)
    assert dataset.answers[0] == ["yes", "no", "Café", "猫 2"]


def test_the_environment_switch_forces_the_pure_path_with_the_same_dataset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _annotations(tmp_path)
    first = load_annotations(path)
    monkeypatch.setenv(PURE_PYTHON_ENV, "1")
    assert _bulk.answer_scanner() is None
    calls = []
    reference = _bulk._batched_answers
    monkeypatch.setattr(_bulk, "_batched_answers", lambda raws: calls.append(1) or reference(raws))
    pure = load_annotations(path)
    assert calls == [1]
    assert (
        pure.answers
        == first.answers
        == [
            ["yes", "no", "Café", "猫 2"],
            ["2", "two", "😀"],
            ["yes"],
        ]
    )
    codes, pure_codes = first._answer_codes, pure._answer_codes
    assert codes is not None and pure_codes is not None
    assert codes.strings == pure_codes.strings
    assert codes.codes.tolist() == pure_codes.codes.tolist()


def test_the_answers_child_needs_no_numpy(
    scan: Callable[[list[Any]], Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The forked child of a split load sends the scanner's buffers: it never imports numpy,
    so the parent can fork before importing it (in a fresh interpreter, where nothing else
    has imported numpy yet)."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from vqametrics.readers import _bulk, _json\n"
        "(counts, strings, codes), traced = _bulk._answers_in_child(_json.map_file(sys.argv[1]))\n"
        "assert traced is None  # no tracer given\n"
        "print('numpy' in sys.modules, list(memoryview(counts).cast('q')), strings)\n"
    )
    monkeypatch.delenv(PURE_PYTHON_ENV, raising=False)
    path = _annotations(tmp_path)
    out = subprocess.run(
        [sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=True
    ).stdout
    # three questions with 4, 3 and 1 answers; the distinct texts in first-seen order
    assert out.strip() == "False [4, 3, 1] ['yes', 'no', 'Café', '猫 2', '2', 'two', '😀']"
