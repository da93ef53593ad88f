"""Issue 22, the newcomer's messages: verbose-answer diagnostics only where the task's own
scorer does not read free text, and every warning of ``score`` naming its file when it scores
several."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vqametrics import evaluate, list_tasks
from vqametrics.cli import main
from vqametrics.tasks import TaskProfile

TEXTVQA = Path(__file__).resolve().parents[1] / "src" / "vqametrics" / "data" / "textvqa_val_sample"
VQA5 = Path(__file__).parent / "data" / "vqa2_val_5q_official"
#: POPE rows answered in sentences, as chat models answer (the official parser reads them)
POPE_ROWS = [
    {
        "index": 0,
        "question": "Is there a dog?",
        "prediction": "Yes, there is a dog.",
        "answer": "Yes",
    },
    {"index": 1, "question": "Is there a cat?", "prediction": "No, I see no cat.", "answer": "No"},
    {
        "index": 2,
        "question": "Is there a car?",
        "prediction": "There is no car here.",
        "answer": "No",
    },
]
for _row in POPE_ROWS:
    _row["category"] = "random"


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------- diagnostics


@pytest.mark.shared
def test_lavin_mme_gets_no_verbose_warning(
    shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the repro: "2374 of 2374 predictions look verbose … see --extract" on LaVIN's MME
    # answers, which the official calculation.py reads sentence by sentence by design
    lavin = shared_data / "mme" / "eval_tool" / "LaVIN"
    code, out, err = _cli(["score", "mme", "--results", str(lavin)], capsys)
    assert code == 0
    assert "look verbose" not in err and "--extract" not in err
    assert "963.61" in out  # the score is unchanged: the MME README's 963.6
    ev = evaluate("mme", lavin)
    assert ev.diagnostics is None and "diagnostics" not in ev.as_dict()


def test_pope_sentences_get_no_verbose_warning(capsys: pytest.CaptureFixture[str]) -> None:
    # the official and VLMEvalKit parsers read "Yes, there is a dog." as yes: nothing to flag
    for profile in ("official", "vlmevalkit"):
        ev = evaluate("pope", POPE_ROWS, profile=profile)
        assert ev.diagnostics is None, profile
        assert ev.scores == [1.0, 1.0, 1.0], profile
    # lmms-eval compares an exact token: the same sentences score 0, and are said to look verbose
    ev = evaluate("pope", POPE_ROWS, profile="lmms-eval")
    assert ev.scores == [0.0, 0.0, 0.0]
    assert ev.diagnostics is not None and ev.diagnostics.verbose == 3


def test_an_open_task_still_says_its_answers_look_verbose(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = json.loads((TEXTVQA / "results_vila-1.5-8b.json").read_text(encoding="utf-8"))
    verbose = [{**r, "answer": f"The answer is {r['answer']}."} for r in rows]
    path = tmp_path / "verbose.json"
    path.write_text(json.dumps(verbose), encoding="utf-8")
    argv = ["score", "textvqa", "--results", str(path)]
    code, _, err = _cli([*argv, "--annotations", str(TEXTVQA / "annotations.json")], capsys)
    assert code == 0
    assert f"{len(rows)} of {len(rows)} predictions look verbose" in err


def test_yes_no_and_choice_parsers_read_free_text_open_scorers_do_not() -> None:
    for task in list_tasks():
        for prof in task.profiles:
            if task.kind in ("yes-no", "multiple-choice") and (task.name, prof.name) != (
                "pope",
                "lmms-eval",  # an exact-token match, declared so
            ):
                assert prof.parses_free_text, (task.name, prof.name)
            if task.kind == "open":
                assert not prof.parses_free_text, (task.name, prof.name)


def test_the_declaration_wins_over_the_parser() -> None:
    base = next(t for t in list_tasks() if t.name == "pope").profile()
    assert base.parse is not None and base.parses_free_text
    from dataclasses import replace

    said: TaskProfile = replace(base, reads_free_text=False)
    assert not said.parses_free_text
    open_scorer = next(t for t in list_tasks() if t.name == "textvqa").profile()
    assert replace(open_scorer, reads_free_text=True).parses_free_text


# --------------------------------------------------------------------------- named warnings


def _two_results(tmp_path: Path) -> tuple[Path, Path]:
    rows = json.loads((VQA5 / "results.json").read_text(encoding="utf-8"))
    verbose = tmp_path / "verbose.json"
    verbose.write_text(
        json.dumps([{**r, "answer": f"The answer is {r['answer']}."} for r in rows]),
        encoding="utf-8",
    )
    string_ids = tmp_path / "string_ids.json"
    string_ids.write_text(
        json.dumps([{**r, "question_id": str(r["question_id"])} for r in rows]), encoding="utf-8"
    )
    return verbose, string_ids


def test_with_several_results_every_warning_names_its_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the repro: with several --results, score's warnings did not say which file they are about
    verbose, string_ids = _two_results(tmp_path)
    argv = ["score", "vqav2", "--annotations", str(VQA5 / "annotations.json")]
    code, _, err = _cli([*argv, "--results", str(verbose), "--results", str(string_ids)], capsys)
    assert code == 0
    warnings = [line for line in err.splitlines() if "warning:" in line]
    assert len(warnings) == 2, err
    (verbose_line,) = [w for w in warnings if "look verbose" in w]
    assert f"warning: {verbose}: 5 of 5 predictions look verbose" in verbose_line
    (id_line,) = [w for w in warnings if "spelled differently" in w]
    assert id_line.startswith(f"vqametrics: warning: {string_ids}: ")


def test_with_one_results_file_the_warning_is_as_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, string_ids = _two_results(tmp_path)
    argv = ["score", "vqav2", "--annotations", str(VQA5 / "annotations.json")]
    code, _, err = _cli([*argv, "--results", str(string_ids)], capsys)
    assert code == 0
    assert "vqametrics: warning: 5 question id(s) are spelled differently" in err


# --------------------------------------------------------------------------- GT duplicates

#: ground truths whose question 1 comes twice (the second with other answers), and results
#: answering it as the second row does: ``--on-duplicate last`` keeps that row (score 1)
_GT_DUPLICATES = {
    "textvqa": (
        {
            "data": [
                {"question_id": 1, "question": "q", "image_id": "a", "answers": ["x"] * 10},
                {"question_id": 2, "question": "q", "image_id": "b", "answers": ["y"] * 10},
                {"question_id": 1, "question": "q", "image_id": "a", "answers": ["z"] * 10},
            ]
        },
        [{"question_id": 1, "answer": "z"}, {"question_id": 2, "answer": "y"}],
        "duplicate question id 1",
    ),
    "docvqa": (
        {
            "dataset_name": "docvqa",
            "data": [
                {"questionId": 1, "question": "q", "answers": ["x"]},
                {"questionId": 2, "question": "q", "answers": ["y"]},
                {"questionId": 1, "question": "q", "answers": ["z"]},
            ],
        },
        [{"questionId": 1, "answer": "z"}, {"questionId": 2, "answer": "y"}],
        "duplicate question id 1",
    ),
    "vizwiz": (
        [
            {
                "image": image,
                "question": "q",
                "answers": [{"answer": text, "answer_confidence": "yes"}] * 10,
                "answer_type": "other",
                "answerable": 1,
            }
            for image, text in (("a.jpg", "x"), ("b.jpg", "y"), ("a.jpg", "z"))
        ],
        [{"image": "a.jpg", "answer": "z"}, {"image": "b.jpg", "answer": "y"}],
        "duplicate image 'a.jpg'",
    ),
}


@pytest.mark.parametrize("task", sorted(_GT_DUPLICATES))
def test_a_ground_truth_duplicate_is_an_error_with_on_duplicate_as_the_escape(
    task: str, tmp_path: Path
) -> None:
    # the repro: a ground-truth file's repeated id was an error with no `last`-style escape
    truth, results, message = _GT_DUPLICATES[task]
    gt, res = tmp_path / "gt.json", tmp_path / "res.json"
    gt.write_text(json.dumps(truth), encoding="utf-8")
    res.write_text(json.dumps(results), encoding="utf-8")
    from vqametrics import InputError

    with pytest.raises(InputError, match=rf"item 3: {message} \(first at .*item 1; pass on_dup"):
        evaluate(task, res, annotations=gt)
    ev = evaluate(task, res, annotations=gt, on_duplicate="last")
    assert ev.scores == [1.0, 1.0]  # question 1 is scored against its last row's answers
    assert ev.data.items[0].id in (1, "a.jpg")  # at the place of the first
