"""RealWorldQA (765): real-world driving and spatial questions with embedded options.

No official scorer exists (xAI ships the data only), so the default profile is VLMEvalKit's
(spec mcq-reasoning.md §6).

- ``vlmevalkit`` / ``vlmevalkit-2025`` / ``vlmevalkit-2024`` — ``can_infer`` of the era, the
  recorded judge, ``report_acc`` (``RealWorldQA_acc.csv``: ``Overall``);
- ``lmms-eval`` — for a gold A–D, ``extract_mcq_answer`` with choices A–D; for any other gold,
  ``lower().strip().rstrip('.')`` equality; ``exact_match`` is the mean.
"""

from __future__ import annotations

from ..kernels.choice.lmms import realworldqa_hit
from . import register_task
from ._base import TaskData, TaskInputs
from ._mcq import (
    doc_answer,
    exact_match_doc,
    lmms_hit_profile,
    no_options,
    read_mcq,
    vlmevalkit_choice_task,
)

__all__: list[str] = []


# no doc (lmms-eval 0.4 on): realworldqa_process_results's bare exact_match; target =
# doc["answer"], the gold it compares with
_LMMS_DOC = exact_match_doc(doc_answer, no_options)


def _read(inputs: TaskInputs) -> TaskData:
    return read_mcq(inputs, fields=("category", "split", "question"), lmms=_LMMS_DOC)


LMMS_EVAL = lmms_hit_profile(
    "realworldqa",
    realworldqa_hit,
    "lmms_eval_realworldqa",
    "lmms-eval realworldqa: extract_mcq_answer (A-D) or a lower-cased text match",
)

TASK = register_task(
    vlmevalkit_choice_task(
        name="realworldqa",
        title="RealWorldQA",
        description="real-world multiple choice (no official scorer; VLMEvalKit's rule)",
        dataset="RealWorldQA",
        lmms_eval=LMMS_EVAL,
        read=_read,
        layouts=(
            "VLMEvalKit sheet (index, question, A-D, answer, prediction)",
            "VLMEvalKit record {model}_RealWorldQA_{judge}_result.xlsx (hit, log)",
            "lmms-eval --log_samples with doc (question, answer)",
            "lmms-eval --log_samples without doc: target (the answer) + exact_match",
        ),
        aliases=("realworld-qa",),
        note="no official scorer exists (xAI ships data only); the default profile is VLMEvalKit's",
    )
)
