"""``vqametrics diff`` and :func:`vqametrics.aggregate.stats.diff_results` (issue 6, part 2)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from reference import official_vqa
from vqametrics import InputError, evaluate_vqa
from vqametrics.aggregate.stats import diff_results
from vqametrics.cli import main
from vqametrics.data import sample_files

PICA_A = "coco14_promptC_gpt3_VinVLTag_n16_repeat5_47.934998_CLIPImagequestion.json"
PICA_B = "coco14_promptC_gpt3_VinVL_n16_repeat5_46.809354_CLIPImagequestion.json"


def _reference_scores(annotations: Path, results: Path) -> list[float]:
    anns = json.loads(annotations.read_text("utf-8"))["annotations"]
    preds = {p["question_id"]: p["answer"] for p in json.loads(results.read_text("utf-8"))}
    return [official_vqa.question_accuracy(q["answers"], preds[q["question_id"]]) for q in anns]


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _diff_args(annotations: Path, a: Path, b: Path, *more: str) -> list[str]:
    return [
        *("diff", "--annotations", str(annotations)),
        *("--results-a", str(a), "--results-b", str(b), *more),
    ]


def test_file_against_itself(capsys: pytest.CaptureFixture[str]) -> None:
    f = sample_files("minority")
    code, out, _ = _run(capsys, *_diff_args(f["annotations"], f["results"], f["results"], "--json"))
    assert code == 0
    d = json.loads(out)
    assert (d["delta"], d["ci95"], d["p_value"], d["se"]) == (0.0, [0.0, 0.0], 1.0, 0.0)
    assert (d["n_differ"], d["flipped"]) == (0, [])
    code, out, _ = _run(capsys, *_diff_args(f["annotations"], f["results"], f["results"]))
    assert "no question changed score" in out


def test_bundled_sample_delta_and_flips(capsys: pytest.CaptureFixture[str]) -> None:
    maj, mino = sample_files("majority"), sample_files("minority")
    ann = maj["annotations"]
    code, out, _ = _run(capsys, *_diff_args(ann, maj["results"], mino["results"], "--json"))
    assert code == 0
    d = json.loads(out)
    a = evaluate_vqa(ann, maj["results"])
    b = evaluate_vqa(ann, mino["results"])
    # expected values from the literal port of the official script (tests/reference/)
    ref_a, ref_b = _reference_scores(ann, maj["results"]), _reference_scores(ann, mino["results"])
    score_a, score_b = 100 * math.fsum(ref_a) / len(ref_a), 100 * math.fsum(ref_b) / len(ref_b)
    assert d["delta"] == pytest.approx(score_a - score_b, abs=1e-9)
    assert (d["score_a"], d["score_b"]) == pytest.approx((score_a, score_b), abs=1e-9)
    lo, hi = d["ci95"]
    assert lo <= d["delta"] <= hi
    assert d["bootstrap"]["resampled"] == "images"
    flips = d["flipped"]
    changed = [i for i, (x, y) in enumerate(zip(ref_a, ref_b, strict=True)) if x != y]
    assert len(flips) == d["n_differ"] == len(changed)
    sizes = [abs(f["difference"]) for f in flips]
    assert sizes == sorted(sizes, reverse=True)
    first = flips[0]
    i = a.dataset.index[first["question_id"]]
    assert first["prediction_a"] == a.predictions[i]
    assert first["prediction_b"] == b.predictions[i]
    assert first["answers"] == a.dataset.answers[i]
    assert first["difference"] == a.scores[i] - b.scores[i]
    assert d["signature"] == (
        a.signature.format().replace(
            "|vqametrics:", "|bootstrap:1000|permutations:10000|seed:12345|vqametrics:"
        )
    )


def test_text_lists_top_k(capsys: pytest.CaptureFixture[str]) -> None:
    maj, mino = sample_files("majority"), sample_files("minority")
    args = _diff_args(maj["annotations"], maj["results"], mino["results"], "--top", "3")
    code, out, _ = _run(capsys, *args)
    assert code == 0
    lines = out.splitlines()
    assert lines[3].split()[:4] == ["group", "n", "A", "−"]
    head = next(i for i, line in enumerate(lines) if line.startswith("question "))
    assert lines[head + 5].startswith("vqa-acc|")  # header, rule, 3 questions, signature
    assert "the 3 largest changes:" in out


def test_breakdowns_and_their_p_values(
    capsys: pytest.CaptureFixture[str], fixture_5q: Path
) -> None:
    ann = fixture_5q / "annotations.json"
    ev = evaluate_vqa(ann, fixture_5q / "results.json")
    worse = {qid: "zzz" for qid in ev.question_ids}
    worse[ev.question_ids[0]] = ev.predictions[0] or ""
    other = evaluate_vqa(ann, worse)
    d = diff_results(ev, other)
    assert set(d.test.groups) == {"perAnswerType", "perQuestionType"}
    assert list(d.test.groups["perQuestionType"]) == list(ev.accuracy["perQuestionType"])
    # 4 of 5 questions drop to 0 on 4 distinct images: exact enumeration over 2^4 patterns,
    # all four differences positive -> only the all-+ and all-- patterns reach it: p = 2/16
    assert d.test.permutation == "exact"
    assert d.test.overall.p_value == 2 / 16
    assert len(d.flips) == 4


def test_different_annotations_are_refused(fixture_5q: Path) -> None:
    f = sample_files("majority")
    a = evaluate_vqa(f["annotations"], f["results"])
    b = evaluate_vqa(fixture_5q / "annotations.json", fixture_5q / "results.json")
    with pytest.raises(InputError, match="must cover the same annotations"):
        diff_results(a, b)


def test_result_file_missing_questions_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    f = sample_files("majority")
    preds = json.loads(f["results"].read_text())
    short = tmp_path / "short.json"
    short.write_text(json.dumps(preds[1:]))
    code, out, err = _run(capsys, *_diff_args(f["annotations"], f["results"], short))
    assert (code, out) == (2, "")
    assert err.startswith("vqametrics: error:")
    assert str(preds[0]["question_id"]) in err


def test_pica_okvqa_worked_example(capsys: pytest.CaptureFixture[str], shared_data: Path) -> None:
    """The README's worked example: PICa VinVLTag − VinVL on OK-VQA val (official scores
    48.03 and 46.86)."""
    base = shared_data / "okvqa_val"
    ann = base / "okvqa_val_eval.json"
    code, out, _ = _run(capsys, *_diff_args(ann, base / PICA_A, base / PICA_B, "--json"))
    assert code == 0
    d = json.loads(out)
    assert (round(d["score_a"], 2), round(d["score_b"], 2)) == (48.03, 46.86)
    assert d["delta"] == d["score_a"] - d["score_b"]  # exact, unrounded
    assert round(d["delta"], 2) == 1.17
    lo, hi = d["ci95"]
    assert lo < d["delta"] < hi
    # the seeded numbers quoted in the README (numpy's PCG64 stream)
    assert (round(lo, 2), round(hi, 2), round(d["p_value"], 4)) == (0.21, 2.11, 0.0161)
    assert d["n_differ"] == len(d["flipped"]) == 872
    assert d["bootstrap"]["clusters"] == 5033


def test_readme_shows_this_output(capsys: pytest.CaptureFixture[str], shared_data: Path) -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    base = shared_data / "okvqa_val"
    code, out, _ = _run(
        capsys,
        *_diff_args(base / "okvqa_val_eval.json", base / PICA_A, base / PICA_B, "--top", "5"),
    )
    assert code == 0
    body = out.splitlines()[2:]  # the README runs from ../shared/data: the A/B paths differ
    assert "\n".join(body) in readme
