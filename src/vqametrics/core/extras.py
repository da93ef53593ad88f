"""The ``pip install`` line for an optional extra, right for how vqametrics was installed."""

from __future__ import annotations

from pathlib import Path

__all__ = ["install_hint"]


def _checkout() -> Path | None:
    """The source checkout this package runs from (an editable install or ``PYTHONPATH=src``),
    or ``None`` when it is installed under site-packages."""
    here = Path(__file__).resolve()
    if any(part in ("site-packages", "dist-packages") for part in here.parts):
        return None
    root = here.parents[3]
    return root if (root / "pyproject.toml").is_file() else None


def install_hint(extra: str) -> str:
    """``pip install '.[extra]'`` (with the checkout's path) when running from a clone, where
    ``vqametrics[extra]`` would fetch another copy from PyPI; ``pip install 'vqametrics[extra]'``
    otherwise."""
    root = _checkout()
    if root is not None:
        return f"pip install -e '.[{extra}]'  (in {root})"
    return f"pip install 'vqametrics[{extra}]'"
