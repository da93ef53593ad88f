"""Each toolkit pin is written once (``vqametrics.core.toolkits``): no other string in the package
names lmms-eval's, VLMEvalKit's, Qwen-VL's or a pin shared by several tasks (LLaVA, MMF,
pix2struct) commit or release, and the tokens read as before."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from vqametrics.core.toolkits import (
    LLAVA,
    LLAVA_32CEBC3,
    LMMS_EVAL,
    MMF,
    PIX2STRUCT,
    QWEN_VL,
    VLMEVALKIT,
)

SRC = Path(__file__).resolve().parents[1] / "src" / "vqametrics"
PINNED = re.compile(
    r"75571cf|e8e78f0|aa00ed0|lmms-eval@0\.7\.3|@(c121f04|32cebc3|5200b75|b0ffc7f|945f27e)\b"
)
ALLOWED = {"core/toolkits.py"}


def _strings(tree: ast.AST) -> list[ast.Constant]:
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def test_pins_are_written_once() -> None:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if path.relative_to(SRC).as_posix() in ALLOWED:
            continue
        for node in _strings(ast.parse(path.read_text(encoding="utf-8"))):
            if PINNED.search(node.value):
                found.append(f"{path.relative_to(SRC)}:{node.lineno}: {node.value[:60]!r}")
    assert found == []


def test_tokens() -> None:
    # the signature tokens published with earlier scores (README, docs/compatibility.md)
    assert LMMS_EVAL.token == "lmms-eval@0.7.3"
    assert VLMEVALKIT.token == "VLMEvalKit@e8e78f0"
    assert QWEN_VL.token == "Qwen-VL@aa00ed0"
    assert VLMEVALKIT.at("vlmeval/x.py") == "open-compass/VLMEvalKit@e8e78f0 vlmeval/x.py"
    # the tokens and sources the profiles printed when these were strings in each task
    assert LLAVA.token == "LLaVA@c121f04" and LLAVA_32CEBC3.token == "LLaVA@32cebc3"
    assert MMF.at("mmf/utils/m4c_evaluators.py") == (
        "facebookresearch/mmf@b0ffc7f mmf/utils/m4c_evaluators.py"
    )
    assert PIX2STRUCT.token == "pix2struct@945f27e"
