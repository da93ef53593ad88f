"""Loading and validating input files: the edge where bad input becomes a clear error."""
