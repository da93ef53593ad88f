"""A command line that gives the same thing twice, or two spellings of one thing, is refused
with a message naming both, never resolved silently (last wins, or three systems for two)."""

from __future__ import annotations

import json

import pytest

from vqametrics.cli import main
from vqametrics.data import sample_files


def _err(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_explain_options_letter_given_twice(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["explain", "--task", "mmbench", "B", "--answers", "B", "--options"]
    code, out, err = _err(capsys, *argv, "A=cat", "A=dog", "B=bird")
    assert (code, out) == (2, "")
    assert "letter 'A' twice" in err and "'cat'" in err and "A=dog" in err
    # each letter once is fine: the answer B is right
    code, out, _ = _err(capsys, *argv, "A=cat", "B=bird", "--json")
    assert code == 0 and json.loads(out)["detail"]["letter"] == "B"


@pytest.mark.parametrize(
    "pair",
    [
        ("--results", "{r}", "--results-a", "{r}", "--results-b", "{r}"),
        ("--results-b", "{r}", "--results", "{r}"),
        ("--results-a", "{r}"),
        ("--results-a", "{r}", "--results", "{r}"),
    ],
)
def test_diff_mixing_results_spellings(
    capsys: pytest.CaptureFixture[str], pair: tuple[str, ...]
) -> None:
    f = sample_files("minority")
    argv = [a.format(r=f["results"]) for a in pair]
    code, out, err = _err(capsys, "diff", "--annotations", str(f["annotations"]), *argv)
    assert (code, out) == (2, "")
    assert "not a mix" in err and "--results-a A --results-b B" in err
