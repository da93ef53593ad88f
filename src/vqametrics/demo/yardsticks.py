"""Step 3 (three yardsticks), the misconception cards and the quiz: payloads from library calls.

The answer sets are SIMULATED behaviours (clearly labelled on the page): the VQA ones are the
bundled ``results_*.json`` files, the MMBench ones are generated here from each row's correct
letter (this is input data, not scoring). Every score comes from :func:`evaluate_vqa`,
:func:`~vqametrics.kernels.exact_match.exact_match_scores`,
:func:`~vqametrics.evaluate_mmbench`, :func:`vqa_accuracy` or :func:`explain`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from .. import evaluate_vqa, explain, get_profile, list_profiles, normalize_answer, vqa_accuracy
from ..aggregate import percent
from ..data import ANSWER_SETS, data_path, sample_files
from .api import STEP_PROFILES, ladder, pct
from .presets import get_preset

__all__ = [
    "MMBENCH_SETS",
    "RANDOM_DRAWS",
    "misconceptions_payload",
    "mmbench_sample",
    "quiz_payload",
    "yardsticks_payload",
]

#: Seeded draws averaged for the random-guess baseline.
RANDOM_DRAWS = 200
_SEED = 2024

#: Simulated MMBench behaviours, in display order.
MMBENCH_SETS = (
    "correct",
    "correct-verbose",
    "always-a",
    "position-biased",
    "original-order",
    "random",
)


# ------------------------------------------------------------------------------- VQA sample


@lru_cache(maxsize=16)
def _vqa_set(name: str, profile: str = "official") -> dict[str, Any]:
    from ..kernels.exact_match import exact_match_scores

    files = sample_files(name)
    result = evaluate_vqa(files["annotations"], files["results"], profile=profile)
    em = exact_match_scores(result.dataset, result.predictions, result.profile)
    return {
        "name": name,
        "simulated": True,
        "description": ANSWER_SETS.get(name, ""),
        "vqa": result.accuracy["overall"],
        "em": percent(em.em),
        "em_any": percent(em.em_any),
        "n": len(result.scores),
        "signature": result.signature.format(),
    }


# ------------------------------------------------------------------------------- MMBench sample


@lru_cache(maxsize=1)
def mmbench_sample() -> Any:
    """The bundled MMBench EN samples with their circular copies, as ``MMBenchData``."""
    from ..mmbench import build_circular
    from ..mmbench.load import Table, read_table, rows_from_table

    table = read_table(data_path("mmbench_samples.tsv"))
    picked = [
        {k: v for k, v in row.items() if v is not None}
        for row in table.rows
        if row.get("benchmark") == "MMBench" and row.get("lang") == "en"
    ]
    rows = build_circular(picked)
    where = tuple(f"circular row {i + 1}" for i in range(len(rows)))
    return rows_from_table(
        Table(
            "bundled mmbench_samples.tsv (MMBench, en)",
            table.header,
            tuple(rows),
            where,
            tuple(0 for _ in rows),
        )
    )


def _mmbench_predictions(name: str, seed: int = _SEED) -> dict[int, str]:
    """One simulated behaviour's raw outputs, keyed by row index."""
    rng = random.Random(seed)
    out: dict[int, str] = {}
    for row in mmbench_sample().rows:
        letters = list(row.options)
        right = row.answer
        wrong = next(c for c in letters if c != right)
        if name == "correct":
            out[row.index] = right
        elif name == "correct-verbose":
            out[row.index] = f"The answer is {right}."
        elif name == "always-a":
            out[row.index] = "A"
        elif name == "position-biased":
            out[row.index] = right if right in ("A", "B") else "A"
        elif name == "original-order":
            out[row.index] = right if row.pass_number == 0 else wrong
        elif name == "random":
            out[row.index] = rng.choice(letters)
        else:
            raise ValueError(f"unknown MMBench answer set {name!r}")
    return out


def _mmbench_scores(preds: Mapping[int, str]) -> tuple[dict[str, float], str]:
    """Vanilla (pass-0 rows), per row over every copy, and circular; plus the signature."""
    from ..tasks.mmbench import evaluate_mmbench

    data = mmbench_sample()
    circ = evaluate_mmbench(data, preds, mode="circular")
    van = evaluate_mmbench(data, preds, mode="vanilla")
    all_rows = van.tables["vanilla_all"][0]["Overall"]
    scores = {
        "vanilla": van.score,
        "vanilla_all": float(all_rows) if isinstance(all_rows, int | float) else float("nan"),
        "circular": circ.score,
    }
    return scores, circ.signature


@lru_cache(maxsize=8)
def _mmbench_set(name: str) -> dict[str, Any]:
    s, signature = _mmbench_scores(_mmbench_predictions(name))
    return {
        "name": name,
        "simulated": True,
        "vanilla": pct(s["vanilla"]),
        "vanilla_all": pct(s["vanilla_all"]),
        "circular": pct(s["circular"]),
        "signature": signature,
    }


@lru_cache(maxsize=1)
def _mmbench_chance() -> dict[str, Any]:
    """The random-letter behaviour averaged over RANDOM_DRAWS seeds (each scored by the library)."""
    sums = {"vanilla": 0.0, "vanilla_all": 0.0, "circular": 0.0}
    for k in range(RANDOM_DRAWS):
        s, _ = _mmbench_scores(_mmbench_predictions("random", seed=_SEED + 1 + k))
        for key in sums:
            sums[key] += s[key]
    return {
        "name": "chance",
        "draws": RANDOM_DRAWS,
        **{key: round(100 * v / RANDOM_DRAWS, 2) for key, v in sums.items()},
    }


def _mmbench_block() -> dict[str, Any]:
    try:
        data = mmbench_sample()
        sets = [_mmbench_set(n) for n in MMBENCH_SETS]
    except ImportError:
        return {"available": False}
    n_q = sum(1 for r in data.rows if r.pass_number == 0)
    return {
        "available": True,
        "n_questions": n_q,
        "n_rows": len(data.rows),
        "sets": sets,
        "chance": _mmbench_chance(),
        "signature": sets[0]["signature"],
        "source": "MMBench samples (open-compass/MMBench, Apache-2.0), English, with circular "
        "copies built by vqametrics.mmbench.build_circular",
    }


#: The properties table: metric -> property -> yes / no / partly. Each entry is backed by a
#: number elsewhere on the page (steps 1-3 and the misconception cards).
_PROPERTIES = {
    "metrics": ["VQA acc", "EM", "EM-any", "MMBench vanilla", "MMBench circular"],
    "rows": [
        {"id": "variants", "values": ["partly", "partly", "partly", "partly", "partly"]},
        {"id": "partial", "values": ["yes", "no", "no", "no", "no"]},
        {"id": "guessing", "values": ["no", "no", "no", "no", "yes"]},
        {"id": "explainable", "values": ["yes", "yes", "yes", "yes", "yes"]},
    ],
}


@lru_cache(maxsize=1)
def yardsticks_payload() -> dict[str, Any]:
    """Step 3: VQA accuracy, EM and EM-any on the VQA v2 sample; MMBench vanilla and circular."""
    sets = [_vqa_set(name) for name in ANSWER_SETS]
    return {
        "vqa": {
            "n": sets[0]["n"],
            "profile": "official",
            "sets": sets,
            "signature": sets[0]["signature"],
            "source": "VQA v2 val sample (3,427 questions, CC BY 4.0); simulated answer sets",
        },
        "mmbench": _mmbench_block(),
        "properties": _PROPERTIES,
    }


# ------------------------------------------------------------------------------- misconceptions


def _ev(key: str, value: str, **args: object) -> dict[str, Any]:
    return {"key": key, "value": value, "args": args}


def _fmt(p: float) -> str:
    return f"{p:.2f}"


def _myth_exact_match() -> dict[str, Any]:
    from ..kernels.exact_match import exact_match, exact_match_any, reference_answer

    out = []
    for pid in ("real-bull", "real-bicycle"):
        p = get_preset(pid)
        ref = reference_answer(p["answers"])
        out += [
            _ev(
                "ev.vqa",
                _fmt(pct(vqa_accuracy(p["prediction"], p["answers"]))),
                pred=p["prediction"],
                question=p["question"],
            ),
            _ev("ev.em", _fmt(pct(exact_match(p["prediction"], ref.raw))), ref=ref.raw),
            _ev("ev.em_any", _fmt(pct(exact_match_any(p["prediction"], p["answers"])))),
        ]
    return {"id": "exact-match", "evidence": out}


def _myth_textbook() -> dict[str, Any]:
    rungs = ladder("official")
    return {
        "id": "textbook",
        "evidence": [
            _ev("ev.ladder", _fmt(r["percent"]), m=r["m"], textbook=_fmt(r["textbook_percent"]))
            for r in rungs[1:4]
        ],
    }


def _myth_synonyms() -> dict[str, Any]:
    ev = [
        _ev("ev.norm", "", text=t, out=normalize_answer(t))
        for t in ("A Dog.", "Two", "couch", "sofa")
    ]
    ev.append(
        _ev("ev.sofa", _fmt(pct(vqa_accuracy("sofa", ["couch"] * 10))), pred="sofa", gt="couch")
    )
    ev.append(
        _ev(
            "ev.sofa",
            _fmt(pct(vqa_accuracy("bicycle", ["bike"] * 7 + ["bicycle"] * 3))),
            pred="bicycle",
            gt="bike ×7 + bicycle ×3",
        )
    )
    return {"id": "synonyms", "evidence": ev}


def _myth_toolkits() -> dict[str, Any]:
    ev = [
        _ev("ev.profile", _fmt(_vqa_set("messy-majority", p.name)["vqa"]), profile=p.name)
        for p in list_profiles()
    ]
    return {"id": "toolkits", "evidence": ev}


def _myth_circular() -> dict[str, Any]:
    block = _mmbench_block()
    if not block["available"]:
        return {"id": "circular", "evidence": []}
    ev = []
    for s in block["sets"]:
        if s["name"] not in ("original-order", "position-biased"):
            continue
        for mode in ("vanilla_all", "circular"):
            ev.append(_ev("ev.mmb", _fmt(s[mode]), set=f"@set.{s['name']}", mode=f"@mode.{mode}"))
    return {"id": "circular", "evidence": ev}


def _myth_guess() -> dict[str, Any]:
    ev = []
    block = _mmbench_block()
    if block["available"]:
        c = block["chance"]
        for mode in ("vanilla", "circular"):
            ev.append(_ev("ev.mmb", _fmt(c[mode]), set="@set.random", mode=f"@mode.{mode}"))
    ev.append(_ev("ev.vqa_guess", _fmt(_vqa_set("always-yes")["vqa"]), set="@set.always-yes"))
    return {"id": "guess", "evidence": ev}


#: The bundled TextVQA val sample (CC BY 4.0) and VILA-1.5-8B's answers to it (Apache-2.0).
TEXTVQA_SAMPLE = ("textvqa_val_sample", "annotations.json", "results_vila-1.5-8b.json")


def _myth_textvqa() -> dict[str, Any]:
    """Score the same TextVQA answers with TextVQA's scorer (MMF's M4C evaluator) and with
    the VQA v2 script: the unanimity rule and case handling of the latter cost ~12 points."""
    from ..tasks._run import evaluate_task

    folder, ann, res = TEXTVQA_SAMPLE
    r = evaluate_task("textvqa", data_path(folder, res), annotations=data_path(folder, ann))
    as_vqa2 = [vqa_accuracy(it.prediction or "", list(it.references)) for it in r.data.items]
    n = len(r.scores)
    ev = [
        _ev("ev.tv_run", _fmt(100 * r.metrics["accuracy"]), n=n, scorer="@scorer.textvqa"),
        _ev("ev.tv_run", _fmt(100 * sum(as_vqa2) / n), n=n, scorer="@scorer.vqav2"),
    ]
    # the first unanimous question that TextVQA's scorer credits in full and the VQA v2
    # script zeroes (its unanimity rule skips normalization: matching is exact)
    for it, tv, v2 in zip(r.data.items, r.scores, as_vqa2, strict=True):
        if tv == 1.0 and v2 == 0.0 and len(set(it.references)) == 1:
            gt = it.references[0]
            ev += [
                _ev("ev.tv_item", _fmt(pct(tv)), pred=it.prediction, gt=gt,
                    scorer="@scorer.textvqa"),
                _ev("ev.tv_item", _fmt(pct(v2)), pred=it.prediction, gt=gt,
                    scorer="@scorer.vqav2"),
            ]  # fmt: skip
            break
    return {"id": "textvqa", "evidence": ev}


def _myth_chat() -> dict[str, Any]:
    """A right answer in a chat template scores 0 as written; ``--extract answer`` finds it."""
    from ..views.explanation import explain

    ev = []
    for pred, gt in (
        ("The answer is 2.", "2"),
        ("**red**", "red"),
        ("<think>The sky looks blue.</think> blue", "blue"),
        ("Yes, there is a dog in the picture.", "yes"),
    ):
        raw = explain(pred, [gt] * 10)
        got = explain(pred, [gt] * 10, extract="answer")
        ev.append(_ev("ev.chat", _fmt(pct(raw.score)), pred=pred, gt=gt))
        ev.append(
            _ev(
                "ev.chat_x",
                _fmt(pct(got.score)),
                out=got.prediction,
                rules=", ".join(got.extract_rules),
            )
        )
    return {"id": "chat", "evidence": ev}


_MYTHS: tuple[Callable[[], dict[str, Any]], ...] = (
    _myth_exact_match,
    _myth_textbook,
    _myth_synonyms,
    _myth_toolkits,
    _myth_circular,
    _myth_guess,
    _myth_textvqa,
    _myth_chat,
)


@lru_cache(maxsize=1)
def misconceptions_payload() -> dict[str, Any]:
    """Eight misconceptions, each with evidence computed by the library."""
    return {"items": [m() for m in _MYTHS]}


# ------------------------------------------------------------------------------- quiz


def _choices(correct: str, *others: str) -> tuple[list[str], int]:
    """Unique options in a fixed, shuffled order (seeded by the correct answer)."""
    opts: list[str] = []
    for o in (correct, *others):
        if o not in opts:
            opts.append(o)
    rng = random.Random(correct)
    rng.shuffle(opts)
    return opts, opts.index(correct)


def _q(qid: str, correct: str, others: list[str]) -> dict[str, Any]:
    opts, idx = _choices(correct, *others)
    return {
        "id": qid,
        "text": f"quiz.{qid}",
        "options": opts,
        "correct": idx,
        "explain": f"quiz.e{qid[1:]}",
    }


@lru_cache(maxsize=1)
def quiz_payload() -> dict[str, Any]:
    """Six questions on the three steps; the right answers come from library calls."""
    phone = ["phone", "phone"] + ["cell phone"] * 7 + ["cell"]
    m = explain("phone", phone).m
    q1 = _q(
        "q1",
        _fmt(pct(vqa_accuracy("phone", phone))),
        [_fmt(pct(vqa_accuracy("phone", phone, "simple"))), _fmt(10.0 * m), _fmt(100.0)],
    )
    q2 = _q(
        "q2",
        _fmt(pct(vqa_accuracy("Yes", ["yes"] * 10))),
        [_fmt(100.0), _fmt(pct(vqa_accuracy("yes", ["yes"] * 9 + ["no"]))), _fmt(30.0)],
    )
    merged = normalize_answer("sofa") == normalize_answer("couch")
    q3 = _q("q3", "@quiz.yes" if merged else "@quiz.no", ["@quiz.yes", "@quiz.no"])
    always = [
        p
        for p in STEP_PROFILES
        if get_profile(p).unanimity_rule
        and not any(s.conditional for s in get_profile(p).prediction_steps)
    ] or [p for p in STEP_PROFILES if not get_profile(p).unanimity_rule]
    q4 = _q("q4", always[0], list(STEP_PROFILES))
    questions = [q1, q2, q3, q4]
    block = _mmbench_block()
    if block["available"]:
        by = {s["name"]: s for s in block["sets"]}
        a = by["always-a"]
        questions.append(
            _q("q5", _fmt(a["circular"]), [_fmt(a["vanilla"]), _fmt(25.0), _fmt(a["vanilla_all"])])
        )
    bull = get_preset("real-bull")
    from ..kernels.exact_match import exact_match, exact_match_any, reference_answer

    ref = reference_answer(bull["answers"]).raw
    scores = {
        "VQA acc": pct(vqa_accuracy(bull["prediction"], bull["answers"])),
        "EM": pct(exact_match(bull["prediction"], ref)),
        "EM-any": pct(exact_match_any(bull["prediction"], bull["answers"])),
    }
    zero = [k for k, v in scores.items() if v == 0.0]
    if len(zero) == 1:
        questions.append(_q("q6", zero[0], list(scores)))
    return {"questions": questions}
