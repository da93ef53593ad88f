"""``vqametrics vqa``: score a results file against annotations, as the official script does."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..core.collector import gc_paused
from ._chat import add_extract_option, add_judge_options, judge_from_args
from ._common import (
    add_ci_options,
    add_command,
    add_digits_option,
    add_input_options,
    add_json_flag,
    evaluate_from_args,
)
from ._exit import hold_until_exit
from ._output import add_name_option, wants_table
from ._systems import run_vqa_systems

if TYPE_CHECKING:
    from ..aggregate import Breakdown
    from ..aggregate.stats import BootstrapResult
    from ..core.signature import Signature
    from ..pipeline.vqa import VQAEvaluation
    from ..tasks._run import TaskEvaluation

__all__ = ["register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = add_command(sub, "vqa")
    add_input_options(p)
    p.add_argument(
        "-o",
        "--out",
        metavar="DIR",
        help="write accuracy.json, evalQA.json, evalQuesType.json, evalAnsType.json, "
        "per_question.jsonl, signature.txt and manifest.json (written last) into DIR",
    )
    add_digits_option(p)
    p.add_argument(
        "--metrics",
        default="vqa",
        metavar="LIST",
        help="comma-separated metrics: vqa, em, em-any (or em_any) (default: vqa)",
    )
    add_ci_options(p)
    add_extract_option(p)
    add_judge_options(
        p,
        "With --judge-url, also report an open-ended judge score (is the prediction "
        "equivalent to one of the human answers?) beside, never instead of, the VQA score.",
    )
    add_json_flag(p)
    add_name_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    inputs = (args.annotations, *args.results, args.questions)
    if args.out:
        from ..pipeline.vqa_outputs import VQA_OUTPUTS
        from ..views.output import check_out_dir

        check_out_dir(args.out, VQA_OUTPUTS, inputs)  # before any work
    metrics = _parse_metrics(args.metrics)
    paths = args.results
    if wants_table(args, len(paths)):
        return run_vqa_systems(args, paths, metrics)
    ci_wanted = args.ci or args.bootstrap is not None or args.seed is not None
    if ci_wanted:
        from ..aggregate.stats import require_numpy

        require_numpy()  # fail before scoring, with the install line
    client = judge_from_args(args)  # bad judge settings fail before scoring
    # one evaluation, millions of acyclic objects: the collector stays paused to the end (its
    # first pass after the reading alone took 50 ms at 214k questions)
    with gc_paused():
        return _run_one(args, paths[0], inputs, metrics, ci_wanted, client)


def _run_one(
    args: argparse.Namespace,
    path: str,
    inputs: tuple[str | None, ...],
    metrics: list[str],
    ci_wanted: bool,
    client: Any,
) -> int:
    """Score one results file, print its table or document, write its ``--out`` files."""
    result = evaluate_from_args(args, path)  # also warns about verbose predictions
    hold_until_exit(result)
    judge_files: dict[str, bytes] = {}
    judged = None
    if client is not None:
        judged = _judge(result, client, judge_files if args.out else None, args.questions)
    intervals = None
    if ci_wanted:
        from dataclasses import replace

        from ..aggregate.stats import DEFAULT_BOOTSTRAP, DEFAULT_SEED, evaluation_ci

        n_bootstrap = args.bootstrap or DEFAULT_BOOTSTRAP
        seed = DEFAULT_SEED if args.seed is None else args.seed
        intervals = evaluation_ci(result, n_bootstrap=n_bootstrap, seed=seed)
        result = replace(
            result, signature=result.signature.with_fields(bootstrap=n_bootstrap, seed=seed)
        )
    if args.out:
        from ..pipeline.vqa_outputs import start_vqa_outputs

        # a large per_question.jsonl is written by a child process meanwhile (vqa_outputs.py)
        with start_vqa_outputs(result, args.out, inputs=inputs, extra=judge_files) as writing:
            text = _stdout_text(args, result, metrics, intervals, judged)
            writing.wait()
        sys.stdout.write(text)
        print(f"wrote outputs to {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(_stdout_text(args, result, metrics, intervals, judged))
    return 0


def _judge(
    result: VQAEvaluation, client: Any, out: dict[str, bytes] | None, questions: str | None
) -> dict[str, Any]:
    """The open-ended judge metric; with ``--out``, every judged item in ``judge.jsonl`` (put
    into *out*, written with the other outputs)."""
    from ..judge import equivalence_summary, judge_equivalence

    texts = _question_texts(questions) if questions else {}
    with client:
        judgements = judge_equivalence(
            result.predictions,
            result.dataset.answers,
            client,
            questions=[texts.get(q, "") for q in result.question_ids],
            matched=[s > 0 for s in result.scores],
        )
    if out is not None:
        import orjson

        lines = []
        for qid, pred, j in zip(result.question_ids, result.predictions, judgements, strict=True):
            if j is not None:
                rec = {"question_id": qid, "prediction": pred, **j.as_dict()}
                lines.append(orjson.dumps(rec, option=orjson.OPT_APPEND_NEWLINE))
        out["judge.jsonl"] = b"".join(lines)
    extract = result.extraction.name if result.extraction is not None else None
    return equivalence_summary(judgements, client.model, extract=extract)


def _stdout_text(
    args: argparse.Namespace,
    result: VQAEvaluation,
    metrics: list[str],
    intervals: BootstrapResult | None,
    judged: dict[str, Any] | None = None,
) -> str:
    """What ``vqametrics vqa`` prints: the evaluation's JSON document (the same as ``score
    vqav2 --json``), or the table and signatures, and the toolkit's numbers beside ours as
    ``score vqav2`` prints them (from the task's result)."""
    if args.json:
        import orjson

        evaluation = _task_result(result, metrics=metrics, judge_summary=judged)
        if intervals is not None:  # the same interval, by the task's breakdown names
            from dataclasses import replace

            from ..aggregate.stats import evaluation_ci

            s = intervals.settings()
            again = evaluation_ci(evaluation, n_bootstrap=s["n_bootstrap"], seed=s["seed"])
            evaluation = replace(evaluation, intervals=again)
        doc = evaluation.as_dict()
        return orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode() + "\n"  # as print_json
    from dataclasses import replace

    from ..views.text import vqa_table

    extra, extra_signatures = _extra_metrics(result, metrics)
    labels = {"em": "EM", "em_any": "EM-any"}
    columns: dict[str, Mapping[str, object]] = {labels[k]: v for k, v in extra.items()}
    if intervals is not None:
        columns.update(_interval_columns(intervals))
        result = replace(result, notes=(*result.notes, _interval_note(intervals)))
    lines = [vqa_table(result, columns), *(sig.format() for sig in extra_signatures.values())]
    if judged is not None:
        lines.append(_judge_line(judged))
    if result.reported is not None or result.sample_metrics:
        from ..views.task_text import reported_text

        # the task's result carries the comparison, as for every task (only built when the
        # file came with the toolkit's numbers)
        evaluation = _task_result(result)
        lines.append(reported_text(evaluation, args.digits))
    return "".join(line + "\n" for line in lines)


def _task_result(result: VQAEvaluation, **options: Any) -> TaskEvaluation:
    """*result* as VQA v2's task result (``score vqav2``'s), which the document and the
    reported comparison are made from."""
    from ..tasks import get_task
    from ..tasks.vqav2 import evaluation_to_task

    task = get_task("vqav2")
    evaluation: TaskEvaluation = evaluation_to_task(
        task, task.profile(result.profile.name), result, **options
    )
    return evaluation


def _question_texts(path: str) -> dict[Any, str]:
    """Question id -> text from the official questions file (for the judge's prompt)."""
    import orjson

    from ..readers._json import read_bytes

    raw = read_bytes(path)
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:  # JSONL (already validated by the scorer)
        data = [orjson.loads(line) for line in raw.splitlines() if line.strip()]
    rows = data.get("questions", []) if isinstance(data, dict) else data
    return {
        r.get("question_id"): r["question"]
        for r in rows
        if isinstance(r, dict) and isinstance(r.get("question"), str)
    }


def _judge_line(j: dict[str, Any]) -> str:
    return (
        f"LLM judge (beside the VQA score, not instead): {j['accuracy']:.2f}% of {j['decided']} "
        f"decided equivalent ({j['decided_by_rules']} by the rules, {j['judged']} by the "
        f"judge; {j['unjudged']} unjudged; {j['judge_calls']} calls, {j['cache_hits']} cache "
        f"hits)\n{j['signature']}"
    )


def _interval_columns(intervals: BootstrapResult) -> dict[str, Mapping[str, object]]:
    """The interval bounds and SE as breakdown-shaped columns for :func:`vqa_table`."""
    ci, se = intervals.ci95, intervals.se

    def pick(tree: dict[str, Any], f: Callable[[Any], object]) -> dict[str, object]:
        out: dict[str, object] = {"overall": f(tree["overall"])}
        for name in ("perAnswerType", "perQuestionType"):
            out[name] = {k: f(v) for k, v in tree.get(name, {}).items()}
        return out

    def num(x: object) -> object:
        return float("nan") if x is None else x

    return {
        "95% lo": pick(ci, lambda v: num(v[0])),
        "95% hi": pick(ci, lambda v: num(v[1])),
        "SE": pick(se, num),
    }


def _interval_note(intervals: BootstrapResult) -> str:
    s = intervals.settings()
    images = s["resampled"] == "images"
    return (
        f"95% interval of VQA acc: {s['method']} bootstrap over {s['clusters']} "
        f"{'images' if images else 'questions'} ({s['n_bootstrap']} replicates, seed "
        f"{s['seed']}); SE: analytic{', cluster-robust by image' if images else ''}"
    )


_METRICS = ("vqa", "em", "em-any")


def _parse_metrics(text: str) -> list[str]:
    from ..core.exceptions import UnknownNameError

    names = [t.strip().replace("_", "-") for t in text.split(",") if t.strip()]
    bad = [n for n in names if n not in _METRICS]
    if bad or not names:
        raise UnknownNameError(
            f"unknown metric {bad[0] if bad else text!r}; valid metrics: {', '.join(_METRICS)}"
        )
    return names


def _extra_metrics(
    result: VQAEvaluation, metrics: list[str]
) -> tuple[dict[str, Breakdown], dict[str, Signature]]:
    """EM and EM-any breakdowns and signatures, when asked for."""
    wanted = [m for m in metrics if m != "vqa"]
    if not wanted:
        return {}, {}
    from ..views.em_summary import exact_match_summary

    return exact_match_summary(result, wanted)
