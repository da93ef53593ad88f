"""``--input-format`` forces a toolkit layout, a file format, or both (issue 11).

The fixture's columns fit two layouts: ``index``/``prediction`` (VLMEvalKit: two of four
predictions right) and ``question_id``/``answer`` (official: all four right). Recognition takes
VLMEvalKit first; forcing ``official`` must steer the scoring to the other pair. Expected values
are hand-derived: each question has ten identical human answers, so a prediction equal to them
scores 1 and any other 0 (VQA accuracy ``min(1, matches/3)`` averaged over the ten leave-one-out
subsets).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from vqametrics import evaluate_vqa
from vqametrics.cli import main
from vqametrics.core.exceptions import InputError
from vqametrics.readers.formats import InputFormat, parse_input_format
from vqametrics.readers.records import read_records
from vqametrics.tasks._run import evaluate_task

TRUTH = {1: "yes", 2: "no", 3: "2", 4: "red"}
#: VLMEvalKit's prediction is right for the odd ids only; the official answer always
ROWS = [
    {"index": q, "prediction": a if q % 2 else "zzz", "question_id": q, "answer": a}
    for q, a in TRUTH.items()
]


@pytest.fixture
def ann(tmp_path: Path) -> Path:
    path = tmp_path / "ann.json"
    path.write_text(json.dumps([{"question_id": q, "answers": [a] * 10} for q, a in TRUTH.items()]))
    return path


@pytest.fixture
def both(tmp_path: Path) -> Path:
    path = tmp_path / "both.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(ROWS[0]))
        w.writeheader()
        w.writerows(ROWS)
    return path


# -- parsing the option -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, InputFormat(None, None)),
        ("csv", InputFormat("csv", None)),
        ("vlmevalkit", InputFormat(None, "vlmevalkit")),
        ("vlmevalkit,csv", InputFormat("csv", "vlmevalkit")),
        ("jsonl,llava", InputFormat("jsonl", "llava")),
        (" LMMS-EVAL , JSONL ", InputFormat("jsonl", "lmms-eval")),
    ],
)
def test_parse(value: str | None, expected: InputFormat) -> None:
    assert parse_input_format(value) == expected


def test_layout_names_map_to_recognized_layouts() -> None:
    assert parse_input_format("llava").layout == "llava-answers"
    assert parse_input_format("lmms-eval").columns == ("doc_id", "filtered_resps")
    assert parse_input_format("gqa").columns == ("questionId", "prediction")
    assert parse_input_format("docvqa").columns == ("questionId", "answer")
    assert parse_input_format("vizwiz").columns == ("image", "answer")


@pytest.mark.parametrize(
    ("value", "why"),
    [("parquet", "unknown"), ("csv,tsv", "given twice"), ("llava,official", "given twice")],
)
def test_parse_errors(value: str, why: str) -> None:
    with pytest.raises(InputError, match=why) as exc:
        parse_input_format(value)
    assert "layouts: official, llava" in str(exc.value)  # the choices are listed


def test_mmbench_takes_only_the_vlmevalkit_layout() -> None:
    assert parse_input_format("vlmevalkit,tsv", layouts=("vlmevalkit",)).layout == "vlmevalkit"
    with pytest.raises(InputError, match="not a layout this reader takes"):
        parse_input_format("llava", layouts=("vlmevalkit",))


def test_the_mmbench_command_offers_the_layouts_its_reader_takes() -> None:
    # the CLI keeps its own copy so that building the parser imports no reader
    from vqametrics.cli.mmbench import MMBENCH_LAYOUTS as offered
    from vqametrics.mmbench.load import MMBENCH_LAYOUTS as taken

    assert offered == taken


# -- the forced layout steers the score --------------------------------------------------------


def test_recognized_vs_forced_layout(ann: Path, both: Path) -> None:
    assert evaluate_vqa(ann, both).accuracy["overall"] == 50.0  # recognized: VLMEvalKit
    assert evaluate_vqa(ann, both, input_format="vlmevalkit").accuracy["overall"] == 50.0
    forced = evaluate_vqa(ann, both, input_format="official")
    assert forced.accuracy["overall"] == 100.0
    assert forced.layout == "official (csv)"
    both_named = evaluate_vqa(ann, both, input_format="official,csv")
    assert both_named.scores == forced.scores


def test_forced_layout_on_in_memory_rows(ann: Path) -> None:
    assert evaluate_vqa(ann, ROWS).accuracy["overall"] == 50.0
    assert evaluate_vqa(ann, ROWS, input_format="official").accuracy["overall"] == 100.0


def test_forced_llava_over_official(ann: Path, tmp_path: Path) -> None:
    # question_id, answer AND text: recognition takes the official 'answer'
    rows = [{"question_id": q, "answer": a, "text": "zzz"} for q, a in TRUTH.items()]
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert evaluate_vqa(ann, path).accuracy["overall"] == 100.0
    assert evaluate_vqa(ann, path, input_format="llava").accuracy["overall"] == 0.0


def test_forced_layout_in_a_task(both: Path, tmp_path: Path) -> None:
    data = [
        {"question_id": q, "question": f"q{q}?", "image_id": f"i{q}", "answers": [a] * 10}
        for q, a in TRUTH.items()
    ]
    ann = tmp_path / "TextVQA_0.5.1_val.json"
    ann.write_text(json.dumps({"dataset_name": "TextVQA", "data": data}))
    assert evaluate_task("textvqa", both, annotations=ann).headline == 0.5
    forced = evaluate_task("textvqa", both, annotations=ann, format="official")
    assert forced.headline == 1.0


def test_forced_layout_in_the_vqav2_task(ann: Path, both: Path) -> None:
    assert evaluate_task("vqav2", both, annotations=ann).headline == 50.0
    assert evaluate_task("vqav2", both, annotations=ann, format="official").headline == 100.0


def test_forced_vlmevalkit_needs_no_annotations(both: Path) -> None:
    # the 'answer' column is then the ground truth (one reference: VLMEvalKit's sheets)
    ev = evaluate_task("textvqa", both, format="vlmevalkit", profile="vlmevalkit")
    assert ev.data.layouts == ("vlmevalkit (csv)",)


def test_forced_official_has_no_ground_truth(both: Path) -> None:
    with pytest.raises(InputError, match="pass annotations="):
        evaluate_vqa(None, both, input_format="official")


# -- a file without the forced columns ---------------------------------------------------------


def test_missing_columns_name_file_layout_columns(both: Path) -> None:
    with pytest.raises(InputError) as exc:
        read_records(both, format="lmms-eval")
    msg = str(exc.value)
    assert msg.startswith(f"{both}: the forced layout 'lmms-eval'")
    assert "missing 'doc_id', 'filtered_resps'" in msg
    assert "its columns: index, prediction, question_id, answer" in msg


def test_missing_columns_api(ann: Path, both: Path) -> None:
    with pytest.raises(InputError, match=r"forced layout 'llava'.*missing 'text'"):
        evaluate_vqa(ann, both, input_format="llava")
    with pytest.raises(InputError, match=r"forced layout 'gqa'.*missing 'questionId'"):
        evaluate_task("textvqa", both, format="gqa")


@pytest.mark.parametrize("command", ["vqa", "score"])
def test_missing_columns_cli_one_line(
    command: str, ann: Path, both: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--annotations", str(ann), "--results", str(both), "--input-format", "llava"]
    argv = ["vqa", *argv] if command == "vqa" else ["score", "vqav2", *argv]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert str(both) in lines[0] and "'llava'" in lines[0] and "missing 'text'" in lines[0]


def test_cli_forced_official(ann: Path, both: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["vqa", "--annotations", str(ann), "--results", str(both), "--json"]
    assert main([*argv, "--input-format", "official"]) == 0
    assert round(json.loads(capsys.readouterr().out)["metrics"]["overall"], 2) == 100.0
    assert main(argv) == 0
    assert round(json.loads(capsys.readouterr().out)["metrics"]["overall"], 2) == 50.0


def test_cli_unknown_name_is_a_usage_error(
    ann: Path, both: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["vqa", "--annotations", str(ann), "--results", str(both), "--input-format", "xlsb"]
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "'xlsb' is unknown" in capsys.readouterr().err.strip().splitlines()[-1]


@pytest.mark.parametrize(
    "command", ["vqa", "diff", "compare", "profiles", "report", "score", "mmbench"]
)
def test_help_lists_the_choices(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "file formats: json, jsonl, csv, tsv, xlsx" in text
    if command == "mmbench":
        assert "layouts: vlmevalkit;" in text
    else:
        assert "layouts: official, llava, vlmevalkit, lmms-eval, gqa, docvqa, vizwiz" in text


def test_mmbench_rejects_other_layouts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["mmbench", "--data", "d.tsv", "--predictions", "p.xlsx", "--input-format", "llava"]
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "not a layout this reader takes" in capsys.readouterr().err


def test_forced_layout_on_stdin_in_a_task(both: Path, tmp_path: Path) -> None:
    import subprocess
    import sys

    data = [
        {"question_id": q, "question": f"q{q}?", "image_id": f"i{q}", "answers": [a] * 10}
        for q, a in TRUTH.items()
    ]
    ann = tmp_path / "TextVQA_0.5.1_val.json"
    ann.write_text(json.dumps({"dataset_name": "TextVQA", "data": data}))
    base = [sys.executable, "-m", "vqametrics", "score", "textvqa", "--annotations", str(ann)]
    base += ["--results", "-", "--json"]
    for extra, expected in (([], 0.5), (["--input-format", "official,csv"], 1.0)):
        out = subprocess.run(
            [*base, *extra], input=both.read_bytes(), capture_output=True, check=True
        )
        assert json.loads(out.stdout)["metrics"]["accuracy"] == expected


def test_answer_field_over_a_recognized_layout_is_said(
    tmp_path: Path, ann: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a LLaVA answers file whose 'text' is a sentence and 'short' the answer: --answer-field
    # short scores 'short' (all right: 100) and the note must say so, not "answer in 'text'"
    path = tmp_path / "answers.jsonl"
    rows = [
        {"question_id": q, "prompt": "p", "text": f"It is {a}.", "short": a, "model_id": "m"}
        for q, a in TRUTH.items()
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = ["vqa", "--annotations", str(ann), "--results", str(path), "--answer-field", "short"]
    assert main([*args, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert round(payload["metrics"]["overall"], 2) == 100.0
    (note,) = [n for n in payload["notes"] if n.startswith("read ")]
    assert "'short'" in note and "--answer-field" in note
