"""Errors and warnings raised by vqametrics.

::

    VqaMetricsError (Exception)
    ├── InputError (+ ValueError)      bad input data: names the file, line or question id
    │   ├── MissingPredictionError      a question has no prediction
    │   └── ArgumentTypeError (+ TypeError)  a public function given an argument of a wrong type
    ├── UnknownNameError (+ ValueError) an unknown profile, extractor or metric name
    └── MissingDependencyError (+ ImportError)  an optional extra is not installed

    VqaMetricsWarning (UserWarning)
    ├── LeaveOneOutWarning              answer records without answer_id (official collapse)
    ├── IdTypeWarning                   "1000" and 1000 matched across files
    ├── AnswerCountWarning              questions whose answer count is not 10
    └── TaskMismatchWarning             a file named as another task's run (``x_MME.xlsx``)
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Iterator
from contextvars import ContextVar

#: the public error tree (re-exported whole by :mod:`vqametrics.errors`)
__all__ = [
    "AnswerCountWarning",
    "ArgumentTypeError",
    "IdTypeWarning",
    "InputError",
    "LeaveOneOutWarning",
    "MissingDependencyError",
    "MissingPredictionError",
    "TaskMismatchWarning",
    "UnknownNameError",
    "VqaMetricsError",
    "VqaMetricsWarning",
]

#: True while the command line runs: messages then name options as ``--allow-missing``; a
#: Python caller reads ``allow_missing=True`` instead (same message, the caller's language).
_COMMAND_LINE: ContextVar[bool] = ContextVar("vqametrics_command_line", default=False)

#: How a message's command-line option reads for a Python caller (``evaluate``'s keyword
#: arguments and the tasks' own options); an option not here (``--out``, ``--json``, lmms-eval's
#: ``--log_samples``) exists only on a command line and is left as written.
_API_SPELLING = {
    "--allow-missing": "allow_missing=True",
    "--ignore-extra": "ignore_extra=True",
    "--on-duplicate last": "on_duplicate='last'",
    "--ci": "ci=True",
    "--input-format": "format= (input_format= in evaluate_vqa)",
    # the judge's settings are a JudgeClient's arguments (a message names them together)
    "--judge-url URL --judge-model NAME": "judge=JudgeClient(URL, NAME)",
    "--allow-unjudged": "JudgeClient(..., allow_unjudged=True)",
    **{
        f"--{name}": f"{name.replace('-', '_')}="
        for name in (
            "annotations",
            "questions",
            "reported",
            "profile",
            "extract",
            "seed",
            "id-field",
            "answer-field",
            "on-duplicate",
            "choices",
            "fallback-seed",
            "ignore-empty-extractions",
            "judge-prompt",
            "judge-record",
            "metrics",
            "mode",
            "random-fallback",
            "reference-compatible",
            "shots",
            "verdict-field",
            "verdicts",
        )
    },
}


@functools.cache
def _option() -> re.Pattern[str]:
    """Any of the options above as a whole word, longest first, and the word after it: the
    value of an option that takes one (``--profile lmms-eval``), unless a word of the sentence;
    compiled when a message is first read from Python (the command line never needs it:
    issue 23)."""
    names = "|".join(re.escape(k) for k in sorted(_API_SPELLING, key=len, reverse=True))
    value = rf"(?!(?:{_WORDS})\b)[a-z0-9][\w.,-]*[a-z0-9](?![\w'])"
    return re.compile(rf"(?<![\w-])({names})(?![\w-])(?: ({value}))?")


#: the options that take a value: ``--mode vanilla`` reads ``mode='vanilla'`` (the keyword is
#: the one their spelling above starts with)
_VALUED = frozenset(
    ("--profile", "--extract", "--input-format", "--mode", "--metrics", "--on-duplicate")
)

#: words that may follow an option in a sentence
_WORDS = "to|with|is|was|or|and|as|for|of|in|on|does|must|takes|applies|only|names?|were"


def _api_spelling(match: re.Match[str]) -> str:
    option, value = match.group(1), match.group(2)
    text = _API_SPELLING[option]
    if value is not None and option in _VALUED:
        return f"{text.split('=', 1)[0]}={value!r}"
    return text if value is None else f"{text} {value}"


def command_line_spelled() -> bool:
    """Whether messages are read on the command line now (:func:`command_line_spelling`)."""
    return _COMMAND_LINE.get()


def takes_value(option: str) -> bool:
    """Whether the command-line *option* (``--mode``) is given a value in messages."""
    return option in _VALUED


@contextlib.contextmanager
def command_line_spelling() -> Iterator[None]:
    """Within this block, errors name options as the command line spells them."""
    token = _COMMAND_LINE.set(True)
    try:
        yield
    finally:
        _COMMAND_LINE.reset(token)


class VqaMetricsError(Exception):
    """Base class of every error vqametrics raises on purpose.

    Messages are written with the command line's option names (``pass --allow-missing``); a
    Python caller reads the keyword arguments instead (``pass allow_missing=True``).
    """

    def __str__(self) -> str:
        text = super().__str__()
        if _COMMAND_LINE.get() or "--" not in text:
            return text
        return _option().sub(_api_spelling, text)


class InputError(VqaMetricsError, ValueError):
    """Input data is malformed; the message names the file and the question id or line."""


class MissingPredictionError(InputError):
    """A question of the annotations has no prediction."""


class ArgumentTypeError(InputError, TypeError):
    """A public function was given an argument of the wrong type; the message names the
    function and the argument (:mod:`vqametrics.core.arguments`). Also a ``TypeError`` (what
    Python raises for a wrong type) and, as every bad input, an :class:`InputError`."""


class UnknownNameError(VqaMetricsError, ValueError):
    """A name (profile, extractor, metric) is not registered; the message lists the valid ones."""


class MissingDependencyError(VqaMetricsError, ImportError):
    """An optional dependency is not installed; the message gives the ``pip install`` line."""


class VqaMetricsWarning(UserWarning):
    """Base class of the warnings about suspicious but scorable input."""


class LeaveOneOutWarning(VqaMetricsWarning):
    """Answer records lack ``answer_id``; the official leave-one-out collapses equal records."""


class IdTypeWarning(VqaMetricsWarning):
    """Question ids were matched across files although one file spelled them as strings."""


class AnswerCountWarning(VqaMetricsWarning):
    """Some questions do not have 10 answers; the general leave-one-out formula is used."""


class TaskMismatchWarning(VqaMetricsWarning):
    """The results file is named as another task's run (VLMEvalKit's ``<model>_MME.xlsx``
    scored as POPE): it is scored as asked; the message names the command that scores it."""
