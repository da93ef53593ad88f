"""Issue 22 in the task readers: nothing counted twice, one rule for what is absent, messages
that say what was found, valid input taken, non-text answers refused.

Each test is written from the issue's repro: the input that was scored wrongly (or refused)
and what the one rule says it should give. Expected numbers come from the official sums by
hand or from the scores the toolkits reported (``../shared/data``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vqametrics.core.exceptions import InputError
from vqametrics.readers.records import read_records
from vqametrics.tasks._base import TaskInputs
from vqametrics.tasks._lmms import lmms_eval_predictions, unique_samples
from vqametrics.tasks._mme_read import QUESTIONS
from vqametrics.tasks._run import evaluate_task

# ----------------------------------------------------------------------------------------
# 1. counted twice, silently


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _log(docs: list[dict[str, Any]], answers: list[str]) -> list[dict[str, Any]]:
    """lmms-eval@75571cf ``--log_samples`` records (``doc_id``, ``doc``, ``filtered_resps``)."""
    return [
        {"doc_id": i, "doc": doc, "target": "", "filtered_resps": [a]}
        for i, (doc, a) in enumerate(zip(docs, answers, strict=True))
    ]


_TEN = ["cat"] * 10
#: one small samples log per task whose reader takes lmms-eval logs with ``doc``
LOGS: dict[str, tuple[list[dict[str, Any]], list[str]]] = {
    "chartqa": (
        [
            {"question": f"q{i}", "answer": a, "type": "human_test"}
            for i, a in enumerate(["12", "red", "3.5", "no"])
        ],
        ["12", "blue", "3.6", "no"],
    ),
    "textvqa": (
        [
            {"question_id": i, "question": f"q{i}", "image_id": f"im{i}", "answers": _TEN}
            for i in range(4)
        ],
        ["cat", "dog", "cat", "Cat"],
    ),
    "vizwiz": (
        [
            {"question_id": f"VizWiz_val_{i:08d}", "question": "q", "answers": _TEN}
            for i in range(4)
        ],
        ["cat", "dog", "cat", "Cat"],
    ),
    "gqa": (
        [{"id": f"q{i}", "question": "q", "answer": a} for i, a in enumerate("ab" * 2)],
        ["a", "a", "a", "b"],
    ),
    "docvqa": (
        [{"questionId": i + 1, "answers": ["total", "sum"]} for i in range(4)],
        ["total", "summ", "x", "sum"],
    ),
    "ocrbench": (
        [
            {"dataset": "IIIT5K", "question_type": "Regular Text Recognition", "answer": [w]}
            for w in ("cat", "dog", "ant", "owl")
        ],
        ["cat", "dig", "ant", "owl"],
    ),
    "pope": (
        [
            {"question_id": str(i), "question": "q", "answer": a, "category": "adversarial"}
            for i, a in enumerate(["yes", "no", "yes", "no"])
        ],
        ["Yes", "No", "no", "yes"],
    ),
    "mme": (
        [
            {"question_id": f"existence/{i // 2}.jpg", "question": f"q{i}", "category": c}
            | {"answer": a}
            for i, (a, c) in enumerate(zip(["Yes", "No"] * 2, ["existence"] * 4, strict=True))
        ],
        ["Yes", "No", "Yes", "Yes"],
    ),
}


def _by_id(ev: Any) -> dict[str, float]:
    return {str(it.id): s for it, s in zip(ev.data.items, ev.scores, strict=True)}


@pytest.mark.parametrize("task", sorted(LOGS))
def test_a_log_concatenated_with_itself_is_an_error_unless_asked(task: str, tmp_path: Path) -> None:
    # `cat log log`: every sample twice; ChartQA scored n: 8 for 4 samples without a note
    docs, answers = LOGS[task]
    rows = _log(docs, answers)
    once = evaluate_task(task, str(_jsonl(tmp_path / f"samples_{task}.jsonl", rows)))
    twice = _jsonl(tmp_path / f"twice_{task}.jsonl", rows + rows)
    with pytest.raises(InputError, match=r"line 5: duplicate sample, doc_id 0 again \(first at"):
        evaluate_task(task, str(twice))
    last = evaluate_task(task, str(twice), on_duplicate="last")
    assert len(last.scores) == len(once.scores) == 4
    assert _by_id(last) == _by_id(once)
    assert any("4 repeated sample(s)" in n for n in last.notes)


def test_last_keeps_the_last_record_of_a_sample(tmp_path: Path) -> None:
    docs, answers = LOGS["chartqa"]
    first = _log(docs, answers)
    again = _log(docs[:1], ["nothing"])  # a re-run of doc 0, appended: the later answer wins
    ev = evaluate_task(
        "chartqa", str(_jsonl(tmp_path / "s.jsonl", first + again)), on_duplicate="last"
    )
    assert [it.prediction for it in ev.data.items] == ["nothing", "blue", "3.6", "no"]
    # pix2struct: 12 vs "nothing" wrong; red/blue wrong; 3.6 within 5 % of 3.5; no = no
    assert ev.metrics["relaxed_accuracy"] == 50.0


def test_logs_of_two_pope_splits_are_not_duplicates(tmp_path: Path) -> None:
    # pope_adv + pope_pop logs share doc_ids but not docs: both are kept
    docs, answers = LOGS["pope"]
    popular = [dict(d, category="popular") for d in docs]
    rows = _log(docs, answers) + _log(popular, answers)
    ev = evaluate_task("pope", str(_jsonl(tmp_path / "s.jsonl", rows)))
    assert len(ev.scores) == 8


def test_a_positional_log_concatenated_is_an_error_unless_asked(tmp_path: Path) -> None:
    # without doc, the samples are joined to the annotations by position
    truth = tmp_path / "test_human.json"
    truth.write_text(json.dumps([{"query": "q", "label": "1"}, {"query": "r", "label": "2"}]))
    rows = [{"doc_id": i, "target": t, "filtered_resps": [t]} for i, t in enumerate("12")]
    log = _jsonl(tmp_path / "s.jsonl", rows + rows)
    with pytest.raises(InputError, match="duplicate sample"):
        evaluate_task("chartqa", str(log), annotations=str(truth))
    ev = evaluate_task("chartqa", str(log), annotations=str(truth), on_duplicate="last")
    assert ev.scores == [1.0, 1.0]


def _mme_folder(folder: Path, counts: dict[str, int] | None = None) -> Path:
    """An eval_tool results folder with every task's official number of lines: image k asks a
    yes-question (answered yes) and a no-question (answered no, except in ``count``)."""
    folder.mkdir(parents=True, exist_ok=True)
    for task, n in (counts or QUESTIONS).items():
        lines = []
        for k in range(n // 2):
            lines.append(f"{k}.jpg\tIs it {k}? Please answer yes or no.\tYes\tYes\n")
            wrong = "Yes" if task == "count" else "No"
            lines.append(f"{k}.jpg\tIs it not {k}? Please answer yes or no.\tNo\t{wrong}\n")
        (folder / f"{task}.txt").write_text("".join(lines), encoding="utf-8")
    return folder


def test_mme_full_synthetic_folder_scores_by_hand(tmp_path: Path) -> None:
    ev = evaluate_task("mme", _mme_folder(tmp_path / "r"))
    # every task 200 but count: acc 0.5, acc+ 0 → 50; perception 9·200 + 50
    assert ev.metrics == {"perception": 1850.0, "cognition": 800.0}
    assert ev.data.n_missing == 0


def test_mme_duplicated_eval_tool_rows_are_an_error(tmp_path: Path) -> None:
    folder = _mme_folder(tmp_path / "r")
    path = folder / "scene.txt"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:10] + lines[4:6] + lines[10:]), encoding="utf-8")
    with pytest.raises(InputError, match=r"scene\.txt: line 11: duplicate line"):
        evaluate_task("mme", folder)
    ev = evaluate_task("mme", folder, on_duplicate="last")
    assert ev.metrics == {"perception": 1850.0, "cognition": 800.0}
    assert any(n.startswith("scene.txt: 2 repeated") for n in ev.notes)


@pytest.mark.shared
def test_mme_lavin_with_duplicated_rows(shared_data: Path, tmp_path: Path) -> None:
    # the repro: duplicated rows moved LaVIN's perception from 963.611 to 963.426 silently
    lavin = shared_data / "mme" / "eval_tool" / "LaVIN"
    folder = tmp_path / "LaVIN"
    shutil.copytree(lavin, folder)
    path = folder / "landmark.txt"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines + lines[:2]), encoding="utf-8")
    with pytest.raises(InputError, match=r"landmark\.txt: line 401: duplicate line"):
        evaluate_task("mme", folder)
    ev = evaluate_task("mme", folder, on_duplicate="last")
    assert ev.metrics["perception"] == 963.6114445778312  # the MME README's 963.6


# ----------------------------------------------------------------------------------------
# 2. incomplete ground truth or results: one rule


def test_mme_short_task_file_needs_allow_missing(tmp_path: Path) -> None:
    # the repro: scene 378 of 400 was scored without a warning
    counts = dict(QUESTIONS, scene=378)
    folder = _mme_folder(tmp_path / "r", counts)
    with pytest.raises(InputError, match=r"scene\.txt: 378 lines, but MME's scene has 400"):
        evaluate_task("mme", folder)
    ev = evaluate_task("mme", folder, allow_missing=True)
    # calculation.py scores the 378 lines present: still 200 for scene
    assert ev.metrics == {"perception": 1850.0, "cognition": 800.0}
    assert ev.data.n_missing == 22
    assert "missing:22" in ev.signature.format()
    assert any("scene.txt: 378 of MME's 400 questions" in n for n in ev.notes)


def test_mme_missing_task_files_are_counted(tmp_path: Path) -> None:
    counts = {t: n for t, n in QUESTIONS.items() if t != "OCR"}
    ev = evaluate_task("mme", _mme_folder(tmp_path / "r", counts), allow_missing=True)
    assert ev.data.n_missing == 40
    assert ev.metrics["perception"] == 1650.0  # OCR's 200 left out, as calculation.py cannot


def _your_results(folder: Path, lines: dict[str, list[str]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for task, rows in lines.items():
        (folder / f"{task}.txt").write_text("".join(rows), encoding="utf-8")
    return folder


_GT = {
    "landmark": [
        "1.jpg\tIs it a tower? Please answer yes or no.\tYes\n",
        "1.jpg\tIs it a bridge? Please answer yes or no.\tNo\n",
    ]
}


def _llava_answers(path: Path, rows: list[tuple[str, str, str]]) -> Path:
    return _jsonl(path, [{"question_id": q, "prompt": p, "text": t} for q, p, t in rows])


def test_mme_answers_to_questions_the_template_lacks_need_ignore_extra(tmp_path: Path) -> None:
    # the repro: the template lacks questions the answers have; nothing let it be scored
    gt = _your_results(tmp_path / "Your_Results", _GT)
    res = _llava_answers(
        tmp_path / "answers.jsonl",
        [
            ("landmark/1.jpg", "Is it a tower?", "Yes"),
            ("landmark/1.jpg", "Is it a bridge?", "No"),
            ("landmark/2.jpg", "Is it a castle?", "Yes"),
        ],
    )
    with pytest.raises(InputError, match=r"line 3: no line of landmark\.txt .*ignore.extra"):
        evaluate_task("mme", str(res), annotations=str(gt))
    ev = evaluate_task("mme", str(res), annotations=str(gt), ignore_extra=True)
    assert len(ev.scores) == 2 and ev.data.n_extra_ignored == 1
    assert ev.aggregate.breakdowns["task"]["landmark"]["score"] == 200.0
    assert any("1 answer(s) to questions not in" in n for n in ev.notes)


def test_mme_a_second_answer_keeps_the_last_when_asked(tmp_path: Path) -> None:
    gt = _your_results(tmp_path / "Your_Results", _GT)
    res = _llava_answers(
        tmp_path / "answers.jsonl",
        [
            ("landmark/1.jpg", "Is it a tower?", "No"),
            ("landmark/1.jpg", "Is it a bridge?", "No"),
            ("landmark/1.jpg", "Is it a tower?", "Yes"),
        ],
    )
    with pytest.raises(InputError, match=r"line 3: a second answer .*on.duplicate.*last"):
        evaluate_task("mme", str(res), annotations=str(gt))
    ev = evaluate_task("mme", str(res), annotations=str(gt), on_duplicate="last")
    assert [it.prediction for it in ev.data.items] == ["Yes\n", "No\n"]
    assert ev.aggregate.breakdowns["task"]["landmark"]["score"] == 200.0


def test_pope_llava_answer_given_twice(tmp_path: Path) -> None:
    labels = _jsonl(
        tmp_path / "coco_pope_random.json",
        [
            {"question_id": i + 1, "image": f"{i}.jpg", "text": f"Is there a {w}?", "label": lab}
            for i, (w, lab) in enumerate([("cat", "yes"), ("dog", "no")])
        ],
    )
    answers = [
        {"question_id": 1, "prompt": "Is there a cat?", "text": "Yes"},
        {"question_id": 2, "prompt": "Is there a dog?", "text": "Yes"},
        {"question_id": 2, "prompt": "Is there a dog?", "text": "No"},
    ]
    res = _jsonl(tmp_path / "answers.jsonl", answers)
    with pytest.raises(InputError, match=r"line 3: duplicate question_id 2"):
        evaluate_task("pope", str(res), annotations=str(labels))
    ev = evaluate_task("pope", str(res), annotations=str(labels), on_duplicate="last")
    assert ev.scores == [1.0, 1.0]


@pytest.mark.parametrize("task", sorted(LOGS))
def test_an_empty_sample_is_missing_by_the_one_rule(task: str, tmp_path: Path) -> None:
    # a log scored alone: its records are the items; an empty one is scored 0 and counted
    docs, answers = LOGS[task]
    rows = _log(docs, answers)
    rows[1]["filtered_resps"] = [None]
    log = _jsonl(tmp_path / f"samples_{task}.jsonl", rows)
    with pytest.raises(InputError, match=r"line 2: empty prediction .*allow.missing"):
        evaluate_task(task, str(log))
    ev = evaluate_task(task, str(log), allow_missing=True)
    assert len(ev.scores) == 4 and ev.scores[1] == 0.0
    assert ev.data.n_missing == 1
    assert "missing:1" in ev.signature.format()


def test_an_empty_positional_sample_is_missing(tmp_path: Path) -> None:
    truth = tmp_path / "test_human.json"
    truth.write_text(json.dumps([{"query": "q", "label": "1"}, {"query": "r", "label": "2"}]))
    rows = [{"doc_id": 0, "filtered_resps": ["1"]}, {"doc_id": 1, "filtered_resps": [None]}]
    log = _jsonl(tmp_path / "s.jsonl", rows)
    with pytest.raises(InputError, match=r"line 2: empty prediction .*allow.missing"):
        evaluate_task("chartqa", str(log), annotations=str(truth))
    ev = evaluate_task("chartqa", str(log), annotations=str(truth), allow_missing=True)
    assert ev.scores == [1.0, 0.0] and ev.data.n_missing == 1


def _textvqa_gt(path: Path) -> Path:
    rows = [
        {"question_id": i, "question": f"what is {i}?", "image_id": f"im{i}", "answers": _TEN}
        for i in range(2)
    ]
    path.write_text(json.dumps({"dataset_name": "textvqa", "data": rows}), encoding="utf-8")
    return path


def _empty_answer_cases(tmp: Path) -> dict[str, tuple[str, Path, Path, dict[str, Any]]]:
    """One joined layout per task whose reader refused a null answer without naming the
    option: ``(task, results, annotations, options)``; the second answer is null."""
    tv = _textvqa_gt(tmp / "TextVQA_val.json")
    llava = [
        {"question_id": f"im{i}", "prompt": f"What is {i}?\nAnswer briefly.", "text": t}
        for i, t in enumerate(["cat", None])
    ]
    vizwiz_gt = tmp / "val.json"
    vizwiz_gt.write_text(
        json.dumps([{"image": f"{i}.jpg", "question": "q", "answers": _TEN} for i in range(2)])
    )
    docvqa_gt = tmp / "val_v1.0.json"
    docvqa_gt.write_text(
        json.dumps(
            {
                "dataset_name": "docvqa",
                "data": [{"questionId": i, "answers": ["cat"]} for i in range(2)],
            }
        )
    )
    labels = _jsonl(
        tmp / "coco_pope_random.json",
        [{"question_id": i + 1, "image": f"{i}.jpg", "text": "q", "label": "yes"} for i in (0, 1)],
    )
    return {
        "textvqa-llava": ("textvqa", _jsonl(tmp / "llava.jsonl", llava), tv, {}),
        "vizwiz": (
            "vizwiz",
            _jsonl(
                tmp / "vizwiz.jsonl",
                [{"image": f"{i}.jpg", "answer": a} for i, a in enumerate(["cat", None])],
            ),
            vizwiz_gt,
            {},
        ),
        "docvqa": (
            "docvqa",
            _jsonl(
                tmp / "docvqa.jsonl",
                [{"questionId": i, "answer": a} for i, a in enumerate(["cat", None])],
            ),
            docvqa_gt,
            {},
        ),
        "pope": (
            "pope",
            _jsonl(tmp / "pope.jsonl", [{"question": "q", "answer": a} for a in ["yes", None]]),
            labels,
            {},
        ),
    }


@pytest.mark.parametrize("case", ["textvqa-llava", "vizwiz", "docvqa", "pope"])
def test_a_null_answer_in_a_joined_layout_is_missing(case: str, tmp_path: Path) -> None:
    task, results, annotations, options = _empty_answer_cases(tmp_path)[case]
    with pytest.raises(InputError, match=r"line 2: empty .*allow.missing"):
        evaluate_task(task, str(results), annotations=str(annotations), **options)
    ev = evaluate_task(
        task, str(results), annotations=str(annotations), allow_missing=True, **options
    )
    assert len(ev.scores) == 2 and ev.scores[0] == 1.0 and ev.scores[1] == 0.0
    assert ev.data.n_missing == 1


def test_mme_null_llava_answer_is_missing(tmp_path: Path) -> None:
    more = [
        "2.jpg\tIs it a castle? Please answer yes or no.\tYes\n",
        "2.jpg\tIs it a lake? Please answer yes or no.\tNo\n",
    ]
    gt = _your_results(tmp_path / "Your_Results", {"landmark": _GT["landmark"] + more})
    res = _llava_answers(
        tmp_path / "answers.jsonl",
        [
            ("landmark/1.jpg", "Is it a tower?", "Yes"),
            ("landmark/1.jpg", "Is it a bridge?", "No"),
            ("landmark/2.jpg", "Is it a castle?", None),  # type: ignore[list-item]
            ("landmark/2.jpg", "Is it a lake?", None),  # type: ignore[list-item]
        ],
    )
    with pytest.raises(InputError, match=r"line 3: empty answer .*allow.missing"):
        evaluate_task("mme", str(res), annotations=str(gt))
    # as questions without an answer: left out, as convert_answer_to_mme.py leaves them
    ev = evaluate_task("mme", str(res), annotations=str(gt), allow_missing=True)
    assert ev.data.n_missing == 2 and len(ev.scores) == 2
    assert ev.aggregate.breakdowns["task"]["landmark"]["score"] == 200.0


# ----------------------------------------------------------------------------------------
# 3. the newcomer's messages: say what was found


def test_textvqa_answers_stored_under_answer_are_named(tmp_path: Path) -> None:
    # the repro: "the test split has no answers", though the ten answers were there
    gt = tmp_path / "gt.json"
    row = {"question_id": 1, "question": "what?", "image_id": "a", "answer": _TEN}
    gt.write_text(json.dumps({"dataset_name": "textvqa", "data": [row]}), encoding="utf-8")
    res = _jsonl(tmp_path / "res.jsonl", [{"question_id": 1, "answer": "cat"}])
    with pytest.raises(InputError) as err:
        evaluate_task("textvqa", str(res), annotations=str(gt))
    msg = str(err.value)
    assert "'answer' holds a list of 10: did you mean 'answers'" in msg
    assert "test split" not in msg


def test_textvqa_test_split_without_answers_is_still_said(tmp_path: Path) -> None:
    gt = tmp_path / "gt.json"
    row = {"question_id": 1, "question": "what?", "image_id": "a"}
    gt.write_text(json.dumps({"dataset_name": "textvqa", "data": [row]}), encoding="utf-8")
    res = _jsonl(tmp_path / "res.jsonl", [{"question_id": 1, "answer": "cat"}])
    with pytest.raises(InputError, match=r"the test split has no answers"):
        evaluate_task("textvqa", str(res), annotations=str(gt))


@pytest.mark.parametrize("task", ["infographicvqa", "docvqa"])
def test_anls_answers_stored_under_answer_are_named(task: str, tmp_path: Path) -> None:
    gt = tmp_path / "gt.json"
    gt.write_text(json.dumps({"dataset_name": task, "data": [{"questionId": 1, "answer": ["x"]}]}))
    res = _jsonl(tmp_path / "res.jsonl", [{"questionId": 1, "answer": "x"}])
    with pytest.raises(InputError) as err:
        evaluate_task(task, str(res), annotations=str(gt))
    assert "'answer' holds a list of 1: did you mean 'answers'" in str(err.value)
    assert "test-split" not in str(err.value)


def test_vizwiz_answers_stored_under_another_name_are_named(tmp_path: Path) -> None:
    gt = tmp_path / "val.json"
    gt.write_text(json.dumps([{"image": "0.jpg", "question": "q", "gt_answers": _TEN}]))
    res = _jsonl(tmp_path / "res.jsonl", [{"image": "0.jpg", "answer": "cat"}])
    with pytest.raises(InputError, match=r"'gt_answers' holds a list of 10: did you mean"):
        evaluate_task("vizwiz", str(res), annotations=str(gt))


# ----------------------------------------------------------------------------------------
# 4. valid input taken: ids by value, --answer-field / --id-field win


_SHEET = [
    {"index": i + 1, "question": "q", "answer": a, "prediction": p, "split": "test_human"}
    for i, (a, p) in enumerate([("12", "12"), ("red", "blue"), ("3.5", "3.6")])
]


def _sheets(tmp: Path, rows: list[dict[str, Any]], name: str) -> list[Path]:
    """The same rows saved as .csv, .tsv and .xlsx (pandas, as VLMEvalKit writes them)."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("openpyxl")
    df = pd.DataFrame(rows)
    paths = [tmp / f"{name}.csv", tmp / f"{name}.tsv", tmp / f"{name}.xlsx"]
    df.to_csv(paths[0], index=False)
    df.to_csv(paths[1], sep="\t", index=False)
    df.to_excel(paths[2], index=False)
    return paths


@pytest.mark.parametrize("task", ["chartqa", "ocrvqa", "docvqa"])
def test_one_sheet_in_three_formats_gives_the_same_items(task: str, tmp_path: Path) -> None:
    # the repro: the same ChartQA data as CSV and as XLSX was "not the same items" (ids
    # "1" vs 1)
    rows = [dict(r) for r in _SHEET]
    if task == "docvqa":
        for r in rows:
            r["answer"] = str([r["answer"]])
    evs = [evaluate_task(task, str(p)) for p in _sheets(tmp_path, rows, f"m_{task}")]
    ids = [[it.id for it in ev.data.items] for ev in evs]
    assert ids[0] == ids[1] == ids[2] == [1, 2, 3]
    assert evs[0].scores == evs[1].scores == evs[2].scores


def test_csv_and_xlsx_results_compare_as_one_system_pair(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from vqametrics.cli import main

    csv, _, xlsx = _sheets(tmp_path, _SHEET, "m_ChartQA_TEST")
    assert main(["score", "chartqa", "--results", str(csv), "--results", str(xlsx)]) == 0
    assert "not the same items" not in capsys.readouterr().err


def test_ids_that_only_look_like_numbers_stay_text(tmp_path: Path) -> None:
    rows = [dict(r, index=k) for r, k in zip(_SHEET, ["007", "12a", " 5"], strict=True)]
    path = tmp_path / "m.tsv"
    cols = list(rows[0])
    path.write_text(
        "\n".join("\t".join(str(r[c]) for c in cols) for r in [{c: c for c in cols}, *rows]) + "\n",
        encoding="utf-8",
    )
    ev = evaluate_task("chartqa", str(path))
    assert [it.id for it in ev.data.items] == ["007", "12a", " 5"]


def test_infographicvqa_predict_beside_the_ground_truth(tmp_path: Path) -> None:
    # the repro: `predict` beside the ground truth `answer` (a list) could not be scored at all
    rows = [
        {"questionId": 1, "question": "q", "answer": ["total", "sum"], "predict": "total"},
        {"questionId": 2, "question": "q", "answer": ["blue"], "predict": "red"},
    ]
    res = _jsonl(tmp_path / "infographicvqa_results.jsonl", rows)
    ev = evaluate_task("infographicvqa", str(res), answer_field="predict")
    assert ev.scores == [1.0, 0.0] and ev.metrics["ANLS"] == 0.5
    gt = tmp_path / "infographicVQA_val_v1.0.json"
    data = [{"questionId": r["questionId"], "answers": r["answer"]} for r in rows]
    gt.write_text(json.dumps({"dataset_name": "infographicVQA", "data": data}))
    joined = evaluate_task("infographicvqa", str(res), annotations=str(gt), answer_field="predict")
    assert joined.scores == [1.0, 0.0]


def test_ocrbench_answer_and_id_fields_win(tmp_path: Path) -> None:
    rows = [
        {"qid": k, "dataset_name": "IIIT5K", "type": "Regular Text Recognition"}
        | {"answers": [w], "predict": "zzz", "output": w}
        for k, w in (("a", "cat"), ("b", "dog"))
    ]
    res = tmp_path / "OCRBench.json"
    res.write_text(json.dumps(rows))
    ev = evaluate_task("ocrbench", str(res), answer_field="output", id_field="qid")
    assert ev.scores == [1.0, 1.0] and [it.id for it in ev.data.items] == ["a", "b"]


def test_mme_llava_answer_field_wins(tmp_path: Path) -> None:
    gt = _your_results(tmp_path / "Your_Results", _GT)
    rows = [
        {"question_id": "landmark/1.jpg", "prompt": p, "text": "maybe", "answer": a}
        for p, a in (("Is it a tower?", "Yes"), ("Is it a bridge?", "No"))
    ]
    res = _jsonl(tmp_path / "answers.jsonl", rows)
    ev = evaluate_task("mme", str(res), annotations=str(gt), answer_field="answer")
    assert ev.aggregate.breakdowns["task"]["landmark"]["score"] == 200.0


# ----------------------------------------------------------------------------------------
# 5. a JSON answer that is not a string is refused, never coerced


def _number_answer_cases(tmp: Path) -> dict[str, tuple[str, Path, Path | None]]:
    """One JSON layout per reader, its first answer the number 1: ``(task, results,
    annotations)``."""
    tv = _textvqa_gt(tmp / "TextVQA_val.json")
    docs, _ = LOGS["chartqa"]
    log = [dict(r, filtered_resps=[1]) for r in _log(docs[:1], ["x"])]
    vizwiz_gt = tmp / "val.json"
    vizwiz_gt.write_text(json.dumps([{"image": "0.jpg", "question": "q", "answers": _TEN}]))
    labels = _jsonl(
        tmp / "coco_pope_random.json",
        [{"question_id": 1, "image": "0.jpg", "text": "q", "label": "yes"}],
    )
    gt = _your_results(tmp / "Your_Results", _GT)
    return {
        "textvqa-llava": (
            "textvqa",
            _jsonl(
                tmp / "llava.jsonl",
                [{"question_id": "im0", "prompt": "What is 0?\nAnswer briefly.", "text": 1}],
            ),
            tv,
        ),
        "textvqa-official": (
            "textvqa",
            _jsonl(tmp / "official.jsonl", [{"question_id": 0, "answer": 1}]),
            tv,
        ),
        "chartqa-lmms-eval": ("chartqa", _jsonl(tmp / "samples.jsonl", log), None),
        "vizwiz": ("vizwiz", _jsonl(tmp / "v.jsonl", [{"image": "0.jpg", "answer": 1}]), vizwiz_gt),
        "pope": ("pope", _jsonl(tmp / "p.jsonl", [{"question": "q", "answer": True}]), labels),
        "mme-llava": (
            "mme",
            _jsonl(
                tmp / "a.jsonl",
                [{"question_id": "landmark/1.jpg", "prompt": "Is it a tower?", "text": 1}],
            ),
            gt,
        ),
    }


@pytest.mark.parametrize(
    "case",
    ["textvqa-llava", "textvqa-official", "chartqa-lmms-eval", "vizwiz", "pope", "mme-llava"],
)
def test_a_number_answer_in_json_is_refused(case: str, tmp_path: Path) -> None:
    # the repro: a LLaVA answer with "text": 1 was coerced to "1" and scored
    task, results, annotations = _number_answer_cases(tmp_path)[case]
    # refused where the results are read (load.layouts) or in the task's own reader, naming the
    # line, the field and the value
    one_of = (
        r"line 1: '\w+' is (int 1|bool True), expected text"
        r"|line 1: \w+ is (int \(1\)|bool \(True\)), expected the answer as a string"
    )
    with pytest.raises(InputError, match=one_of):
        evaluate_task(task, str(results), annotations=annotations and str(annotations))


def test_a_number_cell_in_a_sheet_is_still_its_text(tmp_path: Path) -> None:
    # a spreadsheet cell 12 is the text it shows (VLMEvalKit reads sheets with pandas)
    _, _, xlsx = _sheets(tmp_path, [dict(r, prediction=12) for r in _SHEET], "m_ChartQA_TEST")
    ev = evaluate_task("chartqa", str(xlsx))
    assert [it.prediction for it in ev.data.items] == ["12", "12", "12"]
    assert ev.scores[0] == 1.0


def test_pope_question_file_ids_match_by_value(tmp_path: Path) -> None:
    # LLaVA's answers name question 1, the question file "1": the same question
    labels = _jsonl(
        tmp_path / "coco_pope_random.json",
        [{"question_id": 1, "image": "0.jpg", "text": "Is there a cat?", "label": "yes"}],
    )
    questions = _jsonl(
        tmp_path / "llava_pope_test.jsonl",
        [{"question_id": "1", "image": "0.jpg", "text": "Is there a cat?", "category": "random"}],
    )
    answers = _jsonl(
        tmp_path / "answers.jsonl", [{"question_id": 1, "prompt": "Is there a cat?", "text": "Yes"}]
    )
    ev = evaluate_task(
        "pope", str(answers), annotations=str(labels.parent), questions=str(questions)
    )
    assert ev.scores == [1.0] and ev.data.items[0].fields["split"] == "random"


def test_vizwiz_sheet_with_answers_keeps_its_format(tmp_path: Path) -> None:
    # VLMEvalKit's VizWiz sheet names its ground truth 'answers'; a number cell is its text
    rows = [{"index": 1, "question": "q", "answers": str(["12"] * 10), "prediction": 12}]
    _, tsv, xlsx = _sheets(tmp_path, rows, "m_VizWiz")
    for path in (tsv, xlsx):
        ev = evaluate_task("vizwiz", str(path))
        assert ev.scores == [1.0] and [it.id for it in ev.data.items] == [1]
        assert ev.data.layouts == (f"vlmevalkit ({path.suffix[1:]})",)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=20))
def test_unique_samples_keeps_each_sample_once_the_last_of_it(doc_ids: list[int]) -> None:
    # the rule as a dict would apply it: first-seen order, the last value of each key
    rows = [
        {"doc_id": d, "doc": {"q": d}, "filtered_resps": [f"a{k}"]} for k, d in enumerate(doc_ids)
    ]
    preds = lmms_eval_predictions(read_records(rows), TaskInputs(results=rows))
    assert preds is not None
    order = list(dict.fromkeys(doc_ids))
    last = {d: f"a{k}" for k, d in enumerate(doc_ids)}
    kept, note = unique_samples(preds, "last")
    assert [r["doc_id"] for r in kept.records.rows] == order
    assert kept.texts == [last[d] for d in order]
    assert len(kept.wheres) == len(kept.ids) == len(order)
    if len(order) == len(doc_ids):
        assert note is None and unique_samples(preds)[0] is preds
    else:
        assert note is not None and note.startswith(f"{len(doc_ids) - len(order)} repeated")
        with pytest.raises(InputError, match="duplicate sample"):
            unique_samples(preds)
