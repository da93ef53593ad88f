"""The toolkits' own answer post-processing, reproduced as named extractors.

Each runs what the toolkit does to a raw generation before its VQA scorer sees it, and nothing
else (normalization belongs to the scoring profile). Rule names trace what changed the text.

================  =======================================================================
name              reproduces
================  =======================================================================
``lmms-eval``     ``strip_reasoning_tags`` with the CLI's default ``--reasoning_tags``
                  (``<think>``, ``<analysis>``), applied before every task's scorer by
                  default since v0.7 (d8fcb9c3, March 2026)
``vlmevalkit``    ``split_thinking`` of ``SPLIT_THINK=1`` runs (text after the last
                  ``</think>``); VLMEvalKit's VQA scorers take the prediction as is
``evalscope``     the first ``<think>`` block leaves the message content, then the VQAv2
                  adapter keeps what follows the last ``ANSWER:`` and strips quotes
================  =======================================================================
"""

from __future__ import annotations

import re

from ..core.toolkits import LMMS_EVAL as LMMS_EVAL_PIN
from ..core.toolkits import VLMEVALKIT as VLMEVALKIT_PIN
from ._base import AnswerExtractor, Extraction, _Trace, register_answer_extractor

__all__ = [
    "LMMS_EVAL_REASONING_TAGS",
    "extract_evalscope",
    "extract_lmms_eval",
    "extract_vlmevalkit",
]

LMMS_EVAL = LMMS_EVAL_PIN.at()
VLMEVALKIT = VLMEVALKIT_PIN.at()
EVALSCOPE = "modelscope/evalscope@fde259d2"

#: lmms-eval's default ``--reasoning_tags`` (``lmms_eval/__main__.py``).
LMMS_EVAL_REASONING_TAGS = (("<think>", "</think>"), ("<analysis>", "</analysis>"))


def extract_lmms_eval(text: str) -> Extraction:
    """lmms-eval's reasoning-tag stripping, as its evaluator applies it before scoring.

    Reproduces ``strip_reasoning_tags`` (EvolvingLMMs-Lab/lmms-eval@75571cfe:
    ``lmms_eval/api/reasoning.py``) with the default tag pairs of ``--reasoning_tags``
    (``lmms_eval/__main__.py``), applied in ``lmms_eval/evaluator.py`` to every filtered
    response. For each pair: remove ``open…close`` spans left to right; then, if a closing
    tag remains without an opening one, keep what follows the last closing tag; finally
    strip whitespace.

    QUIRK case-sensitive: ``<THINK>`` is not a tag. QUIRK unclosed-kept: an opening tag with
    no closing tag is left in the text. Both kept: that is what lmms-eval scores.
    """
    t = _Trace(text)
    for start_tag, end_tag in LMMS_EVAL_REASONING_TAGS:
        result = t.text
        while start_tag in result and end_tag in result:
            start = result.find(start_tag)
            end = result.find(end_tag, start)
            if start == -1 or end == -1:
                break
            result = result[:start] + result[end + len(end_tag) :]
        t.apply("reasoning_tags", result)
        if end_tag in t.text and start_tag not in t.text:
            t.apply("prefilled_close_tag", t.text.rsplit(end_tag, 1)[-1])
    t.apply("strip", t.text.strip())
    return t.result()


def extract_vlmevalkit(text: str) -> Extraction:
    """VLMEvalKit's ``split_thinking`` (the ``SPLIT_THINK`` switch of its inference loop).

    Reproduces open-compass/VLMEvalKit@e8e78f05: ``vlmeval/inference.py``: when the
    prediction contains ``</think>``, the prediction becomes the text after the last
    ``</think>``, stripped; otherwise it is kept unchanged (not even stripped). Its VQA
    scorers (``vlmeval/dataset/utils/vqa_eval.py``) then normalize the prediction as is.

    QUIRK opt-in: VLMEvalKit does this only when ``SPLIT_THINK`` is set in the environment;
    without it a ``<think>`` block reaches the scorer. QUIRK case-sensitive ``</think>``.
    """
    t = _Trace(text)
    if "</think>" in text:
        t.apply("split_think", text.split("</think>")[-1].strip())
    return t.result()


# evalscope/api/messages/utils.py: parse_content_with_reasoning
_ES_THINK = re.compile(
    r'<think(?:\s+signature="([^"]*)")?(?:\s+redacted="(true)")?\s*>(.*?)</think>', re.DOTALL
)
# evalscope/benchmarks/vqav2/vqav2_adapter.py: _ANSWER_PATTERN
_ES_ANSWER = re.compile(r"ANSWER:\s*(.*)", re.IGNORECASE)


def extract_evalscope(text: str) -> Extraction:
    """EvalScope's reasoning split and VQAv2 answer line.

    Reproduces modelscope/evalscope@fde259d2: ``evalscope/api/messages/utils.py``
    (``parse_content_with_reasoning``, applied when an assistant message is built: the FIRST
    ``<think …>…</think>`` block is cut out and, only then, the rest is stripped) and
    ``evalscope/benchmarks/vqav2/vqav2_adapter.py`` (``extract_answer``: the text after the
    LAST ``ANSWER:`` on its line, any case, stripped of whitespace then of ``"`` and ``'``;
    without a match the whole text, stripped the same way).

    QUIRK first-block-only: a second ``<think>`` block stays in the text. QUIRK
    dot-stops-at-newline: ``ANSWER:`` followed by a newline captures the empty string.
    """
    t = _Trace(text)
    # every match ends with "</think>": searching only up to the last one gives the same first
    # match, and an opening after it no longer rescans the rest of the text (linear, not n²)
    last = text.rfind("</think>")
    m = None if last == -1 else _ES_THINK.search(text, 0, last + len("</think>"))
    if m is not None:
        start, end = m.span()
        t.apply("think_block", (text[:start] + text[end:]).strip())
    found = _ES_ANSWER.findall(t.text)
    if found:
        t.apply("answer_line", found[-1].strip())
    else:
        t.apply("strip", t.text.strip())
    t.apply("strip_quotes", t.text.strip("\"'"))
    return t.result()


for _ext in (
    AnswerExtractor(
        name="lmms-eval",
        description="lmms-eval: drop <think>/<analysis> blocks (default --reasoning_tags)",
        reproduces=f"{LMMS_EVAL}:lmms_eval/api/reasoning.py",
        rules=("truncated", "reasoning_tags", "prefilled_close_tag", "strip"),
        _fn=extract_lmms_eval,
    ),
    AnswerExtractor(
        name="vlmevalkit",
        description="VLMEvalKit SPLIT_THINK: keep the text after the last </think>",
        reproduces=f"{VLMEVALKIT}:vlmeval/inference.py",
        rules=("truncated", "split_think"),
        _fn=extract_vlmevalkit,
    ),
    AnswerExtractor(
        name="evalscope",
        description="EvalScope: drop the first <think> block, keep the last 'ANSWER:' line",
        reproduces=f"{EVALSCOPE}:evalscope/benchmarks/vqav2/vqav2_adapter.py",
        rules=("truncated", "think_block", "answer_line", "strip", "strip_quotes"),
        _fn=extract_evalscope,
    ),
):
    register_answer_extractor(_ext)
