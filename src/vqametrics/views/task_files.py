"""``score TASK --out DIR``: the run's numbers, one record per item, and the signature."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from .output import publish_dir

if TYPE_CHECKING:
    from ..tasks import Task
    from ..tasks._run import TaskEvaluation

__all__ = ["TASK_OUTPUTS", "task_output_files", "write_task_outputs"]

#: The files of ``score TASK --out`` (besides ``manifest.json``), unless the task writes its own.
TASK_OUTPUTS = ("metrics.json", "per_item.jsonl", "signature.txt")


def task_output_files(task: Task) -> tuple[str, ...]:
    """The files ``score TASK --out`` writes: the task's own (``Task.output_files``, VQA v2's
    official four), else :data:`TASK_OUTPUTS`."""
    return task.output_files or TASK_OUTPUTS


def write_task_outputs(
    result: TaskEvaluation,
    out_dir: str | Path,
    *,
    inputs: Sequence[str | os.PathLike[str] | None] = (),
) -> list[Path]:
    """Write ``metrics.json`` (the ``--json`` payload), ``per_item.jsonl`` and
    ``signature.txt`` into *out_dir*, published together with ``manifest.json``
    (:func:`~vqametrics.views.output.publish_dir`); returns the paths written. An output
    that would replace one of *inputs* is refused. A task with its own output hook
    (``Task.write_outputs``: VQA v2's official files) writes those instead."""
    if result.task.write_outputs is not None:
        paths: list[Path] = result.task.write_outputs(result, out_dir, inputs=inputs)
        return paths
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
