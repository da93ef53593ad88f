r"""VizWiz-VQA: questions from blind users, scored by soft accuracy, plus answerability.

``official`` is the VizWiz-VQA API ``vqaEval.py`` (Qing Li, vizwiz.org; spec vqa-family §3):

.. math::

    \mathrm{acc} = \frac{1}{N}\sum_{i=1}^{N}\min\Bigl(1, \frac{|\{j \ne i : g_j = n(p)\}|}{3}\Bigr)

with :math:`g_j` the answers **as written** and :math:`n(p)` the normalized prediction
(:mod:`vqametrics.normalize.vizwiz`); overall and per answer type = 100·Σacc / N.
Answerability (when the results carry ``answerable``) is scikit-learn's average precision and
F1 at ``> 0.5`` on the *unanswerable* class (:func:`average_precision`, :func:`f1_at_half`).

Profiles: ``official``, ``lmms-eval`` (MMF's processor on both sides, ``statistics.mean``),
``vlmevalkit`` / ``vlmevalkit-2024`` (``process_answer`` on both sides, ``np.mean``).

Inputs (read in ``_vizwiz_read.py``): the official annotations + results, a VLMEvalKit
sheet, or an lmms-eval samples log (``doc`` = the ``lmms-lab/VizWiz-VQA`` row; QUIRK
processed-doc: lmms-eval rewrites ``doc.answers`` with MMF's processor before logging, so only
``--annotations`` gives the official profile the raw answers).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..aggregate.formulas import group_by
from ..core.exceptions import InputError
from ..core.sums import pairwise_sum
from ..kernels.vqa import average, leave_one_out_values
from ..normalize.vizwiz import prediction as vizwiz_prediction
from . import _vqa_family as family
from . import register_task
from ._base import Aggregate, Item, Task, TaskProfile
from ._common import group_keys, ungrouped_note
from ._explain import soft_accuracy
from ._vizwiz_read import LMMS_EVAL_METRICS, LMMS_EVAL_REPORTED, read_vizwiz
from ._vqa_family import lmms_eval_accuracy

__all__ = [
    "LMMS_EVAL_METRICS",
    "LMMS_EVAL_REPORTED",
    "average_precision",
    "derived_answerable",
    "f1_at_half",
    "lmms_eval_vizwiz_accuracy",
    "official_accuracy",
]


def official_accuracy(prediction: str, references: Sequence[str], image: object = None) -> float:
    """VizWiz ``vqaEval.evaluate``: only the prediction is normalized; position leave-one-out
    against the raw answers; ``float(sum(accs)) / len(accs)``.

    QUIRK raw-ground-truth: ``Coca Cola``, ``milk `` or ``don't know`` in the answers are
    compared as written, so no prediction can match them (the prediction is lower-cased,
    stripped, loses its articles and gets the curly ``don’t``). QUIRK naive-sum: ``sum()`` is
    emulated left to right (CPython ≤ 3.11). No answer count is asserted; zero answers is an
    error (the script divides by zero).
    """
    if not references:
        where = f"image {image!r}" if image is not None else "a question"
        raise InputError(f"{where} has no answers (VizWiz's vqaEval.py divides by zero)")
    p = vizwiz_prediction(prediction)
    values = leave_one_out_values([a == p for a in references], None, "position")
    return average(values, "naive")


def lmms_eval_vizwiz_accuracy(prediction: str, references: Sequence[str]) -> float:
    """lmms-eval ``vizwiz_vqa_process_results``: as its TextVQA (MMF processor on both sides,
    position leave-one-out, ``statistics.mean``); no answers gives ``0``."""
    if not references:
        return 0.0
    return lmms_eval_accuracy(prediction, references)


def derived_answerable(answer: str) -> int:
    """TRI vlm-evaluation's answerability from the text: ``0`` when the normalized answer is
    exactly ``unanswerable``, else ``1`` (so ``It is unanswerable`` counts as answerable)."""
    return int(vizwiz_prediction(answer) != "unanswerable")


# ------------------------------------------------------------------------------ answerability


def average_precision(y_true: Sequence[int], y_score: Sequence[float]) -> float:
    r"""scikit-learn's ``average_precision_score`` for binary labels, reproduced bit for bit.

    .. math::

        \mathrm{AP} = \sum_k (R_k - R_{k-1})\, P_k

    over the distinct score thresholds in decreasing order (tied scores form one step), with
    :math:`P_k`, :math:`R_k` the precision and recall at threshold *k* and :math:`R_0 = 0`.
    The terms are summed in scikit-learn's order with numpy's pairwise sum, negated and
    clipped at 0. Without any positive label, recall is taken as 1 (scikit-learn warns) and
    the result is 0.

    >>> average_precision([0, 0, 1, 1, 0], [0.1, 0.6, 0.8, 0.4, 0.3])
    0.8333333333333333
    """
    n = len(y_true)
    if n != len(y_score):
        raise ValueError("y_true and y_score must have the same length")
    if n == 0:
        raise ValueError("average precision of no samples")
    order = sorted(range(n), key=lambda i: y_score[i], reverse=True)
    tps: list[float] = []
    fps: list[float] = []
    tp = 0
    for rank, i in enumerate(order):
        tp += 1 if y_true[i] else 0
        last = rank == n - 1
        if last or y_score[order[rank + 1]] != y_score[i]:
            tps.append(float(tp))
            fps.append(float(rank + 1 - tp))
    total = tps[-1]
    precision = [t / (t + f) if t + f else 0.0 for t, f in zip(tps, fps, strict=True)]
    recall = [t / total for t in tps] if total else [1.0] * len(tps)
    # precision_recall_curve reverses both and appends (1, 0); AP = -sum(diff(R) * P[:-1])
    p_rev = precision[::-1]
    r_rev = [*recall[::-1], 0.0]
    terms = [(r_rev[i + 1] - r_rev[i]) * p_rev[i] for i in range(len(p_rev))]
    return max(0.0, -pairwise_sum(terms))


def f1_at_half(y_true: Sequence[int], y_score: Sequence[float]) -> float:
    """scikit-learn ``f1_score(y_true, y_score > 0.5)``: ``2·tp / (positives + predicted)``;
    a score of exactly 0.5 is *not* predicted positive; 0/0 gives 0.0 (scikit-learn warns).
    That is scikit-learn 1.4's formula and later's; 1.3 and earlier computed ``2·P·R/(P+R)``,
    which can differ in the last bit (so, very rarely, in the reported two decimals)."""
    pred = [s > 0.5 for s in y_score]
    tp = sum(1 for t, p in zip(y_true, pred, strict=True) if t and p)
    denom = 1.0 * sum(1 for t in y_true if t) + sum(pred)
    return 2.0 * tp / denom if denom else 0.0


def _answerability(items: Sequence[Item]) -> dict[str, float] | None:
    if not items or any("pred_answerable" not in it.fields for it in items):
        return None
    gt_n = [1 - int(it.fields["answerable"]) for it in items]
    pred_n = [1.0 - float(it.fields["pred_answerable"]) for it in items]
    return {
        "average_precision": 100 * average_precision(gt_n, pred_n),
        "f1_score": 100 * f1_at_half(gt_n, pred_n),
    }


# -------------------------------------------------------------------------------- aggregation


def _percent_of_sum(scores: Sequence[float]) -> float:
    # setAccuracy: 100*float(sum(accQA))/len(accQA), sum left to right
    total = 0.0
    for s in scores:
        total += s
    return 100 * total / len(scores)


def _official_aggregate(items: Sequence[Item], scores: Sequence[float]) -> Aggregate:
    types = group_keys(items, "answer_type")
    groups = group_by(types, scores)
    metrics: dict[str, float | int] = {
        "overall": _percent_of_sum(scores) if scores else 0.0,
        "n": len(scores),
    }
    notes = ungrouped_note(items, types, "answer_type", "perAnswerType")
    ans = _answerability(items)
    if ans is not None:
        metrics.update(ans)
    else:
        notes += ("answerability not computed: the results carry no 'answerable' score",)
    per_type = {t: {"accuracy": _percent_of_sum(v), "n": len(v)} for t, v in groups.items()}
    return Aggregate(
        metrics=metrics,
        headline="overall",
        units="percent",
        breakdowns={"perAnswerType": per_type} if per_type else {},
        notes=notes,
    )


def _official_detail(item: Item) -> Mapping[str, Any]:
    """The normalized prediction and ``evalQA[image]``: the score as the script stores it,
    ``round(100 * acc, 2)``."""
    assert item.prediction is not None
    acc = official_accuracy(item.prediction, item.references, item.id)
    return {"normalized": vizwiz_prediction(item.prediction), "evalQA": round(100 * acc, 2)}


def _explain_official(item: Item) -> Mapping[str, Any]:
    return soft_accuracy(
        item,
        (("VizWiz normalization (2015 curly contractions)", vizwiz_prediction),),
        (),
        "naive",
        answers_note="compared as written (QUIRK raw-ground-truth)",
    )


# ------------------------------------------------------------------------------------ profiles

OFFICIAL = TaskProfile(
    name="official",
    description="VizWiz-VQA API vqaEval.py: prediction-only normalization (2015 curly "
    "contractions), raw answers, position leave-one-out; answerability AP and F1",
    reproduces="VizWiz-VQA API vqaEval.py (Qing Li, vizwiz.org; copy TRI-ML/vlm-evaluation@"
    "d9f5896 vlm_eval/util/evaluation/vizwiz/eval.py)",
    toolkit="vizwiz-vqaEval@2015",
    score=official_accuracy,
    aggregate=_official_aggregate,
    context=("image",),
    detail=_official_detail,
    explain=_explain_official,
)

LMMS_EVAL = family.lmms_eval("vizwiz_vqa", "; no answerability", score=lmms_eval_vizwiz_accuracy)
VLMEVALKIT = family.vlmevalkit("VizWiz", "dataset/image_vqa.py VizWiz")
VLMEVALKIT_2024 = family.vlmevalkit_2024("VizWiz")

TASK = register_task(
    Task(
        name="vizwiz",
        references="votes",
        datasets=("lmms-lab/VizWiz-VQA",),
        title="VizWiz-VQA",
        metric="vizwiz-acc",
        description="soft accuracy on blind users' questions, raw answers; answerability "
        "AP / F1 when the results carry 'answerable'",
        profiles=(OFFICIAL, LMMS_EVAL, VLMEVALKIT, VLMEVALKIT_2024),
        read=read_vizwiz,
        layouts=(
            "annotations: official list [{image, question, answers: [{answer, "
            "answer_confidence}], answer_type, answerable}]",
            "results: official list [{image, answer, answerable?}] (JSON or JSONL)",
            "results: VLMEvalKit spreadsheet (index, question, answer, prediction) — "
            "--annotations optional",
            "results: lmms-eval --log_samples JSONL (doc.question_id, doc.answers, "
            "filtered_resps) — --annotations optional; without doc, joined by position",
        ),
        aliases=("vizwiz-vqa", "vizwiz_vqa"),
        annotations_optional=True,
        note="the official vqaEval.py is a download on vizwiz.org, not on GitHub",
        reported_names=LMMS_EVAL_REPORTED,
    )
)
