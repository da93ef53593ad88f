"""The defaults of the intervals and paired tests (:mod:`vqametrics.aggregate.stats`), apart
from it so that the command line can show them in its help without importing the statistics."""

__all__ = ["DEFAULT_BOOTSTRAP", "DEFAULT_PERMUTATIONS", "DEFAULT_SEED"]

#: The default seed of every random procedure here (sacreBLEU's default as well).
DEFAULT_SEED = 12345
#: Bootstrap replicates by default.
DEFAULT_BOOTSTRAP = 1000
#: Sign-flip permutations by default (the p-value's resolution is 1 / (N + 1)).
DEFAULT_PERMUTATIONS = 10000
