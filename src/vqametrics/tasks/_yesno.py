"""What POPE and MME share: VLMEvalKit's yes/no rule and its profile, a yes/no profile built from
how a toolkit reads the answer and the label, and the reading steps of their VLMEvalKit sheets.

VLMEvalKit (``vlmeval/dataset/utils/yorn.py`` ``YOrN_Extraction`` @ e8e78f0) lower-cases the
response, runs its punctuation step and splits on whitespace: ``yes`` without ``no`` is
``Yes``, ``no`` without ``yes`` is ``No``, anything else ``Unknown`` — which goes to an LLM
judge when one is configured, and otherwise stays ``Unknown`` and is scored wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any, NamedTuple

from ..core.exceptions import InputError
from ..core.toolkits import VLMEVALKIT as VLMEVALKIT_PIN
from ..readers.records import Records, cell_text
from ._base import Aggregator, Item, TaskData, TaskInputs, TaskProfile
from ._common import not_text_error, read_vlmevalkit

__all__ = [
    "TO_YES_NO",
    "YesNoRule",
    "answer_cell",
    "count_other",
    "parse_vlmevalkit",
    "read_yes_no_sheet",
    "unjudged_notes",
    "unused_notes",
    "vlmevalkit_yes_no_profile",
    "yes_no_profile",
    "yorn_extraction",
]

#: ``Yes``/``No``/``Unknown`` → the ``yes``/``no``/``other`` of
#: :func:`vqametrics.tasks.parse_yes_no`
TO_YES_NO = {"Yes": "yes", "No": "no", "Unknown": "other"}


@lru_cache(maxsize=65536)
def yorn_extraction(text: str) -> str:
    """``YOrN_Extraction``: ``"Yes"``, ``"No"`` or ``"Unknown"`` by word membership.

    So ``No, there is no dog.`` → ``No``, ``NO`` → ``No``, ``Yes, but no`` → ``Unknown``,
    ``I think yes`` → ``Yes``, ``Nope`` → ``Unknown``.
    """
    # the normalizer (and the official tables it loads) only where VLMEvalKit's rule runs
    from ..normalize.vlmevalkit import punctuation_vlm

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


def count_other(items: Sequence[Item], parse: Callable[[str], str] = parse_vlmevalkit) -> int:
    """How many given answers *parse* reads as neither yes nor no (VLMEvalKit's judge cases)."""
    return sum(1 for it in items if it.prediction is not None and parse(it.prediction) == "other")


def unjudged_notes(items: Sequence[Item], what: str, after: str = "") -> list[str]:
    """The note on the *what* (answers, responses) VLMEvalKit would hand to its LLM judge: none
    when every one is yes or no to ``YOrN_Extraction``; *after* ends the note."""
    unknown = count_other(items)
    if not unknown:
        return []
    return [
        f"{unknown} {what}(s) are neither yes nor no to YOrN_Extraction: VLMEvalKit asks an "
        f"LLM judge about them; without one (as here) they are wrong{after}"
    ]


# ---------------------------------------------------------------------------- profiles


class YesNoRule(NamedTuple):
    """How one toolkit reads a yes/no answer (``parse``: ``yes``/``no``/``other``) and its
    label (``truth``), with the words that say so in an explanation: an answer is right when
    the two agree, in every POPE and MME profile. A named tuple: a frozen dataclass costs ten
    times its making at import (issue 23)."""

    parse: Callable[[str], str]
    truth: Callable[[str], str]
    how_parse: str
    how_truth: str

    def score(self, prediction: str, references: Sequence[str]) -> float:
        """1.0 when the parsed answer equals the label as the toolkit reads it."""
        return 1.0 if self.parse(prediction) == self.truth(references[0]) else 0.0


def yes_no_profile(
    rule: YesNoRule,
    aggregate: Aggregator,
    *,
    confusion: bool = True,
    note: str = "",
    **profile: Any,
) -> TaskProfile:
    """A yes/no profile: scored, parsed and explained by *rule* (the explanation with the
    confusion-matrix cell when *confusion*, and *note* at its end), aggregated by *aggregate*;
    *profile* gives the rest (name, description, reproduces, toolkit, …)."""

    def explain(item: Item) -> Mapping[str, Any]:
        from ._explain import yes_no  # only when explaining: a score run need not import it

        return yes_no(
            item,
            rule.parse,
            rule.truth,
            rule.how_parse,
            rule.how_truth,
            confusion=confusion,
            note=note,
        )

    return TaskProfile(
        score=rule.score, aggregate=aggregate, parse=rule.parse, explain=explain, **profile
    )


def vlmevalkit_yes_no_profile(
    rating: str,
    truth: Callable[[str], str],
    how_truth: str,
    aggregate: Aggregator,
    scored: str,
    **profile: Any,
) -> TaskProfile:
    """VLMEvalKit's profile of a yes/no benchmark that ``yorn.py`` *rating* (``POPE_rating``,
    ``MME_rating``) scores: ``YOrN_Extraction`` on the answer, no judge, *truth* (described by
    *how_truth*) on the label; *scored* ends the description, *profile* goes to
    :func:`yes_no_profile`."""
    rule = YesNoRule(
        parse_vlmevalkit,
        truth,
        "YOrN_Extraction: 'yes' or 'no' as a word, not both ('other' otherwise)",
        how_truth,
    )
    return yes_no_profile(
        rule,
        aggregate,
        name="vlmevalkit",
        description=f"VLMEvalKit {rating}: YOrN word membership, no judge; {scored}",
        reproduces=VLMEVALKIT_PIN.at(f"vlmeval/dataset/utils/yorn.py {rating}"),
        toolkit=VLMEVALKIT_PIN.token,
        **profile,
    )


# ---------------------------------------------------------------------------- reading


def unused_notes(inputs: TaskInputs, **why: str) -> tuple[str, ...]:
    """A note for each option of *why* (``annotations=``, ``questions=``) the user gave but the
    layout does not need, saying why."""
    return tuple(
        f"--{option} was not used: {reason}"
        for option, reason in why.items()
        if getattr(inputs, option) is not None
    )


def answer_cell(records: Records, i: int, column: str) -> str | None:
    """Row *i*'s answer in *column* as text, ``None`` when empty: a JSON file's answer must be
    a string (or null), a sheet's number is read as the text it shows."""
    value = records.rows[i].get(column)
    if value is not None and not isinstance(value, str) and records.typed:
        raise not_text_error(records.where(i), column, value)
    return cell_text(value, records.where(i), column=column, allow_missing=True)


def read_yes_no_sheet(
    inputs: TaskInputs,
    records: Records | None,
    *,
    fields: Sequence[str],
    unused: Mapping[str, str],
    error: type[InputError] = InputError,
    item: Callable[[Item, str], Item] | None = None,
) -> TaskData:
    """A VLMEvalKit sheet scored against the labels it carries (``answer``, which must be
    Yes/No: else *error*), keeping *fields* of each row; *item* (given the sheet's name)
    shapes each item after the check; *unused* words the notes for options not used."""
    data = read_vlmevalkit(
        replace(inputs, annotations=None), fields=fields, list_answers=False, records=records
    )
    items = []
    for it in data.items:
        if it.references[0].strip().lower() not in ("yes", "no"):
            raise error(
                f"{data.sources[0]}: index {it.id}: answer {it.references[0]!r} is not Yes/No"
            )
        items.append(it if item is None else item(it, data.sources[0]))
    return replace(data, items=items, notes=data.notes + unused_notes(inputs, **unused))
