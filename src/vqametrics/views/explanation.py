"""Explain one question or item: the names of :mod:`vqametrics.pipeline.explanation` (VQA v2's
:func:`explain`) and of :mod:`vqametrics.tasks._explain` (:func:`explain_item` for one item of
any task's run, :func:`explain_answer` for one answer under any task's profile).

The explanations are built below the views (a run explains its items without importing
them); this module keeps the names where the views and the commands look for them.
"""

from __future__ import annotations

from ..pipeline.explanation import Explanation, StepTrace, explain, trace_steps
from ..tasks._explain import ItemExplanation, explain_answer, explain_item

__all__ = [
    "Explanation",
    "ItemExplanation",
    "StepTrace",
    "explain",
    "explain_answer",
    "explain_item",
    "trace_steps",
]
