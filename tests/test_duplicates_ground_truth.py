"""A repeated id in a ground truth that is not read through a task's join (the A-OKVQA loader)
follows the one rule: an error naming both records, ``--on-duplicate last`` the one escape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vqametrics import InputError
from vqametrics.cli import main
from vqametrics.readers.aokvqa import load_aokvqa, load_aokvqa_predictions


def _question(qid: str, answer: str) -> dict[str, object]:
    return {
        "question_id": qid,
        "direct_answers": [answer] * 10,
        "choices": ["dog", "cat"],
        "correct_choice_idx": 0 if answer == "dog" else 1,
    }


def _aokvqa(tmp_path: Path) -> Path:
    path = tmp_path / "aokvqa.json"
    rows = [_question("q1", "dog"), _question("q2", "cat"), _question("q1", "cat")]
    path.write_text(json.dumps(rows))
    return path


def test_a_repeated_aokvqa_question_is_an_error_naming_both_entries(tmp_path: Path) -> None:
    path = _aokvqa(tmp_path)
    with pytest.raises(InputError) as err:
        load_aokvqa(path)
    message = str(err.value)
    assert "entry 3: duplicate question id 'q1' (first at" in message
    assert "entry 1" in message and "on_duplicate='last'" in message


def test_on_duplicate_last_keeps_the_last_aokvqa_question(tmp_path: Path) -> None:
    with pytest.warns(UserWarning, match="1 repeated question id row"):
        items = load_aokvqa(_aokvqa(tmp_path), on_duplicate="last")
    assert [(it.question_id, it.direct_answers[0]) for it in items] == [
        ("q1", "cat"),
        ("q2", "cat"),
    ]


def test_on_duplicate_last_keeps_the_last_aokvqa_prediction(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text('{"q1": "dog", "q2": "cat", "q1": "bird"}')
    with pytest.raises(InputError, match="duplicate prediction; pass on_duplicate='last'"):
        load_aokvqa_predictions(path)
    assert load_aokvqa_predictions(path, on_duplicate="last")["q1"].answer == "bird"


def test_compare_aokvqa_takes_on_duplicate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``compare --aokvqa`` used to refuse ``--on-duplicate``: now it is the escape there too."""
    preds = tmp_path / "p.json"
    preds.write_text(json.dumps({"q1": "cat", "q2": "cat"}))
    args = ["compare", "--aokvqa", str(_aokvqa(tmp_path)), "--results", str(preds), "--json"]
    assert main(args) == 2
    assert "duplicate question id 'q1'" in capsys.readouterr().err
    assert main([*args, "--on-duplicate", "last"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out)["n_questions"] == 2


def test_the_argument_type_error_is_a_public_error() -> None:
    """A public function given a wrong type raises ``ArgumentTypeError``: a public error, so
    importable from ``vqametrics.errors`` beside the rest of the tree."""
    import vqametrics.errors as errors
    from vqametrics import vqa_accuracy

    assert "ArgumentTypeError" in errors.__all__
    with pytest.raises(errors.ArgumentTypeError, match="prediction must be a string"):
        vqa_accuracy(None, ["a"] * 10)  # type: ignore[arg-type]
    assert issubclass(errors.ArgumentTypeError, errors.InputError)
    assert issubclass(errors.ArgumentTypeError, TypeError)
