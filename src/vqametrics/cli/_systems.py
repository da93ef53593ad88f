"""Several ``--results`` of the VQA commands (``vqa``, ``diff``): one row per system."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ._common import evaluate_from_args
from ._output import ci_settings, emit_systems, names_for

__all__ = ["run_vqa_systems"]


def run_vqa_systems(args: argparse.Namespace, paths: Sequence[str], metrics: Sequence[str]) -> int:
    """Score every ``--results`` on the same annotations; print one row per system."""
    import warnings

    from ..analysis.systems import compare_vqa_systems
    from ..core.exceptions import AnswerCountWarning, InputError, LeaveOneOutWarning
    from ..readers.vqa import load_annotations

    out = getattr(args, "out", None)
    if out and len(paths) > 1:
        raise InputError("--out writes the files of one results file; give one --results")
    names = names_for(args, paths)
    evaluations = []
    if getattr(args, "annotations", None) is None:
        # the results carry their ground truth (VLMEvalKit, lmms-eval): the first one's is
        # used for every system
        evaluations.append(evaluate_from_args(args, paths[0]))
        dataset = evaluations[0].dataset
    else:
        dataset = load_annotations(args.annotations, on_duplicate=args.on_duplicate)
        if getattr(args, "questions", None):
            from ..readers.vqa import load_questions

            load_questions(args.questions, dataset)
    for k, path in enumerate(paths):
        if k < len(evaluations):
            continue
        with warnings.catch_warnings():
            if k:  # the annotations' own warnings were given once already
                warnings.simplefilter("ignore", LeaveOneOutWarning)
                warnings.simplefilter("ignore", AnswerCountWarning)
            evaluations.append(evaluate_from_args(args, path, annotations=dataset))
    if out:  # one file: its official outputs, and the table on stdout
        from ..pipeline.vqa_outputs import start_vqa_outputs

        with start_vqa_outputs(evaluations[0], out) as writing:
            writing.wait()
        print(f"wrote outputs to {out}", file=sys.stderr)
    result = compare_vqa_systems(evaluations, names, metrics=metrics, **ci_settings(args))
    return emit_systems(result, args)
