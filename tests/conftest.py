"""Shared test fixtures: where the data lives."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
SHARED = ROOT.parent / "shared" / "data"


@pytest.fixture
def shared_data() -> Path:
    """``../shared/data`` beside the checkout; tests using it skip when it is absent."""
    if not SHARED.is_dir():
        pytest.skip(f"shared data not found at {SHARED} (read-only team data; absent here)")
    return SHARED


@pytest.fixture
def fixture_5q() -> Path:
    """The 5-question VQA v2 val fixture with the official script's own outputs (CC BY 4.0)."""
    return DATA / "vqa2_val_5q_official"
