"""The benchmarks a paper table knows: the toolkits' dataset names, the task that scores each,
the columns papers print, their units, and where the toolkit's own number for a column is.

The knowledge of file names lives one floor down, in :mod:`vqametrics.readers.toolkit_names`
(the runner warns from it when a file is named as another task's run): a VLMEvalKit sheet
``<model>_<DATASET>.xlsx`` is recognized by ``<DATASET>`` (:data:`VLMEVALKIT_DATASETS`); an
lmms-eval ``<date>_samples_<task>.jsonl`` by ``<task>`` (:data:`LMMS_EVAL_TASKS`); the task of
each benchmark is its :data:`~vqametrics.readers.toolkit_names.BENCHMARK_TASKS` entry.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..readers.toolkit_names import BENCHMARK_TASKS, LMMS_EVAL_TASKS, VLMEVALKIT_DATASETS

__all__ = [
    "BENCHMARKS",
    "LMMS_EVAL_TASKS",
    "VLMEVALKIT_DATASETS",
    "Benchmark",
    "Measure",
    "benchmark",
]


@dataclass(frozen=True)
class Measure:
    """One column of a benchmark: which of our numbers, which of the toolkit's.

    ``ours`` lists the names the number goes by in our aggregate, first found wins: a metric
    name, ``group/metric`` in a breakdown, or ``""`` for the profile's headline (its name
    changes with the profile: ``f1_mean`` vs ``Overall``). ``reported`` lists where the
    toolkit's number is in its score file, as ``group/metric`` (``all/Overall`` for a one-row
    ``_acc.csv``). ``default`` columns are printed unless ``columns=`` chooses others.
    """

    key: str
    label: str
    ours: tuple[str, ...] = ("",)
    reported: tuple[str, ...] = ("all/Overall",)
    default: bool = True


@dataclass(frozen=True)
class Benchmark:
    """A benchmark column group: its title, the task that scores it and its measures.

    ``reported_scale`` turns VLMEvalKit's reported numbers into the table's units (its
    multiple-choice ``_acc.csv`` holds fractions: 100; its VQA ones percent: 1).
    ``opencompass`` names the benchmark's part in the OpenCompass average, if any.
    """

    key: str
    title: str
    task: str
    measures: tuple[Measure, ...] = (Measure("acc", ""),)
    reported_scale: float = 1.0
    opencompass: str | None = None


_ACC = (Measure("acc", ""),)
#: the judged math and MM-Vet sheets: the overall accuracy under ``all/Overall`` or, in the
#: per-category score file, ``Overall/acc``
_JUDGED_ACC = (Measure("acc", "", ("",), ("all/Overall", "Overall/acc")),)
_MCQ = 100.0  # VLMEvalKit's multiple-choice _acc.csv: fractions


def _b(
    key: str,
    title: str,
    measures: tuple[Measure, ...] = _ACC,
    reported_scale: float = 1.0,
    opencompass: str | None = None,
) -> Benchmark:
    """The benchmark *key*, scored by its task in ``BENCHMARK_TASKS`` (the one place it is)."""
    return Benchmark(key, title, BENCHMARK_TASKS[key], measures, reported_scale, opencompass)


#: every benchmark, in the order a table prints them (``BENCHMARK_TASKS``'s)
BENCHMARKS: tuple[Benchmark, ...] = (
    _b("MMBench_DEV_EN", "MMBench-EN (dev)", _ACC, _MCQ),
    _b("MMBench_DEV_CN", "MMBench-CN (dev)", _ACC, _MCQ),
    _b("MMBench_DEV_EN_V11", "MMBench-EN v1.1 (dev)", _ACC, _MCQ),
    _b("MMBench_DEV_CN_V11", "MMBench-CN v1.1 (dev)", _ACC, _MCQ),
    _b("MMBench_TEST_EN_V11", "MMBench-EN v1.1", _ACC, _MCQ, opencompass="mmbench"),
    _b("MMBench_TEST_CN_V11", "MMBench-CN v1.1", _ACC, _MCQ, opencompass="mmbench"),
    _b("CCBench", "CCBench", _ACC, _MCQ),
    _b(
        "MME",
        "MME",
        (
            Measure("P", "P", ("perception",), ("all/perception",)),
            Measure("C", "C", ("cognition", "reasoning"), ("all/reasoning",)),
        ),
    ),
    _b(
        "POPE",
        "POPE",
        (
            Measure("F1", "F1", ("",), ("Overall/Overall",)),
            Measure("random", "rand", ("random/f1", "random/Overall"), ("random/Overall",), False),
            Measure(
                "popular", "pop", ("popular/f1", "popular/Overall"), ("popular/Overall",), False
            ),
            Measure(
                "adversarial",
                "adv",
                ("adversarial/f1", "adversarial/Overall"),
                ("adversarial/Overall",),
                False,
            ),
        ),
    ),
    _b("TextVQA_VAL", "TextVQA"),
    _b("ChartQA_TEST", "ChartQA"),
    _b("DocVQA_VAL", "DocVQA"),
    _b("InfoVQA_VAL", "InfoVQA"),
    _b("OCRVQA_TESTCORE", "OCR-VQA"),
    _b("OCRVQA_TEST", "OCR-VQA (test)"),
    _b(
        "OCRBench",
        "OCRBench",
        (Measure("score", "", ("", "Final Score"), ("all/Final Score",)),),
        opencompass="ocrbench",
    ),
    _b("GQA_TestDev_Balanced", "GQA"),
    _b("MMStar", "MMStar", _ACC, _MCQ, opencompass="mmstar"),
    _b("SEEDBench_IMG", "SEED-Bench", _ACC, _MCQ),
    _b("RealWorldQA", "RealWorldQA", _ACC, _MCQ),
    _b("ScienceQA_TEST", "ScienceQA", _ACC, _MCQ),
    _b("AI2D_TEST", "AI2D", _ACC, _MCQ, opencompass="ai2d"),
    _b("MMMU_DEV_VAL", "MMMU", _ACC, _MCQ, opencompass="mmmu"),
    _b(
        "HallusionBench",
        "HallusionBench",
        (
            Measure("aAcc", "aAcc", ("aAcc",), ("Overall/aAcc",)),
            Measure("fAcc", "fAcc", ("fAcc",), ("Overall/fAcc",), False),
            Measure("qAcc", "qAcc", ("qAcc",), ("Overall/qAcc",), False),
        ),
        opencompass="hallusionbench",
    ),
    _b("MathVista_MINI", "MathVista", _JUDGED_ACC, opencompass="mathvista"),
    _b("MathVision_MINI", "MathVision (mini)", _JUDGED_ACC),
    _b("MathVision", "MathVision", _JUDGED_ACC),
    _b("MMVet", "MM-Vet", _JUDGED_ACC, opencompass="mmvet"),
    _b("MMVP", "MMVP", _ACC, _MCQ),
    _b("BLINK", "BLINK", _ACC, _MCQ),
    _b("CV-Bench-2D", "CV-Bench 2D", _ACC, _MCQ),
    _b("CV-Bench-3D", "CV-Bench 3D", _ACC, _MCQ),
)

_BY_KEY = {b.key: b for b in BENCHMARKS}


def benchmark(key: str) -> Benchmark:
    """The benchmark whose key (its VLMEvalKit dataset name) is *key*."""
    return _BY_KEY[key]
