"""A pandas DataFrame of a VLMEvalKit sheet scores as the file does (review 3, item 4).

VLMEvalKit reads its sheet with pandas, so a prediction that is the TEXT ``nan`` becomes NaN,
and it then scores ``str(x)`` = ``'nan'``. openpyxl reads the file's cell as ``'nan'``; a
DataFrame holds NaN. For the VLMEvalKit layout the NaN is read back as ``'nan'`` (with a note
and the count); for other layouts NaN stays a missing answer, and the message names the option
in the caller's language (``allow_missing=True`` in Python, ``--allow-missing`` on the command
line).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vqametrics import evaluate_vqa
from vqametrics.cli import main
from vqametrics.core.exceptions import InputError, command_line_spelling
from vqametrics.tasks._run import evaluate_task

pd = pytest.importorskip("pandas")
NAN = float("nan")


def _sheet() -> object:
    # question 2's truth is the text "nan"; the model answered "nan" (pandas: NaN)
    return pd.DataFrame(
        {
            "index": [1, 2, 3],
            "question": ["q1?", "q2?", "q3?"],
            "answer": [str([a] * 10) for a in ("yes", "nan", "red")],
            "prediction": ["yes", NAN, "blue"],
        }
    )


def test_vlmevalkit_dataframe_nan_is_the_text_nan() -> None:
    ev = evaluate_task("textvqa", _sheet(), profile="vlmevalkit")
    # hand-derived: ten equal references each; 'yes' and 'nan' match all ten (1), 'blue'
    # none (0): the mean is 2/3, in VLMEvalKit's percent
    assert ev.scores == [1.0, 1.0, 0.0]
    assert ev.headline == pytest.approx(200 / 3)
    assert [it.prediction for it in ev.data.items] == ["yes", "nan", "blue"]
    assert any("1 prediction(s) are NaN in <dataframe>" in n for n in ev.notes)


def test_vlmevalkit_dataframe_in_the_vqa_path() -> None:
    ev = evaluate_vqa(None, _sheet(), profile="vlmevalkit")
    assert ev.predictions == ["yes", "nan", "blue"]
    assert any("1 prediction(s) are NaN" in n for n in ev.notes)


def _textvqa_annotations(tmp_path: Path) -> Path:
    data = [
        {"question_id": q, "question": f"q{q}?", "image_id": f"i{q}", "answers": [a] * 10}
        for q, a in ((1, "yes"), (2, "nan"), (3, "red"))
    ]
    path = tmp_path / "TextVQA_0.5.1_val.json"
    path.write_text(json.dumps({"dataset_name": "TextVQA", "data": data}))
    return path


def test_other_layouts_keep_nan_missing_api_spelling(tmp_path: Path) -> None:
    ann = _textvqa_annotations(tmp_path)
    official = pd.DataFrame({"question_id": [1, 2, 3], "answer": ["yes", NAN, "red"]})
    with pytest.raises(InputError) as exc:
        evaluate_task("textvqa", official, annotations=ann)
    msg = str(exc.value)
    assert "allow_missing=True" in msg and "--allow-missing" not in msg
    ev = evaluate_task("textvqa", official, annotations=ann, allow_missing=True)
    assert ev.data.n_missing == 1
    assert ev.headline == pytest.approx(2 / 3)  # the NaN question scores 0, the others 1


def test_command_line_spelling_of_the_same_error() -> None:
    err = InputError("x.csv: the prediction for 2 is empty; pass --allow-missing to score it 0")
    assert "pass allow_missing=True to score" in str(err)
    with command_line_spelling():
        assert "pass --allow-missing to score" in str(err)


def test_cli_names_the_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ann = _textvqa_annotations(tmp_path)
    res = tmp_path / "results.json"
    rows = [{"question_id": q, "answer": a} for q, a in ((1, "yes"), (2, None), (3, "red"))]
    res.write_text(json.dumps(rows))
    assert main(["score", "textvqa", "--annotations", str(ann), "--results", str(res)]) == 2
    err = capsys.readouterr().err
    assert "--allow-missing" in err and "allow_missing=True" not in err


@pytest.mark.slow
def test_real_textvqa_sheet_as_dataframe(shared_data: Path) -> None:
    sheet = shared_data / "textvqa_val" / "vlmevalkit" / "vila_8b_TextVQA_VAL.xlsx"
    pytest.importorskip("openpyxl")
    frame = pd.read_excel(sheet, engine="openpyxl")  # pandas 3 warns about its future default
    assert int(frame["prediction"].isna().sum()) == 10  # the cells holding the text "nan"
    for profile, expected in (("vlmevalkit", 60.156), ("vlmevalkit-2024", 60.16199999999999)):
        from_frame = evaluate_task("textvqa", frame, profile=profile)
        from_file = evaluate_task("textvqa", sheet, profile=profile)
        assert from_frame.headline == from_file.headline == expected
        assert from_frame.scores == from_file.scores
        assert any("10 prediction(s) are NaN" in n for n in from_frame.notes)
