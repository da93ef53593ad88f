"""The report compares models exactly as `diff` does, and adds the workflow views."""

from __future__ import annotations

import base64
import csv
import io
import json
import re
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from vqametrics import evaluate_vqa
from vqametrics.cli import main
from vqametrics.data import sample_files
from vqametrics.views.html import build_report, render_report
from vqametrics.views.nearmiss import classify, near_misses

SYSTEMS = ("majority", "minority", "messy-majority")


@pytest.fixture(scope="module")
def three() -> tuple[object, str]:
    files = {s: sample_files(s) for s in SYSTEMS}
    first = files[SYSTEMS[0]]
    model = build_report(
        first["annotations"],
        [files[s]["results"] for s in SYSTEMS],
        questions=first["questions"],
        n_cards=3,
        names=["maj", "min", "messy"],
    )
    return model, render_report(model)


def test_report_delta_equals_diff(
    three: tuple[object, str], capsys: pytest.CaptureFixture[str]
) -> None:
    model, text = three
    files = {s: sample_files(s) for s in SYSTEMS}
    pairs = [(0, 1), (0, 2), (1, 2)]
    assert [(p["a"], p["b"]) for p in model.paired] == [("maj", "min"), ("maj", "messy"),  # type: ignore[attr-defined]
                                                        ("min", "messy")]  # fmt: skip
    for k, (i, j) in enumerate(pairs):
        args = ["diff", "--annotations", str(files[SYSTEMS[i]]["annotations"])]
        args += ["--results", str(files[SYSTEMS[i]]["results"])]
        args += ["--results", str(files[SYSTEMS[j]]["results"]), "--json"]
        assert main(args) == 0
        expected = json.loads(capsys.readouterr().out)
        pair = model.paired[k]  # type: ignore[attr-defined]
        assert pair["delta"] == expected["delta"]  # A − B, bit for bit
        assert [pair["low"], pair["high"]] == expected["ci95"]
        assert pair["p_value"] == expected["p_value"]
        label = f"{pair['a']} − {pair['b']}"
        assert re.search(re.escape(label) + "</th>.*?" + re.escape(f"{pair['delta']:+.2f}"), text)


def test_three_models_have_a_matrix_and_changed_questions(three: tuple[object, str]) -> None:
    _, text = three
    assert "Pairwise matrix: row − column" in text
    assert "maj − min: 1515 questions changed" in text  # as diff: 1,515 changed (test_tables)
    assert "95% CI [" in text  # headline intervals


def test_questions_table_and_csv(three: tuple[object, str]) -> None:
    model, text = three
    uri = re.search(r'href="data:text/csv;charset=utf-8;base64,([^"]+)"', text)
    assert uri is not None
    rows = list(csv.reader(io.StringIO(base64.b64decode(uri.group(1)).decode())))
    n = len(model.dataset)  # type: ignore[attr-defined]
    assert len(rows) == n + 1
    assert rows[0][:4] == ["question_id", "question", "answer_type", "answers"]
    assert rows[0][4:6] == ["maj: prediction", "maj: score"]
    scores = model.runs[1].evaluation.scores  # type: ignore[attr-defined]
    assert [float(r[7]) for r in rows[1:]] == [100 * s for s in scores]
    assert 'id="qsearch"' in text and '<script type="application/json" id="qdata">' in text
    payload = re.search(r'id="qdata">(.*?)</script>', text, re.S)
    assert payload is not None and len(json.loads(payload.group(1))["rows"]) == n
    assert json.loads(payload.group(1))["fixed"] == [5, 7, 9]  # the three score columns


def test_cards_group_identical_slips() -> None:
    files = sample_files("always-yes")
    model = build_report(files["annotations"], [files["results"]], n_cards=4)
    text = render_report(model)
    cards = re.findall(r'<div class="why">.*?</div>', text, re.S)
    assert cards
    for card in cards:
        answers = re.findall(r"<tr[^>]*><td class=\"n\">×(\d+)</td><td><code>(.*?)</code>", card)
        if not answers:
            continue
        texts = [a for _, a in answers]
        assert len(texts) == len(set(texts)), card  # one row per distinct slip
        assert sum(int(c) for c, _ in answers) >= len(texts)


def test_near_miss_kinds_by_hand() -> None:
    from vqametrics import get_profile

    off = get_profile("official")
    assert classify("Yes", ["yes"] * 10, off, True) == ("unanimity", "")
    assert classify("pancakes", ["pancake"] * 10, off, False) == ("plural", "-s")
    assert classify("berries", ["berry"] * 6 + ["fruit"] * 4, off, False) == ("plural", "-ies")
    assert classify("twelve", ["12"] * 10, off, False) == ("number", "")
    assert classify("a red car", ["red"] * 10, off, False) == ("answer in prediction", "")
    assert classify("red", ["red car"] * 10, off, False) == ("prediction in answer", "")
    assert classify("i think it is blue", ["green"] * 10, off, False) == ("verbose", "")
    assert classify("cat", ["dog"] * 10, off, False) is None


@pytest.mark.shared
def test_okvqa_pica_5gt_has_109_plural_s_near_misses(shared_data: Path) -> None:
    d = shared_data / "okvqa_val"
    run = d / "coco14_promptC_gpt3_5GT_n16_repeat5_53.246136_CLIPImagequestion.json"
    ev = evaluate_vqa(d / "okvqa_val_eval.json", run)
    nm = near_misses(ev)
    # issue 13: "109 plural near-misses among its zeros" (pancakes vs ten pancake)
    assert nm.kinds["plural"].by_detail["-s"] == 109
    assert nm.count("plural") == 116  # + 3 "-es" (potatoes) + 4 "-ies" (fries, batteries)


def test_cli_names_and_out_alias(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = sample_files("majority"), sample_files("minority")
    out = tmp_path / "r.html"
    args = ["report", "--annotations", str(a["annotations"]), "--results", str(a["results"])]
    args += ["--results", str(b["results"]), "--name", "A", "--name", "B", "--out", str(out)]
    assert main(args) == 0
    assert capsys.readouterr().out.startswith("A: VQA acc 100.00")
    assert "A − B</th>" in out.read_text(encoding="utf-8")
