"""Verifiable rewards for RL fine-tuning, in verl's shape.

verl loads a reward function by path (``custom_reward_function.path=…/rewards.py``,
``name=compute_score``) and calls ``compute_score(data_source, solution_str, ground_truth,
extra_info)`` once per rollout. Here:

* ``data_source`` names the benchmark: a task registered in :mod:`vqametrics.tasks` by its name
  or an alias (``vqav2``, ``ok-vqa``, ``textvqa``, ``docvqa``, ``mmstar``, …, ``_`` read as
  ``-``), or a Hugging Face Hub dataset the task declares (``lmms-lab/textvqa``,
  ``HuggingFaceM4/VQAv2``; see :data:`DATA_SOURCES`). What a task accepts follows its declared
  ``kind``: ``open`` and ``yes-no`` tasks are scored from the ground truth alone; a
  ``multiple-choice`` task needs the item's ``options`` in ``extra_info``; a ``mixed`` one
  (MMMU, MathVista) the item's fields its scorer reads (``question_type``, ``options``, …); a
  ``judged`` one (MM-Vet, HallusionBench) is refused, as its official grade comes from an LLM
  judge, not a rule;
* ``ground_truth`` the human answers: a list, one string, or a JSON string of a list;
* ``solution_str`` the model's whole output. By default the answer is extracted first with
  vqametrics's ``answer`` rules (those of ``--extract answer``: reasoning blocks dropped, the
  text after an answer marker, markdown and a trailing period stripped, a leading Yes/No
  sentence reduced to ``yes``/``no``); pass ``extra_info={"extract": False}`` to score the raw
  string;
* ``extra_info`` may also carry ``profile`` (a task profile name) and the item fields a task's
  scorer needs (OCRBench: ``category``; a multiple-choice task: ``options``).

The default is each benchmark's default profile (its official scorer when there is one), quirks
included. For VQA v2 / OK-VQA that
means the official unanimity rule: when the ten human answers are identical, nothing is
normalized, so ``Yes`` earns 0 against ten ``yes``. A policy trained on that reward learns the
annotators' spelling; to reward the answer rather than its case and punctuation, pass
``extra_info={"profile": "lmms-eval-vqav2"}`` (every answer normalized on both sides).

The reward is the task's per-item score as a float (VQA accuracy in [0, 1], ANLS, 0/1 …).

Imports are absolute on purpose: verl loads this file by path
(not as ``vqametrics.integrations.rewards``),
where relative imports would fail.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import orjson

from vqametrics.core.exceptions import InputError, UnknownNameError

if TYPE_CHECKING:
    from vqametrics.tasks import Task, TaskProfile

    DATA_SOURCES: dict[str, str]

__all__ = ["DATA_SOURCES", "compute_score"]

#: The kinds scored from the ground truth alone (every name of such a task is in DATA_SOURCES).
_FROM_TRUTH = ("open", "yes-no")


def __getattr__(name: str) -> Any:
    # DATA_SOURCES is built from the registry on first use: loading rewards.py stays cheap
    if name == "DATA_SOURCES":
        return _data_sources()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@lru_cache(maxsize=1)
def _names() -> dict[str, str]:
    """Every name a ``data_source`` may give, lowercased → the task's name: the registry's
    names, aliases and declared Hub datasets (no list of its own)."""
    from vqametrics.tasks import list_tasks

    out: dict[str, str] = {}
    for task in list_tasks():
        for name in (task.name, *task.aliases, *task.datasets):
            out[name.lower()] = task.name
    return out


@lru_cache(maxsize=1)
def _data_sources() -> dict[str, str]:
    """``DATA_SOURCES``: the names of the tasks scored from the ground truth alone (kinds
    ``open`` and ``yes-no``) → task name; derived from the registry."""
    from vqametrics.tasks import get_task

    return {k: v for k, v in _names().items() if get_task(v).kind in _FROM_TRUTH}


def _extract(solution_str: str) -> str:
    """The answer in a model's full output (the default of :func:`compute_score`): the
    ``answer`` extractor of ``--extract answer`` (:func:`vqametrics.extract.extract_answer`)."""
    from vqametrics.extract import extract_answer

    return extract_answer(solution_str).text


def _resolve(data_source: str) -> Task:
    """The registered task *data_source* names (``_`` read as ``-``: ``vqa_v2``, ``ok_vqa``)."""
    from vqametrics.tasks import get_task

    key = data_source.strip().lower()
    names = _names()
    for k in (key, key.replace("_", "-")):
        if k in names:
            return get_task(names[k])
    raise UnknownNameError(
        f"unknown data_source {data_source!r}; available: {', '.join(_available())} "
        f"(dataset names such as 'lmms-lab/textvqa' are mapped; see DATA_SOURCES)"
    )


def _refusal(task: Task, prof: TaskProfile, info: Mapping[str, Any]) -> str | None:
    """Why *task* cannot give a reward for this rollout, from its declared kind (or None)."""
    if task.kind == "judged":
        return (
            "graded by an LLM judge (kind 'judged'), not by a rule, so no reward can be "
            f"computed from the answer; score recorded grades with `vqametrics score {task.name}`"
        )
    if task.kind == "multiple-choice" and not isinstance(info.get("options"), Mapping):
        return (
            "a multiple-choice task (kind 'multiple-choice'): pass the item's options as "
            "extra_info={'options': {'A': text, 'B': text, …}}"
        )
    if task.kind == "mixed" and not any(k in info for k in prof.context):
        return (
            "multiple-choice and open questions (kind 'mixed'): pass the item's fields in "
            f"extra_info ({', '.join(prof.context)})"
        )
    return None


def _answers(ground_truth: Any, data_source: str) -> list[str]:
    """The human answers: a list/tuple of strings, a JSON string of one, or a plain string."""
    gt = ground_truth
    if isinstance(gt, bytes):
        try:
            gt = gt.decode()
        except UnicodeDecodeError as exc:
            raise InputError(
                f"{data_source}: ground_truth is bytes that are not UTF-8 text ({exc.reason} "
                f"at byte {exc.start}): {gt[:40]!r}"
            ) from None
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

    return [t.name for t in list_tasks()]


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
        is not a string, *extra_info* is not a mapping, or the task's declared kind refuses
        the rollout (a judged task; a multiple-choice one without ``options``; one vote for a
        soft-accuracy task); the message says why.

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
    task = _resolve(data_source)
    prof = task.profile(info.get("profile"))
    answers = _answers(ground_truth, data_source)
    if task.references == "votes" and len(answers) == 1:
        raise InputError(
            f"{data_source}: ground_truth has one answer ({answers[0]!r}); VQA accuracy "
            "averages over the human answers leaving one out, so with one answer every reward "
            "is 0: pass the list of human answers (10 for VQA v2)"
        )
    refusal = _refusal(task, prof, info)
    if refusal is not None:
        named = data_source if data_source == task.name else f"{data_source} (task {task.name})"
        raise InputError(f"{named}: {refusal}")
    from vqametrics.tasks import score_answer

    prediction = _extract(solution_str) if info.get("extract", True) else solution_str
    context = {k: info.get(k) for k in prof.context}
    return score_answer(task, prediction, answers, profile=prof.name, **context)
