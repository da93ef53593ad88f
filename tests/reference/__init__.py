"""A literal reference implementation of the official VQA evaluation, for differential tests.

Written from the spec (``official-vqa-eval.md`` §3-§5) and the official tables, statement by
statement, without importing anything from ``vqametrics``: it must stay independent of the
optimized code it checks.
"""
