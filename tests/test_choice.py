"""The choice module: every ``choice_extract`` case for every lineage registered here, the
sheet quirks of VLMEvalKit, randomness made explicit, purity and the kernel layer rule."""

from __future__ import annotations

import ast
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vqametrics.core.exceptions import InputError, UnknownNameError
from vqametrics.kernels.choice import (
    RANDOM,
    Lineage,
    extract_letter,
    get_lineage,
    list_lineages,
)
from vqametrics.kernels.choice.lmms import extract_mcq_answer

ROOT = Path(__file__).resolve().parents[1]
#: a verbatim copy of the shared spec's mcq-reasoning-cases.json (each implementation's own code)
CASES: dict[str, Any] = json.loads(
    (ROOT / "tests" / "data" / "mcq-reasoning-cases.json").read_text(encoding="utf-8")
)

#: implementations that belong to the MMMU / ScienceQA lineages (choice/mmmu.py,
#: choice/scienceqa.py, written on another branch); skipped here while they are absent
#: keys of the cases that are not a lineage's letter: LLaVA's intermediate ``parsed_ans`` string,
#: tested with the functions that produce it in tests/tasks/test_scienceqa.py
NOT_LINEAGES = ("llava_eval_science_qa_parsed_ans", "llava_eval_science_qa_5200b75_parsed_ans")
OURS = (
    "vlmevalkit_can_infer",
    "vlmevalkit_can_infer_pre_a67ace5",
    "lmms_eval_extract_mcq_answer",
    "lmms_eval_mmstar",
    "lmms_eval_realworldqa",
    "lmms_eval_ai2d",
    "lmms_eval_seedbench",
    "mmstar_official",
)


def _params() -> list[Any]:
    out = []
    for case in CASES["choice_extract"]:
        for key, expected in case["expected"].items():
            if key not in NOT_LINEAGES:
                out.append(pytest.param(case, key, expected, id=f"{case['id']}-{key}"))
    return out


@pytest.mark.parametrize(("case", "key", "expected"), _params())
def test_choice_extract_case(case: dict[str, Any], key: str, expected: Any) -> None:
    names = {lin.name for lin in list_lineages()}
    if key not in names:
        pytest.fail(f"the cases name implementation {key!r}, which no lineage reproduces")
    inp = case["input"]
    choices = dict(inp["options"])
    got = get_lineage(key)(inp["response"], choices)
    assert got == expected
    assert choices == inp["options"]  # never mutated (VLMEvalKit's can_infer_text does)


def test_every_case_key_is_a_registered_lineage() -> None:
    keys = {k for case in CASES["choice_extract"] for k in case["expected"]}
    assert keys - set(NOT_LINEAGES) <= {lin.name for lin in list_lineages()}
    assert set(OURS) <= {lin.name for lin in list_lineages()}


def test_the_cases_cover_each_of_our_lineages_often() -> None:
    for key in OURS:
        n = sum(1 for case in CASES["choice_extract"] if key in case["expected"])
        assert n == len(CASES["choice_extract"]) == 88


@pytest.mark.parametrize("case", CASES["vlmevalkit_sheet_quirks"], ids=lambda c: c["id"])
def test_nan_option_cells_are_absent(case: dict[str, Any]) -> None:
    inp, exp = case["input"], case["expected"]
    # VLMEvalKit build_choices: a NaN cell is no option at all
    choices = {k: v for k, v in inp["option_cells"].items() if v is not None}
    assert list(choices) == exp["vlmevalkit_choices_built"]
    letter = get_lineage("vlmevalkit_can_infer")(inp["prediction"], choices)
    assert letter == exp["vlmevalkit_can_infer"]
    assert int(letter == inp["answer"]) == exp["vlmevalkit_hit_exact_matching"]


@pytest.mark.parametrize(
    ("name", "response", "expected"),
    [
        # spec §1.1 / §1.5 / §14.3, hand-read from the rules
        ("vlmevalkit_can_infer", "The answer is Dog", "D"),
        ("vlmevalkit_can_infer_pre_a67ace5", "The answer is Dog", "B"),
        ("lmms_eval_extract_mcq_answer", "Definitely a Bird", "B"),
        ("mmstar_official", "Answer: D", "A"),
        ("lmms_eval_seedbench", "Answer: D", "A"),
        ("lmms_eval_ai2d", "Answer: D", None),
        ("lmms_eval_extract_mcq_answer", "<think>A or B</think>D", "D"),
        ("lmms_eval_extract_mcq_answer", "I think the answer is a cat.", None),
        ("vlmevalkit_can_infer", "B is the answer I would pick here today", None),
        ("vlmevalkit_can_infer", "Ｂ", None),
        ("vlmevalkit_can_infer_2024", "Sorry, I can't help with images of people yet.", "Z"),
    ],
)
def test_spec_examples(name: str, response: str, expected: str | None) -> None:
    choices = {"A": "cat", "B": "dog", "C": "bird", "D": "fish"}
    assert extract_letter(name, response, choices) == expected


def test_mmstar_official_fixed_offsets() -> None:
    # spec §4: 'the answer is ' is 14 characters, the letter is the 15th
    ch = {"A": "x", "B": "y", "C": "z", "D": "w"}
    assert extract_letter("mmstar_official", "The answer is C", ch) == "C"
    assert extract_letter("mmstar_official", "Based on the image, the answer is C.", ch) == "B"
    assert extract_letter("mmstar_official", "The answer is definitely B", ch) == "D"
    assert extract_letter("mmstar_official", "Option c", ch) == "C"
    assert extract_letter("mmstar_official", "(", ch) is None
    assert extract_letter("mmstar_official", "", ch) is None


def test_random_is_explicit() -> None:
    def draw(response: str, choices: Any, rng: random.Random | None = None) -> str | None:
        if response:
            return "A"
        return RANDOM if rng is None else rng.choice(sorted(choices))

    lin = Lineage("test_draws", "a test", "draws when the response is empty", draw, draws=True)
    ch = {"A": "x", "B": "y"}
    assert lin("", ch) == "random"
    assert lin("", ch, rng=random.Random(0)) == random.Random(0).choice(["A", "B"])
    assert lin("A", ch) == "A"


def test_bad_input_is_one_clear_error() -> None:
    with pytest.raises(InputError, match="must be text"):
        extract_letter("lmms_eval_extract_mcq_answer", 3, {"A": "x"})  # type: ignore[arg-type]
    with pytest.raises(InputError, match="single letters"):
        extract_letter("mmstar_official", "A", {"a": "x"})
    with pytest.raises(InputError, match="must be a string"):
        extract_letter("mmstar_official", "A", {"A": None})  # type: ignore[dict-item]
    with pytest.raises(UnknownNameError, match="vlmevalkit_can_infer"):
        get_lineage("no_such_rule")


def test_mmbench_extract_is_the_same_code() -> None:
    from vqametrics.kernels.choice import heuristics
    from vqametrics.mmbench import extract

    assert extract.extract_choice is heuristics.extract_choice
    assert extract.get_extractor("vlmevalkit-2024") is heuristics.get_extractor("vlmevalkit-2024")


letters = st.sampled_from("ABCDEFGH")


@given(st.text(max_size=40), st.lists(letters, min_size=1, max_size=6, unique=True))
def test_extract_mcq_answer_returns_an_offered_letter(text: str, offered: list[str]) -> None:
    got = extract_mcq_answer(text, offered)
    assert got == "" or got in offered
    if got:
        assert got in text


@given(st.text(max_size=40))
def test_hit_tests_name_at_most_the_letters_offered(text: str) -> None:
    ch = {"A": "cat", "B": "dog", "C": "bird"}
    for lin in list_lineages():
        got = lin(text, dict(ch))
        assert (
            got is None
            or got in ch
            or got == "Z"
            or lin.name == "lmms_eval_mmbench"
            or (lin.draws and got == RANDOM)
        )


def test_kernel_layer_imports_nothing_from_tasks_cli_or_load() -> None:
    pkg = ROOT / "src" / "vqametrics" / "kernels" / "choice"
    for f in pkg.glob("*.py"):
        tree = ast.parse(f.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                mod = ("." * node.level) + (node.module or "")
                assert not any(
                    mod.startswith(p)
                    for p in ("..tasks", "..cli", "..load", "..mmbench", "vqametrics.tasks")
                ), f"{f.name} imports {mod}"
