"""``explain_item`` / ``explain_answer`` for every task family, and ``explain --task``.

Expected values come from the shared cases (``tests/data/vqa-family-cases.json``, produced by
running each toolkit's own code), the specs' documented quirks, and hand derivations written
out beside each test — never from the explanation code itself.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vqametrics.cli import main
from vqametrics.core.exceptions import UnknownNameError
from vqametrics.data import data_path
from vqametrics.tasks._run import evaluate_task
from vqametrics.views.explanation import ItemExplanation, explain_answer, explain_item

CASES = json.loads(
    (Path(__file__).parent / "data" / "vqa-family-cases.json").read_text(encoding="utf-8")
)
TEXTVQA = data_path("textvqa_val_sample")


def _cases(family: str) -> list[dict[str, Any]]:
    """The family's one-item cases (the dataset-level ones have no single prediction)."""
    single = ("prediction", "answer", "response")
    return [c for c in CASES[family] if any(k in c["input"] for k in single)]


def _column(e: ItemExplanation, header: str) -> list[object]:
    j = e.table_header.index(header)
    return [row[j] for row in e.table_rows]


# --- VQA-accuracy family: normalization steps and the leave-one-out table -----------------

TEXTVQA_PROFILES = {
    "official_mmf": "official",
    "lmms_eval": "lmms-eval",
    "vlmevalkit_head": "vlmevalkit",
    "vlmevalkit_before_2025_05_13": "vlmevalkit-2024",
}


@pytest.mark.parametrize("case", _cases("textvqa_accuracy"), ids=lambda c: c["id"])
def test_textvqa_cases(case: dict[str, Any]) -> None:
    inp = case["input"]
    for key, profile in TEXTVQA_PROFILES.items():
        if key not in case["expected"] or not isinstance(case["expected"][key], int | float):
            continue
        expected = float(case["expected"][key])
        e = explain_answer("textvqa", inp["prediction"], inp["gt_answers"], profile=profile)
        assert e.score == expected, (profile, e.score)
        # the table explains the number: k = m - 1 on a matching row, m elsewhere
        hits = [m == "yes" for m in _column(e, "match")]
        m = sum(hits)
        assert _column(e, "others k") == [m - 1 if h else m for h in hits]
        # and the hook's own mean of min(1, k/3) is the scorer's number
        assert e.why.endswith(f"is {expected!r}"), e.why


def test_textvqa_item_of_a_run_hand_derived() -> None:
    """Question 34640 of the bundled sample: 'Cloisters wetland' against three
    'the cloisters wetland' (positions 2, 8, 10; the articles step removes 'the'). Matching
    annotators see k = 2 others (2/3), the other seven see 3 (1). MMF sums left to right:
    1 + 2/3 + 5·1 + 2/3 + 1 + 2/3 = 0.8999999999999998 after / 10 (QUIRK naive-sum)."""
    ev = evaluate_task(
        "textvqa",
        TEXTVQA / "results_vila-1.5-8b.json",
        annotations=TEXTVQA / "annotations.json",
    )
    e = explain_item(ev, 34640)
    assert e.task == "textvqa" and e.profile == "official" and e.item_id == 34640
    assert e.prediction == "Cloisters wetland"
    assert e.detail["normalized_prediction"] == "cloisters wetland"
    assert [i for i, m in enumerate(_column(e, "match"), 1) if m == "yes"] == [2, 8, 10]
    assert _column(e, "min(1,k/3)") == [
        "1.0000",
        "0.6667",
        *["1.0000"] * 5,
        "0.6667",
        "1.0000",
        "0.6667",
    ]
    assert e.score == 0.8999999999999998
    assert e.fields["question"]  # the question text is shown
    # the same item, asked by the id as a command line types it
    assert explain_item(ev, "34640").score == e.score


def test_number_words_in_the_answers_are_a_step() -> None:
    """Question 34649: '1 cent' vs 'one cent' (once) and 'one penny' (nine times): the
    digits step turns every answer's 'one' into '1', so m = 1: the matching annotator sees
    k = 0, the nine others k = 1 (1/3 each): 9 · 1/3 / 10 = 0.3."""
    refs = ["one penny", "one cent", *["one penny"] * 8]
    e = explain_answer("textvqa", "1 cent", refs)
    assert e.score == 0.3
    assert ["answers · the same steps", "10 of 10 changed"] in [list(s) for s in e.steps]
    assert _column(e, "normalized")[1] == "'1 cent'"


def test_unknown_item_names_the_id_and_the_file() -> None:
    ev = evaluate_task(
        "textvqa",
        TEXTVQA / "results_vila-1.5-8b.json",
        annotations=TEXTVQA / "annotations.json",
    )
    with pytest.raises(UnknownNameError) as info:
        explain_item(ev, "no-such-question")
    text = str(info.value)
    assert "'no-such-question'" in text and "results_vila-1.5-8b.json" in text


@pytest.mark.parametrize("case", _cases("vizwiz_accuracy"), ids=lambda c: c["id"])
def test_vizwiz_official_normalizes_only_the_prediction(case: dict[str, Any]) -> None:
    inp, exp = case["input"], case["expected"]
    e = explain_answer("vizwiz", inp["prediction"], inp["gt_answers"], image="x.jpg")
    assert e.score == float(exp["official_vizwiz"])
    assert e.detail["normalized_prediction"] == exp["official_normalized_prediction"]
    assert _column(e, "normalized") == [repr(a) for a in inp["gt_answers"]]  # as written


def test_vqav2_keeps_the_slips_table() -> None:
    """The textbook case (spec §4): 3 of 10 'crab': the matching annotators see 2 others
    (2/3), the seven others see 3 (1): (3·2/3 + 7) / 10 = 0.9."""
    e = explain_answer("vqav2", "Crab!", ["crab"] * 3 + ["lobster"] * 7)
    assert e.score == 0.9
    assert e.detail["vqa"]["normalized_prediction"] == "crab"
    assert _column(e, "others k") == [2] * 3 + [3] * 7


# --- ANLS: per-reference NLS and the threshold ---------------------------------------------

ANLS_PROFILES = {
    "official_docvqa_infovqa": ("docvqa", "official"),
    "official_stvqa_2019": ("stvqa", "official"),
    "lmms_eval": ("docvqa", "lmms-eval"),
    "vlmevalkit": ("docvqa", "vlmevalkit"),
    "mmf_stvqa": ("docvqa", "mmf"),
    "pix2struct": ("docvqa", "pix2struct"),
    "pypi_anls": ("docvqa", "paper"),
}


@pytest.mark.parametrize("case", _cases("anls"), ids=lambda c: c["id"])
def test_anls_cases(case: dict[str, Any]) -> None:
    inp = case["input"]
    for key, (task, profile) in ANLS_PROFILES.items():
        expected = case["expected"].get(key)
        if not isinstance(expected, int | float):
            continue
        e = explain_answer(task, inp["prediction"], inp["gt_answers"], profile=profile)
        assert e.score == pytest.approx(float(expected), abs=1e-12), (key, e.score)
        assert e.score == max(e.detail["reference_values"])


def test_anls_raw_length_quirk_by_hand() -> None:
    """Spec §5: 'ab   ' vs 'ac': distance 1 on the normalized strings; the RRC script
    divides by the RAW length 5 (NLS 0.8), lmms-eval strips first (L = 2, NLS 0.5, kept)."""
    e = explain_answer("docvqa", "ab   ", ["ac"])
    assert (_column(e, "d"), _column(e, "L"), _column(e, "NLS")) == ([1], [5], ["0.8000"])
    assert e.score == 0.8 and "threshold 0.5" in e.why
    e = explain_answer("docvqa", "ab   ", ["ac"], profile="lmms-eval")
    assert (_column(e, "L"), _column(e, "NLS"), e.score) == ([2], ["0.5000"], 0.5)


# --- yes/no: the parse ----------------------------------------------------------------------


@pytest.mark.parametrize("case", _cases("pope_parse"), ids=lambda c: c["id"])
def test_pope_parse_cases(case: dict[str, Any]) -> None:
    answer, exp = case["input"]["answer"], case["expected"]
    assert explain_answer("pope", answer, ["yes"]).detail["parsed"] == exp["official"]
    token = exp["lmms_eval_token"]
    lmms = explain_answer("pope", answer, ["yes"], profile="lmms-eval").detail["parsed"]
    assert lmms == (token if token in ("yes", "no") else "other")
    vlm = explain_answer("pope", answer, ["yes"], profile="vlmevalkit").detail["parsed"]
    assert vlm == {"Yes": "yes", "No": "no", "Unknown": "other"}[exp["vlmevalkit_no_judge"]]


def test_pope_confusion_cells_match_the_shared_counts() -> None:
    """The shared 8-answer case: official TP 3, FP 2, TN 2, FN 1; each item names its cell."""
    case = CASES["pope_aggregate"][0]
    cells = [
        explain_answer("pope", a, [label]).detail.get("cell")
        for a, label in zip(case["input"]["answers"], case["input"]["labels"], strict=True)
    ]
    want = case["expected"]["official"]
    assert {c: cells.count(c) for c in ("TP", "FP", "TN", "FN")} == {
        c: want[c] for c in ("TP", "FP", "TN", "FN")
    }


@pytest.mark.parametrize("case", _cases("mme_parse"), ids=lambda c: c["id"])
def test_mme_parse_cases(case: dict[str, Any]) -> None:
    response, exp = case["input"]["response"], case["expected"]
    e = explain_answer("mme", response, ["Yes"])
    assert e.detail["parsed"] == exp["official"]
    assert e.score == (1.0 if exp["official"] == "yes" else 0.0)
    assert "acc+" in e.why  # how one answer counts in MME's numbers
    assert (
        explain_answer("mme", response, ["Yes"], profile="lmms-eval").detail["parsed"]
        == (exp["lmms_eval"])
    )


# --- exact match, relaxed, containment, multiple choice ------------------------------------

RELAXED_PROFILES = {
    "official_pix2struct": "official",
    "lmms_eval": "lmms-eval",
    "vlmevalkit_head": "vlmevalkit",
    "vlmevalkit_2024_07_to_2025_09_01": "vlmevalkit-2024",
    "qwen_vl": "qwen-vl",
}


@pytest.mark.parametrize("case", _cases("relaxed_accuracy"), ids=lambda c: c["id"])
def test_relaxed_cases(case: dict[str, Any]) -> None:
    inp = case["input"]
    for key, profile in RELAXED_PROFILES.items():
        if key in case["expected"]:
            e = explain_answer("chartqa", inp["prediction"], [inp["target"]], profile=profile)
            assert e.score == float(case["expected"][key]), (key, e.why)


def test_relaxed_shows_the_tolerance_and_the_target() -> None:
    """Spec §6: 95 vs 100 is within 5 % of the answer (0.05 <= 0.05) but not of the
    prediction when the arguments are swapped (5/95 = 0.0526316 > 0.05)."""
    e = explain_answer("chartqa", "95", ["100"])
    assert _column(e, "relative change") == ["0.05 <= 0.05"] and e.score == 1.0
    e = explain_answer("chartqa", "95", ["100"], profile="vlmevalkit-2024")
    assert _column(e, "relative change") == ["0.0526316 > 0.05"] and e.score == 0.0
    assert "of the prediction" in e.why


@pytest.mark.parametrize("case", _cases("gqa_exact_match"), ids=lambda c: c["id"])
def test_gqa_cases(case: dict[str, Any]) -> None:
    names = {
        "official": "official",
        "llava_convert_then_official": "llava",
        "lmms_eval": "lmms-eval",
        "vlmevalkit": "vlmevalkit",
        "qwen_vl": "qwen-vl",
    }
    inp = case["input"]
    for key, profile in names.items():
        e = explain_answer("gqa", inp["prediction"], [inp["gold"]], profile=profile)
        assert e.score == float(case["expected"][key]), key


def test_gqa_llava_shows_its_conversion() -> None:
    e = explain_answer("gqa", "Yes.", ["yes"], profile="llava")
    assert ["compared prediction", "'yes'"] in [list(s) for s in e.steps]


@pytest.mark.parametrize("case", _cases("ocrvqa_exact_match"), ids=lambda c: c["id"])
def test_ocrvqa_cases(case: dict[str, Any]) -> None:
    inp = case["input"]
    for profile in ("vlmevalkit", "qwen-vl"):
        key = profile.replace("-", "_")
        e = explain_answer("ocrvqa", inp["prediction"], [inp["gt"]], profile=profile)
        assert e.score == float(case["expected"][key])


@pytest.mark.parametrize("case", _cases("ocrbench"), ids=lambda c: c["id"])
def test_ocrbench_cases(case: dict[str, Any]) -> None:
    inp = case["input"]
    refs = inp["answers"] if isinstance(inp["answers"], list) else [inp["answers"]]
    for profile in ("official", "lmms-eval", "vlmevalkit"):
        key = profile.replace("-", "_")
        e = explain_answer(
            "ocrbench",
            inp["prediction"],
            refs,
            profile=profile,
            dataset_name=inp["dataset_name"],
            category=inp["type"],
        )
        assert e.score == float(case["expected"][key]), (profile, e.text())
        assert "containment" in e.why


def test_mmbench_letter_lineages() -> None:
    """The extractor docstring's examples (spec mmbench.md §3.2): HEAD reads the option text
    'dog' (D); the 2024 lineage reads the article 'A' as the letter."""
    choices = {"A": "teddy bear", "B": "rabbit", "C": "cat", "D": "dog"}
    text = "A dog is lying on the sofa."
    assert explain_answer("mmbench", text, ["D"], options=choices).detail["letter"] == "D"
    old = explain_answer("mmbench", text, ["D"], options=choices, profile="vlmevalkit-2024")
    assert (old.detail["letter"], old.score) == ("A", 0.0)


def test_mmbench_circular_passes(tmp_path: Path) -> None:
    """Question 1 with its circular copy 1000001 (options rotated): 'B' is right on the first
    pass (dog) and wrong on the copy (B = cat there), so CircularEval scores it 0."""
    data = tmp_path / "data.tsv"
    data.write_text(
        "index\tquestion\tA\tB\tanswer\tcategory\tsplit\n"
        "1\tWhich animal?\tcat\tdog\tB\tanimals\tdev\n"
        "1000001\tWhich animal?\tdog\tcat\tA\tanimals\tdev\n",
        encoding="utf-8",
    )
    preds = tmp_path / "preds.tsv"
    preds.write_text("index\tprediction\n1\tB\n1000001\tB\n", encoding="utf-8")
    ev = evaluate_task("mmbench", preds, annotations=data)
    e = explain_item(ev, 1)
    assert e.score == 0.0
    assert _column(e, "right") == ["yes", ""]
    assert "CircularEval" in e.why


def test_extracted_answer_is_shown_raw_and_extracted() -> None:
    e = explain_answer("ocrvqa", "<think>hmm</think> Fiction", ["fiction"], extract="answer")
    assert e.raw_prediction == "<think>hmm</think> Fiction"
    assert e.prediction == "Fiction" and e.score == 1.0
    assert e.as_dict()["extract"]["raw_prediction"] == e.raw_prediction


def test_renderings() -> None:
    e = explain_answer("pope", "<b>No</b>", ["yes"])
    assert repr(e).startswith("ItemExplanation(task='pope'")
    assert "&lt;b&gt;No&lt;/b&gt;" in e._repr_html_() and "<b>No</b>" not in e._repr_html_()
    text = e.text()
    assert text.splitlines()[0].startswith("POPE · profile official")
    assert text.endswith(f"score = {e.score!r}")
    json.dumps(e.as_dict())  # JSON-ready


# --- the command line -------------------------------------------------------------------------


def test_cli_explain_task_textvqa(capsys: pytest.CaptureFixture[str]) -> None:
    refs = ["one penny", "one cent", *["one penny"] * 8]
    assert main(["explain", "--task", "textvqa", "1 cent", "--answers", *refs, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["task"] == "textvqa" and payload["score"] == 0.3  # derived above
    assert payload["table"]["rows"][1][3] == "yes"  # 'one cent' → '1 cent' matches
    assert main(["explain", "--task", "textvqa", "1 cent", "--answers", *refs]) == 0
    assert "score = 0.3" in capsys.readouterr().out


def test_cli_explain_one_item_of_a_run(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["explain", "--task", "textvqa", "--results", str(TEXTVQA / "results_vila-1.5-8b.json")]
    args += ["--annotations", str(TEXTVQA / "annotations.json")]
    assert main([*args, "--id", "34640"]) == 0
    assert "score = 0.8999999999999998" in capsys.readouterr().out
    assert main([*args, "--id", "1"]) == 2
    err = capsys.readouterr().err
    assert "no item with id '1'" in err and "results_vila-1.5-8b.json" in err


def test_cli_explain_task_options(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["explain", "--task", "mmbench", "The answer is B", "--answers", "B"]
    assert main([*args, "--options", "A=cat", "B=dog"]) == 0
    assert "extract letter (vlmevalkit)  'B'" in capsys.readouterr().out
    assert main(args) == 2
    assert "needs --options" in capsys.readouterr().err
    args = ["explain", "--task", "ocrbench", "10", "--answers", "1", "--dataset-name", "ORAND"]
    assert main(args) == 0
    assert "score = 1.0" in capsys.readouterr().out  # shared case: containment
    assert main(["explain", "--task", "pope", "yes", "--answers", "no", "--bogus", "1"]) == 2
    assert "unrecognized arguments for task 'pope': --bogus 1" in capsys.readouterr().err


def test_cli_explain_without_task_is_vqa(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "Crab!", "--answers", *(["crab"] * 3 + ["lobster"] * 7)]) == 0
    out = capsys.readouterr().out
    assert "m = 3 matching slip(s)" in out and "score = 0.9  (90.00%)" in out
    assert main(["explain", "--task", "vqav2", "Crab!", "--answers", "crab"]) == 0
    assert "unanimity rule" in capsys.readouterr().out
