"""Every error and warning vqametrics raises, importable from one public place.

``VqaMetricsError`` and ``VqaMetricsWarning`` are the bases (catch or filter those); the
package re-exports the errors a caller meets most. See :mod:`vqametrics.core.exceptions` for the
tree and what each one means: this module is that tree, name for name (its ``__all__``).
"""

from .core.exceptions import *  # noqa: F403  (the tree is public whole)
from .core.exceptions import __all__ as __all__
