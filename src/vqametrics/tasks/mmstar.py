"""MMStar: 1,500 vision-indispensable multiple-choice questions, 6 categories × 3 l2 categories.

Profiles (spec mcq-reasoning.md §4):

- ``official`` — ``MMStar_eval`` (MMStar-Benchmark/MMStar@88f243a): a first-character test,
  category score = hits / **250**, final score = hits / **1500**, whatever the row count;
- ``lmms-eval`` — ``extract_mcq_answer`` with choices A–D, every metric the **macro** mean
  over l2 categories;
- ``vlmevalkit`` / ``vlmevalkit-2025`` / ``vlmevalkit-2024`` — ``can_infer`` of the era,
  the recorded judge, ``report_acc`` (micro ``Overall``, per ``l2-category`` and
  ``category``). VLMEvalKit's sheets of 2024 (such as VILA-1.5's) match ``vlmevalkit-2024``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..kernels.choice.lmms import mmstar_hit
from ..kernels.choice.mmstar import mmstar_official_hit
from . import register_task
from ._base import Aggregate, Item, TaskData, TaskInputs
from ._lmms import MetricRecord, sample_score
from ._mcq import (
    JUDGE_RECORD_OPTION,
    ChoiceTask,
    LmmsDoc,
    doc_answer,
    hit_profile,
    lmms_hit_profile,
    macro_over,
    no_options,
    read_mcq,
    vlmevalkit_profiles,
)
from ._sizes import size_note

__all__ = ["CATEGORIES"]

# MMStar_eval's own table (MMStar@88f243a eval/vlmeval/evaluate/mmstar.py), in its order
CATEGORIES: dict[str, tuple[str, ...]] = {
    "coarse perception": ("image scene and topic", "image style & quality", "image emotion"),
    "fine-grained perception": ("object counting", "recognition", "localization"),
    "instance reasoning": (
        "single-instance reasoning",
        "cross-instance attribute reasoning",
        "cross-instance relation reasoning",
    ),
    "logical reasoning": ("code & sequence reasoning", "diagram reasoning", "common reasoning"),
    "science & technology": (
        "biology & chemistry & physics",
        "electronics & energy & mechanical eng.",
        "geography & earth science & agriculture",
    ),
    "math": ("geometry", "numeric commonsense and calculation", "statistical reasoning"),
}


def _l2(item: Item) -> str | None:
    value = item.fields.get("l2_category", item.fields.get("l2-category"))
    return None if value is None else str(value)


def _official_aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """``MMStar_eval``: ``category = hits / 250``, ``final score = hits / 1500``,
    ``category(l2) = hits / rows of that l2``.

    QUIRK fixed-denominators: a file with fewer rows is still divided by 250 and 1500 (18 right
    answers score 0.012); kept, it is the official number. The script divides by zero when an
    l2 category has no rows and raises on an unknown category: those are said in a note.
    """
    hits = {c: dict.fromkeys(l2s, 0) for c, l2s in CATEGORIES.items()}
    count = {c: dict.fromkeys(l2s, 0) for c, l2s in CATEGORIES.items()}
    unknown = 0
    for item, score in zip(items, scores, strict=True):
        cat, l2 = str(item.fields.get("category")), _l2(item)
        if cat not in hits or l2 not in hits[cat]:
            unknown += 1
            continue
        count[cat][l2] += 1
        hits[cat][l2] += int(score)
    metrics: dict[str, float | int] = {"final score": 0.0}
    per_l2: dict[str, dict[str, float | int]] = {}
    empty = []
    total = 0
    for cat, l2s in hits.items():
        cat_hits = 0
        for l2, h in l2s.items():
            n = count[cat][l2]
            if n:
                per_l2[f"{cat}({l2})"] = {"accuracy": float(h) / float(n), "n": n}
            else:
                empty.append(l2)
            cat_hits += h
        total += cat_hits
        metrics[cat] = float(cat_hits) / 250.0
    metrics["final score"] = float(total) / 1500.0
    metrics["n"] = len(scores)
    notes = []
    if empty:
        notes.append(
            f"{len(empty)} l2 categor(ies) have no rows (e.g. {empty[0]!r}): the official "
            "script divides by zero there and stops; their per-l2 score is left out"
        )
    if unknown:
        notes.append(
            f"{unknown} row(s) name a category or l2 category outside MMStar's table: the "
            "official script raises on them; they are not counted"
        )
    notes += size_note(
        len(scores),
        1500,
        "rows",
        "the official denominators are fixed (250 per category, 1500 overall)",
    )
    return Aggregate(
        metrics=metrics,
        headline="final score",
        units="fraction",
        digits=4,
        breakdowns={"l2_category": per_l2},
        notes=tuple(notes),
    )


def _lmms_aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """lmms-eval ``mmstar_aggregate_results``: ``average`` and each category are the mean of
    the l2-category means (of the rows each metric sees), builtin sums in first-seen order."""
    l2_items = [Item(it.id, it.prediction, it.references, {"l2": _l2(it)}) for it in items]
    metrics: dict[str, float | int] = {"average": macro_over(l2_items, scores, "l2")}
    cats = [str(it.fields.get("category")) for it in items]
    for cat in dict.fromkeys(cats):
        pick = [i for i, c in enumerate(cats) if c == cat]
        metrics[cat] = macro_over([l2_items[i] for i in pick], [scores[i] for i in pick], "l2")
    metrics["n"] = len(scores)
    return Aggregate(metrics=metrics, headline="average", units="fraction", digits=4)


_LMMS_DOC = LmmsDoc(
    id_keys=("index",),
    gold=doc_answer,
    options=no_options,
    fields=("category", "l2_category"),
    # mmstar_process_results: {category: {...score}, "average": {question_id, l2_category, score}}
    recorded=lambda row, where: sample_score(row, ("average",)),
    # no doc (lmms-eval 0.4 on): the same record, index as its question_id, under "average"
    # and under the category's name; target = doc["answer"]
    record=MetricRecord(
        metrics=("average",),
        doc={"index": "question_id", "l2_category": "l2_category"},
        key_field="category",
    ),
)


def _read(inputs: TaskInputs) -> TaskData:
    return read_mcq(
        inputs,
        fields=("category", "l2-category", "l2_category", "split", "question"),
        lmms=_LMMS_DOC,
    )


OFFICIAL = hit_profile(
    "official",
    description="MMStar_eval: first-character test, fixed denominators 250 / 1500",
    reproduces="MMStar-Benchmark/MMStar@88f243a eval/vlmeval/evaluate/mmstar.py MMStar_eval",
    toolkit="MMStar@88f243a",
    hit=mmstar_official_hit,
    lineage="mmstar_official",
    aggregate=_official_aggregate,
)

LMMS_EVAL = lmms_hit_profile(
    "mmstar",
    mmstar_hit,
    "lmms_eval_mmstar",
    "lmms-eval mmstar: extract_mcq_answer (A-D), macro mean over l2 categories",
    _lmms_aggregate,
)

TASK = register_task(
    ChoiceTask(
        name="mmstar",
        kind="multiple-choice",
        title="MMStar",
        metric="mmstar-acc",
        description="multiple choice, 6 categories x 3 l2 (official: fixed denominators)",
        profiles=(OFFICIAL, LMMS_EVAL, *vlmevalkit_profiles("MMStar")),
        read=_read,
        layouts=(
            "VLMEvalKit sheet (index, question, A-D, answer, category, l2_category, prediction)",
            "VLMEvalKit record {model}_MMStar_{judge}_result.xlsx (adds hit, log), "
            "used beside the sheet as the recorded judge",
            "lmms-eval --log_samples with doc (index, question, answer, category, l2_category)",
            "lmms-eval --log_samples without doc: target + the average record (question_id, "
            "l2_category) and its category key",
        ),
        default_profile="official",
        annotations_optional=True,
        options=(JUDGE_RECORD_OPTION,),
    )
)
