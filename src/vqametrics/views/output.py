"""The atomic output writer (:mod:`vqametrics.core.output`), at its documented
path: every command writes through it."""

from ..core.output import *  # noqa: F403  (the whole module, at its documented path)
from ..core.output import __all__ as __all__
