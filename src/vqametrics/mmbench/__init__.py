"""MMBench multiple-choice scoring: answer extraction, CircularEval and VanillaEval.

Spec: ``mmbench.md`` (shared spec). The pipeline is ``load`` (files, validation) ->
``extract`` (heuristic letter extraction, four reference lineages) -> ``judge`` (optional LLM
fallback) -> ``circular`` (CircularEval / VanillaEval) -> ``report`` (tables, text, JSON). The task
(``vqametrics.tasks.mmbench``) runs them; ``evaluate_mmbench`` lives there, one floor up, and
is ``vqametrics.evaluate_mmbench``.
"""

from __future__ import annotations

from ..kernels.choice.heuristics import (
    ExtractionResult,
    Extractor,
    explain_choice,
    extract_choice,
    get_extractor,
    list_extractors,
)
from .circular import MMBenchResult, build_circular, circular_copies
from .judge import Resolution, build_judge_prompt, resolve_choice
from .load import load_mmbench_tsv, load_predictions
from .model import MMBenchData, MMBenchRow, Predictions

__all__ = [
    "ExtractionResult",
    "Extractor",
    "MMBenchData",
    "MMBenchResult",
    "MMBenchRow",
    "Predictions",
    "Resolution",
    "build_circular",
    "build_judge_prompt",
    "circular_copies",
    "explain_choice",
    "extract_choice",
    "get_extractor",
    "list_extractors",
    "load_mmbench_tsv",
    "load_predictions",
    "resolve_choice",
]


def __getattr__(name: str) -> object:
    """``evaluate_mmbench`` moved up to the task floor: say where, instead of a bare
    ``AttributeError`` (this package may not import the tasks)."""
    if name == "evaluate_mmbench":
        raise AttributeError(
            "vqametrics.mmbench.evaluate_mmbench moved: use vqametrics.evaluate_mmbench "
            "(or vqametrics.evaluate('mmbench', ...))"
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
