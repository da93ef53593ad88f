"""MMMU (val): multiple-choice and open questions, subject and discipline accuracy.

Profiles (spec ``mcq-reasoning.md`` §2):

* ``official`` — ``MMMU-Benchmark/MMMU@bb0b95a``: ``parse_multi_choice_response`` with the
  module's ``random.seed(42)`` draws consumed in parse order (subjects in ``CAT_SHORT2LONG``
  order, then file order), the open parse and ``eval_open``, instance-weighted subjects →
  disciplines → Overall, printed with 3 decimals.
* ``lmms-eval`` — lmms-eval@75571cf (0.7.3): its letter-space / letter-dot tiers, every open
  question scored 0 (QUIRK lmms-open-char-by-char, 736454b … PR #1471), 5 decimals, subjects
  summed in first-seen order. Its random fallback is the process's unseeded global ``random``:
  the draws are counted and reported, replayed from the log's recorded ``parsed_pred`` when it
  has one, drawn from ``--fallback-seed`` when given, and otherwise scored 0 and said.
* ``lmms-eval-pr1471`` — the same with the open questions scored as the official scorer does
  (what PR #1471 describes; its merged code is not in our pin).
* ``vlmevalkit`` / ``vlmevalkit-2025`` / ``vlmevalkit-2024`` — ``MMMU_DEV_VAL``: open questions
  become two-option questions (QUIRK pseudo-mcq), ``can_infer`` of the era, the recorded judge
  or exact matching, ``report_acc`` (micro Overall, per discipline and subject).

Inputs: the official ``{id: answer}`` file (``run_llava.py`` / ``total_val_output.json``, the
multiple-choice answers already parsed: ``main_eval_only.py``) with ``--annotations
answer_dict_val.json``; the records of ``main_parse_and_eval.py`` (``output.json``: ``id``,
``question_type``, ``answer``, ``all_choices``, ``index2ans``, ``response``) or a folder of
``<Subject>/output.json``; an lmms-eval ``--log_samples`` file with ``doc``.
"""

from __future__ import annotations

import ast
import os
import random
import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..core.exceptions import InputError
from ..core.toolkits import LMMS_EVAL as LMMS_EVAL_PIN
from ..kernels.choice import get_lineage
from ..kernels.choice.mmmu import (
    CAT_SHORT2LONG,
    OFFICIAL_SEED,
    RANDOM,
    aggregate_mmmu,
    discipline_of,
    eval_multi_choice,
    lmms_eval_mmmu,
    lmms_eval_open_correct,
    mmmu_official,
    official_open_correct,
    subject_of,
)
from ..readers.cells import named_columns, unused_fields
from ..readers.join import join_inputs, unique_rows
from ..readers.layouts import is_vlmevalkit, predictions_from
from ..readers.records import Records, column_name, read_records
from . import register_task
from ._base import Aggregate, Item, TaskData, TaskInputs, TaskProfile
from ._common import reported_scores
from ._lmms import lmms_eval_predictions, no_doc_error, without_questions
from ._mcq import (
    ChoiceTask,
    agreement_note,
    draw_fields,
    fallback_letter,
    read_mcq_sheet,
    vlmevalkit_profiles,
    with_decisions,
)

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["MCQ", "mmmu_item_correct"]

#: the question type of a multiple-choice question; every other value is an open question
MCQ = "multiple-choice"
_SUBJECT_RANK = {s: i for i, s in enumerate(CAT_SHORT2LONG.values())}

Parser = Callable[..., str]
OpenRule = Callable[[str, Sequence[str]], bool]


@dataclass(frozen=True)
class _Rules:
    """What distinguishes the profiles: the letter parser, the open rule, the rounding, the
    subject order of the sums, and the seed of the random fallback (``None``: unseeded)."""

    parse: Parser
    open_correct: OpenRule
    digits: int
    subject_order: str
    seed: int | None
    #: the signature's words for the open-question rule
    open_rule: str
    #: QUIRK rounded-return (lmms-eval): the task returns ``round(Overall, 5)`` itself, so the
    #: number in ``results.json`` is already rounded
    returns_rounded: bool = False


def _gold(references: Sequence[str]) -> str | list[str]:
    return references[0] if len(references) == 1 else list(references)


def mmmu_item_correct(
    rules: _Rules,
    prediction: str,
    references: Sequence[str],
    question_type: str | None,
    options: Mapping[str, str] | None,
    parsed_pred: str | None,
) -> bool:
    """One MMMU item under *rules*: a multiple-choice letter (*parsed_pred* when it was
    decided already, else the prediction as written when there are no *options* — the
    ``main_eval_only.py`` input — else parsed) equals the gold; an open answer by the rule."""
    gold = _gold(references)
    if question_type is None:
        question_type = MCQ if options else "open"
    if question_type != MCQ:
        return rules.open_correct(prediction, gold)
    if parsed_pred is None:
        if not options:
            parsed_pred = prediction
        else:
            parsed_pred = rules.parse(prediction, options)
            if parsed_pred == RANDOM:
                raise InputError(
                    f"{prediction[:60]!r}: no rule reads a letter, so the scorer would draw a "
                    "random one; parse it with vqametrics.parse_choice(..., rng=...) and pass "
                    "the letter, or score the whole run (the draws are seeded there)"
                )
    if parsed_pred == RANDOM:
        return False
    return eval_multi_choice(gold, parsed_pred)


def _scorer(rules: _Rules) -> Callable[..., float]:
    def score(
        prediction: str,
        references: Sequence[str],
        question_type: str | None = None,
        options: Mapping[str, str] | None = None,
        parsed_pred: str | None = None,
    ) -> float:
        ok = mmmu_item_correct(rules, prediction, references, question_type, options, parsed_pred)
        return 1.0 if ok else 0.0

    score.__doc__ = f"MMMU item score (1.0 or 0.0); open questions: {rules.open_rule}"
    return score


def _aggregator(rules: _Rules) -> Callable[[Sequence[Item], Sequence[float]], Aggregate]:
    def aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
        agg = aggregate_mmmu(
            ((str(it.fields["subject"]), s == 1.0) for it, s in zip(items, scores, strict=True)),
            subject_order=rules.subject_order,
        )
        n_random = sum(1 for it in items if it.fields.get("decided_at_random"))
        overall = agg.overall[0]
        metrics: dict[str, float | int] = {"Overall": overall}
        if rules.returns_rounded:
            metrics = {"Overall": round(overall, rules.digits), "Overall_unrounded": overall}
        return Aggregate(
            metrics={**metrics, "n": agg.overall[1], "random": n_random},
            headline="Overall",
            units="fraction",
            digits=rules.digits,
            breakdowns={
                "discipline": {d: {"accuracy": a, "n": n} for d, (a, n) in agg.disciplines.items()},
                "subject": {s: {"accuracy": a, "n": n} for s, (a, n) in agg.subjects.items()},
            },
        )

    return aggregate


def _detail(rules: _Rules) -> Callable[[Item], Mapping[str, Any]]:
    def detail(item: Item) -> Mapping[str, Any]:
        parsed = item.fields.get("parsed_pred")
        return {"parsed": parsed} if parsed is not None else {}

    return detail


OFFICIAL_RULES = _Rules(
    mmmu_official, official_open_correct, 3, "official", OFFICIAL_SEED, "official eval_open"
)
LMMS_RULES = _Rules(
    lmms_eval_mmmu, lmms_eval_open_correct, 5, "first-seen", None, "all-zero(736454b-bug)", True
)
PR1471_RULES = _Rules(
    lmms_eval_mmmu,
    official_open_correct,
    5,
    "first-seen",
    None,
    "official eval_open(pr1471)",
    True,
)
_RULES: dict[str, _Rules] = {}

_CONTEXT = ("question_type", "options", "parsed_pred")


def _profile(
    name: str,
    rules: _Rules,
    *,
    description: str,
    reproduces: str,
    toolkit: str,
    lineage: str,
) -> TaskProfile:
    _RULES[name] = rules
    return TaskProfile(
        name=name,
        description=description,
        reproduces=reproduces,
        toolkit=toolkit,
        score=_scorer(rules),
        aggregate=_aggregator(rules),
        context=_CONTEXT,
        detail=_detail(rules),
        choice=get_lineage(lineage),
    )


OFFICIAL = _profile(
    "official",
    OFFICIAL_RULES,
    description="MMMU eval_utils: official letter tiers (random.seed(42) draws in parse order), "
    "open parse + eval_open, instance-weighted subjects and disciplines, 3 dp",
    reproduces="MMMU-Benchmark/MMMU@bb0b95a mmmu/utils/eval_utils.py + main_eval_only.py",
    toolkit="MMMU@bb0b95a",
    lineage="mmmu_official",
)
LMMS_EVAL = _profile(
    "lmms-eval",
    LMMS_RULES,
    description=f"lmms-eval {LMMS_EVAL_PIN.release}: letter-space / letter-dot tiers, EVERY OPEN "
    "QUESTION SCORED 0 "
    "(eval_open iterates a string; 736454b until PR #1471), unseeded random, 5 dp",
    reproduces=LMMS_EVAL_PIN.at("tasks/mmmu/utils.py + mmmu_mcq_utils.py"),
    toolkit=LMMS_EVAL_PIN.token,
    lineage="lmms_eval_mmmu",
)
LMMS_EVAL_PR1471 = _profile(
    "lmms-eval-pr1471",
    PR1471_RULES,
    description="lmms-eval after PR #1471 (2026-08-24): its letter tiers, open questions as "
    "the official eval_open, 5 dp",
    reproduces=f"lmms-eval@{LMMS_EVAL_PIN.commit} with the fix PR #1471 describes (spec §2.4)",
    toolkit="lmms-eval@pr1471",
    lineage="lmms_eval_mmmu",
)


# ----- reading ---------------------------------------------------------------------------


def _options_from_list(value: Any, where: str) -> dict[str, str]:
    """Letters A, B, … for an option list (lmms-eval's ``doc["options"]`` is a Python-list
    string, read with ``ast.literal_eval`` as lmms-eval does)."""
    if isinstance(value, str):
        try:
            value = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            raise InputError(f"{where}: options {value[:60]!r} is not a Python list") from None
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise InputError(f"{where}: options must be a list of strings, got {value!r:.60}")
    return {chr(ord("A") + i): v for i, v in enumerate(value)}


def _references(gold: Any, where: str) -> tuple[str, ...]:
    if isinstance(gold, str):
        return (gold,)
    if isinstance(gold, list) and gold and all(isinstance(g, str) for g in gold):
        return tuple(gold)
    raise InputError(f"{where}: the ground truth must be a string or a list of strings")


def _subject_fields(item_id: str, where: str) -> dict[str, str]:
    subject = subject_of(item_id)
    discipline = discipline_of(subject)
    if discipline is None:
        raise InputError(
            f"{where}: {item_id!r} is not an MMMU id (<split>_<Subject>_<n> with one of the 30 "
            f"subjects; got subject {subject!r})"
        )
    return {"subject": subject, "discipline": discipline}


def _answer_dict(inputs: TaskInputs) -> tuple[list[Item], str]:
    """``answer_dict_val.json``: ``{id: {question_type, ground_truth}}``."""
    if inputs.annotations is None:
        raise InputError(
            "score mmmu: an {id: answer} file carries no ground truth; pass --annotations "
            "answer_dict_val.json (the official repo's gold file)"
        )
    recs = read_records(inputs.annotations, on_duplicate=inputs.on_duplicate)
    items = []
    for i, row in enumerate(recs.rows):
        where = recs.where(i)
        key = row.get("question_id")
        if not isinstance(key, str) or "ground_truth" not in row or "question_type" not in row:
            raise InputError(
                f"{where}: expected answer_dict_val.json's {{id: {{question_type, "
                "ground_truth}}} entries"
            )
        fields: dict[str, Any] = {"question_type": row["question_type"]}
        fields.update(_subject_fields(key, where))
        items.append(Item(key, None, _references(row["ground_truth"], where), fields))
    return items, recs.source


def _read_flat(records: Records, inputs: TaskInputs) -> TaskData:
    gold, gold_source = _answer_dict(inputs)
    preds = predictions_from(records, id_field="question_id", answer_field="answer")
    joined = join_inputs([it.id for it in gold], preds, inputs)
    items = [replace(it, prediction=p) for it, p in zip(gold, joined.predictions, strict=True)]
    letters = {chr(ord("A") + i) for i in range(9)}
    unparsed = [
        it.id
        for it in items
        if it.fields["question_type"] == MCQ and it.prediction is not None
        if it.prediction not in letters
    ]
    notes = [
        f"{records.source} is an {{id: answer}} file: its multiple-choice answers are taken as "
        "already parsed and compared as written (main_eval_only.py)"
    ]
    if unparsed:
        notes.append(
            f"{len(unparsed)} multiple-choice answer(s) are not a single letter A-I (e.g. "
            f"{unparsed[0]!r}) and are wrong as written; give main_parse_and_eval.py's "
            "output.json records (with all_choices / index2ans) to have them parsed"
        )
    if records.repeated_keys:
        notes.append(
            f"{records.repeated_keys} repeated key(s) in {records.source}: the last value of "
            "each was kept (--on-duplicate last), as json.load keeps it"
        )
    if joined.missing:
        notes.append(f"{len(joined.missing)} item(s) had no prediction and scored 0")
    if joined.extra:
        notes.append(f"{len(joined.extra)} prediction(s) for unknown ids were ignored")
    return TaskData(
        items,
        (gold_source, records.source),
        ("mmmu-official {id: answer}",),
        tuple(notes),
        reported_scores(inputs),
        n_missing=len(joined.missing),
        n_extra_ignored=len(joined.extra),
    )


def _read_output_records(records: Records) -> list[Item]:
    """``main_parse_and_eval.py``'s ``output.json`` records (raw responses, with choices)."""
    items = []
    for i, row in enumerate(records.rows):
        where = records.where(i)
        key = row.get("id")
        if not isinstance(key, str):
            raise InputError(f"{where}: '{column_name(where, 'id')}' must be an MMMU id string")
        qtype = row.get("question_type")
        if not isinstance(qtype, str):
            raise InputError(f"{where}: no 'question_type'")
        response = row.get("response")
        if not isinstance(response, str):
            raise InputError(
                f"{where}: '{column_name(where, 'response')}' must be text, "
                f"got {type(response).__name__}"
            )
        fields: dict[str, Any] = {"question_type": qtype, **_subject_fields(key, where)}
        if qtype == MCQ:
            index2ans = row.get("index2ans")
            choices = row.get("all_choices")
            if not isinstance(index2ans, dict) or not isinstance(choices, list):
                raise InputError(
                    f"{where}: a multiple-choice record needs 'all_choices' and 'index2ans'"
                )
            fields["options"] = {str(c): str(index2ans[c]) for c in choices if c in index2ans}
            if len(fields["options"]) != len(choices):
                raise InputError(f"{where}: all_choices and index2ans do not match")
        items.append(Item(key, response, _references(row.get("answer"), where), fields))
    return items


def _output_folder(path: Path, inputs: TaskInputs) -> list[Item]:
    """A ``main_parse_and_eval.py`` folder: ``<Subject>/output.json`` per subject (its columns
    named by ``--id-field`` / ``--answer-field`` when given)."""
    items: list[Item] = []
    found = False
    for subject in CAT_SHORT2LONG.values():
        f = path / subject / "output.json"
        if f.is_file():
            found = True
            records = named_columns(
                read_records(str(f)),
                inputs.id_field,
                inputs.answer_field,
                id_column="id",
                answer_column="response",
            )
            items += _read_output_records(records)
    if not found:
        raise InputError(
            f"{path}: no <Subject>/output.json inside (main_parse_and_eval.py's folder layout)"
        )
    return items


def _read_lmms(records: Records, inputs: TaskInputs) -> TaskData | None:
    preds = lmms_eval_predictions(records, inputs)
    if preds is None:
        return None
    items = []
    for row, text, where in zip(preds.records.rows, preds.texts, preds.wheres, strict=True):
        doc = row.get("doc")
        if not isinstance(doc, dict):
            raise no_doc_error(
                records.source,
                "a log written with its doc (lmms-eval before 0.4 kept it); mmmu needs each "
                "question's options",
                lacks="options (mmmu_acc has id, answer, parsed_pred)",
            )
        key = doc.get("id")
        if not isinstance(key, str):
            raise InputError(f"{where}: doc has no MMMU 'id'")
        qtype = doc.get("question_type")
        fields: dict[str, Any] = {"question_type": qtype, **_subject_fields(key, where)}
        if qtype == MCQ:
            fields["options"] = _options_from_list(doc.get("options"), where)
        acc = row.get("mmmu_acc")
        if (
            isinstance(acc, dict)
            and isinstance(acc.get("parsed_pred"), list)
            and acc["parsed_pred"]
        ):
            fields["recorded_pred"] = str(acc["parsed_pred"][0])
        items.append(Item(key, text, _references(doc.get("answer"), where), fields))
    data = TaskData(
        items,
        (records.source,),
        (preds.layout,),
        (),
        reported_scores(inputs),
    )
    return without_questions(data, inputs)


def _unique(data: TaskData, wheres: Sequence[str], inputs: TaskInputs) -> TaskData:
    """An MMMU id given twice is an error naming both places (never scored twice), unless
    ``--on-duplicate last`` keeps the last of each (said in a note)."""
    ids = [it.id for it in data.items]
    keep, note = unique_rows(ids, wheres, what="MMMU id", on_duplicate=inputs.on_duplicate)
    if note is None:
        return data
    return replace(data, items=[data.items[i] for i in keep], notes=(*data.notes, note))


def _read(inputs: TaskInputs) -> TaskData:
    src = inputs.results
    if isinstance(src, str | os.PathLike) and os.fspath(src) != "-" and os.path.isdir(src):
        from pathlib import Path  # only for a folder: a JSON file does without (issue 23)

        items = _output_folder(Path(src), inputs)
        data = TaskData(items, (os.fspath(src),), ("mmmu-official output.json folder",))
        return _unique(data, [f"{os.fspath(src)}: {it.id}" for it in items], inputs)
    records = read_records(src, format=inputs.format, on_duplicate=inputs.on_duplicate)
    wheres = [records.where(i) for i in range(len(records.rows))]
    lmms = _read_lmms(records, inputs)
    if lmms is not None:
        return _unique(lmms, wheres, inputs)
    if records.layout.startswith("json-mapping") or records.layout == "mapping":
        unused_fields(inputs.id_field, inputs.answer_field, "the official {id: answer} JSON")
        return _read_flat(records, inputs)
    fields = inputs.id_field, inputs.answer_field
    if is_vlmevalkit(records, id_field=inputs.id_field, answer_field=inputs.answer_field):
        data = read_mcq_sheet(inputs, fields=_SHEET_FIELDS, records=records)
        return replace(data, extra={**data.extra, "vlmevalkit_sheet": True})
    output = named_columns(records, *fields, id_column="id", answer_column="response")
    if {"id", "response", "question_type"} <= set(output.columns):
        items = _read_output_records(output)
        data = TaskData(items, (records.source,), ("mmmu-official output.json",))
        return _unique(data, wheres, inputs)
    raise InputError(
        f"{records.source}: not an MMMU results layout: expected the official {{id: answer}} "
        "JSON (with --annotations answer_dict_val.json), main_parse_and_eval.py's output.json "
        "records (id, question_type, answer, all_choices, index2ans, response) or an "
        "lmms-eval --log_samples file with doc"
    )


# ----- VLMEvalKit: open questions as hidden two-option questions (spec §2.5) -------------

_SHEET_FIELDS = ("category", "l2-category", "split", "question_type", "question")
OTHER_ANSWERS = "Other Answers"


def vlmevalkit_items(items: Sequence[Item]) -> tuple[list[Item], int]:
    """The items as VLMEvalKit's ``mcq_vanilla_eval`` sees them, and how many were rewritten.

    QUIRK pseudo-mcq (``MMMU_preproc``): a question without options (an open one) gets
    ``A`` = its answer text (a list gold as Python writes the list) and ``B`` = ``Other
    Answers``; every answer that is not one capital letter becomes the gold ``A``. So a bare
    ``A`` is right, and an open question whose answer is a letter (``C``) can never be hit.
    Subject, discipline and split become ``category``, ``l2-category`` and ``split``.
    """
    out = []
    rewritten = 0
    for it in items:
        gold = it.references[0] if len(it.references) == 1 else str(list(it.references))
        fields = dict(it.fields)
        options = fields.get("options")
        if not options or "A" not in options:  # VLMEvalKit: ``pd.isna(A)``
            options = {"A": gold, "B": OTHER_ANSWERS}
            rewritten += 1
        fields["options"] = options
        letter = gold if len(gold) == 1 and gold in string.ascii_uppercase else "A"
        if "subject" in fields:
            fields.setdefault("category", fields["subject"])
            fields.setdefault("l2-category", fields["discipline"])
            fields.setdefault("split", str(it.id).split("_", 1)[0])
        out.append(replace(it, references=(letter,), fields=fields))
    return out, rewritten


VLMEVALKIT_PROFILES = vlmevalkit_profiles(
    "MMMU_DEV_VAL (open questions as two-option ones)",
    reproduces="vlmeval/dataset/utils/multiple_choice.py MMMU_preproc + mcq_vanilla_eval "
    "+ report_acc",
)


def _as_vlmevalkit(data: TaskData) -> TaskData:
    """*data* as a VLMEvalKit profile scores it: the open questions rewritten as two-option
    ones (:func:`vlmevalkit_items`), said in a note."""
    if any(
        it.fields.get("question_type") == MCQ and not it.fields.get("options") for it in data.items
    ):
        raise InputError(
            f"{data.sources[-1]}: an {{id: answer}} file has no options; the VLMEvalKit "
            "profiles need a VLMEvalKit sheet, output.json records or an lmms-eval log"
        )
    items, rewritten = vlmevalkit_items(data.items)
    notes = list(data.notes)
    if rewritten:
        notes.append(
            f"{rewritten} open question(s) scored as VLMEvalKit does: two options, A = the "
            "answer text, B = 'Other Answers', gold A (MMMU_preproc); never as open answers"
        )
    return with_decisions(data, items, notes, (("open", "pseudo-mcq"),))


# ----- the run: letters decided in parse order, with the random draws made explicit -------


def _parse_order(items: Sequence[Item], subject_order: str) -> list[int]:
    """Positions in the order the toolkit parses: the official driver goes subject by
    subject in ``CAT_SHORT2LONG`` order (file order within); lmms-eval in log order."""
    positions = list(range(len(items)))
    if subject_order == "official":
        positions.sort(key=lambda i: _SUBJECT_RANK[str(items[i].fields["subject"])])
    return positions


def _seed_option(inputs: TaskInputs, default: int | None) -> int | None:
    raw = inputs.options.get("fallback_seed")
    if raw is None or raw == "":
        return default
    if isinstance(raw, str) and raw.lower() == "none":
        return None
    try:
        return int(raw)
    except (TypeError, ValueError):
        raise InputError(f"--fallback-seed must be an integer or 'none', got {raw!r}") from None


def decide_letters(
    items: Sequence[Item], rules: _Rules, seed: int | None, *, replay: bool
) -> tuple[list[Item], dict[str, int]]:
    """Every multiple-choice item's letter, parsed in the toolkit's order with one draw of
    ``Random(seed)`` per response no rule reads (none when *seed* is ``None``: the letter is
    :data:`RANDOM`, or, under *replay*, the one the toolkit's log recorded). Returns the items
    with ``parsed_pred`` set and the counts ``drawn``, ``replayed``, ``unresolved``."""
    rng = random.Random(seed) if seed is not None else None
    out = list(items)
    counts = {"drawn": 0, "replayed": 0, "unresolved": 0}
    for i in _parse_order(items, rules.subject_order):
        item = items[i]
        options = item.fields.get("options")
        if item.fields.get("question_type") != MCQ or item.prediction is None or not options:
            continue
        letter = rules.parse(item.prediction, options)
        fields = dict(item.fields)
        if letter == RANDOM:
            fields["decided_at_random"] = True
            recorded = item.fields.get("recorded_pred") if replay else None
            letter = fallback_letter(options, recorded, rng, counts)
        fields["parsed_pred"] = letter
        out[i] = replace(item, fields=fields)
    return out, counts


def _random_notes(counts: Mapping[str, int], seed: int | None, prof: TaskProfile) -> list[str]:
    notes = []
    if counts["drawn"]:
        notes.append(
            f"{counts['drawn']} multiple-choice response(s) matched no rule and were decided "
            f"at random: random.Random({seed}) drawn in parse order"
            + (" (the official draw sequence)" if seed == OFFICIAL_SEED else "")
        )
    if counts["replayed"]:
        notes.append(
            f"{counts['replayed']} response(s) matched no rule: lmms-eval drew a random letter "
            "(unseeded); the letter its log recorded (mmmu_acc.parsed_pred) was used"
        )
    if counts["unresolved"]:
        notes.append(
            f"{counts['unresolved']} response(s) matched no rule and profile {prof.name} draws "
            "a random letter there, unseeded: NOT resolved, scored 0 (each would be right with "
            "chance 1/options); pass --fallback-seed N to draw them"
        )
    return notes


def _recorded_letters_note(items: Sequence[Item], prof: TaskProfile) -> str | None:
    """An lmms-eval log records each multiple-choice letter it parsed (``mmmu_acc.parsed_pred``):
    under an lmms-eval profile, the letters our rules read (not drawn) are checked against it."""
    if not prof.toolkit.startswith("lmms-eval"):
        return None
    pairs = [
        (it.id, it.fields["parsed_pred"], it.fields["recorded_pred"])
        for it in items
        if it.fields.get("question_type") == MCQ
        and "recorded_pred" in it.fields
        and "parsed_pred" in it.fields
        and not it.fields.get("decided_at_random")
    ]
    return agreement_note(
        pairs,
        what="the log's recorded letter",
        rows="parsed items",
        theirs="logged",
        shown=3,
        hint="the log may come from another lmms-eval version",
    )


def _read_for_profile(inputs: TaskInputs) -> TaskData:
    """The items read (:func:`_read`) with every multiple-choice letter decided as the
    profile being scored decides it (``inputs.profile``): the random draws are consumed in
    parse order over the whole run, so they are made here, once, and the per-item scorer
    reads the decided ``parsed_pred``; the signature fields go to ``extra["signature"]``."""
    prof = TASK.profile(inputs.profile)
    data = _read(inputs)
    if prof.toolkit.startswith("VLMEvalKit"):
        return _as_vlmevalkit(data)
    if data.extra.get("vlmevalkit_sheet"):
        raise InputError(
            f"{data.sources[0]}: a VLMEvalKit sheet has no MMMU ids (subjects); score it with "
            "--profile vlmevalkit (or vlmevalkit-2025 / vlmevalkit-2024)"
        )
    rules = _RULES[prof.name]
    seed = _seed_option(inputs, rules.seed)
    items, counts = decide_letters(data.items, rules, seed, replay=prof.name != "official")
    notes = [*data.notes, *_random_notes(counts, seed, prof)]
    check = _recorded_letters_note(items, prof)
    if check:
        notes.append(check)
    return with_decisions(
        data, items, notes, (("open", rules.open_rule), *draw_fields(seed, counts))
    )


TASK = register_task(
    ChoiceTask(
        name="mmmu",
        kind="mixed",
        references="many",
        title="MMMU (val)",
        metric="mmmu-acc",
        description="college-level multiple-choice and open questions; instance-weighted "
        "subject and discipline accuracy",
        profiles=(OFFICIAL, LMMS_EVAL, LMMS_EVAL_PR1471, *VLMEVALKIT_PROFILES),
        read=_read_for_profile,
        layouts=(
            "official {id: answer} JSON (MCQ letters already parsed) + --annotations "
            "answer_dict_val.json",
            "main_parse_and_eval.py output.json records, or a folder of <Subject>/output.json",
            "lmms-eval --log_samples JSONL with doc (mmmu_val)",
            "VLMEvalKit sheet {model}_MMMU_DEV_VAL.xlsx (the vlmevalkit profiles)",
        ),
        annotations_optional=True,
        options=(
            ("judge-record", "VLMEvalKit's _{judge}_result.xlsx (default: beside the sheet)"),
            (
                "fallback-seed",
                "seed of the random letter for unparseable answers (official: 42; lmms-eval: "
                "none = counted, not drawn)",
            ),
        ),
        extract_applies=False,
        reported_names={"mmmu_acc": "Overall"},
    )
)
