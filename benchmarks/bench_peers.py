"""End to end against the peers' own scripts (issue 23): POPE, MME and ChartQA, fresh processes.

- **POPE**: LLaVA's 8,910-question file (``../shared/data/pope/llava``, the real one) answered
  in LLaVA's answer layout (seeded answers), with the POPE labels LLaVA-1.5 was evaluated on
  (``../shared/data/pope/e3e3926``). The baseline is a plain script doing what LLaVA's
  ``llava/eval/eval_pope.py`` does (haotian-liu/LLaVA): read the question file into a dict,
  read the answers, and for each label file keep that category's answers, map each to yes/no by
  the first sentence's words, count TP/FP/TN/FN and print accuracy, precision, recall, F1.
  Ours: ``vqametrics score pope --annotations DIR --questions Q --results A``.
  ``pope-shipped`` is the same script with the command line ``eval_pope.py`` has (argparse,
  ``--annotation-dir``, ``--question-file``, ``--result-file``): what the peer's own script costs.
- **MME**: the LaVIN results shipped inside MME's official ``eval_tool`` (``../shared/data/mme/
  eval_tool/LaVIN``, 2,374 lines, the real files). The baseline is a plain script doing what
  ``eval_tool/calculation.py`` does (without its scikit-learn import, which would cost the peer
  more than ours): per task file, pairs of lines, the 4-character yes/no parse, accuracy and
  accuracy+ summed per group. Ours: ``vqametrics score mme --results DIR``. ``mme-sklearn``
  (where scikit-learn is installed) is the same script with the import ``calculation.py`` has,
  ``from sklearn.metrics import …``: what the peer's own script costs.
- **ChartQA**: an lmms-eval ``--log_samples`` log of ``chartqa`` (2,500 seeded rows, 1,250 per
  split, each with its ``doc``). The baseline is a plain script doing lmms-eval's loop
  (``lmms_eval/tasks/chartqa/utils.py``): read the log, call ``relaxed_correctness`` on each
  row's response, average per split. Ours: ``vqametrics score chartqa --results LOG --profile
  lmms-eval``.

The baselines are small re-implementations of what the peer scripts do (written for this
benchmark), run as ``python -c`` in a fresh process like ours. Each pair runs alternately;
the median wall time of each and the median of the per-pair ratios (ours / baseline) are
printed, with the CPU time (user + sys from ``wait4``: medians and the ratio), the figure to
trust on a loaded host.

A third row, ``floor``, times ``python -c "import argparse, dataclasses"`` in the same
alternation: what any command line with argparse and dataclass results pays before reading a
byte. Where it is above 1x its peer, no such command line can be faster than that peer.

``--before SRC`` also runs ours from another source tree (e.g. an export of main's ``src/``) in
the same alternation, and prints its ratio to the same baseline.

Usage: ``python benchmarks/bench_peers.py [--runs 15] [--before SRC] [--only NAME ...]``
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"

#: a plain script doing what LLaVA's eval_pope.py does (argv: labels dir, questions, answers)
POPE_BASELINE = """
import json, os, sys
labels, qfile, afile = sys.argv[1:4]
questions = {}
for line in open(qfile):
    q = json.loads(line)
    questions[q["question_id"]] = q
answers = [json.loads(line) for line in open(afile)]
for name in sorted(os.listdir(labels)):
    category = name[len("coco_pope_"):-len(".json")]
    mine = [a for a in answers if questions[a["question_id"]]["category"] == category]
    with open(os.path.join(labels, name)) as fh:
        gold = [0 if json.loads(line)["label"] == "no" else 1 for line in fh]
    preds = []
    for a in mine:
        text = a["text"]
        if "." in text:
            text = text.split(".")[0]
        words = text.replace(",", "").split(" ")
        preds.append(0 if ("No" in words or "not" in words or "no" in words) else 1)
    tp = sum(1 for p, g in zip(preds, gold) if p == 1 and g == 1)
    fp = sum(1 for p, g in zip(preds, gold) if p == 1 and g == 0)
    tn = sum(1 for p, g in zip(preds, gold) if p == 0 and g == 0)
    fn = sum(1 for p, g in zip(preds, gold) if p == 0 and g == 1)
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    print(category, len(mine), (tp + tn) / len(preds), precision, recall,
          2 * precision * recall / (precision + recall), preds.count(1) / len(preds))
"""

#: the same with the command line LLaVA's eval_pope.py has (argparse and its three options):
#: what the peer's own script costs
POPE_SHIPPED = """
import argparse
parser = argparse.ArgumentParser()
parser.add_argument("--annotation-dir", type=str)
parser.add_argument("--question-file", type=str)
parser.add_argument("--result-file", type=str)
args = parser.parse_args()
labels, qfile, afile = args.annotation_dir, args.question_file, args.result_file
""" + POPE_BASELINE.replace("labels, qfile, afile = sys.argv[1:4]\n", "", 1)
assert POPE_SHIPPED.count("labels, qfile, afile") == 1

#: a plain script doing what MME's eval_tool/calculation.py does (argv: the results folder)
MME_BASELINE = """
import os, sys
groups = {
    "Perception": ["existence", "count", "position", "color", "posters", "celebrity", "scene",
                   "landmark", "artwork", "OCR"],
    "Cognition": ["commonsense_reasoning", "numerical_calculation", "text_translation",
                  "code_reasoning"],
}
def parse(pred):
    if pred in ("yes", "no"):
        return pred
    head = pred[:4]
    return "yes" if "yes" in head else "no" if "no" in head else "other"
for group, names in groups.items():
    total = 0
    for name in names:
        with open(os.path.join(sys.argv[1], name + ".txt"), encoding="utf-8") as fh:
            lines = fh.readlines()
        right, pairs_right = 0, 0
        for i in range(0, len(lines), 2):
            both = True
            for line in lines[i:i + 2]:
                img, question, gt, pred = line.split("\t")
                ok = gt.lower() == parse(pred.lower())
                right += ok
                both = both and ok
            pairs_right += both
        total += 0 + right / len(lines) * 100 + pairs_right / (len(lines) // 2) * 100
    print(group, total)
"""

#: a plain script doing lmms-eval's chartqa loop over a samples log (argv: the log)
CHARTQA_BASELINE = """
import json, sys
def to_float(text):
    try:
        return float(text.rstrip("%")) / 100.0 if text.endswith("%") else float(text)
    except ValueError:
        return None
def relaxed(prediction, target):
    p, t = to_float(prediction), to_float(target)
    if p is not None and t:
        return abs(p - t) / abs(t) <= 0.05
    return prediction.lower() == target.lower()
scores = {"relaxed_overall": [], "relaxed_human_split": [], "relaxed_augmented_split": []}
for line in open(sys.argv[1], encoding="utf-8"):
    row = json.loads(line)
    doc = row["doc"]
    s = 1.0 if relaxed(row["filtered_resps"][0].strip(), doc["answer"]) else 0.0
    scores["relaxed_overall"].append(s)
    split = "relaxed_human_split" if doc["type"] == "human_test" else "relaxed_augmented_split"
    scores[split].append(s)
print({k: sum(v) / len(v) for k, v in scores.items()})
"""


def pope_inputs(d: Path, rng: random.Random) -> tuple[list[str], list[str]]:
    """LLaVA's real question file answered with seeded answers; (ours, baseline) arguments."""
    questions = SHARED / "pope" / "llava" / "llava_pope_test.jsonl"
    labels = SHARED / "pope" / "e3e3926"
    answers = d / "answers.jsonl"
    with open(questions, encoding="utf-8") as qf, open(answers, "w", encoding="utf-8") as af:
        for line in qf:
            q = json.loads(line)
            text = rng.choice(("Yes", "No", "No, there is not.", "yes", "Yes, there is a dog."))
            row = {"question_id": q["question_id"], "prompt": q["text"], "text": text}
            af.write(json.dumps({**row, "answer_id": f"a{q['question_id']}", "metadata": {}}))
            af.write("\n")
    ours = ["score", "pope", "--annotations", str(labels), "--questions", str(questions)]
    return [*ours, "--results", str(answers)], [str(labels), str(questions), str(answers)]


def pope_shipped_inputs(d: Path, rng: random.Random) -> tuple[list[str], list[str]]:
    """:func:`pope_inputs`, the baseline's arguments as eval_pope.py's options."""
    ours, (labels, questions, answers) = pope_inputs(d, rng)
    flags = ["--annotation-dir", labels, "--question-file", questions, "--result-file", answers]
    return ours, flags


def mme_inputs(d: Path, rng: random.Random) -> tuple[list[str], list[str]]:
    """The LaVIN results of MME's eval_tool, as shipped; (ours, baseline) arguments."""
    folder = SHARED / "mme" / "eval_tool" / "LaVIN"
    return ["score", "mme", "--results", str(folder)], [str(folder)]


def chartqa_inputs(d: Path, rng: random.Random) -> tuple[list[str], list[str]]:
    """An lmms-eval samples log of ChartQA test's size; (ours, baseline) arguments."""
    log = d / "samples_chartqa.jsonl"
    with open(log, "w", encoding="utf-8") as fh:
        for i in range(2500):
            gt = str(rng.choice((rng.randint(0, 500), round(rng.random() * 100, 1), "Yes")))
            pred = gt if rng.random() < 0.5 else str(rng.randint(0, 500))
            kind = "human_test" if i < 1250 else "augmented_test"
            doc = {"type": kind, "question": "What is the value?", "answer": gt}
            row = {"doc_id": i, "doc": doc, "target": gt, "resps": [[pred]]}
            fh.write(json.dumps({**row, "filtered_resps": [pred], "relaxed_overall": 0.0}) + "\n")
    return ["score", "chartqa", "--results", str(log), "--profile", "lmms-eval"], [str(log)]


#: each run: its inputs and the peer's script
PAIRS = {
    "pope": (pope_inputs, POPE_BASELINE),
    "pope-shipped": (pope_shipped_inputs, POPE_SHIPPED),
    "mme": (mme_inputs, MME_BASELINE),
    "chartqa": (chartqa_inputs, CHARTQA_BASELINE),
}
if importlib.util.find_spec("sklearn") is not None:
    PAIRS["mme-sklearn"] = (
        mme_inputs,
        "from sklearn.metrics import accuracy_score, confusion_matrix\n" + MME_BASELINE,
    )


#: the floor of a command line with argparse and dataclass results: imports, nothing else
FLOOR = "import argparse, dataclasses"


def timed_process(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of *cmd* in a fresh process; fails loudly on a non-zero exit."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode() if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{err}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--before", metavar="SRC", help="also time ours from this source tree")
    parser.add_argument("--only", action="append", choices=sorted(PAIRS), help="only these")
    args = parser.parse_args()
    if not (SHARED / "pope" / "llava").is_dir():
        raise SystemExit(f"needs {SHARED} (the shared data beside the checkout)")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode: so here
    before = {**env, "PYTHONPATH": args.before} if args.before else None
    script = Path(sys.executable).with_name("vqametrics")
    cli = [sys.executable, str(script)] if script.exists() else [sys.executable, "-m", "vqametrics"]
    print(f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}, load {os.getloadavg()[0]:.1f}")
    head = f"{'':17} {'ours':>9} {'peer':>9} {'wall ratio':>11} {'CPU ratio':>10}"
    print(f"{head} {'ours CPU':>9} {'peer CPU':>9}   (medians)")
    for name, (build, base) in PAIRS.items():
        if args.only and name not in args.only:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            ours, theirs = build(Path(tmp), random.Random(12345))
            cmds = [([*cli, *ours], env), ([sys.executable, "-c", base, *theirs], env)]
            cmds.append(([sys.executable, "-c", FLOOR], env))
            if before is not None:
                cmds.append(([*cli, *ours], before))
            for cmd, e in cmds:
                timed_process(cmd, e)  # warm the file cache and the bytecode
            runs = [[timed_process(cmd, e) for cmd, e in cmds] for _ in range(args.runs)]
            labels = [name, f"{name} floor"] + ([f"{name} (before)"] if before else [])
            for label, k in zip(labels, (0, 2, 3), strict=False):
                wall_ratio = statistics.median(r[k][0] / r[1][0] for r in runs)
                cpu_ratio = statistics.median(r[k][1] / r[1][1] for r in runs)
                ours_s = statistics.median(r[k][0] for r in runs)
                peer_s = statistics.median(r[1][0] for r in runs)
                ours_cpu = statistics.median(r[k][1] for r in runs)
                peer_cpu = statistics.median(r[1][1] for r in runs)
                print(
                    f"{label:17} {ours_s * 1000:7.0f}ms {peer_s * 1000:7.0f}ms "
                    f"{wall_ratio:10.2f}x {cpu_ratio:9.2f}x "
                    f"{ours_cpu * 1000:7.0f}ms {peer_cpu * 1000:7.0f}ms"
                )
    print(f"load {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
