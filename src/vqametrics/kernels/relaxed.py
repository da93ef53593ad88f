r"""Relaxed accuracy (ChartQA, PlotQA): numbers within 5 % of the target, other answers exact.

.. math::

    \mathrm{correct}(t, p) =
    \begin{cases}
      \dfrac{|x(p) - x(t)|}{|x(t)|} \le 0.05
        & x(p) \text{ defined},\ x(t) \notin \{\text{undefined}, 0\} \\[4pt]
      \operatorname{lower}(p) = \operatorname{lower}(t) & \text{otherwise}
    \end{cases}

with :math:`x(s)` = ``float(s.rstrip("%")) / 100`` when *s* ends with ``%``, else ``float(s)``,
undefined when ``float`` refuses it. This is pix2struct's ``relaxed_correctness(target,
prediction)`` (spec ``vqa-family.md`` §6), the function every ChartQA number comes from.

Quirks kept, because every published number has them (each has a golden test):

* **Python's ``float``** decides what a number is: ``1e3``, ``1_000``, ``" 12"``, ``inf`` and
  ``nan`` are numbers; ``1,000`` and ``$12`` are not (string comparison). We call ``float``
  itself, so the parse is the reference's by construction.
* **Tolerance relative to the target**, inclusive, in floating point: ``95`` vs ``100`` is
  correct, ``1.05`` vs ``1`` is wrong (``0.050000000000000044``).
* **Percent**: a trailing ``%`` divides by 100 (``12%`` vs ``0.12`` correct, vs ``12`` wrong);
  ``rstrip`` removes every trailing ``%``; ``"12% "`` is not a number.
* **Zero target** (or ``-0``) falls back to the string comparison: ``0.0`` vs ``0`` is wrong.
* **NaN relative change is never within tolerance**: ``inf`` vs ``inf`` is wrong although the
  strings are equal; a ``nan`` target is truthy, so it never reaches the string comparison.
* Years are numbers: ``2008`` vs ``2010`` is correct.

The swapped call (``relaxed_correctness(prediction, target)``: Qwen-VL, VLMEvalKit from 2024-07
to 2025-09-01) is :func:`relaxed_correctness` with the arguments exchanged, so the tolerance is
relative to the *prediction*: ``95`` vs ``100`` becomes wrong.
"""

from __future__ import annotations

__all__ = ["relaxed_correctness", "to_float"]


def to_float(text: str) -> float | None:
    """pix2struct's ``_to_float``: ``float(text)``, or ``float(text.rstrip('%')) / 100`` for a
    trailing ``%``; ``None`` where ``float`` raises ``ValueError``."""
    try:
        if text.endswith("%"):
            return float(text.rstrip("%")) / 100.0
        return float(text)
    except ValueError:
        return None


def relaxed_correctness(target: str, prediction: str, max_relative_change: float = 0.05) -> bool:
    """Whether *prediction* is within *max_relative_change* of *target* (numbers), or equal to
    it ignoring case (anything else, and any zero target). The argument order matters.

    >>> relaxed_correctness("100", "95"), relaxed_correctness("95", "100")
    (True, False)
    """
    p = to_float(prediction)
    t = to_float(target)
    if p is not None and t:
        return abs(p - t) / abs(t) <= max_relative_change
    return prediction.lower() == target.lower()
