"""Shared test fixtures: where the data lives; and the two Hypothesis profiles."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import is_hypothesis_test, settings

# Hypothesis profiles, chosen by VQM_HYPOTHESIS: ``fast`` (the default, ``make test``) runs every
# property test on a fifth of its examples, ``thorough`` (``make test-slow``, CI) on all of them.
# Neither has a deadline: a property fails for what the code returns, never for how long it took
# on a loaded machine (timings are the benchmarks' business).
FAST_DIVISOR = 5
FAST_MIN_EXAMPLES = 10
settings.register_profile("thorough", deadline=None)
settings.register_profile("fast", deadline=None)  # examples scaled per test: _fast_settings
HYPOTHESIS_PROFILE = os.environ.get("VQM_HYPOTHESIS", "fast")
if HYPOTHESIS_PROFILE not in ("fast", "thorough"):
    raise pytest.UsageError(f"VQM_HYPOTHESIS={HYPOTHESIS_PROFILE!r}: use 'fast' or 'thorough'")
settings.load_profile(HYPOTHESIS_PROFILE)

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


def _fast_settings(test: Any) -> None:
    """Scale a property test's ``max_examples`` N (its own ``@settings`` or Hypothesis' default
    100) to N // 5, at least 10: an explicit N wins over any profile, so the fast run replaces
    the test's settings object (the attribute ``@settings`` itself sets)."""
    fn = getattr(test, "__func__", test)
    current = getattr(fn, "_hypothesis_internal_use_settings", None)
    if current is None or getattr(fn, "_vqm_fast", False):
        return
    wanted = max(FAST_MIN_EXAMPLES, current.max_examples // FAST_DIVISOR)
    if wanted < current.max_examples:
        fn._hypothesis_internal_use_settings = settings(current, max_examples=wanted)
    fn._vqm_fast = True


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if HYPOTHESIS_PROFILE != "fast":
        return
    for item in items:
        test = getattr(item, "obj", None)
        if is_hypothesis_test(test):
            _fast_settings(test)
