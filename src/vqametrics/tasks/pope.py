"""POPE: object-hallucination yes/no questions, scored as precision/recall/F1 of "yes".

The official scorer is ``AoiDragon/POPE`` ``evaluate.py`` (@ 08d957b, unchanged since
f3ec604): it parses each answer to yes/no, pairs answers with the labels **by position** and
prints TP/FP/TN/FN, accuracy, precision, recall, F1 and the yes-ratio (spec vqa-family §7).

Official quirks, kept because published POPE numbers were computed with them:

* QUIRK first-sentence: the answer is cut at its first ``.`` (``3.5 no`` → ``3`` → yes).
* QUIRK case-sensitive-no: after deleting ``,`` and splitting on single spaces, the answer is
  "no" only if ``No``, ``no`` or ``not`` is a token; so ``NO``, ``No!``, ``\\nNo`` and ``Nope``
  are "yes", and ``not sure`` is "no".
* QUIRK label-not-no-is-yes: a label other than exactly ``no`` (even ``No``) counts as positive.
* QUIRK positional-pairing: answers and labels are paired by position (``zip``, which
  truncates silently). vqametrics pairs the same way but checks the counts and, where the
  answers carry the question, the texts — the label files changed after LLaVA-1.5 was
  evaluated, so the wrong version silently misaligns in the official script.
* QUIRK yes-ratio-over-predictions: the yes-ratio counts predicted "yes".
* QUIRK zero-division: precision/recall/F1 divide by zero when there is no predicted (or no
  true) positive; vqametrics raises :class:`PopeScoreError` there instead of a number.

lmms-eval ``--log_samples`` logs (``_pope_read``) carry their labels when the records have
``doc`` (lmms-lab/POPE's ``answer``; its ``category`` is our split), so ``--annotations`` is
optional; without ``doc`` they are joined to the label files by position.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import cache, lru_cache, partial
from typing import Any

from ..aggregate.formulas import naive_mean, precision_recall_f1
from ..core.exceptions import InputError
from ..core.toolkits import LLAVA_32CEBC3 as LLAVA_PIN
from ..core.toolkits import LMMS_EVAL as LMMS_EVAL_PIN
from . import register_task
from ._base import Aggregate, Item, Task, TaskData, item_column
from ._common import numpy_mean
from ._pope_read import LMMS_EVAL_REPORTED, group_by_split, read_pope
from ._yesno import (
    YesNoRule,
    parse_vlmevalkit,
    unjudged_notes,
    vlmevalkit_yes_no_profile,
    yes_no_profile,
)

__all__ = [
    "PopeScoreError",
    "lmms_eval_token",
    "parse_lmms_eval",
    "parse_official",
    "parse_vlmevalkit",
    "pope_counts",
]


class PopeScoreError(InputError):
    """The reproduced script would divide by zero (no predicted or no true "yes")."""


# ---------------------------------------------------------------------------- parsing


@lru_cache(maxsize=65536)
def parse_official(text: str) -> str:
    """``evaluate.py``'s parse: first sentence, ``,`` deleted, split on ``" "``; ``"no"`` if
    ``No``/``no``/``not`` is a token, else ``"yes"`` (QUIRK first-sentence, case-sensitive-no).

    >>> parse_official("No, there is not."), parse_official("NO"), parse_official("3.5 no")
    ('no', 'yes', 'yes')
    """
    if "." in text:
        text = text.split(".")[0]
    words = text.replace(",", "").split(" ")
    return "no" if ("No" in words or "not" in words or "no" in words) else "yes"


def lmms_eval_token(text: str) -> str:
    """lmms-eval's POPE "prediction": the answer lower-cased and stripped, nothing else."""
    return text.lower().strip()


def parse_lmms_eval(text: str) -> str:
    """``"yes"``/``"no"`` when lmms-eval's token is exactly that, else ``"other"`` (so ``No.``
    is other: lmms-eval has no parser)."""
    token = lmms_eval_token(text)
    return token if token in ("yes", "no") else "other"


def _label_polarity(label: str) -> str:
    """QUIRK label-not-no-is-yes: ``"no"`` when the label is exactly ``no``, else ``"yes"``."""
    return "no" if label == "no" else "yes"


def _label_positive(label: str) -> bool:
    """Whether the label counts as a true "yes" (:func:`_label_polarity`)."""
    return _label_polarity(label) == "yes"


def _lmms_gt(label: str) -> str:
    gt = label.lower().strip()
    if gt not in ("yes", "no"):
        raise InputError(f"label {label!r} is not yes/no (lmms-eval asserts this)")
    return gt


# ---------------------------------------------------------------------------- per item

#: how each toolkit reads an answer and a label; an answer is right when the two agree;
#: VLMEvalKit's rule is yorn.py's, shared with MME (``_yesno``)
_OFFICIAL_RULE = YesNoRule(
    parse_official,
    _label_polarity,
    "first sentence; 'no' if No/no/not is a token, else 'yes'",
    "anything but exactly 'no' is 'yes' (QUIRK label-not-no-is-yes)",
)
_LMMS_RULE = YesNoRule(
    parse_lmms_eval,
    _lmms_gt,
    "lower + strip, exactly 'yes' or 'no' (else 'other')",
    "lower + strip",
)


# ---------------------------------------------------------------------------- aggregation


def pope_counts(preds: Sequence[bool], labels: Sequence[bool]) -> dict[str, int]:
    """``TP``, ``FP``, ``TN``, ``FN`` of predicted (``True`` = yes) against true labels."""
    tp = fp = tn = fn = 0
    for p, t in zip(preds, labels, strict=True):
        if p and t:
            tp += 1
        elif p:
            fp += 1
        elif t:
            fn += 1
        else:
            tn += 1
    return {"TP": tp, "FP": fp, "TN": tn, "FN": fn}


def _official_numbers(
    preds: Sequence[bool], labels: Sequence[bool], where: str
) -> dict[str, float | int]:
    """``evaluate.py``'s printout: ``precision = TP/(TP+FP)``, ``recall = TP/(TP+FN)``,
    ``f1 = 2·P·R/(P+R)``, ``acc = (TP+TN)/total``, ``yes_ratio = #pred yes / #pred``."""
    c = pope_counts(preds, labels)
    tp, fp, tn, fn = c["TP"], c["FP"], c["TN"], c["FN"]
    if tp + fp == 0:
        raise PopeScoreError(
            f"{where}: no answer parses as 'yes' (TP+FP = 0): the official script divides by "
            "zero computing precision"
        )
    if tp + fn == 0:
        raise PopeScoreError(
            f"{where}: no label is 'yes' (TP+FN = 0): the official script divides by zero "
            "computing recall"
        )
    if tp == 0:
        raise PopeScoreError(
            f"{where}: TP = 0, so precision + recall = 0: the official script divides by "
            "zero computing F1"
        )
    precision, recall, f1 = precision_recall_f1(tp, fp, fn)
    acc = (tp + tn) / (tp + tn + fp + fn)
    yes_ratio = sum(1 for p in preds if p) / len(preds)
    return {
        **c,
        "acc": acc,
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "yes_ratio": yes_ratio,
        "n": len(preds),
    }


def _by_split(items: Sequence[Item]) -> dict[str | None, list[int]]:
    """Item indices per split: the label file an item was paired with (``split``), else each
    split a VLMEvalKit row's ``category`` lists (``adversarial,popular``: the row is in both
    splits, as in the label files it was de-duplicated from); ``None`` when neither is known.
    Read as columns (:func:`item_column`): no item is built."""
    groups: dict[str | None, list[int]] = {}
    splits = item_column(items, "split")
    categories = item_column(items, "category")
    if categories.count(None) == len(categories):  # no category: each item in its split
        return group_by_split([s if s is None or type(s) is str else str(s) for s in splits])
    for i, (split, category) in enumerate(zip(splits, categories, strict=True)):
        if split is None and category is not None:
            names: list[str | None] = list(str(category).split(","))
        else:
            names = [None if split is None else str(split)]
        for name in names:
            groups.setdefault(name, []).append(i)
    return groups


def _split_names(items: Sequence[Item]) -> list[str]:
    """The names of the splits of :func:`_by_split`, sorted (for the signature), without
    grouping the items when none has a category."""
    categories = item_column(items, "category")
    if categories.count(None) == len(categories):
        names = {str(split) for split in item_column(items, "split") if split is not None}
    else:
        names = {name for name in _by_split(items) if name is not None}
    return sorted(names)


def _split_means(
    splits: Mapping[str, Mapping[str, float | int]], keys: Sequence[str]
) -> dict[str, float | int]:
    """The mean of each of *keys* over the splits (left-to-right sum / count), as LLaVA's
    papers average the per-split F1."""
    return {f"{key}_mean": naive_mean([n[key] for n in splits.values()]) for key in keys}


def _per_split_aggregate(items: Sequence[Item], digits: int, what: str) -> Aggregate:
    """The official numbers for each label file (split); over several splits the headline
    is the mean F1 over splits, as LLaVA reports it."""
    split_numbers: dict[str, dict[str, float | int]] = {}
    groups = _by_split(items)
    predictions = item_column(items, "prediction")
    references = item_column(items, "references")
    for split, idx in groups.items():
        labels = _positives([references[i][0] for i in idx])
        preds = _official_preds([predictions[i] for i in idx], labels)
        where = f"split {split}" if split is not None else "the answers"
        split_numbers[split or "all"] = _official_numbers(preds, labels, where)
    if len(split_numbers) == 1:
        (numbers,) = split_numbers.values()
        return Aggregate(metrics=numbers, headline="f1", units="fraction", digits=digits)
    metrics: dict[str, float | int] = _split_means(
        split_numbers, ("f1", "acc", "precision", "recall", "yes_ratio")
    )
    metrics["n"] = len(items)
    notes = [
        f"{what} scores one label file at a time; each split is in the breakdown, and "
        "f1_mean is the mean F1 over the splits (what LLaVA reports)",
    ]
    counted = sum(len(idx) for idx in groups.values())
    if counted != len(items):
        notes.append(
            f"{len(items)} rows make {counted} split items: a row whose category lists several "
            "splits is in each of those label files (VLMEvalKit's de-duplicated POPE)"
        )
    return Aggregate(
        metrics=metrics,
        headline="f1_mean",
        units="fraction",
        digits=digits,
        breakdowns={"split": split_numbers},
        notes=tuple(notes),
    )


def _positives(labels: Sequence[Any]) -> list[bool]:
    """:func:`_label_positive` of each label, each distinct label once (a split's 3,000
    labels are two words)."""
    try:
        known = {label: _label_positive(label) for label in set(labels)}
    except TypeError:  # a label that cannot be a key: one at a time
        return [_label_positive(label) for label in labels]
    return list(map(known.__getitem__, labels))


def _official_preds(predictions: Sequence[str | None], positives: Sequence[bool]) -> list[bool]:
    """:func:`_official_pred` of each answer and its label's polarity, each distinct answer
    parsed once (a model says "Yes" and "No" in a few ways, thousands of times)."""
    parse = cache(parse_official)
    return list(map(partial(_official_pred, parse=parse), predictions, positives))


def _official_pred(
    prediction: str | None, positive: bool, parse: Callable[[str], str] = parse_official
) -> bool:
    """Whether the official parse reads "yes"; a missing answer (``--allow-missing``) is
    counted wrong, as its score is: the opposite of its label (*positive*: a true "yes")."""
    if prediction is None:
        return not positive
    return parse(prediction) != "no"


def _aggregate_official(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    return _per_split_aggregate(items, 4, "evaluate.py")


def _aggregate_llava(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    return _per_split_aggregate(items, 3, "LLaVA's eval_pope.py")


def _lmms_numbers(
    tokens: Sequence[str], gts: Sequence[str], scores: Sequence[float], where: str
) -> dict[str, float | int]:
    """lmms-eval's five aggregations: accuracy = Σscore/n; precision and recall count only
    tokens equal to ``yes``/``no`` (0 when their denominator is); yes-ratio is over the
    **ground truth** (a bug, kept)."""
    acc = naive_mean(scores)
    tp = fp = fn = 0
    for tok, gt in zip(tokens, gts, strict=True):
        if gt == "yes" and tok == "yes":
            tp += 1
        elif gt == "no" and tok == "yes":
            fp += 1
        elif gt == "yes" and tok == "no":
            fn += 1
    # QUIRK zero-guard: a zero denominator gives 0 (an int, as lmms-eval writes it) where the
    # official script raises; common here, because whole answers are compared ("Yes, there
    # is a dog." is neither yes nor no). Kept: it is the number lmms-eval reports.
    precision, recall, f1 = precision_recall_f1(tp, fp, fn, zero=0)
    yes = sum(1 for g in gts if g == "yes")
    no = sum(1 for g in gts if g == "no")
    return {
        "accuracy": acc,
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "yes_ratio": yes / (yes + no),
        "n": len(scores),
    }


def _aggregate_lmms(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    predictions = item_column(items, "prediction")
    references = item_column(items, "references")

    def numbers(idx: Sequence[int], where: str) -> dict[str, float | int]:
        toks = [lmms_eval_token(predictions[i] or "") for i in idx]
        gts = [_lmms_gt(references[i][0]) for i in idx]
        return _lmms_numbers(toks, gts, [scores[i] for i in idx], where)

    metrics = numbers(range(len(items)), "the answers")
    groups = _by_split(items)
    breakdowns = {}
    if len(groups) > 1 or None not in groups:
        breakdowns["split"] = {str(s): numbers(idx, f"split {s}") for s, idx in groups.items()}
    return Aggregate(
        metrics=metrics,
        headline="f1",
        units="fraction",
        digits=4,
        breakdowns=breakdowns,
        notes=(
            "lmms-eval's pope_yes_ratio counts ground-truth 'yes', not predicted 'yes' "
            "(a bug in lmms-eval, reproduced)",
        ),
    )


def _vlm_f1(y_true: Sequence[bool], y_pred: Sequence[bool]) -> tuple[float, float, float]:
    """VLMEvalKit's ``cal_f1_score``: zero denominators give 0 instead of an error."""
    c = pope_counts(y_pred, y_true)
    precision, recall, f1 = precision_recall_f1(c["TP"], c["FP"], c["FN"], zero=0.0)
    return f1, precision, recall


def _aggregate_vlm(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """``POPE_rating``: rows exploded by their comma-separated ``category``; Overall = F1 of
    the precision and recall pooled over the exploded rows, ×100, plus acc/precision/recall;
    the same per split. ``Unknown`` counts as "No" in P/R and as wrong in acc."""
    rows: list[tuple[str | None, bool, bool, float]] = []
    for item, score in zip(items, scores, strict=True):
        truth = item.references[0].lower() == "yes"
        pred = item.prediction is not None and parse_vlmevalkit(item.prediction) == "yes"
        cat = item.fields.get("category", item.fields.get("split"))
        for c in str(cat).split(",") if cat is not None else [None]:
            rows.append((c, truth, pred, score))

    def numbers(sel: Sequence[tuple[str | None, bool, bool, float]]) -> dict[str, float | int]:
        f1, p, r = _vlm_f1([x[1] for x in sel], [x[2] for x in sel])
        return {
            "Overall": f1 * 100,
            "acc": numpy_mean([x[3] for x in sel]) * 100,
            "precision": p * 100,
            "recall": r * 100,
            "n": len(sel),
        }

    overall = numbers(rows)
    splits: dict[str, dict[str, float | int]] = {"Overall": overall}
    seen: list[str] = []
    for c, *_ in rows:
        if c is not None and c not in seen:
            seen.append(c)
    for c in seen:
        splits[c] = numbers([x for x in rows if x[0] == c])
    notes = unjudged_notes(items, "answer", " and count as 'No'")
    if len(rows) != len(items):
        notes.append(
            f"{len(items)} rows counted {len(rows)} times: a row whose category lists several "
            "splits counts once per split in Overall (VLMEvalKit's de-duplicated POPE)"
        )
    return Aggregate(
        metrics=overall,
        headline="Overall",
        units="percent",
        digits=2,
        breakdowns={"split": splits} if seen else {},
        notes=tuple(notes),
    )


def _signature_fields(data: TaskData) -> tuple[tuple[str, Any], ...]:
    labels = data.extra.get("labels")
    splits = _split_names(data.items)
    return (("labels", labels), ("splits", ",".join(splits) if splits else None))


OFFICIAL = yes_no_profile(
    _OFFICIAL_RULE,
    _aggregate_official,
    name="official",
    description="POPE evaluate.py: first-sentence parse, positional pairing, P/R/F1 of 'yes'",
    reproduces="AoiDragon/POPE@08d957b evaluate.py",
    toolkit="POPE@08d957b",
)

# LLaVA's eval_pope.py is the official rule on 'text', with its own rounding
LLAVA = replace(
    OFFICIAL,
    name="llava",
    description="LLaVA eval_pope.py: the official rule on 'text', per split; mean F1 over splits",
    reproduces=LLAVA_PIN.at("llava/eval/eval_pope.py"),
    toolkit=LLAVA_PIN.token,
    aggregate=_aggregate_llava,
)

LMMS_EVAL = yes_no_profile(
    _LMMS_RULE,
    _aggregate_lmms,
    name="lmms-eval",
    description="lmms-eval pope: exact 'yes'/'no' token; yes-ratio over the ground truth (bug)",
    reproduces=LMMS_EVAL_PIN.at("lmms_eval/tasks/pope/utils.py"),
    toolkit=LMMS_EVAL_PIN.token,
    reads_free_text=False,  # an exact token: "Yes, there is." scores 0, so say it looks verbose
)

VLMEVALKIT = vlmevalkit_yes_no_profile(
    "POPE_rating", str.lower, "lower", _aggregate_vlm, "F1 of pooled P/R × 100"
)

TASK = register_task(
    Task(
        name="pope",
        kind="yes-no",
        datasets=("lmms-lab/POPE",),
        title="POPE",
        metric="pope",
        description="object hallucination yes/no: accuracy, precision, recall, F1, yes-ratio",
        profiles=(OFFICIAL, LLAVA, LMMS_EVAL, VLMEVALKIT),
        read=read_pope,
        layouts=(
            "POPE answers JSONL ('answer') + one coco_pope_<split>.json label file (by position)",
            "LLaVA answers.jsonl ('text') + --questions llava_pope_test.jsonl + the label folder",
            "VLMEvalKit spreadsheet (index, question, answer, prediction, category)",
            "lmms-eval --log_samples JSONL (doc.question_id, doc.answer, doc.category, "
            "filtered_resps); without doc: + the label file(s), joined by position",
            "lmms-eval --log_samples JSONL without doc, alone: target + the pope_accuracy record "
            "(question_id)",
        ),
        annotations_optional=True,
        signature_fields=_signature_fields,
        reported_names=LMMS_EVAL_REPORTED,
    )
)
