"""``score TASK --out DIR``: the run's numbers, one record per item, and the signature."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from .output import publish_dir

if TYPE_CHECKING:
    from ..tasks._run import TaskEvaluation

__all__ = ["TASK_OUTPUTS", "write_task_outputs"]

#: The files of ``score TASK --out`` (besides ``manifest.json``).
TASK_OUTPUTS = ("metrics.json", "per_item.jsonl", "signature.txt")


def write_task_outputs(
    result: TaskEvaluation,
    out_dir: str | Path,
    *,
    inputs: Sequence[str | os.PathLike[str] | None] = (),
) -> list[Path]:
    """Write ``metrics.json`` (the ``--json`` payload), ``per_item.jsonl`` and
    ``signature.txt`` into *out_dir*, published together with ``manifest.json``
    (:func:`~vqametrics.report.output.publish_dir`); returns the paths written. An output
    that would replace one of *inputs* is refused."""
    opt = orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS
    signature = result.signature.format()
    files = {
        "metrics.json": orjson.dumps(result.as_dict(), option=opt) + b"\n",
        "per_item.jsonl": b"".join(
            orjson.dumps(rec, option=orjson.OPT_NON_STR_KEYS) + b"\n" for rec in result.per_item()
        ),
        "signature.txt": (signature + "\n").encode(),
    }
    return publish_dir(out_dir, files, inputs=inputs, signature=signature)
