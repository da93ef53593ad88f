"""Which rule makes two profiles disagree (:mod:`vqametrics.pipeline.profile_diff`),
at its documented path: the VQA tasks' toolkit check uses it below the analysis floor."""

from ..pipeline.profile_diff import *  # noqa: F403  (the whole module, at its documented path)
from ..pipeline.profile_diff import __all__ as __all__
