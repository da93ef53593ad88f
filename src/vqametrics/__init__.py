"""vqametrics: reproducible, explainable scoring of vision-language benchmarks.

The public API is what this module exports (``__all__``), with every error and warning in
:mod:`vqametrics.errors`; the one entry point is
:func:`evaluate` (``evaluate("textvqa", results, annotations=...)``), which returns a
:class:`TaskEvaluation` for every task. Everything else lives in its submodule, documented
there: ``vqametrics.pipeline.vqa`` (``VQAEvaluation``, the VQA v2 bulk pipeline),
``vqametrics.readers.vqa`` (``VQADataset``, ``load_annotations``, ``load_results``),
``vqametrics.kernels.exact_match`` (``exact_match``, ``exact_match_any``, ``reference_answer``),
``vqametrics.extract`` (``extract_answer``, ``diagnose``), ``vqametrics.integrations.metrics``
(``VQAAccuracy``, ``TaskMetric``), ``vqametrics.mmbench`` (``MMBenchResult``,
``build_circular``, ``extract_choice``, ``list_extractors``), ``vqametrics.analysis.compare``
(``compare_vqa``, ``compare_aokvqa``, ``Comparison``), ``vqametrics.views.explanation``
(``Explanation``, ``explain_item``), ``vqametrics.profiles`` (``Profile``), ``vqametrics.tasks``
(``parse_yes_no``) and ``vqametrics.aggregate.stats`` (every interval and paired test).

The source tree, floor by floor from the bottom (``tests/test_layers.py`` keeps it so):
``core/`` (errors, signature, toolkit pins) → ``normalize/`` → ``profiles/`` → ``readers/``,
``kernels/`` (per-item scorers and the choice extractors), ``extract/``, ``aggregate/`` →
``judge/`` → ``mmbench/``, ``pipeline/`` → ``tasks/`` → ``views/`` → ``analysis/`` →
``paper_table/``, ``integrations/`` → ``demo/``, ``cli/``.
"""

from ._version import __version__

TYPE_CHECKING = False  # not typing's: `import vqametrics` (and --help) imports neither it nor re
if TYPE_CHECKING:
    from .aggregate.stats import bootstrap_ci, diff_results, evaluation_ci, paired_test
    from .core.exceptions import (
        InputError,
        MissingDependencyError,
        MissingPredictionError,
        UnknownNameError,
        VqaMetricsError,
        VqaMetricsWarning,
    )
    from .core.signature import Signature
    from .kernels.accuracy import normalize_answer, vqa_accuracy
    from .paper_table import table
    from .profiles import get_profile, list_profiles
    from .tasks import Task, TaskProfile, get_task, list_tasks, parse_choice, score_answer
    from .tasks._run import TaskEvaluation, evaluate, evaluate_task
    from .tasks.mmbench import evaluate_mmbench
    from .tasks.vqav2 import evaluate_vqa
    from .views.explanation import explain

# Imported on first use (PEP 562), so that `import vqametrics` and the command line start fast.
_LAZY = {
    "InputError": ".core.exceptions",
    "MissingDependencyError": ".core.exceptions",
    "MissingPredictionError": ".core.exceptions",
    "UnknownNameError": ".core.exceptions",
    "VqaMetricsError": ".core.exceptions",
    "VqaMetricsWarning": ".core.exceptions",
    "Signature": ".core.signature",
    "Task": ".tasks",
    "TaskEvaluation": ".tasks._run",
    "TaskProfile": ".tasks",
    "bootstrap_ci": ".aggregate.stats",
    "diff_results": ".aggregate.stats",
    "evaluate": ".tasks._run",
    "evaluate_mmbench": ".tasks.mmbench",
    "evaluate_task": ".tasks._run",
    "evaluate_vqa": ".tasks.vqav2",
    "evaluation_ci": ".aggregate.stats",
    "explain": ".views.explanation",
    "get_profile": ".profiles",
    "get_task": ".tasks",
    "list_profiles": ".profiles",
    "list_tasks": ".tasks",
    "normalize_answer": ".kernels.accuracy",
    "paired_test": ".aggregate.stats",
    "parse_choice": ".tasks",
    "score_answer": ".tasks",
    "table": ".paper_table",
    "vqa_accuracy": ".kernels.accuracy",
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
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted((set(globals()) - {"TYPE_CHECKING"}) | set(_LAZY))
