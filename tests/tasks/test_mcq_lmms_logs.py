"""lmms-eval --log_samples logs of MMVP, BLINK, CV-Bench and MMMU-Pro (as lmms-eval@75571cf
writes them: no doc, the per-sample metric record), BLINK_circular, and ScienceQA's official
breakdowns. Every expected value is derived by hand from the rules of the code named in the
task modules (lmms-eval@75571cf tasks/{mmvp,blink,cv_bench,mmmu_pro}/utils.py, VLMEvalKit
mcq_circular_eval, ScienceQA tools/evaluate_acc.py), never from the code under test."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vqametrics.cli import main
from vqametrics.core.exceptions import InputError
from vqametrics.tasks._run import evaluate_task


def _log(path: Path, rows: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def _sample(doc_id: int, target: str, resp: str, **metrics: Any) -> dict[str, Any]:
    # the keys lmms-eval@75571cf save_results_samples writes (doc and arguments popped)
    row = {"doc_id": doc_id, "target": target, "filtered_resps": resp, "doc_hash": "h"}
    return row | {"input": "prompt", "token_counts": []} | metrics


# (Index, gold, response, the letter _extract_answer_letter reads, by hand)
MMVP = [
    (1, "A", "A", "A"),
    (2, "B", "(b) Closed", "B"),
    (3, "A", "I see a dog", "A"),  # the article 'a' (patterns ignore case)
    (4, "B", "B", "B"),
    (5, "A", "The answer is B", "B"),
    (6, "B", "B.", "B"),
]


def _mmvp_rows() -> list[dict[str, Any]]:
    rows = []
    for doc_id, (index, gold, resp, letter) in enumerate(MMVP):
        rec = {"index": index - 1, "pair_index": (index - 1) // 2, "pred": resp}
        rec |= {"pred_letter": letter, "gt": gold, "is_correct": letter == gold}
        rows.append(_sample(doc_id, gold, resp, mmvp_accuracy=rec, mmvp_pair_accuracy=dict(rec)))
    return rows


def test_mmvp_log_without_doc(tmp_path: Path) -> None:
    path = _log(tmp_path / "x_samples_mmvp.jsonl", _mmvp_rows())
    r = evaluate_task("mmvp", path, profile="lmms-eval")
    assert r.scores == [1.0, 1.0, 1.0, 1.0, 0.0, 1.0]
    assert r.metrics["mmvp_accuracy"] == 5 / 6
    assert r.metrics["mmvp_pair_accuracy"] == 2 / 3  # pairs (1,2) and (3,4); (5,6) half
    assert r.aggregate.headline == "mmvp_pair_accuracy"


def test_mmvp_log_with_doc_reads_options_for_vlmevalkit(tmp_path: Path) -> None:
    rows = []
    for doc_id, (index, gold, resp, _) in enumerate(MMVP):
        doc = {"Index": index, "Question": f"q{(index - 1) // 2}"}
        doc |= {"Options": "(a) Open (b) Closed", "Correct Answer": f"({gold.lower()})"}
        rows.append(_sample(doc_id, gold, resp) | {"doc": doc})
    path = _log(tmp_path / "x_samples_mmvp.jsonl", rows)
    r = evaluate_task("mmvp", path, profile="lmms-eval")
    assert r.metrics["mmvp_pair_accuracy"] == 2 / 3
    v = evaluate_task("mmvp", path, profile="vlmevalkit")
    # can_infer: 'I see a dog' has no option letter token and no option text -> Z (no judge)
    assert v.scores == [1.0, 1.0, 0.0, 1.0, 0.0, 1.0]
    assert v.metrics["Overall"] == 1 / 3


def test_vlmevalkit_profile_refuses_a_log_without_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _log(tmp_path / "x_samples_mmvp.jsonl", _mmvp_rows())
    assert main(["score", "mmvp", "--results", path]) == 2
    err = capsys.readouterr().err
    assert "--profile lmms-eval" in err and "Traceback" not in err


def test_blink_group_is_the_unweighted_mean_of_subtasks(tmp_path: Path) -> None:
    # (sub_task, target, response, first letter by hand)
    cases = [
        ("Counting", "(A)", "A", "A"),
        ("Counting", "(B)", "(B) two", "B"),
        ("Counting", "(C)", "The answer is C", "T"),
        ("Jigsaw", "(A)", "a", "A"),
        ("Jigsaw", "(B)", "A", "A"),
    ]
    rows = []
    for i, (sub, target, resp, letter) in enumerate(cases):
        gt = target.strip("()")
        rec = {"id": f"val_{sub}_{i}", "gt_content": gt, "pred_parsed": letter, "pred": resp}
        rows.append(
            _sample(i, target, resp, blink_acc=rec | {"sub_task": sub, "is_correct": letter == gt})
        )
    r = evaluate_task("blink", _log(tmp_path / "s.jsonl", rows), profile="lmms-eval")
    assert r.scores == [1.0, 1.0, 0.0, 1.0, 0.0]
    assert r.metrics["blink_acc"] == (2 / 3 + 1 / 2) / 2
    one = evaluate_task("blink", _log(tmp_path / "c.jsonl", rows[:3]), profile="lmms-eval")
    assert one.metrics["blink_acc"] == 2 / 3


def test_cvbench_log_is_the_micro_mean(tmp_path: Path) -> None:
    cases = [
        ("COCO", "2D", "(A)", "A"),
        ("ADE20K", "2D", "(B)", "B"),
        ("Omni3D", "3D", "(A)", "Based on it, A"),  # first letter B: a miss
        ("Omni3D", "3D", "(B)", "(B)"),
    ]
    rows = []
    for i, (src, typ, target, resp) in enumerate(cases):
        rec = {"id": i, "gt_content": target.strip("()"), "pred": resp, "type": typ}
        rows.append(_sample(i, target, resp, cv_bench_acc=rec | {"task": "Count", "source": src}))
    r = evaluate_task("cvbench", _log(tmp_path / "s.jsonl", rows), profile="lmms-eval")
    assert r.scores == [1.0, 1.0, 0.0, 1.0]
    assert r.metrics["cv_bench_acc"] == 0.75  # not Cambrian's ((1 + 1) / 2 + 0.5) / 2


def test_blink_circular_all_copies_must_be_right(tmp_path: Path) -> None:
    f = tmp_path / "m_BLINK_circular.csv"
    f.write_text(
        "index,question,A,B,answer,category,prediction\n"
        "1,q1,x,y,A,c1,A\n1000001,q1,y,x,B,c1,B\n"
        "2,q2,x,y,A,c1,A\n1000002,q2,y,x,B,c1,A\n"
        "3,q3,x,y,B,c2,B\n1000003,q3,y,x,A,c2,hmm\n",
        encoding="utf-8",
    )
    r = evaluate_task("blink", str(f))
    assert r.scores == [1.0, 0.0, 0.0]  # q2 mismatch in copy 1; q3 unread, no judge
    assert r.metrics["Overall"] == 1 / 3
    rec = tmp_path / "m_BLINK_circular_gpt-4o-mini_result.csv"
    rec.write_text(
        "index,question,A,B,answer,category,prediction,hit,log\n"
        "1,q1,x,y,A,c1,A,1,Succeed During Pre-fetching\n"
        "2,q2,x,y,A,c1,A,0,Failed in Prefetching Rolling 1\n"
        "3,q3,x,y,B,c2,B,1,judge matched\n",
        encoding="utf-8",
    )
    judged = evaluate_task("blink", str(f))
    assert judged.scores == [1.0, 0.0, 1.0]  # q3 decided by the judge: its recorded hit


def test_mmmu_pro_lmms_log(tmp_path: Path) -> None:
    options = "\n".join(
        f"{k}. {v}" for k, v in zip("ABCD", ["cat", "dog", "bird", "fish"], strict=True)
    )
    standard = f"Which animal?\n{options}\n\nAnswer with the option letter from the given choices."
    vision = "Answer with the option letter from the given choices directly."
    # (subject, answer, response, logged parsed_pred, prompt)
    cases = [
        ("Art", "A", "A", "A", standard),
        ("Art", "B", "B. dog", "B", standard),  # letter-dot tier
        ("Math", "C", "(C)", "C", standard),
        ("Math", "D", "hmm", "D", standard),  # random: the logged draw is replayed
        ("Math", "A", "A", "A", vision),  # vision: raw response == answer
        ("Math", "A", "A.", "A.", vision),  # vision: 'A.' != 'A'
    ]
    rows = []
    for i, (sub, ans, resp, parsed, prompt) in enumerate(cases):
        rec = {"id": f"t_{i}", "subject": sub, "answer": ans, "parsed_pred": parsed}
        rows.append(_sample(i, ans, resp, mmmu_acc=rec) | {"input": prompt})
    path = _log(tmp_path / "x_samples_mmmu_pro_standard.jsonl", rows)
    r = evaluate_task("mmmu-pro", path, profile="lmms-eval")
    assert r.scores == [1.0, 1.0, 1.0, 1.0, 1.0, 0.0]
    assert r.metrics["mmmu_acc"] == round((1.0 * 2 + 0.75 * 4) / 6, 5) == 0.83333
    assert r.metrics["random"] == 1


def test_scienceqa_official_breakdowns(tmp_path: Path) -> None:
    head = "index,question,hint,A,B,answer,subject,grade,topic,prediction\n"
    f = tmp_path / "m_ScienceQA_TEST.csv"
    f.write_text(
        head
        + "1,q,ctx,x,y,A,natural science,grade2,biology,The answer is A.\n"
        + "2,q,,x,y,B,natural science,grade8,physics,The answer is A.\n"
        + "3,q,ctx,x,y,A,social science,grade9,geography,The answer is A.\n"
        + "4,q,,x,y,B,language science,grade4,grammar,The answer is B.\n",
        encoding="utf-8",
    )
    m = evaluate_task("scienceqa", str(f), profile="official").metrics
    assert m["acc_average"] == 75.0
    assert (m["acc_natural"], m["acc_social"], m["acc_language"]) == (50.0, 100.0, 100.0)
    assert m["acc_has_text"] == 100.0 and m["acc_has_image"] == 75.0  # every row has an image
    assert m["acc_no_context"] == -1  # no row lacks both: the official -1
    assert (m["acc_grade_1_6"], m["acc_grade_7_12"]) == (100.0, 50.0)
    assert (m["acc_biology"], m["acc_physics"], m["acc_verbs"]) == (100.0, 0.0, -1)
    keys = [k for k in m if k.startswith("acc_")][:10]
    assert keys == [  # evaluate_acc.py get_scores' key order
        "acc_natural", "acc_social", "acc_language", "acc_has_text", "acc_has_image",
        "acc_no_context", "acc_grade_1_6", "acc_grade_7_12", "acc_average",
        "acc_punctuation",
    ]  # fmt: skip


# ----- issue 22: a concatenated log (`cat log log`) is an error, --on-duplicate last its escape


def test_a_concatenated_log_is_an_error_unless_on_duplicate_last(tmp_path: Path) -> None:
    rows = _mmvp_rows()
    path = _log(tmp_path / "x_samples_mmvp.jsonl", rows + rows)
    with pytest.raises(InputError, match=r"line 7: duplicate question id 0 \(first at .*line 1"):
        evaluate_task("mmvp", path, profile="lmms-eval")
    r = evaluate_task("mmvp", path, profile="lmms-eval", on_duplicate="last")
    # each sample once, as the log of one run scores (test_mmvp_log_without_doc)
    assert r.scores == [1.0, 1.0, 1.0, 1.0, 0.0, 1.0] and r.metrics["n"] == 6
    assert "6 repeated question id row(s): the last of each was kept" in " ".join(r.notes)


def test_mmmu_pro_log_given_twice_keeps_the_last_with_on_duplicate(tmp_path: Path) -> None:
    rec = {"id": "t_0", "subject": "Art", "answer": "A", "parsed_pred": "A"}
    first = _sample(0, "A", "B", mmmu_acc={**rec, "parsed_pred": "B"}) | {"input": "q"}
    again = _sample(1, "A", "A", mmmu_acc=rec) | {"input": "q"}
    path = _log(tmp_path / "x_samples_mmmu_pro_vision.jsonl", [first, again])
    with pytest.raises(InputError, match=r"line 2: duplicate id 't_0' \(first at .*line 1"):
        evaluate_task("mmmu-pro", path, profile="lmms-eval")
    r = evaluate_task("mmmu-pro", path, profile="lmms-eval", on_duplicate="last")
    assert r.scores == [1.0]  # the last row's response 'A' (a vision sample: raw == answer)
    assert any("1 repeated id row(s)" in n for n in r.notes)
