"""OCRBench: 1,000 OCR questions scored by containment, as ``OCRBench/example.py`` does.

The official rule (spec vqa-family §9.1): an item is correct when one of its answers, after
``lower().strip()`` and ``'\\n' → ' '``, is a *substring* of the prediction treated the same
way (so ``1`` matches ``10``); HME100k items are case-sensitive with every space removed. The
score is the raw count of correct items, out of 1000, with a per-type breakdown. lmms-eval
also folds full-width ASCII since bbddc79; VLMEvalKit routes HME by category and adds
``Final Score Norm`` (the count / 10).

Inputs (read in ``_ocrbench_read.py``): OCRBench.json with ``predict``, a VLMEvalKit
spreadsheet, or an lmms-eval samples log (its ``doc`` is the ``echo840/OCRBench`` row:
``dataset``, ``question``, ``question_type``, ``answer``; without ``doc``, ``--annotations
OCRBench.json`` is joined by position).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.exceptions import InputError
from ..core.toolkits import LMMS_EVAL as LMMS_EVAL_PIN
from ..core.toolkits import VLMEVALKIT as VLMEVALKIT_PIN
from . import register_task
from ._base import Aggregate, Item, Task, TaskProfile
from ._ocrbench_read import LMMS_EVAL_METRICS, LMMS_EVAL_REPORTED, read_ocrbench
from ._sizes import size_note

__all__ = [
    "DATASETS",
    "HME_CATEGORY",
    "LMMS_EVAL_METRICS",
    "LMMS_EVAL_REPORTED",
    "SIZE",
    "TYPES",
    "fold_fullwidth",
    "ocrbench_match",
]

#: OCRBench's item count (every profile's Final Score is a count out of it)
SIZE = 1000
HME_DATASET = "HME100k"
HME_CATEGORY = "Handwritten Mathematical Expression Recognition"
#: the six recognition types summed into "Text Recognition", then the other four, in the
#: order example.py prints them
RECOGNITION = (
    "Regular Text Recognition",
    "Irregular Text Recognition",
    "Artistic Text Recognition",
    "Handwriting Recognition",
    "Digit String Recognition",
    "Non-Semantic Text Recognition",
)
TYPES = (
    *RECOGNITION,
    "Scene Text-centric VQA",
    "Doc-oriented VQA",
    "Key Information Extraction",
    HME_CATEGORY,
)
#: example.py's 30 hard-coded dataset names, in its order (used for files of ≠ 1000 items)
DATASETS = (
    "IIIT5K", "svt", "IC13_857", "IC15_1811", "svtp", "ct80", "cocotext", "ctw", "totaltext",
    "HOST", "WOST", "WordArt", "IAM", "ReCTS", "ORAND", "NonSemanticText", "SemanticText",
    "STVQA", "textVQA", "ocrVQA", "ESTVQA", "ESTVQA_cn", "docVQA", "infographicVQA", "ChartQA",
    "ChartQA_Human", "FUNSD", "SROIE", "POIE", "HME100k",
)  # fmt: skip


def fold_fullwidth(text: str) -> str:
    """lmms-eval's fold since bbddc79: U+FF01–U+FF5E → ASCII, U+3000 → space; nothing else."""
    if all(ord(c) < 0x3000 for c in text):
        return text
    out = []
    for c in text:
        cp = ord(c)
        if 0xFF01 <= cp <= 0xFF5E:
            out.append(chr(cp - 0xFEE0))
        elif cp == 0x3000:
            out.append(" ")
        else:
            out.append(c)
    return "".join(out)


def _hme(text: str) -> str:
    return text.strip().replace("\n", " ").replace(" ", "")


def _plain(text: str) -> str:
    return text.lower().strip().replace("\n", " ")


def _plain_folded(text: str) -> str:
    return _plain(fold_fullwidth(text))


def _normalizer(hme: bool, fold: bool) -> Callable[[str], str]:
    """HME100k's normalization, else the plain one (after :func:`fold_fullwidth` when *fold*)."""
    if hme:
        return _hme
    return _plain_folded if fold else _plain


def ocrbench_match(
    prediction: str, references: Sequence[str], *, hme: bool, fold: bool = False
) -> float:
    """1.0 when some answer, normalized, is a substring of the normalized prediction.

    Normalization: HME100k ``strip`` + ``'\\n' → ' '`` + every space removed (case kept);
    otherwise ``lower`` + ``strip`` + ``'\\n' → ' '`` (after :func:`fold_fullwidth` when
    *fold*). Quirks kept from example.py: containment, not equality (``1`` matches ``10``);
    an empty answer matches anything; the newline becomes a space *after* the strip, so
    ``cen\\ntre`` does not contain ``centre``; full-width letters do not match ASCII.
    """
    norm = _normalizer(hme, fold)
    p = norm(prediction)
    return 1.0 if any(norm(a) in p for a in references) else 0.0


def _is_hme_by_dataset(dataset_name: str | None, category: str | None) -> bool:
    # example.py and lmms-eval test the dataset name; without one, the category stands in
    # (every HME100k item is in the HME category of the released data)
    if dataset_name is not None:
        return dataset_name == HME_DATASET
    return category == HME_CATEGORY


@dataclass(frozen=True)
class _Rule:
    """How one toolkit applies example.py's containment: whether the category decides the
    HME100k rule (VLMEvalKit; else the dataset name does), whether the prediction is stripped
    first, and whether full-width ASCII is folded in the non-HME branch."""

    by_category: bool = False
    strip: bool = False
    fold: bool = False

    def hme(self, dataset_name: str | None, category: str | None) -> bool:
        """Whether the item is scored by HME100k's rule."""
        if self.by_category and category is not None:
            return category == HME_CATEGORY
        return _is_hme_by_dataset(dataset_name, category)

    def score(
        self,
        prediction: str,
        references: Sequence[str],
        dataset_name: str | None = None,
        category: str | None = None,
    ) -> float:
        """The item's score: 1.0 when some answer is contained in the prediction."""
        hme = self.hme(dataset_name, category)
        text = prediction.strip() if self.strip else prediction
        return ocrbench_match(text, references, hme=hme, fold=self.fold)


#: example.py: HME100k by ``dataset_name``, containment, no folding
_OFFICIAL_RULE = _Rule()
#: lmms-eval (bbddc79 and later): the prediction stripped, full-width ASCII folded in the
#: non-HME branch, then example.py's containment
_LMMS_EVAL_RULE = _Rule(strip=True, fold=True)
#: lmms-eval before bbddc79 (2026-07-30): the prediction stripped, no folding
_LMMS_EVAL_2025_RULE = _Rule(strip=True)
#: VLMEvalKit: HME by ``category`` (equivalent on the released data), containment
_VLMEVALKIT_RULE = _Rule(by_category=True)


# -- aggregation ---------------------------------------------------------------------------


def _type_sums(items: Sequence[Item], scores: Sequence[float], toolkit: str) -> dict[str, int]:
    sums = dict.fromkeys(TYPES, 0)
    for it, s in zip(items, scores, strict=True):
        t = it.fields.get("category")
        if t not in sums:
            raise InputError(
                f"item {it.id!r}: type {t!r} is not one of OCRBench's 10 types "
                f"({toolkit} sums into a fixed dict and stops with KeyError)"
            )
        sums[t] += int(s)
    return sums


def _printed_sums(sums: Mapping[str, int]) -> dict[str, int]:
    """The numbers example.py prints for a full file, in its order."""
    recognition = sum(sums[t] for t in RECOGNITION)
    out = {"Text Recognition": recognition}
    out.update({t: sums[t] for t in TYPES})
    out["Final Score"] = recognition + sum(sums[t] for t in TYPES[len(RECOGNITION) :])
    return out


def _aggregate_official(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """example.py: with exactly 1000 items, the per-type counts and the Final Score (a count
    out of 1000); otherwise the accuracy of each of its 30 datasets (a fraction).

    Quirk replaced: for a file of fewer items, example.py divides by the item count of every
    one of its 30 datasets and stops with ZeroDivisionError at the first one absent; here
    the datasets present are reported and the absent ones named in a note.
    """
    if len(items) == 1000:
        printed = _printed_sums(_type_sums(items, scores, "example.py"))
        return Aggregate(
            metrics={**printed, "n": len(items)},
            headline="Final Score",
            units="count",
            digits=0,
        )
    correct: dict[str, int] = {}
    count: dict[str, int] = {}
    nameless = 0
    for it, s in zip(items, scores, strict=True):
        name = it.fields.get("dataset_name")
        if name is None:
            nameless += 1
            continue
        count[name] = count.get(name, 0) + 1
        correct[name] = correct.get(name, 0) + int(s)
    order = [d for d in DATASETS if d in count] + [d for d in count if d not in DATASETS]
    per_dataset: dict[str, dict[str, float | int]] = {
        d: {"accuracy": correct[d] / float(count[d]), "n": count[d]} for d in order
    }
    notes = [
        f"the file has {len(items)} items, not 1000: example.py prints the accuracy of each "
        "dataset (a fraction, below) and no Final Score; 'correct' is the raw count of "
        "correct items"
    ]
    if nameless:
        notes.append(
            f"{nameless} item(s) carry no dataset_name (a VLMEvalKit spreadsheet has only the "
            "category): example.py's per-dataset accuracy leaves them out"
        )
    absent = [d for d in DATASETS if d not in count]
    if absent:
        notes.append(
            f"example.py would stop with ZeroDivisionError at {absent[0]!r}: "
            f"{len(absent)} of its 30 datasets are absent ({', '.join(absent)})"
        )
    unknown = [d for d in count if d not in DATASETS]
    if unknown:
        notes.append(
            f"dataset(s) not among example.py's 30 (it would stop with KeyError): "
            f"{', '.join(unknown)}"
        )
    return Aggregate(
        metrics={"correct": sum(correct.values()), "n": len(items)},
        headline="correct",
        units="count",
        digits=4,
        breakdowns={"dataset_name": per_dataset},
        notes=tuple(notes),
    )


def _aggregate_lmms_eval(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """lmms-eval ``ocrbench_aggregate_accuracy``: per-type sums, ``Final Score / 1000``.

    Bug not reproduced: its sums live in a module-level dict, so a second aggregation in the
    same process adds to the first; here every call starts from zero, as the first call in a
    fresh process does (the numbers lmms-eval prints for a single task run). Quirk kept: the
    division by 1000 whatever the item count (issues #918/#1220), noted when the file is
    not the full 1000.
    """
    printed = _printed_sums(_type_sums(items, scores, "lmms-eval"))
    notes: tuple[str, ...] = ()
    if len(items) != 1000:
        notes = (
            f"lmms-eval divides the Final Score by 1000 whatever the item count ({len(items)} "
            "here; issues #918/#1220)",
        )
    return Aggregate(
        metrics={"ocrbench_accuracy": printed["Final Score"] / 1000, **printed, "n": len(items)},
        headline="ocrbench_accuracy",
        units="fraction",
        digits=4,
        notes=notes,
    )


def _aggregate_vlmevalkit(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """VLMEvalKit ``OCRBench.evaluate``: the five summed groups, ``Final Score`` and
    ``Final Score Norm = Final Score / 10``; a file of other than 1000 items is said in a note
    (VLMEvalKit counts whatever rows it has, so the count is no longer out of 1000)."""
    sums = _type_sums(items, scores, "VLMEvalKit")
    printed = _printed_sums(sums)
    metrics: dict[str, float | int] = {
        "Text Recognition": printed["Text Recognition"],
        **{t: sums[t] for t in TYPES[len(RECOGNITION) :]},
        "Final Score": printed["Final Score"],
        "Final Score Norm": float(printed["Final Score"]) / 10,
        "n": len(items),
    }
    notes = size_note(
        len(items),
        SIZE,
        "items",
        f"OCRBench has {SIZE}: the Final Score is a count of correct items, out of {SIZE} only "
        "on the full benchmark (Final Score Norm, the count / 10, assumes it)",
    )
    return Aggregate(metrics=metrics, headline="Final Score", units="count", digits=1, notes=notes)


_CONTEXT = ("dataset_name", "category")


def _detail(rule: _Rule) -> Callable[[Item], Mapping[str, Any]]:
    """What the containment test compared, for the per-item output."""

    def detail(item: Item) -> Mapping[str, Any]:
        hme = rule.hme(item.fields.get("dataset_name"), item.fields.get("category"))
        norm = _normalizer(hme, rule.fold)
        pred = item.prediction or ""
        return {
            "hme_rule": hme,
            "compared_prediction": norm(pred),
            "compared_answers": [norm(a) for a in item.references],
        }

    return detail


def _profile(
    name: str,
    description: str,
    reproduces: str,
    toolkit: str,
    rule: _Rule,
    aggregate: Callable[[Sequence[Item], Sequence[float]], Aggregate],
) -> TaskProfile:
    detail = _detail(rule)
    return TaskProfile(
        name,
        description,
        reproduces,
        toolkit,
        rule.score,
        aggregate,
        _CONTEXT,
        detail=detail,
        explain=_explain(rule.score, detail),
    )


def _explain(
    score: Callable[..., float], detail: Callable[[Item], Mapping[str, Any]]
) -> Callable[[Item], Mapping[str, Any]]:
    """The compared strings (HME100k's rule or the plain one) and, per answer, whether it is
    contained in the prediction (the scorer's value against that answer alone)."""

    def hook(item: Item) -> Mapping[str, Any]:
        d = detail(item)
        ctx = {k: item.fields.get(k) for k in _CONTEXT}
        rule = (
            "HME100k: strip, newline to space, every space removed (case kept)"
            if d["hme_rule"]
            else "lower, strip, newline to space"
        )
        rows = [
            [i + 1, repr(a), repr(n), f"{score(item.prediction or '', [a], **ctx):g}"]
            for i, (a, n) in enumerate(zip(item.references, d["compared_answers"], strict=True))
        ]
        return {
            "steps": [
                ["normalization", rule],
                ["compared prediction", repr(d["compared_prediction"])],
            ],
            "table": {"header": ["#", "answer", "normalized", "contained"], "rows": rows},
            "why": "1 when some normalized answer is a substring of the normalized prediction "
            "(containment, not equality: '1' is in '10'); OCRBench sums these per category",
            **d,
        }

    return hook


OFFICIAL = _profile(
    "official",
    "example.py: lower + strip, answer contained in the prediction; HME100k spaces removed",
    "Yuliang-Liu/MultimodalOCR@794c36d OCRBench/example.py (scoring block)",
    "MultimodalOCR@794c36d",
    _OFFICIAL_RULE,
    _aggregate_official,
)
LMMS_EVAL = _profile(
    "lmms-eval",
    "lmms-eval: example.py's rule on the stripped prediction, full-width ASCII folded",
    LMMS_EVAL_PIN.at("tasks/ocrbench/utils.py (fold since bbddc79)"),
    LMMS_EVAL_PIN.token,
    _LMMS_EVAL_RULE,
    _aggregate_lmms_eval,
)
LMMS_EVAL_2025 = _profile(
    "lmms-eval-2025",
    "lmms-eval before bbddc79 (2026-07-30): no full-width folding",
    "EvolvingLMMs-Lab/lmms-eval tasks/ocrbench/utils.py before bbddc79",
    "lmms-eval@pre-bbddc79",
    _LMMS_EVAL_2025_RULE,
    _aggregate_lmms_eval,
)
VLMEVALKIT = _profile(
    "vlmevalkit",
    "VLMEvalKit OCRBench.evaluate: HME by category, Final Score and Final Score Norm",
    VLMEVALKIT_PIN.at("vlmeval/dataset/image_vqa.py OCRBench.evaluate"),
    VLMEVALKIT_PIN.token,
    _VLMEVALKIT_RULE,
    _aggregate_vlmevalkit,
)

TASK = register_task(
    Task(
        name="ocrbench",
        references="many",
        datasets=("echo840/OCRBench",),
        title="OCRBench",
        metric="ocrbench-count",
        description="1,000 OCR questions, answer contained in the prediction; a count of 1000",
        profiles=(OFFICIAL, LMMS_EVAL, LMMS_EVAL_2025, VLMEVALKIT),
        read=read_ocrbench,
        layouts=(
            "OCRBench.json items with 'predict' (dataset_name, type, answers, predict)",
            "VLMEvalKit spreadsheet (index, question, answer as a list literal, category, "
            "prediction)",
            "lmms-eval --log_samples JSONL (doc.answer, doc.dataset, doc.question_type, "
            "filtered_resps); without doc: --annotations OCRBench.json, joined by position",
        ),
        aliases=("ocr-bench",),
        annotations_optional=True,
        reported_names=LMMS_EVAL_REPORTED,
    )
)
