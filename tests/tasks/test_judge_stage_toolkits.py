"""The judge stages of MathVision (VLMEvalKit), lmms-eval's MathVista and MM-Vet, and each
toolkit's retry schedule (temperature, max_tokens) seen in the request bodies a local stub judge
receives.

Every expected prompt is written out by hand from the toolkit's template (VLMEvalKit @e8e78f0
``build_mathv_gpt4_prompt``, ``MATH_V_auxeval``, ``MMVet_auxeval``; lmms-eval @75571cf
``create_test_prompt``, ``get_chat_response``, ``mmvet_process_results``; MM-Vet @acde843
``mm-vet_evaluator.py``); the prompt texts that cannot be bundled are stand-ins written here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("httpx")

from judge.stub import Stub, serve
from vqametrics.cli.score import JUDGE_HELP
from vqametrics.core.exceptions import InputError
from vqametrics.judge import UnjudgedError
from vqametrics.judge.prompts import MATHVISION_VLMEVALKIT, JudgePromptError, load_prompt_text
from vqametrics.tasks import list_tasks
from vqametrics.tasks._run import evaluate_task

from ._judge_stage import judge_client, judged, mathvista_file, mmvet_files, mmvet_recorded, problem


def _sent(stub: Stub) -> list[tuple[str, float, int]]:
    """Each request's prompt, temperature and max_tokens, in the order received."""
    return [(q["messages"][0]["content"], q["temperature"], q["max_tokens"]) for q in stub.requests]


def _sequence(replies: dict[str, list[str]]) -> Callable[[str], str]:
    """A judge that answers the n-th request of a prompt with its n-th reply (the last one
    again after that), ``??`` for a prompt it does not know."""
    seen: dict[str, int] = {}

    def reply(prompt: str) -> str:
        if prompt not in replies:
            return "??"
        n = seen.get(prompt, 0)
        seen[prompt] = n + 1
        return replies[prompt][min(n, len(replies[prompt]) - 1)]

    return reply


# -- MathVision (VLMEvalKit) ----------------------------------------------------------------

#: a stand-in for what build_mathv_gpt4_prompt puts before the question
MV_PREAMBLE = "Read the examples.\nEX 1\n"
MV_HEAD = "index,question,answer,prediction,choices,category"
MV_ROWS = [
    # options: can_infer finds B in the prediction: prefetched, no call
    "0,Which?,B,The answer is (B).,\"['3', '4']\",algebra",
    # free form, equal to the answer: prefetched, no call
    "1,Pi?,3.14,3.14,[],geometry",
    # free form, not equal: the judge is asked
    "2,Half of five?,2.5,It is about two and a half.,[],algebra",
    # the judge is asked, and its res is wrong
    "3,Two plus two?,4,Surely three.,[],geometry",
]
#: hand-derived: preamble + question + "\n" + "Model respone: " + prediction
#: + "Extracted answer:"
MV_P2 = MV_PREAMBLE + "Half of five?\nModel respone: It is about two and a half.Extracted answer:"
MV_P3 = MV_PREAMBLE + "Two plus two?\nModel respone: Surely three.Extracted answer:"


def _mv_sheet(tmp_path: Path, res: list[str] | None = None) -> Path:
    head, rows = MV_HEAD, list(MV_ROWS)
    if res is not None:
        logs = ["Prefetch succeed", "Prefetch succeed", "Succeed", "Succeed"]
        head += ",res,log"
        rows = [f"{r},{a},{b}" for r, a, b in zip(rows, res, logs, strict=True)]
    name = "m_MathVision_gpt.csv" if res is not None else "m_MathVision.csv"
    path = tmp_path / name
    path.write_text(head + "\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_mathvision_vlmevalkit_prefetch_prompt_retry_and_score_equal_recorded(
    tmp_path: Path,
) -> None:
    pre = tmp_path / "preamble.txt"
    pre.write_text(MV_PREAMBLE, encoding="utf-8")
    # the first request gets HTTP 500 (with one client try: no answer, VLMEvalKit's FAIL_MSG):
    # MATH_V_auxeval asks again at temperature 0.5
    stub_ = Stub(reply=lambda p: {MV_P2: "2.5", MV_P3: "3"}.get(p, "??"), fail_first=1)
    with serve(stub_) as stub:
        client = judge_client(stub, tmp_path, retries=1, concurrency=1)
        r = evaluate_task(
            "mathvision", _mv_sheet(tmp_path), profile="vlmevalkit", judge=client, judge_prompt=pre
        )
        sent = _sent(stub)
    assert sent == [(MV_P2, 0, 128), (MV_P3, 0, 128), (MV_P2, 0.5, 128)]
    assert r.scores == [1.0, 1.0, 1.0, 0.0]
    assert "|judge:stub-judge/prompt:mathvision-vlmevalkit@e8e78f0+sha:" in r.signature.format()
    recs = {str(rec["id"]): rec for rec in r.per_item()}
    assert recs["0"]["judge"] == {"decision": "B", "by": "rules"}
    assert recs["2"]["judge"]["decision"] == "2.5"
    # the same res and logs recorded in VLMEvalKit's judge sheet
    plain = evaluate_task(
        "mathvision", _mv_sheet(tmp_path, ["B", "3.14", "2.5", "3"]), profile="vlmevalkit"
    )
    assert plain.scores == r.scores
    assert plain.metrics == r.metrics
    assert plain.aggregate.breakdowns == r.aggregate.breakdowns  # prefetch counts included


def test_mathvision_official_takes_no_judge(tmp_path: Path) -> None:
    with serve(Stub()) as stub, pytest.raises(InputError, match="asks no judge"):
        judged("mathvision", _mv_sheet(tmp_path), stub, tmp_path)


def test_mathvision_vlmevalkit_needs_the_prompt(tmp_path: Path) -> None:
    with serve(Stub()) as stub:
        with pytest.raises(JudgePromptError, match=r"judge_prompt= FILE.*mathv\.py"):
            judged("mathvision", _mv_sheet(tmp_path), stub, tmp_path, profile="vlmevalkit")
        assert stub.requests == []


def test_vlmevalkit_py_file_gives_task_description_then_each_example_and_newline(
    tmp_path: Path,
) -> None:
    src = tmp_path / "mathv.py"
    src.write_text(
        "def get_gpt4_ICE():\n"
        '    example_2 = """\nEX two\n"""\n'
        '    example_1 = """\nEX one\n"""\n'
        "    return [example_1, example_2]\n\n\n"
        "def build_mathv_gpt4_prompt(line):\n"
        '    task_description = """\nTD\n"""\n'
        "    return task_description\n",
        encoding="utf-8",
    )
    text = load_prompt_text(src, MATHVISION_VLMEVALKIT, task="mathvision", profile="vlmevalkit")
    # hand-derived: task_description, then example_1 + "\n", example_2 + "\n" (the list order)
    assert text.text == "\nTD\n" + "\nEX one\n" + "\n" + "\nEX two\n" + "\n"
    broken = tmp_path / "other.py"
    broken.write_text("def build_mathv_gpt4_prompt(line):\n    return 1\n", encoding="utf-8")
    with pytest.raises(JudgePromptError, match="get_gpt4_ICE"):
        load_prompt_text(broken, MATHVISION_VLMEVALKIT, task="mathvision", profile="vlmevalkit")


# -- MathVista (lmms-eval) ------------------------------------------------------------------

LMMS_DEMO_PY = 'import os\n\nDEMO_PROMPT = """\nLMMS DEMO.\n"""\n'
MVT_PROBLEMS: list[dict[str, Any]] = [
    # int() parses the stripped response: no call
    problem("1", "14", " 14\n", query="Q1"),
    # the judge is asked; its first reply is empty: get_chat_response asks again
    problem("2", "7", "I count 7 birds. ", query="Hint: integer.\nQuestion: How many?"),
    # the judge is asked, its extraction is wrong
    problem("3", "blue", "It looks red to me.", query="Q3", choices=["red", "blue"]),
]
#: hand-derived: f"{demo.strip()}\n\n{query}\n\n{response.strip()}\n\nExtracted answer: "
LMMS_P2 = (
    "LMMS DEMO.\n\nHint: integer.\nQuestion: How many?\n\nI count 7 birds.\n\nExtracted answer: "
)
LMMS_P3 = "LMMS DEMO.\n\nQ3\n\nIt looks red to me.\n\nExtracted answer: "


def _mvt_file(tmp_path: Path, extractions: dict[str, str] | None = None) -> Path:
    return mathvista_file(tmp_path, MVT_PROBLEMS, extractions)


def test_mathvista_lmms_eval_prompt_empty_reply_retry_and_score_equal_recorded(
    tmp_path: Path,
) -> None:
    demo = tmp_path / "mathvista_evals.py"
    demo.write_text(LMMS_DEMO_PY, encoding="utf-8")
    replies = {LMMS_P2: ["  ", "7\n"], LMMS_P3: ["red"]}
    with serve(Stub(reply=_sequence(replies))) as stub:
        r = evaluate_task(
            "mathvista",
            _mvt_file(tmp_path),
            profile="lmms-eval",
            judge=judge_client(stub, tmp_path, concurrency=1),
            judge_prompt=demo,
        )
        sent = _sent(stub)
    # the empty reply is asked again at temperature 0 (patience), max_tokens 256
    assert sent == [(LMMS_P2, 0, 256), (LMMS_P3, 0, 256), (LMMS_P2, 0, 256)]
    recs = {rec["id"]: rec for rec in r.per_item()}
    assert recs["1"]["judge"] == {"decision": "14", "by": "rules"}
    assert recs["2"]["judge"]["decision"] == "7"  # stripped, as get_chat_response
    assert "|judge:stub-judge/prompt:mathvista-lmms-eval@75571cf+sha:" in r.signature.format()
    plain = evaluate_task(
        "mathvista", _mvt_file(tmp_path, {"1": "14", "2": "7", "3": "red"}), profile="lmms-eval"
    )
    assert r.scores == plain.scores == [1.0, 1.0, 0.0]
    assert r.metrics == plain.metrics


def test_mathvista_lmms_eval_all_empty_replies_are_an_empty_extraction(tmp_path: Path) -> None:
    demo = tmp_path / "demo.txt"
    demo.write_text("\nLMMS DEMO.\n", encoding="utf-8")
    with serve(Stub(reply=lambda p: "")) as stub:
        r = judged(
            "mathvista", _mvt_file(tmp_path), stub, tmp_path, profile="lmms-eval", judge_prompt=demo
        )
        asked = [p for p, _, _ in _sent(stub)]
    assert asked.count(LMMS_P2) == 5 and asked.count(LMMS_P3) == 5  # patience=5
    recs = {rec["id"]: rec for rec in r.per_item()}
    assert recs["2"]["judge"]["decision"] == ""  # get_chat_response's "" after 5 tries
    assert r.scores == [1.0, 0.0, 0.0]


# -- MM-Vet ---------------------------------------------------------------------------------

FEW = "FEW\nSHOT | table"
#: hand-derived, lmms-eval: f"{prompt}\n{question} | {answer spaced} | {pred} |"
LM_P0 = "FEW\nSHOT | table\nWhat is x? | -1 <AND> -5 | x = -1 |"
LM_P1 = "FEW\nSHOT | table\nColor? | blue <OR> navy | It is blue. |"
LM_P2 = "FEW\nSHOT | table\nWhy? | because | no idea |"
#: hand-derived, official / VLMEvalKit: prompt + "\n" + " | ".join([q, a, pred, ""])
OF_P1 = "FEW\nSHOT | table\nColor? | blue <OR> navy | It is blue. | "
OF_P2 = "FEW\nSHOT | table\nWhy? | because | no idea | "
OF_P0 = "FEW\nSHOT | table\nWhat is x? | -1 <AND> -5 | x = -1 | "
RETRY = "\nPredict the correctness of the answer (digit): "


def _mmvet(tmp_path: Path, stub: Stub, profile: str, prompt: Path) -> Any:
    answers, meta = mmvet_files(tmp_path)
    client = judge_client(stub, tmp_path, concurrency=1)
    return evaluate_task(
        "mmvet", answers, annotations=meta, profile=profile, judge=client, judge_prompt=prompt
    )


def test_mmvet_lmms_eval_prompt_temperatures_and_score_equal_recorded(tmp_path: Path) -> None:
    utils = tmp_path / "utils.py"
    utils.write_text(f'MM_VET_PROMPT = """{FEW}"""\n', encoding="utf-8")
    replies = {
        LM_P0: ["0.5"],
        # not a number: +0.5; out of range: again at the same temperature; then accepted
        LM_P1: ["abc", "1.5", "0.7 it is"],
        LM_P2: ["x"],  # never a number: 0.0 once the temperature reaches 2
    }
    with serve(Stub(reply=_sequence(replies))) as stub:
        r = _mmvet(tmp_path, stub, "lmms-eval", utils)
        sent = _sent(stub)
    assert sent == [
        (LM_P0, 0, 128),
        (LM_P1, 0, 128),
        (LM_P1, 0.5, 128),
        (LM_P1, 0.5, 128),
        (LM_P2, 0, 128),
        (LM_P2, 0.5, 128),
        (LM_P2, 1.0, 128),
        (LM_P2, 1.5, 128),
    ]
    assert r.scores == [0.5, 0.7, 0.0]
    assert "|judge:stub-judge/prompt:mmvet-lmms-eval@75571cf+sha:" in r.signature.format()
    recorded = mmvet_recorded(
        tmp_path, {"v1_0": ["0.5"], "v1_1": ["abc", "1.5", "0.7 it is"], "v1_2": ["x"] * 4}
    )
    plain = evaluate_task("mmvet", recorded, profile="lmms-eval")
    assert plain.scores == r.scores
    assert plain.metrics == r.metrics


def test_mmvet_lmms_eval_endless_out_of_range_is_unjudged(tmp_path: Path) -> None:
    utils = tmp_path / "few.txt"
    utils.write_text(FEW, encoding="utf-8")
    with serve(Stub(reply=lambda p: "5")) as stub:
        with pytest.raises(UnjudgedError, match=r"3 of 3 items.*out-of-range grades"):
            _mmvet(tmp_path, stub, "lmms-eval", utils)
        assert len(stub.requests) == 15  # 5 asks per item, then vqametrics stops


def test_mmvet_official_retry_is_at_temperature_0_then_rising_with_max_tokens_3(
    tmp_path: Path,
) -> None:
    few = tmp_path / "few.txt"
    few.write_text(FEW, encoding="utf-8")
    replies = {OF_P0: ["0.5"], OF_P1: [" 0.7"], OF_P1 + RETRY: ["0.7"], OF_P2: ["x"]}
    replies[OF_P2 + RETRY] = ["x"]
    with serve(Stub(reply=_sequence(replies))) as stub:
        r = _mmvet(tmp_path, stub, "official", few)
        sent = _sent(stub)
    # mm-vet_evaluator.py sends each retry before temperature += 0.5
    assert sent == [
        (OF_P0, 0, 3),
        (OF_P1, 0, 3),
        (OF_P1 + RETRY, 0, 3),
        (OF_P2, 0, 3),
        (OF_P2 + RETRY, 0, 3),
        (OF_P2 + RETRY, 0.5, 3),
        (OF_P2 + RETRY, 1.0, 3),
        (OF_P2 + RETRY, 1.5, 3),
    ]
    assert r.scores == [0.5, 0.7, 0.0]


def test_mmvet_vlmevalkit_tries_at_rising_temperature_with_max_tokens_2048(
    tmp_path: Path,
) -> None:
    few = tmp_path / "few.txt"
    few.write_text(FEW, encoding="utf-8")
    replies = {OF_P0: ["0.5"], OF_P1: [" 0.7"], OF_P2: ["0.8 because"]}
    with serve(Stub(reply=_sequence(replies))) as stub:
        r = _mmvet(tmp_path, stub, "vlmevalkit", few)
        sent = _sent(stub)
    assert sent == [
        (OF_P0, 0, 2048),
        (OF_P1, 0, 2048),
        *[(OF_P2, t, 2048) for t in (0, 0.5, 1.0, 1.5, 2.0)],
    ]
    assert r.scores == [0.5, 0.7, 0.0]


# -- the client and the help text -----------------------------------------------------------


def test_client_per_call_settings_are_sent_and_cached_apart(tmp_path: Path) -> None:
    with serve(Stub(reply=lambda p: "ok")) as stub:
        c = judge_client(stub, tmp_path)
        assert c.complete("p").response == "ok"
        assert c.complete("p", temperature=0.5, max_tokens=3).response == "ok"
        assert c.complete("p").cached and c.complete("p", temperature=0.5, max_tokens=3).cached
        assert _sent(stub) == [("p", 0, 256), ("p", 0.5, 3)]
        with pytest.raises(InputError, match="temperature must be >= 0"):
            c.complete("p", temperature=-1.0)


def test_score_help_names_every_task_that_takes_a_judge() -> None:
    takes = {
        t.name
        for t in list_tasks()
        if t.judge is not None or any(p.parse is not None for p in t.profiles)
    }
    named = {t.name for t in list_tasks() if re.search(rf"\b{re.escape(t.name)}\b", JUDGE_HELP)}
    assert takes == named
    for name in ("mathvista", "mathvision", "hallusionbench", "mmvet"):
        task = next(t for t in list_tasks() if t.name == name)
        listed = JUDGE_HELP.split(f"{name} (", 1)[1].split(":", 1)[0]
        profiles = {p.name for p in task.profiles}
        assert {w.strip(" ,") for w in listed.replace(" only", "").split()} <= profiles
