"""``docs/why-toolkits-disagree.md`` is generated; the committed page must be up to date."""

from __future__ import annotations

import importlib.util
from pathlib import Path

GENERATOR = Path(__file__).resolve().parents[2] / "docs" / "gen_why_toolkits_disagree.py"


def test_committed_page_is_up_to_date() -> None:
    spec = importlib.util.spec_from_file_location("gen_why_toolkits_disagree", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    expected = module.render()
    committed = module.OUTPUT.read_text(encoding="utf-8")
    assert committed == expected, (
        "docs/why-toolkits-disagree.md is stale: run python docs/gen_why_toolkits_disagree.py"
    )
