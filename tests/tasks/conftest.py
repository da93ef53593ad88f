"""Fixtures of the task tests: the VQA-family golden cases and the shared data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
CASES_FILE = ROOT / "tests" / "data" / "vqa-family-cases.json"


def family_cases(section: str) -> list[dict[str, Any]]:
    """The cases of one section of ``vqa-family-cases.json`` (a copy of
    ``../shared/spec/vqa-family-cases.json``, produced by running each toolkit's own code)."""
    cases: list[dict[str, Any]] = json.loads(CASES_FILE.read_text(encoding="utf-8"))[section]
    return cases


def case_params(section: str, profiles: dict[str, str]) -> list[Any]:
    """``pytest.param(case, profile, expected)`` for every case and every profile it names:
    *profiles* maps the cases' key (``official_mmf``) to our profile name (``official``)."""
    params = []
    for case in family_cases(section):
        for key, expected in case["expected"].items():
            if key in profiles:
                params.append(pytest.param(case, profiles[key], expected, id=f"{case['id']}-{key}"))
    return params
