"""Generate a seeded, VQA-v2-val-shaped dataset in the official file layouts.

Writes ``annotations.json``, ``questions.json`` and ``results.json`` into a directory
(default ``benchmarks/_data/n<N>/``, git-ignored). The shape follows the synthetic set of
spec official-vqa-eval.md §10:

* 214,354 questions on about 40k images by default, ``qid = image_id * 1000 + k``;
* 10 answer records per question, ``{answer, answer_confidence, answer_id}`` with ids 1..10;
* answer types about 38% yes/no, 12% number, 50% other, each with its own question types;
* "other" answers drawn from a Zipf-weighted vocabulary of 3,000 strings;
* about a third of the questions with unanimous answers;
* about 1% of the human answers raw-looking (capitals, hyphens, leading articles, number words,
  trailing punctuation);
* about a third of the predictions messy (capitals, trailing ``.``/``!``, articles, number
  words, ``dont``, ``1,000``, ``3.5``, stray whitespace and newlines, quotes, brackets).

The files are written with ``json.dumps`` defaults (``", "`` and ``": "`` separators), like the
real files. The same seed and size always give byte-identical files.

Usage: ``python benchmarks/generate.py [--questions N] [--seed S] [--out DIR]``
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import json
import random
import time
from pathlib import Path
from typing import Any

DEFAULT_QUESTIONS = 214_354
QUESTIONS_PER_IMAGE = 214_354 / 40_504
DATA_DIR = Path(__file__).resolve().parent / "_data"

# (answer type, share, question types)
_TYPES = (
    (
        "yes/no",
        0.38,
        (
            "is the",
            "is this",
            "are the",
            "are there",
            "is there a",
            "is this a",
            "does the",
            "is it",
            "do you",
            "is the man",
            "is the woman",
            "are these",
            "can you",
            "has",
            "could",
            "does this",
            "is he",
            "are they",
            "was",
            "is there",
            "do",
        ),
    ),
    (
        "number",
        0.12,
        (
            "how many",
            "how many people are",
            "how many people are in",
            "what number is",
            "what time",
        ),
    ),
    (
        "other",
        0.50,
        (
            "what",
            "what color is the",
            "what is the",
            "what is",
            "what kind of",
            "what type of",
            "what color are the",
            "what is on the",
            "where is the",
            "what is the man",
            "what are the",
            "what color",
            "which",
            "what is in the",
            "why",
            "who is",
            "what is the person",
            "what sport is",
            "what animal is",
            "what room is",
            "what is the name",
            "what brand",
            "what are",
            "what is the woman",
            "where are the",
            "what is this",
            "what does the",
            "what color is",
            "how",
            "what is the color of the",
            "what game is",
            "what is the white",
            "why is the",
            "none of the above",
            "what is the boy",
            "what is the girl",
            "what is the dog",
            "what is the cat",
        ),
    ),
)

_SYLLABLES = (
    "ba",
    "ca",
    "da",
    "fe",
    "go",
    "hi",
    "ju",
    "ka",
    "lo",
    "me",
    "ni",
    "po",
    "qua",
    "re",
    "si",
    "tu",
    "ve",
    "wa",
    "xi",
    "yo",
    "ze",
    "an",
    "el",
    "in",
    "or",
    "ur",
    "ster",
    "ton",
    "ville",
    "ing",
    "er",
    "ly",
    "est",
    "ish",
    "mon",
    "ka",
    "ra",
    "ti",
    "mo",
    "lu",
)
_COMMON = (
    "white",
    "black",
    "red",
    "blue",
    "green",
    "brown",
    "yellow",
    "gray",
    "orange",
    "pink",
    "tennis",
    "baseball",
    "frisbee",
    "skateboarding",
    "surfing",
    "kitchen",
    "bathroom",
    "living room",
    "bedroom",
    "dog",
    "cat",
    "horse",
    "giraffe",
    "elephant",
    "pizza",
    "sandwich",
    "right",
    "left",
    "table",
    "grass",
    "water",
    "snow",
    "man",
    "woman",
    "girl",
    "boy",
    "t-shirt",
    "hot dog",
    "stop sign",
    "cell phone",
    "red and white",
    "black and white",
    "men's bathroom",
    "st. louis",
    "4:30",
    "$5",
    "50%",
    "#1",
    "pizza & wings",
    "no, goatee",
    "cross-country skiing",
    "o'clock",
    "can't tell",
    "don't know",
    "i don't know",
    "nothing",
    "none",
    "unknown",
    "a.m.",
    "e.g.",
    "café",
    "2.0",
    "3.5",
    "50+",
    "1/2",
    "sun",
    "clouds",
)
_NUMBERS = (*(str(i) for i in range(0, 21)), "25", "30", "50", "100", "1,000", "2.5")
_NUMBER_WORDS = {
    "0": "zero",
    "1": "one",
    "2": "two",
    "3": "three",
    "4": "four",
    "5": "five",
    "6": "six",
    "7": "seven",
    "8": "eight",
    "9": "nine",
    "10": "ten",
}
_CONFIDENCE = ("yes",) * 8 + ("maybe", "no")
_ARTICLES = ("a ", "the ", "an ", "A ", "The ")


def _vocabulary(rng: random.Random, size: int = 3000) -> list[str]:
    words = list(_COMMON)
    seen = set(words)
    while len(words) < size:
        n_words = rng.choices((1, 2, 3), (70, 25, 5))[0]
        parts = []
        for _ in range(n_words):
            parts.append("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(1, 3))))
        sep = rng.choices((" ", "-", "'s ", ", "), (90, 6, 2, 2))[0]
        word = sep.join(parts)
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


def _zipf_cdf(n: int, s: float = 1.07) -> list[float]:
    weights = [1.0 / (k**s) for k in range(1, n + 1)]
    return list(itertools.accumulate(weights))


def _raw_looking(rng: random.Random, answer: str) -> str:
    """A raw-looking variant of a human answer."""
    kind = rng.randrange(6)
    if kind == 0:
        return answer.capitalize()
    if kind == 1:
        return answer + rng.choice((".", "!", "?"))
    if kind == 2:
        return rng.choice(_ARTICLES) + answer
    if kind == 3:
        return answer.replace(" ", "-") if " " in answer else answer.upper()
    if kind == 4:
        return _NUMBER_WORDS.get(answer, answer.title())
    return " " + answer + rng.choice(("", " ", "\n"))


def _messy(rng: random.Random, answer: str) -> str:
    """A messy prediction: what a generative model writes around the answer."""
    kind = rng.randrange(14)
    if kind == 0:
        return answer.capitalize()
    if kind == 1:
        return answer.capitalize() + "."
    if kind == 2:
        return answer + rng.choice(("!", ".", " ."))
    if kind == 3:
        return rng.choice(_ARTICLES) + answer
    if kind == 4:
        return _NUMBER_WORDS.get(answer, answer).capitalize()
    if kind == 5:
        return rng.choice(("I dont know", "dont know", "Dont", "doesnt matter", "whats that"))
    if kind == 6:
        return rng.choice(("1,000", "3.5", "1,000 dogs/cats", "2.", "10,000", "$3.50"))
    if kind == 7:
        return "  " + answer + rng.choice(("\n", " \n", "\t", "  "))
    if kind == 8:
        return '"' + answer + '"'
    if kind == 9:
        return rng.choice(("(", "[", "{")) + answer + rng.choice((")", "]", "}"))
    if kind == 10:
        return "The answer is " + answer + "."
    if kind == 11:
        return answer.upper()
    if kind == 12:
        return answer + ", " + rng.choice(("probably", "i think", "maybe"))
    return "Answer: " + answer


def generate(n_questions: int, seed: int, out: Path) -> dict[str, int]:
    """Write the three files for *n_questions* questions; returns counts for the log."""
    rng = random.Random(seed)
    vocab = _vocabulary(rng)
    cdf = _zipf_cdf(len(vocab))
    total = cdf[-1]

    def other_answer() -> str:
        return vocab[bisect.bisect_left(cdf, rng.random() * total)]

    n_images = max(1, round(n_questions / QUESTIONS_PER_IMAGE))
    image_ids = sorted(rng.sample(range(1, max(600_000, 3 * n_images)), n_images))
    per_image = [n_questions // n_images] * n_images
    for i in rng.sample(range(n_images), n_questions - sum(per_image)):
        per_image[i] += 1

    shares = [t[1] for t in _TYPES]
    counts = {"unanimous": 0, "raw_answers": 0, "messy_predictions": 0}
    header = {
        "info": {
            "description": "Synthetic VQA-v2-val-shaped data (vqametrics benchmark)",
            "version": "2.0",
            "year": 2017,
        },
        "license": {"url": "https://creativecommons.org/licenses/by/4.0/", "name": "CC BY 4.0"},
        "data_subtype": "val2014",
        "data_type": "mscoco",
    }
    out.mkdir(parents=True, exist_ok=True)
    # streamed, but byte-identical to json.dump of the whole documents
    with (
        _Writer(out / "annotations.json", header, "annotations") as ann_out,
        _Writer(
            out / "questions.json", {**header, "task_type": "Open-Ended"}, "questions"
        ) as q_out,
        _Writer(out / "results.json", None, None) as res_out,
    ):
        for image_id, k_count in zip(image_ids, per_image, strict=True):
            for k in range(k_count):
                qid = image_id * 1000 + k
                atype, _, qtypes = rng.choices(_TYPES, shares)[0]
                qtype = rng.choice(qtypes)
                if atype == "yes/no":
                    main = rng.choice(("yes", "no"))
                    alts = ["no" if main == "yes" else "yes"]
                elif atype == "number":
                    main = rng.choice(_NUMBERS[:8]) if rng.random() < 0.8 else rng.choice(_NUMBERS)
                    alts = [rng.choice(_NUMBERS) for _ in range(3)]
                else:
                    main = other_answer()
                    alts = [other_answer() for _ in range(3)]
                if rng.random() < 0.33:
                    texts = [main] * 10
                    counts["unanimous"] += 1
                else:
                    n_main = rng.randint(2, 9)
                    texts = [main] * n_main + [rng.choice(alts) for _ in range(10 - n_main)]
                    rng.shuffle(texts)
                    if len(set(texts)) == 1:
                        counts["unanimous"] += 1
                for i in range(10):
                    if rng.random() < 0.012:
                        texts[i] = _raw_looking(rng, texts[i])
                        counts["raw_answers"] += 1
                answers = [
                    {"answer": t, "answer_confidence": rng.choice(_CONFIDENCE), "answer_id": i + 1}
                    for i, t in enumerate(texts)
                ]
                ann_out.add(
                    {
                        "question_type": qtype,
                        "multiple_choice_answer": main,
                        "answers": answers,
                        "image_id": image_id,
                        "answer_type": atype,
                        "question_id": qid,
                    }
                )
                q_out.add(
                    {
                        "image_id": image_id,
                        "question": f"{qtype.capitalize()} {other_answer()} in picture {k}?",
                        "question_id": qid,
                    }
                )
                r = rng.random()
                if r < 0.6:
                    pred = main
                elif r < 0.8:
                    pred = rng.choice(texts)
                else:
                    pred = rng.choice(alts) if rng.random() < 0.5 else other_answer()
                if rng.random() < 0.35:
                    pred = _messy(rng, pred)
                    counts["messy_predictions"] += 1
                res_out.add({"question_id": qid, "answer": pred})
    counts["questions"] = n_questions
    counts["images"] = n_images
    return counts


class _Writer:
    """Write ``{**header, key: [items]}`` (or ``[items]``) item by item, as ``json.dump`` would."""

    def __init__(self, path: Path, header: dict[str, Any] | None, key: str | None) -> None:
        self.path = path
        self.tmp = path.with_suffix(".tmp")
        self.fh = self.tmp.open("w", encoding="utf-8")
        if header is not None:
            head = json.dumps({**header, key: []})
            self.fh.write(head[: -len("[]}")] + "[")
        else:
            self.fh.write("[")
        self.closing = "]}" if header is not None else "]"
        self.first = True

    def add(self, item: object) -> None:
        if not self.first:
            self.fh.write(", ")
        self.first = False
        self.fh.write(json.dumps(item))

    def __enter__(self) -> _Writer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.fh.write(self.closing)
        self.fh.close()
        if exc[0] is None:
            self.tmp.replace(self.path)
        else:
            self.tmp.unlink()


def data_dir(n_questions: int, seed: int) -> Path:
    """Where :func:`generate` puts a size by default."""
    return DATA_DIR / f"n{n_questions}_s{seed}"


def ensure(n_questions: int, seed: int = 0) -> Path:
    """Generate the files for this size and seed unless they are there already."""
    out = data_dir(n_questions, seed)
    if not (out / "results.json").exists():
        t0 = time.perf_counter()
        counts = generate(n_questions, seed, out)
        took = time.perf_counter() - t0
        print(f"generated {out} in {took:.1f} s: {counts}", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=DEFAULT_QUESTIONS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="output directory (default: benchmarks/_data/)")
    args = parser.parse_args()
    out = args.out or data_dir(args.questions, args.seed)
    t0 = time.perf_counter()
    counts = generate(args.questions, args.seed, out)
    print(f"wrote {out} in {time.perf_counter() - t0:.1f} s: {counts}")


if __name__ == "__main__":
    main()
