"""The examples and numbers in docs/chat-models.md are what the library computes."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from vqametrics.extract import get_answer_extractor, verbose_reasons
from vqametrics.tasks.vqav2 import evaluate_vqa

from .chat_templates import wrap

DOC = (Path(__file__).resolve().parents[2] / "docs" / "chat-models.md").read_text()
SAMPLE = resources.files("vqametrics") / "data" / "vqa2_val_sample"


def _cell(text: str) -> str:
    text = text.strip()
    if text == "—":
        return ""
    if text.startswith("``"):
        text = text[2:-2]
    elif text.startswith("`"):
        text = text[1:-1]
    return text.replace("\\n", "\n").replace("\\|", "|")


def _rows() -> list[list[str]]:
    start = DOC.index("| raw prediction | diagnostics |")
    block = DOC[start:].split("\n\n", 1)[0].splitlines()[2:]
    return [[_cell(c) for c in line.strip().strip("|").split(" | ")] for line in block]


@pytest.mark.parametrize("row", _rows(), ids=lambda r: r[0][:30])
def test_example_rows(row: list[str]) -> None:
    raw, reasons, answer, rules, lmms, vlm, es = row
    got = get_answer_extractor("answer")(raw)
    assert ", ".join(verbose_reasons(raw)) == reasons
    assert (got.text, ", ".join(got.rules)) == (answer, rules)
    assert get_answer_extractor("lmms-eval")(raw).text == lmms
    assert get_answer_extractor("vlmevalkit")(raw).text == vlm
    assert get_answer_extractor("evalscope")(raw).text == es


def test_sample_numbers() -> None:
    plain = json.loads((SAMPLE / "results_majority.json").read_text())
    ann = str(SAMPLE / "annotations.json")
    wrapped = {r["question_id"]: wrap(r["answer"], i) for i, r in enumerate(plain)}
    base = evaluate_vqa(ann, {r["question_id"]: r["answer"] for r in plain})
    assert f"| none (the plain answers, unwrapped) | {base.accuracy['overall']:.2f} |" in DOC
    raw = evaluate_vqa(ann, wrapped)
    assert f"| none (wrapped, as written) | {raw.accuracy['overall']:.2f} |" in DOC
    for name in ("answer", "lmms-eval", "vlmevalkit", "evalscope"):
        r = evaluate_vqa(ann, wrapped, extract=name)
        assert f"| `--extract {name}` | {r.accuracy['overall']:.2f} |" in DOC
    d = raw.diagnostics
    assert f"Diagnostics flag {d.verbose:,} of the {d.n:,} wrapped answers" in DOC
