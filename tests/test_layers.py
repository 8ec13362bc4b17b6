"""The import graph of ``lockup``: no circle, and the layers point one way.

Imports are read with :mod:`ast` at module level only: an import inside a function runs
when it is called, and one under ``if TYPE_CHECKING:`` never runs. ``from a.b import c``
is an edge to ``a.b.c`` when that is a module of ours, else to ``a.b``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "lockup"

LAYERS = ["lockup.cards", "lockup.engine", "lockup.record", "lockup.bots", "lockup.arena"]
"""Lowest first: a module of one layer imports only modules of the layers before it."""

FRONT_ENDS = ("lockup.server", "lockup.tui", "lockup.web")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _module_level(body: list[ast.stmt]) -> list[ast.Import | ast.ImportFrom]:
    """The imports a module runs when it is imported (``if`` and ``try`` included)."""
    found: list[ast.Import | ast.ImportFrom] = []
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.If):
            if not _type_checking(node.test):
                found += _module_level(node.body)
            found += _module_level(node.orelse)
        elif isinstance(node, ast.Try):
            found += _module_level(node.body)
            for handler in node.handlers:
                found += _module_level(handler.body)
            found += _module_level(node.orelse) + _module_level(node.finalbody)
    return found


def _ours(name: str) -> str | None:
    """``name`` or the nearest package above it that is a module of ours."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(name: str) -> set[str]:
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in _module_level(ast.parse(path.read_text(encoding="utf-8")).body):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            targets = [f"{module}.{alias.name}" for alias in node.names] + [module]
            # an imported name that is a submodule counts as that module, else the module
            targets = [t for t in targets[:-1] if t in MODULES] or [module]
        for target in targets:
            ours = _ours(target) if target.startswith("lockup") else None
            if ours is not None and ours != name:
                out.add(ours)
    return out


GRAPH = {name: _imports(name) for name in MODULES}


def _cycle() -> list[str] | None:
    """One circle of the graph, or None."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(GRAPH[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found is not None:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(GRAPH):
        if node not in state:
            found = visit(node)
            if found is not None:
                return found
    return None


def test_the_graph_sees_the_package() -> None:
    assert "lockup.server.app" in MODULES and "lockup.engine" in MODULES
    assert "lockup.engine" in GRAPH["lockup.server.session.game"]
    assert "lockup.server.store.rows" in GRAPH["lockup.server.store.writer"]


def test_no_import_circle() -> None:
    cycle = _cycle()
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def _layer(name: str) -> int | None:
    for i, layer in enumerate(LAYERS):
        if name == layer or name.startswith(layer + "."):
            return i
    return None


@pytest.mark.parametrize("layer", LAYERS)
def test_layers_point_one_way(layer: str) -> None:
    rank = _layer(layer)
    assert rank is not None
    wrong = []
    for name, imports in GRAPH.items():
        if _layer(name) != rank:
            continue
        for target in sorted(imports):
            if target.startswith(FRONT_ENDS):
                wrong.append(f"{name} imports the front end {target}")
            other = _layer(target)
            if other is not None and other > rank:
                wrong.append(f"{name} imports {target}, a layer above it")
    assert not wrong, "\n".join(wrong)
