"""OCR-VQA: questions about book covers, scored by exact match.

No official scorer was published (the paper reports exact-match accuracy), so the default
profile is VLMEvalKit's: strip and lower-case both sides, compare for equality, take the best
of the answers, and average with ``np.mean`` × 100 (spec vqa-family §9.2). Qwen-VL does the same.

lmms-eval has no OCR-VQA task (none in ``lmms_eval/tasks`` at 75571cf, the ``lmms-eval@0.7.3``
our profiles pin; OCR-VQA appears there only as a sub-source name of other benchmarks), so an
lmms-eval samples log given here is refused in one line rather than guessed at.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..core.exceptions import InputError
from ..core.toolkits import LMMS_EVAL as LMMS_EVAL_PIN
from ..core.toolkits import QWEN_VL as QWEN_VL_PIN
from ..core.toolkits import VLMEVALKIT as VLMEVALKIT_PIN
from ..readers.join import results_predictions
from ..readers.layouts import is_vlmevalkit
from ..readers.records import read_records
from . import register_task
from ._base import Aggregate, Item, Task, TaskData, TaskInputs, TaskProfile
from ._common import read_vlmevalkit, vlmevalkit_overall
from ._explain import per_reference
from ._lmms import is_lmms_eval

__all__ = ["exact_match_stripped"]


def exact_match_stripped(prediction: str, references: Sequence[str]) -> float:
    """``max_r [prediction.strip().lower() == r.strip().lower()]`` — 1.0 or 0.0.

    So ``Fiction.`` scores 0 against ``Fiction`` (nothing but whitespace and case is forgiven).
    """
    p = prediction.strip().lower()
    return 1.0 if any(p == r.strip().lower() for r in references) else 0.0


def _aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    return vlmevalkit_overall(items, scores, ("category",))


def _explain(item: Item) -> Mapping[str, Any]:
    def fold(s: str) -> str:
        return s.strip().lower()

    return per_reference(
        item,
        exact_match_stripped,
        prediction_steps=(("strip + lower", fold),),
        reference=fold,
        rule="1 when the stripped, lower-cased strings are equal, else 0",
    )


def _read(inputs: TaskInputs) -> TaskData:
    records = read_records(inputs.results, format=inputs.format, on_duplicate=inputs.on_duplicate)
    if not is_vlmevalkit(records, id_field=inputs.id_field, answer_field=inputs.answer_field):
        preds = results_predictions(records, inputs)
        if is_lmms_eval(preds):
            raise InputError(
                f"{records.source}: an lmms-eval samples log, but lmms-eval has no OCR-VQA task "
                f"(none at lmms-eval@{LMMS_EVAL_PIN.commit}, {LMMS_EVAL_PIN.release}), "
                "so its dataset row and metric are unknown; "
                "ocrvqa reads VLMEvalKit OCRVQA_TEST/TESTCORE spreadsheets"
            )
    return read_vlmevalkit(inputs, fields=("category", "question"), records=records)


VLMEVALKIT = TaskProfile(
    name="vlmevalkit",
    description="VLMEvalKit OCRVQA_TEST/TESTCORE: strip + lower exact match, np.mean × 100",
    reproduces=VLMEVALKIT_PIN.at("vqa_eval.py process_line(method='accuracy')"),
    toolkit=VLMEVALKIT_PIN.token,
    score=exact_match_stripped,
    aggregate=_aggregate,
    explain=_explain,
)

QWEN_VL = replace(
    VLMEVALKIT,
    name="qwen-vl",
    description="Qwen-VL evaluate_exact_match_accuracy: the same strip + lower exact match",
    reproduces=QWEN_VL_PIN.at("eval_mm/evaluate_vqa.py"),
    toolkit=QWEN_VL_PIN.token,
)

TASK = register_task(
    Task(
        name="ocrvqa",
        datasets=("howard-hou/OCR-VQA",),
        title="OCR-VQA",
        metric="ocrvqa-em",
        description="exact match on book-cover questions (no official script; VLMEvalKit's rule)",
        profiles=(VLMEVALKIT, QWEN_VL),
        read=_read,
        layouts=("VLMEvalKit spreadsheet (index, question, answer, prediction, category)",),
        aliases=("ocr-vqa",),
        default_profile="vlmevalkit",
        annotations_optional=True,
        note="no official scorer exists; the default profile is VLMEvalKit's",
    )
)
