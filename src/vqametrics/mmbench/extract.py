"""MMBench answer extraction: the letter heuristics live in :mod:`vqametrics.kernels.choice`.

Re-exported here, names and all, so that ``vqametrics.mmbench.extract`` keeps working.
"""

from __future__ import annotations

from ..kernels.choice import heuristics as _heuristics
from ..kernels.choice.heuristics import *  # noqa: F403  (the one list of names is theirs)

__all__ = list(_heuristics.__all__)
