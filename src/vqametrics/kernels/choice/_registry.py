"""The registry of choice-extractor lineages: name → :class:`Lineage`.

Each lineage module (``choice/lmms.py``, ``choice/vlmevalkit.py``, …) builds its
:class:`Lineage` objects and calls :func:`register_lineage` at import; ``choice/__init__.py``
imports the modules on first lookup. A lineage is a pure function
``(response, choices, *, rng=None) -> letter | None | "Z" | RANDOM``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from ...core.exceptions import InputError
from ...core.registry import register_once

__all__ = [
    "RANDOM",
    "Lineage",
    "LineageKind",
    "check_choices",
    "register_lineage",
]

#: What a lineage returns where its rules would draw a random letter and no generator was given.
RANDOM = "random"

#: ``extractor``: the rule names a letter; ``hit-test``: the rule only compares a response with a
#: gold letter, and the lineage returns the letter that would be scored correct.
LineageKind = Literal["extractor", "hit-test"]

LineageFn = Callable[..., str | None]


@dataclass(frozen=True)
class Lineage:
    """One toolkit's rule for reading an option letter out of a free-form response.

    Attributes
    ----------
    name:
        Registry name; the key the spec's cases use (``lmms_eval_extract_mcq_answer``).
    reproduces:
        The code reproduced, as ``repository@commit path function``.
    description:
        One line: what the rule does.
    kind:
        ``extractor`` or ``hit-test`` (see :data:`LineageKind`).
    draws:
        Whether the rule can fall back to a random letter: it then takes ``rng`` (a
        :class:`random.Random`) and returns :data:`RANDOM` when none is given.
    seed:
        The seed the official script sets (MMMU 42, ScienceQA 10), ``None`` if unseeded.
    """

    name: str
    reproduces: str
    description: str
    fn: LineageFn
    kind: LineageKind = "extractor"
    draws: bool = False
    seed: int | None = None

    def __call__(
        self, response: str, choices: Mapping[str, str], *, rng: random.Random | None = None
    ) -> str | None:
        """The letter, ``None`` (nothing found), ``"Z"`` (VLMEvalKit's none/refusal code) or
        :data:`RANDOM` (a random draw was due and *rng* is ``None``)."""
        if not isinstance(response, str):
            raise InputError(
                f"choice lineage {self.name}: the response must be text, got "
                f"{type(response).__name__}"
            )
        check_choices(choices)
        if self.draws:
            return self.fn(response, choices, rng=rng)
        return self.fn(response, choices)


_LINEAGES: dict[str, Lineage] = {}


def register_lineage(lineage: Lineage) -> Lineage:
    """Add *lineage* to the registry (its name must be new); returns it."""
    return register_once(_LINEAGES, lineage.name, lineage, "choice lineage")


def check_choices(choices: Mapping[str, str]) -> None:
    """Option letters must be single upper-case letters and option texts strings."""
    if not isinstance(choices, Mapping):
        raise InputError(f"choices must map letters to option texts, got {type(choices).__name__}")
    for key in choices:
        if not (isinstance(key, str) and len(key) == 1 and "A" <= key <= "Z"):
            raise InputError(f"choices: keys must be single letters A-Z, got {key!r}")
        if not isinstance(choices[key], str):
            raise InputError(f"choices: option {key} must be a string, got {choices[key]!r}")
