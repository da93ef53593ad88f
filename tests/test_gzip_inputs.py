"""Annotation and question files may be gzip-compressed, like results files.

gzip is recognized by its magic bytes (a compressed file without ``.gz`` is read too); a file
named ``.gz`` that is not gzip, and a truncated stream, are one line each (exit 2 in the CLI).
The expected numbers are those of the same files uncompressed: compression must not change a
score.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from vqametrics import evaluate_vqa
from vqametrics.cli import main
from vqametrics.core.exceptions import InputError
from vqametrics.mmbench.load import read_table
from vqametrics.readers.aokvqa import load_aokvqa
from vqametrics.tasks._run import evaluate_task

DATA = Path(__file__).resolve().parents[1] / "src" / "vqametrics" / "data"
VQA = DATA / "vqa2_val_sample"
TEXTVQA = DATA / "textvqa_val_sample"
MMBENCH = Path(__file__).resolve().parent / "data" / "mmbench" / "mmbench_samples.tsv"


def _gz(src: Path, dest: Path) -> Path:
    dest.write_bytes(gzip.compress(src.read_bytes()))
    return dest


def test_vqa_annotations_and_questions_gzip_score_as_plain(tmp_path: Path) -> None:
    res = VQA / "results_messy-majority.json"
    plain = evaluate_vqa(VQA / "annotations.json", res, questions=VQA / "questions.json")
    ann = _gz(VQA / "annotations.json", tmp_path / "annotations.json.gz")
    qs = _gz(VQA / "questions.json", tmp_path / "questions.json.gz")
    packed = evaluate_vqa(ann, res, questions=qs)
    assert packed.scores == plain.scores
    assert packed.accuracy == plain.accuracy
    assert packed.accuracy["overall"] == 46.45  # the bundled sample's documented score


def test_gzip_is_recognized_by_content_not_name(tmp_path: Path) -> None:
    res = VQA / "results_messy-majority.json"
    ann = _gz(VQA / "annotations.json", tmp_path / "annotations.json")  # no .gz
    assert evaluate_vqa(ann, res).scores == evaluate_vqa(VQA / "annotations.json", res).scores


def test_textvqa_task_annotations_gzip(tmp_path: Path) -> None:
    res = TEXTVQA / "results_vila-1.5-8b.json"
    plain = evaluate_task("textvqa", res, annotations=TEXTVQA / "annotations.json")
    ann = _gz(TEXTVQA / "annotations.json", tmp_path / "TextVQA_0.5.1_val.json.gz")
    packed = evaluate_task("textvqa", res, annotations=ann)
    assert packed.scores == plain.scores
    assert packed.metrics == plain.metrics


def test_vqav2_task_annotations_gzip(tmp_path: Path) -> None:
    res = VQA / "results_messy-majority.json"
    ann = _gz(VQA / "annotations.json", tmp_path / "a.json.gz")
    plain = evaluate_task("vqav2", res, annotations=VQA / "annotations.json")
    packed = evaluate_task("vqav2", res, annotations=ann)
    assert packed.scores == plain.scores


def test_mmbench_data_file_gzip(tmp_path: Path) -> None:
    if not MMBENCH.is_file():
        pytest.skip(f"{MMBENCH} is not bundled in this checkout")
    plain = read_table(MMBENCH)
    packed = read_table(_gz(MMBENCH, tmp_path / "mmbench_dev.tsv.gz"))
    assert packed.header == plain.header
    assert packed.rows == plain.rows and len(plain.rows) > 0
    unnamed = read_table(_gz(MMBENCH, tmp_path / "mmbench_dev.tsv"))  # gzip without .gz
    assert unnamed.rows == plain.rows


def test_aokvqa_gzip(tmp_path: Path) -> None:
    rows = (
        '[{"question_id": "q1", "direct_answers": ["a","a","b","a","a","a","a","a","a","a"],'
        ' "choices": ["a", "b"], "correct_choice_idx": 0}]'
    )
    path = tmp_path / "aokvqa_v1p0_val.json.gz"
    path.write_bytes(gzip.compress(rows.encode()))
    assert [it.question_id for it in load_aokvqa(path)] == ["q1"]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b'{"annotations": []}', "named .gz but is not gzip-compressed"),
        (gzip.compress(b'{"annotations": [' + b" " * 5000 + b"]}")[:20], "not a valid gzip"),
    ],
    ids=["not-gzip", "truncated"],
)
def test_bad_gzip_annotations_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, expected: str
) -> None:
    ann = tmp_path / "annotations.json.gz"
    ann.write_bytes(content)
    with pytest.raises(InputError, match=expected):
        evaluate_vqa(ann, VQA / "results_messy-majority.json")
    code = main(["vqa", "--annotations", str(ann), "--results", str(VQA / "results.json")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and str(ann) in err[0] and expected in err[0]


def test_truncated_gzip_task_annotations(tmp_path: Path) -> None:
    ann = tmp_path / "TextVQA_0.5.1_val.json.gz"
    ann.write_bytes(gzip.compress((TEXTVQA / "annotations.json").read_bytes())[:200])
    with pytest.raises(InputError, match="not a valid gzip stream"):
        evaluate_task("textvqa", TEXTVQA / "results_vila-1.5-8b.json", annotations=ann)
