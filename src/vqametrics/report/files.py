"""Write an evaluation's files: the official four, ``per_question.jsonl``, ``signature.txt``."""

from __future__ import annotations

from pathlib import Path

import orjson

from ..evaluate import VQAEvaluation

__all__ = ["write_vqa_outputs"]

_OPTS = orjson.OPT_NON_STR_KEYS


def write_vqa_outputs(result: VQAEvaluation, out_dir: str | Path) -> list[Path]:
    """Write the official ``accuracy``/``evalQA``/``evalQuesType``/``evalAnsType`` JSON files
    (question ids become string keys, as with the script's ``json.dump``), plus
    ``per_question.jsonl`` and ``signature.txt``; returns the paths written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, value in result.official_outputs().items():
        path = out / f"{name}.json"
        path.write_bytes(orjson.dumps(value, option=_OPTS))
        written.append(path)
    path = out / "per_question.jsonl"
    with path.open("wb") as fh:
        for rec in result.per_question():
            fh.write(orjson.dumps(rec, option=_OPTS | orjson.OPT_APPEND_NEWLINE))
    written.append(path)
    path = out / "signature.txt"
    path.write_text(result.signature.format() + "\n", encoding="utf-8")
    written.append(path)
    return written
