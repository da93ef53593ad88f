"""A synthetic DocVQA-val-sized run (5,349 questions) for the speed check; no real data."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

N_DOCVQA_VAL = 5349
_WORDS = (
    "total",
    "amount",
    "invoice",
    "date",
    "dr.",
    "lobo",
    "denver",
    "broncos",
    "tobacco",
    "institute",
    "research",
    "council",
    "march",
    "12,",
    "1989",
    "$",
    "1,250.00",
    "page",
    "4",
    "table",
    "3",
    "r.",
    "j.",
    "reynolds",
    "memorandum",
)


def synthetic_docvqa(tmp: Path, seed: int = 0) -> tuple[Path, list[dict[str, Any]]]:
    """``(ground-truth path, submission)``: 1–3 answers of 1–6 words per question; predictions
    are exact (60 %), case/space variants (15 %), one-edit typos (10 %), unrelated (10 %) or
    long sentences (5 %), like a real model's."""
    rng = random.Random(seed)
    data, sub = [], []
    for q in range(N_DOCVQA_VAL):
        answers = [
            " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 6)))
            for _ in range(rng.randint(1, 3))
        ]
        data.append({"questionId": 10000 + q, "question": "what?", "answers": answers})
        first = answers[0]
        r = rng.random()
        if r < 0.60:
            pred = first
        elif r < 0.75:
            pred = "  " + first.upper() + " "
        elif r < 0.85:
            i = rng.randrange(len(first))
            pred = first[:i] + "x" + first[i + 1 :]
        elif r < 0.95:
            pred = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 6)))
        else:
            pred = "The answer shown in the document is " + " ".join(
                rng.choice(_WORDS) for _ in range(rng.randint(8, 30))
            )
        sub.append({"questionId": 10000 + q, "answer": pred})
    gt = tmp / "docvqa_val_synthetic.json"
    gt.write_text(json.dumps({"dataset_name": "docvqa", "data": data}), encoding="utf-8")
    return gt, sub
