"""Errors and warnings raised by vqametrics.

::

    VqaMetricsError (Exception)
    ├── InputError (+ ValueError)      bad input data: names the file, line or question id
    │   └── MissingPredictionError      a question has no prediction
    ├── UnknownNameError (+ ValueError) an unknown profile, extractor or metric name
    └── MissingDependencyError (+ ImportError)  an optional extra is not installed

    VqaMetricsWarning (UserWarning)
    ├── LeaveOneOutWarning              answer records without answer_id (official collapse)
    ├── IdTypeWarning                   "1000" and 1000 matched across files
    └── AnswerCountWarning              questions whose answer count is not 10
"""

from __future__ import annotations

__all__ = [
    "AnswerCountWarning",
    "IdTypeWarning",
    "InputError",
    "LeaveOneOutWarning",
    "MissingDependencyError",
    "MissingPredictionError",
    "UnknownNameError",
    "VqaMetricsError",
    "VqaMetricsWarning",
]


class VqaMetricsError(Exception):
    """Base class of every error vqametrics raises on purpose."""


class InputError(VqaMetricsError, ValueError):
    """Input data is malformed; the message names the file and the question id or line."""


class MissingPredictionError(InputError):
    """A question of the annotations has no prediction."""


class UnknownNameError(VqaMetricsError, ValueError):
    """A name (profile, extractor, metric) is not registered; the message lists the valid ones."""


class MissingDependencyError(VqaMetricsError, ImportError):
    """An optional dependency is not installed; the message gives the ``pip install`` line."""


class VqaMetricsWarning(UserWarning):
    """Base class of the warnings about suspicious but scorable input."""


class LeaveOneOutWarning(VqaMetricsWarning):
    """Answer records lack ``answer_id``; the official leave-one-out collapses equal records."""


class IdTypeWarning(VqaMetricsWarning):
    """Question ids were matched across files although one file spelled them as strings."""


class AnswerCountWarning(VqaMetricsWarning):
    """Some questions do not have 10 answers; the general leave-one-out formula is used."""
