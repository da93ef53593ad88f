"""Write an evaluation's files: the official four, ``per_question.jsonl``, ``signature.txt``."""

from __future__ import annotations

from pathlib import Path

import orjson

from ..evaluate import VQAEvaluation, _gc_paused

__all__ = ["write_vqa_outputs"]

_OPTS = orjson.OPT_NON_STR_KEYS


def write_vqa_outputs(result: VQAEvaluation, out_dir: str | Path) -> list[Path]:
    """Write the official ``accuracy``/``evalQA``/``evalQuesType``/``evalAnsType`` JSON files
    (question ids become string keys, as with the script's ``json.dump``), plus
    ``per_question.jsonl`` and ``signature.txt``; returns the paths written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with _gc_paused():
        files = None
        if result._fast is not None:
            # the same bytes, assembled in bulk (score/_fast.py)
            from ..score._fast import official_files

            files = official_files(result, result._fast)
        if files is None:
            files = {k: orjson.dumps(v, option=_OPTS) for k, v in result.official_outputs().items()}
        for name, data in files.items():
            path = out / f"{name}.json"
            path.write_bytes(data)
            written.append(path)
        del files
        path = out / "per_question.jsonl"
        with path.open("wb") as fh:
            if result._fast is not None:
                from ..score._fast import jsonl_chunks

                for chunk in jsonl_chunks(result, result._fast):
                    fh.write(chunk)
            else:
                for rec in result.per_question():
                    fh.write(orjson.dumps(rec, option=_OPTS | orjson.OPT_APPEND_NEWLINE))
        written.append(path)
    path = out / "signature.txt"
    path.write_text(result.signature.format() + "\n", encoding="utf-8")
    written.append(path)
    return written
