"""Write an evaluation's files: the official four, ``per_question.jsonl``, ``signature.txt``."""

from __future__ import annotations

from pathlib import Path

import orjson

from ..evaluate import VQAEvaluation, _gc_paused
from ..load._fork import Forked, can_fork

__all__ = ["PendingOutputs", "start_vqa_outputs", "write_vqa_outputs"]

_OPTS = orjson.OPT_NON_STR_KEYS
#: From this many (bulk-scored) questions, ``per_question.jsonl`` is written by a forked child
#: while this process writes the other files: it is most of the writing time, and a child
#: inherits the scored evaluation copy-on-write, so nothing has to be handed over. Below it, a
#: fork costs more than it saves.
PARALLEL_MIN_QUESTIONS = 50_000


def write_vqa_outputs(result: VQAEvaluation, out_dir: str | Path) -> list[Path]:
    """Write the official ``accuracy``/``evalQA``/``evalQuesType``/``evalAnsType`` JSON files
    (question ids become string keys, as with the script's ``json.dump``), plus
    ``per_question.jsonl`` and ``signature.txt``; returns the paths written."""
    with start_vqa_outputs(result, out_dir) as pending:
        return pending.wait()


class PendingOutputs:
    """Files being written by :func:`start_vqa_outputs`; :meth:`wait` finishes them.

    A context manager: leaving it without :meth:`wait` stops the child writer, if any.
    """

    def __init__(self, written: list[Path], worker: Forked | None) -> None:
        self._written = written
        self._worker = worker

    def __enter__(self) -> PendingOutputs:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._worker is not None:
            self._worker.cancel()

    def wait(self) -> list[Path]:
        """Wait for the child writer (re-raising its error, e.g. a full disk); the paths."""
        if self._worker is not None:
            worker, self._worker = self._worker, None
            worker.result()
        return self._written


def start_vqa_outputs(result: VQAEvaluation, out_dir: str | Path) -> PendingOutputs:
    """Start :func:`write_vqa_outputs`: for a large input ``per_question.jsonl`` is written by a
    forked child while this call writes the other files, so that the caller can do other work
    (render its table, free the evaluation) before :meth:`PendingOutputs.wait`. The bytes are
    the same either way."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    jsonl = out / "per_question.jsonl"
    worker = None
    if result._fast is not None and len(result.scores) >= PARALLEL_MIN_QUESTIONS and can_fork():
        worker = Forked(_write_jsonl, result, jsonl)
    try:
        written = _write_official(result, out)
        if worker is None:
            _write_jsonl(result, jsonl)
        written.append(jsonl)
        path = out / "signature.txt"
        path.write_text(result.signature.format() + "\n", encoding="utf-8")
        written.append(path)
    except BaseException:
        if worker is not None:
            worker.cancel()
        raise
    return PendingOutputs(written, worker)


def _write_official(result: VQAEvaluation, out: Path) -> list[Path]:
    """The four official files; returns their paths."""
    written = []
    with _gc_paused():
        files = None
        if result._fast is not None:
            # the same bytes, assembled in bulk (score/_fast.py)
            from ._bulk import official_files

            files = official_files(result, result._fast)
        if files is None:
            files = {k: orjson.dumps(v, option=_OPTS) for k, v in result.official_outputs().items()}
        for name, data in files.items():
            path = out / f"{name}.json"
            path.write_bytes(data)
            written.append(path)
    return written


def _write_jsonl(result: VQAEvaluation, path: Path) -> None:
    """``per_question.jsonl``: one ``orjson.dumps`` line per record (in bulk when possible)."""
    with _gc_paused(), path.open("wb") as fh:
        if result._fast is not None:
            from ._bulk import jsonl_chunks

            for chunk in jsonl_chunks(result, result._fast):
                fh.write(chunk)
        else:
            for rec in result.per_question():
                fh.write(orjson.dumps(rec, option=_OPTS | orjson.OPT_APPEND_NEWLINE))
