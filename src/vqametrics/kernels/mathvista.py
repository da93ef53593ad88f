r"""MathVista after the extraction: normalise the extracted answer, then compare it with the gold.

The only judge step of MathVista is the extraction (a GPT call that turns the response into an
answer string). Everything after it is deterministic and differs by toolkit (spec
``mcq-reasoning.md`` §9); each function here is one toolkit's rule, pure, on one problem:

============================  ==================================================================
function                      reproduces
============================  ==================================================================
:func:`normalize_official`    ``lupantech/MathVista@53d5258 evaluation/calculate_score.py``
                              ``normalize_extracted_answer`` (HEAD, file e999481, 2024-11-28);
                              ``round_precision_as_given=True``: the same file before e999481
                              (fb7fae1, 2024-03) with its rounding bug
:func:`normalize_lmms_eval`   ``lmms-eval@75571cf tasks/mathvista/mathvista_evals.py``
                              ``MathVistaEvaluator.normalize_extracted_answer``
:func:`vlmevalkit_post_check` ``VLMEvalKit@e8e78f0 vlmeval/dataset/utils/mathvista.py``
                              ``post_check``
============================  ==================================================================

Official, per answer type (``x`` the extraction):

.. code-block:: text

    multi_choice  x.strip(); "(b)" anywhere -> "B"; a letter inside the choice range -> that
                  choice; otherwise the choice nearest by Levenshtein distance (first on ties)
    integer       str(int(float(x)))                  # truncates: 2.7 -> "2"
    float         str(round(float(x), int(precision)))
    list          str(x)
    correct       prediction == answer                # plain string equality

A value that the conversion refuses becomes ``None`` (scored wrong).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, cast

from ..core.exceptions import InputError

__all__ = [
    "MathVistaCrash",
    "answer_option",
    "levenshtein",
    "lmms_eval_equal",
    "nearest_choice",
    "normalize_lmms_eval",
    "normalize_official",
    "official_equal",
    "vlmevalkit_post_check",
    "vlmevalkit_prefetch",
]

_PAREN_LETTER = re.compile(r"\(([a-zA-Z])\)")


class MathVistaCrash(InputError):
    """The official scorer raises on this problem (it would stop the whole run there)."""


def levenshtein(a: str, b: str) -> int:
    """Edit distance with unit costs (insert, delete, substitute) over code points: what
    ``Levenshtein.distance`` computes."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def nearest_choice(text: str, choices: Sequence[str]) -> str:
    """The choice with the smallest Levenshtein distance to *text*, the first on ties
    (``get_most_similar``). So an empty text lands on the shortest choice."""
    distances = [levenshtein(text, c) for c in choices]
    return choices[distances.index(min(distances))]


def _multi_choice(extraction: Any, choices: Sequence[str] | None) -> str:
    text = extraction.strip() if isinstance(extraction, str) else str(extraction)
    letters = _PAREN_LETTER.findall(text)
    if letters:
        text = letters[0].upper()
    if choices is None:
        raise MathVistaCrash("a multi_choice problem without choices (the scorer raises)")
    sequential = [chr(ord("A") + i) for i in range(len(choices))]
    if text in sequential:
        return choices[sequential.index(text)]
    if not choices:
        raise MathVistaCrash("a multi_choice problem with an empty choice list (min() raises)")
    # QUIRK levenshtein-fallback: anything that is not exactly a letter in range goes to the
    # nearest choice by edit distance, so "b", "B." and "The answer is B" are not B; kept
    # because every published official number is computed so.
    return nearest_choice(text, choices)


#: what :func:`_by_answer_type` returns for an answer type it has no branch for
_NO_BRANCH: Any = object()


def _by_answer_type(
    extraction: Any, answer_type: str | None, precision: Any, as_given: bool
) -> Any:
    """The integer, float and list branches the official function and lmms-eval's copy share:
    the normalized text, ``None`` where the cast raises, :data:`_NO_BRANCH` for another type.

    QUIRK float-precision-2024 (before e999481, and lmms-eval): with *as_given*, ``round(x,
    2.0)`` raises TypeError, caught, so the problem is None; kept under official-2024 and
    lmms-eval because the numbers published with them were computed so."""
    if answer_type == "integer":
        try:
            return str(int(float(extraction)))
        except Exception:
            return None
    if answer_type == "float":
        try:
            digits = precision if as_given else int(precision)
            return str(round(float(extraction), digits))
        except Exception:
            return None
    if answer_type == "list":
        return str(extraction)
    return _NO_BRANCH


def normalize_official(
    extraction: Any,
    choices: Sequence[str] | None,
    question_type: str | None,
    answer_type: str | None,
    precision: Any,
    *,
    ignore_empty_extractions: bool = False,
    round_precision_as_given: bool = False,
) -> str | None:
    """The official ``normalize_extracted_answer``: the prediction string, or ``None``.

    ``round_precision_as_given=True`` is the code before e999481 (2024-03 to 2024-11):
    ``round(x, precision)`` without ``int()``, which raises for the dataset's float precision
    (``2.0``), so every float problem becomes ``None`` there; an int precision works.

    Raises :class:`MathVistaCrash` where the official function raises: a ``free_form`` problem
    whose answer type is ``text`` has no branch (``UnboundLocalError``).
    """
    if question_type == "multi_choice":
        if ignore_empty_extractions and not (
            extraction.strip() if isinstance(extraction, str) else str(extraction)
        ):
            return None
        return _multi_choice(extraction, choices)
    value = _by_answer_type(extraction, answer_type, precision, round_precision_as_given)
    if value is not _NO_BRANCH:
        return cast("str | None", value)
    # QUIRK text-free-form-crash: no branch assigns the result, so the official function
    # raises UnboundLocalError; reproduced as an error (never a number), naming the problem.
    raise MathVistaCrash(
        f"the official MathVista scorer raises UnboundLocalError on question_type "
        f"{question_type!r} with answer_type {answer_type!r} (no normalisation branch)"
    )


def official_equal(prediction: str | None, answer: Any) -> bool:
    """``safe_equal``: plain ``==``, so ``"1.4"`` is not ``"1.40"`` and ``"14"`` is not ``14``."""
    return bool(prediction == answer)


def normalize_lmms_eval(
    extraction: Any,
    choices: Sequence[str] | None,
    question_type: str | None,
    answer_type: str | None,
    precision: Any,
) -> Any:
    """lmms-eval's copy of the 2023 official function: ``round(x, precision)`` as given (so a
    float precision makes every float problem ``None``), and no crash for ``text``: the
    extraction comes back unchanged."""
    if question_type == "multi_choice":
        return _multi_choice(extraction, choices)
    # QUIRK float-precision-2024 (see normalize_official): lmms-eval still has it.
    value = _by_answer_type(extraction, answer_type, precision, True)
    return extraction if value is _NO_BRANCH else value


def lmms_eval_equal(prediction: Any, answer: Any) -> bool:
    """lmms-eval's ``safe_equal``: ``str(p).strip() == str(a).strip()`` (so ``None`` equals the
    gold text ``"None"``)."""
    return str(prediction).strip() == str(answer).strip()


def answer_option(answer: Any, choices: Sequence[str] | None) -> str | None:
    """The letter of *answer* among *choices* (VLMEvalKit's ``answer_option`` column)."""
    if not choices:
        return None
    for i, c in enumerate(choices):
        if c == answer:
            return chr(ord("A") + i)
    return None


def _can_infer(response: Any, choices: Sequence[str]) -> str | None:
    # VLMEvalKit@e8e78f0 vlmeval/utils/matching_util.py can_infer = the MMBench HEAD rule
    from .choice.heuristics import get_extractor

    options = {chr(ord("A") + i): str(c) for i, c in enumerate(choices)}
    return get_extractor("vlmevalkit")(str(response), options).letter


def _is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def vlmevalkit_post_check(
    res: Any,
    answer: Any,
    question_type: str | None,
    answer_type: str | None,
    choices: Sequence[str] | None,
    answer_letter: str | None = None,
) -> bool:
    """VLMEvalKit's ``post_check(line)`` on the judge's ``res``.

    multi_choice: ``can_infer(res, {A: choice0, ...}) == answer_option``; integer:
    ``int(res) == int(answer)``; float: ``float(res) == float(answer)``, exact; list and text:
    always wrong (``str(None)`` is compared). A value ``int``/``float`` refuses is wrong.
    """
    if question_type == "multi_choice":
        letter = answer_letter or answer_option(answer, choices)
        got = _can_infer("nan" if _is_missing(res) else res, list(choices or ()))
        return got is not None and got == letter
    try:
        if answer_type == "integer":
            # QUIRK exact-int: int("14.0") and int("2.7") raise ValueError, so both are wrong
            # (a cell the sheet holds as the number 2.7 is int()-ed to 2, as pandas would)
            return _int(res) == _int(answer)
        if answer_type == "float":
            # QUIRK exact-float: no rounding to the precision, so 0.64 is not 0.6
            return _float(res) == _float(answer)
    except ValueError:
        return False
    # QUIRK list-text-always-wrong: post_check compares str(None) (res is never set for these
    # answer types) with the answer, so every list and text answer is wrong
    return str(None) == str(answer)


def _int(value: Any) -> int:
    if _is_missing(value):
        raise ValueError("NaN")
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float):
        return int(value)
    return int(str(value))


def _float(value: Any) -> float:
    if value is None:
        raise ValueError("None")
    if isinstance(value, int | float):
        return float(value)
    return float(str(value))


def vlmevalkit_prefetch(
    prediction: Any,
    answer: Any,
    question_type: str | None,
    answer_type: str | None,
    choices: Sequence[str] | None,
    answer_letter: str | None = None,
) -> Any:
    """``post_check(line, prefetch=True)``: the value VLMEvalKit keeps without calling the judge
    (a letter for multi_choice, else the parsed number when it equals the answer), or ``False``.

    QUIRK falsy-prefetch: a prefetched ``0`` is falsy, so VLMEvalKit calls the judge anyway.
    """
    if question_type == "multi_choice":
        got = _can_infer(prediction, list(choices or ()))
        return got if got is not None else False
    try:
        if answer_type == "integer":
            res: Any = _int(prediction)
            return res if res == _int(answer) else False
        if answer_type == "float":
            res = _float(prediction)
            return res if res == _float(answer) else False
    except ValueError:
        return False
    return "None" if str(None) == str(answer) else False
