"""MMBench answer extraction: the letter heuristics now live in :mod:`vqametrics.kernels.choice`.

Re-exported here so that ``vqametrics.mmbench.extract`` keeps its names.
"""

from __future__ import annotations

from ..kernels.choice.heuristics import (
    API_FAILURE,
    DEFAULT_EXTRACTOR,
    REFUSAL_PHRASES,
    STAGES,
    ExtractionResult,
    Extractor,
    explain_choice,
    extract_choice,
    get_extractor,
    list_extractors,
)

__all__ = [
    "API_FAILURE",
    "DEFAULT_EXTRACTOR",
    "REFUSAL_PHRASES",
    "STAGES",
    "ExtractionResult",
    "Extractor",
    "explain_choice",
    "extract_choice",
    "get_extractor",
    "list_extractors",
]
