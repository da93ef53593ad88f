"""The toolkit's reported numbers beside ours
(:mod:`vqametrics.pipeline.toolkit_check`), at its documented path: the VQA tasks build it."""

from __future__ import annotations

from ..pipeline.toolkit_check import (
    ToolkitCheck,
    check_toolkit,
)

__all__ = [
    "ToolkitCheck",
    "check_toolkit",
]
