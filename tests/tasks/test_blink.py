"""BLINK: VLMEvalKit's generic MCQ path with report_acc over category."""

from __future__ import annotations

from vqametrics.tasks import get_task
from vqametrics.tasks._run import evaluate_task


def test_report_acc_per_category() -> None:
    rows = [
        {"index": 0, "question": "q", "A": "Point A", "B": "Point B", "answer": "B"}
        | {"category": "Depth", "prediction": "(B)"},
        {"index": 1, "question": "q", "A": "Point A", "B": "Point B", "answer": "A"}
        | {"category": "Depth", "prediction": "I'm sorry, I cannot tell."},
        {"index": 2, "question": "q", "A": "left", "B": "right", "answer": "A"}
        | {"category": "Jigsaw", "prediction": "left"},
    ]
    r = evaluate_task("blink", rows)
    # hand-derived from can_infer: (B) -> B; no letter or option text -> judge (none: a miss);
    # 'left' -> A by option text
    assert r.scores == [1.0, 0.0, 1.0]
    assert r.metrics["Overall"] == 2 / 3
    cats = r.aggregate.breakdowns["category"]
    assert cats["Depth"]["accuracy"] == 0.5 and cats["Jigsaw"]["accuracy"] == 1.0
    assert any("would have needed the judge" in n for n in r.notes)


def test_profiles() -> None:
    task = get_task("blink")
    names = [p.name for p in task.profiles]
    assert names == ["vlmevalkit", "vlmevalkit-2025", "vlmevalkit-2024", "lmms-eval"]
