"""What each command's ``--help`` says above its options (the help line of the listing is in
``_table.py``): one table, read by :func:`~vqametrics.cli._common.add_command`."""

from __future__ import annotations

__all__ = ["DESCRIPTIONS"]

#: command -> its description, in the order of ``_table.COMMANDS``
DESCRIPTIONS: dict[str, str] = {
    "vqa": "Score predictions against the 10 human answers per question, exactly as "
    "the official VQA evaluation script does (or as another profile does).",
    "score": "Score predictions of one benchmark exactly as its official scorer does "
    "(or as a toolkit profile does).",
    "explain": "Show every step of one score: the prediction and each answer through the "
    "profile's normalization, what matched, and the final score. Without --task: VQA v2 "
    "(the leave-one-out table). With --task TASK: that benchmark's own steps (ANLS per "
    "reference, the yes/no parse, relaxed tolerance, the extracted letter …). With "
    "--results and --id: one item of a run, as it was scored.",
    "profiles": "Without inputs (or with --list): every registered profile with its "
    "one-line description and the toolkit version it reproduces. With --annotations and "
    "--results: the score under every profile, and the questions whose score differs "
    "between profiles, grouped by the rule that caused it.",
    "diff": "Score two results files on the same annotations and report the difference "
    "of their accuracies (A − B, percentage points, unrounded), a paired bootstrap 95% "
    "interval, a sign-flip permutation p-value (whole images are resampled and flipped when "
    "image ids are known), the same per answer type and question type, and the questions "
    "whose score changed.",
    "mmbench": "Score multiple-choice predictions the way the MMBench reference does: "
    "`score mmbench` with these options (--data is --annotations, --extractor is "
    "--profile), the same output and signature.",
    "mmbench-circular": "Write one row per rotation of the options (index + k*1000000; "
    "options rotated left by k; answer letter moved accordingly), as VLMEvalKit's CIRCULAR "
    "tool does.",
    "compare": """\
Score one set of predictions with VQA accuracy, Exact Match and EM-any side by side (and, for
A-OKVQA, multiple-choice accuracy: vanilla and circular, with their chance baselines), then list
the questions where the metrics disagree, with examples.

VQA-format data:  --annotations A --results R
A-OKVQA (original schema, direct_answers + choices):  --aokvqa FILE --results R
  R is a list of {question_id, answer, multiple_choice?, multiple_choice_rotations?} or the
  allenai/aokvqa mapping {question_id: {direct_answer, multiple_choice}}. Without
  multiple_choice, the MC answer is the option equal to the free-text answer after
  normalization (none: scored wrong). CircularEval needs multiple_choice_rotations.""",
    "report": "Score one or more results files on the same annotations and write one "
    "HTML file: headline VQA accuracy, EM and EM-any; the distribution of per-question "
    "scores; per answer and question type; what each normalization rule changed; the "
    "results under every profile; 'why this score' cards for the lowest-scoring "
    "questions; and, with two or more results files, a comparison of the models. "
    "With --task TASK (any benchmark: textvqa, pope, mme, …): one results file, with the "
    "task's headline and signature, its splits and categories, the distribution of "
    "per-item scores, the toolkit's reported numbers beside ours, and the lowest-scoring "
    "items with their explanation.",
    "table": "Read VLMEvalKit output folders (<model>/<model>_<DATASET>.xlsx with their "
    "_acc.csv/_score.csv/_score.json) and lmms-eval ones (<date>_samples_<task>.jsonl with "
    "<date>_results.json), score every run with the benchmark's official scorer (or "
    "--profile), and print one row per model: each number beside the toolkit's own, a "
    "mark where they differ and, under the table, the profile that reproduces the "
    "toolkit's number, every column's signature and every file not recognized.",
    "demo": "Serve the explainable-scoring demo on a local port and open it in the "
    "browser. Every number on the page comes from the library. Needs the demo extra: "
    "pip install 'vqametrics[demo]'.",
}
