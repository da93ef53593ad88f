"""One tiny input per registered task, for the contract test.

Each fixture is a handful of hand-written items in a layout the task reads (most often a
VLMEvalKit-style sheet, which carries its ground truth). A task registered without a fixture
here fails the contract test: adding a benchmark means adding its fixture too.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Row = dict[str, Any]


@dataclass(frozen=True)
class Fixture:
    """Rows of a results sheet (ids in ``index``), plus the files and options the task needs.

    ``annotations`` writes a ground-truth file into a folder and returns its path.
    ``id_column`` / ``prediction_column`` name the sheet's columns the contract edits.
    """

    rows: list[Row]
    annotations: Callable[[Path], Path] | None = None
    options: dict[str, Any] = field(default_factory=dict)
    id_column: str = "index"
    prediction_column: str = "prediction"
    #: what an empty prediction cell is: ``missing`` (the one rule: an error unless
    #: allow_missing, then scored 0 and counted), ``scored`` (a value the official scorer
    #: scores, as MathVista's empty extraction)
    empty_prediction: Literal["missing", "scored"] = "missing"
    #: how the results file is written: a tab-separated sheet or JSON lines
    format: Literal["tsv", "jsonl"] = "tsv"
    #: the results file's name (some layouts are recognized by it)
    name: str = "results"

    def write(self, folder: Path, rows: list[Row]) -> Path:
        """*rows* as this fixture's results file in *folder*."""
        if self.format == "jsonl":
            path = folder / f"{self.name}.jsonl"
            path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
            return path
        return write_sheet(folder / f"{self.name}.tsv", rows)


def write_sheet(path: Path, rows: list[Row]) -> Path:
    """*rows* as a tab-separated sheet (VLMEvalKit writes the same columns to .xlsx/.tsv)."""
    cols: list[str] = []
    for row in rows:
        cols += [c for c in row if c not in cols]
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, cols, delimiter="\t")
        w.writeheader()
        w.writerows(rows)
    return path


def _rows(answers: list[Any], predictions: list[str], **columns: list[Any]) -> list[Row]:
    out = []
    for i, (a, p) in enumerate(zip(answers, predictions, strict=True)):
        row: Row = {"index": i + 1, "question": f"question {i + 1}?", "answer": a}
        row.update({k: v[i] for k, v in columns.items()})
        row["prediction"] = p
        out.append(row)
    return out


_TEN = [
    str(["cat"] * 10),
    str(["2"] * 7 + ["two"] * 3),
    str(["yes"] * 10),
    str(["red"] * 9 + ["blue"]),
]
_OPEN = _rows(
    ["cat", "2", "yes", "red"],
    ["cat", "two", "Yes", "blue"],
    category=["c1", "c1", "c2", "c2"],
    split=["test"] * 4,
)
_LISTS = _rows(
    [str(["cat"]), str(["2", "two"]), str(["yes"]), str(["red"])],
    ["cat", "two", "yes", "blue"],
    category=["c1", "c1", "c2", "c2"],
)
_YES_NO = _rows(
    ["yes", "no", "yes", "no"],
    ["Yes, there is.", "No", "yes", "yes"],
    category=["adversarial", "adversarial", "random", "random"],
)
_MME = _rows(
    ["Yes", "No", "Yes", "No"],
    ["Yes", "No", "No", "No"],
    category=["existence", "existence", "count", "count"],
    image_path=["a.jpg", "a.jpg", "b.jpg", "b.jpg"],
)


def _mmbench_tsv(folder: Path) -> Path:
    """Two two-option questions with their circular copies (index + k·1e6)."""
    rows = []
    for q, (a, b, gold) in enumerate((("cat", "dog", "A"), ("red", "blue", "B")), start=1):
        rows.append({"index": q, "question": f"q{q}", "A": a, "B": b, "answer": gold})
        flipped = "B" if gold == "A" else "A"
        rows.append(
            {"index": q + 1_000_000, "question": f"q{q}", "A": b, "B": a, "answer": flipped}
        )
    for r in rows:
        r.update(category="cat1", split="dev", hint="")
    return write_sheet(folder / "mmbench_dev.tsv", rows)


_MMBENCH = [
    {"index": 1, "prediction": "A"},
    {"index": 1_000_001, "prediction": "B"},
    {"index": 2, "prediction": "B"},
    {"index": 1_000_002, "prediction": "B"},
]

FIXTURES: dict[str, Fixture] = {
    "vqav2": Fixture(_rows(_TEN, ["cat", "two", "Yes", "blue"])),
    "okvqa": Fixture(_rows(_TEN, ["cat", "two", "Yes", "blue"])),
    "textvqa": Fixture(_rows(_TEN, ["cat", "two", "Yes", "blue"])),
    "vizwiz": Fixture(_rows(_TEN, ["cat", "two", "Yes", "blue"])),
    "gqa": Fixture(_OPEN),
    "chartqa": Fixture(_OPEN),
    "ocrvqa": Fixture(_OPEN),
    "ocrbench": Fixture(_LISTS),
    "docvqa": Fixture(_LISTS),
    "infographicvqa": Fixture(_LISTS),
    "stvqa": Fixture(_LISTS),
    "pope": Fixture(_YES_NO),
    "mme": Fixture(_MME),
    # an empty cell is scored: VLMEvalKit reads it as str(NaN) = "nan", which its heuristics
    # (and its judge) read like any answer (spec mmbench.md §2, "Empty or NaN prediction")
    "mmbench": Fixture(_MMBENCH, annotations=_mmbench_tsv, empty_prediction="scored"),
}


def _verdict(i: int, fields: str, gt: str, verdict: str, pred: str) -> Row:
    """One official HallusionBench record: category, subcategory, set, figure, question and
    visual input ids, then the judge's recorded verdict (0 incorrect, 1 correct, 2 unclear)."""
    names = ("category", "subcategory", "set_id", "figure_id", "question_id", "visual_input")
    row: Row = {"index": i, **dict(zip(names, fields.split(), strict=True))}
    row.update(gt_answer=gt, model_prediction=pred, gpt4v_output_gpt_check=verdict, same="0")
    return row


FIXTURES["hallusionbench"] = Fixture(
    [
        _verdict(1, "VD math 0 0 0 1", "1", "1", "Yes"),
        _verdict(2, "VD math 0 1 0 1", "0", "0", "Yes"),
        _verdict(3, "VS chart 1 0 0 0", "1", "1", "Yes"),
        _verdict(4, "VS chart 1 0 1 0", "0", "2", "No idea"),
        _verdict(5, "VD math 0 2 0 2", "1", "1", "Yes"),
    ],
    prediction_column="model_prediction",
)
_GRADES = [("rec,ocr", 0.5), ("ocr", 1.0), ("know,rec", 0.0), ("math,ocr", 1.0)]
_MMVET = [
    {"index": i + 1, "question": "q", "answer": "a", "category": capabilities}
    | {"prediction": "p", "score": grade, "log": "Succeed"}
    for i, (capabilities, grade) in enumerate(_GRADES)
]
FIXTURES["mmvet"] = Fixture(_MMVET)
FIXTURES["mathvista"] = Fixture(
    [
        {"pid": str(i + 1), "question_type": "free_form", "answer_type": "integer"}
        | {"answer": answer, "response": extraction, "extraction": extraction}
        for i, (answer, extraction) in enumerate([("3", "3"), ("4", "5"), ("10", "10"), ("2", "x")])
    ],
    id_column="pid",
    prediction_column="extraction",
    empty_prediction="scored",
)
FIXTURES["mathvision"] = Fixture(
    [
        {"id": str(i + 1), "response": response, "answer": answer, "options": "[]"}
        | {"subject": subject, "level": level}
        for i, (response, answer, subject, level) in enumerate(
            [
                ("The answer is 5", "5", "algebra", 1),
                ("\\boxed{2\\pi}", "6.28", "algebra", 2),
                ("12 cm", "12", "counting", 2),
                ("7", "8", "counting", 1),
            ]
        )
    ],
    id_column="id",
    prediction_column="response",
)


def _choice_rows(predictions: list[str], answers: str, **columns: list[Any]) -> list[Row]:
    """A VLMEvalKit multiple-choice sheet: options A–D, the answer letter, the prediction (an
    empty prediction cell is VLMEvalKit's text 'nan', scored and counted: ``_MCQ_EMPTY``)."""
    options = {"A": "cat", "B": "dog", "C": "bird", "D": "fish"}
    rows = []
    for i, (p, a) in enumerate(zip(predictions, answers, strict=True)):
        row: Row = {"index": i + 1, "question": f"question {i + 1}?", **options, "answer": a}
        row.update({k: v[i] for k, v in columns.items()})
        row["prediction"] = p
        rows.append(row)
    return rows


def _mcq_fixture(rows: list[Row]) -> Fixture:
    return Fixture(rows, empty_prediction="scored")


_CATEGORIES = {"category": ["coarse perception", "coarse perception", "math", "math"]}
_MCQ = _choice_rows(["A", "The answer is B", "(C) bird", "D"], "ABDD", **_CATEGORIES)
FIXTURES["mmstar"] = _mcq_fixture(
    _choice_rows(
        ["A", "B", "C", "D"], "ABDD", **_CATEGORIES, l2_category=["scene", "scene", "geo", "geo"]
    )
)
FIXTURES["seedbench"] = _mcq_fixture(
    _choice_rows(["A", "B", "C", "D"], "ABDD", category=["Scene", "Scene", "Count", "Count"])
)
FIXTURES["realworldqa"] = _mcq_fixture(_MCQ)
FIXTURES["ai2d"] = _mcq_fixture(_MCQ)
FIXTURES["blink"] = _mcq_fixture(_choice_rows(["A", "B", "C", "A"], "ABDD", category=["Depth"] * 4))
FIXTURES["mmvp"] = _mcq_fixture(
    _choice_rows(["A", "B", "C", "A"], "ABDD", question=["q1", "q1", "q2", "q2"])
)
FIXTURES["cvbench"] = _mcq_fixture(
    _choice_rows(
        ["A", "B", "C", "A"],
        "ABDD",
        split=["2D", "2D", "3D", "3D"],
        source=["ADE20K", "COCO", "Omni3D", "Omni3D"],
        category=["Count", "Count", "Depth", "Depth"],
    )
)


_OPTIONS = ["cat", "dog", "bird", "fish"]


def _mmmu(i: int, response: str, answer: str, kind: str = "multiple-choice") -> Row:
    """One record of MMMU's parsed output (main_parse_and_eval.py ``output.json``)."""
    row: Row = {"id": f"validation_Art_{i}", "question_type": kind, "answer": answer}
    if kind == "multiple-choice":
        row |= {"all_choices": list("ABCD"), "index2ans": dict(zip("ABCD", _OPTIONS, strict=True))}
    return row | {"response": response}


FIXTURES["mmmu"] = Fixture(
    [
        _mmmu(1, "A", "A"),
        _mmmu(2, "The answer is (B)", "C"),
        _mmmu(3, "D", "D"),
        _mmmu(4, "It is 12 cm", "12", kind="open"),
    ],
    id_column="id",
    prediction_column="response",
    format="jsonl",
    empty_prediction="scored",
)
_TEN = str([f"option {k}" for k in range(10)])
FIXTURES["mmmu-pro"] = Fixture(
    [
        {"id": f"test_Art_{i}", "options": _TEN, "answer": answer, "response": response}
        for i, (response, answer) in enumerate(
            [("Answer: (E)", "E"), ("Answer: B", "C"), ("Answer: J", "J"), ("Answer: A", "A")]
        )
    ],
    id_column="id",
    prediction_column="response",
    format="jsonl",
    name="m_standard_cot",
    empty_prediction="scored",
)
FIXTURES["scienceqa"] = Fixture(
    _choice_rows(["A", "The answer is B.", "C", "D"], "ABDD", category=["c1", "c1", "c2", "c2"]),
    empty_prediction="scored",
)
