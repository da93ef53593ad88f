"""ScienceQA's answer rules as pure functions: the official one, LLaVA's two, lmms-eval's.

Sources (spec ``mcq-reasoning.md`` §8): ``lupantech/ScienceQA@2cbf831`` ``models/run_gpt3.py``
(``get_gpt3_result``, ``get_pred_idx``), ``haotian-liu/LLaVA`` ``llava/eval/eval_science_qa.py``
at c121f04 (main branch, file ce1aa08) and at 5200b75 (the later variant), and lmms-eval@75571cf
``tasks/scienceqa/utils.py`` ``sqa_process_results``.

Quirks kept:

* QUIRK answer-is-exactly-once: the official and LLaVA c121f04 rules accept ``The answer is
  X.`` only when the pattern occurs exactly once, and its last ``.`` is any character, so
  ``The answer is B`` (nothing after B) fails; the case of ``The`` matters.
* QUIRK failed-is-random (official): a failed or out-of-range answer is replaced by
  ``random.choice(range(len(choices)))`` from the generator seeded once with ``--seed`` (10),
  which has first drawn the few-shot examples (``random.sample`` of the train ids).
* QUIRK options-fixed-to-A-E (LLaVA): letters are looked up in ``["A", …, "E"]``; a failed or
  out-of-range answer scores −1, a miss, never random.
* QUIRK stop-at-newline (official): the API call stops at the first newline, so only the
  first line of a response is read (then stripped).
* QUIRK lmms-first-letter-dot: lmms-eval accepts the bare letter (any case) or an upper-case
  first character followed by ``.``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from typing import Final

from ...core.toolkits import LLAVA as LLAVA_PIN
from ...core.toolkits import LLAVA_5200B75 as LLAVA_5200B75_PIN
from ...core.toolkits import LMMS_EVAL as LMMS_EVAL_PIN
from ._registry import RANDOM, Lineage, register_lineage

__all__ = [
    "FAILED",
    "OFFICIAL_SEED",
    "OFFICIAL_SHOTS",
    "SCIENCEQA_TRAIN_SIZE",
    "llava_sqa",
    "llava_sqa_5200b75",
    "llava_sqa_parsed",
    "llava_sqa_parsed_5200b75",
    "lmms_eval_scienceqa_hit",
    "lmms_eval_scienceqa_img",
    "official_rng",
    "scienceqa_official",
    "scienceqa_official_parsed",
]

#: the answer string of a response no pattern reads (what the scripts store)
FAILED: Final = "FAILED"
#: ``run_gpt3.py --seed`` default
OFFICIAL_SEED: Final = 10
#: questions in ScienceQA's train split, from which ``run_gpt3.py`` samples its shots
SCIENCEQA_TRAIN_SIZE: Final = 12726
#: ``--shot_number`` default of ``run_gpt3.py``
OFFICIAL_SHOTS: Final = 3

_OPTIONS = ("A", "B", "C", "D", "E")
_ANSWER_IS = re.compile(r"The answer is ([A-Z]).")
_ANSWER_IS_DOT_AE = re.compile(r"The answer is ([A-E])\.")
_ANSWER_IS_AE = re.compile(r"The answer is ([A-E])")


def official_rng(
    seed: int = OFFICIAL_SEED,
    shots: int = OFFICIAL_SHOTS,
    train_size: int = SCIENCEQA_TRAIN_SIZE,
) -> random.Random:
    """The generator in the state ``run_gpt3.py`` leaves it before its first question:
    ``random.seed(seed)`` then ``random.sample(train_qids, shots)`` (its few-shot examples;
    ``shots=0`` draws nothing). Consumed in question order it gives the official fallbacks."""
    rng = random.Random(seed)
    rng.sample(range(train_size), shots)
    return rng


def scienceqa_official_parsed(response: str) -> str:
    """``get_gpt3_result``'s answer: the letter of ``The answer is X.`` when it occurs exactly
    once, else ``FAILED``. The API stopped at the first newline; a model output is cut there
    the same way and stripped."""
    output = response.split("\n", 1)[0].strip()
    found = _ANSWER_IS.findall(output)
    return found[0] if len(found) == 1 else FAILED


def scienceqa_official(
    response: str, choices: Mapping[str, str], rng: random.Random | None = None
) -> str:
    """The official ScienceQA letter: :func:`scienceqa_official_parsed`, kept when it is
    one of the first ``len(choices)`` of A–E, else ``rng.choice(range(len(choices)))``
    (:data:`RANDOM` without ``rng``).

    >>> scienceqa_official("The answer is B.", {"A": "x", "B": "y"})
    'B'
    >>> scienceqa_official("The answer is B", {"A": "x", "B": "y"})
    'random'
    """
    letters = list(choices)
    answer = scienceqa_official_parsed(response)
    if answer in _OPTIONS[: len(letters)]:
        return answer
    if rng is None:
        return RANDOM
    return letters[rng.choice(range(len(letters)))]


def llava_sqa_parsed(response: str) -> str:
    """LLaVA c121f04 ``parsed_ans``: the whole text if it is one of A–E; else its first
    character when the next two are ``". "``; else ``The answer is X.`` exactly once; else
    ``FAILED``."""
    if response in _OPTIONS:
        return response
    if len(response) >= 3 and response[0] in _OPTIONS and response[1:3] == ". ":
        return response[0]
    found = _ANSWER_IS.findall(response)
    return found[0] if len(found) == 1 else FAILED


def llava_sqa_parsed_5200b75(response: str) -> str:
    """LLaVA 5200b75 ``parsed_ans``: newlines become ``". "``; the stripped text if it is one
    of A–E; else the first character before ``". "``; else, if ``The answer is `` occurs, the
    first ``The answer is X.`` or else ``The answer is X`` (X in A–E); else ``FAILED``."""
    text = response.replace("\n", ". ")
    if text.strip() in _OPTIONS:
        return text.strip()
    if len(text) >= 3 and text[0] in _OPTIONS and text[1:3] == ". ":
        return text[0]
    if "The answer is " in text:
        m = _ANSWER_IS_DOT_AE.search(text) or _ANSWER_IS_AE.search(text)
        if m:
            return m.group(1)
    return FAILED


def _in_range(answer: str, choices: Mapping[str, str]) -> str | None:
    """LLaVA's ``get_pred_idx``: the letter when it is among the first ``len(choices)`` of
    A–E, else ``None`` (its −1: scored wrong)."""
    return answer if answer in _OPTIONS[: len(choices)] else None


def llava_sqa(response: str, choices: Mapping[str, str]) -> str | None:
    """The letter LLaVA c121f04's ``eval_science_qa.py`` scores, or ``None`` (−1, wrong)."""
    return _in_range(llava_sqa_parsed(response), choices)


def llava_sqa_5200b75(response: str, choices: Mapping[str, str]) -> str | None:
    """The letter LLaVA 5200b75's ``eval_science_qa.py`` scores, or ``None`` (−1, wrong)."""
    return _in_range(llava_sqa_parsed_5200b75(response), choices)


def lmms_eval_scienceqa_hit(response: str, target: str) -> bool:
    """lmms-eval ``sqa_process_results``: the stripped response equals the target letter
    ignoring case, or is at least 2 characters with an upper-case first character, ``.``
    second, and that character (lower-cased) equal to the target."""
    target = target.strip().lower()
    pred = response.strip()
    if pred.lower() == target:
        return True
    if len(pred) >= 2 and pred[0].isupper() and pred[1] == ".":
        return pred[0].lower() == target
    return False


def lmms_eval_scienceqa_img(response: str, choices: Mapping[str, str]) -> str | None:
    """The option letter lmms-eval's ScienceQA rule would score right, or ``None``."""
    return next((c for c in choices if lmms_eval_scienceqa_hit(response, c)), None)


register_lineage(
    Lineage(
        "scienceqa_official",
        "lupantech/ScienceQA@2cbf831 models/run_gpt3.py get_gpt3_result + get_pred_idx",
        "'The answer is X.' exactly once, in range; else random (seed 10, after the shots)",
        scienceqa_official,
        draws=True,
        seed=OFFICIAL_SEED,
    )
)
register_lineage(
    Lineage(
        "llava_eval_science_qa",
        LLAVA_PIN.at("llava/eval/eval_science_qa.py"),
        "bare A-E, 'X. ' first, or 'The answer is X.' exactly once; else -1 (wrong)",
        llava_sqa,
    )
)
register_lineage(
    Lineage(
        "llava_eval_science_qa_5200b75",
        LLAVA_5200B75_PIN.at("llava/eval/eval_science_qa.py"),
        "newlines -> '. '; bare A-E, 'X. ' first, 'The answer is X[.]'; else -1 (wrong)",
        llava_sqa_5200b75,
    )
)
register_lineage(
    Lineage(
        "lmms_eval_scienceqa_img",
        LMMS_EVAL_PIN.at("tasks/scienceqa/utils.py sqa_process_results"),
        "the letter (any case) or an upper-case 'X.' start equals the target",
        lmms_eval_scienceqa_img,
        kind="hit-test",
    )
)
