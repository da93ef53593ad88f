"""The speed benchmark of the VQA-family tasks (issue 10): each task's full official split.

For every registered task with a builder below, seeded synthetic inputs of the official split's
size are written in the task's official layout (TextVQA val 5,000, DocVQA val 5,349, POPE
9,000, MME 2,374, …), then scored two ways:

1. ``evaluate_task`` in this process (median of 3; the files are read every time), and
2. ``vqametrics score TASK …`` end to end in a fresh process (median of 3).

Target: well under a second each on the 2-core development machine.

Usage: ``python benchmarks/bench_tasks.py [--runs 3] [--task NAME ...]``
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

WORDS = [
    "red",
    "blue",
    "green",
    "stop",
    "exit",
    "coca",
    "cola",
    "2",
    "10",
    "100",
    "yes",
    "no",
    "dog",
    "cat",
    "table",
    "sign",
    "street",
    "bus",
    "1,000",
    "3.5",
    "the",
    "a",
    "man's",
    "what's",
    "t-shirt",
    "bowmore",
    "dakota",
    "digital",
]


def _answer(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.choice((1, 1, 1, 2, 3))))


def _ten(rng: random.Random) -> list[str]:
    pool = [_answer(rng) for _ in range(3)]
    return [rng.choice(pool) for _ in range(10)]


def textvqa(d: Path, rng: random.Random) -> list[str]:
    rows = [
        {"question_id": i, "question": "what?", "image_id": f"img{i}", "answers": _ten(rng)}
        for i in range(5000)
    ]
    (d / "ann.json").write_text(json.dumps({"dataset_name": "textvqa", "data": rows}))
    res = [{"question_id": r["question_id"], "answer": rng.choice(r["answers"])} for r in rows]
    (d / "res.json").write_text(json.dumps(res))
    return ["--annotations", str(d / "ann.json"), "--results", str(d / "res.json")]


def docvqa(d: Path, rng: random.Random) -> list[str]:
    rows = [
        {"questionId": i, "question": "what?", "answers": [_answer(rng) + " ltd", _answer(rng)]}
        for i in range(5349)
    ]
    (d / "ann.json").write_text(json.dumps({"dataset_name": "docvqa", "data": rows}))
    res = [{"questionId": r["questionId"], "answer": r["answers"][0][:-1]} for r in rows]
    (d / "res.json").write_text(json.dumps(res))
    return ["--annotations", str(d / "ann.json"), "--results", str(d / "res.json")]


def _vlmevalkit(d: Path, rows: list[dict[str, Any]]) -> list[str]:
    with open(d / "res.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return ["--results", str(d / "res.csv")]


def chartqa(d: Path, rng: random.Random) -> list[str]:
    rows = []
    for i in range(2500):
        gt = str(rng.choice((rng.randint(0, 500), round(rng.random() * 100, 1), "Yes")))
        pred = gt if rng.random() < 0.5 else str(rng.randint(0, 500))
        split = "test_human" if i < 1250 else "test_augmented"
        rows.append({"index": i, "question": "q", "answer": gt, "prediction": pred, "split": split})
    return _vlmevalkit(d, rows)


def ocrvqa(d: Path, rng: random.Random) -> list[str]:
    rows = [
        {
            "index": f"{i}_1",
            "question": "What type of book is this?",
            "answer": (a := _answer(rng)),
            "category": rng.choice(("Travel", "Humor", "Law")),
            "prediction": a if rng.random() < 0.6 else _answer(rng),
        }
        for i in range(3072)
    ]
    return _vlmevalkit(d, rows)


def pope(d: Path, rng: random.Random) -> list[str]:
    """The three 3,000-question splits answered in LLaVA's layout (9,000 answers), joined
    through LLaVA's question file, as LLaVA's own POPE evaluation does."""
    folder = d / "labels"
    folder.mkdir()
    qid = 0
    with (
        open(d / "questions.jsonl", "w", encoding="utf-8") as qf,
        open(d / "answers.jsonl", "w", encoding="utf-8") as af,
    ):
        for split in ("adversarial", "popular", "random"):
            with open(folder / f"coco_pope_{split}.json", "w", encoding="utf-8") as fh:
                for i in range(3000):
                    qid += 1
                    text = f"Is there a {rng.choice(WORDS)} in the image?"
                    row = {"question_id": i + 1, "image": f"{i}.jpg", "text": text}
                    fh.write(json.dumps({**row, "label": rng.choice(("yes", "no"))}) + "\n")
                    prompt = text + "\nAnswer the question using a single word or phrase."
                    q = {"question_id": qid, "image": f"{i}.jpg", "text": prompt, "category": split}
                    qf.write(json.dumps(q) + "\n")
                    answer = rng.choice(("Yes", "No", "No, there is not.", "yes"))
                    af.write(json.dumps({"question_id": qid, "prompt": prompt, "text": answer}))
                    af.write("\n")
    return [
        "--annotations",
        str(folder),
        "--questions",
        str(d / "questions.jsonl"),
        "--results",
        str(d / "answers.jsonl"),
    ]


MME_TASKS = {
    "existence": 60,
    "count": 60,
    "position": 60,
    "color": 60,
    "posters": 294,
    "celebrity": 340,
    "scene": 400,
    "landmark": 400,
    "artwork": 400,
    "OCR": 40,
    "commonsense_reasoning": 140,
    "numerical_calculation": 40,
    "text_translation": 40,
    "code_reasoning": 40,
}


def mme(d: Path, rng: random.Random) -> list[str]:
    folder = d / "results"
    folder.mkdir()
    for task, n in MME_TASKS.items():
        with open(folder / f"{task}.txt", "w", encoding="utf-8") as fh:
            for i in range(n // 2):
                for gt in ("Yes", "No"):
                    pred = rng.choice(("Yes", "No", "yes, there is", "no."))
                    fh.write(f"{i:04d}.jpg\tIs it? Please answer yes or no.\t{gt}\t{pred}\n")
    return ["--results", str(folder)]


def gqa(d: Path, rng: random.Random) -> list[str]:
    """testdev-balanced size: 12,578 questions with predictions, as LLaVA writes them."""
    questions = {}
    preds = []
    for i in range(12578):
        gold = rng.choice(("yes", "no", "left", "right", "table", "red"))
        questions[str(i)] = {
            "question": "Is it?",
            "answer": gold,
            "isBalanced": True,
            "types": {
                "structural": rng.choice(("query", "verify", "logical")),
                "semantic": "attr",
                "detailed": "directOf",
            },
            "groups": {"global": None, "local": None},
            "entailed": [],
            "semantic": [{"operation": "select", "argument": "x"}],
        }
        preds.append({"questionId": str(i), "prediction": rng.choice((gold, "yes", "no"))})
    (d / "q.json").write_text(json.dumps(questions))
    (d / "p.json").write_text(json.dumps(preds))
    return ["--questions", str(d / "q.json"), "--results", str(d / "p.json")]


def vizwiz(d: Path, rng: random.Random) -> list[str]:
    """val size: 4,319 images, with answerability scores."""
    anns, res = [], []
    for i in range(4319):
        answers = _ten(rng)
        anns.append(
            {
                "image": f"VizWiz_val_{i:08d}.jpg",
                "question": "What is this?",
                "answers": [{"answer": a, "answer_confidence": "yes"} for a in answers],
                "answer_type": "other",
                "answerable": rng.choice((0, 1)),
            }
        )
        res.append(
            {"image": anns[-1]["image"], "answer": rng.choice(answers), "answerable": rng.random()}
        )
    (d / "ann.json").write_text(json.dumps(anns))
    (d / "res.json").write_text(json.dumps(res))
    return ["--annotations", str(d / "ann.json"), "--results", str(d / "res.json")]


def ocrbench(d: Path, rng: random.Random) -> list[str]:
    """All 1,000 items in OCRBench.json's layout, with predictions."""
    items = []
    for i in range(1000):
        answer = _answer(rng)
        items.append(
            {
                "id": i,
                "dataset_name": "HME100k" if i < 100 else "IIIT5K",
                "type": "Regular Text Recognition",
                "question": "what is written?",
                "answers": [answer],
                "predict": answer if rng.random() < 0.6 else _answer(rng),
            }
        )
    (d / "ocrbench.json").write_text(json.dumps(items))
    return ["--results", str(d / "ocrbench.json")]


BUILDERS: dict[str, Callable[[Path, random.Random], list[str]]] = {
    "textvqa": textvqa,
    "docvqa": docvqa,
    "chartqa": chartqa,
    "ocrvqa": ocrvqa,
    "pope": pope,
    "mme": mme,
    "gqa": gqa,
    "vizwiz": vizwiz,
    "ocrbench": ocrbench,
}


def _options(argv: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    it = iter(argv)
    for flag in it:
        out[flag.lstrip("-").replace("-", "_")] = next(it)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--task", action="append", help="only these tasks")
    args = parser.parse_args()
    from vqametrics.tasks import list_tasks
    from vqametrics.tasks._run import evaluate_task

    registered = {t.name for t in list_tasks()}
    names = args.task or [n for n in BUILDERS if n in registered]
    print(f"{'task':<10} {'items':>6} {'in-process':>11} {'CLI':>8}")
    for name in names:
        with tempfile.TemporaryDirectory() as tmp:
            argv = BUILDERS[name](Path(tmp), random.Random(12345))
            opts = _options(argv)
            results = opts.pop("results")
            times = []
            n = 0
            for _ in range(args.runs):
                t0 = time.perf_counter()
                r = evaluate_task(name, results, **opts)
                times.append(time.perf_counter() - t0)
                n = len(r.scores)
            cli = []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                subprocess.run(
                    [sys.executable, "-m", "vqametrics", "score", name, *argv, "--json"],
                    check=True,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                cli.append(time.perf_counter() - t0)
            print(
                f"{name:<10} {n:>6} {statistics.median(times):>10.3f}s "
                f"{statistics.median(cli):>7.3f}s"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
