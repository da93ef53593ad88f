"""HallusionBench: yes/no questions on original and edited figures, scored per question (aAcc),
per figure (fAcc) and per question across its figures (qAcc).

The official evaluation (``tianyi-lab/HallusionBench`` @ 744007c ``evaluation.py`` + ``utils.py``;
spec mcq-reasoning §11) has a GPT judge grade each answer against the reference text
(``correct`` / ``incorrect`` / ``unclear`` → 1 / 0 / 2) and a second call say whether the
answer on an edited figure is the ``same`` as on the original; everything after those verdicts
is deterministic, so vqametrics scores **recorded** verdicts (the judge caches
``hallusion_output_vd_model.json`` / ``_vs_``, or a verdict field in the records) bit-exactly.
lmms-eval (``tasks/hallusion_bench`` @ 75571cf) runs the same judge and aggregators without the
``same`` call and rounds each number to 4 decimals. VLMEvalKit scores without a judge: its
``YOrN_Extraction`` word rule against the Yes/No ``answer``, grouped by ``l2-category``.

Quirks (kept, named where they are implemented): incorrect-first (``score.hallusion.verdict_code``),
unclear-without-figure (``official_correct``), no-category-in-groups and no-figure-kept
(``vlmevalkit_rating``), pair-based easy/hard (``_official_metrics``), round-in-aggregation
(lmms-eval).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..aggregate.formulas import group_by
from ..core.exceptions import InputError
from ..core.toolkits import LMMS_EVAL as LMMS_EVAL_PIN
from ..core.toolkits import VLMEVALKIT as VLMEVALKIT_PIN
from ..judge.prompts import (
    HALLUSIONBENCH_OFFICIAL,
    hallusionbench_official_prompt,
    hallusionbench_same_prompt,
    prompt_label,
)
from ..judge.stage import ask_judge
from ..judge.uses import JudgeStats
from ..kernels.hallusion import (
    HallusionScoreError,
    HbQuestion,
    OfficialStats,
    VlmRow,
    official_correct,
    official_stats,
    same_code,
    verdict_code,
    vlmevalkit_rating,
)
from ..readers.cells import group_text, json_answer, named_columns, row_id
from ..readers.join import disagreement_note
from ..readers.layouts import is_vlmevalkit, locate_reported
from ..readers.records import Records, read_records
from . import register_task
from ._base import Aggregate, Item, Task, TaskData, TaskInputs, TaskProfile
from ._common import judged_data, numpy_mean, read_vlmevalkit
from ._lmms import MetricRecord, lmms_eval_predictions, record_docs, without_questions
from ._yesno import parse_vlmevalkit, yorn_extraction

__all__ = [
    "VERDICT_FIELD",
    "HallusionScoreError",
    "official_correct",
    "same_code",
    "verdict_code",
]

#: the official evaluation.py's ``model_correctness_entry`` (also lmms-eval's)
VERDICT_FIELD = "gpt4v_output_gpt_check"
#: the judge caches evaluation.py (and lmms-eval, under ``gpt_response/``) writes
CACHE_NAMES = ("hallusion_output_vd_model.json", "hallusion_output_vs_model.json")
_ID_FIELDS = ("category", "subcategory", "set_id", "figure_id", "question_id")
_NEEDS_VERDICT = (
    "the official evaluation grades each answer with a GPT judge; pass its recorded verdicts "
    f"with --verdicts {CACHE_NAMES[0]},{CACHE_NAMES[1]} (the judge caches evaluation.py or "
    "lmms-eval wrote), name the field with --verdict-field, ask a judge with the official "
    "prompt (--judge-url URL --judge-model NAME), or score without a judge with --profile "
    "vlmevalkit"
)


# ---------------------------------------------------------------------------- reading


def _text(value: Any) -> str | None:
    """A cell as text (``12.0`` → ``12``), ``None`` when empty."""
    if value is None or (isinstance(value, float) and value != value):
        return None
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, bool):
        return str(int(value))
    return str(value)


def _yes_no(gt: str | None) -> tuple[str, ...]:
    """The official ``gt_answer`` (1/0) as VLMEvalKit's ``answer`` (Yes/No)."""
    return {"1": ("Yes",), "0": ("No",)}.get(gt or "", ())


def _question_key(fields: Mapping[str, Any]) -> str | None:
    parts = [fields.get(k) for k in _ID_FIELDS]
    if any(p is None for p in parts):
        return None
    return "_".join(str(p) for p in parts)


def _official_fields(
    row: Mapping[str, Any], verdict_field: str, where: str = "a record"
) -> dict[str, Any]:
    """The fields of an official / lmms-eval record, as text."""
    out: dict[str, Any] = {}
    for k in _ID_FIELDS:
        group_text(row.get(k), where, k)  # a list or a boolean is no part of a question's id
    for k in (*_ID_FIELDS, "visual_input", "gt_answer", "question", "gt_answer_details"):
        v = _text(row.get(k))
        if v is not None:
            out[k] = v
    _verdict_fields(row, verdict_field, out, where)
    return out


def _verdict_fields(
    row: Mapping[str, Any], verdict_field: str, out: dict[str, Any], where: str
) -> None:
    """``verdict`` (a code, or a raw judge reply coded incorrect-first), ``same`` and the raw
    reply lmms-eval records (``gpt_answer`` = prompt + reply) into *out*."""
    raw = _text(row.get(verdict_field))
    if raw is not None:
        if raw.strip().lstrip("-").isdigit() and raw not in ("0", "1", "2"):
            raise InputError(
                f"{where}: {verdict_field} {raw!r} is not a verdict code 0, 1 or 2 (the "
                "official assign_correctness asserts it)"
            )
        out["verdict"] = raw if raw in ("0", "1", "2") else verdict_code(raw)
        if raw not in ("0", "1", "2"):
            out["judge_reply"] = raw
    same = _text(row.get("same"))
    if same is not None:
        out["same"] = same if same in ("0", "1") else same_code(same)
    logged = row.get("gpt_answer")
    if isinstance(logged, str) and "\nOutput:" in logged:
        # lmms-eval logs prompt + reply; the prompt ends with "\nOutput:"
        reply = logged.rpartition("\nOutput:")[2]
        out["judge_reply"] = reply
        if "verdict" in out and verdict_code(reply) != out["verdict"]:
            out["verdict_recomputed"] = verdict_code(reply)


def _from_index(fields: dict[str, Any], index: str) -> None:
    """VLMEvalKit's ``index`` ``<category>_<subcategory>_<visual_input>_<set>_<figure>_<question>``
    (``VD_illusion_1_0_0_0``): fields 3, 4, 5 are what ``Hallusion_rating`` groups by, so they
    are kept as ``vlm_*``; the official ids fall back on them where the sheet has no column."""
    fields["vlm_index"] = index
    parts = index.split("_")
    if len(parts) < 6:
        return
    fields["vlm_ids"] = (parts[3], parts[4], parts[5])
    for k, v in zip(("set_id", "figure_id", "question_id"), parts[3:6], strict=True):
        fields.setdefault(k, v)
    fields.setdefault("category", parts[0])
    fields.setdefault("subcategory", parts[1])
    if parts[2].isdigit():
        fields.setdefault("visual_input", parts[2])


def _vlmevalkit_items(records: Records, inputs: TaskInputs, verdict_field: str) -> TaskData:
    data = read_vlmevalkit(
        inputs,
        fields=("category", "l2-category", "question", "extracted", "score"),
        list_answers=False,
        records=records,
    )
    rows = {str(r.get("index")): (r, records.where(i)) for i, r in enumerate(records.rows)}
    items = []
    for item in data.items:
        row, where = rows.get(str(item.id), ({}, records.source))
        fields = dict(item.fields)
        fields.update(_official_fields(row, verdict_field, where))
        if "score" in fields:
            fields["recorded_score"] = fields.pop("score")
        _from_index(fields, str(item.id))
        if "l2-category" not in fields and "subcategory" in fields:
            fields["l2-category"] = fields["subcategory"]
        items.append(replace(item, fields=fields))
    return replace(data, items=items)


def _record_items(records: Records, inputs: TaskInputs, verdict_field: str) -> TaskData:
    """Official records (``HallusionBench_result.json``, a judge cache): one item per record,
    keyed category_subcategory_set_figure_question, the answer in ``model_prediction``."""
    answer = inputs.answer_field or "model_prediction"
    # --id-field names the converted sheet's own id (checked as one), never the question key
    own_id = inputs.id_field or "index"
    if inputs.id_field and own_id not in records.columns:
        raise InputError(f"{records.source}: no {own_id!r} column (--id-field)")
    items: list[Item] = []
    seen: dict[str, str] = {}
    repeated = 0
    for i, row in enumerate(records.rows):
        where = records.where(i)
        fields = _official_fields(row, verdict_field, where)
        key = _question_key(fields)
        if key is None:
            lacking = [k for k in _ID_FIELDS if k not in fields]
            raise InputError(
                f"{where}: no {'/'.join(lacking)} (a HallusionBench record needs "
                f"{', '.join(_ID_FIELDS)})"
            )
        again = key in seen
        if again and inputs.on_duplicate == "error":
            raise InputError(
                f"{where}: question {key} again (first at {seen[key]}); the official "
                "get_eval_all asserts each question is unique (pass --on-duplicate last to "
                "keep the last one)"
            )
        seen.setdefault(key, where)
        if own_id in row:  # a converted sheet's own id, carried along: it must be one
            row_id(row[own_id], where, own_id)
        text = _text(json_answer(records, row.get(answer), where, answer))
        if text is None:
            if answer not in row and not inputs.allow_missing:
                raise InputError(
                    f"{where}: no {answer!r} (the model's answer); name it with --answer-field"
                )
            if not inputs.allow_missing:
                raise InputError(
                    f"{where}: {answer!r} is empty; pass --allow-missing to score it 0"
                )
        fields.setdefault("l2-category", fields["subcategory"])
        item = Item(key, text, _yes_no(fields.get("gt_answer")), fields)
        if again:
            # --on-duplicate last: the last record of the question, at the place of the first
            position = next(j for j, it in enumerate(items) if it.id == key)
            repeated += 1
            items[position] = item
        else:
            items.append(item)
    missing = sum(1 for it in items if it.prediction is None)
    notes: tuple[str, ...] = (
        (f"{missing} item(s) had no prediction and scored 0",) if missing else ()
    )
    if repeated:
        notes += (f"{repeated} repeated record(s): the last of each question was kept",)
    if inputs.id_field:
        notes += (
            f"--id-field {inputs.id_field} is not used by HallusionBench records: each question "
            f"is keyed {'_'.join(_ID_FIELDS)}, as the official scorer keys it",
        )
    return TaskData(
        items,
        (records.source,),
        (f"hallusionbench-json ({records.layout})",),
        notes,
        locate_reported(inputs.results, inputs.reported),
        n_missing=missing,
    )


#: the newer log (no doc): lmms-eval@75571cf tasks/hallusion_bench/evaluate_hb.py
#: hb_process_results records the doc itself (less its image, plus model_prediction) under
#: aAcc, fAcc and qAcc
_RECORD = MetricRecord(metrics=("aAcc", "fAcc", "qAcc"), target=None, whole=True)


def _lmms_items(records: Records, inputs: TaskInputs, verdict_field: str) -> TaskData | None:
    """lmms-eval ``hallusion_bench_image`` samples: ``doc`` is the official record, the answer
    ``filtered_resps``; the verdicts are in the judge caches it wrote under ``gpt_response/``."""
    preds = lmms_eval_predictions(records, inputs)
    if preds is None:
        return None
    preds = record_docs(preds, _RECORD) or preds  # HallusionBench reads no annotation file
    items = []
    for row, text, where in zip(preds.records.rows, preds.texts, preds.wheres, strict=True):
        doc = row.get("doc")
        if not isinstance(doc, dict):
            raise InputError(
                f"{where}: no 'doc' (the HallusionBench record); HallusionBench needs lmms-eval "
                "logs written with the dataset rows (--log_samples)"
            )
        fields = _official_fields(doc, verdict_field, where)
        key = _question_key(fields)
        if key is None:
            raise InputError(f"{where}: the doc has no {'/'.join(_ID_FIELDS)}")
        fields.setdefault("l2-category", fields["subcategory"])
        items.append(Item(key, text, _yes_no(fields.get("gt_answer")), fields))
    rep = locate_reported(inputs.results, inputs.reported)
    if rep is not None and rep.get("toolkit") == "lmms-eval":
        rep["units"] = "percent"  # hb_aggregation_result returns round(100 * c / t, 4)
    data = TaskData(items, (records.source,), (preds.layout,), (), rep)
    return without_questions(data, inputs)


def _cache_paths(inputs: TaskInputs) -> list[str]:
    """``--verdicts`` (comma-separated), else the judge caches beside the results file or, for
    an lmms-eval log, in ``gpt_response/`` beside it or one folder up."""
    given = inputs.options.get("verdicts")
    if given:
        return [p for p in str(given).split(",") if p]
    results = inputs.results
    if not isinstance(results, str | os.PathLike) or os.fspath(results) == "-":
        return []
    here = Path(results).parent
    for folder in (here, here / "gpt_response", here.parent / "gpt_response"):
        found = [os.fspath(folder / n) for n in CACHE_NAMES if (folder / n).is_file()]
        if found:
            return found
    return []


def _with_verdicts(data: TaskData, inputs: TaskInputs, verdict_field: str) -> TaskData:
    """Fill each item's missing verdict (and ``same``) from the judge caches, joined by
    category_subcategory_set_figure_question; notes say what was read and what disagrees."""
    paths = _cache_paths(inputs)
    if not paths:
        return data
    cache: dict[str, tuple[dict[str, Any], str]] = {}
    for path in paths:
        recs = read_records(path)
        for i, row in enumerate(recs.rows):
            fields = _official_fields(row, verdict_field, recs.where(i))
            key = _question_key(fields)
            if key is None:
                raise InputError(f"{recs.where(i)}: a judge-cache record without {_ID_FIELDS}")
            fields["model_prediction"] = _text(row.get("model_prediction"))
            cache[key] = (fields, recs.where(i))
    items = []
    other_answer: list[str] = []
    filled = 0
    for item in data.items:
        key = _question_key(item.fields)
        hit = cache.get(key) if key is not None else None
        if hit is None:
            items.append(item)
            continue
        rec, _ = hit
        fields = dict(item.fields)
        took = False
        for k in ("verdict", "same", "judge_reply", "verdict_recomputed"):
            if k in rec and k not in fields:
                fields[k] = rec[k]
                took = True
        filled += took
        judged = rec.get("model_prediction")
        if took and judged is not None and item.prediction not in (None, judged):
            other_answer.append(str(item.id))
        items.append(replace(item, fields=fields))
    notes = [f"judge verdicts read from {', '.join(paths)} for {filled} item(s)"]
    recoded = [str(it.id) for it in items if "verdict_recomputed" in it.fields]
    if recoded:
        shown = ", ".join(repr(q) for q in recoded[:3])
        notes.append(
            f"{len(recoded)} stored verdict(s) differ from the code of the judge reply recorded "
            f"beside them (incorrect before correct; e.g. {shown}); the stored ones were used, "
            "as the toolkit did"
        )
    note = disagreement_note(
        other_answer,
        "answer(s) the recorded verdicts judged",
        "the answers in the results file (the verdicts were used as recorded)",
    )
    notes += [note] if note else []
    return replace(data, items=items, sources=(*data.sources, *paths), notes=(*data.notes, *notes))


def _reported_beside_auxmatch(data: TaskData, inputs: TaskInputs) -> TaskData:
    """VLMEvalKit names its score file after the prediction sheet, not the ``_auxmatch`` one:
    for ``<model>_HallusionBench_auxmatch.xlsx`` they are in ``…_HallusionBench_score.csv``."""
    results = inputs.results
    if data.reported is not None or not isinstance(results, str | os.PathLike):
        return data
    path = Path(results)
    stem, dot, ext = path.name.rpartition(".")
    if not dot or not stem.endswith("_auxmatch"):
        return data
    rep = locate_reported(os.fspath(path.with_name(stem[: -len("_auxmatch")] + "." + ext)))
    return replace(data, reported=rep) if rep is not None else data


def _read(inputs: TaskInputs) -> TaskData:
    verdict_field = str(inputs.options.get("verdict_field") or VERDICT_FIELD)
    records = read_records(inputs.results, format=inputs.format, on_duplicate=inputs.on_duplicate)
    if is_vlmevalkit(records, id_field=inputs.id_field, answer_field=inputs.answer_field):
        sheet = named_columns(
            records,
            inputs.id_field,
            inputs.answer_field,
            id_column="index",
            answer_column="prediction",
        )
        plain = replace(inputs, id_field=None, answer_field=None)  # the options are spent
        data = _reported_beside_auxmatch(_vlmevalkit_items(sheet, plain, verdict_field), inputs)
    else:
        lmms = _lmms_items(records, inputs, verdict_field)
        data = lmms if lmms is not None else _record_items(records, inputs, verdict_field)
    return _with_verdicts(data, inputs, verdict_field)


# ---------------------------------------------------------------------------- official


def _score_official(
    prediction: str,
    references: Sequence[str],
    category: Any = None,
    figure_id: Any = None,
    verdict: Any = None,
) -> float:
    """1.0 when the recorded verdict is ``correct`` (or ``unclear`` on a VS question without
    its figure); the prediction itself is not read (the judge read it)."""
    if verdict is None:
        raise InputError(f"no judge verdict ({VERDICT_FIELD!r}): {_NEEDS_VERDICT}")
    if category is None or figure_id is None:
        raise InputError("no category / figure_id: the official rule depends on them")
    try:
        int(figure_id)
    except ValueError:
        raise InputError(f"figure_id {figure_id!r} is not an integer") from None
    return float(official_correct(str(category), str(figure_id), str(verdict)))


def _questions(items: Sequence[Item], scores: Sequence[float]) -> list[HbQuestion]:
    out = []
    for item, score in zip(items, scores, strict=True):
        f = item.fields
        lacking = [k for k in (*_ID_FIELDS, "visual_input") if f.get(k) is None]
        if lacking:
            raise InputError(
                f"item {item.id!r}: no {'/'.join(lacking)} (the official grouping needs them)"
            )
        verdict = f.get("verdict")
        if verdict is None:  # a missing prediction (scored 0) without a verdict: incorrect
            verdict = "0"
        out.append(
            HbQuestion(
                category=str(f["category"]),
                subcategory=str(f["subcategory"]),
                set_id=str(f["set_id"]),
                figure_id=str(f["figure_id"]),
                question_id=str(f["question_id"]),
                visual_input=str(f["visual_input"]),
                verdict=str(verdict),
                correct=int(score),
                same=None if f.get("same") is None else str(f["same"]),
                gt_answer=None if f.get("gt_answer") is None else str(f["gt_answer"]),
            )
        )
    return out


def _pct(num: int, den: int, what: str, *, strict: bool, notes: list[str]) -> float | None:
    """``100 * num / den`` as evaluation.py prints it (unrounded); a zero denominator raises
    for a leaderboard number (*strict*: the script divides by zero) and is left out else."""
    if den:
        return 100 * num / den
    if strict:
        raise HallusionScoreError(
            f"no {what}: the official evaluation.py divides by zero computing it"
        )
    notes.append(f"{what}: none, so the number is left out (the official script divides by 0)")
    return None


def _official_metrics(
    st: OfficialStats, notes: list[str], *, strict: bool, where: str = ""
) -> dict[str, float | int]:
    """aAcc, fAcc, qAcc and the easy / hard numbers of the leaderboard table (×100).

    QUIRK pair-based easy/hard: the leaderboard's "easy aAcc" / "hard aAcc" are question-PAIR
    accuracies over ``visual_input != 2`` / ``== 2`` (``get_eval_pair_easy`` / ``_hard``), not
    per-question ones, despite the name; kept under the leaderboard's names.
    """
    pre = f"{where}: " if where else ""
    cells = {
        "aAcc": (st.correct_questions, st.n_questions, "question"),
        "fAcc": (st.figures_correct, st.n_figures, "figure (VS figure 0 is skipped)"),
        "qAcc": (st.pairs_correct, st.n_pairs, "question pair"),
        "easy_aAcc": (st.easy_correct, st.n_easy, "easy question (visual_input != 2)"),
        "hard_aAcc": (st.hard_correct, st.n_hard, "hard question (visual_input 2)"),
    }
    out: dict[str, float | int] = {}
    for name, (num, den, what) in cells.items():
        value = _pct(num, den, pre + what, strict=strict, notes=notes)
        if value is not None:
            out[name] = value
    out["n_questions"] = st.n_questions
    out["n_figures"] = st.n_figures
    out["n_question_pairs"] = st.n_pairs
    return out


def _diagnosis_metrics(
    st: OfficialStats, questions: Sequence[HbQuestion], notes: list[str]
) -> dict[str, float | int]:
    """The second leaderboard table: consistency test (% of figures all right / some / none),
    LH / VI / Mixed as % of the per-question diagnoses, yes/no bias; pair counts LH/VI/Mix."""
    out: dict[str, float | int] = {}
    if st.n_figures:
        out["consistency_correct"] = 100 * st.figures_correct / st.n_figures
        out["consistency_inconsistent"] = 100 * st.figures_inconsistent / st.n_figures
        out["consistency_wrong"] = 100 * st.figures_wrong / st.n_figures
    if st.lh is None or st.vi is None or st.mix is None:
        lacking = sum(1 for q in questions if q.same is None)
        notes.append(
            f"LH / VI / Mixed left out: {lacking} question(s) have no check_same verdict "
            "('same'), which the diagnosis needs"
        )
    else:
        out["LH"], out["VI"], out["Mix"] = st.lh, st.vi, st.mix
        assert st.lh_q is not None and st.vi_q is not None and st.mix_q is not None
        total = st.lh_q + st.vi_q + st.mix_q
        if total:
            out["LH_pct"] = 100 * st.lh_q / total
            out["VI_pct"] = 100 * st.vi_q / total
            out["Mix_pct"] = 100 * st.mix_q / total
    gts = [q.gt_answer for q in questions]
    wrong = [q for q in questions if not q.correct]
    if questions and all(g in ("0", "1") for g in gts) and wrong:
        # yes_ratio_stats: a right answer "agrees" with gt, a wrong one is its opposite
        yes_pred = [int(q.correct == int(str(q.gt_answer))) for q in questions]
        yes_gt = [int(str(q.gt_answer)) for q in questions]
        out["yes_no_bias_pct_diff"] = sum(yes_pred) / len(yes_pred) - sum(yes_gt) / len(yes_gt)
        fp = [int(str(q.gt_answer)) for q in wrong]
        out["yes_no_bias_fp_ratio"] = (len(fp) - sum(fp)) / len(fp)
    return out


def _by_category(items: Sequence[Item]) -> dict[str, list[int]]:
    groups = group_by([str(item.fields.get("category")) for item in items], range(len(items)))
    return {c: groups[c] for c in ("VD", "VS") if c in groups} | {
        c: v for c, v in groups.items() if c not in ("VD", "VS")
    }


def _aggregate_official(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    questions = _questions(items, scores)
    notes: list[str] = []
    st = official_stats(questions)
    metrics = _official_metrics(st, notes, strict=True)
    metrics.update(_diagnosis_metrics(st, questions, notes))
    by_cat: dict[str, dict[str, float | int]] = {}
    for cat, idx in _by_category(items).items():
        sub = [questions[i] for i in idx]
        by_cat[cat] = _official_metrics(
            official_stats(sub, diagnose=False), notes, strict=False, where=cat
        )
    return Aggregate(
        metrics=metrics,
        headline="aAcc",
        units="percent",
        digits=4,
        breakdowns={"category": by_cat},
        notes=tuple(notes),
    )


def _aggregate_lmms(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """``hb_aggregation_result``: the official aAcc / fAcc / qAcc, each ``round(·, 4)``.

    QUIRK round-in-aggregation: lmms-eval's aggregation returns the rounded number, so that
    is its reported value; the LH/VI/Mix diagnosis is not computed (its ``same`` call is
    commented out)."""
    questions = _questions(items, scores)
    notes: list[str] = []
    st = official_stats(questions, diagnose=False)
    full = _official_metrics(st, notes, strict=False)
    metrics: dict[str, float | int] = {}
    for name in ("aAcc", "fAcc", "qAcc"):
        if name not in full:
            raise HallusionScoreError(f"{name}: nothing to count; lmms-eval divides by zero")
        metrics[name] = round(float(full[name]), 4)
    for name in ("n_questions", "n_figures", "n_question_pairs"):
        metrics[name] = full[name]
    return Aggregate(metrics=metrics, headline="aAcc", units="percent", digits=4)


# ---------------------------------------------------------------------------- VLMEvalKit


def _score_vlm(prediction: str, references: Sequence[str], extracted: Any = None) -> float:
    """1.0 when the extracted Yes/No equals ``answer`` exactly (``score = answer ==
    extracted``): the sheet's recorded ``extracted`` when it is Yes/No (VLMEvalKit re-scores its
    ``_auxmatch`` sheet so; it holds the judge's decisions), else ``YOrN_Extraction``;
    ``Unknown`` is wrong."""
    if not references:
        raise InputError("no Yes/No ground truth ('answer', or 'gt_answer' 1/0)")
    got = str(extracted) if extracted in ("Yes", "No") else yorn_extraction(prediction)
    return 1.0 if references[0] == got else 0.0


def _vlm_rows(items: Sequence[Item], scores: Sequence[float]) -> list[VlmRow]:
    rows: list[VlmRow] = []
    for item, score in zip(items, scores, strict=True):
        f = item.fields
        ids = f.get("vlm_ids")
        if ids is None:
            if "vlm_index" in f:
                raise InputError(
                    f"item {item.id!r}: Hallusion_rating reads set, figure and question from "
                    "underscore fields 3, 4 and 5 of 'index', and this one has fewer"
                )
            lacking = [k for k in _ID_FIELDS[2:] if f.get(k) is None]
            if lacking:
                raise InputError(f"item {item.id!r}: no {'/'.join(lacking)}")
            ids = tuple(str(f[k]) for k in _ID_FIELDS[2:])
        l2 = f.get("l2-category")
        if l2 is None:
            raise InputError(f"item {item.id!r}: no 'l2-category' (Hallusion_rating groups by it)")
        cat = f.get("category")
        rows.append((None if cat is None else str(cat), str(l2), *ids, bool(score)))
    return rows


def _vlm_notes(items: Sequence[Item], scores: Sequence[float]) -> list[str]:
    notes = []
    unknown = decided = 0
    differ_ext: list[str] = []
    differ_score: list[str] = []
    for item, score in zip(items, scores, strict=True):
        if item.prediction is None:
            continue
        ours = yorn_extraction(item.prediction)
        rec = item.fields.get("extracted")
        if ours == "Unknown":
            if rec in ("Yes", "No"):
                decided += 1
            else:
                unknown += 1
        elif rec is not None and rec != ours:
            differ_ext.append(str(item.id))
        stored = item.fields.get("recorded_score")
        if isinstance(stored, bool | int | float) and bool(stored) != bool(score):
            differ_score.append(str(item.id))
    if decided:
        notes.append(
            f"{decided} answer(s) that YOrN_Extraction leaves Unknown take the judge's decision "
            "recorded in the sheet's 'extracted' column (re-scored from the sheet, no judge "
            "transcript)"
        )
    if unknown:
        notes.append(
            f"{unknown} answer(s) are neither yes nor no to YOrN_Extraction: VLMEvalKit asks an "
            "LLM judge about them; without one (as here) they are wrong"
        )
    for ids, what in (
        (differ_ext, "recorded 'extracted' value(s)"),
        (differ_score, "recorded 'score' value(s)"),
    ):
        if ids:
            shown = ", ".join(repr(q) for q in ids[:3])
            used = "recorded" if ids is differ_ext else "recomputed"
            notes.append(
                f"{len(ids)} {what} differ from the recomputed ones (e.g. {shown}); the "
                f"{used} ones were used, as VLMEvalKit does when it re-scores its sheet"
            )
    return notes


def _aggregate_vlm(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    """``Hallusion_rating`` per split; the OpenCompass leaderboard value is the mean of the
    three Overall numbers (``opencompass_mean``), not aAcc."""
    splits = vlmevalkit_rating(_vlm_rows(items, scores), numpy_mean)
    overall = splits["Overall"]
    metrics: dict[str, float | int] = dict(overall)
    metrics["opencompass_mean"] = (overall["aAcc"] + overall["fAcc"] + overall["qAcc"]) / 3
    return Aggregate(
        metrics=metrics,
        headline="aAcc",
        units="percent",
        digits=2,
        breakdowns={"split": splits},
        notes=tuple(_vlm_notes(items, scores)),
    )


OFFICIAL = TaskProfile(
    name="official",
    description="HallusionBench evaluation.py: recorded GPT verdicts, unclear right on VS "
    "without figure; aAcc/fAcc/qAcc, easy/hard, LH/VI/Mix",
    reproduces="tianyi-lab/HallusionBench@744007c evaluation.py + utils.py",
    toolkit="HallusionBench@744007c",
    score=_score_official,
    aggregate=_aggregate_official,
    context=("category", "figure_id", "verdict"),
    # the GPT judge reads the whole answer: a sentence is what it grades, not a format slip
    reads_free_text=True,
)

LMMS_EVAL = replace(
    OFFICIAL,
    name="lmms-eval",
    description="lmms-eval hallusion_bench_image: the official verdicts and aggregators, no "
    "LH/VI/Mix, each number rounded to 4 decimals",
    reproduces=LMMS_EVAL_PIN.at("lmms_eval/tasks/hallusion_bench/evaluate_hb.py"),
    toolkit=LMMS_EVAL_PIN.token,
    aggregate=_aggregate_lmms,
)

VLMEVALKIT = TaskProfile(
    name="vlmevalkit",
    description="VLMEvalKit Hallusion_rating: YOrN word rule (or the recorded 'extracted'), "
    "groups by l2-category without VD/VS; OpenCompass shows the mean of the three",
    reproduces=VLMEVALKIT_PIN.at("vlmeval/dataset/utils/yorn.py Hallusion_rating"),
    toolkit=VLMEVALKIT_PIN.token,
    score=_score_vlm,
    aggregate=_aggregate_vlm,
    context=("extracted",),
    parse=parse_vlmevalkit,
)


def _signature_fields(data: TaskData) -> tuple[tuple[str, Any], ...]:
    if "judge" in data.extra:
        return (("judge", data.extra["judge"]),)
    judged = any("verdict" in it.fields for it in data.items)
    return (("judge", "recorded" if judged else None),)


# ---------------------------------------------------------------------------- new runs


def _verdict_prompt(item: Item, source: str) -> str:
    f = item.fields
    lacking = [k for k in ("question", "gt_answer_details") if f.get(k) is None]
    if lacking:
        raise InputError(
            f"{source}: item {item.id!r}: no {'/'.join(lacking)} (the official judge prompt "
            "quotes them)"
        )
    return hallusionbench_official_prompt(
        str(f["question"]), str(f["gt_answer_details"]), item.prediction or ""
    )


def _same_asks(items: Sequence[Item]) -> list[tuple[int, str]]:
    """``check_same``: each answer beside the answer to its question on the original figure
    (``figure_id`` 0); an item without that original answer is not asked (the diagnosis then
    leaves it out, as a note says)."""
    original: dict[str, str] = {}
    for it in items:
        key = _pair_key(it.fields)
        if key is not None and str(it.fields.get("figure_id")) == "0" and it.prediction:
            original[key] = it.prediction
    asks = []
    for i, it in enumerate(items):
        key = _pair_key(it.fields)
        if it.prediction is None or "same" in it.fields or key not in original:
            continue
        asks.append((i, hallusionbench_same_prompt(it.prediction, original[str(key)])))
    return asks


def _pair_key(fields: Mapping[str, Any]) -> str | None:
    parts = [fields.get(k) for k in ("category", "subcategory", "set_id", "question_id")]
    return None if any(p is None for p in parts) else "_".join(str(p) for p in parts)


def _judge_stage(
    data: TaskData, prof: TaskProfile, client: Any, inputs: TaskInputs
) -> tuple[TaskData, Any, Any]:
    """Verdicts for the answers with none recorded, from the judge with the official prompt
    (``evaluate_by_chatgpt``; lmms-eval sends the same), coded incorrect-first; the official
    profile also asks ``check_same`` for the diagnosis. Without a judge nothing changes (a
    missing verdict is the scorer's error)."""
    if client is None:
        return data, None, None
    source = data.sources[0] if data.sources else "input"
    items = list(data.items)
    asks = [
        (i, _verdict_prompt(it, source))
        for i, it in enumerate(items)
        if it.prediction is not None and "verdict" not in it.fields
    ]
    label = prompt_label(client.model, HALLUSIONBENCH_OFFICIAL, None)
    verdicts = ask_judge(client, asks, verdict_code, label)
    sames = ask_judge(
        client, _same_asks(items) if prof.name == "official" else [], same_code, label
    )
    for run, key in ((verdicts, "verdict"), (sames, "same")):
        for i, j in run.judgements.items():
            if j.decision is not None:
                fields = {**items[i].fields, key: j.decision, f"{key}_reply": j.response}
                items[i] = replace(items[i], fields=fields)
    unjudged = [i for i, j in verdicts.judgements.items() if j.decision is None]
    for i in unjudged:  # --allow-unjudged: no verdict, scored as a missing answer (incorrect)
        items[i] = replace(items[i], prediction=None)
    every = [*verdicts.judgements.values(), *sames.judgements.values()]
    stats = JudgeStats.of(label, every)  # calls and hits of both prompts
    value = verdicts.signature_value  # unjudged:K/N counts the items (their verdicts)
    note = (
        f"{len(verdicts.judgements)} verdict(s) and {len(sames.judgements)} check_same "
        f"answer(s) by judge {label} (prompt bundled from HallusionBench@744007c utils.py, "
        "BSD-3-Clause)"
        + (
            f"; {len(unjudged)} got no verdict (unjudged) and are scored as missing answers"
            if unjudged
            else ""
        )
    )
    judge = value if asks else data.extra.get("judge", "recorded")
    return judged_data(data, items, note, judge), verdicts.judgements, stats


TASK = register_task(
    Task(
        name="hallusionbench",
        kind="judged",
        title="HallusionBench",
        metric="hallusionbench",
        description="yes/no on original and edited figures: aAcc, fAcc, qAcc (+ easy/hard, "
        "LH/VI/Mix; OpenCompass mean)",
        profiles=(OFFICIAL, LMMS_EVAL, VLMEVALKIT),
        read=_read,
        layouts=(
            "VLMEvalKit sheet <model>_HallusionBench.xlsx or its _auxmatch.xlsx (index, "
            "category, l2-category, answer, prediction[, extracted, score])",
            "official HallusionBench_result.json (category, subcategory, set_id, figure_id, "
            "question_id, visual_input, model_prediction) + the judge caches "
            "hallusion_output_vd_model.json / _vs_ (gpt4v_output_gpt_check, same)",
            "lmms-eval --log_samples JSONL of hallusion_bench_image (doc = the record) + its "
            "gpt_response/ judge caches",
            "lmms-eval --log_samples JSONL without doc: the aAcc record (the doc itself) + its "
            "gpt_response/ judge caches",
        ),
        aliases=("hallusion-bench", "hallusion_bench"),
        annotations_optional=True,
        signature_fields=_signature_fields,
        judge=_judge_stage,
        options=(
            (
                "verdicts",
                "the judge caches (comma-separated; default: "
                "hallusion_output_v[ds]_model.json beside the results or in gpt_response/)",
            ),
            (
                "verdict-field",
                f"the record field holding the judge verdict (default {VERDICT_FIELD})",
            ),
        ),
    )
)
