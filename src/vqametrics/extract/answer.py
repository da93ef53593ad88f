"""``answer``: vqametrics's own rules for pulling a short answer out of a chat reply.

Each rule is named; :func:`extract_answer` returns the text it kept and the rules that changed
it, in order. The rules, tried in this order:

==================  =========================================================================
rule                what it does
==================  =========================================================================
truncated           a text longer than ``MAX_SCAN_CHARS`` (131,072) is cut to its tail, where
                    the answer follows the reasoning (every extractor does this)
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

Linear time: every rule scans the text a bounded number of times. The rules are written as
regular expressions whose plain ``re.sub``/``findall`` would rescan the rest of the text from
each unmatched opening (``<think>`` repeated with no ``</think>``, ``*a *a *a …``, thousands of
blank lines), which took seconds on a 56 KB rollout; the functions below give the same result
as those expressions (tested against them) while trying each match only where it can succeed.
A text longer than :data:`~vqametrics.extract.MAX_SCAN_CHARS` is cut to its tail first
(rule ``truncated``).
"""

from __future__ import annotations

import re
from bisect import bisect_left

from ._base import AnswerExtractor, Extraction, _Trace, bounded, register_answer_extractor

__all__ = ["ANSWER_RULES", "extract_answer"]

ANSWER_RULES = (
    "truncated",
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
#: A reasoning block: an opening tag, the text up to the first closing tag of the same name.
_BLOCK = re.compile(rf"<({_TAGS})\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_CLOSE = re.compile(rf"</(?:{_TAGS})\s*>", re.IGNORECASE)
_OPEN = re.compile(rf"<(?:{_TAGS})\b[^>]*>", re.IGNORECASE)
_OPEN_NAME = re.compile(rf"<({_TAGS})\b", re.IGNORECASE)
_CLOSE_NAME = re.compile(rf"</({_TAGS})\s*>", re.IGNORECASE)
_ANSWER_TAG = re.compile(r"<answer\b[^>]*>(.*?)</answer\s*>", re.IGNORECASE | re.DOTALL)
_ANSWER_OPEN = re.compile(r"<answer\b", re.IGNORECASE)
_ANSWER_CLOSE = re.compile(r"</answer\s*>", re.IGNORECASE)
_BOXED = re.compile(r"\\boxed\{((?:[^{}]|\{[^{}]*\})*)\}")
_MARKER = re.compile(
    r"(?:\b(?:(?:my|the)\s+)?(?:(?:final|correct|short)\s+)?answer\s*(?:is\s*:?|:|=|-\s)"
    r"|答案\s*(?:(?:是|为)\s*[：:]?|[：:]))\s*",
    re.IGNORECASE,
)
_EMPHASIS = re.compile(r"\*\*|__|`+")
_SINGLE_EMPHASIS = re.compile(r"(?<![\w*])[*_](?=\S)(.+?)(?<=\S)[*_](?![\w*])")
_HEADING = re.compile(r"^\s*#{1,6}\s+", re.MULTILINE)  # as applied by _drop_headings
_SPACES = re.compile(r"\s*")
_OPENER = re.compile(r"(?<![\w*])[*_](?=\S)")  # where _SINGLE_EMPHASIS can start
_CLOSER = re.compile(r"(?<=\S)[*_](?![\w*])")  # where it can end
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


def _tag_key(name: str) -> str:
    """The name as the regex engine's case-insensitive backreference compares it (a simple
    per-character lower case: ``İ`` is ``i``, but ``ı`` and ``ſ`` stay themselves)."""
    return name.lower().replace("i\u0307", "i")


class _NextGt:
    """The position of the first ``>`` at or after a position that only moves forward (one
    scan of the text in all), or -1."""

    __slots__ = ("at", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = -2

    def after(self, pos: int) -> int:
        if self.at == -1 or self.at >= pos:
            return self.at
        self.at = self.text.find(">", pos)
        return self.at


def _spliced(text: str, kept: list[str], last: int) -> str:
    """*text* after a one-pass ``sub``: the pieces *kept* before position *last*, then the rest
    of *text*; *text* itself when nothing was cut."""
    if not kept:
        return text
    kept.append(text[last:])
    return "".join(kept)


def _drop_blocks(text: str) -> str:
    """``_BLOCK.sub(" ", text)``, trying the block only at openings that have a closing tag
    of their name after them (the plain ``sub`` rescans to the end from every other one)."""
    closes: dict[str, list[int]] = {}
    for m in _CLOSE_NAME.finditer(text):
        closes.setdefault(_tag_key(m.group(1)), []).append(m.start())
    if not closes:
        return text
    gt = _NextGt(text)
    failed: set[str] = set()
    out: list[str] = []
    last = 0
    for m in _OPEN_NAME.finditer(text):
        if m.start() < last:
            continue  # inside the block just dropped
        end = gt.after(m.end())
        if end == -1:
            break  # no opening tag can be completed from here on
        name = m.group(1)
        starts = closes.get(_tag_key(name))
        if name in failed or starts is None or bisect_left(starts, end + 1) == len(starts):
            continue
        block = _BLOCK.match(text, m.start())
        if block is None:  # never for a key the engine compares as _tag_key does
            failed.add(name)
            continue
        out.append(text[last : m.start()])
        out.append(" ")
        last = block.end()
    return _spliced(text, out, last)


def _first_open(text: str) -> int:
    """``_OPEN.search(text).start()`` (-1 for none) without a rescan from every ``<think``."""
    m = _OPEN_NAME.search(text)
    if m is None or text.find(">", m.end()) == -1:
        return -1  # the first opening's ">" is the first ">" after it; none, none after it
    return m.start()


def _drop_reasoning(text: str) -> str:
    text = _drop_blocks(text)
    closes = list(_CLOSE.finditer(text))
    if closes:  # the opening tag was part of the prompt: the answer follows the last close
        text = text[closes[-1].end() :]
    start = _first_open(text)
    if start != -1:  # unclosed: the reasoning ran to the end, there is no answer after it
        text = text[:start]
    return text.strip()


def _answer_tag(text: str) -> str:
    """``_ANSWER_TAG.findall(text)[-1]``, trying a match only where a closing tag follows."""
    closes = [m.start() for m in _ANSWER_CLOSE.finditer(text)]
    if not closes:
        return text
    gt = _NextGt(text)
    found = None
    last = 0
    for m in _ANSWER_OPEN.finditer(text):
        if m.start() < last:
            continue
        end = gt.after(m.end())
        if end == -1 or bisect_left(closes, end + 1) == len(closes):
            break  # a later opening ends at the same ">" or later: no close after it either
        tag = _ANSWER_TAG.match(text, m.start())
        if tag is not None:  # always: a closing tag follows the opening's ">"
            found, last = tag.group(1), tag.end()
    return found.strip() if found is not None else text


def _boxed(text: str) -> str:
    found = _BOXED.findall(text)
    return found[-1].strip() if found else text


def _skip_spaces(text: str, pos: int) -> int:
    r"""The end of the run of ``\s`` characters at *pos* (*pos* itself when there is none)."""
    m = _SPACES.match(text, pos)
    return pos if m is None else m.end()


def _drop_headings(text: str) -> str:
    r"""``_HEADING.sub("", text)`` in one pass: its ``^\s*`` runs over blank lines, so the plain
    ``sub`` rescans a run of blank lines from each of them; a start that fails here fails at
    every later line start inside the same run of whitespace, which is skipped."""
    if "#" not in text:
        return text
    out: list[str] = []
    last = 0
    n = len(text)
    start = 0  # a line start
    while True:
        h = _skip_spaces(text, start)
        if h < n and text[h] == "#":
            e = h
            while e < n and text[e] == "#":
                e += 1
            after = _skip_spaces(text, e)
            if e - h <= 6 and after > e:
                out.append(text[last:start])
                last = after
                if text[after - 1] == "\n":
                    start = after  # the match ended at a line start
                    continue
                h = after
        nl = text.find("\n", h)
        if nl == -1:
            break
        start = nl + 1
    return _spliced(text, out, last)


def _single_emphasis(text: str) -> str:
    r"""``_SINGLE_EMPHASIS.sub(r"\1", text)``: an opener is closed by the first closer at least
    two characters on in its line (the lazy ``.+?``); openers with none are skipped at once."""
    closers = [m.start() for m in _CLOSER.finditer(text)]
    if not closers:
        return text
    out: list[str] = []
    last = 0
    nl = -2
    for m in _OPENER.finditer(text):
        p = m.start()
        if p < last:
            continue
        i = bisect_left(closers, p + 2)
        if i == len(closers):
            break
        q = closers[i]
        if nl != -1 and nl <= p:
            nl = text.find("\n", p + 1)
        if nl != -1 and nl < q:
            continue  # ``.`` stops at the end of the line
        out.append(text[last:p])
        out.append(text[p + 1 : q])
        last = q + 1
    return _spliced(text, out, last)


def _markdown(text: str) -> str:
    text = _drop_headings(text)
    text = _EMPHASIS.sub("", text)
    text = _single_emphasis(text)
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


@bounded
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
