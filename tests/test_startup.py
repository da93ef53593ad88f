"""Issue 23, start-up of a small ``score``: what a run of each kind of task imports.

A small score's time is almost all imports; these tests pin the modules it does without (the
timings are ``benchmarks/bench_startup.py``'s and ``bench_peers.py``'s, never asserted here),
and that the task registry's table of module names cannot drift from what the modules
register."""

from __future__ import annotations

import csv
import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from test_cli_lazy import _imported_after
from vqametrics import tasks
from vqametrics.tasks import Task, get_task, list_tasks

#: what no small score needs: the array library, the spreadsheet reader, the explanation
#: machinery (``tasks/_explain.py``'s hooks are imported, never run, by a score), the stdlib
#: modules a score used to pull in through argparse, fractions, threading, …
NEVER = {
    "numpy",
    "openpyxl",
    "shutil",
    "threading",
    "fractions",
    "pkgutil",
    "decimal",
    "html",
    "vqametrics.views.explanation",
    "vqametrics.pipeline.explanation",
    "vqametrics.extract._base",
    "vqametrics.extract.answer",
    "vqametrics.judge",
}


@functools.cache
def _brought_by(module: str) -> frozenset[str]:
    """The modules importing *module* adds to a fresh interpreter: not a command's to avoid
    (on Python 3.10, orjson's uuid imports platform, whose subprocess imports threading)."""
    code = f"import sys; b = set(sys.modules); import {module}; print(*set(sys.modules) - b)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return frozenset(out.stdout.split())


def _write_csv(path: Path, rows: list[dict[str, object]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def _pope(d: Path) -> list[str]:
    rows = [
        {"index": i, "question": "Is there a dog?", "prediction": "Yes" if i % 2 else "No"}
        | {"answer": "Yes", "category": "random"}
        for i in range(20)
    ]
    (d / "pope.json").write_text(json.dumps(rows), encoding="utf-8")
    return ["--results", str(d / "pope.json"), "--profile", "vlmevalkit"]


def _chartqa(d: Path) -> list[str]:
    rows = [
        {"index": i, "question": "q", "answer": str(i), "prediction": str(i % 3), "split": s}
        for i, s in enumerate(["test_human", "test_augmented"] * 5)
    ]
    _write_csv(d / "chartqa.csv", rows)
    return ["--results", str(d / "chartqa.csv")]


def _docvqa(d: Path) -> list[str]:
    rows = [{"questionId": i, "question": "what?", "answers": ["ltd", "a b"]} for i in range(5)]
    (d / "ann.json").write_text(json.dumps({"dataset_name": "docvqa", "data": rows}))
    (d / "res.json").write_text(json.dumps([{"questionId": i, "answer": "ltd"} for i in range(5)]))
    return ["--annotations", str(d / "ann.json"), "--results", str(d / "res.json")]


def _gqa(d: Path) -> list[str]:
    types = {"structural": "query", "semantic": "attr", "detailed": "directOf"}
    question = {"question": "Is it?", "answer": "yes", "isBalanced": True, "types": types}
    question |= {"groups": {"global": None, "local": None}, "entailed": [], "semantic": []}
    (d / "q.json").write_text(json.dumps({str(i): question for i in range(5)}))
    preds = [{"questionId": str(i), "prediction": "yes"} for i in range(5)]
    (d / "p.json").write_text(json.dumps(preds))
    return ["--questions", str(d / "q.json"), "--results", str(d / "p.json")]


def _mme(d: Path) -> list[str]:
    """eval_tool's layout: a folder of ``<task>.txt`` (two of the fourteen, --allow-missing)."""
    folder = d / "results"
    folder.mkdir()
    for task in ("existence", "OCR"):
        lines = [
            f"{i // 2}.jpg\tIs it {i}? Please answer yes or no.\t{('Yes', 'No')[i % 2]}\tYes\n"
            for i in range(4)
        ]
        (folder / f"{task}.txt").write_text("".join(lines))
    return ["--results", str(folder), "--allow-missing"]


def _mathvista(d: Path) -> list[str]:
    """MathVista's own output file, its answers extracted and judged already (recorded)."""
    rows = {
        str(i): {"question": "How many?", "image": f"images/{i}.jpg", "choices": None}
        | {"unit": None, "precision": None, "answer": str(i), "question_type": "free_form"}
        | {"answer_type": "integer", "pid": str(i), "metadata": {"split": "testmini"}}
        | {"query": "How many?", "response": f"It is {i % 3}.", "extraction": str(i % 3)}
        | {"prediction": str(i % 3), "true_false": i % 3 == i}
        for i in range(6)
    }
    (d / "output.json").write_text(json.dumps(rows), encoding="utf-8")
    return ["--results", str(d / "output.json")]


#: what a score from recorded judge outputs does without: the judge client's threads, HTTP
#: dates, OpenSSL and the logging that concurrent.futures brings
NO_JUDGE_CALLS = {"concurrent.futures", "threading", "email.utils", "hashlib", "logging", "socket"}

#: what a run of a results file or folder does without: pathlib (with urllib.parse and
#: ipaddress) and the toolkit check, where no item carries the toolkit's own score
PLAIN = {"pathlib", "urllib.parse", "ipaddress", "vqametrics.pipeline.toolkit_check"}

#: the diagnostics of free-text answers, which a yes/no parser never needs (it reads sentences)
YES_NO = {"vqametrics.extract._diagnostics"}

#: what a run that reads no JSON does without: orjson, with the modules it imports itself
NO_JSON = {"orjson", "uuid", "datetime", "platform"}

#: task -> (its inputs, its module, what else that run does without)
RUNS = {
    "pope": (_pope, "pope", {"hashlib", "vqametrics.profiles"} | PLAIN | YES_NO),  # no hash
    "chartqa": (
        _chartqa,
        "chartqa",
        {"vqametrics.profiles", "vqametrics.core.output"} | PLAIN | NO_JSON,  # a CSV sheet
    ),
    "docvqa": (_docvqa, "anls", {"vqametrics.core.output"}),
    "gqa": (_gqa, "gqa", {"vqametrics.core.output"}),
    "mathvista": (_mathvista, "mathvista", NO_JUDGE_CALLS),
    "mme": (_mme, "mme", {"vqametrics.core.output", "hashlib"} | PLAIN | YES_NO | NO_JSON),
}


@pytest.mark.parametrize("task", sorted(RUNS))
def test_a_small_score_imports_its_own_task_and_nothing_it_does_not_use(
    task: str, tmp_path: Path
) -> None:
    build, module, unneeded = RUNS[task]
    mods = set(_imported_after(["score", task, *build(tmp_path)], tmp_path))
    assert f"vqametrics.tasks.{module}" in mods  # it did run
    loaded = {m for m in mods if m.startswith("vqametrics.tasks.") and not m[17:].startswith("_")}
    assert loaded == {f"vqametrics.tasks.{module}"}  # no other task module
    # a judged task's module imports the judge package for its prompts and stage, but none of
    # its client's machinery (NO_JUDGE_CALLS)
    never = NEVER - {"vqametrics.judge"} if unneeded >= NO_JUDGE_CALLS else NEVER
    forbidden = never | unneeded
    if not unneeded >= NO_JSON:  # a run that reads JSON imports orjson, with what it brings
        forbidden -= _brought_by("orjson")
    assert forbidden & mods == set()


def _pope_labels(d: Path) -> list[str]:
    """LLaVA's layout: answers joined through its question file to a folder of label files."""
    labels, questions, answers = d / "labels", d / "questions.jsonl", d / "answers.jsonl"
    labels.mkdir()
    qlines, alines = [], []
    for k, split in enumerate(("adversarial", "popular", "random")):
        rows = [
            {"question_id": i + 1, "image": f"im{i}.jpg", "text": "Is there a dog?"}
            | {"label": "yes" if i % 2 else "no"}
            for i in range(4)
        ]
        (labels / f"coco_pope_{split}.json").write_text("".join(json.dumps(r) + "\n" for r in rows))
        for i in range(4):
            qid = 100 * k + i
            qlines.append({"question_id": qid, "text": "Is there a dog?", "category": split})
            alines.append({"question_id": qid, "prompt": "Is there a dog?", "text": "Yes"})
    questions.write_text("".join(json.dumps(r) + "\n" for r in qlines))
    answers.write_text("".join(json.dumps(r) + "\n" for r in alines))
    return ["--annotations", str(labels), "--questions", str(questions), "--results", str(answers)]


#: what POPE's label files need not bring: OpenSSL for their fingerprint (CPython's own
#: sha256 does), pathlib (with urllib.parse and ipaddress) for a folder's names, csv for JSON
LABEL_RUN_UNNEEDED = {"hashlib", "_hashlib", "pathlib", "urllib.parse", "ipaddress", "csv"}
#: nor gzip's zlib and mmap, for files neither compressed nor mapped
LABEL_RUN_UNNEEDED |= {"zlib", "mmap"}
#: the official normalizer's tables, which only VLMEvalKit's yes/no rule needs of POPE
LABEL_RUN_UNNEEDED |= {"vqametrics.normalize.official", "vqametrics.normalize.vlmevalkit"}
LABEL_RUN_UNNEEDED |= YES_NO


def test_pope_with_label_files_imports_no_openssl_pathlib_or_csv(tmp_path: Path) -> None:
    mods = set(_imported_after(["score", "pope", *_pope_labels(tmp_path)], tmp_path))
    assert "vqametrics.tasks._pope_read" in mods  # it did run
    forbidden = NEVER | LABEL_RUN_UNNEEDED | {"vqametrics.profiles"}
    forbidden -= _brought_by("orjson")  # the label files are JSON lines
    assert forbidden & mods == set()


def test_pope_with_label_files_scores_them(tmp_path: Path) -> None:
    """The run above is a real one: every answer is "Yes", half the labels are yes."""
    from vqametrics.tasks._run import evaluate_task

    args = _pope_labels(tmp_path)
    result = evaluate_task("pope", args[5], annotations=args[1], questions=args[3])
    assert result.metrics["n"] == 12
    assert result.metrics["acc_mean"] == 0.5  # 6 of 12 right
    assert "labels:custom-" in str(result.signature)


def _registering_module(task: Task) -> str:
    """The task module (``tasks/<name>.py``) that registered *task*."""
    found = {
        name.rpartition(".")[2]
        for name, mod in sys.modules.items()
        if name.startswith("vqametrics.tasks.") and not name.rpartition(".")[2].startswith("_")
        if any(value is task for value in vars(mod).values())
    }
    assert len(found) == 1, (task.name, found)
    return found.pop()


def test_the_module_table_names_every_task_and_alias_as_registered() -> None:
    expected: dict[str, tuple[str, ...]] = {}
    for task in list_tasks():  # imports every task module
        module = _registering_module(task)
        names = tuple(n for n in (task.name, *task.aliases) if n.replace("-", "_") != module)
        if names:
            expected[module] = expected.get(module, ()) + names
    assert {m: set(n) for m, n in tasks._MODULE_NAMES.items()} == {
        m: set(n) for m, n in expected.items()
    }


def test_a_name_the_module_is_not_named_after_imports_that_module_alone(tmp_path: Path) -> None:
    """In a fresh interpreter, the first name of each table entry (``docvqa``, ``vqa``, …)
    imports its module alone: never every task module (``_load_all``)."""
    firsts = {module: names[0] for module, names in tasks._MODULE_NAMES.items()}
    code = (
        "import json, sys\n"
        "from vqametrics import tasks\n"
        f"got = {{m: tasks.get_task(n).name for m, n in {firsts!r}.items()}}\n"
        "mods = sorted(m for m in sys.modules if m.startswith('vqametrics.tasks.'))\n"
        "print(json.dumps([got, mods, tasks._ALL_LOADED]))\n"
    )
    src = str(Path(tasks.__file__).resolve().parents[2])
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": src},
        cwd=tmp_path,
    )
    got, mods, loaded_all = json.loads(out.stdout)
    assert loaded_all is False
    assert {m for m in mods if not m[17:].startswith("_")} == {
        f"vqametrics.tasks.{m}" for m in firsts
    }
    assert got == {m: get_task(n).name for m, n in firsts.items()}
