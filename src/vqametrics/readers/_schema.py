"""msgspec structs for the fast loaders: only the fields vqametrics keeps, each type-checked.

Imported lazily (by :mod:`vqametrics.readers.vqa`), so that ``import vqametrics`` does not load
msgspec. No ``from __future__ import annotations`` here: msgspec reads these annotations at
run time.
"""

from typing import Annotated

import msgspec
from msgspec import UNSET, Meta, Struct, UnsetType

__all__ = [
    "ANNOTATIONS_ANSWERS_RAW",
    "ANNOTATIONS_HEAD",
    "ANNOTATIONS_RAW",
    "ANSWER_BATCH",
    "QUESTIONS",
    "RESULTS",
    "UNSET",
]

# orjson reads integers in [-2**63, 2**64) as int and larger ones as float; the fast path takes
# int64 only (msgspec bounds must fit in one); the rest falls back to the slow path
JsonInt = Annotated[int, Meta(ge=-(2**63), le=2**63 - 1)]


class Answer(Struct, gc=False):
    answer: str
    answer_id: JsonInt | UnsetType = UNSET


class QuestionHead(Struct, gc=False):
    """A question without its answers (skipped, though still parsed as JSON, by the decoder)."""

    question_id: JsonInt | str
    question_type: str | None = None
    answer_type: str | None = None
    multiple_choice_answer: str | None = None
    image_id: JsonInt | str | UnsetType | None = UNSET
    image: JsonInt | str | None = None


class QuestionHeadRaw(QuestionHead, kw_only=True, gc=False):
    """A question with its answers kept as raw JSON (validated, not yet decoded): they are
    decoded a batch at a time, so that two million answer records never exist at once."""

    answers: msgspec.Raw


class QuestionAnswersRaw(Struct, gc=False):
    """Only a question's answers, as raw JSON (every other field skipped)."""

    answers: msgspec.Raw


class AnnotationsRaw(Struct, gc=False):
    annotations: list[QuestionHeadRaw]


class AnnotationsAnswersRaw(Struct, gc=False):
    annotations: list[QuestionAnswersRaw]


class AnnotationsHead(Struct, gc=False):
    annotations: list[QuestionHead]


class Prediction(Struct, gc=False):
    question_id: JsonInt | str
    answer: str


class QuestionEntry(Struct, gc=False):
    question_id: JsonInt | str


class Questions(Struct, gc=False):
    info: msgspec.Raw
    task_type: msgspec.Raw
    data_type: msgspec.Raw
    data_subtype: msgspec.Raw
    license: msgspec.Raw
    questions: list[QuestionEntry]


# a whole annotations file in one process (``readers._bulk._sequential_parts``): the questions
# with their answers kept raw, which are then decoded ANSWER_BATCH questions at a time
# (``readers._bulk._batched_answers``) — together every field of a question checked once
ANNOTATIONS_RAW = AnnotationsRaw | list[QuestionHeadRaw]
ANSWER_BATCH = list[list[Answer]]
# the split decode of a large file (``readers._bulk._split_annotations``): this process checks
# ANNOTATIONS_HEAD, the forked child ANNOTATIONS_ANSWERS_RAW and then the batches; each field is
# checked by exactly one of them, and both check the same shape around them
ANNOTATIONS_HEAD = AnnotationsHead | list[QuestionHead]
ANNOTATIONS_ANSWERS_RAW = AnnotationsAnswersRaw | list[QuestionAnswersRaw]
RESULTS = list[Prediction]
QUESTIONS = Questions
