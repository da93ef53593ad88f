"""Data bundled with vqametrics: a real VQA v2 val sample (CC BY 4.0), simulated answer sets,
the textbook example, and MMBench samples (Apache-2.0). See each folder's ATTRIBUTION.md."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["ANSWER_SETS", "data_path", "sample_files"]

#: Simulated answer sets for the bundled VQA v2 sample (not model outputs), with what they show.
ANSWER_SETS: dict[str, str] = {
    "majority": "the most common human answer, as written",
    "messy-majority": "the same answer written messily (capitals, punctuation, articles, "
    "number words): normalization rescues it, except on unanimous questions",
    "minority": "an answer only one or two annotators gave: partial credit 0.3 / 0.6 "
    "(the majority answer when no answer has only one or two votes)",
    "always-yes": "the prior baseline: 'yes' to every question",
}


def data_path(*parts: str) -> Path:
    """The path of a bundled data file."""
    return Path(str(resources.files(__name__).joinpath(*parts)))


def sample_files(answer_set: str = "majority") -> dict[str, Path]:
    """Paths of the bundled VQA v2 sample: ``annotations``, ``questions`` and ``results``."""
    if answer_set == "textbook":
        base = data_path("textbook")
        return {k: base / f"{k}.json" for k in ("annotations", "questions", "results")}
    if answer_set not in ANSWER_SETS:
        valid = ", ".join([*ANSWER_SETS, "textbook"])
        raise ValueError(f"unknown answer set {answer_set!r}; valid: {valid}")
    base = data_path("vqa2_val_sample")
    return {
        "annotations": base / "annotations.json",
        "questions": base / "questions.json",
        "results": base / f"results_{answer_set}.json",
    }
