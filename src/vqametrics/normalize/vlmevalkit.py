"""VLMEvalKit's punctuation step (open-compass/VLMEvalKit @ e8e78f0, ``vlmeval/smp/misc.py``).

* :func:`punctuation_vlm` — ``PUNCT_vlm`` (peer-profiles.md §1.2): the official punctuation step
  with a *corrected* period pattern ``(?<!\\d)\\.(?!\\d)``.

Quirks kept on purpose, so that numbers published with VLMEvalKit can be reproduced:

* QUIRK corrected-period-rule: a period is removed only when it has no digit on *either* side,
  so ``2.``, ``.5.`` and ``5.%`` keep a period next to a digit and ``2.`` scores 0 against ten
  ``2`` (official: 1.0). The pattern came with commit ``928a95b`` (2025-05-13), which rewrote the
  official regex while silencing a SyntaxWarning; VLMEvalKit before that date behaved like
  ``official`` here.
* QUIRK period-limit-32: VLMEvalKit kept the ``count=re.UNICODE`` slip, so at most 32 periods go.
* The comma trigger is the official ``(\\d)(,)(\\d)``, with the official all-characters-deleted
  consequence (QUIRK punctuation-trigger in :mod:`vqametrics.normalize.official`).
"""

from __future__ import annotations

import re

from .official import COMMA_TRIGGER, make_punctuation

__all__ = ["VLM_PERIOD_STRIP", "punctuation_vlm"]

#: QUIRK corrected-period-rule: a real negative look-behind.
VLM_PERIOD_STRIP: re.Pattern[str] = re.compile(r"(?<!\d)\.(?!\d)")

_punctuation_vlm = make_punctuation(COMMA_TRIGGER, VLM_PERIOD_STRIP)


def punctuation_vlm(text: str) -> str:
    """``PUNCT_vlm``: the official punctuation step with QUIRK corrected-period-rule."""
    return _punctuation_vlm(text)
