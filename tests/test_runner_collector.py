"""The task runner pauses the cyclic collector while it reads and scores (issue 23: its passes
over a large run's objects cost a sixth of it), and leaves it as it found it, on an error too."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import vqametrics

FIXTURE = Path(__file__).parent / "data" / "vqa2_val_5q_official"


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Whether the collector was enabled when the runner's steps began, per run."""
    from vqametrics.tasks import _run

    states: list[bool] = []
    real_run = _run._run

    def run(t: Any, *args: Any, **kwargs: Any) -> Any:
        states.append(gc.isenabled())
        if kwargs.get("judge") is not None:
            raise _Stop  # the state is what this test wants, not a judge's verdicts
        return real_run(t, *args, **kwargs)

    monkeypatch.setattr(_run, "_run", run)
    yield states


class _Stop(Exception):
    pass


def test_paused_while_scoring_and_restored(seen: list[bool]) -> None:
    results = str(FIXTURE / "results.json")
    annotations = str(FIXTURE / "annotations.json")
    assert gc.isenabled()
    evaluation = vqametrics.evaluate("vqav2", results, annotations=annotations)
    assert evaluation.aggregate is not None
    assert seen == [False] and gc.isenabled()
    gc.disable()
    try:
        vqametrics.evaluate("vqav2", results, annotations=annotations)
        assert not gc.isenabled()  # a caller's own pause is kept
    finally:
        gc.enable()


def test_restored_after_an_input_error(seen: list[bool], tmp_path: Path) -> None:
    broken = tmp_path / "results.json"
    broken.write_text('[{"question_id": 1, "answer": "x"}, {')
    with pytest.raises(vqametrics.InputError):
        vqametrics.evaluate("vqav2", str(broken), annotations=str(FIXTURE / "annotations.json"))
    assert seen == [False] and gc.isenabled()


def test_not_paused_while_a_judge_is_asked(seen: list[bool], tmp_path: Path) -> None:
    # a judge's HTTP client may run for long and make cycles: the collector stays on
    rows = tmp_path / "pope.jsonl"
    rows.write_text('{"question_id": 1, "text": "Yes", "label": "yes"}\n')
    from vqametrics.judge import JudgeClient

    client = JudgeClient("http://127.0.0.1:9/v1", "m", cache_dir=tmp_path / "cache")
    with pytest.raises(_Stop):  # stopped before the client is asked anything
        vqametrics.evaluate("pope", str(rows), judge=client)
    assert seen == [True] and gc.isenabled()
