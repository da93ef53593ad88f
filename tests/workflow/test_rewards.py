"""verl-shaped rewards: compute_score on every task, list and JSON-string ground truths."""

from __future__ import annotations

import json

import pytest

from vqametrics import InputError, UnknownNameError, list_tasks, score_answer, vqa_accuracy
from vqametrics.rewards import DATA_SOURCES, _extract, compute_score

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


@pytest.mark.parametrize("source", ["vqav2", "okvqa", "HuggingFaceM4/VQAv2", "lmms-lab/VQAv2"])
@pytest.mark.parametrize("as_json", [False, True])
def test_vqa_sources(source: str, as_json: bool) -> None:
    gt = ["pancake"] * 8 + ["pancakes"] * 2
    truth = json.dumps(gt) if as_json else gt
    # 2 of 10 answers match: min(1, 0.3 m) = 0.6 (spec §4), summed in float as the script does
    reward = compute_score(source, "The answer is pancakes.", truth)
    assert reward == vqa_accuracy("pancakes", gt) == pytest.approx(0.6, abs=1e-12)
    assert compute_score(source, "pancake", truth) == 1.0


def test_every_registered_task_scores_list_and_json_ground_truth() -> None:
    tasks = list_tasks()
    assert tasks, "the registry is empty"
    for task in tasks:
        prof = task.profile(None)
        if set(prof.context) - {"question_id"}:
            continue  # needs item fields (OCRBench's category)
        gt = ["Blue"] * 10  # ten human answers: every VQA-style scorer accepts them
        expected = score_answer(task, "Blue", gt)
        assert compute_score(task.name, "Answer: Blue", gt) == expected
        assert compute_score(task.name, "Answer: Blue", json.dumps(gt)) == expected
        assert isinstance(expected, float)


def test_every_alias_resolves_or_names_an_unbuilt_task() -> None:
    registered = {t.name for t in list_tasks()} | {"vqav2", "okvqa"}
    for source, task in DATA_SOURCES.items():
        if task in registered:
            expected = (
                vqa_accuracy("x", ["x"] * 10)
                if task in ("vqav2", "okvqa")
                else score_answer(task, "x", ["x"] * 10)
            )
            assert compute_score(source, "x", ["x"] * 10) == expected
        else:
            with pytest.raises(UnknownNameError, match=r"available: .*okvqa"):
                compute_score(source, "x", ["x"])


def test_ocrvqa_profile_and_raw_string() -> None:
    assert compute_score("ocrvqa", "Answer: Fiction", "Fiction") == 1.0
    # extract=False scores the whole output: strip + lower exact match fails
    assert compute_score("ocrvqa", "Answer: Fiction", ["Fiction"], {"extract": False}) == 0.0
    assert compute_score("vqav2", "Blue", TEN_BLUE, {"profile": "simple"}) == vqa_accuracy(
        "Blue", TEN_BLUE, "simple"
    )


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

    import vqametrics.rewards

    spec = importlib.util.spec_from_file_location("custom_module", vqametrics.rewards.__file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.compute_score("vqav2", "Answer: blue", TEN_BLUE) == 1.0
