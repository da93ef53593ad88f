"""Per-question scores: VQA soft accuracy and Exact Match (pure functions, no I/O)."""
