"""Build hook: compile the optional C helpers (:data:`EXTENSIONS`).

Each only makes vqametrics faster (issue 23): the answer scanner loads VQA v2 annotations, the
row joiner assembles a large ``per_question.jsonl``; vqametrics gives the same bytes without
them. So this hook never fails an install: without a C compiler or the Python headers it prints
a warning and the package uses its pure-Python paths. It compiles with the interpreter's own
settings (``sysconfig``), in place for an editable install and into the wheel otherwise.
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

#: each C file and the module it builds
EXTENSIONS = (
    (Path("src", "vqametrics", "readers", "_answerscan.c"), "vqametrics.readers._answerscan"),
    (Path("src", "vqametrics", "pipeline", "_joinrows.c"), "vqametrics.pipeline._joinrows"),
)


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


def build_extension(root: Path, source: Path, module: str, target: Path) -> str | None:
    """Compile *source* (module *module*) to *target*; ``None`` on success, else why it was
    not built."""
    command = compile_command(root / source, target)
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
            [sys.executable, "-c", loads, module, partial],
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


class CompiledHelpersHook(BuildHookInterface):
    """Compiles the C helpers for the wheel (or in place, for an editable install)."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        if version != "editable":
            self._build_dir = tempfile.TemporaryDirectory()
        for source, module in EXTENSIONS:
            name = source.stem + (sysconfig.get_config_var("EXT_SUFFIX") or ".so")
            if version == "editable":
                target = root / source.parent / name
            else:
                target = Path(self._build_dir.name, name)
            why = build_extension(root, source, module, target)
            if why is not None:
                if version == "editable":
                    target.unlink(missing_ok=True)  # an older build of another source: not used
                self.app.display_warning(
                    f"vqametrics: the optional {module} was not compiled; vqametrics uses its "
                    f"(slower) pure-Python path, with the same results.\n{why}"
                )
                continue
            build_data["pure_python"] = False
            build_data["infer_tag"] = True
            if version != "editable":
                inside = "/".join(source.parent.parts[1:])  # src/vqametrics/x -> vqametrics/x
                build_data["force_include"][str(target)] = f"{inside}/{name}"

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        build_dir = getattr(self, "_build_dir", None)
        if build_dir is not None:
            build_dir.cleanup()
