"""Start a new benchmark: ``python scripts/new_task.py NAME [--title TITLE]``.

Writes the three files a benchmark is made of — the task module
(``src/vqametrics/tasks/NAME.py``), its test file (``tests/tasks/test_NAME.py``) and its metric
card (``docs/tasks/NAME.md``) — and the three rows that list it: the cards' index
(``docs/tasks/README.md``), the README's task table and the contract fixture
(``tests/contract/fixtures.py``). The module starts as an exact-match task over VLMEvalKit-style
sheets, so the contract test passes at once; replace its scorer, aggregation and reader with
the benchmark's official ones, and the TODOs of the test and the card with real cases.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

MODULE = '''"""{title}: TODO one line on what the benchmark asks and who published its scorer.

TODO: the official scorer (repository@commit:path), its formula, and each quirk kept.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import register_task
from ._base import Aggregate, Item, Task, TaskData, TaskInputs, TaskProfile
from ._common import mean, read_vlmevalkit

__all__ = ["exact_match"]


def exact_match(prediction: str, references: Sequence[str]) -> float:
    """``max_r [prediction.strip().lower() == r.strip().lower()]`` — 1.0 or 0.0 (TODO: the
    official per-item rule)."""
    p = prediction.strip().lower()
    return 1.0 if any(p == r.strip().lower() for r in references) else 0.0


def _aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """Accuracy in percent (TODO: the official aggregation and its breakdowns)."""
    return Aggregate(
        metrics={{"accuracy": 100.0 * mean(scores), "n": len(scores)}},
        headline="accuracy",
        units="percent",
    )


def _read(inputs: TaskInputs) -> TaskData:
    return read_vlmevalkit(inputs, fields=("category", "question"), list_answers=False)


OFFICIAL = TaskProfile(
    name="official",
    description="TODO: what the official scorer does, in one line",
    reproduces="TODO: repository@commit:path",
    toolkit="{name}@TODO",
    score=exact_match,
    aggregate=_aggregate,
)

TASK = register_task(
    Task(
        name="{name}",
        title="{title}",
        metric="{name}-acc",
        description="TODO: one line for the task list",
        profiles=(OFFICIAL,),
        read=_read,
        layouts=("VLMEvalKit spreadsheet (index, question, answer, prediction)",),
        annotations_optional=True,
        kind="open",  # TODO: open, yes-no, multiple-choice, mixed or judged (tasks/_base.py)
    )
)
'''

TEST = '''"""{title}: TODO what these tests pin (official cases, quirks, a reported score)."""

from __future__ import annotations

import pytest

from vqametrics.tasks import get_task, score_answer


def test_registered() -> None:
    assert get_task("{name}").title == "{title}"


def test_exact_match_forgives_case_and_whitespace_only() -> None:
    # hand-derived from the rule in the module's docstring
    assert score_answer("{name}", " Cat ", ["cat"]) == 1.0
    assert score_answer("{name}", "cat.", ["cat"]) == 0.0


def test_official_cases() -> None:
    # fails until it is written: the official scorer's own cases and the quirks it keeps
    pytest.fail("TODO: the official cases of {name}")
'''

CARD = """---
title: {title}
module: vqametrics.tasks.{module} (task "{name}")
cli: vqametrics score {name} --results R
direction: higher is better
range: 0–100 (percent)
---

# Metric card: {title}

## What it asks

TODO.

## The official scorer

TODO: the formula, in code, and each quirk with a worked example computed by the library.

## Profiles

| profile | reproduces | per item | aggregate |
|---|---|---|---|
| `official` (default) | TODO | exact match | mean × 100 |

## Inputs

`vqametrics score {name}` reads a VLMEvalKit-style sheet (`index`, `question`, `answer`,
`prediction`).
"""


def _insert_row(path: Path, after: str, row: str) -> None:
    """Add *row* to the markdown table that follows the line starting with *after*."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith(after))
    end = start + 1
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    lines.insert(end, row + "\n")
    path.write_text("".join(lines), encoding="utf-8")


def scaffold(name: str, title: str, root: Path = ROOT) -> list[Path]:
    """Write the new task's files under *root*; returns the paths written or changed."""
    if not re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", name):
        raise SystemExit(f"new_task: {name!r} is not a task name (lower case, digits, dashes)")
    module = name.replace("-", "_")
    files = {
        root / "src" / "vqametrics" / "tasks" / f"{module}.py": MODULE,
        root / "tests" / "tasks" / f"test_{module}.py": TEST,
        root / "docs" / "tasks" / f"{module}.md": CARD,
    }
    for path in files:
        if path.exists():
            raise SystemExit(f"new_task: {path.relative_to(root)} exists already")
    for path, template in files.items():
        path.write_text(template.format(name=name, title=title, module=module), encoding="utf-8")
    index = root / "docs" / "tasks" / "README.md"
    _insert_row(index, "| task | page |", f"| `{name}` | [{module}.md]({module}.md) | TODO |")
    readme = root / "README.md"
    _insert_row(readme, "| task | official scorer", f"| `{name}` | TODO | — | accuracy (%) |")
    fixtures = root / "tests" / "contract" / "fixtures.py"
    with fixtures.open("a", encoding="utf-8") as f:
        f.write(f'FIXTURES["{name}"] = Fixture(_OPEN)  # TODO: rows in the layout it reads\n')
    return [*files, index, readme, fixtures]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="the task's registry name, e.g. mmstar")
    parser.add_argument("--title", help="its display name (default: the name)")
    args = parser.parse_args(argv)
    for path in scaffold(args.name, args.title or args.name):
        print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
