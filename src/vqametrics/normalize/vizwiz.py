"""The VizWiz-VQA API's prediction normalization (``vqaEval.py`` by Qing Li, vizwiz.org).

The VizWiz script is a Python 3 fork of GT-Vision-Lab ``vqaEval.py`` as it was in 2015, before
commit 458a8b2 "fixed the apostrophe symbol issue" (2016-10-08); spec vqa-family §3. Only the
**prediction** is normalized: whitespace cleanup, the official ``processPunctuation`` (with its
quirks) and ``processDigitArticle`` with the pre-Oct-2016 contraction table.

Quirks kept on purpose, because VizWiz challenge numbers were computed with them:

* QUIRK curly-contractions: 112 of the table's 120 entries carry the typographic apostrophe
  ``’`` (U+2019) in the key or the value, so the prediction ``dont know`` becomes ``don’t know``
  and scores 0 against the answer ``don't know``. The eight exceptions are straight:
  ``aint``, ``arent``, ``cant``, ``couldve``, ``couldnt`` (at the head of the table) and
  ``weve``, ``wheres``, ``whove``. Two keys are spelled with a straight apostrophe while their
  values are curly: ``couldn'tve`` and ``hadn'tve``.
* QUIRK raw-ground-truth (in the scorer, :mod:`vqametrics.tasks.vizwiz`): answers are compared
  as written, so ``Coca Cola``, ``the milk`` or ``milk `` in the ground truth can never match.
* QUIRK malformed-lookbehind, QUIRK period-limit-32, QUIRK punctuation-trigger and QUIRK
  none-is-zero, as in :mod:`vqametrics.normalize.official`.
"""

from __future__ import annotations

from functools import lru_cache

from .official import CONTRACTIONS, clean, digits_articles, punctuation

__all__ = ["CURLY", "CURLY_CONTRACTIONS", "digits_articles_curly", "prediction"]

#: The typographic apostrophe of the 2015 table.
CURLY = "\u2019"

#: Entries written entirely with the straight apostrophe in the 2015 table.
_STRAIGHT_ENTRIES = frozenset(
    {"aint", "arent", "cant", "couldve", "couldnt", "weve", "wheres", "whove"}
)
#: Keys written with the straight apostrophe although their value is curly.
_STRAIGHT_KEYS = frozenset({"couldn'tve", "hadn'tve"})


def _curly_table() -> dict[str, str]:
    table = {}
    for key, value in CONTRACTIONS.items():
        if key in _STRAIGHT_ENTRIES:
            table[key] = value
            continue
        k = key if key in _STRAIGHT_KEYS else key.replace("'", CURLY)
        table[k] = value.replace("'", CURLY)
    return table


#: QUIRK curly-contractions: the pre-Oct-2016 table (120 entries, 112 with ``’``).
CURLY_CONTRACTIONS: dict[str, str] = _curly_table()


def digits_articles_curly(text: str) -> str:
    """``processDigitArticle`` with the curly table: lower, split, number words, articles,
    contractions, join."""
    return digits_articles(text, CURLY_CONTRACTIONS)


@lru_cache(maxsize=1 << 16)
def prediction(text: str) -> str:
    """The VizWiz prediction normalization: cleanup, punctuation, digits/articles (curly).

    >>> prediction("Dont know.")
    'don’t know'
    >>> prediction("Two")
    '2'
    """
    return digits_articles_curly(punctuation(clean(text)))
