"""The lmms-eval ``--log_samples`` adapter, re-exported under its old name: it lives in
:mod:`vqametrics.readers.lmms_eval`, generic over tasks."""

from __future__ import annotations

from ..readers.lmms_eval import *  # noqa: F403
from ..readers.lmms_eval import __all__ as __all__
