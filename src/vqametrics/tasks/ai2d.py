"""AI2D (test 3,088): science-diagram multiple choice ("mask": the option letters are drawn
in the image; "no_mask").

No official scorer exists for generative models (AllenAI ships the data only), so the default
profile is VLMEvalKit's (spec mcq-reasoning.md §5).

- ``vlmevalkit`` / ``vlmevalkit-2025`` / ``vlmevalkit-2024`` — ``can_infer`` of the era, the
  recorded judge, ``report_acc`` (``AI2D_TEST_acc.csv``);
- ``lmms-eval`` — a leading ``X.`` is kept as the letter, otherwise the whole response, then
  ``exact_match`` ignoring case and punctuation (``exact_match,flexible-extract``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.exceptions import InputError
from ..kernels.choice.lmms import ai2d_hit
from . import register_task
from ._base import TaskData, TaskInputs
from ._mcq import (
    doc_answer,
    exact_match_doc,
    lmms_hit_profile,
    read_mcq,
    vlmevalkit_choice_task,
)

__all__: list[str] = []


def _ai2d_options(doc: Mapping[str, Any]) -> dict[str, str]:
    opts = doc.get("options")
    if not isinstance(opts, list):
        return {}
    return {chr(ord("A") + i): str(o) for i, o in enumerate(opts)}


def _ai2d_gold(doc: Mapping[str, Any], where: str) -> str:
    """``ai2d_doc_to_target``: the letter of ``options[int(answer)]``."""
    try:
        return chr(ord("A") + int(doc_answer(doc, where)))
    except ValueError:
        raise InputError(f"{where}: doc.answer is not an option index") from None


# no doc (lmms-eval 0.4 on): exact_match against target (ai2d_doc_to_target, the gold letter
# for the mcq prompt)
_LMMS_DOC = exact_match_doc(_ai2d_gold, _ai2d_options)


def _read(inputs: TaskInputs) -> TaskData:
    return read_mcq(inputs, fields=("category", "l2-category", "split", "question"), lmms=_LMMS_DOC)


LMMS_EVAL = lmms_hit_profile(
    "ai2d",
    ai2d_hit,
    "lmms_eval_ai2d",
    "lmms-eval ai2d: leading 'X.' filter, exact match ignoring case/punctuation",
    reproduces="utils.py MultiChoiceRegexFilter + api/metrics.py exact_match_hf_evaluate",
)

TASK = register_task(
    vlmevalkit_choice_task(
        name="ai2d",
        title="AI2D",
        description="science-diagram multiple choice (no official scorer; VLMEvalKit's rule)",
        dataset="AI2D_TEST",
        lmms_eval=LMMS_EVAL,
        read=_read,
        layouts=(
            "VLMEvalKit sheet (index, question, A-D, answer, category, prediction)",
            "VLMEvalKit record {model}_AI2D_TEST_{judge}_result.xlsx (hit, log)",
            "lmms-eval --log_samples with doc (question, options, answer = an index)",
            "lmms-eval --log_samples without doc: target (the gold letter) + exact_match",
        ),
        aliases=("ai2d-test",),
        note="no official scorer exists for generative models; the default is VLMEvalKit's",
    )
)
