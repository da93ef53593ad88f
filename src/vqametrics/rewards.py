"""Verifiable rewards for RL fine-tuning, in verl's shape.

verl loads a reward function by path (``custom_reward_function.path=…/rewards.py``,
``name=compute_score``) and calls ``compute_score(data_source, solution_str, ground_truth,
extra_info)`` once per rollout. Here:

* ``data_source`` names the benchmark: ``vqav2``, ``okvqa`` (VQA accuracy, official profile) or
  any task registered in :mod:`vqametrics.tasks` (``textvqa``, ``vizwiz``, ``gqa``, ``docvqa``,
  ``chartqa``, ``ocrvqa``, …), or a common dataset name such as ``lmms-lab/textvqa`` or
  ``HuggingFaceM4/VQAv2`` (see :data:`DATA_SOURCES`);
* ``ground_truth`` the human answers: a list, one string, or a JSON string of a list;
* ``solution_str`` the model's whole output. By default the answer is extracted first with
  vqametrics's ``answer`` rules (those of ``--extract answer``: reasoning blocks dropped, the
  text after an answer marker, markdown and a trailing period stripped, a leading Yes/No
  sentence reduced to ``yes``/``no``); pass ``extra_info={"extract": False}`` to score the raw
  string;
* ``extra_info`` may also carry ``profile`` (a task profile name) and the item fields a task's
  scorer needs (OCRBench: ``category``).

The default is each benchmark's official scorer, quirks included. For VQA v2 / OK-VQA that
means the official unanimity rule: when the ten human answers are identical, nothing is
normalized, so ``Yes`` earns 0 against ten ``yes``. A policy trained on that reward learns the
annotators' spelling; to reward the answer rather than its case and punctuation, pass
``extra_info={"profile": "lmms-eval-vqav2"}`` (every answer normalized on both sides).

The reward is the task's per-item score as a float (VQA accuracy in [0, 1], ANLS, 0/1 …).

Imports are absolute on purpose: verl loads this file by path (not as ``vqametrics.rewards``),
where relative imports would fail.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from vqametrics._exceptions import InputError, UnknownNameError

__all__ = ["DATA_SOURCES", "compute_score"]

#: Dataset names as they appear in verl parquet files / the Hugging Face Hub → our task name.
DATA_SOURCES: dict[str, str] = {
    "vqav2": "vqav2",
    "vqa2": "vqav2",
    "vqa-v2": "vqav2",
    "vqa_v2": "vqav2",
    "huggingfacem4/vqav2": "vqav2",
    "lmms-lab/vqav2": "vqav2",
    "okvqa": "okvqa",
    "ok-vqa": "okvqa",
    "ok_vqa": "okvqa",
    "huggingfacem4/ok_vqa": "okvqa",
    "lmms-lab/ok-vqa": "okvqa",
    "textvqa": "textvqa",
    "lmms-lab/textvqa": "textvqa",
    "facebook/textvqa": "textvqa",
    "vizwiz": "vizwiz",
    "vizwiz_vqa": "vizwiz",
    "lmms-lab/vizwiz-vqa": "vizwiz",
    "gqa": "gqa",
    "lmms-lab/gqa": "gqa",
    "docvqa": "docvqa",
    "lmms-lab/docvqa": "docvqa",
    "chartqa": "chartqa",
    "lmms-lab/chartqa": "chartqa",
    "ahmedmasryku/chartqa": "chartqa",
    "ocrvqa": "ocrvqa",
    "howard-hou/ocr-vqa": "ocrvqa",
    "pope": "pope",
    "lmms-lab/pope": "pope",
    "mme": "mme",
    "lmms-lab/mme": "mme",
    "ocrbench": "ocrbench",
    "echo840/ocrbench": "ocrbench",
}

#: Scored with :func:`vqametrics.vqa_accuracy` (official profile), not through the task registry.
_VQA = frozenset({"vqav2", "okvqa"})
#: Soft accuracy over the human answers, leave-one-out: with one answer, every prediction
#: scores 0 (no other answer is left to match), so one answer is refused, not silently 0.
_SOFT = frozenset({"vqav2", "okvqa", "textvqa", "vizwiz"})


def _extract(solution_str: str) -> str:
    """The answer in a model's full output (the default of :func:`compute_score`): the
    ``answer`` extractor of ``--extract answer`` (:func:`vqametrics.extract.extract_answer`)."""
    from vqametrics.extract import extract_answer

    return extract_answer(solution_str).text


def _resolve(data_source: str) -> str:
    key = data_source.strip().lower()
    return DATA_SOURCES.get(key, key)


def _answers(ground_truth: Any, data_source: str) -> list[str]:
    """The human answers: a list/tuple of strings, a JSON string of one, or a plain string."""
    gt = ground_truth
    if isinstance(gt, bytes):
        gt = gt.decode()
    if isinstance(gt, str):
        stripped = gt.lstrip()
        if stripped[:1] in ("[", '"'):
            try:
                gt = orjson.loads(stripped)
            except orjson.JSONDecodeError:
                raise InputError(
                    f"{data_source}: ground_truth looks like JSON but does not parse: {gt[:80]!r}"
                ) from None
        if isinstance(gt, str):
            return [gt]
    if hasattr(gt, "tolist"):  # a numpy array from a parquet column
        gt = gt.tolist()
    if (
        isinstance(gt, Sequence)
        and not isinstance(gt, str)
        and gt
        and all(isinstance(a, str) for a in gt)
    ):
        return list(gt)
    raise InputError(
        f"{data_source}: ground_truth must be a non-empty list of answer strings "
        f"(or a JSON string of one), got {type(ground_truth).__name__}"
    )


def _available() -> list[str]:
    from vqametrics.tasks import list_tasks

    return sorted({*_VQA, *(t.name for t in list_tasks())})


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: Any,
    extra_info: Mapping[str, Any] | None = None,
) -> float:
    """The reward of one rollout: the task's per-item score of the extracted answer.

    >>> compute_score("vqav2", "<think>red or blue?</think> The answer is blue.", ["blue"] * 10)
    1.0
    >>> gt = '["pancakes", "pancakes"' + ', "cake"' * 8 + "]"
    >>> compute_score("okvqa", "Answer: **pancakes**", gt)
    0.6

    Raises
    ------
    UnknownNameError
        *data_source* names no task (or is not a string); the message lists the available
        ones.
    InputError
        *ground_truth* is not a list of strings (or a JSON string of one), *solution_str*
        is not a string, or *extra_info* is not a mapping.

    Time is linear in the length of *solution_str*, and the extractor scans at most its last
    :data:`vqametrics.extract.MAX_SCAN_CHARS` characters (131,072): a looping model's output
    costs a bounded time per rollout.
    """
    if not isinstance(data_source, str):
        raise UnknownNameError(
            f"data_source must name a task, got {type(data_source).__name__}; available: "
            f"{', '.join(_available())}"
        )
    if extra_info is not None and not isinstance(extra_info, Mapping):
        raise InputError(
            f"{data_source}: extra_info must be a mapping (or None), got "
            f"{type(extra_info).__name__}"
        )
    info = extra_info or {}
    if not isinstance(solution_str, str):
        raise InputError(
            f"{data_source}: solution_str must be the model's output as a string, got "
            f"{type(solution_str).__name__}"
        )
    name = _resolve(data_source)
    answers = _answers(ground_truth, data_source)
    if name in _SOFT and len(answers) == 1:
        raise InputError(
            f"{data_source}: ground_truth has one answer ({answers[0]!r}); VQA accuracy "
            "averages over the human answers leaving one out, so with one answer every reward "
            "is 0: pass the list of human answers (10 for VQA v2)"
        )
    prediction = _extract(solution_str) if info.get("extract", True) else solution_str
    profile = info.get("profile")
    if name in _VQA:
        from vqametrics.score.accuracy import vqa_accuracy

        return float(vqa_accuracy(prediction, answers, profile or "official"))
    from vqametrics.tasks import get_task, score_answer

    try:
        task = get_task(name)
    except UnknownNameError:
        raise UnknownNameError(
            f"unknown data_source {data_source!r}; available: {', '.join(_available())} "
            f"(dataset names such as 'lmms-lab/textvqa' are mapped; see DATA_SOURCES)"
        ) from None
    prof = task.profile(profile)
    context = {k: info.get(k) for k in prof.context}
    return score_answer(task, prediction, answers, profile=prof.name, **context)
