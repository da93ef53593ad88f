"""lmms-eval 0.7.3's answer processing (EvolvingLMMs-Lab/lmms-eval @ 75571cf).

Two building blocks (peer-profiles.md §1.2, §1.5):

* :func:`punctuation_lmms` — ``PUNCT_lmms``: the official punctuation step with lmms-eval's
  comma trigger ``(?<=\\d)(\\,)+(?=\\d)``.
* :func:`evalai_prep` — ``EVALAI_PREP``: the prelude of ``EvalAIAnswerProcessor.__call__`` (a copy
  of MMF's processor) used by the TextVQA, VizWiz and OK-VQA tasks; also available as the four
  traced sub-steps :func:`lowercase_first`, :func:`drop_commas_question_marks`,
  :func:`split_possessive` and :func:`prep_cleanup`.

Quirks kept on purpose, so that numbers published with lmms-eval can be reproduced:

* QUIRK multi-comma-trigger: the trigger also fires on two or more commas between digits, so
  ``1,,000`` becomes ``1000`` (official: ``1 000``); when it fires, all 21 punctuation
  characters are deleted rather than spaced, as in the official step.
* QUIRK commas-vanish-first (TextVQA family): every comma and every ``?`` is deleted before the
  punctuation step, so ``black and whi,te`` matches ``black and white``, ``x?y`` becomes ``xy``
  (official ``x y``), and the comma trigger can never fire in that profile.
* QUIRK possessive-split (TextVQA family): ``'s`` becomes `` 's`` (ASCII apostrophe only), so
  ``man's`` is two tokens ``man 's``; the typographic ``’s`` is untouched.
* QUIRK malformed-lookbehind and QUIRK period-limit-32: the period step is the official one.
"""

from __future__ import annotations

import re

from .official import PERIOD_STRIP, clean, make_punctuation

__all__ = [
    "LMMS_COMMA_TRIGGER",
    "drop_commas_question_marks",
    "evalai_prep",
    "lowercase_first",
    "prep_cleanup",
    "punctuation_lmms",
    "split_possessive",
]

#: ``EvalAIAnswerProcessor.COMMA_STRIP``: one or more commas between two digits.
LMMS_COMMA_TRIGGER: re.Pattern[str] = re.compile(r"(?<=\d)(\,)+(?=\d)")

_punctuation_lmms = make_punctuation(LMMS_COMMA_TRIGGER, PERIOD_STRIP)


def punctuation_lmms(text: str) -> str:
    """``PUNCT_lmms``: the official punctuation step with QUIRK multi-comma-trigger."""
    return _punctuation_lmms(text)


def lowercase_first(text: str) -> str:
    """``str.lower()`` before anything else (no whitespace change)."""
    return text.lower()


_DROP_COMMA_QMARK = str.maketrans("", "", ",?")


def drop_commas_question_marks(text: str) -> str:
    """QUIRK commas-vanish-first: delete every ``,`` and every ``?``."""
    return text.translate(_DROP_COMMA_QMARK)


def split_possessive(text: str) -> str:
    """QUIRK possessive-split: ``'s`` → `` 's`` (ASCII apostrophe only)."""
    return text.replace("'s", " 's")


def prep_cleanup(text: str) -> str:
    """``strip()``, then the official whitespace cleanup (``\\n``/``\\t`` to spaces, strip)."""
    return clean(text.strip())


def evalai_prep(text: str) -> str:
    """``EVALAI_PREP`` (peer-profiles §1.5): the four sub-steps above, in order."""
    return prep_cleanup(split_possessive(drop_commas_question_marks(text.lower())))
