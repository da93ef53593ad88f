"""Generate ``docs/why-mathvista-numbers-disagree.md`` from the library.

The profile table is read from the registered ``mathvista`` and ``mathvision`` tasks, and every
cell of the worked examples is computed by :func:`vqametrics.tasks.score_answer` and the
kernels in :mod:`vqametrics.kernels.mathvista` / :mod:`vqametrics.kernels.mathvision`. Nothing is
typed by hand, so the page cannot drift from the code: ``tests/tasks/test_mathvista.py`` fails
when the committed page differs from what this script renders.

Usage: ``python docs/gen_why_mathvista_numbers_disagree.py`` (rewrites the page beside it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUTPUT = HERE / "why-mathvista-numbers-disagree.md"

FRACTIONS = ["3/11", "8/11", "6/11", "3/5"]

#: (what it shows, extraction, question_type, answer_type, choices, precision, gold)
MATHVISTA_EXAMPLES: list[tuple[str, str, str, str, list[str] | None, Any, str]] = [
    ("a bare letter", "B", "multi_choice", "text", FRACTIONS, None, "8/11"),
    ("a letter in parentheses", "(B)", "multi_choice", "text", FRACTIONS, None, "8/11"),
    ("a letter with a dot", "B.", "multi_choice", "text", FRACTIONS, None, "8/11"),
    ("a lower-case letter", "b", "multi_choice", "text", FRACTIONS, None, "8/11"),
    ("a sentence", "The answer is B", "multi_choice", "text", FRACTIONS, None, "8/11"),
    ("a near-miss option text", "8/12", "multi_choice", "text", FRACTIONS, None, "8/11"),
    ("an empty extraction", "", "multi_choice", "text", FRACTIONS, None, "3/5"),
    ("an integer", "14", "free_form", "integer", None, None, "14"),
    ("an integer written as a float", "14.0", "free_form", "integer", None, None, "14"),
    ("a float for an integer", "2.7", "free_form", "integer", None, None, "2"),
    ("thousands separator", "1,000", "free_form", "integer", None, None, "1000"),
    ("float, dataset precision 2.0", "1.453", "free_form", "float", None, 2.0, "1.45"),
    ("float, precision given as int 2", "1.453", "free_form", "float", None, 2, "1.45"),
    ("binary rounding", "2.675", "free_form", "float", None, 2.0, "2.67"),
    ("trailing zero in the gold", "1.4", "free_form", "float", None, 2.0, "1.40"),
    ("a list", "[2007, 2008]", "free_form", "list", None, None, "[2007, 2008]"),
    ("a list without spaces", "[2007,2008]", "free_form", "list", None, None, "[2007, 2008]"),
    ("free-form text", "east", "free_form", "text", None, None, "east"),
]

#: (what it shows, model response, gold, options)
MATHVISION_EXAMPLES: list[tuple[str, str, str, list[str]]] = [
    ("three decimals", "The answer is 3.14159", "3.14", []),
    ("rounds up at 2 dp", "The answer is 3.146", "3.14", []),
    ("pi", "\\boxed{2\\pi}", "6.28", []),
    ("a root", "\\boxed{3.46}", "2\\sqrt{3}", []),
    ("a fraction", "\\boxed{\\frac{1}{2}}", "0.5", []),
    ("thousands separator", "The answer is 1,000", "1000", []),
    ("a unit", "The answer is 12 cm", "12", []),
    ("degrees", "The angle is 60^\\circ", "60", []),
    ("the option's value", "The answer is 5", "C", ["3", "4", "5", "6", "7"]),
    ("a bare letter (its res is then `c`)", "C", "C", ["3", "4", "5", "6", "7"]),
]


def _code(text: str) -> str:
    if text == "":
        return "(empty)"
    shown = text.replace("|", "\\|")
    return f"``{shown}``" if "`" in shown else f"`{shown}`"


def _mathvista_cells(ex: tuple[str, str, str, str, list[str] | None, Any, str]) -> list[str]:
    from vqametrics.kernels.mathvista import (
        MathVistaCrash,
        normalize_lmms_eval,
        normalize_official,
    )
    from vqametrics.tasks import score_answer

    _, extraction, qtype, atype, choices, precision, gold = ex
    ctx = {"question_type": qtype, "answer_type": atype, "choices": choices, "precision": precision}
    cells = []
    for profile in ("official", "official-2024", "lmms-eval", "vlmevalkit"):
        try:
            verdict = score_answer("mathvista", extraction, [gold], profile=profile, **ctx)
        except MathVistaCrash:
            cells.append("raises (UnboundLocalError)")
            continue
        mark = "right" if verdict == 1.0 else "wrong"
        if profile == "vlmevalkit":
            cells.append(mark)
            continue
        if profile == "lmms-eval":
            pred = normalize_lmms_eval(extraction, choices, qtype, atype, precision)
        else:
            pred = normalize_official(
                extraction,
                choices,
                qtype,
                atype,
                precision,
                round_precision_as_given=profile == "official-2024",
            )
        shown = "None" if pred is None else _code(str(pred))
        cells.append(f"{shown} → {mark}")
    return cells


def render() -> str:
    """The whole page, as Markdown."""
    from vqametrics.kernels.mathvision import official_correct
    from vqametrics.tasks import get_task, score_answer

    out: list[str] = []
    w = out.append
    w("# Why MathVista numbers disagree")
    w("")
    w(
        "<!-- GENERATED by docs/gen_why_mathvista_numbers_disagree.py from the vqametrics "
        "library; do not edit by hand. -->"
    )
    w("")
    w(
        "MathVista has one judge step: a GPT call *extracts* the answer from the model's "
        "response. Everything after it (normalising the extraction to the problem's answer type "
        "and comparing it with the gold) is deterministic, and every toolkit does it "
        "differently. Given the recorded extraction (the official `output_<model>.json`, "
        "VLMEvalKit's `res` column, lmms-eval's `llm_as_judge_eval` record), vqametrics "
        "reproduces each toolkit's verdict bit for bit as a named profile, and a replayed "
        "extraction says `judge:recorded` in the signature. The judge model itself can move the "
        "headline by several points; a recorded extraction takes that out of the comparison."
    )
    w("")
    w("## The profiles")
    w("")
    w("| profile | reproduces | summary |")
    w("|---|---|---|")
    task = get_task("mathvista")
    for p in task.profiles:
        w(f"| `{p.name}` | {p.reproduces} | {p.description} |")
    w("")
    w("## The same extraction under each profile")
    w("")
    w(
        "Each row is one problem: the extraction, its answer type and the gold. A cell shows "
        "the normalised prediction and the verdict (VLMEvalKit's `post_check` returns only the "
        f"verdict). The choices of the multiple-choice rows are {', '.join(map(_code, FRACTIONS))}."
        " `2.0` is the precision as the Hugging Face dataset stores it (a float)."
    )
    w("")
    w("| example | extraction | type | gold | official | official-2024 | lmms-eval | vlmevalkit |")
    w("|---|---|---|---|---|---|---|---|")
    for ex in MATHVISTA_EXAMPLES:
        what, extraction, qtype, atype, _, precision, gold = ex
        kind = "choice" if qtype == "multi_choice" else atype
        if precision is not None:
            kind += f" (precision {precision!r})"
        cells = _mathvista_cells(ex)
        w(f"| {what} | {_code(extraction)} | {kind} | {_code(gold)} | " + " | ".join(cells) + " |")
    w("")
    w("What the rows show:")
    w("")
    w(
        "- **Letters.** The official rule takes a letter only when the extraction is exactly a "
        "letter in range or contains `(x)`; anything else goes to the nearest choice by "
        "Levenshtein distance, so `B.`, `b` and a sentence land on some choice, and an empty "
        "extraction on the shortest one. VLMEvalKit's `can_infer` reads `B.` and the sentence as "
        "B but has no fallback, so a near-miss text is wrong there."
    )
    w(
        "- **Integers.** The official rule is `str(int(float(x)))`, which truncates (`2.7` is "
        "2). VLMEvalKit needs `int(x)` to succeed, so `14.0` is wrong."
    )
    w(
        "- **Floats.** The official rule rounds to the problem's precision. Before its 2024-11 "
        "fix it called `round(x, precision)` with the dataset's float precision, which raises, "
        "so every float problem was wrong; lmms-eval still does. VLMEvalKit compares the floats "
        "exactly, without rounding."
    )
    w(
        "- **Lists and text.** Lists are compared as strings (spacing matters); VLMEvalKit scores "
        "every list and text answer wrong. A free-form text problem makes the official scorer "
        "raise `UnboundLocalError`: vqametrics stops with an error naming the problem (never a "
        "number) and says that `--profile lmms-eval` scores it."
    )
    w("")
    w("## MathVision: 2 decimals or 1e-6")
    w("")
    w(
        "MathVision's official scorer extracts the answer by rules (no judge) and compares "
        "values rounded to 2 decimals; VLMEvalKit compares its judge's `res` within `1e-6`. The "
        "VLMEvalKit column below is fed the official extraction as its `res`, to show the "
        "comparison alone."
    )
    w("")
    w("| example | response | gold | official extraction | official | vlmevalkit |")
    w("|---|---|---|---|---|---|")
    for what, response, gold, options in MATHVISION_EXAMPLES:
        extracted, correct = official_correct(response, gold, options)
        vk = score_answer("mathvision", extracted, [gold], profile="vlmevalkit", options=options)
        w(
            f"| {what} | {_code(response)} | {_code(gold)} | {_code(extracted)} | "
            f"{'right' if correct else 'wrong'} | {'right' if vk == 1.0 else 'wrong'} |"
        )
    w("")
    w(
        "See [tasks/mathvista.md](tasks/mathvista.md) and [tasks/mathvision.md]"
        "(tasks/mathvision.md) for the files each task reads and the numbers reproduced."
    )
    return "\n".join(out) + "\n"


def main() -> None:
    OUTPUT.write_text(render(), encoding="utf-8")


if __name__ == "__main__":
    main()
