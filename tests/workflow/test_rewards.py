"""verl-shaped rewards: compute_score on every task, list and JSON-string ground truths."""

from __future__ import annotations

import json
import re

import pytest

from vqametrics import InputError, UnknownNameError, list_tasks
from vqametrics.integrations.rewards import DATA_SOURCES, _extract, compute_score
from vqametrics.tasks import Task

TEN_BLUE = ["blue"] * 10


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("<think>maybe red</think>blue", "blue"),
        ("<think>a\nb</think>\nThe answer is blue.", "blue"),
        ("reasoning... Answer: **two dogs**\nmore", "two dogs"),
        ("<answer> 7 </answer>", "7"),
        ("I am thinking</think> cat", "cat"),
        ("  plain  ", "plain"),
    ],
)
def test_fallback_extraction(text: str, answer: str) -> None:
    assert _extract(text) == answer


def _left_to_right_mean(values: list[float]) -> float:
    total = 0.0
    for v in values:  # the scripts' builtin sum, left to right
        total += v
    return total / len(values)


PANCAKES = ["pancake"] * 8 + ["pancakes"] * 2
# leave-one-out over the 10 answers: the 8 "pancake" rows leave 2 matches (2/3 each), the
# 2 "pancakes" rows leave 1 (1/3 each): (8 * 2/3 + 2 * 1/3) / 10 = 0.6, summed in float
SIXTY = _left_to_right_mean([2 / 3] * 8 + [1 / 3] * 2)

# per task: (model output, ground truth, reward), each derived by hand from the spec
# (official-vqa-eval.md §4; vqa-family.md §§2-9) under the task's default (official) profile
HAND = {
    "vqav2": ("The answer is pancakes.", PANCAKES, SIXTY),  # §4, the period is punctuation
    "okvqa": ("Answer: pancakes", PANCAKES, SIXTY),  # the VQA script on OK-VQA
    "textvqa": ("Answer: pancakes", PANCAKES, SIXTY),  # §2.2: the same position leave-one-out
    # §3.4 quirk: the ground truth is compared raw, so a capitalized answer is never matched
    "vizwiz": ("Answer: Blue", ["Blue"] * 10, 0.0),
    "gqa": ("Answer: Blue", ["blue"], 0.0),  # §4.3: raw string equality
    "ocrvqa": ("Answer: Fiction", ["Fiction"], 1.0),  # §9.2
    # §5.1/§5.2: lev("dr lobo", "dr. lobo") = 1 over the raw length 8: 1 - 1/8
    "docvqa": ("Answer: Dr Lobo", ["Dr. Lobo"], 0.875),
    "infographicvqa": ("Answer: Dr Lobo", ["Dr. Lobo"], 0.875),
    "stvqa": ("Answer: Dr Lobo", ["Dr. Lobo"], 0.875),
    "chartqa": ("Answer: 104", ["100"], 1.0),  # §6.1: |104 - 100| / 100 = 4 % <= 5 %
    "pope": ("Answer: No, there is not.", ["no"], 1.0),  # §7.1: "not" in the words -> no
    "mme": ("Answer: Yes", ["Yes"], 1.0),  # §8.1: "yes" after lower()
    "ocrbench": ("Answer: The genre is Fiction", ["fiction"], 1.0),  # §9.1: a substring test
}


@pytest.mark.parametrize("source", ["vqav2", "okvqa", "HuggingFaceM4/VQAv2", "lmms-lab/VQAv2"])
@pytest.mark.parametrize("as_json", [False, True])
def test_vqa_sources(source: str, as_json: bool) -> None:
    truth = json.dumps(PANCAKES) if as_json else PANCAKES
    reward = compute_score(source, "The answer is pancakes.", truth)
    assert reward == SIXTY == pytest.approx(0.6, abs=1e-12)
    assert compute_score(source, "pancake", truth) == 1.0  # 8 rows leave 7, 2 leave 8: min(1, ·)


@pytest.mark.parametrize("task", sorted(HAND))
def test_hand_derived_reward_per_task(task: str) -> None:
    output, truth, expected = HAND[task]
    assert task in {t.name for t in list_tasks()}, f"{task} is not registered"
    assert compute_score(task, output, truth) == expected
    assert compute_score(task, output, json.dumps(truth)) == expected


def test_every_registered_task_scores_list_and_json_ground_truth() -> None:
    tasks = list_tasks()
    assert tasks, "the registry is empty"
    for task in tasks:
        prof = task.profile(None)
        if set(prof.context) - {"question_id", "image", "category", "dataset_name"}:
            continue  # needs item fields (MMBench's options)
        # a task without a hand-derived case above still takes both forms of ground truth alike
        gt = HAND[task.name][1] if task.name in HAND else ["Blue"] * 10
        output = HAND[task.name][0] if task.name in HAND else "Answer: Blue"
        reward = compute_score(task.name, output, gt)
        assert isinstance(reward, float) and 0.0 <= reward <= 1.0
        assert compute_score(task.name, output, json.dumps(gt)) == reward


def test_every_alias_resolves_or_names_an_unbuilt_task() -> None:
    registered = {t.name for t in list_tasks()}
    for source, task in DATA_SOURCES.items():
        if task in HAND:
            output, truth, expected = HAND[task]
            assert compute_score(source, output, truth) == expected, source
        elif task in registered:  # a task without a hand case: the alias is the task
            assert compute_score(source, "x", ["x"] * 10) == compute_score(task, "x", ["x"] * 10)
        else:
            with pytest.raises(UnknownNameError, match=r"available: .*okvqa"):
                compute_score(source, "x", ["x"])


def test_ocrvqa_profile_and_raw_string() -> None:
    assert compute_score("ocrvqa", "Answer: Fiction", "Fiction") == 1.0
    # extract=False scores the whole output: strip + lower exact match fails
    assert compute_score("ocrvqa", "Answer: Fiction", ["Fiction"], {"extract": False}) == 0.0
    # the textbook profile lowercases and has no leave-one-out: min(1, 10 / 3) = 1, and 0 matches
    assert compute_score("vqav2", "Blue", TEN_BLUE, {"profile": "simple"}) == 1.0
    assert compute_score("vqav2", "Red", TEN_BLUE, {"profile": "simple"}) == 0.0


def test_bad_inputs_are_clear() -> None:
    with pytest.raises(UnknownNameError, match="unknown data_source 'nope'; available:"):
        compute_score("nope", "x", ["x"])
    with pytest.raises(InputError, match="does not parse"):
        compute_score("vqav2", "x", '["x"')
    with pytest.raises(InputError, match="non-empty list"):
        compute_score("vqav2", "x", [])
    with pytest.raises(InputError, match="non-empty list"):
        compute_score("vqav2", "x", [1, 2])


def test_loads_by_path_as_verl_does() -> None:
    import importlib.util

    import vqametrics.integrations.rewards

    spec = importlib.util.spec_from_file_location(
        "custom_module", vqametrics.integrations.rewards.__file__
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.compute_score("vqav2", "Answer: blue", TEN_BLUE) == 1.0


# what each declared kind is refused for (the reason the message must give), written here from
# the rule rewards documents: a judged task always, a multiple-choice one without options, a
# mixed one without the item's fields
REFUSED_FOR = {
    "judged": "graded by an LLM judge (kind 'judged')",
    "multiple-choice": "a multiple-choice task (kind 'multiple-choice')",
    "mixed": "multiple-choice and open questions (kind 'mixed')",
}
OPTIONS = {"A": "cat", "B": "dog", "C": "bird", "D": "fish"}


def _names(task: Task) -> list[str]:
    return [task.name, *task.aliases, *task.datasets]


@pytest.mark.parametrize("task", list_tasks(), ids=lambda t: t.name)
def test_every_task_and_alias_is_accepted_or_refused_by_its_kind(task: Task) -> None:
    # a task added to the registry is covered here by what it declares: an open or yes/no task
    # needs a hand-derived case in HAND, and every other kind is refused for its own reason
    for source in _names(task):
        if task.kind in ("open", "yes-no"):
            assert task.name in HAND, f"{task.name}: add a hand-derived reward case to HAND"
            output, truth, expected = HAND[task.name]
            assert compute_score(source, output, truth) == expected, source
            continue
        with pytest.raises(InputError, match=re.escape(REFUSED_FOR[task.kind])):
            compute_score(source, "The answer is B.", ["B"])
        if task.kind == "multiple-choice":
            # a bare "The answer is B." names option B under every letter rule (scored raw)
            info = {"options": OPTIONS, "extract": False}
            assert compute_score(source, "The answer is B.", ["B"], info) == 1.0, source
            assert compute_score(source, "The answer is B.", ["C"], info) == 0.0, source
        elif task.kind == "judged":  # options do not make a judge's grade a rule
            with pytest.raises(InputError, match=re.escape(REFUSED_FOR["judged"])):
                compute_score(source, "The answer is B.", ["B"], {"options": OPTIONS})


@pytest.mark.parametrize("task", list_tasks(), ids=lambda t: t.name)
def test_votes_refuse_one_answer_and_data_sources_follow_the_kind(task: Task) -> None:
    if task.references == "votes":
        with pytest.raises(InputError, match="ground_truth has one answer"):
            compute_score(task.name, "blue", ["blue"])
    in_sources = {name.lower() for name in _names(task)} & set(DATA_SOURCES)
    if task.kind in ("open", "yes-no"):  # every name of a task scored from the truth alone
        assert in_sources == {name.lower() for name in _names(task)}
        assert {DATA_SOURCES[n] for n in in_sources} == {task.name}
    else:
        assert not in_sources, f"{task.name} ({task.kind}) is not scored from the truth alone"


def test_the_soft_accuracy_tasks_declare_votes() -> None:
    # vqa-family.md §§2-3: VQA v2, OK-VQA, TextVQA and VizWiz average min(1, matches / 3)
    # over the ten leave-one-out subsets of the human answers
    votes = {t.name for t in list_tasks() if t.references == "votes"}
    assert {"vqav2", "okvqa", "textvqa", "vizwiz"} <= votes


def test_underscores_read_as_dashes_and_unknown_names_are_clear() -> None:
    assert compute_score("vqa_v2", "pancake", PANCAKES) == 1.0  # the alias vqa-v2
    assert compute_score("HuggingFaceM4/ok_vqa", "pancake", PANCAKES) == 1.0
    with pytest.raises(
        UnknownNameError, match=r"unknown data_source 'mm_nope'; available: .*mmstar"
    ):
        compute_score("mm_nope", "x", ["x"])
