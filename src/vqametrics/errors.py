"""Every error and warning vqametrics raises, importable from one public place.

``VqaMetricsError`` and ``VqaMetricsWarning`` are the bases (catch or filter those); the
package re-exports the errors a caller meets most. See :mod:`vqametrics.core.exceptions` for the
tree and what each one means.
"""

from .core.exceptions import (
    AnswerCountWarning,
    IdTypeWarning,
    InputError,
    LeaveOneOutWarning,
    MissingDependencyError,
    MissingPredictionError,
    UnknownNameError,
    VqaMetricsError,
    VqaMetricsWarning,
)

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
