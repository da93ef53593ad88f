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
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from .._exceptions import InputError
from ..load.layouts import is_vlmevalkit
from ..load.records import Records, cell_text, read_records
from . import register_task
from ._base import Aggregate, Item, Task, TaskData, TaskInputs, TaskProfile
from ._common import numpy_mean, read_vlmevalkit
from ._yesno import TO_YES_NO, parsed_detail, yorn_extraction

__all__ = [
    "PopeScoreError",
    "lmms_eval_token",
    "parse_lmms_eval",
    "parse_official",
    "parse_vlmevalkit",
    "pope_counts",
]

SPLITS = ("adversarial", "popular", "random")

#: fingerprints (sha256 of ``image\ttext\tlabel`` lines, 16 hex) of the known label files:
#: RUCAIBox/POPE @ e3e3926 (what LLaVA-1.5 was scored on) and @ 3df3ba1 (HEAD since edebdda)
KNOWN_LABELS: Mapping[str, tuple[str, str, int]] = {
    "4741b34de1584e7a": ("e3e3926", "adversarial", 3000),
    "3613c76fe1df74de": ("e3e3926", "popular", 3000),
    "4de6801737b1a62e": ("e3e3926", "random", 2910),
    "8936def6f1e93309": ("3df3ba1", "adversarial", 3000),
    "7a17071de1a15cab": ("3df3ba1", "popular", 3000),
    "0b9e747cb166d7cb": ("3df3ba1", "random", 3000),
}


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


def parse_vlmevalkit(text: str) -> str:
    """VLMEvalKit's ``YOrN_Extraction`` as ``yes``/``no``/``other`` (``Unknown`` → other)."""
    return TO_YES_NO[yorn_extraction(text)]


def _label_positive(label: str) -> bool:
    """QUIRK label-not-no-is-yes: ``label == 'no'`` is negative, anything else positive."""
    return label != "no"


# ---------------------------------------------------------------------------- per item


def _score_official(prediction: str, references: Sequence[str]) -> float:
    """1.0 when the official parse agrees with the label's polarity."""
    return 1.0 if (parse_official(prediction) != "no") == _label_positive(references[0]) else 0.0


def _lmms_gt(label: str) -> str:
    gt = label.lower().strip()
    if gt not in ("yes", "no"):
        raise InputError(f"label {label!r} is not yes/no (lmms-eval asserts this)")
    return gt


def _score_lmms(prediction: str, references: Sequence[str]) -> float:
    """1.0 when the lower-cased, stripped answer equals the label exactly."""
    return 1.0 if lmms_eval_token(prediction) == _lmms_gt(references[0]) else 0.0


def _score_vlm(prediction: str, references: Sequence[str]) -> float:
    """1.0 when ``YOrN_Extraction`` equals the label (``Unknown`` is wrong without a judge)."""
    return 1.0 if parse_vlmevalkit(prediction) == references[0].lower() else 0.0


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
    precision = float(tp) / float(tp + fp)
    recall = float(tp) / float(tp + fn)
    if precision + recall == 0:
        raise PopeScoreError(
            f"{where}: TP = 0, so precision + recall = 0: the official script divides by "
            "zero computing F1"
        )
    f1 = 2 * precision * recall / (precision + recall)
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
    splits, as in the label files it was de-duplicated from); ``None`` when neither is known."""
    groups: dict[str | None, list[int]] = {}
    for i, item in enumerate(items):
        split = item.fields.get("split")
        category = item.fields.get("category")
        if split is None and category is not None:
            names: list[str | None] = list(str(category).split(","))
        else:
            names = [None if split is None else str(split)]
        for name in names:
            groups.setdefault(name, []).append(i)
    return groups


def _split_means(
    splits: Mapping[str, Mapping[str, float | int]], keys: Sequence[str]
) -> dict[str, float | int]:
    """The mean of each of *keys* over the splits (left-to-right sum / count), as LLaVA's
    papers average the per-split F1."""
    out: dict[str, float | int] = {}
    for key in keys:
        total = 0.0
        for numbers in splits.values():
            total += numbers[key]
        out[f"{key}_mean"] = total / len(splits)
    return out


def _per_split_aggregate(items: Sequence[Item], digits: int, what: str) -> Aggregate:
    """The official numbers for each label file (split); over several splits the headline
    is the mean F1 over splits, as LLaVA reports it."""
    split_numbers: dict[str, dict[str, float | int]] = {}
    groups = _by_split(items)
    for split, idx in groups.items():
        preds = [_official_pred(items[i]) for i in idx]
        labels = [_label_positive(items[i].references[0]) for i in idx]
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


def _official_pred(item: Item) -> bool:
    """Whether the official parse reads "yes"; a missing answer (``--allow-missing``) is
    counted wrong, as its score is: the opposite of its label."""
    if item.prediction is None:
        return not _label_positive(item.references[0])
    return parse_official(item.prediction) != "no"


def _aggregate_official(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    return _per_split_aggregate(items, 4, "evaluate.py")


def _aggregate_llava(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    return _per_split_aggregate(items, 3, "LLaVA's eval_pope.py")


def _lmms_numbers(
    tokens: Sequence[str], gts: Sequence[str], scores: Sequence[float], where: str
) -> dict[str, float | int]:
    """lmms-eval's five aggregations: accuracy = Σscore/n; precision and recall count only
    tokens equal to ``yes``/``no``; yes-ratio is over the **ground truth** (a bug, kept)."""
    total = 0.0
    for s in scores:
        total += s
    acc = total / len(scores)
    tp = fp = fn = 0
    for tok, gt in zip(tokens, gts, strict=True):
        if gt == "yes" and tok == "yes":
            tp += 1
        elif gt == "no" and tok == "yes":
            fp += 1
        elif gt == "yes" and tok == "no":
            fn += 1
    if tp + fp == 0:
        raise PopeScoreError(
            f"{where}: no answer is exactly 'yes' once lower-cased and stripped (TP+FP = 0): "
            "lmms-eval's precision divides by zero here (it compares whole answers, so "
            "'Yes, there is a dog.' is neither yes nor no)"
        )
    if tp + fn == 0:
        raise PopeScoreError(
            f"{where}: no question labelled yes is answered exactly 'yes' or 'no' "
            "(TP+FN = 0): lmms-eval's recall divides by zero here"
        )
    precision = tp / (tp + fp)
    recall = tp / (tp + fn)
    if precision + recall == 0:
        raise PopeScoreError(f"{where}: precision + recall = 0: lmms-eval divides by zero here")
    f1 = 2 * (precision * recall) / (precision + recall)
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
    def numbers(idx: Sequence[int], where: str) -> dict[str, float | int]:
        toks = [lmms_eval_token(items[i].prediction or "") for i in idx]
        gts = [_lmms_gt(items[i].references[0]) for i in idx]
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
    tp = sum(1 for t, p in zip(y_true, y_pred, strict=True) if t and p)
    fp = sum(1 for t, p in zip(y_true, y_pred, strict=True) if p and not t)
    fn = sum(1 for t, p in zip(y_true, y_pred, strict=True) if t and not p)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
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
    notes: list[str] = []
    unknown = sum(
        1
        for it in items
        if it.prediction is not None and parse_vlmevalkit(it.prediction) == "other"
    )
    if unknown:
        notes.append(
            f"{unknown} answer(s) are neither yes nor no to YOrN_Extraction: VLMEvalKit asks an "
            "LLM judge about them; without one (as here) they are wrong and count as 'No'"
        )
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


# ---------------------------------------------------------------------------- reading


class _Answer(NamedTuple):
    """One answer of a results file, before it is paired with a label line."""

    split: str | None
    text: str
    #: the question it answers, when the results carry it (LLaVA's ``prompt``, ``question``)
    question: str | None
    key: str | int
    #: its row in the results file (0-based), for messages
    row: int


def _fingerprint(rows: Sequence[Mapping[str, Any]]) -> str:
    lines = "\n".join(f"{r.get('image', '')}\t{r.get('text', '')}\t{r.get('label')}" for r in rows)
    return hashlib.sha256(lines.encode("utf-8")).hexdigest()[:16]


def _label_files(annotations: Any) -> list[tuple[str | None, Any]]:
    """``(split, source)`` of each label file: a folder's ``coco_pope_<split>.json`` files
    (LLaVA's ``--annotation-dir``), one file, or rows in memory."""
    if not isinstance(annotations, str | os.PathLike):
        return [(None, annotations)]
    path = Path(annotations)
    if path.is_dir():
        files = sorted(path.glob("coco_pope_*.json"))
        if not files:
            raise InputError(
                f"{path}: no coco_pope_<split>.json label files in this folder "
                "(expected coco_pope_random.json, coco_pope_popular.json, "
                "coco_pope_adversarial.json)"
            )
        return [(f.name[len("coco_pope_") : -len(".json")], f) for f in files]
    name = path.name
    split = None
    if name.startswith("coco_pope_") and name.endswith(".json"):
        split = name[len("coco_pope_") : -len(".json")]
    return [(split, path)]


def _read_labels(source: Any) -> tuple[Records, list[str], str]:
    fmt = "jsonl" if isinstance(source, str | os.PathLike) else None
    records = read_records(source, format=fmt)
    labels = []
    for i, row in enumerate(records.rows):
        if "label" not in row:
            raise InputError(
                f"{records.where(i)}: no 'label' field (fields: {', '.join(row)}); "
                "is this a POPE label file?"
            )
        value = row["label"]
        if not isinstance(value, str):
            value = str(cell_text(value, records.where(i), column="label"))
        labels.append(value)
    return records, labels, _fingerprint(records.rows)


def _question_text(value: Any) -> str:
    return str(value).split("\n")[0].strip()


def _answer_field(records: Records, inputs: TaskInputs) -> tuple[str, str]:
    cols = set(records.columns)
    if inputs.answer_field:
        return inputs.answer_field, "custom"
    if {"question_id", "prompt", "text"} <= cols:
        return "text", "llava-answers"
    if "answer" in cols:
        return "answer", "pope-answers"
    if "text" in cols:
        return "text", "llava-answers"
    raise InputError(
        f"{records.source}: no 'answer' (POPE evaluate.py) or 'text' (LLaVA answers.jsonl) "
        f"field (fields: {', '.join(sorted(cols)) or 'none'}); name it with --answer-field"
    )


def _read_questions(source: Any) -> dict[Hashable, tuple[str, str]]:
    """LLaVA's question file: ``question_id`` → (``category`` = split, question text)."""
    records = read_records(
        source, format="jsonl" if isinstance(source, str | os.PathLike) else None
    )
    out: dict[Hashable, tuple[str, str]] = {}
    for i, row in enumerate(records.rows):
        if "question_id" not in row or "category" not in row:
            raise InputError(
                f"{records.where(i)}: a POPE question file needs 'question_id' and 'category' "
                "(LLaVA's llava_pope_test.jsonl)"
            )
        out[row["question_id"]] = (str(row["category"]), _question_text(row.get("text", "")))
    return out


def _read(inputs: TaskInputs) -> TaskData:
    src = inputs.results
    if isinstance(src, str | os.PathLike) and Path(src).suffix.lower() in (".xlsx", ".tsv", ".csv"):
        return _read_vlmevalkit(inputs)
    records = read_records(src, format=inputs.format)
    if is_vlmevalkit(records) and "answer" in records.columns:
        return _read_vlmevalkit(inputs, records)
    if inputs.annotations is None:
        raise InputError(
            f"{records.source}: POPE answers need --annotations (a coco_pope_<split>.json label "
            "file or the folder of the three); only VLMEvalKit spreadsheets carry their labels"
        )
    return _read_positional(records, inputs)


def _read_vlmevalkit(inputs: TaskInputs, records: Records | None = None) -> TaskData:
    data = read_vlmevalkit(
        replace(inputs, annotations=None),
        fields=("category", "question", "image_path"),
        list_answers=False,
        records=records,
    )
    items = []
    for item in data.items:
        label = item.references[0].strip()
        if label.lower() not in ("yes", "no"):
            raise InputError(
                f"{data.sources[0]}: index {item.id}: answer {item.references[0]!r} is not Yes/No"
            )
        items.append(Item(item.id, item.prediction, (label.lower(),), item.fields))
    notes = data.notes
    if inputs.annotations is not None:
        notes += ("--annotations was not used: the VLMEvalKit file carries its own labels",)
    if inputs.questions is not None:
        notes += ("--questions was not used: the VLMEvalKit file names each row's splits",)
    return replace(data, items=items, notes=notes)


def _read_positional(records: Records, inputs: TaskInputs) -> TaskData:
    field, layout = _answer_field(records, inputs)
    questions = _read_questions(inputs.questions) if inputs.questions is not None else None
    label_files = _label_files(inputs.annotations)
    folder = len(label_files) > 1 or (
        isinstance(inputs.annotations, str | os.PathLike) and Path(inputs.annotations).is_dir()
    )
    answers = _answers(records, field, questions, inputs.questions, folder)
    if folder and any(a.split is None for a in answers):
        raise InputError(
            f"{records.source}: the answers carry no split, so they cannot be paired with a "
            "folder of label files; pass LLaVA's question file as --questions "
            "(llava_pope_test.jsonl) or one coco_pope_<split>.json as --annotations"
        )

    items: list[Item] = []
    versions: list[str] = []
    notes: list[str] = []
    sources = [records.source]
    used: set[int] = set()
    for split, source in label_files:
        label_records, labels, fp = _read_labels(source)
        sources.append(label_records.source)
        known = KNOWN_LABELS.get(fp)
        versions.append(known[0] if known else f"custom-{fp[:8]}")
        if not folder and (questions is None or split is None):
            mine = answers  # one label file: every answer, in order
        else:
            mine = [a for a in answers if a.split == split]
        used.update(a.row for a in mine)
        if not mine:
            if inputs.allow_missing:
                notes.append(f"{label_records.source}: no answers for split {split}; left out")
                continue
            raise InputError(
                f"{records.source}: no answers for split {split!r} "
                f"(label file {label_records.source}); pass --allow-missing to leave it out"
            )
        _check_pairing(mine, label_records, labels, records, split, known)
        items.extend(_paired_items(mine, label_records, labels, split))

    if questions is not None or folder:
        extra = [a for a in answers if a.row not in used]
        if extra:
            splits = ", ".join(sorted({str(a.split) for a in extra}))
            if not inputs.ignore_extra:
                raise InputError(
                    f"{records.where(extra[0].row)}: {len(extra)} answer(s) of split(s) {splits} "
                    "have no label file here; pass the folder of the three label files, or "
                    "--ignore-extra to leave them out"
                )
            notes.append(f"{len(extra)} answer(s) of split(s) {splits} were ignored")
    return TaskData(
        items,
        tuple(sources),
        (f"{layout} ({records.layout})", "pope-labels"),
        tuple(notes),
        extra={"labels": "+".join(dict.fromkeys(versions))},
        n_extra_ignored=len(answers) - len(items),
    )


def _answers(
    records: Records,
    field: str,
    questions: Mapping[Hashable, tuple[str, str]] | None,
    questions_source: Any,
    folder: bool,
) -> list[_Answer]:
    """Each row's answer text, question and split: the split from LLaVA's question file when
    given, else (with a folder of label files) the row's own ``category``."""
    answers = []
    for i, row in enumerate(records.rows):
        if field not in row:
            raise InputError(f"{records.where(i)}: no {field!r} field (fields: {', '.join(row)})")
        text = row[field]
        if not isinstance(text, str):
            text = str(cell_text(text, records.where(i), column=field))
        qid = row.get("question_id")
        split: str | None = None
        qtext: str | None = None
        if "prompt" in row:
            qtext = _question_text(row["prompt"])
        elif "question" in row:
            qtext = _question_text(row["question"])
        if questions is not None:
            if qid is None:
                raise InputError(f"{records.where(i)}: no 'question_id' to look up in --questions")
            if qid not in questions:
                raise InputError(
                    f"{records.where(i)}: question_id {qid!r} is not in the question file "
                    f"{questions_source}"
                )
            split, qq = questions[qid]
            if qtext is None:
                qtext = qq
        elif folder and "category" in row:
            split = str(row["category"])
        key: str | int = qid if isinstance(qid, str | int) else i + 1
        answers.append(_Answer(split, text, qtext, key, i))
    return answers


def _paired_items(
    answers: Sequence[_Answer], label_records: Records, labels: Sequence[str], split: str | None
) -> list[Item]:
    """Answer *i* with label line *i* (QUIRK positional-pairing; counts already checked)."""
    items = []
    for pos, (ans, label) in enumerate(zip(answers, labels, strict=True)):
        row = label_records.rows[pos]
        fields: dict[str, Any] = {"label_line": pos + 1}
        if split is not None:
            fields["split"] = split
        if "text" in row:
            fields["question"] = row["text"]
        if "image" in row:
            fields["image"] = row["image"]
        items.append(Item(ans.key, ans.text, (label,), fields))
    return items


def _check_pairing(
    answers: Sequence[_Answer],
    label_records: Records,
    labels: Sequence[str],
    results: Records,
    split: str | None,
    known: tuple[str, str, int] | None,
) -> None:
    """Count check, then text check: positional pairing with another label version would
    silently misalign in the official script."""
    version = f" (POPE labels @ {known[0]}, {known[1]})" if known else ""
    what = f"split {split}" if split else "the answers"
    if len(answers) != len(labels):
        hint = ""
        if split == "random" and len(answers) == 2910:
            hint = "; 2,910 random answers were made for the e3e3926 labels LLaVA-1.5 used"
        elif split == "random" and len(answers) == 3000:
            hint = "; 3,000 random answers were made for the current (3df3ba1) labels"
        raise InputError(
            f"{results.source}: {len(answers)} answers for {what} but {label_records.source} has "
            f"{len(labels)} labels{version}: answers and labels are paired by position, so "
            f"this would misalign{hint}"
        )
    for pos, ans in enumerate(answers):
        qtext = ans.question
        row = label_records.rows[pos]
        if qtext is None or "text" not in row:
            continue
        ltext = _question_text(row["text"])
        if qtext != ltext:
            raise InputError(
                f"{results.where(ans.row)}: question {qtext!r} but "
                f"{label_records.where(pos)} asks {ltext!r}"
                f"{version}: the answers were made for another version of the label file "
                "(pairing is by position)"
            )


def _signature_fields(data: TaskData) -> tuple[tuple[str, Any], ...]:
    labels = data.extra.get("labels")
    splits = sorted(s for s in _by_split(data.items) if s is not None)
    return (("labels", labels), ("splits", ",".join(splits) if splits else None))


OFFICIAL = TaskProfile(
    name="official",
    description="POPE evaluate.py: first-sentence parse, positional pairing, P/R/F1 of 'yes'",
    reproduces="AoiDragon/POPE@08d957b evaluate.py",
    toolkit="POPE@08d957b",
    score=_score_official,
    aggregate=_aggregate_official,
    parse=parse_official,
    detail=parsed_detail(parse_official),
)

LLAVA = TaskProfile(
    name="llava",
    description="LLaVA eval_pope.py: the official rule on 'text', per split; mean F1 over splits",
    reproduces="haotian-liu/LLaVA@32cebc3 llava/eval/eval_pope.py",
    toolkit="LLaVA@32cebc3",
    score=_score_official,
    aggregate=_aggregate_llava,
    parse=parse_official,
    detail=parsed_detail(parse_official),
)

LMMS_EVAL = TaskProfile(
    name="lmms-eval",
    description="lmms-eval pope: exact 'yes'/'no' token; yes-ratio over the ground truth (bug)",
    reproduces="EvolvingLMMs-Lab/lmms-eval@75571cf lmms_eval/tasks/pope/utils.py",
    toolkit="lmms-eval@0.7.3",
    score=_score_lmms,
    aggregate=_aggregate_lmms,
    parse=parse_lmms_eval,
    detail=parsed_detail(parse_lmms_eval),
)

VLMEVALKIT = TaskProfile(
    name="vlmevalkit",
    description="VLMEvalKit POPE_rating: YOrN word membership, no judge; F1 of pooled P/R × 100",
    reproduces="open-compass/VLMEvalKit@e8e78f0 vlmeval/dataset/utils/yorn.py POPE_rating",
    toolkit="VLMEvalKit@e8e78f0",
    score=_score_vlm,
    aggregate=_aggregate_vlm,
    parse=parse_vlmevalkit,
    detail=parsed_detail(parse_vlmevalkit),
)

TASK = register_task(
    Task(
        name="pope",
        title="POPE",
        metric="pope",
        description="object hallucination yes/no: accuracy, precision, recall, F1, yes-ratio",
        profiles=(OFFICIAL, LLAVA, LMMS_EVAL, VLMEVALKIT),
        read=_read,
        layouts=(
            "POPE answers JSONL ('answer') + one coco_pope_<split>.json label file (by position)",
            "LLaVA answers.jsonl ('text') + --questions llava_pope_test.jsonl + the label folder",
            "VLMEvalKit spreadsheet (index, question, answer, prediction, category)",
        ),
        annotations_optional=True,
        signature_fields=_signature_fields,
    )
)
