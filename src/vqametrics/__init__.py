"""vqametrics: reproducible, explainable VQA scoring.

The public API is what this module exports (``__all__``); everything in the subpackages is
internal and may change. The pipeline reads top to bottom in the source tree:
``load/`` → ``normalize/`` (``normalize/official.py`` is the official normalization) →
``score/`` → ``aggregate.py`` → ``report/``; ``profiles.py`` pins every scoring rule by name.
"""

import importlib as _importlib
import types as _types
import typing as _typing

from ._exceptions import (
    AnswerCountWarning,
    IdTypeWarning,
    InputError,
    LeaveOneOutWarning,
    MissingDependencyError,
    MissingPredictionError,
    UnknownNameError,
    VqaMetricsError,
    VqaMetricsWarning,
)
from ._version import __version__

if _typing.TYPE_CHECKING:
    from .compare import Comparison, compare_aokvqa, compare_vqa
    from .evaluate import VQAEvaluation, evaluate_vqa
    from .explain import Explanation, explain
    from .extract import diagnose, extract_answer
    from .load.vqa import VQADataset, load_annotations, load_results
    from .metrics import TaskMetric, VQAAccuracy
    from .mmbench import (
        MMBenchResult,
        build_circular,
        evaluate_mmbench,
        extract_choice,
        list_extractors,
    )
    from .profiles import Profile, get_profile, list_profiles
    from .score.accuracy import normalize_answer, vqa_accuracy
    from .score.exact_match import exact_match, exact_match_any, reference_answer
    from .signature import Signature
    from .stats import bootstrap_ci, diff_results, evaluation_ci, paired_test
    from .tasks import Task, TaskProfile, get_task, list_tasks, parse_yes_no, score_answer
    from .tasks._run import TaskEvaluation, evaluate_task

# Imported on first use (PEP 562), so that `import vqametrics` and the command line start fast.
_LAZY = {
    "Comparison": ".compare",
    "Explanation": ".explain",
    "MMBenchResult": ".mmbench",
    "Profile": ".profiles",
    "Signature": ".signature",
    "Task": ".tasks",
    "TaskEvaluation": ".tasks._run",
    "TaskMetric": ".metrics",
    "TaskProfile": ".tasks",
    "evaluate_task": ".tasks._run",
    "get_task": ".tasks",
    "list_tasks": ".tasks",
    "parse_yes_no": ".tasks",
    "score_answer": ".tasks",
    "VQADataset": ".load.vqa",
    "VQAAccuracy": ".metrics",
    "VQAEvaluation": ".evaluate",
    "bootstrap_ci": ".stats",
    "build_circular": ".mmbench",
    "compare_aokvqa": ".compare",
    "compare_vqa": ".compare",
    "diagnose": ".extract",
    "diff_results": ".stats",
    "evaluate_mmbench": ".mmbench",
    "evaluate_vqa": ".evaluate",
    "evaluation_ci": ".stats",
    "exact_match": ".score.exact_match",
    "exact_match_any": ".score.exact_match",
    "explain": ".explain",
    "extract_answer": ".extract",
    "extract_choice": ".mmbench",
    "get_profile": ".profiles",
    "list_extractors": ".mmbench",
    "list_profiles": ".profiles",
    "load_annotations": ".load.vqa",
    "load_results": ".load.vqa",
    "normalize_answer": ".score.accuracy",
    "paired_test": ".stats",
    "reference_answer": ".score.exact_match",
    "vqa_accuracy": ".score.accuracy",
}

__all__ = [
    "AnswerCountWarning",
    "Comparison",
    "Explanation",
    "IdTypeWarning",
    "InputError",
    "LeaveOneOutWarning",
    "MMBenchResult",
    "MissingDependencyError",
    "MissingPredictionError",
    "Profile",
    "Signature",
    "Task",
    "TaskEvaluation",
    "TaskMetric",
    "TaskProfile",
    "UnknownNameError",
    "VQAAccuracy",
    "VQADataset",
    "VQAEvaluation",
    "VqaMetricsError",
    "VqaMetricsWarning",
    "__version__",
    "bootstrap_ci",
    "build_circular",
    "compare_aokvqa",
    "compare_vqa",
    "diagnose",
    "diff_results",
    "evaluate_mmbench",
    "evaluate_task",
    "evaluate_vqa",
    "evaluation_ci",
    "exact_match",
    "exact_match_any",
    "explain",
    "extract_answer",
    "extract_choice",
    "get_profile",
    "get_task",
    "list_extractors",
    "list_profiles",
    "list_tasks",
    "load_annotations",
    "load_results",
    "normalize_answer",
    "paired_test",
    "parse_yes_no",
    "reference_answer",
    "score_answer",
    "vqa_accuracy",
]


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'vqametrics' has no attribute {name!r}")
    value = getattr(_importlib.import_module(module, __name__), name)
    globals()[name] = value
    _unshadow()
    return value


def _unshadow() -> None:
    # Importing the submodule ``vqametrics.explain`` binds the *module* to the package's
    # ``explain`` attribute, hiding the function of the same name: put the function back.
    g = globals()
    for key in _LAZY:
        current = g.get(key)
        if isinstance(current, _types.ModuleType) and current.__name__ == f"{__name__}.{key}":
            g[key] = getattr(current, key)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
