"""MMVP (300 = 150 pairs): pairs of images that CLIP sees alike, one question each.

VLMEvalKit's profiles only (no official scorer was read; spec mcq-reasoning.md §13):
``report_acc_MMVP`` — ``Average`` = the item mean, ``Overall`` = the share of pairs with
both items right. The pairing is positional in the index-sorted sheet: rows 2i and 2i+1 must
ask the same question (VLMEvalKit asserts it).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.exceptions import InputError
from . import register_task
from ._base import Aggregate, Item, TaskData, TaskInputs
from ._mcq import ChoiceTask, pair_accuracy, read_mcq, vlmevalkit_profiles

__all__: list[str] = []


def _aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """``report_acc_MMVP``: ``Average = np.mean(hit)``, ``Overall = np.mean(pair both
    right)``.

    QUIRK pair-headline: VLMEvalKit's ``Overall`` is the pair accuracy, not the item mean (its
    ``Average``); kept, that is the number reported as MMVP.
    """
    average, overall = pair_accuracy(scores)
    return Aggregate(
        metrics={"Overall": overall, "Average": average, "n": len(scores)},
        headline="Overall",
        units="fraction",
        digits=4,
    )


def _read(inputs: TaskInputs) -> TaskData:
    data = read_mcq(inputs, fields=("category", "question"), lmms=None)
    items = data.items
    if len(items) % 2:
        raise InputError(
            f"{data.sources[0]}: {len(items)} rows; MMVP pairs rows 2i and 2i+1 (an even count)"
        )
    for i in range(0, len(items), 2):
        a, b = items[i], items[i + 1]
        if a.fields.get("question") != b.fields.get("question"):
            raise InputError(
                f"{data.sources[0]}: rows {a.id!r} and {b.id!r} form a pair but ask different "
                "questions (VLMEvalKit pairs rows 2i, 2i+1 of the index-sorted sheet)"
            )
    return data


TASK = register_task(
    ChoiceTask(
        name="mmvp",
        kind="multiple-choice",
        title="MMVP",
        metric="mmvp-acc",
        description="paired multiple choice: Overall = pairs with both items right",
        profiles=vlmevalkit_profiles(
            "MMVP", _aggregate, reproduces="multiple_choice.py report_acc_MMVP"
        ),
        read=_read,
        layouts=("VLMEvalKit sheet (index, question, A, B, answer, prediction), pairs in order",),
        default_profile="vlmevalkit",
        annotations_optional=True,
        note="no official scorer was read; VLMEvalKit's pair accuracy is the default",
        options=(("judge-record", "VLMEvalKit's _{judge}_result.xlsx (default: beside it)"),),
    )
)
