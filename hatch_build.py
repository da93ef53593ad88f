"""Build hook: compile the optional answer scanner (src/vqametrics/readers/_answerscan.c).

The scanner only makes VQA v2 annotations load faster (issue 23); vqametrics gives the same
bytes without it. So this hook never fails an install: without a C compiler or the Python
headers it prints a warning and the package uses its pure-Python path. It compiles with the
interpreter's own settings (``sysconfig``), in place for an editable install and into the wheel
otherwise.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

SOURCE = Path("src", "vqametrics", "readers", "_answerscan.c")
MODULE = "vqametrics.readers._answerscan"


def compile_command(source: Path, target: Path) -> list[str] | None:
    """The interpreter's compile-and-link command for an extension module, or ``None`` where
    sysconfig names none (e.g. Windows builds, which this hook leaves to the pure path)."""
    ldshared = sysconfig.get_config_var("LDSHARED")
    include = sysconfig.get_paths().get("include")
    if not ldshared or not include or not Path(include, "Python.h").is_file():
        return None
    flags = [
        *shlex.split(sysconfig.get_config_var("CFLAGS") or ""),
        *shlex.split(sysconfig.get_config_var("CCSHARED") or ""),
    ]
    return [*shlex.split(ldshared), *flags, f"-I{include}", str(source), "-o", str(target)]


def build_extension(root: Path, target: Path) -> str | None:
    """Compile the scanner to *target*; ``None`` on success, else why it was not built."""
    command = compile_command(root / SOURCE, target)
    if command is None:
        return "no C compiler settings or Python headers for this interpreter"
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, partial = tempfile.mkstemp(suffix=target.name, dir=target.parent)
    os.close(fd)
    command[-1] = partial  # written aside, then moved: never a half-written module in place
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
        if done.returncode:
            return f"{shlex.join(command)} failed:\n{done.stderr.strip()}"
        loads = (
            "import importlib.util as u, sys\n"
            "s = u.spec_from_file_location(sys.argv[1], sys.argv[2])\n"
            "s.loader.exec_module(u.module_from_spec(s))\n"
        )
        check = subprocess.run(
            [sys.executable, "-c", loads, MODULE, partial],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if check.returncode:
            return f"the compiled module does not load:\n{check.stderr.strip()}"
        os.replace(partial, target)
        return None
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{shlex.join(command)}: {exc}"
    finally:
        if os.path.exists(partial):
            os.unlink(partial)


class AnswerScanHook(BuildHookInterface):
    """Compiles the scanner for the wheel (or in place, for an editable install)."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        name = "_answerscan" + (sysconfig.get_config_var("EXT_SUFFIX") or ".so")
        if version == "editable":
            target = root / SOURCE.parent / name
        else:
            self._build_dir = tempfile.TemporaryDirectory()
            target = Path(self._build_dir.name, name)
        why = build_extension(root, target)
        if why is not None:
            if version == "editable":
                target.unlink(missing_ok=True)  # an older build of another source: not used
            self.app.display_warning(
                "vqametrics: the optional answer scanner was not compiled; VQA annotations "
                f"load through the (slower) pure-Python path, with the same results.\n{why}"
            )
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        if version != "editable":
            build_data["force_include"][str(target)] = "vqametrics/readers/" + name

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        build_dir = getattr(self, "_build_dir", None)
        if build_dir is not None:
            build_dir.cleanup()
