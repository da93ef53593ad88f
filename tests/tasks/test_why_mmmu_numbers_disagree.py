"""``docs/why-mmmu-numbers-disagree.md`` is generated; the committed page must be up to date, and
its statements must hold for the spec's cases."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

GENERATOR = Path(__file__).resolve().parents[2] / "docs" / "gen_why_mmmu_numbers_disagree.py"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_why_mmmu_numbers_disagree", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_page_is_up_to_date() -> None:
    module = _generator()
    committed = module.OUTPUT.read_text(encoding="utf-8")
    assert committed == module.render(), (
        "docs/why-mmmu-numbers-disagree.md is stale: run "
        "python docs/gen_why_mmmu_numbers_disagree.py"
    )


def test_page_states_the_spec_facts() -> None:
    page = _generator().render()
    # spec mcq-reasoning.md §1.2: the first six official draws over ABCD
    assert "the first six draws are A, A, C, B, B, B" in page
    # §2.1: "B. dog" reaches the official random draw; lmms-eval reads B
    assert "| `B. dog` | random | B |" in page
    # §1.3: lmms-eval scores the open question wrong that the official scorer gets right
    assert "| `The answer is 12` | `12` | `12.0` | right | wrong | right |" in page
    # §1.4: a bare A is right for VLMEvalKit's hidden two-option question
    assert "| `A` | `1.06` | `' a', 'a '` | wrong | wrong | wrong | right |" in page
