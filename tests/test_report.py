"""``vqametrics report``: one self-contained HTML file (golden-ish structure checks)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from vqametrics import evaluate_vqa
from vqametrics.cli import main
from vqametrics.cli.report import ProgressBar
from vqametrics.data import sample_files
from vqametrics.views.html import build_report, render_report

EXTERNAL = re.compile(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", re.I)
VINVLTAG = "coco14_promptC_gpt3_VinVLTag_n16_repeat5_47.934998_CLIPImagequestion.json"
VINVL = "coco14_promptC_gpt3_VinVL_n16_repeat5_46.809354_CLIPImagequestion.json"


def assert_self_contained(text: str) -> None:
    assert text.startswith("<!doctype html>")
    assert not EXTERNAL.search(text), EXTERNAL.search(text)
    # inline scripts only (the per-question table): nothing fetched
    assert not re.search(r"<script[^>]*\bsrc\s*=", text)
    assert "fetch(" not in text and "XMLHttpRequest" not in text
    assert "<link" not in text and "@import" not in text
    assert not re.search(r"url\(\s*['\"]?(?!#)", text)  # only in-document references
    assert "<img" not in text


@pytest.fixture(scope="module")
def sample_report() -> str:
    files = sample_files("messy-majority")
    model = build_report(
        files["annotations"],
        [files["results"], sample_files("minority")["results"]],
        questions=files["questions"],
        n_cards=4,
    )
    return render_report(model)


def test_sample_report_structure(sample_report: str) -> None:
    text = sample_report
    assert_self_contained(text)
    messy = evaluate_vqa(
        sample_files("messy-majority")["annotations"], sample_files("messy-majority")["results"]
    )
    minority = evaluate_vqa(
        sample_files("minority")["annotations"], sample_files("minority")["results"]
    )
    assert f"{messy.accuracy['overall']:.2f}" in text
    assert f"{minority.accuracy['overall']:.2f}" in text
    assert messy.signature.format() in text
    # distribution, rules x2, profiles, comparison
    assert text.count("<svg") >= 5
    for anchor in ("headline", "distribution", "types", "rules", "profiles", "why", "compare"):
        assert f'id="{anchor}"' in text
    assert text.count('class="why"') == 8  # 4 cards per model
    assert "EM-any" in text and "Comparison of the models" in text


def test_sample_report_cards_show_question_text(sample_report: str) -> None:
    # the questions file gives the cards their text; the messy set's worst are unanimous
    assert "All answers are identical after cleanup" in sample_report
    assert "<p>Is " in sample_report or "<p>What " in sample_report or "<p>Does " in sample_report


def test_every_profile_is_shown(sample_report: str) -> None:
    from vqametrics import list_profiles

    for p in list_profiles():
        assert f'<th scope="row">{p.name}</th>' in sample_report


def test_report_is_deterministic() -> None:
    files = sample_files("textbook")
    a = render_report(build_report(files["annotations"], [files["results"]]))
    b = render_report(build_report(files["annotations"], [files["results"]]))
    assert a == b
    assert "100.00" in a  # the textbook example's first question, in its card table


def test_progress_bar_silent_when_not_a_terminal() -> None:
    stream = io.StringIO()
    bar = ProgressBar(stream)
    files = sample_files("textbook")
    build_report(files["annotations"], [files["results"]], progress=bar)
    bar.close()
    assert stream.getvalue() == ""


def test_progress_bar_draws_on_a_terminal() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Tty()
    bar = ProgressBar(stream)
    calls: list[tuple[int, int]] = []

    def progress(done: int, total: int, what: str) -> None:
        calls.append((done, total))
        bar(done, total, what)

    files = sample_files("textbook")
    build_report(files["annotations"], [files["results"]], progress=progress)
    bar.close()
    out = stream.getvalue()
    assert "\r[" in out and "100%" in out and out.endswith("\n")
    assert calls[-1][0] == calls[-1][1]
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_cli_report_writes_one_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = sample_files("majority")
    out = tmp_path / "report.html"
    code = main(
        [
            "report",
            "--annotations",
            str(files["annotations"]),
            "--results",
            str(files["results"]),
            "-o",
            str(out),
        ]
    )
    assert code == 0
    captured = capsys.readouterr()
    assert "VQA acc 100.00" in captured.out
    assert captured.err.strip() == f"wrote {out}"  # no progress bar: not a terminal
    assert_self_contained(out.read_text(encoding="utf-8"))
    assert list(tmp_path.iterdir()) == [out]


def test_cli_report_warns_once_not_once_per_profile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the report re-scores the same file under all eight profiles: each input warning
    # (an id written "1" against 1, a question with 3 answers) must still appear once
    ann, res = tmp_path / "ann.json", tmp_path / "res.json"
    ann.write_text('[{"question_id": 1, "answers": ["a", "a", "b"]}]')
    res.write_text('[{"question_id": "1", "answer": "a"}]')
    out = tmp_path / "r.html"
    assert main(["report", "--annotations", str(ann), "--results", str(res), "-o", str(out)]) == 0
    err = capsys.readouterr().err.splitlines()
    warned = [line for line in err if line.startswith("vqametrics: warning:")]
    assert len(warned) == 2, err
    assert any("spelled differently" in w for w in warned)
    assert any("do not have 10 answers" in w for w in warned)


def test_cli_report_missing_file_is_exit_2(tmp_path: Path) -> None:
    files = sample_files("majority")
    code = main(
        [
            "report",
            "--annotations",
            str(files["annotations"]),
            "--results",
            str(tmp_path / "nope.json"),
            "-o",
            str(tmp_path / "r.html"),
        ]
    )
    assert code == 2


@pytest.mark.shared
@pytest.mark.slow
def test_okvqa_pica_vinvltag_report(shared_data: Path, tmp_path: Path) -> None:
    """Done-when of issue 5: the PICa VinVLTag run over OK-VQA val shows 48.03, 3+ charts."""
    d = shared_data / "okvqa_val"
    out = tmp_path / "okvqa.html"
    code = main(
        [
            "report",
            "--annotations",
            str(d / "okvqa_val_eval.json"),
            "--results",
            str(d / VINVLTAG),
            "-o",
            str(out),
        ]
    )
    assert code == 0
    text = out.read_text(encoding="utf-8")
    assert_self_contained(text)
    assert "48.03" in text
    assert text.count("<svg") >= 3
    assert "vqa-acc|profile:official|" in text and "|n:5046|" in text


@pytest.mark.shared
@pytest.mark.slow
def test_okvqa_two_runs_are_compared(shared_data: Path, tmp_path: Path) -> None:
    d = shared_data / "okvqa_val"
    model = build_report(d / "okvqa_val_eval.json", [d / VINVLTAG, d / VINVL], n_cards=2)
    text = render_report(model)
    assert "48.03" in text and "46.86" in text
    assert 'id="compare"' in text
    pair = model.paired[0]
    assert pair["wins"] + pair["ties"] + pair["losses"] == 5046
