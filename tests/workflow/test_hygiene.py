"""CLI hygiene: a closed pipe is silent, install hints fit a clone, ../shared skips cleanly."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

import vqametrics
from vqametrics.core import extras as _extras

SAMPLE = Path(vqametrics.__file__).parent / "data" / "vqa2_val_sample"


def test_closed_pipe_is_silent() -> None:
    # diff --json lists all 1,515 changed questions: far more than a pipe buffer holds
    cmd = [
        sys.executable,
        "-m",
        "vqametrics",
        "diff",
        "--annotations",
        str(SAMPLE / "annotations.json"),
        "--results",
        str(SAMPLE / "results_majority.json"),
        "--results",
        str(SAMPLE / "results_minority.json"),
        "--bootstrap",
        "10",
        "--permutations",
        "10",
        "--json",
    ]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()  # the reader is gone before the first write (`| true`, `| head -0`)
        err = proc.stderr.read().decode()
        code = proc.wait(timeout=120)
    # nothing but the diagnostics line (the simulated minority answers hold a few long ones)
    lines = [line for line in err.splitlines() if "predictions look verbose" not in line]
    assert lines == [], err
    assert code in (0, 141, -signal.SIGPIPE)


def test_install_hint_from_a_clone(monkeypatch: pytest.MonkeyPatch) -> None:
    # the tests run from the source checkout (editable install): pip must install '.'
    assert _extras.install_hint("report").startswith("pip install -e '.[report]'  (in ")
    monkeypatch.setattr(_extras, "_checkout", lambda: None)
    assert _extras.install_hint("report") == "pip install 'vqametrics[report]'"


def test_a_missing_part_of_shared_skips() -> None:
    from conftest import shared_path  # type: ignore[import-not-found]

    with pytest.raises(pytest.skip.Exception, match=r"absent|not at"):
        shared_path("no-such-folder", "file.json")


def test_make_demo_installs_only_the_demo_extra() -> None:
    make = subprocess.run(
        ["make", "-n", "-B", "demo"],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        check=False,
    )
    if make.returncode != 0:
        pytest.skip(f"make is not usable here: {make.stderr.strip()[:80]}")
    installs = [ln for ln in make.stdout.splitlines() if "pip install" in ln and " -e " in ln]
    assert installs and all("'.[demo]'" in ln for ln in installs), make.stdout
