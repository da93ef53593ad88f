"""What the judge-stage tests share: the client they point at a local stub judge, the MM-Vet
questions and answers both files grade, and the writers of their input files."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from judge.stub import Stub
from vqametrics.judge import JudgeClient
from vqametrics.tasks._run import evaluate_task

#: three MM-Vet questions (mm-vet.json's fields) and a model's answers to them
MMVET_META = {
    "v1_0": {"question": "What is x?", "answer": "-1<AND>-5", "capability": ["math"]},
    "v1_1": {"question": "Color?", "answer": "blue<OR>navy", "capability": ["rec", "ocr"]},
    "v1_2": {"question": "Why?", "answer": "because", "capability": ["gen", "know", "spat"]},
}
MMVET_ANSWERS = {"v1_0": "x = -1", "v1_1": "It is blue.", "v1_2": "no idea"}


def judge_client(stub: Stub, tmp_path: Path, **kw: Any) -> JudgeClient:
    """A judge client of *stub*: its own cache under *tmp_path*, no back-off between tries."""
    return JudgeClient(stub.url, "stub-judge", cache_dir=tmp_path / "cache", backoff=0.0, **kw)


def mmvet_files(tmp_path: Path) -> tuple[Path, Path]:
    """The official layout: the model's ``{id: answer}`` file and ``mm-vet.json``."""
    meta, answers = tmp_path / "mm-vet.json", tmp_path / "model.json"
    meta.write_text(json.dumps(MMVET_META), encoding="utf-8")
    answers.write_text(json.dumps(MMVET_ANSWERS), encoding="utf-8")
    return answers, meta


def mmvet_recorded(tmp_path: Path, replies: Mapping[str, list[str]]) -> Path:
    """Records of the same answers with the judge's *replies* to each (``judge_reply``)."""
    rows = [
        {
            "question_id": k,
            "capability": ",".join(m["capability"]),
            "answer": m["answer"],
            "prediction": MMVET_ANSWERS[k],
            "judge_reply": replies[k],
        }
        for k, m in MMVET_META.items()
    ]
    path = tmp_path / "recorded.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


def mathvista_file(
    tmp_path: Path, problems: Iterable[Mapping[str, Any]], extractions: Mapping[str, str] | None
) -> Path:
    """An official ``output_<model>.json`` of *problems*; with *extractions*, the same file
    once extracted (``recorded.json``)."""
    rows = {}
    for p in problems:
        row = dict(p)
        if extractions is not None:
            row["extraction"] = extractions[p["pid"]]
        rows[p["pid"]] = row
    path = tmp_path / ("recorded.json" if extractions is not None else "output_m.json")
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


def judged(task: str, results: Any, stub: Stub, tmp_path: Path, **kw: Any) -> Any:
    """*results* of *task* scored with *stub* as the judge (*kw*: ``profile``, ``annotations``,
    ``judge_prompt`` …)."""
    return evaluate_task(task, results, judge=judge_client(stub, tmp_path), **kw)


def problem(
    pid: str, answer: str, response: str, *, query: str, choices: list[str] | None = None, **kw: Any
) -> dict[str, Any]:
    """A MathVista problem as ``output_<model>.json`` holds it: ``multi_choice`` text with
    *choices*, else ``free_form`` integer; no precision; *kw* adds fields (``question``)."""
    return {
        "pid": pid,
        "question_type": "multi_choice" if choices else "free_form",
        "answer_type": "text" if choices else "integer",
        "choices": choices,
        "precision": None,
        "answer": answer,
        "query": query,
        **kw,
        "response": response,
    }
