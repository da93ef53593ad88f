"""The toolkit's reported numbers beside ours
(:mod:`vqametrics.pipeline.toolkit_check`), at its documented path: the VQA tasks build it."""

from ..pipeline.toolkit_check import *  # noqa: F403  (the whole module, at its documented path)
from ..pipeline.toolkit_check import __all__ as __all__
