"""The prompts MathVista, HallusionBench and MM-Vet send their judge, built as each toolkit
builds them, and how each toolkit reads the reply.

Prompt text is data. Where its licence lets us bundle it, it is here with its source named
(HallusionBench's verdict prompt, BSD-3-Clause). Where it does not (MathVista's 5-shot
extraction demo is CC BY-SA 4.0; VLMEvalKit's MathVista examples are derived from it; MM-Vet's
evaluator carries no code licence), the user supplies it (``--judge-prompt FILE``): the toolkit's
own ``.py`` file, from which the named string literal is read (parsed, never run), or a text
file used as is. Only how the per-item text is put around it is code here.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.exceptions import InputError
from ..core.toolkits import VLMEVALKIT

__all__ = [
    "HALLUSIONBENCH_OFFICIAL",
    "HALLUSIONBENCH_PREAMBLE",
    "HALLUSIONBENCH_SAME_PREAMBLE",
    "MATHVISTA_OFFICIAL",
    "MATHVISTA_VLMEVALKIT",
    "MMVET_OFFICIAL",
    "MMVET_OFFICIAL_RETRY",
    "MMVET_VLMEVALKIT",
    "JudgePromptError",
    "PromptKind",
    "PromptText",
    "hallusionbench_official_prompt",
    "hallusionbench_same_prompt",
    "load_prompt_text",
    "mathvista_official_prompt",
    "mathvista_official_reply",
    "mathvista_official_rules",
    "mathvista_vlmevalkit_prompt",
    "mmvet_prompt",
    "prompt_label",
]


class JudgePromptError(InputError):
    """The judge prompt a profile needs is missing or unreadable (``--judge-prompt``)."""


@dataclass(frozen=True)
class PromptKind:
    """One toolkit's judge prompt: its id in the signature, and where its text comes from.

    ``variable`` is the string literal read from the toolkit's ``.py`` file; ``how`` says in a
    line which text the ``--judge-prompt`` file holds (for the error and the docs).
    """

    id: str
    variable: str | None
    how: str


MATHVISTA_OFFICIAL = PromptKind(
    "mathvista-official@53d5258",
    "demo_prompt",
    "MathVista's evaluation/prompts/ext_ans.py (its demo_prompt is read), or a text file with "
    "that demo prompt",
)
MATHVISTA_VLMEVALKIT = PromptKind(
    f"mathvista-vlmevalkit@{VLMEVALKIT.commit}",
    None,
    "a text file with what VLMEvalKit's build_mathvista_gpt4_prompt puts before the question: "
    "its task_description, then each get_gpt4_ICE() example followed by a newline",
)
MMVET_OFFICIAL = PromptKind(
    "mmvet-official@acde843",
    "prompt",
    "MM-Vet's mm-vet_evaluator.py (its prompt is read), or a text file with that few-shot prompt",
)
MMVET_VLMEVALKIT = PromptKind(
    f"mmvet-vlmevalkit@{VLMEVALKIT.commit}",
    None,
    "a text file with the few-shot prompt string of VLMEvalKit's build_mmvet_gpt4_prompt",
)
#: what the official evaluator appends to the prompt when it asks again about a reply it
#: could not read (``mm-vet_evaluator.py``; a format string, not prose)
MMVET_OFFICIAL_RETRY = "\nPredict the correctness of the answer (digit): "
HALLUSIONBENCH_OFFICIAL = PromptKind("hallusionbench-official@744007c", None, "bundled")

#: HallusionBench's verdict prompt, up to the question (tianyi-lab/HallusionBench@744007c
#: utils.py ``evaluate_by_chatgpt``; BSD-3-Clause, Copyright 2023 Fuxiao Liu: bundled as data
#: under that licence, its notice retained in docs/licenses/hallusionbench.txt)
HALLUSIONBENCH_PREAMBLE = (
    "Imagine you are an intelligent teacher. Thoroughly read the question, reference answer "
    "and the prediction answer to ensure a clear understanding of the information provided. "
    "Assess the correctness of the predictions. If the prediction answer does not conflict "
    "with the reference answer, please generate \u201ccorrect\u201d. If the prediction answer "
    "conflict with the reference answer, please generate \u201cincorrect\u201d. If the "
    'prediction answer is unclear about the answer, please generate "unclear". \n\n Question:'
)

#: its ``check_same_by_chatgpt`` prompt, up to the first response (same source and licence)
HALLUSIONBENCH_SAME_PREAMBLE = (
    "Imagine you are an intelligent teacher. Thoroughly read the two responses to two "
    "different questions. Assess the consistency of the information provided within those two "
    "responses. You do not know the specific questions, but you can asssess the consistency "
    "among the two responses by checking for logical conflicts if both responses are correct. "
    "If response1 does not conflict with response2, please generate \u201csame\u201d. "
    'Otherwise, generate "different". \n\n response1:'
)


@dataclass(frozen=True)
class PromptText:
    """A prompt text and where it came from; ``digest`` (8 hex of its SHA-256) goes into the
    signature so that two different texts never share one."""

    text: str
    source: str

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()[:8]


def prompt_label(model: str, kind: PromptKind, text: PromptText | None) -> str:
    """The signature's ``judge:`` value: ``MODEL/prompt:ID`` (``+sha:DIGEST`` for a
    user-supplied text)."""
    tail = f"+sha:{text.digest}" if text is not None else ""
    return f"{model}/prompt:{kind.id}{tail}"


def load_prompt_text(path: Any, kind: PromptKind, *, task: str, profile: str) -> PromptText:
    """The text of *kind* from the user's ``--judge-prompt`` file.

    Raises
    ------
    JudgePromptError
        No file given, or it is unreadable, or a ``.py`` file lacks the string literal.
    """
    if path is None:
        raise JudgePromptError(
            f"score {task} --profile {profile} with a judge needs the toolkit's judge prompt, "
            f"which vqametrics cannot bundle (its licence): pass --judge-prompt FILE, {kind.how}"
        )
    p = Path(path)
    try:
        raw = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise JudgePromptError(f"--judge-prompt {p}: not readable ({exc})") from None
    if p.suffix != ".py":
        return PromptText(raw, str(p))
    if kind.variable is None:
        raise JudgePromptError(f"--judge-prompt {p}: give a text file, {kind.how}")
    return PromptText(_string_literal(raw, kind.variable, p), f"{p}:{kind.variable}")


def _string_literal(source: str, name: str, path: Path) -> str:
    """The module-level ``name = "..."`` string of a Python file, parsed (never executed)."""
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as exc:
        raise JudgePromptError(f"--judge-prompt {path}: not Python ({exc.msg})") from None
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            if name in names and isinstance(node.value.value, str):
                return node.value.value
    raise JudgePromptError(f"--judge-prompt {path}: no module-level string {name!r}")


# -- MathVista ----------------------------------------------------------------------------


def mathvista_official_rules(
    response: str, question_type: Any, answer_type: Any, choices: Sequence[str] | None
) -> str | None:
    """``extract_answer``'s steps before the GPT call (MathVista@53d5258): an empty response is
    ``""``, a choice text is kept, an ``int()`` / ``float()`` parse is kept as its ``str``;
    ``None`` when the judge must be asked. ``--quick_extract`` (off by default) is not done."""
    if response == "":
        return ""
    if question_type == "multi_choice" and choices is not None and response in choices:
        return response
    if answer_type == "integer":
        try:
            return str(int(response))
        except ValueError:
            pass
    if answer_type == "float":
        try:
            return str(float(response))
        except ValueError:
            pass
    return None


def mathvista_official_prompt(demo: str, query: str, response: str) -> str:
    """``create_test_prompt``: the stripped demo, a blank line, the query, a blank line, the
    response, a blank line, then ``Extracted answer: `` (with its trailing space)."""
    return f"{demo.strip()}\n\n{query}\n\n{response}\n\nExtracted answer: "


def mathvista_official_reply(reply: str | None) -> str | None:
    """The extraction from a reply: stripped, as MathVista's GPT wrapper returns it; an empty
    reply decides nothing (the official code would ask again)."""
    if reply is None or not reply.strip():
        return None
    return reply.strip()


def mathvista_vlmevalkit_prompt(preamble: str, question: str, prediction: str) -> str:
    """``build_mathvista_gpt4_prompt`` (VLMEvalKit at its pin): the preamble, the question and a
    newline, ``Model respone: `` (its spelling) and the prediction, then ``Extracted answer:``
    with no separator (QUIRK no-newline-before-extracted: kept, it is what the judge saw)."""
    return preamble + question + "\n" + "Model respone: " + prediction + "Extracted answer:"


# -- HallusionBench -----------------------------------------------------------------------


def hallusionbench_official_prompt(question: str, reference: str, prediction: str) -> str:
    """``evaluate_by_chatgpt``'s prompt: the preamble, the question, the reference answer
    (``gt_answer_details``) and the prediction, ending in ``\\nOutput:``."""
    return (
        HALLUSIONBENCH_PREAMBLE
        + question
        + "\nReference answer: "
        + reference
        + "\nPrediction answer:"
        + prediction
        + "\nOutput:"
    )


def hallusionbench_same_prompt(response: str, original: str) -> str:
    """``check_same_by_chatgpt``'s prompt: this answer as ``response1``, the answer to the same
    question on the original figure (``figure_id`` 0) as ``response2``, ending in ``\nOutput:``."""
    return HALLUSIONBENCH_SAME_PREAMBLE + response + "\nresponse2: " + original + "\nOutput:"


# -- MM-Vet -------------------------------------------------------------------------------


def mmvet_prompt(fewshot: str, question: str, answer: str, prediction: str) -> str:
    """The grading prompt of ``mm-vet_evaluator.py`` and of VLMEvalKit's
    ``build_mmvet_gpt4_prompt`` (built alike, each with its own few-shot text): the few-shot
    table, a newline, then ``question | answer | prediction | `` with ``<AND>`` / ``<OR>``
    spaced out in the answer."""
    gt = answer.replace("<AND>", " <AND> ").replace("<OR>", " <OR> ")
    return fewshot + "\n" + " | ".join([question, gt, prediction, ""])
