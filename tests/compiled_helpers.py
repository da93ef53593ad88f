"""The compiled helpers as the tests see them: built or not, whatever VQAMETRICS_PURE_PYTHON
says (the tests that compare a helper with its reference need the helper itself)."""

from __future__ import annotations

import importlib
import shlex
import shutil
import sysconfig
from pathlib import Path
from typing import Any


def can_compile() -> bool:
    """Whether this interpreter has what the build hook (hatch_build.py) compiles with."""
    command = shlex.split(sysconfig.get_config_var("LDSHARED") or "")
    include = sysconfig.get_paths().get("include") or ""
    return bool(command) and bool(shutil.which(command[0])) and Path(include, "Python.h").is_file()


def built(helper: tuple[str, str]) -> Any | None:
    """The function of a compiled helper ``(module, function)``, or ``None`` if not built."""
    module, name = helper
    try:
        return getattr(importlib.import_module(module), name)
    except ImportError:
        return None
