"""POPE: the official evaluate.py, LLaVA's eval_pope.py, lmms-eval and VLMEvalKit.

Expected values come from the spec's cases (vqa-family-cases.json, produced by running each
toolkit's code), from VLMEvalKit's reported ``vila_8b_POPE_score.csv``, or are derived by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vqametrics.cli import main
from vqametrics.core.exceptions import InputError
from vqametrics.tasks import get_task, parse_yes_no, score_answer
from vqametrics.tasks._run import evaluate_task
from vqametrics.tasks.pope import PopeScoreError, lmms_eval_token

from .conftest import family_cases

VLM = {"Yes": "yes", "No": "no", "Unknown": "other"}
SPLITS = ("adversarial", "popular", "random")


# ------------------------------------------------------------------ pope_parse cases


@pytest.mark.parametrize("case", family_cases("pope_parse"), ids=lambda c: c["id"])
def test_parse_cases(case: dict[str, Any]) -> None:
    text = case["input"]["answer"]
    exp = case["expected"]
    assert parse_yes_no(text, task="pope") == exp["official"]
    assert parse_yes_no(text, task="pope", profile="llava") == exp["official"]
    assert parse_yes_no(text, task="pope", profile="vlmevalkit") == VLM[exp["vlmevalkit_no_judge"]]
    token = exp["lmms_eval_token"]
    assert lmms_eval_token(text) == token
    lmms = token if token in ("yes", "no") else "other"
    assert parse_yes_no(text, task="pope", profile="lmms-eval") == lmms


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # spec §7.2, every quirk of the official parse
        ("Yes", "yes"),
        ("No.", "no"),
        ("no, there is not", "no"),
        ("There is no dog.", "no"),
        ("NO", "yes"),
        ("No!", "yes"),
        ("Nope", "yes"),
        ("I don't think so", "yes"),
        ("not sure", "no"),
        ("", "yes"),
        ("\nNo", "yes"),
        ("No\n", "yes"),
        ("3.5 no", "yes"),
        ("Yes. There is no cat.", "yes"),
        ("yes, but no", "no"),
    ],
)
def test_official_parse_quirks(text: str, expected: str) -> None:
    assert parse_yes_no(text, task="pope", profile="official") == expected


# ------------------------------------------------------------------ pope_aggregate cases


def _case(idx: int) -> dict[str, Any]:
    return family_cases("pope_aggregate")[idx]


def _official_rows(case: dict[str, Any]) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    answers = [{"answer": a} for a in case["input"]["answers"]]
    labels = [{"label": lab} for lab in case["input"]["labels"]]
    return answers, labels


def test_aggregate_official() -> None:
    case = _case(0)
    answers, labels = _official_rows(case)
    r = evaluate_task("pope", answers, annotations=labels)
    exp = case["expected"]["official"]
    for key, value in exp.items():
        assert r.metrics[key] == value, key
    assert r.aggregate.headline == "f1"


def test_aggregate_llava_is_the_official_rule() -> None:
    case = _case(0)
    answers = [{"question_id": i, "text": a} for i, a in enumerate(case["input"]["answers"])]
    labels = [{"label": lab} for lab in case["input"]["labels"]]
    r = evaluate_task("pope", answers, annotations=labels, profile="llava")
    for key, value in case["expected"]["official"].items():
        assert r.metrics[key] == value, key
    assert r.aggregate.digits == 3


def test_aggregate_lmms_eval_yes_ratio_is_over_ground_truth() -> None:
    case = _case(0)
    answers, labels = _official_rows(case)
    r = evaluate_task("pope", answers, annotations=labels, profile="lmms-eval")
    exp = case["expected"]["lmms_eval"]
    assert r.metrics["accuracy"] == exp["acc"]
    for key in ("precision", "recall", "f1", "yes_ratio"):
        assert r.metrics[key] == exp[key], key
    assert any("ground-truth" in n for n in r.notes)


def test_aggregate_vlmevalkit() -> None:
    case = _case(0)
    rows = [
        {"index": i, "prediction": a, "answer": lab.capitalize(), "category": "random"}
        for i, (a, lab) in enumerate(
            zip(case["input"]["answers"], case["input"]["labels"], strict=True)
        )
    ]
    r = evaluate_task("pope", rows, profile="vlmevalkit")
    exp = case["expected"]["vlmevalkit_no_judge"]
    assert r.metrics["Overall"] == exp["Overall(F1x100)"]
    for key in ("acc", "precision", "recall"):
        assert r.metrics[key] == exp[key], key


def test_zero_division_is_a_clear_error() -> None:
    answers, labels = _official_rows(_case(1))
    with pytest.raises(PopeScoreError, match=r"TP\+FP = 0"):
        evaluate_task("pope", answers, annotations=labels)
    assert issubclass(PopeScoreError, ValueError)


def test_zero_division_in_f1_is_a_clear_error() -> None:
    # by hand: the one "yes" answer is wrong and the one "yes" label is answered "no":
    # TP = 0, FP = FN = 1, so precision = recall = 0 and F1 divides by zero in evaluate.py
    with pytest.raises(PopeScoreError, match=r"precision \+ recall = 0"):
        evaluate_task(
            "pope",
            [{"answer": "Yes"}, {"answer": "No"}],
            annotations=[{"label": "no"}, {"label": "yes"}],
        )


def test_zero_division_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    res = tmp_path / "answers.jsonl"
    lab = tmp_path / "coco_pope_random.json"
    res.write_text('{"answer": "No"}\n{"answer": "no"}\n', encoding="utf-8")
    lab.write_text('{"label": "yes"}\n{"label": "no"}\n', encoding="utf-8")
    assert main(["score", "pope", "--results", str(res), "--annotations", str(lab)]) == 2
    err = capsys.readouterr().err
    assert "divides by zero" in err and "random" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("answers", "labels", "precision", "recall"),
    [
        # by hand: whole answers are compared, so neither 'yes, there is.' nor 'no.' is a
        # yes/no token: TP = FP = FN = 0
        (["Yes, there is.", "No."], ["yes", "no"], 0, 0),
        # the yes-labelled question answered 'maybe', the no-labelled one 'yes': TP = FN = 0,
        # FP = 1, so precision = 0/1 = 0.0 and recall's denominator is 0
        (["maybe", "yes"], ["yes", "no"], 0.0, 0),
    ],
)
def test_lmms_eval_zero_denominators_give_zero(
    answers: list[str], labels: list[str], precision: float, recall: float
) -> None:
    # QUIRK zero-guard: lmms-eval@75571cf tasks/pope/utils.py returns 0 where the official
    # script raises (pope_aggregate_precision/recall/f1_score: `... if ... > 0 else 0`)
    r = evaluate_task(
        "pope",
        [{"answer": a} for a in answers],
        annotations=[{"label": lab} for lab in labels],
        profile="lmms-eval",
    )
    assert r.metrics["precision"] == precision and r.metrics["recall"] == recall
    assert r.metrics["f1"] == 0 and r.metrics["accuracy"] == 0.0
    assert r.metrics["yes_ratio"] == 0.5  # over the ground truth (1 yes of 2)


def test_label_that_is_not_exactly_no_counts_as_yes() -> None:
    # QUIRK label-not-no-is-yes, by hand: label "No" is positive, so answer "no" is a FN
    r = evaluate_task(
        "pope",
        [{"answer": "yes"}, {"answer": "no"}],
        annotations=[{"label": "yes"}, {"label": "No"}],
    )
    assert (r.metrics["TP"], r.metrics["FN"], r.metrics["TN"]) == (1, 1, 0)
    assert r.metrics["recall"] == 0.5


def test_missing_answer_is_wrong_in_the_counts_too() -> None:
    # by hand: row 2 (label no) has no answer and scores 0, so it is counted as a wrong
    # "yes" (FP), never as a right "no": TP 1, FP 1, FN 1 (row 3), acc 1/3 = mean score
    rows = [
        {"index": 1, "prediction": "Yes", "answer": "Yes", "category": "random"},
        {"index": 2, "prediction": None, "answer": "No", "category": "random"},
        {"index": 3, "prediction": "No", "answer": "Yes", "category": "random"},
    ]
    r = evaluate_task("pope", rows, allow_missing=True)
    assert (r.metrics["TP"], r.metrics["FP"], r.metrics["TN"], r.metrics["FN"]) == (1, 1, 0, 1)
    assert r.metrics["acc"] == 1 / 3 and r.scores == [1.0, 0.0, 0.0]


def test_score_answer_per_item() -> None:
    assert score_answer("pope", "NO", ["no"]) == 0.0  # official: NO is yes
    assert score_answer("pope", "NO", ["no"], profile="vlmevalkit") == 1.0
    assert score_answer("pope", "no.", ["no"], profile="lmms-eval") == 0.0


# ------------------------------------------------------------------ positional pairing


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_count_mismatch_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    res = _write_jsonl(tmp_path / "a.jsonl", [{"answer": "yes"}] * 3)
    lab = _write_jsonl(tmp_path / "coco_pope_popular.json", [{"label": "yes"}] * 4)
    assert main(["score", "pope", "--results", str(res), "--annotations", str(lab)]) == 2
    err = capsys.readouterr().err
    assert "3 answers" in err and "4 labels" in err and "position" in err


def test_text_mismatch_names_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    res = _write_jsonl(
        tmp_path / "a.jsonl",
        [
            {"question": "Is there a dog in the image?", "answer": "yes"},
            {"question": "Is there a cat in the image?", "answer": "no"},
        ],
    )
    lab = _write_jsonl(
        tmp_path / "labels.jsonl",
        [
            {"text": "Is there a dog in the image?", "label": "yes"},
            {"text": "Is there a car in the image?", "label": "no"},
        ],
    )
    assert main(["score", "pope", "--results", str(res), "--annotations", str(lab)]) == 2
    err = capsys.readouterr().err
    assert "a.jsonl: line 2" in err and "labels.jsonl: line 2" in err and "car" in err


def test_folder_without_splits_is_an_error(shared_data: Path) -> None:
    with pytest.raises(InputError, match="questions="):
        evaluate_task(
            "pope",
            [{"answer": "yes"}],
            annotations=shared_data / "pope" / "e3e3926",
        )


def test_vlmevalkit_rows_keep_their_labels_with_annotations(tmp_path: Path) -> None:
    # a VLMEvalKit file in JSON Lines is read as VLMEvalKit whether or not --annotations is
    # given (as a spreadsheet is), never paired by position with the label file
    res = _write_jsonl(
        tmp_path / "m_POPE.jsonl",
        [
            {
                "index": 1,
                "question": "Q",
                "answer": "Yes",
                "prediction": "Yes",
                "category": "random",
            },
            {"index": 2, "question": "Q", "answer": "No", "prediction": "No", "category": "random"},
        ],
    )
    lab = _write_jsonl(tmp_path / "coco_pope_random.json", [{"label": "no"}, {"label": "yes"}])
    r = evaluate_task("pope", res, annotations=lab)
    assert r.data.layouts == ("vlmevalkit (jsonl)",)
    assert r.metrics["acc"] == 1.0  # by hand: each answer equals its own row's label
    assert any("--annotations was not used" in n for n in r.notes)
    r = evaluate_task("pope", res, questions=lab)
    assert any(n.startswith("--questions was not used") for n in r.notes)


def test_question_file_is_json_lines_whatever_its_name(tmp_path: Path) -> None:
    questions = _write_jsonl(
        tmp_path / "questions.json",
        [{"question_id": 1, "category": "random"}, {"question_id": 2, "category": "random"}],
    )
    res = _write_jsonl(
        tmp_path / "answers.jsonl",
        [{"question_id": 1, "text": "Yes"}, {"question_id": 2, "text": "No"}],
    )
    lab = _write_jsonl(tmp_path / "coco_pope_random.json", [{"label": "yes"}, {"label": "no"}])
    r = evaluate_task("pope", res, annotations=lab, questions=questions)
    assert r.metrics["f1"] == 1.0 and r.metrics["n"] == 2


def test_no_annotations_is_an_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    res = _write_jsonl(tmp_path / "a.jsonl", [{"answer": "yes"}])
    assert main(["score", "pope", "--results", str(res)]) == 2
    assert "--annotations" in capsys.readouterr().err


# ------------------------------------------------------------------ LLaVA's join (real files)


def _llava_answers(shared: Path, version: str, mutate: bool = False) -> list[dict[str, Any]]:
    """A LLaVA answers.jsonl built from LLaVA's question file and the labels: each answer is
    its label ("Yes" / "No, there is not."); with *mutate*, every 10th random answer flips."""
    questions = [
        json.loads(line)
        for line in (shared / "pope" / "llava" / "llava_pope_test.jsonl").read_text().splitlines()
    ]
    labels = {
        s: [
            json.loads(line)["label"]
            for line in (shared / "pope" / version / f"coco_pope_{s}.json").read_text().splitlines()
        ]
        for s in SPLITS
    }
    pos = dict.fromkeys(SPLITS, 0)
    out = []
    for q in questions:
        split = q["category"]
        label = labels[split][pos[split]]
        if mutate and split == "random" and pos[split] % 10 == 0:
            label = "no" if label == "yes" else "yes"
        pos[split] += 1
        text = "Yes" if label == "yes" else "No, there is not."
        out.append({"question_id": q["question_id"], "prompt": q["text"], "text": text})
    return out


@pytest.mark.shared
def test_llava_join_per_split(shared_data: Path) -> None:
    answers = _llava_answers(shared_data, "e3e3926")
    r = evaluate_task(
        "pope",
        answers,
        annotations=shared_data / "pope" / "e3e3926",
        questions=shared_data / "pope" / "llava" / "llava_pope_test.jsonl",
        profile="llava",
    )
    splits = r.aggregate.breakdowns["split"]
    assert {s: splits[s]["n"] for s in SPLITS} == {
        "adversarial": 3000,
        "popular": 3000,
        "random": 2910,
    }
    assert r.metrics["f1_mean"] == 1.0
    assert all(splits[s]["acc"] == 1.0 for s in SPLITS)
    # the labels are half yes in popular/adversarial: 1500 of 3000
    assert splits["popular"]["yes_ratio"] == 0.5
    assert "labels:e3e3926" in r.signature.format()


@pytest.mark.shared
def test_llava_join_mutated(shared_data: Path) -> None:
    answers = _llava_answers(shared_data, "e3e3926", mutate=True)
    labels = [
        json.loads(line)["label"]
        for line in (shared_data / "pope" / "e3e3926" / "coco_pope_random.json")
        .read_text()
        .splitlines()
    ]
    # by hand: positions 0, 10, 20, … of random are flipped
    flipped = [lab for i, lab in enumerate(labels) if i % 10 == 0]
    fn = flipped.count("yes")
    fp = flipped.count("no")
    tp = labels.count("yes") - fn
    r = evaluate_task(
        "pope",
        answers,
        annotations=shared_data / "pope" / "e3e3926",
        questions=shared_data / "pope" / "llava" / "llava_pope_test.jsonl",
        profile="llava",
    )
    rnd = r.aggregate.breakdowns["split"]["random"]
    assert (rnd["TP"], rnd["FP"], rnd["FN"]) == (tp, fp, fn)
    assert rnd["acc"] == (2910 - len(flipped)) / 2910
    assert r.aggregate.breakdowns["split"]["popular"]["f1"] == 1.0
    p, rc = tp / (tp + fp), tp / (tp + fn)
    assert rnd["f1"] == 2 * p * rc / (p + rc)
    assert r.metrics["f1_mean"] == (1.0 + 1.0 + rnd["f1"]) / 3


@pytest.mark.shared
def test_wrong_label_version_is_an_error(shared_data: Path) -> None:
    answers = _llava_answers(shared_data, "e3e3926")
    questions = shared_data / "pope" / "llava" / "llava_pope_test.jsonl"
    head = shared_data / "pope" / "head_3df3ba1"
    # the folder: adversarial comes first and is respelled at line 11
    with pytest.raises(InputError, match=r"line 11 asks 'Is there an umbrella in the image\?'"):
        evaluate_task("pope", answers, annotations=head, questions=questions, profile="llava")
    # random alone: 2,910 answers against 3,000 labels
    with pytest.raises(InputError, match=r"2910 answers for split random.*3000 labels.*e3e3926"):
        evaluate_task(
            "pope",
            answers,
            annotations=head / "coco_pope_random.json",
            questions=questions,
            ignore_extra=True,
        )


@pytest.mark.shared
def test_head_labels_are_recognized(shared_data: Path) -> None:
    lab = shared_data / "pope" / "head_3df3ba1" / "coco_pope_random.json"
    rows = [json.loads(line) for line in lab.read_text().splitlines()]
    answers = [{"question": r["text"], "answer": r["label"]} for r in rows]
    r = evaluate_task("pope", answers, annotations=lab)
    assert r.metrics["n"] == 3000 and r.metrics["acc"] == 1.0
    sig = r.signature.format()
    assert "labels:3df3ba1" in sig and "splits:random" in sig


@pytest.mark.shared
def test_extra_splits_need_ignore_extra(shared_data: Path) -> None:
    answers = _llava_answers(shared_data, "e3e3926")
    questions = shared_data / "pope" / "llava" / "llava_pope_test.jsonl"
    lab = shared_data / "pope" / "e3e3926" / "coco_pope_random.json"
    with pytest.raises(InputError, match="ignore_extra=True"):
        evaluate_task("pope", answers, annotations=lab, questions=questions)
    r = evaluate_task("pope", answers, annotations=lab, questions=questions, ignore_extra=True)
    assert r.metrics["n"] == 2910
    assert r.data.n_extra_ignored == 6000


# ------------------------------------------------------------------ VLMEvalKit (real file)


@pytest.mark.shared
def test_vlmevalkit_reproduces_reported(shared_data: Path) -> None:
    pytest.importorskip("openpyxl")
    xlsx = shared_data / "pope" / "vlmevalkit" / "vila_8b_POPE.xlsx"
    r = evaluate_task("pope", xlsx, profile="vlmevalkit")
    # vila_8b_POPE_score.csv, written by VLMEvalKit
    reported = {
        "Overall": (83.33951762523192, 85.03333333333333, 93.97489539748955, 74.86666666666667),
        "popular": (83.40141106572595, 85.1, 94.13243922883487, 74.86666666666667),
        "random": (84.8507744616547, 86.63333333333333, 97.9075850043592, 74.86666666666667),
        "adversarial": (81.82149362477233, 83.36666666666666, 90.20080321285141, 74.86666666666667),
    }
    splits = r.aggregate.breakdowns["split"]
    for split, values in reported.items():
        got = splits[split]
        assert (got["Overall"], got["acc"], got["precision"], got["recall"]) == values, split
    assert r.metrics["Overall"] == 83.33951762523192
    # 5,127 de-duplicated rows count once per split they list: 3 × 3,000
    assert r.metrics["n"] == 9000 and len(r.scores) == 5127


@pytest.mark.shared
@pytest.mark.parametrize("profile", ["official", "llava"])
def test_official_on_vlmevalkit_file_is_per_split(shared_data: Path, profile: str) -> None:
    """evaluate.py scores one label file at a time: a de-duplicated row counts in each split
    its category lists. Counts derived by hand from vila_8b_POPE_score.csv (every VILA answer
    starts "Yes, there is" or "No, there is no", so evaluate.py reads what YOrN reads):
    recall 74.8667 = 1123/1500 in each split; precision 97.9076 = 1123/1147 (random),
    94.1324 = 1123/1193 (popular), 90.2008 = 1123/1245 (adversarial); acc 86.6333, 85.1,
    83.3667 = 2599, 2553, 2501 of 3000."""
    pytest.importorskip("openpyxl")
    xlsx = shared_data / "pope" / "vlmevalkit" / "vila_8b_POPE.xlsx"
    r = evaluate_task("pope", xlsx, profile=profile)
    splits = r.aggregate.breakdowns["split"]
    expected = {"random": (24, 1476), "popular": (70, 1430), "adversarial": (122, 1378)}
    f1 = {}
    for split, (fp, tn) in expected.items():
        got = splits[split]
        assert (got["TP"], got["FP"], got["TN"], got["FN"], got["n"]) == (1123, fp, tn, 377, 3000)
        p, rc = 1123 / (1123 + fp), 1123 / 1500
        assert (got["precision"], got["recall"]) == (p, rc), split
        f1[split] = 2 * p * rc / (p + rc)
        assert got["f1"] == f1[split], split
    assert r.metrics["f1_mean"] == pytest.approx(sum(f1.values()) / 3, rel=1e-15)
    assert any("5127 rows make 9000 split items" in n for n in r.notes)
    assert "|splits:adversarial,popular,random|n:5127|" in r.signature.format()


@pytest.mark.shared
def test_vlmevalkit_cli_json(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("openpyxl")
    xlsx = shared_data / "pope" / "vlmevalkit" / "vila_8b_POPE.xlsx"
    assert main(["score", "pope", "--results", str(xlsx), "--profile", "vlmevalkit", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metrics"]["Overall"] == 83.33951762523192
    assert out["breakdowns"]["split"]["random"]["Overall"] == 84.8507744616547
    assert out["signature"].startswith("pope|profile:vlmevalkit|toolkit:VLMEvalKit@e8e78f0|")


# ------------------------------------------------------------------ properties


@given(st.text())
def test_parse_is_total(text: str) -> None:
    assert parse_yes_no(text, task="pope") in ("yes", "no")
    for prof in ("lmms-eval", "vlmevalkit"):
        assert parse_yes_no(text, task="pope", profile=prof) in ("yes", "no", "other")


#: answers evaluate.py reads as yes / as no (spec §7.2: NO and Nope are yes, not sure is no)
READ_AS = {
    "yes": ("Yes", "yes", "Yes, there is a dog.", "NO", "Nope", "Yes. There is no cat."),
    "no": ("No", "no.", "No, there is not.", "not sure", "There is no dog."),
}


@given(
    st.lists(
        st.sampled_from(["yes", "no"]).flatmap(
            lambda lab: st.tuples(st.just(lab), st.sampled_from(READ_AS[lab]))
        ),
        min_size=1,
        max_size=40,
    )
)
def test_answers_read_as_their_labels_score_perfectly(pairs: list[tuple[str, str]]) -> None:
    labels = [{"label": lab} for lab, _ in pairs]
    answers = [{"answer": text} for _, text in pairs]
    if "yes" not in {lab for lab, _ in pairs}:
        with pytest.raises(PopeScoreError):
            evaluate_task("pope", answers, annotations=labels)
        return
    r = evaluate_task("pope", answers, annotations=labels)
    assert r.metrics["acc"] == r.metrics["f1"] == 1.0
    assert r.metrics["yes_ratio"] == sum(1 for lab, _ in pairs if lab == "yes") / len(pairs)


@given(
    st.lists(
        st.tuples(st.sampled_from(["yes", "no"]), st.sampled_from(["Yes", "No", "NO", "no."])),
        min_size=1,
        max_size=40,
    )
)
def test_vlmevalkit_metrics_are_bounded(pairs: list[tuple[str, str]]) -> None:
    rows = [
        {"index": i, "prediction": pred, "answer": lab.capitalize(), "category": "random,popular"}
        for i, (lab, pred) in enumerate(pairs)
    ]
    r = evaluate_task("pope", rows, profile="vlmevalkit")
    for key in ("Overall", "acc", "precision", "recall"):
        assert 0.0 <= r.metrics[key] <= 100.0
    assert r.metrics["n"] == 2 * len(pairs)


def test_registered_profiles() -> None:
    task = get_task("pope")
    assert [p.name for p in task.profiles] == ["official", "llava", "lmms-eval", "vlmevalkit"]
    assert task.default_profile == "official"


@pytest.mark.shared
def test_yorn_extraction_matches_vlmevalkit_auxmatch(shared_data: Path) -> None:
    pytest.importorskip("openpyxl")
    from vqametrics.readers.records import read_records

    aux = read_records(shared_data / "pope" / "vlmevalkit" / "vila_8b_POPE_auxmatch.xlsx")
    # the 'extracted' column was written by VLMEvalKit's YOrN_Extraction
    for row in aux.rows:
        got = parse_yes_no(str(row["prediction"]), task="pope", profile="vlmevalkit")
        assert got == VLM[row["extracted"]], row["index"]


# ---------------------------------------------------------------------------- answers' own ids

_LABELS = [
    {"question_id": i, "text": f"Is there a {o} in the image?", "label": lab}
    for i, (o, lab) in enumerate([("cat", "yes"), ("dog", "no"), ("car", "yes"), ("cup", "no")], 1)
]


def _pair(tmp_path: Path, ids: list[int]) -> tuple[Path, Path]:
    """Label file and answers (each answer right for its own id) in the official layout."""
    label = {row["question_id"]: row["label"] for row in _LABELS}
    answers = [{"question_id": i, "answer": label.get(i, "yes").capitalize()} for i in ids]
    return (
        _write_jsonl(tmp_path / "answers.jsonl", answers),
        _write_jsonl(tmp_path / "coco_pope_random.json", _LABELS),
    )


def test_answers_in_the_label_files_order_are_scored(tmp_path: Path) -> None:
    res, lab = _pair(tmp_path, [1, 2, 3, 4])
    assert evaluate_task("pope", res, annotations=lab).metrics["acc"] == 1.0


def test_answers_out_of_the_label_files_order_are_refused(tmp_path: Path) -> None:
    # evaluate.py pairs by position: answer 2 ("No") would be scored against label 1 ("yes")
    res, lab = _pair(tmp_path, [2, 1, 3, 4])
    with pytest.raises(
        InputError, match=r"answers\.jsonl: line 1: question_id 2, but .*line 1 is question_id 1"
    ):
        evaluate_task("pope", res, annotations=lab)


def test_an_answer_of_a_question_the_labels_lack_is_refused(tmp_path: Path) -> None:
    res, lab = _pair(tmp_path, [1, 2, 999, 4])
    with pytest.raises(InputError, match=r"line 3: question_id 999 is not in .*coco_pope_random"):
        evaluate_task("pope", res, annotations=lab)


def test_ids_of_another_numbering_are_not_compared(tmp_path: Path) -> None:
    # LLaVA numbers its popular and random questions apart (20000001, ...): positions decide
    res, lab = _pair(tmp_path, [1, 2, 3, 4])
    renumbered = [
        {**json.loads(line), "question_id": 20000000 + k}
        for k, line in enumerate(res.read_text().splitlines(), 1)
    ]
    _write_jsonl(res, renumbered)
    assert evaluate_task("pope", res, annotations=lab).metrics["acc"] == 1.0
