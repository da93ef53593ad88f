"""One multiple-choice module: every toolkit's rule for reading an option letter.

A *lineage* is a pure function ``(response, choices) -> letter | None | "Z" | RANDOM``
registered by name (spec mcq-reasoning.md §14.2): VLMEvalKit's ``can_infer`` at HEAD, before
a67ace5 and in its 2024 form, lmms-eval's MMBench parser, its shared ``extract_mcq_answer`` and
per-task rules, MMStar's official first-character test, and (modules ``mmmu``, ``scienceqa``)
MMMU's, MMMU-Pro's, ScienceQA's and LLaVA's rules. A lineage that can draw a random letter
takes an explicit :class:`random.Random` and returns :data:`RANDOM` without one.

This is a kernel layer: it imports nothing from ``tasks``, ``cli`` or ``load``.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Mapping

from ...core.exceptions import UnknownNameError
from ._registry import _LINEAGES, RANDOM, Lineage, check_choices, register_lineage

__all__ = [
    "RANDOM",
    "Lineage",
    "check_choices",
    "extract_letter",
    "get_lineage",
    "list_lineages",
    "register_lineage",
]

#: the lineage modules, imported on first lookup (each registers its lineages)
_MODULES = ("heuristics", "lmms", "mmstar", "mmmu", "scienceqa")
_LOADED = False


def _load() -> None:
    global _LOADED
    if _LOADED:
        return
    for name in _MODULES:
        importlib.import_module(f"{__name__}.{name}")
    _LOADED = True


def list_lineages() -> list[Lineage]:
    """Every registered lineage, by name."""
    _load()
    return sorted(_LINEAGES.values(), key=lambda lin: lin.name)


def get_lineage(name: str) -> Lineage:
    """The lineage *name* (``vlmevalkit_can_infer``, ``lmms_eval_extract_mcq_answer``, …).

    Raises
    ------
    UnknownNameError
        *name* is not registered; the message lists the valid names.
    """
    _load()
    try:
        return _LINEAGES[name]
    except KeyError:
        names = ", ".join(sorted(_LINEAGES))
        raise UnknownNameError(f"unknown choice lineage {name!r}; valid: {names}") from None


def extract_letter(
    name: str,
    response: str,
    choices: Mapping[str, str],
    *,
    rng: random.Random | None = None,
) -> str | None:
    """``get_lineage(name)(response, choices, rng=rng)``: the letter lineage *name* reads.

    >>> extract_letter("lmms_eval_extract_mcq_answer", "Definitely a Bird",
    ...                {"A": "cat", "B": "dog", "C": "bird", "D": "fish"})
    'B'
    >>> extract_letter("mmstar_official", "Answer: D",
    ...                {"A": "cat", "B": "dog", "C": "bird", "D": "fish"})
    'A'
    """
    return get_lineage(name)(response, choices, rng=rng)
