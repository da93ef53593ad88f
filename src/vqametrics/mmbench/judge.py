"""The LLM-judge fallback of MMBench extraction (spec mmbench.md §3.1, §3.3).

A judge is any callable ``judge(prompt: str) -> str``; no network client is involved. The retry
rules are the reference's: at most 3 calls; a reply containing the API failure marker or one that
the same heuristic extractor cannot parse costs a try. After 3 failed tries the reference draws a
random letter; we only do so when the caller passes a seeded :class:`random.Random`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..kernels.choice.heuristics import API_FAILURE, DEFAULT_EXTRACTOR, get_extractor

__all__ = [
    "JUDGE_TRIES",
    "Judge",
    "Resolution",
    "build_judge_prompt",
    "fallback_letters",
    "resolve_choice",
]

Judge = Callable[[str], str]

#: How many times the reference calls the judge for one row.
JUDGE_TRIES = 3

_EN_TEMPLATE = """\
You are grading the answer to a multiple-choice question. Below are a question, its options \
and an answer someone wrote. Decide which option the answer means. If the answer means none of \
the options, choose {none}. Reply with one letter only, one of: {letters}.

Example 1
Question: What colour is the sky on a clear day?
Options:
A. green
B. blue
C. red
Answer: It is blue.
Reply: B

Example 2
Question: Which animal is in the picture?
Options:
A. a horse
B. a cow
C. a sheep
Answer: I can see a bicycle.
Reply: {none}

Now the real one
Question: {question}
Options:
{options}
Answer: {prediction}
Reply:"""

_ZH_TEMPLATE = """\
你在批改一道选择题的答案。下面给出问题、选项和某人写的答案。请判断这个答案指的是哪个选项；\
如果它与所有选项的意思都不同，请选 {none}。只回复一个字母，取值为：{letters}。

示例 1
问题：晴天时天空是什么颜色？
选项：
A. 绿色
B. 蓝色
C. 红色
答案：是蓝色的。
输出：B

示例 2
问题：图中是什么动物？
选项：
A. 马
B. 牛
C. 羊
答案：我看到一辆自行车。
输出：{none}

现在请批改
问题：{question}
选项：
{options}
答案：{prediction}
输出："""


def _has_cjk(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def build_judge_prompt(
    question: str, choices: Mapping[str, str], prediction: str, none_letter: str = "Z"
) -> str:
    """The single user message sent to the judge.

    Our own wording with the reference's structure: an instruction, two worked examples (one
    mapped to a letter, one to *none_letter*), then the item's question, its options as
    ``X. text`` lines and the model's answer; the reply is one letter. A question containing
    a CJK character (U+4E00-U+9FFF) gets the Chinese template, as in the reference.

    Parameters
    ----------
    question : str
        The item's question (the hint is not included, as in the reference).
    choices : Mapping[str, str]
        Option letter -> option text.
    prediction : str
        The model's raw answer.
    none_letter : str, default="Z"
        The "no option matches" letter (``E`` for the 2023 template used by ``lmms-eval``).

    Returns
    -------
    str
        The prompt.
    """
    letters = ", ".join([*choices, none_letter])
    options = "\n".join(f"{k}. {v}" for k, v in choices.items())
    template = _ZH_TEMPLATE if _has_cjk(question) else _EN_TEMPLATE
    return template.format(
        none=none_letter,
        letters=letters,
        question=question,
        options=options,
        prediction=prediction,
    )


@dataclass(frozen=True)
class Resolution:
    """How one row's prediction was resolved to a letter.

    Attributes
    ----------
    letter:
        The letter, ``"Z"``, or ``None`` when nothing decided (counted as unparsed and scored
        as a miss, exactly like the reference's ``Z``).
    stage:
        A heuristic stage (see :data:`~vqametrics.mmbench.extract.STAGES`), ``"judge"``,
        ``"random_fallback"``, ``"judge_failed"`` (3 failed tries, no random fallback) or
        ``"none"`` (heuristics failed and there is no judge).
    judge_calls:
        How many times the judge was called for this row.
    judge_reply:
        The judge's last reply, if any.
    """

    letter: str | None
    stage: str
    judge_calls: int = 0
    judge_reply: str | None = None


def fallback_letters(choices: Mapping[str, str], extractor: str, n_columns: int) -> list[str]:
    """The letters the reference draws from after 3 failed judge tries.

    VLMEvalKit: the item's letters plus ``Z``. ``lmms-eval`` (gen1): the first *n_columns*
    letters plus ``E``, where *n_columns* counts the option columns A-D that exist in the
    file, not the non-empty options.
    """
    if extractor == "lmms-eval":
        # QUIRK gen1-random-support: counts existing columns, so a 2-option item of a file
        # with columns A-D draws from A-E (spec §3.1 step 4).
        return [*"ABCD"[:n_columns], "E"]
    return [*choices, "Z"]


def resolve_choice(
    prediction: str,
    choices: Mapping[str, str],
    *,
    question: str = "",
    extractor: str = DEFAULT_EXTRACTOR,
    judge: Judge | None = None,
    rng: random.Random | None = None,
    n_columns: int | None = None,
) -> Resolution:
    """Resolve one row: heuristics, then the judge (3 tries), then optionally a random letter.

    The reference's ``extract_answer_from_item`` (spec §3.1). A heuristic result is final. Else,
    with a judge, the prompt of :func:`build_judge_prompt` is sent up to 3 times; a reply that
    contains ``Failed to obtain answer via API`` or that the same extractor cannot parse costs
    a try. After 3 failed tries the reference draws uniformly from the options plus ``Z``; we do
    that only when *rng* is given (``rng.choice`` over :func:`fallback_letters`), otherwise the
    row stays unparsed.

    Parameters
    ----------
    prediction : str
        The model's raw answer.
    choices : Mapping[str, str]
        Option letter -> option text.
    question : str, default=""
        The question, for the judge prompt.
    extractor : str, default="vlmevalkit"
        Extractor name; the judge's reply is parsed with the same one.
    judge : callable, optional
        ``judge(prompt) -> reply``. Exceptions it raises propagate; to count a failed call as
        a try, return the string ``"Failed to obtain answer via API"``.
    rng : random.Random, optional
        Enables the random fallback. Without a judge, a heuristic failure goes straight to it
        (the reference when its judge API is down: 3 failed calls, then a random letter).
    n_columns : int, optional
        Option columns A-D in the file (only ``lmms-eval`` uses it); default ``len(choices)``.

    Returns
    -------
    Resolution
        ``letter`` is ``None`` when nothing decided; the reference writes ``Z`` there, which
        scores the same (a miss).
    """
    ext = get_extractor(extractor)
    first = ext(prediction, choices)
    if first.letter is not None:
        return Resolution(first.letter, first.stage)
    calls = 0
    reply: str | None = None
    if judge is not None:
        prompt = build_judge_prompt(question, choices, prediction, ext.none_letter)
        for _ in range(JUDGE_TRIES):
            reply = str(judge(prompt))
            calls += 1
            if API_FAILURE in reply:
                continue
            parsed = ext(reply, choices)
            if parsed.letter is not None:
                return Resolution(parsed.letter, "judge", calls, reply)
    if rng is not None:
        letters = fallback_letters(
            choices, ext.name, len(choices) if n_columns is None else n_columns
        )
        return Resolution(rng.choice(letters), "random_fallback", calls, reply)
    return Resolution(None, "judge_failed" if judge is not None else "none", calls, reply)
