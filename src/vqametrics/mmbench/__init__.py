"""MMBench multiple-choice scoring: answer extraction, CircularEval and VanillaEval.

Spec: ``mmbench.md`` (shared spec). The pipeline is ``load`` (files, validation) ->
``extract`` (heuristic letter extraction, four reference lineages) -> ``judge`` (optional LLM
fallback) -> ``circular`` (CircularEval / VanillaEval) -> ``report`` (tables, text, JSON).
"""

from __future__ import annotations

from .circular import MMBenchResult, build_circular, circular_copies, evaluate_mmbench
from .extract import (
    ExtractionResult,
    Extractor,
    explain_choice,
    extract_choice,
    get_extractor,
    list_extractors,
)
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
    "evaluate_mmbench",
    "explain_choice",
    "extract_choice",
    "get_extractor",
    "list_extractors",
    "load_mmbench_tsv",
    "load_predictions",
    "resolve_choice",
]
