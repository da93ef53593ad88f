"""A user's script type-checks against the public API (``py.typed``): a right call passes
``mypy --strict`` and a wrong one is caught, as a typed package promises."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mypy")

RIGHT = """
from __future__ import annotations

import vqametrics
from vqametrics.aggregate.stats import BootstrapResult


def overall(results: str, annotations: str) -> float:
    run = vqametrics.evaluate("vqav2", results, annotations=annotations, ci=True)
    intervals: BootstrapResult | None = run.intervals
    assert intervals is not None
    return float(run.headline)


def from_records(records: list[dict[str, object]], truth: dict[str, object]) -> int:
    return len(vqametrics.evaluate("vqav2", records, annotations=truth).scores)
"""

WRONG = """
import vqametrics

vqametrics.evaluate("vqav2", 42, annotations=3.5)
"""


def _mypy(tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "user.py"
    script.write_text(source, encoding="utf-8")
    command = [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(script)]
    return subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, check=False)


@pytest.mark.slow
def test_a_right_call_type_checks(tmp_path: Path) -> None:
    done = _mypy(tmp_path, RIGHT)
    assert done.returncode == 0, done.stdout


@pytest.mark.slow
def test_a_wrong_call_is_caught(tmp_path: Path) -> None:
    done = _mypy(tmp_path, WRONG)
    assert done.returncode == 1
    assert 'Argument 2 to "evaluate" has incompatible type "int"' in done.stdout
    assert 'Argument "annotations" to "evaluate" has incompatible type "float"' in done.stdout
