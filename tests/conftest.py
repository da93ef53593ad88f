"""Shared test fixtures: where the data lives."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
SHARED_ROOT = ROOT.parent / "shared"
SHARED = SHARED_ROOT / "data"


class SharedPath(type(Path())):  # type: ignore[misc]
    """A path into ``../shared`` whose every ``/`` skips the test when the result is absent,
    so a test skips cleanly whatever part of the shared folder is missing."""

    def __truediv__(self, key: str | Path) -> SharedPath:
        child = SharedPath(super().__truediv__(key))
        if not child.exists():
            pytest.skip(f"{child} is absent (part of ../shared is not checked out)")
        return child

    @property
    def parent(self) -> SharedPath:  # type: ignore[override]
        return SharedPath(super().parent)


def shared_path(*parts: str) -> SharedPath:
    """``../shared/<parts>``, skipping the calling test when any part is absent."""
    path = SharedPath(SHARED_ROOT)
    if not path.is_dir():
        pytest.skip(f"the shared folder is not at {SHARED_ROOT} (read-only team data)")
    for part in parts:
        path = path / part
    return path


@pytest.fixture
def shared_data() -> Path:
    """``../shared/data`` beside the checkout; tests using it skip when it (or any file they
    reach through ``/``) is absent."""
    return shared_path("data")


@pytest.fixture
def shared_spec() -> Path:
    """``../shared/spec``; skips like :func:`shared_data`."""
    return shared_path("spec")


@pytest.fixture
def fixture_5q() -> Path:
    """The 5-question VQA v2 val fixture with the official script's own outputs (CC BY 4.0)."""
    return DATA / "vqa2_val_5q_official"
