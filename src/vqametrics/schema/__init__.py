"""The JSON Schema of an evaluation's document (``TaskEvaluation.as_dict()``, ``--json``)."""

from __future__ import annotations

import json
from importlib.resources import files
from typing import Any

__all__ = ["evaluation_schema"]


def evaluation_schema(version: int = 1) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of schema *version* of the evaluation document."""
    text = files(__name__).joinpath(f"evaluation-{version}.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
