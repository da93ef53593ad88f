"""Numbers quoted in the README are computed here from the bundled sample."""

from __future__ import annotations

from pathlib import Path

from vqametrics import evaluate_vqa
from vqametrics.data import sample_files

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def test_messy_majority_example() -> None:
    files = sample_files("messy-majority")
    off = evaluate_vqa(files["annotations"], files["results"], questions=files["questions"])
    assert f"overall         3427    {off.accuracy['overall']:.2f}" in README
    assert off.signature.format() in README
    unanimous = sum(len(set(a)) == 1 for a in off.dataset.answers)
    assert f"on the {unanimous:,} questions whose ten answers are" in README
    simple = evaluate_vqa(files["annotations"], files["results"], profile="simple")
    assert f"`--profile simple` the same file scores {simple.accuracy['overall']:.0f}" in README
