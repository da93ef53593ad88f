"""The constants of answer extraction that the package and the command line read without
loading the extractors' registry (its dataclasses and patterns cost every start-up: issue 23)."""

from __future__ import annotations

__all__ = ["BUILTIN_EXTRACTORS", "MAX_SCAN_CHARS"]

#: The most characters an extractor scans: a longer text is cut to its last MAX_SCAN_CHARS
#: characters first (where a model's answer is, after its reasoning) and the trace records the
#: rule ``truncated``. 131,072 characters is about 32k tokens of output, beyond the longest
#: generation budget in use; the bound keeps a looping model's output (or a hostile file) from
#: costing more than a fixed time per item whatever a rule does.
MAX_SCAN_CHARS = 131_072

#: the names of the extractors this package brings, in listing order (``answer`` first, then
#: the toolkits'); ``--extract``'s choices are listed from it without importing (and compiling
#: the patterns of) any of them: a test holds it equal to the registry
BUILTIN_EXTRACTORS = ("answer", "lmms-eval", "vlmevalkit", "evalscope")
