"""The package's shape: no import cycles, and layers that point one way.

cli → tasks / pipeline → readers (``load``) and scorers (``score``) → normalization / profiles.
Readers never import scorers, scorers never import readers or the pipeline. Every import
counts, including those under ``TYPE_CHECKING`` and inside functions.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "vqametrics"


def _modules() -> dict[str, Path]:
    mods = {}
    for f in SRC.rglob("*.py"):
        parts = list(f.relative_to(SRC.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = f
    return mods


def _edges() -> dict[str, set[str]]:
    mods = _modules()
    edges: dict[str, set[str]] = {}
    for mod, f in mods.items():
        is_pkg = f.name == "__init__.py"
        out: set[str] = set()
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = mod.split(".") if is_pkg else mod.split(".")[:-1]
                if node.level:
                    base = base[: len(base) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for alias in node.names:
                    cand = f"{target}.{alias.name}"
                    out.add(cand if cand in mods else target)
            elif isinstance(node, ast.Import):
                out.update(a.name for a in node.names)
        edges[mod] = {t for t in out if t in mods and t != mod}
    return edges


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_the_checker_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycles() -> None:
    assert _cycles(_edges()) == []


# (importer prefix, forbidden prefixes)
RULES = [
    (
        "vqametrics.load",
        (
            "vqametrics.score",
            "vqametrics.pipeline",
            "vqametrics.tasks",
            "vqametrics.report",
            "vqametrics.cli",
            "vqametrics.aggregate",
        ),
    ),
    (
        "vqametrics.score",
        (
            "vqametrics.load",
            "vqametrics.pipeline",
            "vqametrics.tasks",
            "vqametrics.report",
            "vqametrics.cli",
            "vqametrics.aggregate",
        ),
    ),
    (
        "vqametrics.normalize",
        (
            "vqametrics.load",
            "vqametrics.score",
            "vqametrics.profiles",
            "vqametrics.pipeline",
            "vqametrics.tasks",
            "vqametrics.cli",
        ),
    ),
    (
        "vqametrics.profiles",
        (
            "vqametrics.load",
            "vqametrics.score",
            "vqametrics.pipeline",
            "vqametrics.tasks",
            "vqametrics.cli",
        ),
    ),
    ("vqametrics.tasks", ("vqametrics.cli",)),
]


@pytest.mark.parametrize(("importer", "forbidden"), RULES, ids=[r[0] for r in RULES])
def test_layers_point_one_way(importer: str, forbidden: tuple[str, ...]) -> None:
    bad = [
        f"{mod} imports {t}"
        for mod, targets in _edges().items()
        if mod == importer or mod.startswith(importer + ".")
        for t in sorted(targets)
        if any(t == f or t.startswith(f + ".") for f in forbidden)
    ]
    assert bad == []
