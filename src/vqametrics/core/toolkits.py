"""The toolkit versions vqametrics reproduces, one constant each: every profile names its pin
from here, so that a new pin is one line.

``token`` is what a signature shows (``lmms-eval@0.7.3``, ``VLMEvalKit@e8e78f0``); ``at(path)``
says where a rule was read (``open-compass/VLMEvalKit@e8e78f0 vlmeval/dataset/utils/yorn.py``).
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = [
    "LLAVA",
    "LLAVA_32CEBC3",
    "LLAVA_5200B75",
    "LMMS_EVAL",
    "MMF",
    "PIX2STRUCT",
    "QWEN_VL",
    "VLMEVALKIT",
    "Pin",
]


class Pin(NamedTuple):
    """One toolkit at one commit (and its release, where the commit is a release's). A named
    tuple: every score imports the pins, and a frozen dataclass costs ten times its making
    (issue 23)."""

    name: str
    repository: str
    commit: str
    release: str | None = None

    @property
    def token(self) -> str:
        """The signature's ``toolkit:`` value: the release when there is one, else the commit."""
        return f"{self.name}@{self.release or self.commit}"

    def at(self, path: str = "") -> str:
        """``repository@commit``, followed by *path* (a file and the function in it)."""
        where = f"{self.repository}@{self.commit}"
        return f"{where} {path}" if path else where


#: lmms-eval 0.7.3, the release our lmms-eval profiles reproduce
LMMS_EVAL = Pin("lmms-eval", "EvolvingLMMs-Lab/lmms-eval", "75571cf", "0.7.3")
#: VLMEvalKit HEAD as read for the profiles named ``vlmevalkit``
VLMEVALKIT = Pin("VLMEvalKit", "open-compass/VLMEvalKit", "e8e78f0")
#: Qwen-VL's evaluation scripts (``eval_mm/``)
QWEN_VL = Pin("Qwen-VL", "QwenLM/Qwen-VL", "aa00ed0")
#: LLaVA's evaluation scripts as read for TextVQA, GQA and ScienceQA
LLAVA = Pin("LLaVA", "haotian-liu/LLaVA", "c121f04")
#: LLaVA at the later commit whose ``eval_science_qa.py`` is ScienceQA's ``llava-5200b75``
LLAVA_5200B75 = Pin("LLaVA", "haotian-liu/LLaVA", "5200b75")
#: LLaVA at the later commit read for its POPE and MME scripts
LLAVA_32CEBC3 = Pin("LLaVA", "haotian-liu/LLaVA", "32cebc3")
#: MMF's M4C evaluators (TextVQA accuracy, ST-VQA ANLS)
MMF = Pin("mmf", "facebookresearch/mmf", "b0ffc7f")
#: pix2struct's metrics (ChartQA relaxed correctness, ANLS)
PIX2STRUCT = Pin("pix2struct", "google-research/pix2struct", "945f27e")
