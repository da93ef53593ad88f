"""What a toolkit's file name says: which benchmark's run the file is, and the task scoring it.

VLMEvalKit names its prediction file ``<model>_<DATASET>.xlsx`` (or ``.tsv``/``.csv``/``.json``)
and lmms-eval its log ``<date>_samples_<task>.jsonl``. The paper table finds runs by these names
(``paper_table.discover``); the runner (``tasks._run.evaluate``) warns when the name says
another task than the one scoring the file (:class:`~vqametrics.core.exceptions.
TaskMismatchWarning`). Both read them here, so a name means the same to both. Plain ``str``
work only: this runs on every ``vqametrics score`` (issue 23).
"""

from __future__ import annotations

import os
from typing import Any

__all__ = [
    "BENCHMARK_TASKS",
    "LMMS_EVAL_TASKS",
    "MAIN_SUFFIXES",
    "VLMEVALKIT_DATASETS",
    "lmms_samples",
    "main_split",
    "named_benchmark",
    "vlmevalkit_splits",
    "warn_if_other_task",
]

#: every benchmark key (its VLMEvalKit dataset name) → the task that scores it, in the order a
#: paper table prints them (``paper_table.benchmarks.BENCHMARKS`` follows it)
BENCHMARK_TASKS: dict[str, str] = {
    "MMBench_DEV_EN": "mmbench",
    "MMBench_DEV_CN": "mmbench",
    "MMBench_DEV_EN_V11": "mmbench",
    "MMBench_DEV_CN_V11": "mmbench",
    "MMBench_TEST_EN_V11": "mmbench",
    "MMBench_TEST_CN_V11": "mmbench",
    "CCBench": "mmbench",
    "MME": "mme",
    "POPE": "pope",
    "TextVQA_VAL": "textvqa",
    "ChartQA_TEST": "chartqa",
    "DocVQA_VAL": "docvqa",
    "InfoVQA_VAL": "infographicvqa",
    "OCRVQA_TESTCORE": "ocrvqa",
    "OCRVQA_TEST": "ocrvqa",
    "OCRBench": "ocrbench",
    "GQA_TestDev_Balanced": "gqa",
    "MMStar": "mmstar",
    "SEEDBench_IMG": "seedbench",
    "RealWorldQA": "realworldqa",
    "ScienceQA_TEST": "scienceqa",
    "AI2D_TEST": "ai2d",
    "MMMU_DEV_VAL": "mmmu",
    "HallusionBench": "hallusionbench",
    "MathVista_MINI": "mathvista",
    "MathVision_MINI": "mathvision",
    "MathVision": "mathvision",
    "MMVet": "mmvet",
    "MMVP": "mmvp",
    "BLINK": "blink",
    "CV-Bench-2D": "cvbench",
    "CV-Bench-3D": "cvbench",
}

#: VLMEvalKit dataset name (as in ``<model>_<DATASET>.xlsx``) → benchmark key; every
#: benchmark's own key, and the other names VLMEvalKit gives the same data
VLMEVALKIT_DATASETS: dict[str, str] = {
    **{key: key for key in BENCHMARK_TASKS},
    "MMBench": "MMBench_DEV_EN",
    "MMBench_CN": "MMBench_DEV_CN",
    "MMMU_VAL": "MMMU_DEV_VAL",
    "AI2D_TEST_NO_MASK": "AI2D_TEST",
    "ScienceQA_VAL": "ScienceQA_TEST",
}

#: lmms-eval task name (as in ``<date>_samples_<task>.jsonl``) → benchmark key
LMMS_EVAL_TASKS: dict[str, str] = {
    "mmbench_en_dev": "MMBench_DEV_EN",
    "mmbench_cn_dev": "MMBench_DEV_CN",
    "mme": "MME",
    "pope": "POPE",
    "textvqa_val": "TextVQA_VAL",
    "chartqa": "ChartQA_TEST",
    "docvqa_val": "DocVQA_VAL",
    "infovqa_val": "InfoVQA_VAL",
    "ocrbench": "OCRBench",
    "gqa": "GQA_TestDev_Balanced",
    "mmstar": "MMStar",
    "seedbench": "SEEDBench_IMG",
    "realworldqa": "RealWorldQA",
    "scienceqa_img": "ScienceQA_TEST",
    "ai2d": "AI2D_TEST",
    "mmmu_val": "MMMU_DEV_VAL",
    "hallusion_bench_image": "HallusionBench",
    "mathvista_testmini": "MathVista_MINI",
    "mmvet": "MMVet",
}

#: the main file of a VLMEvalKit run
MAIN_SUFFIXES = (".xlsx", ".tsv", ".csv", ".json")
# the longest dataset names first, so that MMBench_DEV_EN_V11 is never read as MMBench
_DATASETS = sorted(VLMEVALKIT_DATASETS, key=len, reverse=True)


def vlmevalkit_splits(name: str) -> list[tuple[str, str, str]]:
    """Every ``(model, dataset, rest)`` reading of a VLMEvalKit file name
    ``<model>_<DATASET><rest>``, the longest dataset names first: *rest* is the extension of a
    main file, or ``_acc.csv`` and the like. A model name may itself hold ``_`` and even a
    dataset's name (``llava_POPE_ft_MME.xlsx``), so every place is tried."""
    out = []
    for dataset in _DATASETS:
        marker = f"_{dataset}"
        at = name.find(marker)
        while at > 0:
            rest = name[at + len(marker) :]
            if rest.startswith((".", "_")):
                out.append((name[:at], dataset, rest))
            at = name.find(marker, at + 1)
    return out


def main_split(name: str) -> tuple[str, str] | None:
    """``(model, dataset)`` when *name* is a VLMEvalKit main file (``<model>_<DATASET>.xlsx``)."""
    for model, dataset, rest in vlmevalkit_splits(name):
        if rest.lower() in MAIN_SUFFIXES:
            return model, dataset
    return None


def lmms_samples(name: str) -> tuple[str, str] | None:
    """``(date, task)`` when *name* is the samples log of an lmms-eval task this module knows
    (``<date>_samples_<task>.jsonl``, the task in :data:`LMMS_EVAL_TASKS`): the date is up to
    the first ``_samples_``, as ``^(.+?)_samples_(.+)\\.jsonl$`` reads it, without compiling a
    pattern on every start (issue 23)."""
    at = name.find("_samples_", 1)
    if at < 0 or not name.endswith(".jsonl") or "\n" in name:
        return None
    task = name[at + len("_samples_") : -len(".jsonl")]
    return (name[:at], task) if task in LMMS_EVAL_TASKS else None


def named_benchmark(name: str) -> tuple[str, str, str] | None:
    """``(toolkit, name in the file, benchmark key)`` of the run a file *name* says it is, read
    as the paper table reads it (an lmms-eval log first, then a VLMEvalKit main file); ``None``
    when the name is neither."""
    lmms = lmms_samples(name)
    if lmms is not None:
        return "lmms-eval", lmms[1], LMMS_EVAL_TASKS[lmms[1]]
    parsed = main_split(name)
    if parsed is not None:
        return "VLMEvalKit", parsed[1], VLMEVALKIT_DATASETS[parsed[1]]
    return None


def warn_if_other_task(results: Any, task: str, title: str) -> None:
    """Warn (:class:`~vqametrics.core.exceptions.TaskMismatchWarning`) when *results* is a path
    whose file name is another task's run: ``vila_8b_MME.xlsx`` scored as POPE is scored, but
    the user is told which command scores the file. *task* is the registered name of the task
    scoring it (aliases resolved), *title* its title. A warning, not an error: reading one
    benchmark's file with another's scorer can be meant (a TextVQA sheet by the VQA v2 script)."""
    if not isinstance(results, str | os.PathLike):
        return
    path = os.fspath(results)
    if not isinstance(path, str) or path == "-":
        return
    name = os.path.basename(path)
    stem = name[:-3] if name.endswith(".gz") else name
    found = named_benchmark(stem)
    if found is None:
        return
    toolkit, given, key = found
    other = BENCHMARK_TASKS[key]
    if other == task:
        return
    import warnings

    from ..core.exceptions import TaskMismatchWarning

    what = "log" if toolkit == "lmms-eval" else "file" if stem.endswith(".json") else "sheet"
    warnings.warn(
        TaskMismatchWarning(
            f"{name}: named as {toolkit}'s {given} {what}, which `vqametrics score {other}` "
            f"scores; scored as {title} here"
        ),
        stacklevel=3,
    )
