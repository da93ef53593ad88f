"""The official script's normalization and scoring, written out literally (spec §3-§5).

Nothing here is optimized: the comma regex is re-run for every punctuation character, as in the
script, every GT string is normalized again for every question, and the leave-one-out compares
whole answer records (dict inequality). Sums are explicit left-to-right loops (the script's
``sum`` on Python <= 3.11).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

_TABLES = json.loads((Path(__file__).parent / "official_tables.json").read_text("utf-8"))
CONTRACTIONS: dict[str, str] = _TABLES["contractions"]
MANUAL_MAP: dict[str, str] = _TABLES["number_words"]
ARTICLES: list[str] = _TABLES["articles"]
PUNCT: list[str] = _TABLES["punctuation"]
PERIOD_STRIP = re.compile(_TABLES["period_strip_regex"])
COMMA_STRIP = re.compile(_TABLES["comma_strip_regex"])


def cleanup(text: str) -> str:
    """§3.1: newlines and tabs to spaces, then strip()."""
    return text.replace("\n", " ").replace("\t", " ").strip()


def process_punctuation(in_text: str) -> str:
    """§3.2, literally: every test is against the original text; the comma regex is re-run."""
    out_text = in_text
    for p in PUNCT:
        if (p + " " in in_text or " " + p in in_text) or (
            re.search(COMMA_STRIP, in_text) is not None
        ):
            out_text = out_text.replace(p, "")
        else:
            out_text = out_text.replace(p, " ")
    # re.UNICODE (= 32) sits in the count slot in the script
    return PERIOD_STRIP.sub("", out_text, 32)


def process_digit_article(in_text: str) -> str:
    """§3.3, literally (without the script's growing manualMap)."""
    out: list[str] = []
    for word in in_text.lower().split():
        word = MANUAL_MAP.get(word, word)
        if word not in ARTICLES:
            out.append(word)
    for word_id, word in enumerate(out):
        if word in CONTRACTIONS:
            out[word_id] = CONTRACTIONS[word]
    return " ".join(out)


def _naive_mean(values: list[float]) -> float:
    total = 0.0
    for v in values:
        total += v
    return total / len(values)


def question_accuracy(answers: list[dict[str, Any]], prediction: str, flow: str = "head") -> float:
    """One question of ``VQAEval.evaluate``: *answers* are the GT dicts (copied, not mutated).

    ``flow="head"``: a013f00 (2021); ``flow="2017"``: a4f1afd (pre-2021), spec §3.4.
    """
    gts = [dict(a) for a in answers]
    if flow == "head":
        for a in gts:
            a["answer"] = cleanup(a["answer"])
        res = cleanup(prediction)
        if len({a["answer"] for a in gts}) > 1:
            for a in gts:
                a["answer"] = process_digit_article(process_punctuation(a["answer"]))
            res = process_digit_article(process_punctuation(res))
    elif flow == "2017":
        res = process_digit_article(process_punctuation(cleanup(prediction)))
        if len({a["answer"] for a in gts}) > 1:
            for a in gts:
                a["answer"] = process_punctuation(a["answer"])
    else:
        raise ValueError(flow)
    accs = []
    for gt in gts:
        others = [item for item in gts if item != gt]
        matching = [item for item in others if item["answer"] == res]
        accs.append(min(1, float(len(matching)) / 3))
    return _naive_mean(accs)


def aggregate(
    accs: list[float], qtypes: list[str], atypes: list[str], n: int = 2
) -> dict[str, Any]:
    """§5: overall, per question type, per answer type, from the unrounded values."""

    def pct(values: list[float]) -> float:
        total = 0.0
        for v in values:
            total += v
        return round(100 * total / len(values), n)

    by_q: dict[str, list[float]] = {}
    by_a: dict[str, list[float]] = {}
    for acc, qt, at in zip(accs, qtypes, atypes, strict=True):
        by_q.setdefault(qt, []).append(acc)
        by_a.setdefault(at, []).append(acc)
    return {
        "overall": pct(accs),
        "perQuestionType": {k: pct(v) for k, v in by_q.items()},
        "perAnswerType": {k: pct(v) for k, v in by_a.items()},
    }
