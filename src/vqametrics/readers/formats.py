"""What ``--input-format`` (``input_format=``, ``format=``) may name: a file format, a toolkit
layout, or both.

The two are independent: a LLaVA answers file may be ``.jsonl`` or ``.json.gz``, a VLMEvalKit
sheet ``.xlsx``, ``.csv`` or ``.tsv``. So the option takes a *file format* (how the bytes are
parsed: ``json``, ``jsonl``, ``csv``, ``tsv``, ``xlsx``), a *layout* (which columns hold the id
and the answer: ``official``, ``llava``, ``vlmevalkit``, ``lmms-eval``, ``gqa``, ``docvqa``,
``vizwiz``), or one of each joined by a comma (``vlmevalkit,csv``). Whatever is not forced is
recognized as usual: the file format from the content (the extension as a hint), the layout from
the columns. A forced layout skips recognition; a file without its columns is an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from ..core.exceptions import InputError

__all__ = [
    "FILE_FORMATS",
    "INPUT_FORMAT_CHOICES",
    "LAYOUTS",
    "PREDICTION_LAYOUTS",
    "InputFormat",
    "describe_choices",
    "parse_input_format",
]

#: How the bytes of a file are parsed.
FILE_FORMATS = ("json", "jsonl", "csv", "tsv", "xlsx")

#: (layout name, id column, answer column, columns that must also be present), in the order
#: recognition tries them; the last row is LLaVA without ``prompt`` (tried after the others)
PREDICTION_LAYOUTS: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("vlmevalkit", "index", "prediction", ()),
    ("lmms-eval-samples", "doc_id", "filtered_resps", ()),
    ("llava-answers", "question_id", "text", ("prompt",)),
    ("official", "question_id", "answer", ()),
    ("gqa-predictions", "questionId", "prediction", ()),
    ("docvqa-submission", "questionId", "answer", ()),
    ("vizwiz-results", "image", "answer", ()),
    ("llava-answers", "question_id", "text", ()),
)

#: The layout names users give → the recognized layout they force. Forcing ``llava`` needs
#: only ``question_id`` and ``text`` (``prompt`` is what recognition looks for, not a need).
LAYOUTS: Mapping[str, str] = {
    "official": "official",
    "llava": "llava-answers",
    "vlmevalkit": "vlmevalkit",
    "lmms-eval": "lmms-eval-samples",
    "gqa": "gqa-predictions",
    "docvqa": "docvqa-submission",
    "vizwiz": "vizwiz-results",
}

#: Every single name the option takes (a layout and a file format may also be joined by ``,``).
INPUT_FORMAT_CHOICES = (*LAYOUTS, *FILE_FORMATS)


class InputFormat(NamedTuple):
    """A parsed ``--input-format``: the file format and the layout forced (``None``: recognize).
    A named tuple: every read makes one, and a frozen dataclass costs ten times its making at
    import (issue 23)."""

    file_format: str | None = None
    #: the user's layout name (``llava``); :attr:`layout` is the recognized name it forces
    layout_name: str | None = None

    @property
    def layout(self) -> str | None:
        """The recognized layout name forced (``llava-answers``), or ``None``."""
        return None if self.layout_name is None else LAYOUTS[self.layout_name]

    @property
    def columns(self) -> tuple[str, str]:
        """The id and answer columns of the forced layout."""
        assert self.layout is not None
        row = next(r for r in PREDICTION_LAYOUTS if r[0] == self.layout)
        return row[1], row[2]


def describe_choices(layouts: tuple[str, ...] = tuple(LAYOUTS)) -> str:
    """``layouts: official, llava, …; file formats: json, …`` for help texts and messages."""
    return f"layouts: {', '.join(layouts)}; file formats: {', '.join(FILE_FORMATS)}"


def parse_input_format(
    value: str | InputFormat | None, *, layouts: tuple[str, ...] = tuple(LAYOUTS)
) -> InputFormat:
    """Parse ``json``, ``vlmevalkit`` or ``vlmevalkit,csv`` (either order); *layouts* limits
    the layout names accepted (MMBench takes only ``vlmevalkit``).

    >>> parse_input_format("llava,jsonl")
    InputFormat(file_format='jsonl', layout_name='llava')
    """
    if value is None:
        return InputFormat()
    if isinstance(value, InputFormat):
        return value
    if not isinstance(value, str):
        raise InputError(f"input format must be text, got {type(value).__name__}")
    file_format: str | None = None
    layout: str | None = None
    parts = [p.strip().lower() for p in value.split(",")]
    for part in parts:
        if part in FILE_FORMATS and file_format is None:
            file_format = part
        elif part in layouts and layout is None:
            layout = part
        else:
            if part in FILE_FORMATS or part in layouts:
                why = "given twice"
            elif part in LAYOUTS:
                why = "not a layout this reader takes"
            else:
                why = "unknown"
            raise InputError(
                f"input format {value!r}: {part!r} is {why}; give a layout, a file format, "
                f"or one of each joined by ',' (e.g. vlmevalkit,csv); "
                f"{describe_choices(layouts)}"
            )
    if len(parts) > 2:
        raise InputError(f"input format {value!r}: at most a layout and a file format")
    return InputFormat(file_format, layout)
