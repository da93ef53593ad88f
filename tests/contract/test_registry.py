"""The contract every registered task passes.

For each task of ``list_tasks()`` and its fixture (``fixtures.py``): it scores the fixture;
its per-item scores do not depend on the order of the rows; a missing, an extra and a
duplicated item are handled by the one rule (an error naming the item, with
``allow_missing`` / ``ignore_extra`` / ``on_duplicate`` as the escapes); the JSON document is
plain JSON; ``score`` works on the fixture through the command line and prints the API's
numbers; the task has a card, linked from the cards' index, and a row in the README's table.

Expected values here are properties (equalities between two runs, counts of the fixture's
rows), never numbers computed by the code under test.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

from vqametrics.cli import main
from vqametrics.core.exceptions import InputError
from vqametrics.schema import evaluation_schema
from vqametrics.tasks import Task, list_tasks
from vqametrics.tasks._run import TaskEvaluation, evaluate_task

from .fixtures import FIXTURES, Fixture, Row

ROOT = Path(__file__).resolve().parents[2]
TASKS = list_tasks()
NAMES = [t.name for t in TASKS]


#: (task, check) -> what is not yet so; strict xfails, so a mended gap must be removed here
KNOWN_GAPS: dict[tuple[str, str], str] = {}


def _gap(request: pytest.FixtureRequest, task: Task, check: str) -> None:
    reason = KNOWN_GAPS.get((task.name, check))
    if reason is not None:
        request.applymarker(pytest.mark.xfail(strict=True, reason=reason))


def _fixture(task: Task) -> Fixture:
    fx = FIXTURES.get(task.name)
    if fx is None:
        pytest.fail(f"task {task.name!r} has no fixture in tests/contract/fixtures.py")
    return fx


def _evaluate(task: Task, tmp: Path, rows: list[Row], **kwargs: Any) -> TaskEvaluation:
    fx = _fixture(task)
    tmp.mkdir(parents=True, exist_ok=True)
    results = fx.write(tmp, rows)
    annotations = fx.annotations(tmp) if fx.annotations else None
    return evaluate_task(
        task, str(results), annotations=annotations and str(annotations), **fx.options, **kwargs
    )


def _by_id(ev: TaskEvaluation) -> dict[str, float]:
    return {str(item.id): s for item, s in zip(ev.data.items, ev.scores, strict=True)}


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12, abs_tol=0)
    return bool(a == b)


def test_every_task_has_a_fixture() -> None:
    assert sorted(FIXTURES) == sorted(NAMES), "tests/contract/fixtures.py and the registry differ"


@pytest.fixture(params=TASKS, ids=NAMES)
def task(request: pytest.FixtureRequest) -> Task:
    t: Task = request.param
    return t


def test_scores_the_fixture(task: Task, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    _gap(request, task, "scores")
    fx = _fixture(task)
    ev = _evaluate(task, tmp_path, fx.rows)
    assert len(ev.scores) == len(ev.data.items)
    assert ev.data.n_missing == 0
    assert all(math.isfinite(s) for s in ev.scores)
    assert isinstance(ev.headline, int | float) and math.isfinite(ev.headline)
    assert ev.signature.format().startswith(task.metric + "|")
    assert f"profile:{task.default_profile}" in ev.signature.format()


def test_scores_do_not_depend_on_row_order(task: Task, tmp_path: Path) -> None:
    fx = _fixture(task)
    forward = _evaluate(task, tmp_path / "a", fx.rows)
    backward = _evaluate(task, tmp_path / "b", fx.rows[::-1])
    assert _by_id(forward) == _by_id(backward)
    for key, value in forward.metrics.items():
        assert _close(value, backward.metrics[key]), key


def test_a_duplicated_row_is_an_error_unless_asked(
    task: Task, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    _gap(request, task, "duplicate")
    fx = _fixture(task)
    rows = [*fx.rows, dict(fx.rows[0])]
    with pytest.raises(InputError, match=r"(?i)duplicate|twice|more than once"):
        _evaluate(task, tmp_path / "a", rows)
    ev = _evaluate(task, tmp_path / "b", rows, on_duplicate="last")
    assert _by_id(ev) == _by_id(_evaluate(task, tmp_path / "c", fx.rows))


def test_an_empty_prediction_is_missing_by_one_rule(
    task: Task, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    _gap(request, task, "empty")
    fx = _fixture(task)
    rows = [dict(r) for r in fx.rows]
    rows[1][fx.prediction_column] = ""
    if fx.empty_prediction == "scored":
        ev = _evaluate(task, tmp_path / "a", rows)
        # as many items as the whole fixture has (MMBench's items are its questions, not rows)
        whole = _evaluate(task, tmp_path / "whole", fx.rows)
        assert ev.data.n_missing == 0 and len(ev.scores) == len(whole.scores)
        return
    with pytest.raises(InputError, match=r"allow.missing"):
        _evaluate(task, tmp_path / "a", rows)
    ev = _evaluate(task, tmp_path / "b", rows, allow_missing=True)
    assert ev.data.n_missing == 1
    assert len(ev.scores) == len(fx.rows)


def test_json_document_follows_the_schema(task: Task, tmp_path: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    fx = _fixture(task)
    ev = _evaluate(task, tmp_path, fx.rows)
    doc = ev.as_dict()
    back = json.loads(json.dumps(doc, allow_nan=False))
    jsonschema.validate(back, evaluation_schema(1))
    assert back["schema"] == 1 and back["task"] == task.name
    assert back["signature"] == ev.signature.format()
    assert back["n"] == len(ev.scores)


def test_explains_an_item_and_becomes_a_dataframe(task: Task, tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    fx = _fixture(task)
    ev = _evaluate(task, tmp_path, fx.rows)
    first = ev.data.items[0]
    why = ev.explain(first.id)
    text = why.text()
    # it names what was compared: the prediction as written, or the item it belongs to
    assert (first.prediction or "") in text or str(first.id) in text, text
    frame = ev.to_pandas()
    assert isinstance(frame, pd.DataFrame) and len(frame) == len(ev.scores)
    assert {"id", "score"} <= set(frame.columns)
    assert list(frame["score"]) == list(ev.scores)
    assert repr(ev).startswith("<") and task.name in repr(ev)
    assert "<table" in ev._repr_html_()


def test_score_command_prints_the_api_numbers(
    task: Task, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fx = _fixture(task)
    ev = _evaluate(task, tmp_path, fx.rows)
    argv = ["score", task.name, "--results", str(fx.write(tmp_path, fx.rows))]
    if fx.annotations:
        argv += ["--annotations", str(fx.annotations(tmp_path))]
    assert main([*argv, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc == json.loads(json.dumps(ev.as_dict()))  # the one document, from the library
    assert doc["signature"] == ev.signature.format()
    assert set(ev.metrics) <= set(doc["metrics"])
    for key, value in ev.metrics.items():
        assert _close(doc["metrics"][key], value), key


def _cards_index() -> str:
    return (ROOT / "docs" / "tasks" / "README.md").read_text(encoding="utf-8")


def test_card_exists_and_is_linked(task: Task) -> None:
    index = _cards_index()
    row = next(
        (line for line in index.splitlines() if re.search(rf"`{re.escape(task.name)}`", line)),
        None,
    )
    assert row is not None, f"docs/tasks/README.md has no row for {task.name!r}"
    links = re.findall(r"\]\(([^)]+)\)", row)
    assert links, f"the row for {task.name!r} in docs/tasks/README.md links no card"
    for link in links:
        assert (ROOT / "docs" / "tasks" / link).resolve().is_file(), link


def _readme_task_table() -> set[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## The rest of a paper's table", 1)[1].split("\n## ", 1)[0]
    names: set[str] = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            first_cell = line.split("|")[1]
            names.update(re.findall(r"`([a-z0-9-]+)`", first_cell))
    return names


def test_readme_task_table_equals_the_registry() -> None:
    aliases = {a for t in TASKS for a in t.aliases}
    shown = _readme_task_table()
    assert shown - aliases == set(NAMES)
