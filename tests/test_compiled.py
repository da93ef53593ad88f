"""Every compiled helper (``core.compiled.HELPERS``) is built where this machine can build it."""

from __future__ import annotations

import os

import pytest

from compiled_helpers import built, can_compile
from vqametrics.core.compiled import HELPERS

REQUIRE_ENV = "VQAMETRICS_REQUIRE_EXTENSION"


@pytest.mark.parametrize("helper", HELPERS, ids=[module for module, _ in HELPERS])
def test_each_helper_is_built_where_it_can_be(helper: tuple[str, str]) -> None:
    """``make test`` sets VQAMETRICS_REQUIRE_EXTENSION=1: on a machine with a C compiler and the
    Python headers, an install that did not build a helper fails here."""
    if os.environ.get(REQUIRE_ENV) != "1":
        pytest.skip(f"{REQUIRE_ENV} is not 1 (make test sets it)")
    if not can_compile():
        pytest.skip("no C compiler or Python headers here: the pure-Python paths are expected")
    assert built(helper) is not None, (
        f"{helper[0]} is not built although this machine can compile it: reinstall "
        "(`uv pip install -e .` or `make test` after touching pyproject.toml) and read the "
        "build hook's warning"
    )
