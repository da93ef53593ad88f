"""An LLM judge client (OpenAI-compatible chat completions) and what it is asked.

Used only on request (``--judge-url``): MMBench option matching where the heuristics fail,
yes/no reading of POPE/MME answers the rules leave ``other``, and an open-ended equivalence
metric reported beside, never instead of, the rule-based VQA score. Cached by (model, prompt),
bounded concurrency, retries with backoff (``Retry-After`` honoured, a total wait bound); the
judge model is named in the signature. A run in which items got no reply fails
(:class:`UnjudgedError`) unless allowed, and then the signature says how many.
"""

from __future__ import annotations

from . import client as _client
from . import uses as _uses
from .client import *  # noqa: F403  (the names are listed once, in the modules' __all__)
from .uses import *  # noqa: F403

__all__ = sorted({*_client.__all__, *_uses.__all__})
