"""The EvalAI 2017 challenge server's punctuation step (Cloud-CV/VQA-Challenge @ 35c7703).

Cloud-CV rewrote ``processPunctuation`` as a chain of regular expressions; everything else of the
``evalai-2017`` profile is the official-2017 flow (peer-profiles.md §3). The chain is
reproduced step for step, because the way the steps interact *is* the behaviour: each step sees
the output of the previous one, and each regex scans its input once, left to right.

Quirks kept on purpose, so that scores of the 2017 challenge leaderboard can be reproduced:

* QUIRK ascii-only-classes: the "letter" classes are ``[a-zA-Z]`` and ``[a-zA-Z0-9 ]``, ASCII
  only, so punctuation next to a non-ASCII letter survives (``a-İ`` keeps its hyphen).
* QUIRK digit-adjacent-punctuation: a punctuation character between a digit and anything but a
  space or punctuation is kept (``3-4``, ``50/50``); ``7 - eleven.`` becomes ``7 eleven`` while
  the answer ``7-eleven`` stays ``7-eleven``, so they never match.
* QUIRK punctuation-after-final-period: the trailing-run deletion (step 2) runs before the
  period step, so a character after a final period survives (``yes.!`` → ``yes!``,
  ``(no).`` → ``no)``).
* QUIRK no-comma-trigger: unlike the official step, a digit-comma-digit elsewhere in the string
  does not make every punctuation character disappear (only the commas between digits go).
* QUIRK dead-second-letter-pass: the source runs the "punctuation between two letters" pattern
  a second time, replacing with the empty string; after the first pass it can never match (a
  character between two letters would have been matched by the first pass, whose replacements are
  spaces, not letters). It is run anyway, as in the source.
* QUIRK malformed-lookbehind and QUIRK period-limit-32: the final period step is the official one
  (see :mod:`vqametrics.normalize.official`).
"""

from __future__ import annotations

import re

from .official import PERIOD_STRIP, PUNCTUATION

__all__ = ["punctuation_2017"]

_P21 = "".join(re.escape(c) for c in PUNCTUATION)
_S22 = _P21 + " "

# Step 1: the longest leading run of punctuation/spaces that is followed by an ASCII letter,
# digit or space (regex backtracking decides how much of the run that is).
_LEADING = re.compile(rf"\A([{_S22}]+)(?=[a-zA-Z0-9 ])")
# Step 2: a trailing run of punctuation/spaces preceded by an ASCII letter, digit or space.
_TRAILING = re.compile(rf"(?<=[a-zA-Z0-9 ])([{_S22}]+)\Z")
# Step 3: commas between two digits.
_DIGIT_COMMAS = re.compile(r"(?<=\d)(\,)+(?=\d)")
# Step 4: punctuation touching a space or another punctuation character.
_TOUCHING = re.compile(rf"(?<=[{_S22}])([{_P21}])|([{_P21}])(?=[{_S22}])")
# Step 5: runs of ASCII spaces.
_SPACES = re.compile(r"([ ]+)")
# Steps 6 and 7: punctuation between two ASCII letters.
_BETWEEN_LETTERS = re.compile(rf"(?<=[a-zA-Z])([{_P21}])(?=[a-zA-Z])")
_PERIOD_LIMIT = 32  # QUIRK period-limit-32, as in the official step


def punctuation_2017(text: str) -> str:
    """``PUNCT_2017`` (peer-profiles §1.4): the EvalAI 2017 regex punctuation chain."""
    text = _LEADING.sub("", text)
    text = _TRAILING.sub("", text)
    text = _DIGIT_COMMAS.sub("", text)
    text = _TOUCHING.sub(" ", text)
    text = _SPACES.sub(" ", text)
    text = _BETWEEN_LETTERS.sub(" ", text)
    text = _BETWEEN_LETTERS.sub("", text)  # QUIRK dead-second-letter-pass
    return PERIOD_STRIP.sub("", text, _PERIOD_LIMIT)
