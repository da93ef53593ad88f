"""The package's shape: no import cycles, and floors that point one way.

cli / demo → paper_table / integrations → analysis → views → tasks → mmbench / pipeline → judge
→ readers / kernels / extract / aggregate → profiles → normalize → core. Every import counts,
including those under ``TYPE_CHECKING`` and inside functions.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "vqametrics"


def _modules() -> dict[str, Path]:
    mods = {}
    for f in SRC.rglob("*.py"):
        parts = list(f.relative_to(SRC.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = f
    return mods


@functools.cache  # read once for the module's tests (the edges of the tree as it is)
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


# Each package on its floor; an import may only point to a lower floor (or stay in its package).
FLOORS = {
    "_version": 0,
    "core": 1,
    "errors": 2,
    "normalize": 2,
    "data": 2,
    "schema": 2,
    "profiles": 3,
    "readers": 4,
    "kernels": 4,
    "extract": 4,
    "aggregate": 4,
    "judge": 5,
    "mmbench": 6,
    "pipeline": 6,
    "tasks": 7,
    "views": 8,
    "analysis": 9,
    "paper_table": 10,
    "integrations": 10,
    "demo": 11,
    "cli": 12,
    "__main__": 13,
}

# Imports that still point up a floor, each to be removed (the list may only shrink: an entry
# that no longer occurs fails the test, so it is struck when the import goes).
KNOWN_UPWARD: set[tuple[str, str]] = set()


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _upward() -> set[tuple[str, str]]:
    out = set()
    for mod, targets in _edges().items():
        here = _package(mod)
        if not here:
            continue  # the package's __init__ re-exports the public API from every floor
        for t in targets:
            there = _package(t)
            if there and there != here and FLOORS[there] >= FLOORS[here]:
                out.add((mod, t))
    return out


def test_every_package_has_a_floor() -> None:
    assert sorted({_package(m) for m in _edges()} - {""} - set(FLOORS)) == []


def test_layers_point_one_way() -> None:
    assert sorted(_upward() - KNOWN_UPWARD) == []


def test_known_upward_imports_still_exist() -> None:
    assert sorted(KNOWN_UPWARD - _upward()) == []
