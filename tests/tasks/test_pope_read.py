"""POPE's reading path after its speed-up (issue 23): the shortcuts keep every message and
every pairing the general path gives."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vqametrics.cli import main
from vqametrics.core.exceptions import InputError
from vqametrics.readers.join import unique_rows
from vqametrics.tasks._pope_read import (
    _question_text,
    _read_labels,
)


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _labels(tmp_path: Path, n: int) -> Path:
    rows = [{"question_id": i + 1, "text": f"Is there a q{i}?", "label": "yes"} for i in range(n)]
    return _write_jsonl(tmp_path / "coco_pope_random.json", rows)


@pytest.mark.parametrize("second", [1, "1", " 1 "])
def test_repeated_id_names_both_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], second: Any
) -> None:
    """An id answered twice is an error at the second line naming the first, whether both are
    ints (the shortcut) or one is written as text (the general rule: ``1`` and ``"1"`` are one
    id)."""
    rows = [
        {"question_id": 1, "text": "yes"},
        {"question_id": 2, "text": "no"},
        {"question_id": second, "text": "yes"},
    ]
    res = _write_jsonl(tmp_path / "a.jsonl", rows)
    lab = _labels(tmp_path, 3)
    assert main(["score", "pope", "--results", str(res), "--annotations", str(lab)]) == 2
    err = capsys.readouterr().err
    assert f"a.jsonl: line 3: duplicate question_id {second!r}" in err
    assert "(first at " in err and "a.jsonl: line 1;" in err


def test_repeated_id_last_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--on-duplicate last``: the last answer of the id is paired at the first's place."""
    rows = [
        {"question_id": 1, "text": "yes"},
        {"question_id": 2, "text": "yes"},
        {"question_id": 1, "text": "No"},
    ]
    res = _write_jsonl(tmp_path / "a.jsonl", rows)
    lab = _labels(tmp_path, 2)
    argv = ["score", "pope", "--results", str(res), "--annotations", str(lab), "--json"]
    assert main([*argv, "--on-duplicate", "last"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["metrics"]["TP"] == 1 and doc["metrics"]["FN"] == 1  # line 3's "No" at id 1


def _no_place(i: int) -> str:
    raise AssertionError(f"the place of row {i} was made though no id repeats")


def test_distinct_ints() -> None:
    """The shared duplicate rule's shortcut (``readers.join.unique_rows``, which POPE's reader
    calls with ``Records.where``): distinct integers keep every row and make no place."""
    assert unique_rows([3, 1, 2], _no_place) == ([0, 1, 2], None)
    with pytest.raises(InputError, match=r"row 3: duplicate question id 1 \(first at row 1"):
        unique_rows([1, 2, 1], lambda i: f"row {i + 1}")
    with pytest.raises(InputError, match="duplicate question id '1'"):
        unique_rows([1, "1"], lambda i: f"row {i + 1}")  # 1 and "1": one id, not the shortcut
    assert unique_rows([True, 2], _no_place) == ([0, 1], None)  # a bool is not an int id


@given(st.text(alphabet=" \n\tab?", max_size=12))
def test_question_text_is_the_first_line_stripped(text: str) -> None:
    assert _question_text(text) == text.split("\n")[0].strip()


def test_question_text_of_a_number() -> None:
    assert _question_text(12) == "12"


def test_label_items_keep_ids_fields_and_line_numbers(tmp_path: Path) -> None:
    """The label lines as items (for a log joined to them): ``<split>/<question_id>``, the
    line number where a line has no id, with the label line, split, question and image."""
    rows = [
        {"question_id": 7, "image": "a.jpg", "text": "Is there a dog?", "label": "no"},
        {"text": "Is there a cat?", "label": "yes"},
    ]
    path = _write_jsonl(tmp_path / "coco_pope_popular.json", rows)
    items = _read_labels("popular", path).items()
    assert [it.id for it in items] == ["popular/7", "popular/2"]
    assert items[0].references == ("no",) and items[0].prediction is None
    assert items[0].fields == {
        "label_line": 1,
        "split": "popular",
        "question": "Is there a dog?",
        "image": "a.jpg",
    }
    assert items[1].fields == {"label_line": 2, "split": "popular", "question": "Is there a cat?"}
    assert [it.id for it in _read_labels(None, path).items()] == [7, 2]


@pytest.mark.parametrize("enabled", [True, False])
@pytest.mark.parametrize("bad", [False, True])
def test_reading_leaves_the_collector_as_it_found_it(
    tmp_path: Path, enabled: bool, bad: bool
) -> None:
    """The collector is paused while POPE's files are read, and restored after, on an error
    too."""
    import gc

    from vqametrics.core.exceptions import InputError
    from vqametrics.readers.items import TaskInputs
    from vqametrics.tasks._pope_read import read_pope

    rows = [{"question_id": 1, "text": "yes"}] * (2 if bad else 1)  # twice: a repeated id
    res = _write_jsonl(tmp_path / "a.jsonl", rows)
    inputs = TaskInputs(results=str(res), annotations=str(_labels(tmp_path, 1)))
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        if bad:
            with pytest.raises(InputError, match="duplicate question_id 1"):
                read_pope(inputs)
        else:
            assert len(read_pope(inputs).items) == 1
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_a_list_as_question_id_is_one_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An id that is a list (not a number or a string) is bad input, not a traceback: in the
    answers it is not in the question file, in the question file it is named as such."""
    questions = [{"question_id": 1, "text": "Is there a q0?", "category": "random"}]
    qfile = _write_jsonl(tmp_path / "q.jsonl", questions)
    res = _write_jsonl(tmp_path / "a.jsonl", [{"question_id": [1], "text": "yes"}])
    lab = str(_labels(tmp_path, 1))
    argv = ["score", "pope", "--annotations", lab, "--questions", str(qfile)]
    assert main([*argv, "--results", str(res)]) == 2
    err = capsys.readouterr().err
    assert "a.jsonl: line 1: question_id [1] is not in the question file" in err
    assert "Traceback" not in err
    _write_jsonl(qfile, [{**questions[0], "question_id": [1]}])
    good = _write_jsonl(tmp_path / "b.jsonl", [{"question_id": 1, "text": "yes"}])
    assert main([*argv, "--results", str(good)]) == 2
    err = capsys.readouterr().err
    assert "q.jsonl: line 1: question_id [1] is list, expected a number or a string" in err
