"""Numbers quoted in the README are computed here from the bundled sample."""

from __future__ import annotations

from pathlib import Path

import pytest

from vqametrics import evaluate_vqa
from vqametrics.data import sample_files

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def test_messy_majority_example() -> None:
    files = sample_files("messy-majority")
    off = evaluate_vqa(files["annotations"], files["results"], questions=files["questions"])
    assert f"overall         3427    {off.accuracy['overall']:.2f}" in README
    assert off.signature.format() in README
    d = off.diagnostics
    assert (
        f"warning: {d.verbose} of {d.n} predictions look verbose (sentences {d.verbose});" in README
    )
    unanimous = sum(len(set(a)) == 1 for a in off.dataset.answers)
    assert f"on the {unanimous:,} questions whose ten answers are" in README
    simple = evaluate_vqa(files["annotations"], files["results"], profile="simple")
    assert f"`--profile simple` the same file scores {simple.accuracy['overall']:.0f}" in README


def test_pica_metric_table(shared_data: Path) -> None:
    from vqametrics.views.em_summary import exact_match_breakdowns

    ok = shared_data / "okvqa_val"
    for run, label in [
        ("VinVLTag_n16_repeat5_47.934998", "VinVLTag (PICa-Full, published 48.0)"),
        ("VinVL_n16_repeat5_46.809354", "VinVL"),
        ("5GT_n16_repeat5_53.246136", "5GT"),
    ]:
        r = evaluate_vqa(
            ok / "okvqa_val_eval.json", ok / f"coco14_promptC_gpt3_{run}_CLIPImagequestion.json"
        )
        em = exact_match_breakdowns(r, ["em", "em-any"])
        row = (
            f"| {label} | {r.accuracy['overall']:.2f} | {em['em']['overall']:.2f} "
            f"| {em['em_any']['overall']:.2f} |"
        )
        assert row in README


def test_profile_examples() -> None:
    from vqametrics import vqa_accuracy

    # "`Yes` against ten `yes` scores 0 in the official script and 1 in lmms-eval"
    assert "`Yes` against ten `yes` scores 0 in\nthe official script and 1 in lmms-eval" in README
    assert vqa_accuracy("Yes", ["yes"] * 10) == 0.0
    assert vqa_accuracy("Yes", ["yes"] * 10, profile="lmms-eval-vqav2") == 1.0
    # with ten `2` the unanimity rule would make the official score 0 too
    assert "`2.` against nine `2` and a `3` scores 1 officially and 0\nin VLMEvalKit" in README
    two = ["2"] * 9 + ["3"]
    assert vqa_accuracy("2.", two) == 1.0
    assert vqa_accuracy("2.", two, profile="vlmevalkit") == 0.0
    dont_claim = "`dont` against four `don't` and six `no` scores 1 officially and 0 in EvalScope"
    assert dont_claim in README
    dont = ["don't"] * 4 + ["no"] * 6
    assert vqa_accuracy("dont", dont) == 1.0
    assert vqa_accuracy("dont", dont, profile="evalscope") == 0.0


def test_two_systems_markdown_table(capsys: pytest.CaptureFixture[str]) -> None:
    from vqametrics.cli import main

    maj, mino = sample_files("majority"), sample_files("minority")
    args = ["vqa", "--annotations", str(maj["annotations"]), "--results", str(maj["results"])]
    assert main([*args, "--results", str(mino["results"]), "--format", "markdown"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("|")]
    assert len(rows) == 4
    for row in rows:
        assert row in README


def test_chat_template_numbers_match_the_chat_page() -> None:
    # the numbers themselves are computed and pinned in tests/extract/test_docs.py
    page = (Path(__file__).resolve().parents[1] / "docs" / "chat-models.md").read_text()
    assert "| none (wrapped, as written) | 5.37 |" in page
    assert "| `--extract answer` | 100.00 |" in page
    assert (
        "the majority\nanswers score 5.37 as written and 100.00 with `--extract answer`" in README
    )


def test_okvqa_diff_example(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from vqametrics.cli import main

    ok = shared_data / "okvqa_val"
    run = "coco14_promptC_gpt3_{}_CLIPImagequestion.json"
    a = ok / run.format("VinVLTag_n16_repeat5_47.934998")
    b = ok / run.format("VinVL_n16_repeat5_46.809354")
    args = ["diff", "--annotations", str(ok / "okvqa_val_eval.json")]
    assert main([*args, "--results-a", str(a), "--results-b", str(b), "--top", "5"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("A: ") and out[0].endswith("  48.03")
    assert out[1].startswith("B: ") and out[1].endswith("  46.86")
    for line in out[2:]:
        assert line in README.splitlines(), line
