"""What a task declares about itself (kind, references, Hub datasets) and where it shows.

A task added to the registry is listed under its declared kind by ``score --help`` and by
``profiles --task all``, and its declaration agrees with its profiles (a yes/no task parses
yes/no, a multiple-choice task reads letters). The rewards' side of the declaration is in
tests/workflow/test_rewards.py. Expected values are the declarations themselves (the inputs),
never what the renderers print of them.
"""

from __future__ import annotations

import re
from typing import get_args

import pytest

from vqametrics.cli import main
from vqametrics.tasks import Task, list_tasks
from vqametrics.tasks._base import KIND_TITLES, TaskKind, TaskReferences

TASKS = list_tasks()
NAMES = [t.name for t in TASKS]


@pytest.fixture(params=TASKS, ids=NAMES)
def task(request: pytest.FixtureRequest) -> Task:
    t: Task = request.param
    return t


def test_declarations_are_known_values(task: Task) -> None:
    assert task.kind in get_args(TaskKind), task.kind
    assert task.references in get_args(TaskReferences), task.references
    assert set(KIND_TITLES) == set(get_args(TaskKind)), "every kind has a heading"
    for dataset in task.datasets:
        assert re.fullmatch(r"[A-Za-z0-9][\w.-]*/[\w.-]+", dataset), dataset


def test_no_name_is_given_twice() -> None:
    # names, aliases and datasets are one namespace for a reward's data_source (lowercased)
    seen: dict[str, str] = {}
    for t in TASKS:
        for name in {n.lower() for n in (t.name, *t.aliases, *t.datasets)}:
            assert name not in seen, f"{name!r} names both {seen[name]} and {t.name}"
            seen[name] = t.name


def test_the_kind_agrees_with_the_profiles(task: Task) -> None:
    if task.kind == "yes-no":  # every profile reads yes / no / other
        assert all(p.parse is not None for p in task.profiles), task.name
    if task.kind == "multiple-choice":  # every profile names the letter lineage it reads
        assert any(p.choice is not None for p in task.profiles), task.name


def _sections(lines: list[str], heading: re.Pattern[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    current = None
    for line in lines:
        m = heading.fullmatch(line)
        if m:
            current = m.group(1)
            out[current] = []
        elif current is not None:
            out[current].append(line)
    return out


def test_score_help_lists_every_task_under_its_kind(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["score", "--help"])
    text = capsys.readouterr().out
    block = text.split("tasks by kind", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    sections = _sections(block, re.compile(r" (\S.*):"))
    for t in TASKS:
        rows = sections.get(KIND_TITLES[t.kind], [])
        assert any(r.split()[0] == t.name for r in rows), f"{t.name} not under {t.kind}"
    assert sum(len(rows) for rows in sections.values()) == len(TASKS)


def test_profiles_of_all_tasks_are_grouped_by_kind(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["profiles", "--task", "all"]) == 0
    lines = capsys.readouterr().out.splitlines()
    sections = _sections(lines, re.compile(r"== (.+) =="))
    assert list(sections) == [k for k in KIND_TITLES.values() if k in sections]
    for t in TASKS:
        rows = sections.get(KIND_TITLES[t.kind], [])
        assert any(r.startswith(f"{t.name} — ") for r in rows), f"{t.name} not under {t.kind}"
