"""An LLM judge client (OpenAI-compatible chat completions) and what it is asked.

Used only on request (``--judge-url``): MMBench option matching where the heuristics fail,
yes/no reading of POPE/MME answers the rules leave ``other``, and an open-ended equivalence
metric reported beside, never instead of, the rule-based VQA score. Cached by (model, prompt),
bounded concurrency, retries with backoff (``Retry-After`` honoured, a total wait bound); the
judge model is named in the signature. A run in which items got no reply fails
(:class:`UnjudgedError`) unless allowed, and then the signature says how many.
"""

from __future__ import annotations

from .client import (
    DEFAULT_KEY_ENV,
    JudgeCacheWarning,
    JudgeClient,
    JudgeReply,
    JudgeSettingsError,
    UnjudgedError,
    default_cache_dir,
)
from .uses import (
    Judgement,
    JudgeStats,
    build_equivalence_prompt,
    build_yes_no_prompt,
    check_judged,
    equivalence_summary,
    judge_equivalence,
    judge_signature_value,
    judge_yes_no,
    judge_yes_no_records,
    parse_yes_no_reply,
)

__all__ = [
    "DEFAULT_KEY_ENV",
    "JudgeCacheWarning",
    "JudgeClient",
    "JudgeReply",
    "JudgeSettingsError",
    "JudgeStats",
    "Judgement",
    "UnjudgedError",
    "build_equivalence_prompt",
    "build_yes_no_prompt",
    "check_judged",
    "default_cache_dir",
    "equivalence_summary",
    "judge_equivalence",
    "judge_signature_value",
    "judge_yes_no",
    "judge_yes_no_records",
    "parse_yes_no_reply",
]
