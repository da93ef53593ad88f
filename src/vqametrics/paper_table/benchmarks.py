"""The benchmarks a paper table knows: the toolkits' dataset names, the task that scores each,
the columns papers print, their units, and where the toolkit's own number for a column is.

This is the one place the table's knowledge of file names lives, as data. A VLMEvalKit sheet
``<model>_<DATASET>.xlsx`` is recognized by ``<DATASET>`` (:data:`VLMEVALKIT_DATASETS`); an
lmms-eval ``<date>_samples_<task>.jsonl`` by ``<task>`` (:data:`LMMS_EVAL_TASKS`).
"""

from __future__ import annotations

from dataclasses import dataclass

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

#: every benchmark, in the order a table prints them
BENCHMARKS: tuple[Benchmark, ...] = (
    Benchmark("MMBench_DEV_EN", "MMBench-EN (dev)", "mmbench", _ACC, _MCQ),
    Benchmark("MMBench_DEV_CN", "MMBench-CN (dev)", "mmbench", _ACC, _MCQ),
    Benchmark("MMBench_DEV_EN_V11", "MMBench-EN v1.1 (dev)", "mmbench", _ACC, _MCQ),
    Benchmark("MMBench_DEV_CN_V11", "MMBench-CN v1.1 (dev)", "mmbench", _ACC, _MCQ),
    Benchmark(
        "MMBench_TEST_EN_V11", "MMBench-EN v1.1", "mmbench", _ACC, _MCQ, opencompass="mmbench"
    ),
    Benchmark(
        "MMBench_TEST_CN_V11", "MMBench-CN v1.1", "mmbench", _ACC, _MCQ, opencompass="mmbench"
    ),
    Benchmark("CCBench", "CCBench", "mmbench", _ACC, _MCQ),
    Benchmark(
        "MME",
        "MME",
        "mme",
        (
            Measure("P", "P", ("perception",), ("all/perception",)),
            Measure("C", "C", ("cognition", "reasoning"), ("all/reasoning",)),
        ),
    ),
    Benchmark(
        "POPE",
        "POPE",
        "pope",
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
    Benchmark("TextVQA_VAL", "TextVQA", "textvqa"),
    Benchmark("ChartQA_TEST", "ChartQA", "chartqa"),
    Benchmark("DocVQA_VAL", "DocVQA", "docvqa"),
    Benchmark("InfoVQA_VAL", "InfoVQA", "infographicvqa"),
    Benchmark("OCRVQA_TESTCORE", "OCR-VQA", "ocrvqa"),
    Benchmark("OCRVQA_TEST", "OCR-VQA (test)", "ocrvqa"),
    Benchmark(
        "OCRBench",
        "OCRBench",
        "ocrbench",
        (Measure("score", "", ("", "Final Score"), ("all/Final Score",)),),
        opencompass="ocrbench",
    ),
    Benchmark("GQA_TestDev_Balanced", "GQA", "gqa"),
    Benchmark("MMStar", "MMStar", "mmstar", _ACC, _MCQ, opencompass="mmstar"),
    Benchmark("SEEDBench_IMG", "SEED-Bench", "seedbench", _ACC, _MCQ),
    Benchmark("RealWorldQA", "RealWorldQA", "realworldqa", _ACC, _MCQ),
    Benchmark("ScienceQA_TEST", "ScienceQA", "scienceqa", _ACC, _MCQ),
    Benchmark("AI2D_TEST", "AI2D", "ai2d", _ACC, _MCQ, opencompass="ai2d"),
    Benchmark("MMMU_DEV_VAL", "MMMU", "mmmu", _ACC, _MCQ, opencompass="mmmu"),
    Benchmark(
        "HallusionBench",
        "HallusionBench",
        "hallusionbench",
        (
            Measure("aAcc", "aAcc", ("aAcc",), ("Overall/aAcc",)),
            Measure("fAcc", "fAcc", ("fAcc",), ("Overall/fAcc",), False),
            Measure("qAcc", "qAcc", ("qAcc",), ("Overall/qAcc",), False),
        ),
        opencompass="hallusionbench",
    ),
    Benchmark("MathVista_MINI", "MathVista", "mathvista", _JUDGED_ACC, opencompass="mathvista"),
    Benchmark("MathVision_MINI", "MathVision (mini)", "mathvision", _JUDGED_ACC),
    Benchmark("MathVision", "MathVision", "mathvision", _JUDGED_ACC),
    Benchmark("MMVet", "MM-Vet", "mmvet", _JUDGED_ACC, opencompass="mmvet"),
    Benchmark("MMVP", "MMVP", "mmvp", _ACC, _MCQ),
    Benchmark("BLINK", "BLINK", "blink", _ACC, _MCQ),
    Benchmark("CV-Bench-2D", "CV-Bench 2D", "cvbench", _ACC, _MCQ),
    Benchmark("CV-Bench-3D", "CV-Bench 3D", "cvbench", _ACC, _MCQ),
)

#: VLMEvalKit dataset name (as in ``<model>_<DATASET>.xlsx``) → benchmark key; every
#: benchmark's own key, and the other names VLMEvalKit gives the same data
VLMEVALKIT_DATASETS: dict[str, str] = {
    **{b.key: b.key for b in BENCHMARKS},
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

_BY_KEY = {b.key: b for b in BENCHMARKS}


def benchmark(key: str) -> Benchmark:
    """The benchmark whose key (its VLMEvalKit dataset name) is *key*."""
    return _BY_KEY[key]
