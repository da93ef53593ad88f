"""The optional compiled helpers (C files beside their reference, built at install time when a
compiler is there): each is an optimisation with a pure-Python reference that gives the same
result, and :data:`PURE_PYTHON_ENV` turns every one of them off."""

from __future__ import annotations

import importlib
import os
from typing import Any

__all__ = ["ANSWER_SCANNER", "HELPERS", "PURE_PYTHON_ENV", "ROW_JOINER", "compiled"]

#: each helper as (module, function): the answer scanner (``readers/_answerscan.c``) and the
#: row joiner (``pipeline/_joinrows.c``), built by ``hatch_build.py``
ANSWER_SCANNER = ("vqametrics.readers._answerscan", "scan_answers")
ROW_JOINER = ("vqametrics.pipeline._joinrows", "join_rows")
HELPERS = (ANSWER_SCANNER, ROW_JOINER)

#: set to any value but ``0`` or empty, no compiled helper is used (for tests, and for anyone
#: who suspects one): the pure-Python references then do all the work
PURE_PYTHON_ENV = "VQAMETRICS_PURE_PYTHON"


def compiled(module: str, name: str) -> Any | None:
    """Function *name* of the compiled *module*, or ``None`` when it is not built (no compiler
    at install time) or :data:`PURE_PYTHON_ENV` turns the compiled helpers off."""
    if os.environ.get(PURE_PYTHON_ENV, "") not in ("", "0"):
        return None
    try:
        return getattr(importlib.import_module(module), name)
    except ImportError:
        return None
