"""The official VQA answer normalization (GT-Vision-Lab/VQA ``vqaEval.py`` @ a013f00), quirks kept.

Building blocks shared by every profile that descends from the official script:

* :func:`clean` — ``\\n``/``\\t`` to spaces, then ``strip()`` (spec §3.1).
* :func:`make_punctuation` — ``processPunctuation`` with its trigger regex and period regex as
  parameters (spec §3.2; peer-profiles §1.2). :func:`punctuation` is the official instance.
* :func:`digits_articles` — ``processDigitArticle`` (spec §3.3), also available as four traced
  sub-steps for explanations.

Quirks kept on purpose, because parity with published numbers needs them (spec §12):

* QUIRK punctuation-trigger: a punctuation character is *deleted* (not spaced) when it touches a
  space in the **original** string, or when a digit-comma-digit occurs anywhere in it; the comma
  trigger then deletes all 21 characters (``1,000 dogs/cats`` → ``1000 dogscats``).
* QUIRK malformed-lookbehind: the period pattern ``(?!<=\\d)(\\.)(?!\\d)`` was meant as a
  look-behind; it is a look-ahead that always succeeds, so every period not followed by a digit
  goes (``2.`` → ``2``; ``3.5`` stays).
* QUIRK period-limit-32: ``re.UNICODE`` (= 32) sits in the ``count`` slot of ``re.sub``, so at most
  32 periods are removed per string; normalization is not idempotent past that.
* QUIRK none-is-zero: the number map sends ``none`` to ``0`` (upstream issue #7).
* QUIRK articles-after-numbers: articles are dropped after the number map, on tokens made by
  punctuation splitting (``a-b-c`` → ``b c``, ``the`` → empty string).
* QUIRK dead-contractions: keys ``Im``, ``Ive``, ``Id've``, ``I'dve`` can never match after
  ``lower()``; ``somebody'd`` maps to ``somebodyd``.
* The script's ``manualMap.setdefault`` memory leak and its in-place mutation of the ground truth
  are **not** copied: they never change a score of a single evaluation (spec §3.3, §1.7).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from typing import Any

__all__ = [
    "ARTICLES",
    "COMMA_TRIGGER",
    "CONTRACTIONS",
    "NUMBER_WORDS",
    "PERIOD_STRIP",
    "PUNCTUATION",
    "articles",
    "clean",
    "contractions",
    "digits_articles",
    "lowercase",
    "make_punctuation",
    "number_words",
    "punctuation",
]


def _load_tables() -> dict[str, Any]:
    # through this module's loader (zip-safe, as importlib.resources and pkgutil.get_data are),
    # without importing either: their imports cost every start-up a few ms (issue 23)
    get_data = getattr(getattr(__spec__, "loader", None), "get_data", None)
    if get_data is None:  # pragma: no cover - a loader that cannot read its package's files
        raise ImportError("vqametrics.normalize: cannot read official_tables.json")
    path = os.path.join(os.path.dirname(__file__), "official_tables.json")
    tables: dict[str, Any] = json.loads(get_data(path).decode("utf-8"))
    return tables


_TABLES = _load_tables()
#: The 120-entry contraction table, keys as the script spells them (four are unreachable).
CONTRACTIONS: dict[str, str] = dict(_TABLES["contractions"])
#: ``manualMap``: ``none``/``zero``..``ten`` to digits. Nothing above ten is mapped.
NUMBER_WORDS: dict[str, str] = dict(_TABLES["number_words"])
ARTICLES: frozenset[str] = frozenset(_TABLES["articles"])
#: The 21 punctuation characters, in the order the script processes them.
PUNCTUATION: tuple[str, ...] = tuple(_TABLES["punctuation"])
#: The comma-between-digits trigger ``(\d)(\,)(\d)``.
COMMA_TRIGGER: re.Pattern[str] = re.compile(_TABLES["comma_strip_regex"])
#: The malformed period pattern ``(?!<=\d)(\.)(?!\d)``; behaves as ``\.(?!\d)``.
PERIOD_STRIP: re.Pattern[str] = re.compile(_TABLES["period_strip_regex"])
_PERIOD_LIMIT = 32  # QUIRK period-limit-32: re.UNICODE passed as ``count``


def clean(text: str) -> str:
    """Replace newlines and tabs by spaces, then strip outer (Unicode) whitespace."""
    return text.replace("\n", " ").replace("\t", " ").strip()


def make_punctuation(trigger: re.Pattern[str], period: re.Pattern[str]) -> Callable[[str], str]:
    """Build a ``processPunctuation`` with the given trigger and period patterns.

    The official script tests every character against the *original* string and re-runs the
    trigger regex once per character; the trigger is loop-invariant, so it is run once here.
    """
    chars = PUNCTUATION
    first = frozenset("".join(chars) + ".")

    def punctuation(text: str) -> str:
        if first.isdisjoint(text):
            return text
        out = text
        fired: bool | None = None
        for p in chars:
            if p not in text:
                continue
            if fired is None:
                fired = trigger.search(text) is not None
            if fired or (p + " ") in text or (" " + p) in text:
                out = out.replace(p, "")
            else:
                out = out.replace(p, " ")
        if "." in out:
            out = period.sub("", out, _PERIOD_LIMIT)
        return out

    return punctuation


#: The official ``processPunctuation``.
punctuation = make_punctuation(COMMA_TRIGGER, PERIOD_STRIP)


def digits_articles(text: str, table: Mapping[str, str] = CONTRACTIONS) -> str:
    """The official ``processDigitArticle``: lower, split, number words, articles, contractions.

    *table* is the contraction table (VizWiz's 2015 script has the curly one).
    """
    words = []
    for word in text.lower().split():
        word = NUMBER_WORDS.get(word, word)
        if word not in ARTICLES:
            words.append(table.get(word, word))
    return " ".join(words)


# The same step as four traced sub-steps, for explanations. Each splits on whitespace and joins
# with single spaces; since no table value contains whitespace, their composition equals
# ``digits_articles`` (a test checks this).


def lowercase(text: str) -> str:
    """``str.lower()`` then whitespace collapse (the split/join of ``processDigitArticle``)."""
    return " ".join(text.lower().split())


def number_words(text: str) -> str:
    """Map whole tokens ``none``/``zero``..``ten`` to digits."""
    return " ".join(NUMBER_WORDS.get(w, w) for w in text.split())


def articles(text: str) -> str:
    """Drop whole tokens ``a``, ``an``, ``the``."""
    return " ".join(w for w in text.split() if w not in ARTICLES)


def contractions(text: str) -> str:
    """Replace whole tokens found in the contraction table (``dont`` → ``don't``)."""
    return " ".join(CONTRACTIONS.get(w, w) for w in text.split())
