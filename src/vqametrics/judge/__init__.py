"""An LLM judge client (OpenAI-compatible chat completions) and what it is asked.

Used only on request (``--judge-url``): MMBench option matching where the heuristics fail,
yes/no reading of POPE/MME answers the rules leave ``other``, and an open-ended equivalence
metric reported beside, never instead of, the rule-based VQA score. Cached by (model, prompt),
bounded concurrency, retries with backoff; the judge model is named in the signature.
"""

from __future__ import annotations

from .client import (
    DEFAULT_KEY_ENV,
    JudgeClient,
    JudgeReply,
    JudgeSettingsError,
    default_cache_dir,
)
from .uses import (
    Judgement,
    JudgeStats,
    build_equivalence_prompt,
    build_yes_no_prompt,
    equivalence_summary,
    judge_equivalence,
    judge_yes_no,
    judge_yes_no_records,
    parse_yes_no_reply,
)

__all__ = [
    "DEFAULT_KEY_ENV",
    "JudgeClient",
    "JudgeReply",
    "JudgeSettingsError",
    "JudgeStats",
    "Judgement",
    "build_equivalence_prompt",
    "build_yes_no_prompt",
    "default_cache_dir",
    "equivalence_summary",
    "judge_equivalence",
    "judge_yes_no",
    "judge_yes_no_records",
    "parse_yes_no_reply",
]
