"""``answer``: vqametrics's own rules for pulling a short answer out of a chat reply.

Each rule is named; :func:`extract_answer` returns the text it kept and the rules that changed
it, in order. The rules, tried in this order:

==================  =========================================================================
rule                what it does
==================  =========================================================================
reasoning_block     drop ``<think>…</think>`` (also ``thinking``, ``reasoning``, ``analysis``,
                    ``reflection``; any case); with only a closing tag (the opening one was
                    in the prompt) keep what follows it; an unclosed block is dropped to the end
answer_tag          keep the content of the last ``<answer>…</answer>``
boxed               keep the content of the last ``\\boxed{…}``
markdown            drop emphasis (``**``, ``__``, ``*x*``, ``_x_``), code ticks, heading marks
                    and a list bullet
answer_marker       keep what follows the last answer marker on its line ("the answer is",
                    "answer:", "final answer:", "Answer -", any case)
first_line          keep the first non-empty line when an explanation follows
quotes              drop quotes around the whole answer
yes_no              a leading "Yes,"/"No." followed by more text becomes ``yes``/``no``
trailing_period     drop a sentence period at the end (``.`` or the ideographic ``。``)
==================  =========================================================================

Pure: no I/O, no state. Surrounding whitespace is always trimmed (not a rule).
"""

from __future__ import annotations

import re

from ._base import AnswerExtractor, Extraction, _Trace, register_answer_extractor

__all__ = ["ANSWER_RULES", "extract_answer"]

ANSWER_RULES = (
    "reasoning_block",
    "answer_tag",
    "boxed",
    "markdown",
    "answer_marker",
    "first_line",
    "quotes",
    "yes_no",
    "trailing_period",
)

_TAGS = "think|thinking|reasoning|analysis|reflection"
_BLOCK = re.compile(rf"<({_TAGS})\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_CLOSE = re.compile(rf"</(?:{_TAGS})\s*>", re.IGNORECASE)
_OPEN = re.compile(rf"<(?:{_TAGS})\b[^>]*>", re.IGNORECASE)
_ANSWER_TAG = re.compile(r"<answer\b[^>]*>(.*?)</answer\s*>", re.IGNORECASE | re.DOTALL)
_BOXED = re.compile(r"\\boxed\{((?:[^{}]|\{[^{}]*\})*)\}")
_MARKER = re.compile(
    r"(?:\b(?:(?:my|the)\s+)?(?:(?:final|correct|short)\s+)?answer\s*(?:is\s*:?|:|=|-\s)"
    r"|答案\s*(?:(?:是|为)\s*[：:]?|[：:]))\s*",
    re.IGNORECASE,
)
_EMPHASIS = re.compile(r"\*\*|__|`+")
_SINGLE_EMPHASIS = re.compile(r"(?<![\w*])[*_](?=\S)(.+?)(?<=\S)[*_](?![\w*])")
_HEADING = re.compile(r"^\s*#{1,6}\s+", re.MULTILINE)
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+(?=\S)")
_QUOTES = (('"', '"'), ("'", "'"), ("“", "”"), ("‘", "’"), ("「", "」"), ("«", "»"))
_YES_NO = re.compile(r"^(yes|no)\b\s*[,.!;:–—-]\s*\S", re.IGNORECASE)
# a Latin or an ideographic full stop (after "答案是C。" the answer is "C")
_PERIOD = re.compile(r"(?<=[^.。\s])[.。]$")
# a text none of the rules can change (checked first: most short answers are such)
_MAY_CHANGE = re.compile(
    r"""[<\\*_`#"'“”‘’「」«»\n.。]|answer|答案|^\s*(?:yes|no)\b|^\s*[-+•]\s|^\s*\d+\)""",
    re.IGNORECASE,
)


def _drop_reasoning(text: str) -> str:
    text = _BLOCK.sub(" ", text)
    closes = list(_CLOSE.finditer(text))
    if closes:  # the opening tag was part of the prompt: the answer follows the last close
        text = text[closes[-1].end() :]
    m = _OPEN.search(text)
    if m is not None:  # unclosed: the reasoning ran to the end, there is no answer after it
        text = text[: m.start()]
    return text.strip()


def _answer_tag(text: str) -> str:
    found = _ANSWER_TAG.findall(text)
    return found[-1].strip() if found else text


def _boxed(text: str) -> str:
    found = _BOXED.findall(text)
    return found[-1].strip() if found else text


def _markdown(text: str) -> str:
    text = _HEADING.sub("", text)
    text = _EMPHASIS.sub("", text)
    text = _SINGLE_EMPHASIS.sub(r"\1", text)
    lines = [_BULLET.sub("", line) for line in text.split("\n")]
    return "\n".join(lines).strip()


def _answer_marker(text: str) -> str:
    last = None
    for last in _MARKER.finditer(text):  # noqa: B007 - the last marker wins
        pass
    if last is None:
        return text
    rest = text[last.end() :].split("\n", 1)[0].strip()
    return rest or text


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    return lines[0] if len(lines) > 1 else text


def _quotes(text: str) -> str:
    for left, right in _QUOTES:
        if len(text) >= 2 and text.startswith(left) and text.endswith(right):
            inner = text[len(left) : -len(right)]
            if left not in inner and right not in inner:
                return inner.strip()
    return text


def _yes_no(text: str) -> str:
    m = _YES_NO.match(text)
    return m.group(1).lower() if m is not None else text


def _trailing_period(text: str) -> str:
    return _PERIOD.sub("", text)


def extract_answer(text: str) -> Extraction:
    """Extract the short answer from one chat reply with the ``answer`` rules.

    Parameters
    ----------
    text : str
        The model's raw output.

    Returns
    -------
    Extraction
        ``text``: the answer; ``rules``: the rules that changed it, in order.

    Examples
    --------
    >>> extract_answer("The answer is 2.")
    Extraction(text='2', rules=('answer_marker', 'trailing_period'))
    >>> extract_answer("<think>The sky looks blue.</think> blue").text
    'blue'
    >>> extract_answer("Yes, there is a dog in the picture.").text
    'yes'
    >>> extract_answer("red")
    Extraction(text='red', rules=())
    """
    if _MAY_CHANGE.search(text) is None:
        return Extraction(text.strip())
    t = _Trace(text.strip())
    if "<" in t.text:
        t.apply("reasoning_block", _drop_reasoning(t.text))
        t.apply("answer_tag", _answer_tag(t.text))
    if "\\boxed" in t.text:
        t.apply("boxed", _boxed(t.text))
    t.apply("markdown", _markdown(t.text))
    t.apply("answer_marker", _answer_marker(t.text))
    t.apply("first_line", _first_line(t.text))
    t.apply("quotes", _quotes(t.text))
    t.apply("yes_no", _yes_no(t.text))
    t.apply("trailing_period", _trailing_period(t.text))
    return t.result()


register_answer_extractor(
    AnswerExtractor(
        name="answer",
        description="vqametrics's rules: reasoning blocks, answer markers, markdown, quotes, "
        "a first line, a leading yes/no sentence, a trailing period",
        reproduces="vqametrics",
        rules=ANSWER_RULES,
        _fn=extract_answer,
    )
)
