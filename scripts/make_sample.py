"""Build the bundled VQA v2 sample and its simulated answer sets (deterministic; re-run to check).

Reads ../shared/data/vqa2_val_subset (VQA v2 val2014, CC BY 4.0) and writes
src/vqametrics/data/vqa2_val_sample/. The answer sets are SIMULATED model behaviours, made from
the human answers by fixed rules, to show how the metric behaves; they are not model outputs.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT.parent / "shared" / "data" / "vqa2_val_subset"
OUT = ROOT / "src" / "vqametrics" / "data" / "vqa2_val_sample"

_NUMBER_WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
]
_WORDS = {str(i): w for i, w in enumerate(_NUMBER_WORDS)}


def most_common(answers: list[str]) -> str:
    counts = Counter(answers)
    best = max(counts.values())
    return next(a for a in answers if counts[a] == best)  # ties: first seen


def messy(answer: str, k: int) -> str:
    """Write a correct answer the way a chatty model might: capitals, punctuation, articles."""
    words = [_WORDS.get(w, w) for w in answer.split()]
    text = " ".join(words)
    style = k % 5
    if style == 0:
        return text.capitalize() + "."
    if style == 1:
        return "The " + text + "!"
    if style == 2:
        return text.upper()
    if style == 3:
        return f'"{text}"\n'
    return "A " + text + "."


def minority(answers: list[str]) -> str:
    counts = Counter(answers)
    rare = [a for a in answers if counts[a] <= 2]
    return rare[0] if rare else most_common(answers)


def dump(obj: object, name: str) -> None:
    (OUT / name).write_text(json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n")


def main() -> int:
    if not SRC.exists():
        print(f"needs {SRC}", file=sys.stderr)
        return 1
    ann = json.loads((SRC / "v2_mscoco_val2014_annotations.json").read_text())
    ques = json.loads((SRC / "v2_OpenEnded_mscoco_val2014_questions.json").read_text())
    OUT.mkdir(parents=True, exist_ok=True)
    dump(ann, "annotations.json")
    dump(ques, "questions.json")
    sets = {"majority": [], "messy-majority": [], "minority": [], "always-yes": []}
    for k, a in enumerate(ann["annotations"]):
        answers = [r["answer"] for r in a["answers"]]
        top = most_common(answers)
        qid = a["question_id"]
        sets["majority"].append({"question_id": qid, "answer": top})
        sets["messy-majority"].append({"question_id": qid, "answer": messy(top, k)})
        sets["minority"].append({"question_id": qid, "answer": minority(answers)})
        sets["always-yes"].append({"question_id": qid, "answer": "yes"})
    for name, rows in sets.items():
        dump(rows, f"results_{name}.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
