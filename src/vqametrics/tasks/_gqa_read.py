"""Reading GQA: the question dict (a file or a folder of chunks), predictions and choices.

GQA's ground truth is ``{tier}_questions.json``: a dict question id → question (``answer``,
``isBalanced``, ``types``, ``groups``, ``entailed``, ``semantic``, …). ``eval.py`` v1.1 also
accepts a folder of chunks (``loadFile``: ``{dir}/{dir}_*.json``, merged). Predictions are
``[{"questionId", "prediction"}]`` (the official layout), LLaVA's ``answers.jsonl``
(``question_id`` / ``text``), Qwen-VL's results (``questionId`` / ``answer``) or a
``{qid: prediction}`` mapping; they are joined by id, as every front-end does (spec §15).
An lmms-eval samples log is joined by ``doc.id`` (the question id), or by position
(``doc_id`` *i* = the *i*-th balanced question) when it logs no ``doc``; with ``doc`` and no
questions file it is scored against ``doc.answer`` (accuracy only).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Hashable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..core.exceptions import InputError, MissingPredictionError
from ..readers._json import parse_json_or_jsonl, repeated_members
from ..readers.detect import Layouts, LogLayout, docs_alone, read_by_layout
from ..readers.join import (
    disagreement_note,
    join_by_id,
    joinable_predictions,
    keyed_by_doc,
    logged_scores,
)
from ..readers.layouts import Predictions
from ..readers.records import Records, read_bytes_from
from ._base import Item, TaskData, TaskInputs
from ._common import NoGroundTruthError, read_vlmevalkit, reported_scores
from ._lmms import (
    TOOLKIT_SCORE,
    has_docs,
    lmms_eval_items,
    no_doc_error,
    positional_items,
    sample_score,
)

__all__ = [
    "LMMS_EVAL_METRICS",
    "LMMS_EVAL_REPORTED",
    "read_gqa",
    "steps_number",
    "words_number",
]

#: eval.py's ``getStepsNum``: an operation does not count when ``"op: arg"`` contains one of these
_NOT_A_STEP = ("exist", "query: name", "choose name")


def words_number(question: str) -> int:
    """``len(question.split())``: eval.py's question length in words."""
    return len(question.split())


def steps_number(program: list[Mapping[str, Any]]) -> int:
    """eval.py's reasoning steps: the operations whose ``"{operation}: {argument}"`` contains
    none of ``exist``, ``query: name``, ``choose name`` (a substring test, as in eval.py)."""
    return sum(_is_step(op["operation"], op["argument"]) for op in program)


@functools.lru_cache(maxsize=65536)
def _is_step(operation: Any, argument: Any) -> int:
    text = f"{operation}: {argument}"
    return 0 if any(o in text for o in _NOT_A_STEP) else 1


def _load_json_dict(
    source: Any, what: str, on_duplicate: str | None = None
) -> tuple[dict[str, Any], str, int]:
    """A JSON object from a path, a folder of chunks (eval.py's ``loadFile``) or memory, its
    name, and how many members repeating an earlier key were dropped (kept as eval.py's
    ``json.load`` and ``dict.update`` keep them: the last value).

    *on_duplicate* (the questions file only; ``None`` skips the check): ``"error"`` refuses a
    repeated question id, naming the file and the key, ``"last"`` keeps the last value."""
    if isinstance(source, Mapping):
        return dict(source), f"<{what}>", 0
    if not isinstance(source, str | os.PathLike):
        raise InputError(f"{what}: expected a path or a mapping, got {type(source).__name__}")
    path = Path(source)
    folder = path if path.is_dir() else None
    if folder is None and not path.exists():
        # loadFile("x.json") reads the chunks x/x_*.json when x.json does not exist (eval.py
        # splits the whole path at its first dot; only the file name is split here, so a
        # dotted folder such as ./data still works)
        stem = path.parent / path.name.split(".")[0]
        if stem.is_dir():
            folder = stem
    if folder is None:
        name, data, _ = read_bytes_from(path)
        value = _as_object(name, data)
        if on_duplicate is None:
            return value, name, 0
        return value, name, _repeated_questions(name, data, value, on_duplicate)
    chunks = sorted(folder.glob(f"{folder.name}_*.json"))
    if not chunks:
        raise InputError(f"{folder}: no chunk files {folder.name}_*.json in this folder")
    merged: dict[str, Any] = {}
    repeats = 0
    for i, chunk in enumerate(chunks):
        name, data, _ = read_bytes_from(chunk)
        value = _as_object(name, data)
        if on_duplicate is not None:
            repeats += _repeated_questions(name, data, value, on_duplicate)
        before = len(merged)
        merged.update(value)
        again = len(value) - (len(merged) - before)  # ids of an earlier chunk, read again
        if again and on_duplicate is not None:
            if on_duplicate != "last":
                raise _repeated_across(folder, chunks[:i], name, value)
            repeats += again
    return merged, os.fspath(folder), repeats


def _repeated_across(
    folder: Path, earlier: list[Path], name: str, value: Mapping[str, Any]
) -> InputError:
    """The error for a chunk that repeats a question id of an earlier chunk, naming both
    (the error path only: the earlier chunks are read again to find the first)."""
    for chunk in earlier:
        first_name, data, _ = read_bytes_from(chunk)
        seen = _as_object(first_name, data)
        key = next((k for k in value if k in seen), None)
        if key is not None:
            return InputError(
                f"{folder}: question id {key!r} is in {first_name} and again in {name}: "
                "eval.py's loadFile (dict.update) would silently keep the last chunk's; pass "
                "--on-duplicate last to keep the last one"
            )
    raise AssertionError("unreachable: a key of an earlier chunk")  # pragma: no cover


def _repeated_questions(
    name: str, data: bytes, questions: Mapping[str, Any], on_duplicate: str
) -> int:
    """How many members of the questions object *data* repeat an earlier question id (orjson,
    like eval.py's ``json.load``, kept the last value of each); under ``"error"`` the first is
    an :class:`InputError` naming the file, the line and the id.

    The cheap test first: every question has exactly one ``isBalanced`` member, so a file
    whose ``"isBalanced"`` count equals its number of distinct ids has no repeated id whose
    dropped value was a question (a 5 ms byte count on a 10 MB testdev file, against 320 ms for
    the second, key-preserving parse, which runs only when the counts differ). Known gap: a
    repeat whose dropped value lacks ``isBalanced`` (no question at all) is not seen.
    """
    if data.count(b'"isBalanced"') == len(questions):
        return 0
    return repeated_members(
        name, data, on_duplicate, what="question id", keeper="eval.py's json.load"
    )


def _as_object(name: str, data: bytes) -> dict[str, Any]:
    value, _ = parse_json_or_jsonl(name, data, False)
    if not isinstance(value, dict):
        raise InputError(
            f"{name}: expected a JSON object (question id → question), got {type(value).__name__}"
        )
    return value


def _check_question(source: str, qid: str, q: Any) -> None:
    where = f"{source}: question {qid!r}"
    if not isinstance(q, Mapping):
        raise InputError(f"{where}: expected an object, got {type(q).__name__}")
    for key, kind in (("answer", str), ("isBalanced", bool)):
        if not isinstance(q.get(key), kind):
            raise InputError(f"{where}: {key!r} is missing or not a {kind.__name__}")
    if not q["isBalanced"]:
        return  # only the answer of an unbalanced question is read (for consistency)
    if not isinstance(q.get("question"), str):
        raise InputError(f"{where}: 'question' is missing or not a str")
    program = q.get("semantic")
    if not isinstance(program, list) or not all(
        isinstance(op, Mapping) and "operation" in op and "argument" in op for op in program
    ):
        raise InputError(f"{where}: 'semantic' must be a list of {{operation, argument}}")
    entailed = q.get("entailed", [])
    if not isinstance(entailed, list):
        raise InputError(f"{where}: 'entailed' must be a list of question ids")
    types = q.get("types")
    if not isinstance(types, Mapping) or not all(
        isinstance(types.get(k), str) for k in ("structural", "semantic", "detailed")
    ):
        raise InputError(f"{where}: 'types' needs 'structural', 'semantic' and 'detailed'")
    groups = q.get("groups")
    if not isinstance(groups, Mapping) or (
        "global" in groups and not (groups["global"] is None or isinstance(groups["global"], str))
    ):
        raise InputError(f"{where}: 'groups' must be an object with a 'global' group")


def _read_choices(source: Any, balanced: list[str]) -> tuple[dict[str, Any], str]:
    choices, name, _ = _load_json_dict(source, "choices")
    for qid in balanced:
        c = choices.get(qid)
        if c is None:
            raise InputError(
                f"{name}: no choices for balanced question {qid!r} "
                "(eval.py reads choices[qid] for every balanced question)"
            )
        if not isinstance(c, Mapping) or not all(
            isinstance(c.get(k), list) for k in ("valid", "plausible")
        ):
            raise InputError(f"{name}: question {qid!r}: expected 'valid' and 'plausible' lists")
    return choices, name


#: lmms-eval's ``gqa`` task (lmms-eval@75571cf ``lmms_eval/tasks/gqa/gqa.yaml``): dataset
#: ``lmms-lab-encoder/GQA`` config ``testdev_balanced_instructions`` (rows ``id``, ``imageId``,
#: ``question``, ``answer``, …), ``doc_to_target: "answer"``, metric ``exact_match`` (a number
#: per sample, from its default ``process_results``)
LMMS_EVAL_METRICS = ("exact_match",)
#: a log joined to the questions file, given as --questions or --annotations
TOOLKIT_LAYOUTS = Layouts(
    log=LogLayout(metrics=LMMS_EVAL_METRICS, truth=("questions", "annotations"))
)

#: lmms-eval's aggregate metric (``results.json``, ``"<metric>,none"``) → the ``lmms-eval``
#: profile's metric that recomputes it (for setting reported beside recomputed)
LMMS_EVAL_REPORTED: Mapping[str, str] = {"exact_match": "exact_match"}
_NO_QUESTIONS_NOTE = (
    "no questions file: only the accuracy is computed (binary, open, distribution, "
    "consistency and the breakdowns need --questions {tier}_questions.json)"
)


def _load_questions(
    qsource: Any, on_duplicate: str = "error"
) -> tuple[dict[str, Any], str, list[str], int]:
    """The question dict, its name, its balanced question ids in file order, and how many
    members repeating an earlier question id were dropped (``on_duplicate="last"``; under
    ``"error"`` a repeated id is an error)."""
    questions, qname, repeats = _load_json_dict(qsource, "questions", on_duplicate)
    if not questions:
        raise InputError(f"{qname}: no questions")
    balanced = []
    for qid, q in questions.items():
        # fast path on well-formed questions; the slow check words the error
        if type(q) is dict and type(q.get("answer")) is str:
            flag = q.get("isBalanced")
            if flag is True:
                balanced.append(qid)
                continue
            if flag is False:
                continue
        _check_question(qname, qid, q)
        if q["isBalanced"]:
            balanced.append(qid)
    if not balanced:
        raise InputError(f"{qname}: no balanced question (eval.py scores balanced ones only)")
    return questions, qname, balanced, repeats


def _lmms_answer(doc: dict[str, Any], where: str) -> tuple[str, ...]:
    answer = doc.get("answer")
    if not isinstance(answer, str):
        raise InputError(f"{where}: doc.answer is missing or not text")
    return (answer,)


def read_gqa(inputs: TaskInputs) -> TaskData:
    """The balanced questions as items, joined to their predictions by question id.

    Each item carries what eval.py needs beside the answer: its types, global group, word
    and step counts, choices (when ``--choices`` is given) and the entailed questions with
    their gold answers and predictions (for consistency). An lmms-eval samples log is joined
    by its ``doc.id`` (the GQA question id), or by position when it logs no ``doc``.
    """
    if inputs.questions is not None and inputs.annotations is not None:
        raise InputError(
            "gqa: give the questions file once (--questions or --annotations, not both)"
        )
    qsource = inputs.questions if inputs.questions is not None else inputs.annotations

    def log(preds: Predictions, inputs: TaskInputs) -> TaskData:
        if qsource is None:
            return _read_lmms_eval_alone(inputs, preds)
        return _read_with_questions(inputs, preds.records, preds, qsource)

    def other(records: Records, inputs: TaskInputs) -> TaskData:
        if qsource is None:
            return _read_vlmevalkit_alone(inputs, records)
        return _read_with_questions(inputs, records, None, qsource)

    return read_by_layout(inputs, TOOLKIT_LAYOUTS, log=log, other=other)


def _read_with_questions(
    inputs: TaskInputs, records: Records, lmms: Predictions | None, qsource: Any
) -> TaskData:
    """The predictions of *records* (or the lmms-eval log *lmms*) joined to the questions
    file *qsource* by question id (a log without ``doc`` by position)."""
    questions, qname, balanced, repeats = _load_questions(qsource, inputs.on_duplicate)

    notes: list[str] = []
    if repeats:
        notes.append(
            f"{qname}: {repeats} member(s) repeat an earlier question id; the last value of "
            "each was kept (--on-duplicate last, as eval.py's json.load)"
        )
    logged: list[Item] = []  # the toolkit's per-sample scores, by question id
    if lmms is None:
        preds = joinable_predictions(records, inputs)
    elif has_docs(lmms):
        preds = keyed_by_doc(lmms, _doc_question_id)
        logged = _logged(preds)
        note = _doc_disagreement(preds, questions, qname)
        if note:
            notes.append(note)
    else:
        # doc_id i = the i-th balanced question: lmms-eval's testdev_balanced rows
        truth = [Item(qid, None, (questions[qid]["answer"],)) for qid in balanced]
        logged, note, _ = positional_items(
            lmms, truth, qname, sample_metrics=LMMS_EVAL_METRICS, allow_missing=inputs.allow_missing
        )
        notes.append(note)
        ids: list[Hashable] = [balanced[row["doc_id"]] for row in lmms.records.rows]
        preds = replace(lmms, ids=ids)
    qids = list(questions)
    joined = join_by_id(
        qids,
        preds.ids,
        preds.texts,
        source=records.source,
        wheres=preds.wheres,
        allow_missing=True,
        ignore_extra=inputs.ignore_extra,
        on_duplicate=inputs.on_duplicate,
    )
    by_qid: dict[str, str | None] = dict(zip(qids, joined.predictions, strict=True))
    missing = [q for q in qids if by_qid[q] is None]
    missing_balanced = [q for q in missing if questions[q]["isBalanced"]]
    if missing and not inputs.allow_missing:
        first = missing_balanced[0] if missing_balanced else missing[0]
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        if missing_balanced:
            why = "eval.py stops: 'no prediction for question … Please add prediction for all'"
        else:
            why = (
                "it is unbalanced, but eval.py v1.1 looks up a prediction for every question "
                "in the file and stops with KeyError"
            )
        raise MissingPredictionError(
            f"{records.source}: no prediction for question {first!r}{more} of {qname} ({why}); "
            "pass --allow-missing to score missing balanced questions 0 and skip unbalanced ones"
        )
    if missing_balanced:
        notes.append(f"{len(missing_balanced)} balanced question(s) had no prediction and scored 0")
    if len(missing) > len(missing_balanced):
        notes.append(
            f"{len(missing) - len(missing_balanced)} unbalanced question(s) without a prediction "
            "were skipped (eval.py would stop with KeyError)"
        )
    if joined.extra:
        notes.append(f"{len(joined.extra)} prediction(s) for questions not in {qname} were ignored")

    choices = None
    if inputs.options.get("choices") is not None:
        choices, _ = _read_choices(inputs.options["choices"], balanced)

    items = [_item(qname, qid, questions, by_qid, choices) for qid in balanced]
    items = logged_scores(items, logged)
    return TaskData(
        items,
        (qname, records.source),
        ("gqa-questions", preds.layout),
        tuple(notes),
        reported_scores(inputs) if lmms is not None else None,
        n_missing=len(missing_balanced),
        n_extra_ignored=len(joined.extra),
    )


def _doc_question_id(doc: Mapping[str, Any], where: str) -> str:
    """A record's ``doc.id``: the GQA question id, the key of the questions file."""
    qid = doc.get("id")
    if not isinstance(qid, str) or not qid:
        raise InputError(f"{where}: doc.id (the GQA question id) is missing or not text")
    return qid


def _logged(preds: Predictions) -> list[Item]:
    """The toolkit's own per-sample score of each record keyed by question id (no answers:
    the questions file's are used), for the per-sample check."""
    logged = []
    for row, qid in zip(preds.records.rows, preds.ids, strict=True):
        recorded = sample_score(row, LMMS_EVAL_METRICS)
        if recorded is not None:
            logged.append(Item(str(qid), None, (), {TOOLKIT_SCORE: recorded}))
    return logged


def _doc_disagreement(preds: Predictions, questions: Mapping[str, Any], qname: str) -> str | None:
    """The note counting the docs whose ``answer`` differs from the questions file's (whose
    answers are used)."""
    differ = []
    for row, qid in zip(preds.records.rows, preds.ids, strict=True):
        q = questions.get(str(qid))
        if isinstance(q, Mapping) and row["doc"].get("answer") != q.get("answer"):
            differ.append(qid)
    return disagreement_note(differ, f"doc.answer(s) of {preds.source}", qname)


def _read_lmms_eval_alone(inputs: TaskInputs, preds: Predictions) -> TaskData:
    """An lmms-eval samples log scored against its ``doc.answer``: accuracy only, as for a
    VLMEvalKit spreadsheet (the types and groups are in the questions file)."""
    if not has_docs(preds):
        raise no_doc_error(
            preds.source,
            "--questions testdev_balanced_questions.json (joined by position: doc_id i = its "
            "i-th balanced question)",
            lacks="question id (only exact_match)",
        )
    items = lmms_eval_items(
        preds,
        id_keys=("id",),
        references=_lmms_answer,
        fields=("question", "imageId"),
        sample_metrics=LMMS_EVAL_METRICS,
    )
    return docs_alone(preds, inputs, items, what="doc.id", notes=(_NO_QUESTIONS_NOTE,))


def _read_vlmevalkit_alone(inputs: TaskInputs, records: Records) -> TaskData:
    """A VLMEvalKit spreadsheet (``GQA_TestDev_Balanced``) scored against its own ``answer``
    column; without the questions file only the accuracy can be computed."""
    try:
        data = read_vlmevalkit(inputs, fields=("category", "split"), records=records)
    except NoGroundTruthError:
        raise InputError(
            "gqa: the questions file is needed (--questions {tier}_questions.json, e.g. "
            "testdev_balanced_questions.json): it holds the answers and question types "
            "(only a VLMEvalKit spreadsheet or an lmms-eval log with doc carries its answers)"
        ) from None
    return replace(data, notes=(*data.notes, _NO_QUESTIONS_NOTE))


def _item(
    source: str,
    qid: str,
    questions: Mapping[str, Any],
    predictions: Mapping[str, str | None],
    choices: Mapping[str, Any] | None,
) -> Item:
    q = questions[qid]
    try:
        types = q["types"]
        structural, semantic, detailed = types["structural"], types["semantic"], types["detailed"]
        group = (q.get("groups") or {}).get("global")
        words = words_number(q["question"])
        steps = steps_number(q["semantic"])
        entailed_ids = q.get("entailed", [])
        ok = (
            type(structural) is str
            and type(semantic) is str
            and type(detailed) is str
            and (group is None or type(group) is str)
            and type(entailed_ids) is list
        )
    except (KeyError, TypeError, AttributeError):
        ok = False
    if not ok:
        _check_question(source, qid, q)
        raise InputError(f"{source}: question {qid!r}: malformed question")
    entailed = []
    for eid in entailed_ids:
        if eid == qid:
            continue
        eq = questions.get(eid)
        gold = eq.get("answer") if isinstance(eq, dict) else None
        entailed.append((str(eid), gold, predictions.get(eid)))
    fields: dict[str, Any] = {
        "structural": structural,
        "semantic": semantic,
        "detailed": detailed,
        "group": group,
        "words": words,
        "steps": steps,
        "entailed": tuple(entailed),
    }
    if choices is not None:
        fields["valid"] = tuple(choices[qid]["valid"])
        fields["plausible"] = tuple(choices[qid]["plausible"])
    return Item(qid, predictions[qid], (q["answer"],), fields)
