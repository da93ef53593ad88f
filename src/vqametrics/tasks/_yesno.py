"""Yes/no extraction shared by POPE and MME: VLMEvalKit's word-membership rule.

VLMEvalKit (``vlmeval/dataset/utils/yorn.py`` ``YOrN_Extraction`` @ e8e78f0) lower-cases the
response, runs its punctuation step and splits on whitespace: ``yes`` without ``no`` is
``Yes``, ``no`` without ``yes`` is ``No``, anything else ``Unknown`` — which goes to an LLM
judge when one is configured, and otherwise stays ``Unknown`` and is scored wrong.
"""

from __future__ import annotations

from functools import lru_cache

from ..normalize.vlmevalkit import punctuation_vlm

__all__ = ["TO_YES_NO", "parse_vlmevalkit", "yorn_extraction"]

#: ``Yes``/``No``/``Unknown`` → the ``yes``/``no``/``other`` of
#: :func:`vqametrics.tasks.parse_yes_no`
TO_YES_NO = {"Yes": "yes", "No": "no", "Unknown": "other"}


@lru_cache(maxsize=65536)
def yorn_extraction(text: str) -> str:
    """``YOrN_Extraction``: ``"Yes"``, ``"No"`` or ``"Unknown"`` by word membership.

    So ``No, there is no dog.`` → ``No``, ``NO`` → ``No``, ``Yes, but no`` → ``Unknown``,
    ``I think yes`` → ``Yes``, ``Nope`` → ``Unknown``.
    """
    words = punctuation_vlm(text.lower()).split()
    has_yes = "yes" in words
    has_no = "no" in words
    if has_yes and not has_no:
        return "Yes"
    if has_no and not has_yes:
        return "No"
    return "Unknown"


def parse_vlmevalkit(text: str) -> str:
    """VLMEvalKit's ``YOrN_Extraction`` as ``yes``/``no``/``other`` (``Unknown`` → other)."""
    return TO_YES_NO[yorn_extraction(text)]
