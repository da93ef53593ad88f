"""The in-memory form of a VQA annotations file: columns of questions and their answers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["QuestionId", "VQADataset"]

QuestionId = int | str


@dataclass(frozen=True, eq=False)
class VQADataset:
    """Questions with their human answers, column by column, in file order."""

    source: str
    question_ids: list[QuestionId]
    answers: list[list[str]]
    #: per question: record groups of the official leave-one-out, or None (all records differ)
    groups: list[list[int] | None]
    question_types: list[str | None]
    answer_types: list[str | None]
    image_ids: list[Any]
    multiple_choice_answers: list[str | None]
    #: True when answers were plain strings (no records at all)
    plain_answers: bool = False
    index: dict[QuestionId, int] = field(default_factory=dict, repr=False)
    #: the answers interned as integer codes (``_answers.AnswerCodes``), made on first use;
    #: like ``index`` it assumes the columns are not mutated afterwards
    _answer_codes: Any = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.question_ids)

    def __repr__(self) -> str:
        return f"<VQADataset {self.source}: {len(self.question_ids)} questions>"

    @property
    def has_question_types(self) -> bool:
        return any(t is not None for t in self.question_types)

    @property
    def has_answer_types(self) -> bool:
        return any(t is not None for t in self.answer_types)
