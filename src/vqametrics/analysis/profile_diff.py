"""Which rule makes two profiles disagree (:mod:`vqametrics.pipeline.profile_diff`),
at its documented path: the VQA tasks' toolkit check uses it below the analysis floor."""

from __future__ import annotations

from ..pipeline.profile_diff import (
    RECIPES,
    RULES,
    ProfileComparison,
    Rule,
    RuleEffect,
    compare_profiles,
    derivation,
    format_comparison,
    same_rules,
)

__all__ = [
    "RECIPES",
    "RULES",
    "ProfileComparison",
    "Rule",
    "RuleEffect",
    "compare_profiles",
    "derivation",
    "format_comparison",
    "same_rules",
]
