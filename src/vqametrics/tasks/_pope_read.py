"""Reading POPE's files: label files (one or the folder of three, version fingerprinted), the
answers (POPE's own JSONL, LLaVA's answers joined through its question file, VLMEvalKit sheets,
lmms-eval ``--log_samples`` logs), paired by position as ``evaluate.py`` does, with the count and
text checks the official script lacks. See ``pope.py`` for the scoring."""

from __future__ import annotations

import os
import sys
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, NamedTuple, cast

from ..core.collector import gc_paused
from ..core.exceptions import InputError
from ..readers._paths import glob_names, path_join, path_name, path_text
from ..readers.detect import LogLayout, join_docs_by_key, read_log, read_yes_no, yes_no_layouts
from ..readers.join import unique_rows
from ..readers.layouts import Predictions
from ..readers.records import Records, cell_text, field_value, read_records
from ._base import Item, ItemColumns, TaskData, TaskInputs, item_column
from ._common import id_key
from ._lmms import KeyedJoin, LogReading, MetricRecord, Truth, log_docs
from ._yesno import answer_cell, read_yes_no_sheet

__all__ = [
    "KNOWN_LABELS",
    "LMMS_EVAL_METRICS",
    "LMMS_EVAL_REPORTED",
    "SPLITS",
    "group_by_split",
    "read_pope",
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


#: the per-sample metrics lmms-eval's ``pope_process_results`` writes into each logged record
#: (EvolvingLMMs-Lab/lmms-eval@75571cf ``lmms_eval/tasks/pope/pope.yaml`` ``metric_list``,
#: ``utils.py``): five dicts, each with the same ``score`` (1.0 when the answer is the label)
LMMS_EVAL_METRICS = (
    "pope_accuracy",
    "pope_precision",
    "pope_recall",
    "pope_f1_score",
    "pope_yes_ratio",
)
#: the newer log (no doc): lmms-eval@75571cf tasks/pope/utils.py pope_process_results records
#: {question_id, score, prediction, ground_truth} under each metric; target = doc["answer"]; no
#: category, so the question ids of the three splits of ``pope`` repeat: numbered in log order
LMMS_EVAL_RECORD = MetricRecord(
    metrics=LMMS_EVAL_METRICS, doc={"question_id": "question_id"}, numbered="question_id"
)

#: lmms-eval's aggregate metric (``results.json``, ``"<metric>,none"``) → the ``lmms-eval``
#: profile's metric that recomputes it (for setting reported beside recomputed)
LMMS_EVAL_REPORTED: Mapping[str, str] = {
    "pope_accuracy": "accuracy",
    "pope_precision": "precision",
    "pope_recall": "recall",
    "pope_f1_score": "f1",
    "pope_yes_ratio": "yes_ratio",
}


class _Answer(NamedTuple):
    """One answer of a results file, before it is paired with a label line."""

    split: str | None
    #: ``None`` for an empty answer (a null or an empty cell; kept under --allow-missing)
    text: str | None
    #: the question it answers, when the results carry it (LLaVA's ``prompt``, ``question``)
    question: str | None
    key: str | int
    #: its row in the results file (0-based), for messages
    row: int


class _Answers(NamedTuple):
    """The answers of a results file as columns, one value per answer in file order (the
    fields of :class:`_Answer`): no object per answer (issue 23)."""

    splits: list[str | None]
    texts: list[str | None]
    questions: list[str | None]
    keys: list[str | int]
    rows: list[int]

    @classmethod
    def of(cls, answers: Sequence[_Answer]) -> _Answers:
        """The columns of *answers*."""
        if not answers:
            return cls([], [], [], [], [])
        splits, texts, questions, keys, rows = map(list, zip(*answers, strict=True))
        return cls(splits, texts, questions, keys, rows)

    def take(self, keep: Sequence[int]) -> _Answers:
        """The answers at the positions *keep*, in that order."""
        return _Answers(*([col[k] for k in keep] for col in self))  # type: ignore[arg-type]


def _sha256(data: bytes) -> str:
    """The SHA-256 of *data* in hex, from CPython's own module where it has one: ``hashlib``
    loads OpenSSL, 3.5 ms of a small POPE score's start for one digest (issue 23)."""
    try:
        sha256: Any = __import__("_sha2" if sys.version_info >= (3, 12) else "_sha256").sha256
    except ImportError:  # another interpreter, or a build without it
        import hashlib

        sha256 = hashlib.sha256
    return str(sha256(data).hexdigest())


def _fingerprint(
    rows: Sequence[Mapping[str, Any]],
    labels: Sequence[Any] | None = None,
    questions: Sequence[Any] = (),
    images: Sequence[Any] = (),
) -> str:
    """The label file's fingerprint: the SHA-256 of its ``image\ttext\tlabel`` lines (16 hex).
    *labels*, *questions* and *images*: the rows' raw ``label``, ``text`` and ``image`` as
    columns, when already taken; where every one is a string the lines are joined without a
    format per row (the same text)."""
    if labels is not None and all(set(map(type, c)) == {str} for c in (labels, questions, images)):
        lines = list(map("\t".join, zip(images, questions, labels, strict=True)))
    else:
        lines = [f"{r.get('image', '')}\t{r.get('text', '')}\t{r.get('label')}" for r in rows]
    return _sha256("\n".join(lines).encode("utf-8"))[:16]


def _label_files(annotations: Any) -> list[tuple[str | None, Any]]:
    """``(split, source)`` of each label file: a folder's ``coco_pope_<split>.json`` files
    (LLaVA's ``--annotation-dir``), one file, or rows in memory."""
    if not isinstance(annotations, str | os.PathLike):
        return [(None, annotations)]
    path = path_text(annotations)  # as str(Path(annotations)) spells it, without pathlib
    if os.path.isdir(path):
        names = sorted(glob_names(path, "coco_pope_", ".json"))
        if not names:
            raise InputError(
                f"{path}: no coco_pope_<split>.json label files in this folder "
                "(expected coco_pope_random.json, coco_pope_popular.json, "
                "coco_pope_adversarial.json)"
            )
        return [(name[len("coco_pope_") : -len(".json")], path_join(path, name)) for name in names]
    name = path_name(path)
    split = None
    if name.startswith("coco_pope_") and name.endswith(".json"):
        split = name[len("coco_pope_") : -len(".json")]
    return [(split, path)]


#: a label line without that key (``text``, ``image``): its item has no such field
_ABSENT: Any = object()


class _LabelFile(NamedTuple):
    """One label file as read: each label line's label, question and image as columns (no
    prediction yet), in file order; :meth:`fields` gives a line's item fields, :meth:`items`
    the lines as items with their ids."""

    split: str | None
    records: Records
    #: each line's label, as text
    labels: list[str]
    #: each line's ``text`` (its question) and ``image``, :data:`_ABSENT` where it has none
    questions: list[Any]
    images: list[Any]
    #: (commit, split, lines) when the file is a known version (``KNOWN_LABELS``)
    known: tuple[str, str, int] | None
    #: the version token of the signature: the commit, or ``custom-<fingerprint>``
    version: str

    def fields(self, i: int) -> dict[str, Any]:
        """Line *i*'s item fields: its line number, split, question and image (each that
        the line has)."""
        fields: dict[str, Any] = {"label_line": i + 1}
        if self.split is not None:
            fields["split"] = self.split
        if self.questions[i] is not _ABSENT:
            fields["question"] = self.questions[i]
        if self.images[i] is not _ABSENT:
            fields["image"] = self.images[i]
        return fields

    def question(self, i: int) -> Any:
        """Line *i*'s question, ``None`` when it has none (or a null one)."""
        text = self.questions[i]
        return None if text is _ABSENT else text

    def as_columns(self) -> bool:
        """Whether the lines' fields can be held as columns (:class:`ItemColumns`): no line
        has a null ``text`` or ``image`` (a column's ``None`` is a field the item lacks)."""
        return None not in self.questions and None not in self.images

    def items(self) -> list[Item]:
        """The label lines as items: id ``<split>/<question_id>`` (the line number when the
        line has none); built only where a join needs the ids (positional pairing does not)."""
        split = self.split
        out = []
        for i, row in enumerate(self.records.rows):
            qid = row.get("question_id", i + 1)
            item_id = f"{split}/{qid}" if split is not None else qid
            out.append(Item(item_id, None, (self.labels[i],), self.fields(i)))
        return out


def _read_labels(split: str | None, source: Any) -> _LabelFile:
    """A label file's lines: the label, and the line number, split, question and image as
    fields (their ids: :meth:`_LabelFile.items`)."""
    fmt = "jsonl" if isinstance(source, str | os.PathLike) else None
    records = read_records(source, format=fmt)
    rows = records.rows
    try:
        labels = [row["label"] for row in rows]
    except KeyError:
        labels = None
    raw = labels
    if labels is None or set(map(type, labels)) - {str}:  # line by line: the first fault named
        raw = None
        labels = [_label_text(records, i, row) for i, row in enumerate(rows)]
    questions = [row.get("text", _ABSENT) for row in rows]
    images = [row.get("image", _ABSENT) for row in rows]
    fp = _fingerprint(rows, raw, questions, images)
    known = KNOWN_LABELS.get(fp)
    version = known[0] if known else f"custom-{fp[:8]}"
    return _LabelFile(split, records, labels, questions, images, known, version)


def _label_text(records: Records, i: int, row: Mapping[str, Any]) -> str:
    """Line *i*'s label as text; a line without one is an error naming it."""
    if "label" not in row:
        raise InputError(
            f"{records.where(i)}: no 'label' field (fields: {', '.join(row)}); "
            "is this a POPE label file?"
        )
    label = row["label"]
    if type(label) is str:
        return label
    return str(cell_text(label, records.where(i), column="label"))


def _labels_extra(files: Sequence[_LabelFile]) -> dict[str, Any]:
    """The signature's ``labels``: the versions of the label files, each once."""
    return {"labels": "+".join(dict.fromkeys(f.version for f in files))}


def _question_text(value: Any) -> str:
    """A question's first line, stripped: how LLaVA's prompts (the question, a newline, the
    answer instruction) are compared with the label files' questions."""
    text = value if type(value) is str else str(value)
    return text.partition("\n")[0].strip()


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


def _read_questions(source: Any) -> dict[Hashable, tuple[str, Any]]:
    """LLaVA's question file: ``question_id`` → (``category`` = split, question text as
    written: :func:`_question_text` is applied only where an answer lacks its prompt)."""
    records = read_records(
        source, format="jsonl" if isinstance(source, str | os.PathLike) else None
    )
    rows = records.rows
    try:  # a whole column at a time where every row has both (else row by row, below)
        qids = [row["question_id"] for row in rows]
        categories = [row["category"] for row in rows]
    except KeyError:
        qids = categories = []
    kinds = set(map(type, qids))
    if len(qids) == len(rows) and kinds <= {int, str}:
        keys = [str(qid) if type(qid) is int else qid.strip() for qid in qids]
        if set(map(type, categories)) - {str}:
            categories = [c if type(c) is str else str(c) for c in categories]
        texts = [row.get("text", "") for row in rows]
        return dict(zip(keys, zip(categories, texts, strict=True), strict=True))
    out: dict[Hashable, tuple[str, Any]] = {}
    for i, row in enumerate(records.rows):
        if "question_id" not in row or "category" not in row:
            raise InputError(
                f"{records.where(i)}: a POPE question file needs 'question_id' and 'category' "
                "(LLaVA's llava_pope_test.jsonl)"
            )
        # keyed by value: an answer's question_id 12 finds the question file's "12"
        qid = row["question_id"]
        category = row["category"]
        try:
            out[str(qid) if type(qid) is int else id_key(qid)] = (
                category if type(category) is str else str(category),
                row.get("text", ""),
            )
        except TypeError:  # an id that cannot be a key (a list, an object)
            raise InputError(
                f"{records.where(i)}: question_id {qid!r} is {type(qid).__name__}, expected "
                "a number or a string"
            ) from None
    return out


#: how POPE's files are told apart: a sheet by its name, or with its labels ('answer'); a file
#: given --answer-field is answers to pair with the labels, never a log
#: a log of pope_adv + pope_pop + pope_random concatenated: each split's doc_ids start at 0
TOOLKIT_LAYOUTS = yes_no_layouts(
    LogLayout(metrics=LMMS_EVAL_METRICS, record=LMMS_EVAL_RECORD, subtasks=("category",))
)


def read_pope(inputs: TaskInputs) -> TaskData:
    """POPE's items from whichever layout the results are in, read with the cyclic garbage
    collector paused: the rows of LLaVA's three files are tens of thousands of acyclic dicts,
    and the collector's passes over them cost a quarter of the reading (issue 23)."""
    with gc_paused():
        return read_yes_no(
            inputs,
            TOOLKIT_LAYOUTS,
            sheet=_read_vlmevalkit,
            log=_read_lmms_eval,
            other=_read_answers,
        )


def _read_answers(records: Records, inputs: TaskInputs) -> TaskData:
    if inputs.annotations is None:
        raise InputError(
            f"{records.source}: POPE answers need --annotations (a coco_pope_<split>.json label "
            "file or the folder of the three); only VLMEvalKit spreadsheets and lmms-eval logs "
            "with 'doc' carry their labels"
        )
    return _read_positional(records, inputs)


#: the fields a VLMEvalKit POPE sheet's rows keep, and the options it does not use: it carries
#: its labels and names each row's split
_SHEET_FIELDS = ("category", "question", "image_path")
_SHEET_UNUSED = {
    "annotations": "the VLMEvalKit file carries its own labels",
    "questions": "the VLMEvalKit file names each row's splits",
}


def _read_vlmevalkit(inputs: TaskInputs, records: Records | None = None) -> TaskData:
    """A VLMEvalKit POPE sheet: its ``answer`` (Yes/No) is the label, lower-cased."""
    return read_yes_no_sheet(
        inputs, records, fields=_SHEET_FIELDS, unused=_SHEET_UNUSED, item=_lower_label
    )


def _lower_label(item: Item, _source: str) -> Item:
    """A sheet row's item with its label (``Yes``/``No``) as POPE's label files spell it."""
    return Item(item.id, item.prediction, (item.references[0].strip().lower(),), item.fields)


def _read_positional(records: Records, inputs: TaskInputs) -> TaskData:
    field, layout = _answer_field(records, inputs)
    questions = _read_questions(inputs.questions) if inputs.questions is not None else None
    label_files = _label_files(inputs.annotations)
    folder = len(label_files) > 1 or (
        isinstance(inputs.annotations, str | os.PathLike)
        and os.path.isdir(path_text(inputs.annotations))
    )
    id_col = inputs.id_field or "question_id"
    if inputs.id_field is not None:
        _require_column(records, id_col)
    answers = _answer_columns(records, field, questions, folder, id_col)
    if answers is None:  # a row the columns do not cover: row by row, the first fault named
        answers = _Answers.of(_answers(records, field, questions, inputs.questions, folder, id_col))
    texts = answers.texts
    if None in texts and not inputs.allow_missing:
        empty = [answers.rows[k] for k, text in enumerate(texts) if text is None]
        more = f" (and {len(empty) - 1} more)" if len(empty) > 1 else ""
        raise InputError(
            f"{records.where(empty[0])}: empty answer ({field!r} is null or an empty cell)"
            f"{more}; pass --allow-missing to score the {len(empty)} empty answer(s) wrong"
        )
    dup_note = None
    named = all(id_col in row for row in records.rows)
    if named:
        # LLaVA's answers name their question: one answered twice would shift every pairing
        # one answer a row, in order: answer k's place is records.where(k)
        keep, dup_note = unique_rows(
            answers.keys, records.where, what=id_col, on_duplicate=inputs.on_duplicate
        )
        if dup_note is not None:
            answers = answers.take(keep)
    if folder and None in answers.splits:
        raise InputError(
            f"{records.source}: the answers carry no split, so they cannot be paired with a "
            "folder of label files; pass LLaVA's question file as --questions "
            "(llava_pope_test.jsonl) or one coco_pope_<split>.json as --annotations"
        )

    paired: list[tuple[_LabelFile, list[int]]] = []  # each label file and its answers
    files: list[_LabelFile] = []
    notes: list[str] = [dup_note] if dup_note else []
    by_split = group_by_split(answers.splits)
    used: set[str | None] = set()
    every = False  # whether one label file took every answer
    for split, source in label_files:
        labels = _read_labels(split, source)
        files.append(labels)
        if not folder and (questions is None or split is None):
            mine = list(range(len(answers.keys)))  # one label file: every answer, in order
            every = True
        else:
            mine = by_split.get(split, [])
            used.add(split)
        if not mine:
            if inputs.allow_missing:
                notes.append(f"{labels.records.source}: no answers for split {split}; left out")
                continue
            raise InputError(
                f"{records.source}: no answers for split {split!r} "
                f"(label file {labels.records.source}); pass --allow-missing to leave it out"
            )
        # without a question file the ids the answers carry can only be the label file's
        _check_pairing(mine, answers, labels, records, ids=named and questions is None)
        paired.append((labels, mine))

    if (questions is not None or folder) and not every:
        extra = [k for k, split in enumerate(answers.splits) if split not in used]
        if extra:
            splits = ", ".join(sorted({str(answers.splits[k]) for k in extra}))
            if not inputs.ignore_extra:
                raise InputError(
                    f"{records.where(answers.rows[extra[0]])}: {len(extra)} answer(s) of "
                    f"split(s) {splits} have no label file here; pass the folder of the three "
                    "label files, or --ignore-extra to leave them out"
                )
            notes.append(f"{len(extra)} answer(s) of split(s) {splits} were ignored")
    items = _paired_items(answers, paired)
    n_empty = item_column(items, "prediction").count(None)
    if n_empty:
        notes.append(f"{n_empty} empty answer(s) scored wrong (--allow-missing)")
    return TaskData(
        items,
        (records.source, *(f.records.source for f in files)),
        (f"{layout} ({records.layout})", "pope-labels"),
        tuple(notes),
        extra=_labels_extra(files),
        n_missing=n_empty,
        n_extra_ignored=len(answers.keys) - len(items),
    )


def _paired_items(
    answers: _Answers, paired: Sequence[tuple[_LabelFile, Sequence[int]]]
) -> Sequence[Item]:
    """QUIRK positional-pairing: answer *k* of a label file's answers with its line *k* (the
    counts are checked): as columns (no object per item), or as items where a line's null
    ``text``/``image`` is a field a column could not hold."""
    keys, texts = answers.keys, answers.texts
    if not all(labels.as_columns() for labels, _ in paired):
        return [
            Item(keys[k], texts[k], (labels.labels[pos],), labels.fields(pos))
            for labels, mine in paired
            for pos, k in enumerate(mine)
        ]
    ids: list[str | int] = []
    predictions: list[str | None] = []
    references: list[tuple[str]] = []
    columns: dict[str, list[Any]] = {"label_line": [], "split": [], "question": [], "image": []}
    for labels, mine in paired:
        ids += [keys[k] for k in mine]
        predictions += [texts[k] for k in mine]
        references += [(label,) for label in labels.labels]
        columns["label_line"] += range(1, len(mine) + 1)
        columns["split"] += [labels.split] * len(mine)
        columns["question"] += [None if q is _ABSENT else q for q in labels.questions]
        columns["image"] += [None if im is _ABSENT else im for im in labels.images]
    return ItemColumns(ids, predictions, references, columns)


def _require_column(records: Records, column: str) -> None:
    """Every row has the *column* ``--id-field`` names (else an error at the first without)."""
    for i, row in enumerate(records.rows):
        if column not in row:
            raise InputError(
                f"{records.where(i)}: no {column!r} field (--id-field; fields: {', '.join(row)})"
            )


#: a tuple, not ``str | int``: the union would be built anew for every row
_ID_TYPES = (str, int)


def group_by_split(splits: Sequence[str | None]) -> dict[str | None, list[int]]:
    """The positions of each split's answers, each split's in file order (the splits in the
    order they first appear).

    A file holds a few splits: one pass per split (a comprehension each) costs a quarter of one
    pass that looks every answer's split up.
    """
    order = dict.fromkeys(splits)
    if len(order) == 1:
        return {split: list(range(len(splits))) for split in order}
    return {split: [k for k, s in enumerate(splits) if s == split] for split in order}


def _answer_columns(
    records: Records,
    field: str,
    questions: Mapping[Hashable, tuple[str, Any]] | None,
    folder: bool,
    id_col: str,
) -> _Answers | None:
    """:func:`_answers` as columns, a whole column at a time, where every row is what the
    layout expects: its answer text, ids of one kind (numbers, texts, or none), the question
    in every row's ``prompt`` (else ``question``, or in none) and, with the question file,
    every id in it. ``None`` otherwise: :func:`_answers` then reads the rows one by one and
    names the first fault (the result is the same: ``test_pope_read`` checks both ways)."""
    rows = records.rows
    n = len(rows)
    try:
        texts = [row[field] for row in rows]
    except KeyError:
        return None
    if not n or set(map(type, texts)) != {str}:
        return None
    qids = [row.get(id_col) for row in rows]
    kinds = set(map(type, qids))
    asked = _asked(rows)
    if asked is _ABSENT:
        return None
    if questions is not None:
        if kinds == {int}:
            lookup = list(map(str, qids))
        elif kinds <= {int, str}:
            lookup = [str(qid) if type(qid) is int else cast(str, qid).strip() for qid in qids]
        else:
            return None
        looked = list(map(questions.get, lookup))
        if None in looked:
            return None
        found = cast("list[tuple[str, Any]]", looked)
        splits: list[str | None] = [f[0] for f in found]
        if asked is None:
            asked = [_question_text(f[1]) for f in found]
    elif folder:
        categories = [row.get("category") for row in rows]
        if set(map(type, categories)) != {str}:
            return None
        splits = list(categories)
    else:
        splits = [None] * n
    if kinds == {type(None)}:
        keys: list[str | int] = list(range(1, n + 1))
    elif kinds <= {int, str}:
        keys = cast("list[str | int]", qids)
    else:
        return None
    return _Answers(splits, texts, [None] * n if asked is None else asked, keys, [*range(n)])


def _asked(rows: Sequence[Mapping[str, Any]]) -> Any:
    """Every row's question as :func:`_answers` reads it (its ``prompt``, else its
    ``question``): ``None`` when no row has either, :data:`_ABSENT` when the rows differ in
    which they have."""
    for name in ("prompt", "question"):
        values = [row.get(name, _ABSENT) for row in rows]
        if _ABSENT not in values:
            if set(map(type, values)) == {str}:
                return [value.partition("\n")[0].strip() for value in values]
            return list(map(_question_text, values))
        if values.count(_ABSENT) != len(values):
            return _ABSENT
    return None


def _answers(
    records: Records,
    field: str,
    questions: Mapping[Hashable, tuple[str, Any]] | None,
    questions_source: Any,
    folder: bool,
    id_col: str = "question_id",
) -> list[_Answer]:
    """Each row's answer text, question and split: the split from LLaVA's question file when
    given, else (with a folder of label files) the row's own ``category``. *id_col* holds
    the question id (``--id-field``; LLaVA's ``question_id``)."""
    answers: list[_Answer] = []
    append = answers.append
    for i, row in enumerate(records.rows):
        if field not in row:
            raise InputError(f"{records.where(i)}: no {field!r} field (fields: {', '.join(row)})")
        text = row[field]
        if type(text) is not str:  # a string is taken as it is; anything else is checked
            text = answer_cell(records, i, field)
        qid = row.get(id_col)
        split: str | None = None
        qtext: str | None = None
        if "prompt" in row:
            qtext = _question_text(row["prompt"])
        elif "question" in row:
            qtext = _question_text(row["question"])
        if questions is not None:
            if qid is None:
                raise InputError(f"{records.where(i)}: no {id_col!r} to look up in --questions")
            try:
                found = questions.get(str(qid) if type(qid) is int else id_key(qid))
            except TypeError:  # an id that cannot be a key (a list) is in no question file
                found = None
            if found is None:
                raise InputError(
                    f"{records.where(i)}: {id_col} {qid!r} is not in the question file "
                    f"{questions_source}"
                )
            split = found[0]
            if qtext is None:
                qtext = _question_text(found[1])
        elif folder and "category" in row:
            split = str(field_value(row["category"], records.where(i), "category"))
        key: str | int = qid if isinstance(qid, _ID_TYPES) else i + 1
        append(_Answer(split, text, qtext, key, i))
    return answers


def _check_pairing(
    mine: Sequence[int],
    answers: _Answers,
    labels: _LabelFile,
    results: Records,
    *,
    ids: bool = False,
) -> None:
    """Count check, then (with *ids*: the answers name their questions) id check, then text
    check of the answers at the positions *mine* against the label lines: positional pairing
    with another label version, or answers in another order, would silently misalign in the
    official script."""
    known, split = labels.known, labels.split
    version = f" (POPE labels @ {known[0]}, {known[1]})" if known else ""
    what = f"split {split}" if split else "the answers"
    n_labels = len(labels.labels)
    if len(mine) != n_labels:
        hint = ""
        if split == "random" and len(mine) == 2910:
            hint = "; 2,910 random answers were made for the e3e3926 labels LLaVA-1.5 used"
        elif split == "random" and len(mine) == 3000:
            hint = "; 3,000 random answers were made for the current (3df3ba1) labels"
        raise InputError(
            f"{results.source}: {len(mine)} answers for {what} but {labels.records.source} "
            f"has {n_labels} labels{version}: answers and labels are paired by "
            f"position, so this would misalign (--allow-missing cannot place absent "
            f"answers){hint}"
        )
    if ids:
        _check_ids(mine, answers, labels, results)
    asked = [answers.questions[k] for k in mine]
    if asked == labels.questions:
        return  # every answer asks its line's question as written (LLaVA's, once cut)
    for pos, question in enumerate(asked):
        ltext = labels.question(pos)
        if question is None or ltext is None:
            continue
        if question != ltext and question != _question_text(ltext):
            raise InputError(
                f"{results.where(answers.rows[mine[pos]])}: question {question!r} but "
                f"{labels.records.where(pos)} asks {_question_text(ltext)!r}"
                f"{version}: the answers were made for another version of the label file "
                "(pairing is by position)"
            )


def _check_ids(
    mine: Sequence[int], answers: _Answers, labels: _LabelFile, results: Records
) -> None:
    """The answers' question ids against the label lines', position by position, when they
    are the label file's ids (at least half of them are; LLaVA's question file numbers its
    popular and random questions apart): the official script pairs by position, so an answer
    out of order, or of a question the file lacks, would be scored against another label."""
    rows = labels.records.rows
    label_ids = [str(row.get("question_id")) for row in rows]
    asked = [str(answers.keys[k]) for k in mine]
    if asked == label_ids or "None" in label_ids:
        return
    known = set(label_ids)
    if 2 * sum(q in known for q in asked) < len(asked):
        return  # another numbering: the ids say nothing about the label lines
    pos = next(i for i, (q, lq) in enumerate(zip(asked, label_ids, strict=True)) if q != lq)
    where = results.where(answers.rows[mine[pos]])
    if asked[pos] not in known:
        raise InputError(
            f"{where}: question_id {answers.keys[mine[pos]]!r} is not in "
            f"{labels.records.source}, whose ids the other answers carry: answers and labels "
            "are paired by position (the official evaluate.py), so every answer must be of "
            "the label file's question on its line"
        )
    raise InputError(
        f"{where}: question_id {answers.keys[mine[pos]]!r}, but {labels.records.where(pos)} is "
        f"question_id {rows[pos].get('question_id')!r}: answers and labels are paired by "
        "position (the official evaluate.py), so this would misalign; write the answers in the "
        "label file's order"
    )


# ---------------------------------------------------------------------------- lmms-eval logs


def _label_truth(inputs: TaskInputs) -> Truth:
    """The label files of ``--annotations`` as the truth a log is joined to: their lines in
    the files' order (a folder's files sorted by name: adversarial, popular, random)."""
    files = [_read_labels(split, source) for split, source in _label_files(inputs.annotations)]
    return Truth(
        [line for f in files for line in f.items()],
        tuple(f.records.source for f in files),
        "pope-labels",
        extra=_labels_extra(files),
    )


def _doc_label(doc: dict[str, Any], where: str) -> tuple[str, ...]:
    """The doc's ``answer``, lower-cased and stripped as lmms-eval's ``pope_process_results``
    does before it asserts yes/no."""
    value = doc.get("answer")
    if not isinstance(value, str) or value.lower().strip() not in ("yes", "no"):
        raise InputError(f"{where}: doc.answer {value!r} is not yes/no (lmms-eval asserts this)")
    return (value.lower().strip(),)


def _split_items(base: list[Item], preds: Predictions) -> list[Item]:
    """The log's items: lmms-lab/POPE's ``category`` (adversarial/popular/random) is what
    vqametrics calls the ``split``; the id is ``<split>/<question_id>`` (the question ids of
    the three label files overlap)."""
    items = []
    for item, where in zip(base, preds.wheres, strict=True):
        fields = dict(item.fields)
        category = fields.pop("category", None)
        if category is not None:
            if not isinstance(category, str):
                raise InputError(f"{where}: doc.category {category!r} is not a split name")
            fields["split"] = category
        if "image_source" in fields:
            fields["image"] = fields.pop("image_source")
        item_id = item.id if category is None else f"{category}/{item.id}"
        items.append(Item(item_id, item.prediction, item.references, fields))
    return items


#: the labels of --annotations win over the docs', joined by each doc's split and question id
_KEYED_JOIN = KeyedJoin(
    used="the labels of --annotations were used: {source} was joined to them by each doc's "
    "category (split) and question_id, and every question text checked",
    extra_error="{n} record(s) name a question that is not in {truth} (joined by the doc's "
    "category and question_id); pass the label files of every split the log covers, or "
    "--ignore-extra",
    extra_note="{n} record(s) for questions not in the label files were ignored",
    absent_error="{n} label line(s) have no record (first: {first}); pass --allow-missing to "
    "score them wrong",
    absent_note="{n} label line(s) had no record and are scored wrong",
    differ_truth="the label files",
    as_doc=lambda label: label.lower().strip(),
)


def _join_docs(preds: Predictions, inputs: TaskInputs) -> TaskData:
    """Docs joined to the label files by (split, ``question_id``): the labels win; the
    question texts must agree (else the ids do not name the same questions), and docs whose
    answer differs from the label are counted in a note. The label lines in the label files'
    order, those without a record scored wrong."""
    docs = log_docs(preds, LOG_READING)
    labels = _label_truth(inputs)
    truth = labels.items
    by_qid: dict[str, list[int]] = {}
    for k, t in enumerate(truth):
        by_qid.setdefault(str(t.id).rsplit("/", 1)[-1], []).append(k)

    def find(doc: Item, where: str) -> int | None:
        split = doc.fields.get("split")
        qid = str(doc.id).rsplit("/", 1)[-1]
        fits = [
            k
            for k in by_qid.get(qid, [])
            if split is None or truth[k].fields.get("split") in (None, split)
        ]
        if len(fits) > 1:
            raise InputError(
                f"{where}: question_id {qid} is in {len(fits)} label files and the doc names no "
                "split ('category'); pass the label file of the split that was run"
            )
        if not fits:
            return None
        base = truth[fits[0]]
        ltext, dtext = base.fields.get("question"), doc.fields.get("question")
        if (
            isinstance(ltext, str)
            and isinstance(dtext, str)
            and _question_text(ltext) != _question_text(dtext)
        ):
            raise InputError(
                f"{where}: doc question_id {qid} asks {_question_text(dtext)!r} but label line "
                f"{base.fields['label_line']} ({base.id}) asks {_question_text(ltext)!r}: the "
                "doc's question_id does not name that label line (another label version?); "
                "score the log without --annotations"
            )
        return fits[0]

    return join_docs_by_key(preds, docs, inputs, labels, find, _KEYED_JOIN)


#: an lmms-eval ``--log_samples`` log of ``pope`` (or ``pope_adv``/``pope_pop``/
#: ``pope_random``). With ``doc`` (lmms-lab/POPE's row: ``question_id``, ``question``,
#: ``answer``, ``category``) it carries its labels; ``--annotations`` given too win, joined by
#: the doc's split and ``question_id``. Without ``doc`` it is joined to the label files by
#: position (``doc_id`` *i* = the *i*-th label line)
LOG_READING = LogReading(
    layout=TOOLKIT_LAYOUTS.log,
    id_keys=("question_id",),
    references=_doc_label,
    fields=("category", "question", "image_source"),
    adjust=_split_items,
    what="question (split/question_id)",
    joined=_join_docs,
    need="--annotations with the coco_pope_<split>.json label file of the task that was run "
    "(or the folder of the three for 'pope'; joined by position: doc_id i = its i-th label "
    "line)",
    truth=_label_truth,
)


def _read_lmms_eval(preds: Predictions, inputs: TaskInputs) -> TaskData:
    """An lmms-eval log of POPE, read as :data:`LOG_READING` declares."""
    return read_log(preds, inputs, LOG_READING)
