"""vqametrics inside other programs: streaming metrics for training loops and verifiable rewards."""
