"""Analyses of whole evaluations: comparisons, systems side by side, profile differences, checks."""
