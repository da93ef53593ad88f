"""BLINK: perception tasks posed as multiple choice (VLMEvalKit's ``BLINK``).

VLMEvalKit's profiles only (spec mcq-reasoning.md §13): the generic vanilla MCQ path and
``report_acc`` over ``category``. Its judge prompt is BLINK's own (it lists ``(Z) Failed`` and
treats refusals as Z); recorded replies are parsed by the same ``can_infer``.
``BLINK_circular`` (CircularEval) is not read here.
"""

from __future__ import annotations

from . import register_task
from ._base import TaskData, TaskInputs
from ._mcq import ChoiceTask, read_mcq, vlmevalkit_profiles

__all__: list[str] = []


def _read(inputs: TaskInputs) -> TaskData:
    return read_mcq(inputs, fields=("category", "l2-category", "split", "question"), lmms=None)


TASK = register_task(
    ChoiceTask(
        name="blink",
        kind="multiple-choice",
        title="BLINK",
        metric="blink-acc",
        description="perception multiple choice (VLMEvalKit's generic MCQ and report_acc)",
        profiles=vlmevalkit_profiles("BLINK"),
        read=_read,
        layouts=(
            "VLMEvalKit sheet (index, question, A-D, answer, category, prediction)",
            "VLMEvalKit record {model}_BLINK_{judge}_result.xlsx (hit, log)",
        ),
        default_profile="vlmevalkit",
        annotations_optional=True,
        note="no official scorer was read; the default profile is VLMEvalKit's",
        options=(("judge-record", "VLMEvalKit's _{judge}_result.xlsx (default: beside it)"),),
    )
)
