"""Reading MME's files: the eval_tool folder of ``<task>.txt`` files (with or without the
prediction column), LLaVA's answers joined as ``convert_answer_to_mme.py`` joins them,
VLMEvalKit sheets and lmms-eval ``--log_samples`` logs. Lines are paired by position, as
``calculation.py`` does. See ``mme.py`` for the scoring."""

from __future__ import annotations

import io
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..core.exceptions import InputError
from ..readers._paths import glob_names, path_join, path_name, path_suffix, path_text
from ..readers.detect import (
    LogLayout,
    join_docs,
    join_docs_by_key,
    read_log,
    read_yes_no,
    yes_no_layouts,
)
from ..readers.join import unique_rows
from ..readers.layouts import Predictions
from ..readers.records import Records, cell_text, read_bytes_from
from ._base import Item, TaskData, TaskInputs
from ._lmms import KeyedJoin, LogReading, MetricRecord, Truth, log_docs
from ._yesno import answer_cell, read_yes_no_sheet, unused_notes

if TYPE_CHECKING:  # pathlib is imported for --annotations only (issue 23)
    from pathlib import Path

__all__ = [
    "COGNITION",
    "GROUPS",
    "GROUP_OF",
    "LMMS_EVAL_METRICS",
    "LMMS_EVAL_REPORTED",
    "PERCEPTION",
    "QUESTIONS",
    "TASKS",
    "MmeInputError",
    "read_mme",
    "read_task_file",
]

#: the official task lists, in ``calculation.py``'s order (the order of its sums)
PERCEPTION = (
    "existence",
    "count",
    "position",
    "color",
    "posters",
    "celebrity",
    "scene",
    "landmark",
    "artwork",
    "OCR",
)
COGNITION = ("commonsense_reasoning", "numerical_calculation", "text_translation", "code_reasoning")
GROUPS = (("perception", PERCEPTION), ("cognition", COGNITION))
TASKS = PERCEPTION + COGNITION
#: the number of questions of each task: the lines of its ``Your_Results/<task>.txt`` in the
#: official eval_tool (BradyFU/Awesome-Multimodal-Large-Language-Models@dd29509, branch
#: ``Evaluation``, ``tools/eval_tool.zip``): 2,374 questions, two per image
QUESTIONS: Mapping[str, int] = {
    "existence": 60,
    "count": 60,
    "position": 60,
    "color": 60,
    "posters": 294,
    "celebrity": 340,
    "scene": 400,
    "landmark": 400,
    "artwork": 400,
    "OCR": 40,
    "commonsense_reasoning": 140,
    "numerical_calculation": 40,
    "text_translation": 40,
    "code_reasoning": 40,
}
GROUP_OF = {t: g for g, ts in GROUPS for t in ts}

#: the per-sample metric lmms-eval's ``mme_process_results`` writes into each logged record:
#: ``mme_perception_score`` or ``mme_cognition_score`` by the doc's category, a dict with
#: ``question_id``, ``category`` and ``score`` (EvolvingLMMs-Lab/lmms-eval@75571cf
#: ``lmms_eval/tasks/mme/mme.yaml`` ``metric_list``, ``utils.py``)
LMMS_EVAL_METRICS = ("mme_perception_score", "mme_cognition_score")
#: the newer log (no doc): lmms-eval@75571cf tasks/mme/utils.py mme_process_results records
#: {question_id, category, score} under mme_perception_score / mme_cognition_score;
#: target = doc["answer"]
LMMS_EVAL_RECORD = MetricRecord(
    metrics=LMMS_EVAL_METRICS, doc={"question_id": "question_id", "category": "category"}
)

#: lmms-eval's aggregate metric (``results.json``, ``"<metric>,none"``) → the ``lmms-eval``
#: profile's metric that recomputes it (for setting reported beside recomputed)
LMMS_EVAL_REPORTED: Mapping[str, str] = {
    "mme_perception_score": "perception",
    "mme_cognition_score": "cognition",
}

#: the prompt pieces LLaVA's ``convert_answer_to_mme.py`` removes and re-attaches
_LLAVA_HINT = "Answer the question using a single word or phrase."
_YES_NO = " Please answer yes or no."


class MmeInputError(InputError):
    """An eval_tool file ``calculation.py`` cannot read: odd line count, ≠ 4 fields, bad GT."""


def read_task_file(
    path: str | os.PathLike[str], *, need_response: bool, check_pairs: bool = True
) -> list[tuple[str, str, str, str | None, str]]:
    """The lines of one eval_tool ``<task>.txt`` as ``(image, question, gt, response, where)``.

    The response keeps the line's trailing newline (QUIRK newline-in-window). With
    *need_response*, every line must have 4 tab-separated fields (``calculation.py``'s
    ``split('\\t')``); otherwise 3 (``Your_Results``) or 4. The GT must be yes/no in any case.
    With *need_response* and *check_pairs*, an odd number of lines is an error (the caller
    checks it itself after removing repeated lines).
    """
    name, data, _ = read_bytes_from(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MmeInputError(f"{name}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    # readlines() in text mode: only \n, \r\n and \r end a line (each read as \n), never the
    # other breaks str.splitlines() knows (\f, \x85, U+2028, …), which stay in the response
    lines = io.StringIO(text, newline=None).readlines()
    out = []
    for n, line in enumerate(lines, 1):
        where = f"{name}: line {n}"
        fields = line.split("\t")
        if len(fields) == 4:
            img, question, gt, response = fields
            resp: str | None = response
        elif len(fields) == 3 and not need_response:
            img, question, gt = fields
            gt = gt.rstrip("\r\n")
            resp = None
        elif len(fields) == 3:
            raise MmeInputError(
                f"{where}: 3 tab-separated fields (image, question, GT) and no response: this "
                "is ground truth (Your_Results); pass it as --annotations with the model's "
                "answers as --results"
            )
        else:
            extra = " (a tab inside the response?)" if len(fields) > 4 else ""
            raise MmeInputError(
                f"{where}: {len(fields)} tab-separated fields{extra}; calculation.py needs "
                "image, question, GT, response"
            )
        if gt.lower() not in ("yes", "no"):
            raise MmeInputError(f"{where}: ground truth {gt!r} is not yes/no")
        out.append((img, question, gt, resp, where))
    if need_response and check_pairs:
        _check_even(name, len(out))
    return out


def _check_even(name: str, n: int) -> None:
    if n % 2:
        raise MmeInputError(
            f"{name}: {n} lines, an odd number: calculation.py pairs consecutive lines "
            "(two questions per image)"
        )


def _stem(name: str) -> str:
    """``PurePath(name).stem``: the name without its last extension (``.txt`` stays whole)."""
    return name[: len(name) - len(path_suffix(name))]


def _task_files(folder: str | os.PathLike[str]) -> dict[str, str]:
    """``<task>.txt`` → its path, as ``{p.stem: p for p in sorted(Path(folder).glob("*.txt"))}``
    spells them, without pathlib."""
    text = path_text(folder)
    files = {_stem(n): path_join(text, n) for n in sorted(glob_names(text, "", ".txt"))}
    if not files:
        raise MmeInputError(
            f"{folder}: no <task>.txt files (expected the eval_tool layout: existence.txt, "
            "count.txt, …, code_reasoning.txt)"
        )
    return files


#: how MME's files are told apart (a folder is eval_tool's results, read first): a sheet by
#: its name, or with its ground truth ('answer'); a file given --answer-field is LLaVA answers
TOOLKIT_LAYOUTS = yes_no_layouts(LogLayout(metrics=LMMS_EVAL_METRICS, record=LMMS_EVAL_RECORD))


def read_mme(inputs: TaskInputs) -> TaskData:
    src = inputs.results
    if isinstance(src, str | os.PathLike) and os.path.isdir(path_text(src)):
        return _read_folder(path_text(src), inputs)
    return read_yes_no(
        inputs, TOOLKIT_LAYOUTS, sheet=_read_vlmevalkit, log=_read_lmms_eval, other=_read_llava
    )


def _read_folder(folder: str, inputs: TaskInputs) -> TaskData:
    """An eval_tool results folder: ``<task>.txt`` with the response as the 4th column.

    Each file is checked against the official question set (``QUESTIONS``): a task file
    missing, or shorter than its task, is an error unless ``--allow-missing``, which scores
    what is there as ``calculation.py`` does (it reads whatever lines a file has) and counts
    the absent questions. A line repeating the image, question and GT of another is an error
    unless ``--on-duplicate last``.
    """
    for option, value in (("--answer-field", inputs.answer_field), ("--id-field", inputs.id_field)):
        if value is not None:
            raise InputError(
                f"{folder}: {option} is not used by an eval_tool results folder (its <task>.txt "
                "lines have fixed columns: image, question, GT, response)"
            )
    files = _task_files(folder)
    missing = [t for t in TASKS if t not in files]
    notes: list[str] = []
    if missing and not inputs.allow_missing:
        raise MmeInputError(
            f"{folder}: no {missing[0]}.txt ({len(missing)} of the 14 task files missing: "
            f"{', '.join(missing)}); calculation.py reads all 14; pass --allow-missing to "
            "score the tasks present"
        )
    n_missing = sum(QUESTIONS[t] for t in missing)
    if missing:
        notes.append(
            f"task files not found, left out: {', '.join(missing)} ({n_missing} questions)"
        )
    unknown = [t for t in files if t not in GROUP_OF]
    if unknown:
        notes.append(f"files ignored (not MME tasks): {', '.join(t + '.txt' for t in unknown)}")
    items = []
    short: list[tuple[str, int]] = []
    for task in TASKS:
        if task not in files:
            continue
        lines = read_task_file(files[task], need_response=True, check_pairs=False)
        # (image, question, GT): the official files ask each image one yes- and one no-question
        keep, dup_note = unique_rows(
            [(img, question, gt.lower()) for img, question, gt, *_ in lines],
            [line[4] for line in lines],
            what="line (image, question, GT)",
            on_duplicate=inputs.on_duplicate,
        )
        if dup_note:
            notes.append(f"{path_name(files[task])}: {dup_note}")
        lines = [lines[k] for k in keep]
        _check_even(os.fspath(files[task]), len(lines))
        if len(lines) < QUESTIONS[task]:
            short.append((task, len(lines)))
        elif len(lines) > QUESTIONS[task]:
            notes.append(
                f"{task}.txt: {len(lines)} lines, more than the {QUESTIONS[task]} questions of "
                "MME's official set (another version of the benchmark?)"
            )
        for img, question, gt, resp, where in lines:
            items.append(_item(where, task, img, question, gt, resp))
    if short and not inputs.allow_missing:
        task, n = short[0]
        more = f" (and {len(short) - 1} more task file(s) short)" if len(short) > 1 else ""
        raise MmeInputError(
            f"{files[task]}: {n} lines, but MME's {task} has {QUESTIONS[task]} questions{more}; "
            "calculation.py scores the lines present without a word: pass --allow-missing to "
            "score them so, the absent questions counted"
        )
    for task, n in short:
        absent = QUESTIONS[task] - n
        n_missing += absent
        notes.append(
            f"{task}.txt: {n} of MME's {QUESTIONS[task]} questions, scored as calculation.py "
            f"scores the lines present ({absent} absent)"
        )
    notes += unused_notes(
        inputs,
        annotations="the results files carry their ground truth",
        questions="the results files carry their questions",
    )
    return TaskData(
        items,
        (os.fspath(folder),),
        ("mme-eval-tool",),
        tuple(notes),
        n_missing=n_missing,
    )


def _line_fields(task: str, image: str, question: str) -> dict[str, Any]:
    """An eval_tool line's fields: its task (``category``), image, question and group."""
    return {"category": task, "image": image, "question": question, "group": GROUP_OF.get(task)}


def _item(where: str, task: str, img: str, question: str, gt: str, resp: str | None) -> Item:
    return Item(where.rsplit("/", 1)[-1], resp, (gt,), _line_fields(task, img, question))


#: the fields a VLMEvalKit MME sheet's rows keep, and the options it does not use: it carries
#: its ground truth and its questions
_SHEET_FIELDS = ("category", "image_path", "question")
_SHEET_UNUSED = {
    "annotations": "the spreadsheet carries its own ground truth",
    "questions": "the spreadsheet carries its questions",
}


def _read_vlmevalkit(inputs: TaskInputs, records: Records | None = None) -> TaskData:
    """A VLMEvalKit MME sheet: its ``answer`` (Yes/No) is the ground truth; ``image_path``
    is the image acc+ pairs by."""
    return read_yes_no_sheet(
        inputs,
        records,
        fields=_SHEET_FIELDS,
        unused=_SHEET_UNUSED,
        error=MmeInputError,
        item=_sheet_item,
    )


def _sheet_item(item: Item, source: str) -> Item:
    """A sheet row's item with its ``image`` (``image_path``); its task and image must be
    there, as acc+ pairs by them."""
    for need in ("category", "image_path"):
        if need not in item.fields:
            raise MmeInputError(
                f"{source}: index {item.id}: no {need!r} (VLMEvalKit's MME file names each "
                "row's task in 'category' and its image in 'image_path', which acc+ pairs by)"
            )
    return Item(
        item.id,
        item.prediction,
        item.references,
        {**item.fields, "image": item.fields["image_path"]},
    )


def _llava_question(
    prompt: str, key: tuple[str, str], gt: Mapping[tuple[str, str, str], Any]
) -> str:
    """``convert_answer_to_mme.py``'s question: the LLaVA hint removed and stripped,
    ``Please answer yes or no.`` re-attached when absent — with two spaces before it when
    that is how the GT file spells the question."""
    if _LLAVA_HINT in prompt:
        prompt = prompt.replace(_LLAVA_HINT, "").strip()
    if "Please answer yes or no." not in prompt:
        prompt = prompt + _YES_NO
        if (key[0], key[1], prompt) not in gt:
            prompt = prompt.replace(_YES_NO, " " + _YES_NO)
    return prompt


def _your_results(
    annotations: Any,
) -> tuple[Path, dict[tuple[str, str, str], tuple[str, str, str]]]:
    """The eval_tool ``Your_Results`` folder: ``(task, image stem, question)`` → ``(GT, image,
    where)``, in the official task order (``TASKS``), then any other task file by name."""
    from pathlib import Path

    ann = Path(annotations)
    if not ann.is_dir():
        raise InputError(
            f"{ann}: MME annotations must be the eval_tool Your_Results folder of <task>.txt files"
        )
    files = _task_files(ann)
    order = [t for t in TASKS if t in files] + [t for t in files if t not in GROUP_OF]
    gt: dict[tuple[str, str, str], tuple[str, str, str]] = {}
    for task in order:
        path = files[task]
        for img, question, answer, _resp, where in read_task_file(path, need_response=False):
            key = (task, img.split(".")[0], question)
            if key in gt:
                raise MmeInputError(
                    f"{where}: the same image and question twice in {path_name(path)}"
                )
            gt[key] = (answer, img, where)
    return ann, gt


def _truth(gt: Mapping[tuple[str, str, str], tuple[str, str, str]]) -> list[Item]:
    """The Your_Results lines as items without a prediction, in their order: id
    ``<task>/<image>#<k>`` (the *k*-th question of the image)."""
    items = []
    seen: dict[tuple[str, str], int] = {}
    for (task, _stem, question), (answer, img, _where) in gt.items():
        k = seen[(task, img)] = seen.get((task, img), 0) + 1
        items.append(Item(f"{task}/{img}#{k}", None, (answer,), _line_fields(task, img, question)))
    return items


def _in_task_order(items: Sequence[Item]) -> list[Item]:
    """*items* by task, in the official task order (``TASKS``), then any other task in the
    order it first appears; each task's items in their order."""
    by_task: dict[str, list[Item]] = {}
    for it in items:
        by_task.setdefault(str(it.fields["category"]), []).append(it)
    order = [t for t in TASKS if t in by_task] + [t for t in by_task if t not in GROUP_OF]
    return [it for t in order for it in by_task[t]]


def _llava_answers(records: Records, inputs: TaskInputs) -> list[tuple[Item, str]]:
    """Each answer of LLaVA's answers.jsonl with its place: id ``question_id#row``, the text
    with the ``\\n`` the converter writes after it (QUIRK newline-in-window), the task and image
    stem of its ``question_id`` and its ``prompt`` as fields. An empty answer is an error, or
    with ``--allow-missing`` left out (its question is then counted without an answer)."""
    cols = set(records.columns)
    # --id-field / --answer-field name the columns that hold LLaVA's question_id and text
    id_col = inputs.id_field or "question_id"
    text_col = inputs.answer_field or "text"
    for need in (id_col, "prompt", text_col):
        if need not in cols:
            raise InputError(
                f"{records.source}: no {need!r} field: expected LLaVA's answers.jsonl "
                "(question_id, prompt, text), an eval_tool results folder or a VLMEvalKit "
                "spreadsheet"
            )
    answers = []
    for i, row in enumerate(records.rows):
        where = records.where(i)
        qid = cell_text(row.get(id_col), where, column=id_col)
        prompt = cell_text(row.get("prompt"), where, column="prompt")
        text = answer_cell(records, i, text_col)
        assert qid is not None and prompt is not None
        if text is None:
            if not inputs.allow_missing:
                raise InputError(
                    f"{where}: empty answer ({text_col!r} is null or an empty cell); pass "
                    "--allow-missing to leave out such answers, as questions without one"
                )
            continue  # its question has no answer: left out, and counted, by the join
        fields = {
            "category": qid.split("/")[0],
            "stem": qid.split("/")[-1].split(".")[0],
            "prompt": prompt,
        }
        answers.append((Item(qid + "#" + str(i + 1), text + "\n", (), fields), where))
    return answers


def _read_llava(records: Any, inputs: TaskInputs) -> TaskData:
    """LLaVA answers joined to ``Your_Results`` as ``convert_answer_to_mme.py`` does, then
    written (in memory) as eval_tool lines ``stem.txt, question, GT, text + "\\n"``."""
    if inputs.annotations is None:
        raise InputError(
            f"{records.source}: MME answers need --annotations: the eval_tool Your_Results folder "
            "(<task>.txt with image, question, GT); only eval_tool result folders, VLMEvalKit "
            "spreadsheets and lmms-eval logs with 'doc' carry their ground truth"
        )
    ann, gt = _your_results(inputs.annotations)
    keys = list(gt)
    index = {key: k for k, key in enumerate(keys)}
    answers = _llava_answers(records, inputs)

    def find(answer: Item, where: str) -> int | None:
        task, stem = str(answer.fields["category"]), str(answer.fields["stem"])
        question = _llava_question(str(answer.fields["prompt"]), (task, stem), gt)
        if (task, stem, question) not in index:
            if not inputs.ignore_extra:
                raise InputError(
                    f"{where}: no line of {task}.txt in {ann} has image {stem} and question "
                    f"{question!r} (convert_answer_to_mme.py's lookup); pass --ignore-extra "
                    "to leave out the answers to questions the ground truth lacks"
                )
            return None
        if any(c in (answer.prediction or "")[:-1] for c in "\t\n\r"):
            raise MmeInputError(
                f"{where}: the answer contains a tab or line break; written into the eval_tool "
                "file it would break calculation.py's one-line, four-field format"
            )
        return index[(task, stem, question)]

    join = join_docs(
        [a for a, _ in answers],
        [where for _, where in answers],
        _truth(gt),
        find,
        inputs.on_duplicate,
        repeat_error="a second answer to the question answered at {first} (pass "
        "--on-duplicate last to keep the last one)",
    )
    # the converter names each line's image by the answer's stem, as a .txt
    items = _in_task_order(
        [
            Item(it.id, it.prediction, it.references, {**it.fields, "image": keys[k][1] + ".txt"})
            for k, it in join.joined.items()
        ]
    )
    notes: list[str] = []
    if join.extra:  # find() raised at the first one unless --ignore-extra
        notes.append(
            f"{len(join.extra)} answer(s) to questions not in {ann} were left out "
            f"(--ignore-extra; first: {join.extra[0]})"
        )
    notes += filter(None, [join.repeated_note("answer(s) to a question")])
    missing = [keys[k] for k in join.absent(len(keys))]
    if missing and not inputs.allow_missing:
        _task, stem, question = missing[0]
        raise InputError(
            f"{records.source}: {len(missing)} question(s) of {ann} have no answer, e.g. "
            f"{gt[missing[0]][2]} ({stem}: {question!r}); pass --allow-missing to leave them "
            "out, as convert_answer_to_mme.py does"
        )
    if missing:
        notes.append(
            f"{len(missing)} question(s) without an answer were left out, as "
            "convert_answer_to_mme.py does (the task files are shorter)"
        )
    notes += unused_notes(inputs, questions="the join goes through the Your_Results files")
    return TaskData(
        items,
        (records.source, os.fspath(ann)),
        (f"llava-answers ({records.layout})", "mme-your-results"),
        tuple(notes),
        n_missing=len(missing),
        n_extra_ignored=len(join.extra),
    )


# ---------------------------------------------------------------------------- lmms-eval logs


def _truth_of(ann: Path, gt: Mapping[tuple[str, str, str], tuple[str, str, str]]) -> Truth:
    """The Your_Results lines as the truth a log is joined to, tasks in the official order."""
    return Truth(
        _truth(gt),
        (os.fspath(ann),),
        "mme-your-results",
        name=f"{ann} (tasks in calculation.py's order)",
        places=[where for _answer, _img, where in gt.values()],
    )


def _your_results_truth(inputs: TaskInputs) -> Truth:
    return _truth_of(*_your_results(inputs.annotations))


def _doc_answer(doc: dict[str, Any], where: str) -> tuple[str, ...]:
    """The doc's ``answer`` as lmms-eval's ``mme_process_results`` reads it (lower-cased,
    stripped, ``.`` deleted), which must then be yes/no (lmms-eval asserts it)."""
    value = doc.get("answer")
    gt = value.lower().strip().replace(".", "") if isinstance(value, str) else None
    if gt not in ("yes", "no"):
        raise MmeInputError(f"{where}: doc.answer {value!r} is not yes/no (lmms-eval asserts it)")
    return (gt,)


def _image_items(base: list[Item], preds: Predictions) -> list[Item]:
    """One item per record, in the log's order (lmms-eval sums the categories in first-seen
    order, which decides the last digits). ``image`` is the doc's ``question_id``: lmms-eval's
    ``mme_aggregate_results`` pairs a category's two questions of an image by it (acc+), so a
    doc without it, or without ``category``, cannot be scored as MME."""
    items = []
    seen: dict[tuple[str, str], int] = {}
    for item, row, where in zip(base, preds.records.rows, preds.wheres, strict=True):
        doc = row["doc"]
        task, qid = doc.get("category"), doc.get("question_id")
        if not isinstance(task, str):
            raise MmeInputError(
                f"{where}: the doc has no 'category' (the MME task, e.g. 'existence'); MME "
                "scores each task apart"
            )
        if not isinstance(qid, str):
            raise MmeInputError(
                f"{where}: the doc has no string 'question_id' (lmms-lab/MME's image path, "
                "e.g. 'code_reasoning/0020.png'): acc+ pairs an image's two questions by it"
            )
        k = seen[(task, qid)] = seen.get((task, qid), 0) + 1
        fields = dict(item.fields)
        fields.update(category=task, image=qid, group=GROUP_OF.get(task))
        items.append(Item(f"{qid}#{k}", item.prediction, item.references, fields))
    return items


#: the ground truth of --annotations wins over the docs', joined by LLaVA's key; the lines
#: without a record are left out, as convert_answer_to_mme.py does
_KEYED_JOIN = KeyedJoin(
    used="the ground truth of --annotations was used: {source} was joined to {truth} by each "
    "doc's category, image (question_id) and question",
    extra_error="{n} record(s) name a question that is in no <task>.txt of {truth} (joined by "
    "category, image and question); pass --ignore-extra to leave them out",
    extra_note="{n} record(s) for questions not in {truth} were ignored",
    absent_error="{n} question(s) of {truth} have no record, e.g. {first}; pass "
    "--allow-missing to leave them out",
    absent_note="{n} question(s) without a record were left out",
    differ_truth="the Your_Results GT",
    keep_absent=False,
    as_doc=str.lower,
    repeat_error="a second record for the question of {first} (pass --on-duplicate last to "
    "keep the last one)",
)


def _join_docs(preds: Predictions, inputs: TaskInputs) -> TaskData:
    """Docs joined to Your_Results by (task, image stem, question) — the key of LLaVA's
    ``convert_answer_to_mme.py`` — whose GT wins; docs whose answer differs are counted in a
    note, and Your_Results lines without a record are left out (as the converter does)."""
    docs = log_docs(preds, LOG_READING)
    ann, gt = _your_results(inputs.annotations)
    index = {key: k for k, key in enumerate(gt)}

    def find(doc: Item, where: str) -> int | None:
        task = str(doc.fields["category"])
        stem = str(doc.fields["image"]).split("/")[-1].split(".")[0]
        question = str(doc.fields.get("question", ""))
        if (task, stem, question) not in index:
            question = _llava_question(question, (task, stem), gt)
        return index.get((task, stem, question))

    return join_docs_by_key(preds, docs, inputs, _truth_of(ann, gt), find, _KEYED_JOIN)


#: an lmms-eval ``--log_samples`` log of ``mme``. With ``doc`` (lmms-lab/MME's row:
#: ``question_id`` — the image, which lmms-eval pairs the two questions by — ``question``,
#: ``answer``, ``category``) it carries its ground truth; ``--annotations`` (Your_Results)
#: given too win, joined by task, image and question. Without ``doc`` it is joined to the
#: Your_Results lines by position (``doc_id`` *i* = the *i*-th line, tasks in the official
#: order)
LOG_READING = LogReading(
    layout=TOOLKIT_LAYOUTS.log,
    references=_doc_answer,
    fields=("question",),
    adjust=_image_items,
    joined=_join_docs,
    need="--annotations with the eval_tool Your_Results folder (joined by position: doc_id i "
    "= its i-th line, tasks in calculation.py's order)",
    truth=_your_results_truth,
)


def _read_lmms_eval(preds: Predictions, inputs: TaskInputs) -> TaskData:
    """An lmms-eval log of MME, read as :data:`LOG_READING` declares."""
    return read_log(preds, inputs, LOG_READING)
