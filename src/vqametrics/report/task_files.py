"""``score TASK --out DIR``: the run's numbers, one record per item, and the signature."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from .._exceptions import InputError

if TYPE_CHECKING:
    from ..tasks._run import TaskEvaluation

__all__ = ["write_task_outputs"]


def write_task_outputs(result: TaskEvaluation, out_dir: str | Path) -> list[Path]:
    """Write ``metrics.json`` (the ``--json`` payload), ``per_item.jsonl`` and
    ``signature.txt`` into *out_dir*; returns the paths written."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out}: exists and is not a directory")
    out.mkdir(parents=True, exist_ok=True)
    opt = orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS
    files = {
        "metrics.json": orjson.dumps(result.as_dict(), option=opt) + b"\n",
        "per_item.jsonl": b"".join(
            orjson.dumps(rec, option=orjson.OPT_NON_STR_KEYS) + b"\n" for rec in result.per_item()
        ),
        "signature.txt": (result.signature.format() + "\n").encode(),
    }
    paths = []
    for name, data in files.items():
        path = out / name
        path.write_bytes(data)
        paths.append(path)
    return paths
