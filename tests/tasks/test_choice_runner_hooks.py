"""MMMU, MMMU-Pro and ScienceQA run through the one runner: no whole-run evaluator is left,
and an answer extractor, which their letter decisions would silently override, is refused."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from vqametrics.core.exceptions import InputError
from vqametrics.tasks import Task
from vqametrics.tasks._run import evaluate_task


def test_no_task_has_a_whole_run_evaluator() -> None:
    # issue 18: no escape hatch around the runner
    assert "evaluator" not in {f.name for f in dataclasses.fields(Task)}


@pytest.mark.parametrize("task", ["mmmu", "mmmu-pro", "scienceqa"])
def test_extract_is_refused_before_any_file_is_read(task: str, tmp_path: Path) -> None:
    absent = tmp_path / "never_read.json"  # the refusal comes first: no "no such file"
    # a Python caller reads the keyword argument (docs/inputs.md: the caller's language)
    with pytest.raises(InputError, match=rf"^score {task}: extract= does not apply"):
        evaluate_task(task, str(absent), extract="answer")
