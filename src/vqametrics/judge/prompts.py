"""The prompts MathVista, MathVision, HallusionBench and MM-Vet send their judge, built as each
toolkit builds them, and how each toolkit reads the reply.

Prompt text is data. Where its licence lets us bundle it, it is here with its source named
(HallusionBench's verdict prompt, BSD-3-Clause). Where it does not (MathVista's 5-shot
extraction demo is CC BY-SA 4.0; VLMEvalKit's MathVista examples are derived from it; MM-Vet's
evaluator carries no code licence; VLMEvalKit's MathVision examples and lmms-eval's MathVista
demo and MM-Vet few-shot table are copies of those, under their licences), the user supplies it
(``--judge-prompt FILE``): the toolkit's own ``.py`` file, from which the named string literal
is read (parsed, never run), or a text file used as is. Only how the per-item text is put
around it is code here.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.exceptions import InputError
from ..core.toolkits import LMMS_EVAL, VLMEVALKIT

__all__ = [
    "HALLUSIONBENCH_OFFICIAL",
    "HALLUSIONBENCH_PREAMBLE",
    "HALLUSIONBENCH_SAME_PREAMBLE",
    "MATHVISION_VLMEVALKIT",
    "MATHVISTA_LMMS_EVAL",
    "MATHVISTA_OFFICIAL",
    "MATHVISTA_VLMEVALKIT",
    "MMVET_LMMS_EVAL",
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
    "mmvet_lmms_eval_prompt",
    "mmvet_prompt",
    "prompt_label",
]


class JudgePromptError(InputError):
    """The judge prompt a profile needs is missing or unreadable (``--judge-prompt``)."""


@dataclass(frozen=True)
class PromptKind:
    """One toolkit's judge prompt: its id in the signature, and where its text comes from.

    ``variable`` is the string literal read from the toolkit's ``.py`` file; ``builder`` (for
    VLMEvalKit's extraction prompts) the function whose ``task_description`` and whose
    ``get_gpt4_ICE()`` examples make the text instead; ``how`` says in a line which text the
    ``--judge-prompt`` file holds (for the error and the docs).
    """

    id: str
    variable: str | None
    how: str
    builder: str | None = None


MATHVISTA_OFFICIAL = PromptKind(
    "mathvista-official@53d5258",
    "demo_prompt",
    "MathVista's evaluation/prompts/ext_ans.py (its demo_prompt is read), or a text file with "
    "that demo prompt",
)
MATHVISTA_VLMEVALKIT = PromptKind(
    f"mathvista-vlmevalkit@{VLMEVALKIT.commit}",
    None,
    "VLMEvalKit's vlmeval/dataset/utils/mathvista.py (its task_description and get_gpt4_ICE() "
    "examples are read), or a text file with what build_mathvista_gpt4_prompt puts before the "
    "question: its task_description, then each get_gpt4_ICE() example followed by a newline",
    builder="build_mathvista_gpt4_prompt",
)
MATHVISTA_LMMS_EVAL = PromptKind(
    f"mathvista-lmms-eval@{LMMS_EVAL.commit}",
    "DEMO_PROMPT",
    "lmms-eval's lmms_eval/tasks/mathvista/mathvista_evals.py (its DEMO_PROMPT is read), or a "
    "text file with that demo prompt",
)
MATHVISION_VLMEVALKIT = PromptKind(
    f"mathvision-vlmevalkit@{VLMEVALKIT.commit}",
    None,
    "VLMEvalKit's vlmeval/dataset/utils/mathv.py (its task_description and get_gpt4_ICE() "
    "examples are read), or a text file with what build_mathv_gpt4_prompt puts before the "
    "question: its task_description, then each get_gpt4_ICE() example followed by a newline",
    builder="build_mathv_gpt4_prompt",
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
MMVET_LMMS_EVAL = PromptKind(
    f"mmvet-lmms-eval@{LMMS_EVAL.commit}",
    "MM_VET_PROMPT",
    "lmms-eval's lmms_eval/tasks/mmvet/utils.py (its MM_VET_PROMPT is read), or a text file "
    "with that few-shot prompt",
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
        import hashlib  # OpenSSL loads only for a user's prompt file

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
    if kind.builder is not None:
        return PromptText(_ice_preamble(raw, kind.builder, p), f"{p}:{kind.builder}")
    if kind.variable is None:
        raise JudgePromptError(f"--judge-prompt {p}: give a text file, {kind.how}")
    return PromptText(_string_literal(raw, kind.variable, p), f"{p}:{kind.variable}")


def _string_literal(source: str, name: str, path: Path) -> str:
    """The module-level ``name = "..."`` string of a Python file, parsed (never executed)."""
    tree = _parse(source, path)
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            if name in names and isinstance(node.value.value, str):
                return node.value.value
    raise JudgePromptError(f"--judge-prompt {path}: no module-level string {name!r}")


def _parse(source: str, path: Path) -> ast.Module:
    try:
        return ast.parse(source, filename=str(path))
    except SyntaxError as exc:
        raise JudgePromptError(f"--judge-prompt {path}: not Python ({exc.msg})") from None


def _function(tree: ast.Module, name: str, path: Path) -> ast.FunctionDef:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise JudgePromptError(f"--judge-prompt {path}: no function {name!r}")


def _local_strings(func: ast.FunctionDef) -> dict[str, str]:
    """The ``name = "..."`` string assignments directly in *func*'s body."""
    out: dict[str, str] = {}
    for node in func.body:
        if not isinstance(node, ast.Assign):
            continue
        value = node.value
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            out.update((t.id, value.value) for t in node.targets if isinstance(t, ast.Name))
    return out


def _ice_preamble(source: str, builder: str, path: Path) -> str:
    """What VLMEvalKit's ``builder`` puts before the question, read from its ``.py`` file
    (parsed, never run): ``task_description``, then each example ``get_gpt4_ICE()`` returns, in
    its list's order, followed by a newline."""
    tree = _parse(source, path)
    description = _local_strings(_function(tree, builder, path)).get("task_description")
    ice = _function(tree, "get_gpt4_ICE", path)
    examples = _local_strings(ice)
    returned = [n for n in ice.body if isinstance(n, ast.Return)]
    names = (
        [e.id for e in returned[0].value.elts if isinstance(e, ast.Name)]
        if returned and isinstance(returned[0].value, ast.List)
        else []
    )
    if description is None or not names or any(n not in examples for n in names):
        raise JudgePromptError(
            f"--judge-prompt {path}: {builder}'s task_description or get_gpt4_ICE()'s examples "
            "are not plain string literals"
        )
    return description + "".join(examples[n] + "\n" for n in names)


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
    """``build_mathvista_gpt4_prompt`` (VLMEvalKit at its pin; its MathVision
    ``build_mathv_gpt4_prompt`` is built alike, with its own examples): the preamble, the
    question and a newline, ``Model respone: `` (its spelling) and the prediction, then
    ``Extracted answer:`` with no separator (QUIRK no-newline-before-extracted: kept, it is
    what the judge saw)."""
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


def mmvet_lmms_eval_prompt(fewshot: str, question: str, answer: str, prediction: str) -> str:
    """lmms-eval's ``mmvet_process_results`` prompt: as :func:`mmvet_prompt` but ending in
    ``prediction |`` (QUIRK no-trailing-space: the official table row ends ``| ``; kept, it is
    what lmms-eval's judge saw)."""
    gt = answer.replace("<AND>", " <AND> ").replace("<OR>", " <OR> ")
    return f"{fewshot}\n{question} | {gt} | {prediction} |"
