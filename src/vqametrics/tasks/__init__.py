"""Benchmarks ("tasks"), registered by name, one module each.

A task module (``tasks/textvqa.py``, …) builds a :class:`Task` and calls :func:`register_task`
at import. Modules are imported on first use: :func:`get_task` finds a module by the task's
name (or by :data:`_MODULE_OF`, for the names a module is not named after), and otherwise
imports them all. Adding a benchmark means one new module here and one test file; nothing else
needs to know about it (a new alias belongs in :data:`_MODULE_OF`; a test says so).
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ..core.arguments import ArgumentTypeError, check
from ..core.exceptions import UnknownNameError
from ._base import (
    PICKLED_BY_NAME,
    Aggregate,
    Item,
    Task,
    TaskData,
    TaskInputs,
    TaskProfile,
)

if TYPE_CHECKING:
    import random

__all__ = [
    "Aggregate",
    "Item",
    "Task",
    "TaskData",
    "TaskInputs",
    "TaskProfile",
    "get_task",
    "list_tasks",
    "parse_choice",
    "parse_yes_no",
    "register_task",
    "score_answer",
]

_TASKS: dict[str, Task] = {}
_ALIASES: dict[str, str] = {}
_ALL_LOADED = False

#: the module of each task name and alias that is not the module's own name (``-`` read as
#: ``_``), so that ``score docvqa`` imports one task module, not all of them (issue 23);
#: tests/test_startup.py holds it equal to what the modules register
_MODULE_NAMES: dict[str, tuple[str, ...]] = {
    "ai2d": ("ai2d-test",),
    "anls": (
        "docvqa",
        "doc-vqa",
        "docvqa-val",
        "docvqa_val",
        "infographicvqa",
        "infovqa",
        "info-vqa",
        "infographicsvqa",
        "infographic-vqa",
        "stvqa",
        "st-vqa",
        "scene-text-vqa",
    ),
    "blink": ("blink_circular", "blink-circular"),
    "chartqa": ("chart-qa", "chartqa-test", "plotqa"),
    "cvbench": ("cv-bench",),
    "hallusionbench": ("hallusion-bench", "hallusion_bench"),
    "mathvision": ("math-v", "mathvision-mini", "mathvision_testmini"),
    "mathvista": ("mathvista-testmini", "mathvista_testmini"),
    "mmbench": (
        "mmbench-en",
        "mmbench-dev",
        "mmbench-cn",
        "mmbench-v11",
        "mmbench-dev-en",
        "mmbench-dev-cn",
        "mmbench-test-en",
        "mmbench-test-cn",
        "mmbench-dev-en-v11",
        "mmbench-dev-cn-v11",
        "mmbench-test-en-v11",
        "mmbench-test-cn-v11",
        "ccbench",
        "mmbench_dev_en",
        "mmbench_dev_cn",
        "mmbench_test_en",
        "mmbench_test_cn",
        "mmbench_dev_en_v11",
        "mmbench_dev_cn_v11",
        "mmbench_test_en_v11",
        "mmbench_test_cn_v11",
    ),
    "mmvet": ("mm-vet",),
    "ocrbench": ("ocr-bench",),
    "ocrvqa": ("ocr-vqa",),
    "realworldqa": ("realworld-qa",),
    "scienceqa": ("scienceqa-img", "scienceqa_img", "sqa"),
    "seedbench": ("seedbench-img", "seed-bench"),
    "textvqa": ("text-vqa", "textvqa_val"),
    "vizwiz": ("vizwiz-vqa", "vizwiz_vqa"),
    "vqav2": ("okvqa", "ok-vqa", "vqa", "vqa-v2", "vqa2"),
}
_MODULE_OF = {name: module for module, names in _MODULE_NAMES.items() for name in names}


def register_task(task: Task) -> Task:
    """Add *task* to the registry (its name and aliases must be new); returns it."""
    for name in (task.name, *task.aliases):
        if name in _TASKS or name in _ALIASES:
            raise ValueError(f"task name {name!r} is already registered")
    _TASKS[task.name] = task
    for alias in task.aliases:
        _ALIASES[alias] = task.name
    return task


def _task_by_name(task: Task) -> tuple[object, ...]:
    if _TASKS.get(task.name) is not task:
        raise ArgumentTypeError(f"Task {task.name!r}: only a registered task can be pickled")
    return (get_task, (task.name,))


def _profile_by_name(profile: TaskProfile) -> tuple[object, ...]:
    for task in _TASKS.values():
        if any(p is profile for p in task.profiles):
            return (_task_profile, (task.name, profile.name))
    raise ArgumentTypeError(
        f"TaskProfile {profile.name!r}: only a registered task's profile can be pickled"
    )


def _task_profile(task: str, profile: str) -> TaskProfile:
    """The profile *profile* of the registered task *task* (how a profile is unpickled)."""
    return get_task(task).profile(profile)


PICKLED_BY_NAME.update(task=_task_by_name, profile=_profile_by_name)


def _load_all() -> None:
    global _ALL_LOADED
    if _ALL_LOADED:
        return
    import pkgutil

    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}")
    _ALL_LOADED = True


def get_task(name: str | Task) -> Task:
    """The registered task *name* (or an alias such as ``ok-vqa``)."""
    if isinstance(name, Task):
        return name
    check("get_task", "name", name, "str", also=(Task,))
    key = name.lower()
    if key not in _TASKS and key not in _ALIASES:
        module = _MODULE_OF.get(key, key.replace("-", "_"))
        with contextlib.suppress(ModuleNotFoundError):
            importlib.import_module(f"{__name__}.{module}")
        if key not in _TASKS and key not in _ALIASES:
            _load_all()
    key = _ALIASES.get(key, key)
    task = _TASKS.get(key)
    if task is None:
        names = ", ".join(t.name for t in list_tasks())
        raise UnknownNameError(f"unknown task {name!r}; choose one of: {names}")
    return task


def list_tasks() -> list[Task]:
    """Every registered task, by name."""
    _load_all()
    return sorted(_TASKS.values(), key=lambda t: t.name)


def score_answer(
    task: str | Task,
    prediction: str,
    references: str | Sequence[str],
    *,
    profile: str | None = None,
    **context: object,
) -> float:
    """One answer's score under *task*'s scorer, as a float.

    *references* is the list of human answers (or one answer). *context* passes the item
    fields a scorer needs (OCRBench: ``dataset_name=``, ``category=``). Relaxed accuracy and
    OCRBench give 1.0 or 0.0.

    >>> score_answer("ocrvqa", " Fiction ", ["fiction"])
    1.0
    """
    t = get_task(task)
    check("score_answer", "profile", profile, "str", optional=True)
    prof = t.profile(profile)
    check("score_answer", "prediction", prediction, "str")
    if not isinstance(references, str):
        check("score_answer", "references", references, "strs")
    refs = (references,) if isinstance(references, str) else tuple(references)
    ctx = {k: context.get(k) for k in prof.context}
    unknown = set(context) - set(prof.context)
    if unknown:
        raise ArgumentTypeError(
            f"task {t.name!r} profile {prof.name!r} takes no context {sorted(unknown)}; "
            f"it takes: {', '.join(prof.context) or 'none'}"
        )
    return float(prof.score(prediction, refs, **ctx))


def parse_yes_no(text: str, *, task: str | Task, profile: str | None = None) -> str:
    """What a yes/no task (POPE, MME) reads in *text*: ``"yes"``, ``"no"`` or ``"other"``."""
    t = get_task(task)
    check("parse_yes_no", "profile", profile, "str", optional=True)
    prof = t.profile(profile)
    check("parse_yes_no", "text", text, "str")
    if prof.parse is None:
        raise UnknownNameError(f"task {t.name!r} is not a yes/no task")
    return prof.parse(text)


def parse_choice(
    response: str,
    options: Mapping[str, str],
    *,
    task: str | Task,
    profile: str | None = "official",
    rng: random.Random | None = None,
) -> str | None:
    """The option letter *task*'s *profile* reads in *response*.

    Returns the letter, ``None`` when the rules find none (VLMEvalKit would then ask its
    judge), ``"Z"`` where VLMEvalKit answers Z (a refusal, a bare Z), or ``"random"`` where the
    rules would draw a random letter and no *rng* (a :class:`random.Random`) was given. For a
    rule that only compares with the gold (MMStar's official test, lmms-eval's SEED and AI2D
    rules), the letter that would be scored correct. *options* maps letters to option texts.
    ``profile="official"`` on a task without an official scorer (AI2D, RealWorldQA,
    SEED-Bench) is the task's default profile.

    >>> parse_choice("Answer: D", {"A": "cat", "B": "dog", "C": "bird", "D": "fish"},
    ...              task="mmstar")
    'A'
    """
    t = get_task(task)
    check("parse_choice", "profile", profile, "str", optional=True)
    if profile == "official" and not any(p.name == "official" for p in t.profiles):
        profile = None
    prof = t.profile(profile)
    if prof.choice is None:
        raise UnknownNameError(f"task {t.name!r} is not a multiple-choice task")
    check("parse_choice", "response", response, "str")
    check("parse_choice", "options", options, "mapping")
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in options.items()):
        raise ArgumentTypeError("parse_choice: options must map letters to option texts")
    if rng is not None:
        import random  # only here: a small run need not import it (issue 23)

        check("parse_choice", "rng", rng, None, also=(random.Random,))
    return prof.choice(response, options, rng=rng)
