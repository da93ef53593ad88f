"""Presets for step 1 of the demo: the textbook example, real VQA v2 questions, official quirks.

Presets are *inputs* only (a question, a model answer and the human answers); every number the
demo shows for them is computed by the library. The real questions are read from the bundled
VQA v2 val sample (CC BY 4.0) by question id, so no answer is copied here.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, TypedDict

import orjson

from ..data import sample_files

__all__ = ["Preset", "get_preset", "list_presets"]


class Preset(TypedDict):
    """One preset: ``note`` is an i18n key for the one-line "what to look at"."""

    id: str
    group: str
    question: str
    prediction: str
    answers: list[str]
    note: str
    source: str


#: (preset id, question id in the bundled VQA v2 sample, model answer, i18n note key)
_REAL: tuple[tuple[str, int, str, str], ...] = (
    ("real-bicycle", 536444004, "Bicycle", "note.real_bicycle"),
    ("real-phone", 581317002, "phone", "note.real_phone"),
    ("real-bull", 540372000, "bull", "note.real_bull"),
    ("real-fork", 292024003, "The left hand.", "note.real_fork"),
    ("real-hotdog", 187695002, "Hot dog", "note.real_hotdog"),
)

#: Hand-written quirk cases (spec official-vqa-eval.md §1, §3).
_QUIRKS: tuple[Preset, ...] = (
    {
        "id": "quirk-yes",
        "group": "quirks",
        "question": "Is it sunny?",
        "prediction": "Yes",
        "answers": ["yes"] * 10,
        "note": "note.quirk_yes",
        "source": "made up",
    },
    {
        "id": "quirk-none",
        "group": "quirks",
        "question": "How many dogs are there?",
        "prediction": "none",
        "answers": ["none", "0", "1", "1", "1", "1", "1", "1", "1", "1"],
        "note": "note.quirk_none",
        "source": "made up",
    },
    {
        "id": "quirk-1000",
        "group": "quirks",
        "question": "How many people are in the stadium?",
        "prediction": "1,000",
        "answers": ["1000", "1000", "many", "lots", "1000", "100", "500", "2000", "100", "lot"],
        "note": "note.quirk_1000",
        "source": "made up",
    },
    {
        "id": "quirk-tshirt",
        "group": "quirks",
        "question": "What is the man wearing?",
        "prediction": "t-shirt",
        "answers": ["t-shirt"] * 10,
        "note": "note.quirk_tshirt",
        "source": "made up",
    },
    {
        "id": "quirk-dont",
        "group": "quirks",
        "question": "Do you know what brand this is?",
        "prediction": "dont",
        "answers": ["don't", "don't", "don't", "no", "no", "no", "no", "no", "no", "no"],
        "note": "note.quirk_dont",
        "source": "made up",
    },
)

_TEXTBOOK_NOTES = ("note.textbook_apple", "note.textbook_sky", "note.textbook_grass")


def _load(path: Any) -> Any:
    with open(path, "rb") as fh:
        return orjson.loads(fh.read())


def _answers(record: dict[str, Any]) -> list[str]:
    return [str(a["answer"]) for a in record["answers"]]


def _textbook() -> list[Preset]:
    files = sample_files("textbook")
    anns = _load(files["annotations"])["annotations"]
    questions = {q["question_id"]: q["question"] for q in _load(files["questions"])["questions"]}
    results = {r["question_id"]: r["answer"] for r in _load(files["results"])}
    out: list[Preset] = []
    for i, rec in enumerate(anns):
        qid = rec["question_id"]
        out.append(
            {
                "id": f"textbook-{qid}",
                "group": "textbook",
                "question": questions[qid],
                "prediction": results[qid],
                "answers": _answers(rec),
                "note": _TEXTBOOK_NOTES[i] if i < len(_TEXTBOOK_NOTES) else "",
                "source": "vqametrics textbook example (made up)",
            }
        )
    return out


def _real() -> list[Preset]:
    files = sample_files("majority")
    wanted = {qid for _, qid, _, _ in _REAL}
    anns = {
        r["question_id"]: r
        for r in _load(files["annotations"])["annotations"]
        if r["question_id"] in wanted
    }
    questions = {
        q["question_id"]: q["question"]
        for q in _load(files["questions"])["questions"]
        if q["question_id"] in wanted
    }
    out: list[Preset] = []
    for pid, qid, prediction, note in _REAL:
        if qid not in anns:  # the bundled sample changed; skip rather than fail
            continue
        out.append(
            {
                "id": pid,
                "group": "real",
                "question": questions.get(qid, ""),
                "prediction": prediction,
                "answers": _answers(anns[qid]),
                "note": note,
                "source": f"VQA v2 val, question {qid} (CC BY 4.0); the model answer is made up",
            }
        )
    return out


@lru_cache(maxsize=1)
def _all() -> tuple[Preset, ...]:
    return (*_textbook(), *_real(), *_QUIRKS)


def list_presets() -> list[Preset]:
    """Every preset, in display order (textbook, real, quirks)."""
    return [{**p, "answers": list(p["answers"])} for p in _all()]


def get_preset(preset_id: str) -> Preset:
    """The preset called *preset_id* (``KeyError`` if there is none)."""
    for p in list_presets():
        if p["id"] == preset_id:
            return p
    raise KeyError(preset_id)
