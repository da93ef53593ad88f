"""``vqametrics report --task``: one self-contained HTML page for a run of any task."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from vqametrics.cli import main
from vqametrics.data import data_path, sample_files
from vqametrics.views.task_html import guess_task

CASES = json.loads(
    (Path(__file__).parent / "data" / "vqa-family-cases.json").read_text(encoding="utf-8")
)
TEXTVQA = data_path("textvqa_val_sample")
EXTERNAL = re.compile(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", re.I)


def assert_offline(text: str) -> None:
    """One file: nothing fetched (no external src/href, script, stylesheet, image or font)."""
    assert text.startswith("<!doctype html>")
    assert not EXTERNAL.search(text), EXTERNAL.search(text)
    assert "<script" not in text and "<link" not in text and "@import" not in text
    assert "<img" not in text and "fetch(" not in text
    assert not re.search(r"url\(\s*['\"]?(?!#)", text)


def _pope_files(tmp_path: Path) -> tuple[Path, Path]:
    """The shared 8-answer POPE case as the official layout: answers JSONL + a label file."""
    case = CASES["pope_aggregate"][0]["input"]
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({"answer": a}) + "\n" for a in case["answers"]))
    labels = tmp_path / "coco_pope_random.json"
    labels.write_text("".join(json.dumps({"label": x}) + "\n" for x in case["labels"]))
    return answers, labels


def test_report_task_pope(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answers, labels = _pope_files(tmp_path)
    out = tmp_path / "pope.html"
    args = ["report", "--task", "pope", "--results", str(answers), "--annotations", str(labels)]
    assert main([*args, "-o", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("POPE: ") and "pope|profile:official|" in captured.out
    assert captured.err.strip().endswith(f"wrote {out}")
    text = out.read_text(encoding="utf-8")
    assert_offline(text)
    for anchor in ("headline", "distribution", "why"):
        assert f'id="{anchor}"' in text
    assert text.count("<svg") >= 1  # the distribution chart
    assert "pope|profile:official|" in text
    # the shared case's official numbers (acc 0.625, F1 2/3 as the script sums it)
    want = CASES["pope_aggregate"][0]["expected"]["official"]
    assert "0.625" in text or "62.5" in text
    # every item gets a card (8 < 12) naming its confusion cell: the shared counts
    for cell in ("TP", "FP", "TN", "FN"):
        assert text.count(f"counted as {cell}") == want[cell], cell
    assert sorted(tmp_path.iterdir()) == sorted([answers, labels, out])  # nothing staged left


def test_report_task_textvqa_sections(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "textvqa.html"
    args = ["report", "--task", "textvqa", "--results", str(TEXTVQA / "results_vila-1.5-8b.json")]
    args += ["--annotations", str(TEXTVQA / "annotations.json"), "--cards", "200", "-o", str(out)]
    assert main(args) == 0
    capsys.readouterr()
    text = out.read_text(encoding="utf-8")
    assert_offline(text)
    assert "<h1>TextVQA evaluation</h1>" in text
    assert "textvqa-acc|profile:official|toolkit:mmf@b0ffc7f|n:200|" in text
    # question 34640 (hand-derived in test_explain_item.py): MMF's left-to-right sum
    assert "Item 34640 · score 0.9</h3>" in text
    assert text.count('class="why"') == 200


def test_report_groups_and_reported_numbers(tmp_path: Path) -> None:
    """A VLMEvalKit sheet with a category column and its _acc.csv beside it: the per-category
    table and chart, and the toolkit's numbers beside ours. The sheet is written here, so the
    reported numbers are a hand count: 3 of 4 right overall (75), 2 of 3 in 'a'
    (np.mean = 0.6666666666666666, × 100 = 66.66666666666666), 1 of 1 in 'b' (100)."""
    sheet = tmp_path / "m_OCRVQA_TEST.tsv"
    rows = [
        ("0", "q", "Fiction", "fiction", "a"),
        ("1", "q", "Travel", "travel ", "a"),
        ("2", "q", "Law", "cooking", "a"),
        ("3", "q", "Art", "art", "b"),
    ]
    with sheet.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, delimiter="\t")
        w.writerow(["index", "question", "answer", "prediction", "category"])
        w.writerows(rows)
    acc = tmp_path / "m_OCRVQA_TEST_acc.csv"
    acc.write_text('"Overall","a","b"\n"75.0","66.66666666666666","100.0"\n', encoding="utf-8")
    out = tmp_path / "r.html"
    assert main(["report", "--task", "ocrvqa", "--results", str(sheet), "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert_offline(text)
    assert 'id="groups"' in text and text.count("<svg") >= 2  # per-category chart + scores
    assert '<th scope="row">a</th><td class="n">66.67</td><td class="n">3</td>' in text
    assert 'id="reported"' in text
    for label, value in (("Overall", "75.00"), ("a", "66.67"), ("b", "100.00")):
        cells = f'<td class="n">{value}</td>'
        assert f'<th scope="row">{label}</th>{cells}{cells}<td class="n">0</td>' in text, label


def test_report_without_task_refuses_a_textvqa_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.html"
    args = ["report", "--annotations", str(TEXTVQA / "annotations.json")]
    args += ["--results", str(TEXTVQA / "results_vila-1.5-8b.json"), "-o", str(out)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "looks like a TextVQA file" in err and "--task textvqa" in err
    assert not out.exists()
    # a VLMEvalKit sheet says its benchmark in its name
    sheet = tmp_path / "vila_8b_TextVQA_VAL.xlsx"
    sheet.write_bytes(b"")
    assert main(["report", "--results", str(sheet), "-o", str(out)]) == 2
    assert "--task textvqa" in capsys.readouterr().err


def test_report_without_task_is_still_vqa(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = sample_files("majority")
    out = tmp_path / "r.html"
    args = ["report", "--annotations", str(files["annotations"]), "--results"]
    args += [str(files["results"]), "-o", str(out)]
    assert main(args) == 0
    assert "VQA acc 100.00" in capsys.readouterr().out  # the majority answer everywhere
    assert main([*args[:1], "--task", "vqav2", *args[1:]]) == 0
    assert "VQA acc 100.00" in capsys.readouterr().out


def test_guess_task_by_name_and_dataset_name(tmp_path: Path) -> None:
    assert guess_task(["vila_8b_TextVQA_VAL.xlsx"])[0] == "textvqa"  # type: ignore[index]
    assert guess_task(["samples_ok_vqa_val2014.jsonl"])[0] == "okvqa"  # type: ignore[index]
    assert guess_task(["coco_pope_random.json"])[0] == "pope"  # type: ignore[index]
    assert guess_task(["v2_OpenEnded_mscoco_val2014_questions.json", None]) is None
    assert guess_task(["summer_results.json"]) is None  # 'mme' inside a word is no name
    gt = tmp_path / "gt.json"
    gt.write_text('{"dataset_name": "docvqa", "data": []}', encoding="utf-8")
    assert guess_task([gt])[0] == "docvqa"  # type: ignore[index]


def test_report_task_one_results_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answers, labels = _pope_files(tmp_path)
    args = ["report", "--task", "pope", "--annotations", str(labels)]
    args += ["--results", str(answers), "--results", str(answers), "-o", str(tmp_path / "r.html")]
    assert main(args) == 2
    assert "one --results per report" in capsys.readouterr().err


@pytest.mark.shared
@pytest.mark.slow
def test_textvqa_vlmevalkit_reported_equals_recomputed(shared_data: Path, tmp_path: Path) -> None:
    """VILA-1.5-8B's TextVQA sheet: VLMEvalKit before 2025-05-13 reported 60.162 (its
    _acc.csv); the vlmevalkit-2024 profile recomputes it to the last bit (difference 0)."""
    d = shared_data / "textvqa_val" / "vlmevalkit"
    reported = (d / "vila_8b_TextVQA_VAL_acc.csv").read_text(encoding="utf-8")
    out = tmp_path / "r.html"
    args = ["report", "--task", "textvqa", "--profile", "vlmevalkit-2024", "--cards", "3"]
    assert main([*args, "--results", str(d / "vila_8b_TextVQA_VAL.xlsx"), "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert_offline(text)
    assert "60.16" in reported and 'id="reported"' in text
    row = re.search(
        r"<th scope=\"row\">Overall</th><td class=\"n\">([^<]+)</td>"
        r"<td class=\"n\">([^<]+)</td><td class=\"n\">([^<]+)</td>",
        text,
    )
    assert row is not None
    assert row.group(1).strip() == row.group(2).strip() and row.group(3) == "0"
