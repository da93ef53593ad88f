"""Signatures: a short string that pins down how a score was computed, as sacreBLEU's do.

``vqa-acc|profile:official|toolkit:vqaEval@a013f00|answers:10|n:214354|vqametrics:0.1.0``:
the metric first, then ``key:value`` fields, the version last. Put it next to every number in a
paper.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._version import __version__
from .arguments import ArgumentTypeError, check

__all__ = ["Signature"]


@dataclass(frozen=True)
class Signature:
    """A frozen record of the settings behind a score.

    Fields whose value is ``None`` are left out; booleans print as ``yes``/``no``.
    """

    metric: str
    fields: tuple[tuple[str, str | int | float | bool | None], ...] = ()
    version: str = __version__

    def __post_init__(self) -> None:
        check("Signature", "metric", self.metric, "str")
        check("Signature", "version", self.version, "str")
        fields = self.fields
        if not isinstance(fields, tuple) or not all(
            isinstance(f, tuple) and len(f) == 2 and isinstance(f[0], str) and _scalar(f[1])
            for f in fields
        ):
            raise ArgumentTypeError(
                "Signature: fields must be a tuple of (key, value) pairs, each key a string "
                f"and each value a str, int, float, bool or None; got {fields!r:.60}"
            )

    def format(self) -> str:
        """The signature string, ``metric|key:value|...|vqametrics:VERSION``."""
        parts = [self.metric]
        for key, value in self.fields:
            if value is None:
                continue
            if isinstance(value, bool):
                value = "yes" if value else "no"
            parts.append(f"{key}:{value}")
        parts.append(f"vqametrics:{self.version}")
        return "|".join(parts)

    def as_dict(self) -> dict[str, str | int | float | bool]:
        """The fields as a dict (the metric and version included), built without parsing."""
        out: dict[str, str | int | float | bool] = {"metric": self.metric}
        out.update({k: v for k, v in self.fields if v is not None})
        out["vqametrics"] = self.version
        return out

    def with_fields(self, **extra: str | int | float | bool | None) -> Signature:
        """A copy with *extra* set: a field already there keeps its place with the new value
        (a field is never written twice), a new one is appended (e.g. bootstrap settings)."""
        fields = tuple((k, extra.pop(k) if k in extra else v) for k, v in self.fields)
        return Signature(self.metric, fields + tuple(extra.items()), self.version)

    def __str__(self) -> str:
        return self.format()


def _scalar(value: object) -> bool:
    return value is None or isinstance(value, str | int | float)
