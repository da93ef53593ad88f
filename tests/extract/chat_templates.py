"""Wrap plain answers in the templates chat and reasoning models answer with."""

from __future__ import annotations

TEMPLATES = (
    "The answer is {a}.",
    "Answer: {a}",
    "**{a}**",
    "<think>Let me look at the image carefully.</think> {a}",
    "Final answer: {a}",
    "{a}.\nI can see it clearly in the picture.",
    '"{a}"',
)


def wrap(answer: str, i: int) -> str:
    """The *i*-th template around *answer*; yes/no answers get a chatty sentence half the time."""
    low = answer.lower()
    if low in ("yes", "no") and i % 2 == 0:
        return f"{answer.capitalize()}, there is something like that in the picture."
    return TEMPLATES[i % len(TEMPLATES)].format(a=answer)
