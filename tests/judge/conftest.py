"""The ``stub`` fixture: a fresh chat-completions stub server per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .stub import Stub, serve


@pytest.fixture
def stub() -> Iterator[Stub]:
    with serve(Stub()) as s:
        yield s
