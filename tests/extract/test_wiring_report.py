"""The HTML report's chat-answers section: diagnostics with examples, and per-rule counts."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from vqametrics.views.html import build_report, render_report

from .chat_templates import wrap

SAMPLE = resources.files("vqametrics") / "data" / "vqa2_val_sample"


@pytest.fixture(scope="module")
def wrapped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    plain = json.loads((SAMPLE / "results_majority.json").read_text())[:400]
    rows = [
        {"question_id": r["question_id"], "answer": wrap(r["answer"], i)}
        for i, r in enumerate(plain)
    ]
    path = tmp_path_factory.mktemp("chat") / "chat.json"
    path.write_text(json.dumps(rows))
    return path


def test_section_without_extract(wrapped: Path) -> None:
    model = build_report(
        str(SAMPLE / "annotations.json"), [wrapped], ignore_extra=True, allow_missing=True
    )
    run = model.runs[0]
    d = run.evaluation.diagnostics
    assert d is not None and d.verbose > 0
    assert run.if_extracted is not None and run.if_extracted > run.evaluation.accuracy["overall"]
    html = render_report(model)
    assert '<h2 id="chat">Chat-style answers</h2>' in html
    assert f"{d.verbose} of {d.n} predictions look verbose." in html
    assert "&#x27;Answer: no&#x27;" in html  # an example, raw


def test_section_with_extract(wrapped: Path) -> None:
    model = build_report(
        str(SAMPLE / "annotations.json"),
        [wrapped],
        ignore_extra=True,
        allow_missing=True,
        extract="answer",
    )
    ev = model.runs[0].evaluation
    assert ev.extraction is not None and model.runs[0].if_extracted is None
    html = render_report(model)
    counts = ev.extraction.rule_counts()
    assert f'<th scope="row">yes_no</th><td class="n">{counts["yes_no"]}</td>' in html
    assert "extract:answer" in html
