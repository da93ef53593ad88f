"""vqametrics: reproducible, explainable scoring of vision-language benchmarks.

The public API is what this module exports (``__all__``), with every error and warning in
:mod:`vqametrics.errors`; the one entry point is
:func:`evaluate` (``evaluate("textvqa", results, annotations=...)``), which returns a
:class:`TaskEvaluation` for every task. Everything else lives in its submodule, documented
there: ``vqametrics.pipeline.vqa`` (``VQAEvaluation``, the VQA v2 bulk pipeline),
``vqametrics.load.vqa`` (``VQADataset``, ``load_annotations``, ``load_results``),
``vqametrics.score.exact_match`` (``exact_match``, ``exact_match_any``, ``reference_answer``),
``vqametrics.extract`` (``extract_answer``, ``diagnose``), ``vqametrics.metrics``
(``VQAAccuracy``, ``TaskMetric``), ``vqametrics.mmbench`` (``MMBenchResult``,
``build_circular``, ``extract_choice``, ``list_extractors``), ``vqametrics.compare``
(``compare_vqa``, ``compare_aokvqa``, ``Comparison``), ``vqametrics.explanation``
(``Explanation``, ``explain_item``), ``vqametrics.profiles`` (``Profile``), ``vqametrics.tasks``
(``parse_yes_no``) and ``vqametrics.stats`` (every interval and paired test).

The source tree reads top to bottom: ``load/`` → ``normalize/`` → ``score/`` → ``aggregate/``
→ ``tasks/`` and ``pipeline/`` → ``report/`` and ``cli/``; ``profiles/`` pins every rule.
"""

import importlib as _importlib
import typing as _typing

from ._exceptions import (
    InputError,
    MissingDependencyError,
    MissingPredictionError,
    UnknownNameError,
    VqaMetricsError,
    VqaMetricsWarning,
)
from ._version import __version__

if _typing.TYPE_CHECKING:
    from .explanation import explain
    from .mmbench import evaluate_mmbench
    from .paper_table import table
    from .pipeline.vqa import evaluate_vqa
    from .profiles import get_profile, list_profiles
    from .score.accuracy import normalize_answer, vqa_accuracy
    from .signature import Signature
    from .stats import bootstrap_ci, diff_results, evaluation_ci, paired_test
    from .tasks import Task, TaskProfile, get_task, list_tasks, parse_choice, score_answer
    from .tasks._run import TaskEvaluation, evaluate, evaluate_task

# Imported on first use (PEP 562), so that `import vqametrics` and the command line start fast.
_LAZY = {
    "Signature": ".signature",
    "Task": ".tasks",
    "TaskEvaluation": ".tasks._run",
    "TaskProfile": ".tasks",
    "bootstrap_ci": ".stats",
    "diff_results": ".stats",
    "evaluate": ".tasks._run",
    "evaluate_mmbench": ".mmbench",
    "evaluate_task": ".tasks._run",
    "evaluate_vqa": ".pipeline.vqa",
    "evaluation_ci": ".stats",
    "explain": ".explanation",
    "get_profile": ".profiles",
    "get_task": ".tasks",
    "list_profiles": ".profiles",
    "list_tasks": ".tasks",
    "normalize_answer": ".score.accuracy",
    "paired_test": ".stats",
    "parse_choice": ".tasks",
    "score_answer": ".tasks",
    "table": ".paper_table",
    "vqa_accuracy": ".score.accuracy",
}

__all__ = [
    "InputError",
    "MissingDependencyError",
    "MissingPredictionError",
    "Signature",
    "Task",
    "TaskEvaluation",
    "TaskProfile",
    "UnknownNameError",
    "VqaMetricsError",
    "VqaMetricsWarning",
    "__version__",
    "bootstrap_ci",
    "diff_results",
    "evaluate",
    "evaluate_mmbench",
    "evaluate_task",
    "evaluate_vqa",
    "evaluation_ci",
    "explain",
    "get_profile",
    "get_task",
    "list_profiles",
    "list_tasks",
    "normalize_answer",
    "paired_test",
    "parse_choice",
    "score_answer",
    "table",
    "vqa_accuracy",
]


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'vqametrics' has no attribute {name!r}")
    value = getattr(_importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
