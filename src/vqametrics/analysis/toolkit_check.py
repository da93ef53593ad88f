"""The toolkit's reported numbers beside ours and the per-sample check, for every task
(:mod:`vqametrics.pipeline.toolkit_check`), at its documented path."""

from ..pipeline.toolkit_check import *  # noqa: F403  (the whole module, at its documented path)
from ..pipeline.toolkit_check import __all__ as __all__
