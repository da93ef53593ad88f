"""MMStar's official rule (``MMStar_eval``, MMStar-Benchmark/MMStar@88f243a
eval/vlmeval/evaluate/mmstar.py): a first-character test, not an extractor (spec §4)."""

from __future__ import annotations

from collections.abc import Mapping

from ._registry import Lineage, register_lineage

__all__ = ["mmstar_official_hit"]


def mmstar_official_hit(prediction: str, answer: str) -> bool:
    """Whether ``MMStar_eval`` counts *prediction* right for the gold *answer*.

    Both lower-cased and stripped, newlines → spaces; a hit when ``p[0] == a``, or ``p[0] ==
    '('`` and ``p[1] == a``, or ``p`` starts with ``option `` and ``p[7] == a``, or with ``the
    answer is `` and ``p[14] == a``.

    QUIRK first-character: ``Answer: D`` counts as A and ``Based on the image, the answer is
    C.`` as B; an empty prediction raises inside the script's ``try`` and is a miss. Kept: the
    official numbers are scored that way.
    """
    a = str(answer).lower().strip().replace("\n", " ")
    p = str(prediction).lower().strip().replace("\n", " ")
    if not p:
        return False
    if a == p[0]:
        return True
    if p[0] == "(" and len(p) > 1:
        return a == p[1]
    if p[0:7] == "option " and len(p) > 7:
        return a == p[7]
    if p[0:14] == "the answer is " and len(p) > 14:
        return a == p[14]
    return False


def _letter(response: str, choices: Mapping[str, str]) -> str | None:
    for letter in choices:
        if mmstar_official_hit(response, letter):
            return letter
    return None


register_lineage(
    Lineage(
        "mmstar_official",
        "MMStar-Benchmark/MMStar@88f243a eval/vlmeval/evaluate/mmstar.py MMStar_eval",
        "the first character (or after '(', 'option ', 'the answer is ') equals the gold",
        _letter,
        kind="hit-test",
    )
)
