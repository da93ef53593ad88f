"""New runs of the judged benchmarks: ``--judge-url`` asks a (local stub) judge for the items
with no recorded extraction / verdict / grade, with the toolkit's prompt.

Every expected prompt below is written out by hand from the toolkit's template (MathVista
@53d5258 ``create_test_prompt``; VLMEvalKit @e8e78f0 ``build_mathvista_gpt4_prompt``;
HallusionBench @744007c ``evaluate_by_chatgpt``; MM-Vet @acde843 ``mm-vet_evaluator.py``),
never produced by the code under test; the prompt texts that cannot be bundled are stand-ins
written here (a user supplies the real ones with ``--judge-prompt``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("httpx")

from judge.stub import Stub, serve
from vqametrics.cli import main
from vqametrics.core.exceptions import InputError
from vqametrics.judge import UnjudgedError
from vqametrics.judge.prompts import JudgePromptError
from vqametrics.schema import evaluation_schema
from vqametrics.tasks._run import evaluate_task

from ._judge_stage import judge_client, judged, mathvista_file, mmvet_files, mmvet_recorded, problem

# -- MathVista ------------------------------------------------------------------------------

DEMO_PY = 'import os\n\ndemo_prompt = """\nDEMO: read and extract.\n"""\n'
DEMO = "\nDEMO: read and extract.\n"  # the literal's value (what the digest is of)

PROBLEMS: list[dict[str, Any]] = [
    # a response equal to a choice text: extract_answer keeps it, no call
    problem("1", "8/11", "8/11", query="Q1", choices=["3/11", "8/11"], question="q1"),
    # int() parses it: no call
    problem("2", "14", "14", query="Q2", question="q2"),
    # the judge is asked
    problem(
        "3",
        "7",
        "I count 7 birds.",
        query="Hint: integer.\nQuestion: How many?",
        question="How many?",
    ),
    # the judge is asked, and its (stripped) extraction is wrong
    problem("4", "blue", "It looks red to me.", query="Q4", choices=["red", "blue"], question="q4"),
]

#: hand-derived: f"{demo.strip()}\n\n{query}\n\n{response}\n\nExtracted answer: "
OFFICIAL_PROMPT_3 = (
    "DEMO: read and extract.\n\nHint: integer.\nQuestion: How many?\n\nI count 7 birds.\n\n"
    "Extracted answer: "
)
OFFICIAL_PROMPT_4 = "DEMO: read and extract.\n\nQ4\n\nIt looks red to me.\n\nExtracted answer: "
REPLIES = {OFFICIAL_PROMPT_3: " 7\n", OFFICIAL_PROMPT_4: "red"}


def _official_file(tmp_path: Path, extractions: dict[str, str] | None = None) -> Path:
    return mathvista_file(tmp_path, PROBLEMS, extractions)


def _demo(tmp_path: Path) -> Path:
    """MathVista's ext_ans.py stand-in (the real one is CC BY-SA, never in the tests)."""
    demo = tmp_path / "ext_ans.py"
    demo.write_text(DEMO_PY, encoding="utf-8")
    return demo


def _mathvista(results: Path, stub: Stub, tmp_path: Path, prompt: Path, profile: str) -> Any:
    """*results* scored under *profile* with *stub* as the judge and *prompt* as its text."""
    client = judge_client(stub, tmp_path)
    return evaluate_task("mathvista", results, profile=profile, judge=client, judge_prompt=prompt)


def _replying() -> Stub:
    return Stub(reply=lambda p: REPLIES.get(p, "??"))


def test_mathvista_official_prompt_reply_and_score_equal_recorded(tmp_path: Path) -> None:
    demo = _demo(tmp_path)
    out = _official_file(tmp_path)
    with serve(_replying()) as stub:
        r = judged("mathvista", out, stub, tmp_path, judge_prompt=demo)
        sent = [q["messages"][0]["content"] for q in stub.requests]
    assert sorted(sent) == sorted([OFFICIAL_PROMPT_3, OFFICIAL_PROMPT_4])
    recs = {rec["id"]: rec for rec in r.per_item()}
    assert recs["1"]["judge"] == {"decision": "8/11", "by": "rules"}
    assert recs["3"]["judge"]["decision"] == "7"  # the reply stripped, as MathVista's wrapper
    assert recs["3"]["prediction"] == "7"
    # the same extractions recorded: the same scores and numbers
    recorded = _official_file(tmp_path, {"1": "8/11", "2": "14", "3": "7", "4": "red"})
    plain = evaluate_task("mathvista", recorded)
    assert r.scores == plain.scores == [1.0, 1.0, 1.0, 0.0]
    assert r.metrics == plain.metrics
    assert r.aggregate.breakdowns == plain.aggregate.breakdowns
    digest = hashlib.sha256(DEMO.encode()).hexdigest()[:8]
    sig = r.signature.format()
    assert f"|judge:stub-judge/prompt:mathvista-official@53d5258+sha:{digest}|" in sig
    assert "|judge:recorded|" in plain.signature.format()
    assert r.judge_stats is not None
    assert (r.judge_stats.asked, r.judge_stats.judged, r.judge_stats.judge_calls) == (2, 2, 2)


def test_mathvista_official_2024_uses_the_same_prompt(tmp_path: Path) -> None:
    demo = tmp_path / "demo.txt"
    demo.write_text(DEMO, encoding="utf-8")  # a text file: its text, stripped by the toolkit
    with serve(_replying()) as stub:
        r = _mathvista(_official_file(tmp_path), stub, tmp_path, demo, "official-2024")
        assert sorted(q["messages"][0]["content"] for q in stub.requests) == sorted(
            [OFFICIAL_PROMPT_3, OFFICIAL_PROMPT_4]
        )
    assert r.scores == [1.0, 1.0, 1.0, 0.0]


def test_mathvista_second_run_is_a_replay_from_the_cache(tmp_path: Path) -> None:
    demo = _demo(tmp_path)
    out = _official_file(tmp_path)
    with serve(_replying()) as stub:
        first = judged("mathvista", out, stub, tmp_path, judge_prompt=demo)
        again = judged("mathvista", out, stub, tmp_path, judge_prompt=demo)
        assert len(stub.requests) == 2
    assert again.judge_stats is not None
    assert (again.judge_stats.judge_calls, again.judge_stats.cache_hits) == (0, 2)
    assert again.scores == first.scores and again.signature == first.signature


def test_mathvista_judge_needs_the_prompt_file(tmp_path: Path) -> None:
    with serve(Stub()) as stub:
        with pytest.raises(JudgePromptError, match=r"judge_prompt= FILE.*ext_ans\.py"):
            judged("mathvista", _official_file(tmp_path), stub, tmp_path)
        bad = tmp_path / "other.py"
        bad.write_text("x = 1\n", encoding="utf-8")
        with pytest.raises(JudgePromptError, match="no module-level string 'demo_prompt'"):
            judged("mathvista", _official_file(tmp_path), stub, tmp_path, judge_prompt=bad)
        assert stub.requests == []  # nothing was asked


def test_mathvista_without_judge_the_missing_extraction_is_an_error(tmp_path: Path) -> None:
    expected = r"pid '1': no 'extraction'.*judge=JudgeClient\(URL, NAME\)"
    with pytest.raises(InputError, match=expected):
        evaluate_task("mathvista", _official_file(tmp_path))
    r = evaluate_task("mathvista", _official_file(tmp_path), allow_missing=True)
    assert r.data.n_missing == 4 and r.scores == [0.0] * 4


def test_mathvista_unjudged_items_follow_allow_unjudged(tmp_path: Path) -> None:
    demo = _demo(tmp_path)
    out = _official_file(tmp_path)
    with serve(Stub(fail_first=100, fail_status=400)) as stub:
        with pytest.raises(UnjudgedError, match="2 of 2 items could not be judged"):
            judged("mathvista", out, stub, tmp_path, judge_prompt=demo)
        r = evaluate_task(
            "mathvista",
            out,
            judge=judge_client(stub, tmp_path, allow_unjudged=True),
            judge_prompt=demo,
        )
    assert r.scores == [1.0, 1.0, 0.0, 0.0]  # the unjudged ones have no extraction: 0
    assert "(unjudged:2/2)|" in r.signature.format()
    assert any("2 got no extraction (unjudged)" in n for n in r.notes)


#: a stand-in for VLMEvalKit's task description + examples (each example + "\n")
PREAMBLE = "Read the examples.\nEXAMPLE A\nEXAMPLE B\n"


def _vlm_sheet(tmp_path: Path) -> Path:
    rows = [
        # integer, prefetch: int("5") == 5, no call
        "0,q0,5,5,free_form,integer,,",
        # integer, the prefetch is wrong (3 != 5): the judge is asked
        "1,How many?,5,I see 3.,free_form,integer,,",
        # a prefetched 0 is falsy: VLMEvalKit calls the judge anyway
        "2,Zero?,0,0,free_form,integer,,",
    ]
    path = tmp_path / "m_MathVista_MINI.csv"
    head = "index,question,answer,prediction,question_type,answer_type,choices,precision\n"
    path.write_text(head + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_mathvista_vlmevalkit_prompt_prefetch_and_score(tmp_path: Path) -> None:
    pre = tmp_path / "preamble.txt"
    pre.write_text(PREAMBLE, encoding="utf-8")
    # hand-derived: preamble + question + "\n" + "Model respone: " + prediction
    # + "Extracted answer:"
    p1 = PREAMBLE + "How many?\nModel respone: I see 3.Extracted answer:"
    p2 = PREAMBLE + "Zero?\nModel respone: 0Extracted answer:"
    with serve(Stub(reply=lambda p: {p1: "3", p2: "0"}.get(p, "??"))) as stub:
        r = _mathvista(_vlm_sheet(tmp_path), stub, tmp_path, pre, "vlmevalkit")
        assert sorted(q["messages"][0]["content"] for q in stub.requests) == sorted([p1, p2])
    assert r.scores == [1.0, 0.0, 1.0]
    assert "|judge:stub-judge/prompt:mathvista-vlmevalkit@e8e78f0+sha:" in r.signature.format()
    # the same res recorded in the judge's sheet
    judged = _vlm_sheet(tmp_path).read_text(encoding="utf-8").splitlines()
    res = ["res", "5", "3", "0"]  # the header's new column, then each row's recorded res
    sheet = tmp_path / "m_MathVista_MINI_gpt.csv"
    sheet.write_text("".join(f"{a},{b}\n" for a, b in zip(judged, res, strict=True)))
    plain = evaluate_task("mathvista", sheet, profile="vlmevalkit")
    assert plain.scores == r.scores and plain.metrics == r.metrics


def test_mathvista_lmms_eval_profile_needs_its_prompt_file(tmp_path: Path) -> None:
    # lmms-eval's DEMO_PROMPT is a copy of MathVista's CC BY-SA demo: never bundled
    no_prompt = pytest.raises(JudgePromptError, match=r"judge_prompt= FILE.*mathvista_evals\.py")
    with serve(Stub()) as stub, no_prompt:
        judged("mathvista", _official_file(tmp_path), stub, tmp_path, profile="lmms-eval")
    assert stub.requests == []


def test_cli_mathvista_judge_prompt(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    demo = _demo(tmp_path)
    out = _official_file(tmp_path)
    with serve(_replying()) as stub:
        judge = ["--judge-url", stub.url, "--judge-model", "stub-judge"]
        judge += ["--judge-cache", str(tmp_path / "c")]
        args = ["score", "mathvista", "--results", str(out), "--json", *judge]
        assert main(args) == 2
        assert "--judge-prompt FILE" in capsys.readouterr().err
        assert main([*args, "--judge-prompt", str(demo)]) == 0
    doc = json.loads(capsys.readouterr().out)
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(doc, evaluation_schema(1))  # a judged run's document is schema 1
    assert doc["metrics"]["accuracy"] == 75.0
    assert doc["judge"]["judged"] == 2
    assert "judge:stub-judge/prompt:mathvista-official@53d5258" in doc["signature"]


# -- HallusionBench -------------------------------------------------------------------------

#: HallusionBench@744007c utils.py evaluate_by_chatgpt, written out from its source (BSD-3)
HB_VERDICT_HEAD = (
    "Imagine you are an intelligent teacher. Thoroughly read the question, reference answer and "
    "the prediction answer to ensure a clear understanding of the information provided. Assess "
    "the correctness of the predictions. If the prediction answer does not conflict with the "
    "reference answer, please generate “correct”. If the prediction answer conflict with the "
    "reference answer, please generate “incorrect”. If the prediction answer is unclear about "
    'the answer, please generate "unclear". \n\n Question:'
)
#: and check_same_by_chatgpt
HB_SAME_HEAD = (
    "Imagine you are an intelligent teacher. Thoroughly read the two responses to two different "
    "questions. Assess the consistency of the information provided within those two responses. "
    "You do not know the specific questions, but you can asssess the consistency among the two "
    "responses by checking for logical conflicts if both responses are correct. If response1 "
    "does not conflict with response2, please generate “same”. Otherwise, generate "
    '"different". \n\n response1:'
)
_WORD = {"1": "Correct.", "0": "The prediction is incorrect.", "2": "It is unclear."}


def _hb_case() -> dict[str, Any]:
    data = json.loads((Path(__file__).parents[1] / "data" / "mcq-reasoning-cases.json").read_text())
    case: dict[str, Any] = data["hallusionbench_aggregate"][0]
    return case


def _hb_records(case: dict[str, Any], recorded: bool) -> list[dict[str, Any]]:
    out = []
    for i, r in enumerate(case["input"]["records"]):
        row = {
            k: v for k, v in r.items() if k not in ("vlmevalkit_index", "answer", "judge", "same")
        }
        row["model_prediction"] = row.pop("prediction")
        row["question"], row["gt_answer_details"] = f"Is it so {i}?", f"Reference {i}."
        if recorded:
            row["gpt4v_output_gpt_check"], row["same"] = r["judge"], r["same"]
        out.append(row)
    return out


def _hb_replies(case: dict[str, Any]) -> dict[str, str]:
    """Hand-built prompt -> reply: each verdict as the case records it, each check_same too."""
    recs = case["input"]["records"]
    original = {
        (r["category"], r["subcategory"], r["set_id"], r["question_id"]): r["prediction"]
        for r in recs
        if r["figure_id"] == "0"
    }
    out = {}
    for i, r in enumerate(recs):
        verdict = (
            HB_VERDICT_HEAD
            + f"Is it so {i}?"
            + "\nReference answer: "
            + f"Reference {i}."
            + "\nPrediction answer:"
            + r["prediction"]
            + "\nOutput:"
        )
        out[verdict] = _WORD[r["judge"]]
        key = (r["category"], r["subcategory"], r["set_id"], r["question_id"])
        same = HB_SAME_HEAD + r["prediction"] + "\nresponse2: " + original[key] + "\nOutput:"
        out[same] = "Same." if r["same"] == "1" else "Different."
    return out


def _hb_run(
    tmp_path: Path, profile: str, stub: Stub, *, allow: bool = False
) -> tuple[Any, list[str]]:
    """Score the case's records without verdicts, judged by *stub*: the result and the
    prompts sent."""
    with serve(stub):
        r = evaluate_task(
            "hallusionbench",
            _hb_records(_hb_case(), recorded=False),
            profile=profile,
            judge=judge_client(stub, tmp_path, allow_unjudged=allow),
        )
    return r, [q["messages"][0]["content"] for q in stub.requests]


def _hb_stub() -> Stub:
    replies = _hb_replies(_hb_case())
    return Stub(reply=lambda p: replies.get(p, "??"))


def test_hallusionbench_official_verdicts_from_the_judge(tmp_path: Path) -> None:
    case = _hb_case()
    r, sent = _hb_run(tmp_path, "official", _hb_stub())
    assert sorted(sent) == sorted(_hb_replies(case))  # every verdict and check_same prompt
    plain = evaluate_task("hallusionbench", _hb_records(case, recorded=True), profile="official")
    assert r.scores == plain.scores
    assert r.metrics == plain.metrics
    expected = case["expected"]["official"]
    assert round(r.metrics["aAcc"], 4) == expected["aAcc"]
    assert (r.metrics["LH"], r.metrics["VI"], r.metrics["Mix"]) == (0, 1, 1)
    assert "|judge:stub-judge/prompt:hallusionbench-official@744007c|" in r.signature.format()
    recs = list(r.per_item())
    assert recs[1]["judge"]["decision"] == "0"  # "incorrect" is read before "correct"


def test_hallusionbench_lmms_eval_asks_no_check_same(tmp_path: Path) -> None:
    r, sent = _hb_run(tmp_path, "lmms-eval", _hb_stub())
    assert len(sent) == 7 and all(p.startswith(HB_VERDICT_HEAD) for p in sent)
    recorded = _hb_records(_hb_case(), recorded=True)
    assert r.metrics == evaluate_task("hallusionbench", recorded, profile="lmms-eval").metrics


def test_hallusionbench_unjudged_fails_unless_allowed(tmp_path: Path) -> None:
    with pytest.raises(UnjudgedError):
        _hb_run(tmp_path, "official", Stub(fail_first=1000, fail_status=400))
    r, _ = _hb_run(tmp_path, "official", Stub(fail_first=1000, fail_status=400), allow=True)
    assert r.scores == [0.0] * 7  # no verdict: scored as missing answers, and named
    assert "(unjudged:7/7)|" in r.signature.format()
    assert any("7 got no verdict (unjudged)" in n for n in r.notes)


# -- MM-Vet ---------------------------------------------------------------------------------

FEWSHOT_PY = 'import json\nprompt = """FEW\nSHOT | table"""\n'
#: hand-derived: prompt + "\n" + " | ".join([question, answer (<AND>/<OR> spaced), pred, ""])
MMVET_P0 = "FEW\nSHOT | table\nWhat is x? | -1 <AND> -5 | x = -1 | "
MMVET_P1 = "FEW\nSHOT | table\nColor? | blue <OR> navy | It is blue. | "
MMVET_P2 = "FEW\nSHOT | table\nWhy? | because | no idea | "
MMVET_RETRY = "\nPredict the correctness of the answer (digit): "
MMVET_REPLIES = {
    MMVET_P0: "0.5",
    MMVET_P1: " 0.7",  # the official rule rejects it (split(" ")[0] is ""): asked again
    MMVET_P1 + MMVET_RETRY: "0.7",
    MMVET_P2: "0.8 because it is partly right",  # official: 0.8; VLMEvalKit: rejected
    MMVET_P2 + MMVET_RETRY: "0.8",
}


def test_mmvet_official_prompt_retry_and_score_equal_recorded(tmp_path: Path) -> None:
    fewshot = tmp_path / "mm-vet_evaluator.py"
    fewshot.write_text(FEWSHOT_PY, encoding="utf-8")
    answers, meta = mmvet_files(tmp_path)
    with serve(Stub(reply=lambda p: MMVET_REPLIES.get(p, "??"))) as stub:
        r = judged("mmvet", answers, stub, tmp_path, annotations=meta, judge_prompt=fewshot)
        sent = [q["messages"][0]["content"] for q in stub.requests]
    assert sorted(sent) == sorted([MMVET_P0, MMVET_P1, MMVET_P1 + MMVET_RETRY, MMVET_P2])
    assert r.scores == [0.5, 0.7, 0.8]
    recorded = mmvet_recorded(
        tmp_path,
        {"v1_0": ["0.5"], "v1_1": [" 0.7", "0.7"], "v1_2": ["0.8 because it is partly right"]},
    )
    plain = evaluate_task("mmvet", recorded)
    assert plain.scores == r.scores
    assert plain.metrics == r.metrics
    assert "|judge:stub-judge/prompt:mmvet-official@acde843+sha:" in r.signature.format()
    assert r.judge_stats is not None and r.judge_stats.judge_calls == 4


def test_mmvet_vlmevalkit_reads_the_whole_reply_and_gives_up_after_five(tmp_path: Path) -> None:
    fewshot = tmp_path / "fewshot.txt"
    fewshot.write_text("FEW\nSHOT | table", encoding="utf-8")
    answers, meta = mmvet_files(tmp_path)
    with serve(Stub(reply=lambda p: MMVET_REPLIES.get(p, "??"))) as stub:
        r = judged(
            "mmvet",
            answers,
            stub,
            tmp_path,
            annotations=meta,
            profile="vlmevalkit",
            judge_prompt=fewshot,
        )
        sent = [q["messages"][0]["content"] for q in stub.requests]
    # " 0.7" is float()-able as a whole; "0.8 because ..." never is: 5 tries, then 0.0
    assert sorted(sent) == sorted([MMVET_P0, MMVET_P1, *[MMVET_P2] * 5])
    assert r.scores == [0.5, 0.7, 0.0]


def test_mmvet_judge_needs_the_prompt_file(tmp_path: Path) -> None:
    answers, meta = mmvet_files(tmp_path)
    with serve(Stub()) as stub:
        with pytest.raises(JudgePromptError, match=r"judge_prompt= FILE.*mm-vet_evaluator\.py"):
            judged("mmvet", answers, stub, tmp_path, annotations=meta)
        assert stub.requests == []
    with pytest.raises(InputError, match="no judge grade"):  # no judge: as before
        evaluate_task("mmvet", answers, annotations=meta)


def test_mmvet_unjudged_follow_allow_unjudged(tmp_path: Path) -> None:
    fewshot = tmp_path / "mm-vet_evaluator.py"
    fewshot.write_text(FEWSHOT_PY, encoding="utf-8")
    answers, meta = mmvet_files(tmp_path)
    with serve(Stub(fail_first=1000, fail_status=400)) as stub:
        kw: dict[str, Any] = {"annotations": meta, "judge_prompt": fewshot}
        with pytest.raises(UnjudgedError, match="3 of 3 items"):
            evaluate_task("mmvet", answers, judge=judge_client(stub, tmp_path), **kw)
        r = evaluate_task(
            "mmvet", answers, judge=judge_client(stub, tmp_path, allow_unjudged=True), **kw
        )
    assert r.scores == [0.0, 0.0, 0.0]
    assert "(unjudged:3/3)|" in r.signature.format()


@pytest.mark.slow
def test_llava_mathvista_re_extracted_by_a_replaying_judge(
    shared_data: Path, tmp_path: Path
) -> None:
    """LLaVA's official output with its extractions taken out, and a judge that answers each
    hand-built official prompt with the GPT-4 extraction recorded for that problem: the new
    run gives the official 26.1 and the same verdict per problem as the recorded one."""
    out = shared_data / "mathvista" / "official" / "output_llava_llama_2_13b.json"
    rows = json.loads(out.read_text(encoding="utf-8"))
    replies = {
        f"DEMO: read and extract.\n\n{r['query']}\n\n{r['response']}\n\nExtracted answer: ": (
            r["extraction"]
        )
        for r in rows.values()
    }
    bare = tmp_path / "output_bare.json"
    bare.write_text(
        json.dumps(
            {pid: {k: v for k, v in r.items() if k != "extraction"} for pid, r in rows.items()}
        )
    )
    with serve(Stub(reply=lambda p: replies.get(p, "??"))) as stub:
        r = _mathvista(bare, stub, tmp_path, _demo(tmp_path), "official")
    recorded = evaluate_task("mathvista", out)
    assert r.metrics["correct"] == 261 and r.metrics["total"] == 1000
    assert r.scores == recorded.scores
    assert r.judge_stats is not None and r.judge_stats.judged == 1000
