"""``vqametrics.analysis.profile_diff``: the rule paths and the attribution of differences.

Expected scores are the spec's (peer-profiles.md §7.2 and §1.7) or derived by hand from it.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from vqametrics.analysis.profile_diff import (
    RECIPES,
    RULES,
    compare_profiles,
    derivation,
    format_comparison,
    same_rules,
)
from vqametrics.profiles import get_profile, list_profiles
from vqametrics.readers.vqa import as_dataset


@pytest.mark.parametrize("name", [p.name for p in list_profiles()])
def test_every_registered_profile_is_rebuilt_by_its_recipe(name: str) -> None:
    """The named rules rebuild each profile exactly: no difference is left to ``other``."""
    assert name in RECIPES
    path = derivation(name)
    assert [r.key for r, _ in path] == sorted(RECIPES[name], key=[r.key for r in RULES].index)
    assert all(r.key != "other" for r, _ in path)
    if path:
        assert path[-1][1] is get_profile(name)


def test_unknown_profile_is_attributed_to_other() -> None:
    from dataclasses import replace

    custom = replace(get_profile("official"), name="custom", mean="exact")
    path = derivation(custom)
    assert [r.key for r, _ in path] == ["other"]
    assert path[-1][1] is custom
    assert same_rules(custom, replace(get_profile("lmms-eval-vqav2"), name="x")) is False


def _ids(answers: list[str]) -> list[dict[str, Any]]:
    return [{"answer": a, "answer_id": i + 1} for i, a in enumerate(answers)]


# (prediction, answers): each row isolates one rule; the expected scores are hand-derived.
ROWS: list[tuple[str, list[Any]]] = [
    ("Yes", _ids(["yes"] * 10)),  # 0: official 0 (unanimous, exact); all others 1
    ("2.", _ids(["2"] * 9 + ["3"])),  # 1: vlmevalkit 0, all others 1
    ("cat", _ids(["cat"] * 3 + ["dog"] * 7)),  # 2: min(1, m/3) = 1 for simple/evalscope
    ("dog", _ids(["dog"] * 4 + ["cat"] * 6)),  # 3: same everywhere (m = 4 → 1)
]


def _comparison() -> Any:
    dataset = as_dataset(
        [{"question_id": i, "answers": answers} for i, (_, answers) in enumerate(ROWS)]
    )
    return compare_profiles(dataset, [p for p, _ in ROWS])


def test_attribution_on_hand_derived_questions() -> None:
    c = _comparison()
    assert c.scores["official"] == [0.0, 1.0, 0.9, 1.0]
    assert c.scores["vlmevalkit"] == [1.0, 0.0, 0.9, 1.0]
    assert c.scores["evalscope"] == [1.0, 1.0, 1.0, 1.0]
    assert c.differing == [0, 1, 2]
    effects = {e.rule.key: e for e in c.effects}
    # "Yes" vs ten "yes": the unanimity rule for the profiles that drop it, the 2017 answer
    # handling (prediction normalized, unanimous answers raw) for the 2017 flows
    assert effects["unanimity"].questions == {
        "simple": [0],
        "lmms-eval-vqav2": [0],
        "lmms-eval-textvqa": [0],
        "vlmevalkit": [0],
        "evalscope": [0],
    }
    assert effects["gt-punctuation-only"].questions == {"official-2017": [0], "evalai-2017": [0]}
    # "2." vs nine "2" and a "3": not unanimous, so dropping the unanimity rule keeps 1.0;
    # the period rule then gives 0
    assert effects["period-rule"].questions == {"vlmevalkit": [1]}
    assert effects["textbook-formula"].questions == {"simple": [2], "evalscope": [2]}
    assert set(effects) == {"unanimity", "gt-punctuation-only", "period-rule", "textbook-formula"}


def test_points_add_up_to_the_accuracy_gap() -> None:
    c = _comparison()
    n = len(c.question_ids)
    for name in c.profiles:
        gap = 100 * (sum(c.scores[name]) - sum(c.scores["official"])) / n
        total = math.fsum(e.points.get(name, 0.0) for e in c.effects)
        assert math.isclose(total, gap, abs_tol=1e-9)


def test_text_and_json_reports() -> None:
    c = _comparison()
    text = format_comparison(c, examples=1)
    assert "[unanimity] no unanimity rule: 1 question(s)" in text
    payload = c.as_dict(examples=1)
    json.dumps(payload)
    assert payload["n_differing"] == 3
    assert payload["accuracy"]["official"] == 72.5  # (0 + 1 + 0.9 + 1) / 4
    assert [r["rule"] for r in payload["rules"]] == [
        "unanimity",
        "gt-punctuation-only",
        "period-rule",
        "textbook-formula",
    ]


def test_misaligned_predictions_are_rejected() -> None:
    dataset = as_dataset([{"question_id": 1, "answers": ["yes"]}])
    with pytest.raises(ValueError, match="aligned"):
        compare_profiles(dataset, [])


def test_rule_examples_move_their_rule() -> None:
    """Each rule's worked example (used by the docs) is moved by that very rule."""
    for rule in RULES:
        if rule.example is None:
            continue
        prediction, answers = rule.example
        dataset = as_dataset([{"question_id": 1, "answers": list(answers)}])
        c = compare_profiles(dataset, [prediction])
        assert rule.key in {e.rule.key for e in c.effects}, rule.key


@pytest.mark.shared
def test_okvqa_official_and_work(shared_data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """OK-VQA val's official number, and the work of the comparison (its time is measured by
    ``benchmarks/bench_guards.py``): one whole-split scoring per profile, and the attribution
    re-scores only the questions that differ, once per step of a profile's rule path."""
    import importlib

    from vqametrics import evaluate_vqa

    data = shared_data / "okvqa_val"
    result = evaluate_vqa(
        data / "okvqa_val_eval.json",
        data / "coco14_promptC_gpt3_VinVLTag_n16_repeat5_47.934998_CLIPImagequestion.json",
    )
    evaluate = importlib.import_module("vqametrics.pipeline.vqa")
    diff = importlib.import_module("vqametrics.pipeline.profile_diff")
    whole: list[object] = []
    subsets: list[int] = []
    score_dataset, score_subset = evaluate.score_dataset, diff._score_subset

    def count_whole(dataset: Any, predictions: Any, profile: Any = "official") -> Any:
        whole.append(profile)
        return score_dataset(dataset, predictions, profile)

    def count_subset(dataset: Any, predictions: Any, indices: Any, profile: Any) -> Any:
        subsets.append(len(indices))
        return score_subset(dataset, predictions, indices, profile)

    monkeypatch.setattr(evaluate, "score_dataset", count_whole)
    monkeypatch.setattr(diff, "_score_subset", count_subset)
    c = compare_profiles(result.dataset, result.predictions)
    assert c.accuracy("official") == 48.03  # published 48.0 (PICa, VinVL tags)
    assert len(whole) == len(c.profiles)
    n = len(c.question_ids)
    assert 0 < len(c.differing) < n / 2
    assert all(k <= len(c.differing) for k in subsets)
    assert len(subsets) <= sum(len(derivation(p)) for p in c.profiles)
    assert c.notes  # flat OK-VQA answers are plain strings
