"""End to end against the peers' own scripts (issue 23): POPE, MME, ChartQA, MathVista, MMMU,
OK-VQA.

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
- **MathVista**: LLaVA-LLaMA-2-13B's testmini results with their recorded extractions, as
  MathVista's repository ships them (``../shared/data/mathvista/official``, 1,000 problems). The
  baseline is a plain script doing what ``evaluation/calculate_score.py`` does (normalize, ``==``,
  per-metadata counts; without pandas): it gives the shipped ``scores_*.json``. Ours: ``vqametrics
  score mathvista --results F``. ``mathvista-shipped`` (where pandas is installed) adds the
  imports ``calculate_score.py`` has.
- **MMMU**: LLaVA-1.5-13B's validation outputs with ``answer_dict_val.json`` as MMMU's repository
  ships them (900 questions). The baseline is a plain script doing what ``mmmu/main_eval_only.py``
  does (it prints Overall 0.367, as the official one does). Ours: ``vqametrics score mmmu
  --results O --annotations A``. ``mmmu-shipped`` adds the imports the peer's driver and utils
  have (argparse, pdb, numpy, and yaml where PyYAML is installed).
- **OK-VQA**: PICa's val run (VinVL tags, ``../shared/data/okvqa_val``, 5,046 questions) with the
  annotations it was scored against. The baseline does what the official ``vqaEval.py`` does,
  through the literal port of its normalization and leave-one-out (``tests/reference``, as
  unoptimized as the script): 48.03, as ours. Ours: ``vqametrics score okvqa --annotations A
  --results R``.

The baselines are small re-implementations of what the peer scripts do (written for this
benchmark), run as ``python -c`` in a fresh process like ours. Each pair runs alternately;
the median wall time of each and the median of the per-pair ratios (ours / baseline) are
printed, with the CPU time (user + sys from ``wait4``: medians and the ratio), the figure to
trust on a loaded host.

A third row, ``floor``, times ``python -c "import argparse, dataclasses"`` in the same
alternation: what any command line with argparse and dataclass results pays before reading a
byte. Where it is above 1x its peer, no such command line can be faster than that peer.
A fourth, ``imports``, imports every module ours has loaded by the end of its run (found once,
before the timing) and reads nothing: ours less that row is what ours spends on the work itself,
to set beside the peer's whole run, which imports next to nothing.

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


#: a plain script doing what MathVista's evaluation/calculate_score.py does over a results file
#: with its extractions (argv: output_<model>.json): normalize each extraction (a letter or the
#: nearest choice by edit distance; int / rounded float / list text), compare with ``==``, count
#: per metadata value. Its edit distance is rapidfuzz's (python-Levenshtein, which the peer
#: imports, is a wrapper over it); without pandas, which the peer builds its tables with
MATHVISTA_BASELINE = r"""
import json, re, sys
from rapidfuzz.distance.Levenshtein import distance
def normalize(extraction, choices, question_type, answer_type, precision):
    if question_type == "multi_choice":
        text = extraction.strip() if isinstance(extraction, str) else str(extraction)
        letters = re.findall(r"\(([a-zA-Z])\)", text)
        if letters:
            text = letters[0].upper()
        options = [chr(65 + i) for i in range(len(choices))]
        if text in options:
            return choices[options.index(text)]
        far = [distance(text, c) for c in choices]
        return choices[far.index(min(far))]
    try:
        if answer_type == "integer":
            return str(int(float(extraction)))
        if answer_type == "float":
            return str(round(float(extraction), int(precision)))
        if answer_type == "list":
            return str(extraction)
    except (TypeError, ValueError):
        return None
with open(sys.argv[1], encoding="utf-8") as fh:
    results = json.load(fh)
keys = ["question_type", "answer_type", "language", "source", "category", "task", "context",
        "grade", "skills"]
counts = {k: {} for k in keys}
correct = 0
for problem in results.values():
    pred = normalize(problem["extraction"], problem["choices"], problem["question_type"],
                     problem["answer_type"], problem["precision"])
    right = pred == problem["answer"]
    correct += right
    fields = {**problem, **problem["metadata"]}
    for k in keys:
        for value in (fields[k] if k == "skills" else [fields[k]]):
            c = counts[k].setdefault(value, [0, 0])
            c[0] += right
            c[1] += 1
total = len(results)
scores = {"average": {"accuracy": correct / total, "correct": correct, "total": total}}
for k in keys:
    rows = {v: {"accuracy": r / n, "correct": r, "total": n} for v, (r, n) in counts[k].items()}
    scores[k] = dict(sorted(rows.items(), key=lambda kv: kv[1]["accuracy"], reverse=True))
print(json.dumps(scores, indent=2))
"""

#: the same with the imports calculate_score.py has at the top (argparse, pandas): what the
#: peer's own script costs
MATHVISTA_SHIPPED = "import argparse\nimport pandas\n" + MATHVISTA_BASELINE

#: a plain script doing what MMMU's mmmu/main_eval_only.py does (argv: the parsed outputs, the
#: answer dict): multiple-choice by equality, open answers parsed (key sub-responses, numbers,
#: normalized) and matched, accuracy per subject, per discipline (instance-weighted), overall
MMMU_BASELINE = r"""
import json, re, sys
domains = {
    "Art and Design": ["Art", "Art_Theory", "Design", "Music"],
    "Business": ["Accounting", "Economics", "Finance", "Manage", "Marketing"],
    "Science": ["Biology", "Chemistry", "Geography", "Math", "Physics"],
    "Health and Medicine": ["Basic_Medical_Science", "Clinical_Medicine",
                            "Diagnostics_and_Laboratory_Medicine", "Pharmacy", "Public_Health"],
    "Humanities and Social Science": ["History", "Literature", "Sociology", "Psychology"],
    "Tech and Engineering": ["Agriculture", "Architecture_and_Engineering", "Computer_Science",
                             "Electronics", "Energy_and_Power", "Materials",
                             "Mechanical_Engineering"],
}
NUMBERS = [re.compile(p) for p in (r"-?\b\d{1,3}(?:,\d{3})+\b", r"-?\d+(?:\.\d+)?[eE][+-]?\d+",
                                   r"-?(?:\d+\.\d+|\.\d+|\d+\b)(?![eE][+-]?\d+)(?![,\d])")]
def norm(text):
    text = text.strip()
    try:
        return [round(float(text.replace(",", "")), 2)]
    except ValueError:
        text = text.lower()
        return [" " + text, text + " "] if len(text) == 1 else [text]
def parse_open(response):
    response = response.strip().strip(".").lower()
    parts = re.split(r"\.\s(?=[A-Z])|\n", response)
    keys = []
    for i, part in enumerate(parts):
        marks = ["could be ", "so ", "is ", "thus ", "therefore ", "final ", "answer ", "result "]
        if i == len(parts) - 1:
            marks.append("=")
        tails = [part.split(m)[-1].strip() for m in marks if m in part]
        best = min(tails, key=len) if tails else None
        if best and best.strip() not in (":", ",", ".", "!", "?", ";", "'"):
            keys.append(best)
    keys = keys or [response]
    found = [n for k in keys for p in NUMBERS for n in p.findall(k)]
    return list({v for text in keys + found for v in norm(text)})
def open_right(gold, preds):
    golds = [v for g in (gold if isinstance(gold, list) else [gold]) for v in norm(g)]
    for p in preds:
        if isinstance(p, str):
            if any(isinstance(g, str) and g in p for g in golds):
                return True
        elif p in golds:
            return True
    return False
outputs = json.load(open(sys.argv[1], encoding="utf-8"))
answers = json.load(open(sys.argv[2], encoding="utf-8"))
subjects = {}
for qid, pred in outputs.items():
    gold = answers[qid]
    if gold["question_type"] == "multiple-choice":
        g = gold["ground_truth"]
        right = pred in g if isinstance(g, list) else pred == g
    else:
        right = open_right(gold["ground_truth"], parse_open(pred))
    subjects.setdefault("_".join(qid.split("_")[1:-1]), []).append(right)
table = {}
for domain, names in domains.items():
    mine = [subjects[n] for n in names if n in subjects]
    table["Overall-" + domain] = {"num": sum(map(len, mine)),
                                  "acc": round(sum(map(sum, mine)) / sum(map(len, mine)), 3)}
    for n in names:
        if n in subjects:
            rs = subjects[n]
            table[n] = {"num": len(rs), "acc": round(sum(rs) / len(rs), 3)}
every = [r for rs in subjects.values() for r in rs]
table["Overall"] = {"num": len(every), "acc": round(sum(every) / len(every), 3)}
print(table)
"""

#: the same with the imports main_eval_only.py and its utils have (argparse, pdb, numpy; its
#: yaml where PyYAML is installed): what the peer's own script costs (a lower bound without yaml)
MMMU_SHIPPED = (
    "import argparse, pdb, random\nimport numpy\n"
    + ("import yaml\n" if importlib.util.find_spec("yaml") else "")
    + MMMU_BASELINE
)


#: a plain script doing what the official VQA evaluation (``vqaEval.py``) does for OK-VQA, through
#: the literal port of its normalization and leave-one-out in ``tests/reference`` (argv: the
#: folder holding ``reference``, the annotations, the results): it prints 48.03 for PICa's run
OKVQA_BASELINE = """
import json, sys
sys.path.insert(0, sys.argv[1])
from reference.official_vqa import question_accuracy
ann = json.load(open(sys.argv[2], encoding="utf-8"))
res = {r["question_id"]: r["answer"] for r in json.load(open(sys.argv[3], encoding="utf-8"))}
accs = []
for q in ann:
    gts = [{"answer": a, "answer_id": i + 1} for i, a in enumerate(q["answer"])]
    accs.append(question_accuracy(gts, res[q["question_id"]]))
total = 0.0
for a in accs:
    total += a
print(round(100 * total / len(accs), 2), len(accs))
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


def mathvista_inputs(d: Path, rng: random.Random) -> tuple[list[str], list[str]]:
    """LLaVA-LLaMA-2-13B's MathVista testmini results with their extractions, as the
    official repository ships them (1,000 problems); (ours, baseline) arguments."""
    results = SHARED / "mathvista" / "official" / "output_llava_llama_2_13b.json"
    return ["score", "mathvista", "--results", str(results)], [str(results)]


def mmmu_inputs(d: Path, rng: random.Random) -> tuple[list[str], list[str]]:
    """LLaVA-1.5-13B's MMMU validation outputs and the answer dict, as the official repository
    ships them (900 questions); (ours, baseline) arguments."""
    folder = SHARED / "mmmu" / "official"
    outputs = folder / "llava1.5_13b_total_val_output.json"
    answers = folder / "answer_dict_val.json"
    ours = ["score", "mmmu", "--results", str(outputs), "--annotations", str(answers)]
    return ours, [str(outputs), str(answers)]


def okvqa_inputs(d: Path, rng: random.Random) -> tuple[list[str], list[str]]:
    """PICa's OK-VQA val run (VinVL tags, 5,046 questions) and the annotations it was scored
    against, as shipped; (ours, baseline) arguments."""
    folder = SHARED / "okvqa_val"
    ann = folder / "okvqa_val_eval.json"
    res = folder / "coco14_promptC_gpt3_VinVLTag_n16_repeat5_47.934998_CLIPImagequestion.json"
    ours = ["score", "okvqa", "--annotations", str(ann), "--results", str(res)]
    return ours, [str(ROOT / "tests"), str(ann), str(res)]


#: each run: its inputs and the peer's script
PAIRS = {
    "pope": (pope_inputs, POPE_BASELINE),
    "pope-shipped": (pope_shipped_inputs, POPE_SHIPPED),
    "mme": (mme_inputs, MME_BASELINE),
    "chartqa": (chartqa_inputs, CHARTQA_BASELINE),
    "mathvista": (mathvista_inputs, MATHVISTA_BASELINE),
    "mmmu": (mmmu_inputs, MMMU_BASELINE),
    "mmmu-shipped": (mmmu_inputs, MMMU_SHIPPED),
    "okvqa": (okvqa_inputs, OKVQA_BASELINE),
}
if importlib.util.find_spec("pandas") is not None:
    PAIRS["mathvista-shipped"] = (mathvista_inputs, MATHVISTA_SHIPPED)
if importlib.util.find_spec("sklearn") is not None:
    PAIRS["mme-sklearn"] = (
        mme_inputs,
        "from sklearn.metrics import accuracy_score, confusion_matrix\n" + MME_BASELINE,
    )


#: the floor of a command line with argparse and dataclass results: imports, nothing else
FLOOR = "import argparse, dataclasses"

#: runs ours in-process (argv: a file for the names, then our arguments), writes the names of
#: the modules loaded by its end, one a line, and exits with ours' status
LOADED = """
import io, sys
from vqametrics.cli import main
names, sys.argv[1:] = sys.argv[1], sys.argv[2:]
sys.stdout = io.StringIO()
code = main(sys.argv[1:])
with open(names, "w", encoding="utf-8") as fh:
    fh.write("\\n".join(n for n, m in sys.modules.items() if m is not None and n != "__main__"))
raise SystemExit(code)
"""

#: imports the modules named in argv, in that order, and does nothing else (with numpy's OpenBLAS
#: on one thread, as the ``vqametrics`` command sets it)
IMPORTS = """
import importlib, os, sys
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
for name in sys.argv[1:]:
    importlib.import_module(name)
"""


def source_env(src: str | Path) -> dict[str, str]:
    """The environment of a fresh run of the package in the source tree *src*, with bytecode
    written and read as an installed package has it."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def loaded_modules(ours: list[str], tmp: str, env: dict[str, str]) -> list[str]:
    """The modules a run of ours with the arguments *ours* has loaded by its end, in the order
    they were loaded (the interpreter's own start-up modules among them: importing those again
    costs nothing)."""
    names = Path(tmp) / "modules.txt"
    # run as a timed one is (its time unused): ours' warnings (MathVista's) stay out of the
    # table, and a failure shows its stderr
    timed_process([sys.executable, "-c", LOADED, str(names), *ours], env)
    return names.read_text(encoding="utf-8").split()


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
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--before", metavar="SRC", help="also time ours from this source tree")
    parser.add_argument("--only", action="append", choices=sorted(PAIRS), help="only these")
    args = parser.parse_args()
    if not (SHARED / "pope" / "llava").is_dir():
        raise SystemExit(f"needs {SHARED} (the shared data beside the checkout)")
    env = source_env(ROOT / "src")
    before = source_env(args.before) if args.before else None
    script = Path(sys.executable).with_name("vqametrics")
    cli = [sys.executable, str(script)] if script.exists() else [sys.executable, "-m", "vqametrics"]
    print(f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}, load {os.getloadavg()[0]:.1f}")
    width = max(map(len, PAIRS)) + len(" (before)")  # the longest row label
    head = f"{'':{width}} {'ours':>9} {'peer':>9} {'wall ratio':>11} {'CPU ratio':>10}"
    print(f"{head} {'ours CPU':>9} {'peer CPU':>9}   (medians)")
    for name, (build, base) in PAIRS.items():
        if args.only and name not in args.only:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            ours, theirs = build(Path(tmp), random.Random(12345))
            # (row label, command, environment); the peer's script, command 1, is every
            # row's baseline and no row of its own
            cmds = [
                (name, [*cli, *ours], env),
                (None, [sys.executable, "-c", base, *theirs], env),
                (f"{name} floor", [sys.executable, "-c", FLOOR], env),
                (
                    f"{name} imports",
                    [sys.executable, "-c", IMPORTS, *loaded_modules(ours, tmp, env)],
                    env,
                ),
            ]
            if before is not None:
                cmds.append((f"{name} (before)", [*cli, *ours], before))
            for _, cmd, e in cmds:
                timed_process(cmd, e)  # warm the file cache and the bytecode
            runs = [[timed_process(cmd, e) for _, cmd, e in cmds] for _ in range(args.runs)]
            peer_s = statistics.median(r[1][0] for r in runs)
            peer_cpu = statistics.median(r[1][1] for r in runs)
            for k, (label, _, _) in enumerate(cmds):
                if label is None:
                    continue
                wall_ratio = statistics.median(r[k][0] / r[1][0] for r in runs)
                cpu_ratio = statistics.median(r[k][1] / r[1][1] for r in runs)
                ours_s = statistics.median(r[k][0] for r in runs)
                ours_cpu = statistics.median(r[k][1] for r in runs)
                print(
                    f"{label:{width}} {ours_s * 1000:7.0f}ms {peer_s * 1000:7.0f}ms "
                    f"{wall_ratio:10.2f}x {cpu_ratio:9.2f}x "
                    f"{ours_cpu * 1000:7.0f}ms {peer_cpu * 1000:7.0f}ms"
                )
    print(f"load {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
