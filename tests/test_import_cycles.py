"""No import circle anywhere in ``lockup``, counting every import a module holds.

``tests/test_layers.py`` reads the imports a module runs when it is imported. This test
reads every import statement: those under ``if TYPE_CHECKING:`` and those inside a
function too. A circle that only the type checker sees, or that an import deferred into a
function hides from Python, is still two modules that cannot be understood, tested or
moved apart.

Each module of ``lockup/`` is parsed with :mod:`ast`; a relative import is resolved from
the module's package; ``from pkg import name`` is an edge to ``pkg.name`` when that is a
module of ours, else to ``pkg``; an edge to a name below a module of ours goes to that
module. The test fails on every strongly connected part of the graph with more than one
module, printing each and one circle through it.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "lockup"


def module_name(path: Path) -> str:
    """The dotted name of a source under ``lockup/`` (a package by its ``__init__.py``)."""
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def module_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Every import of a module, wherever it stands: at module level, under ``if
    TYPE_CHECKING:``, in a ``try``, in a function or a method."""
    return [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]


def ours(name: str) -> str | None:
    """``name`` or the nearest module above it that is one of ours; None outside."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(name: str) -> set[str]:
    """The modules of ours that module ``name`` imports."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in module_imports(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            submodules = [
                f"{module}.{a.name}" for a in node.names if f"{module}.{a.name}" in MODULES
            ]
            others = [a for a in node.names if f"{module}.{a.name}" not in MODULES]
            targets = submodules + ([module] if others else [])
        for target in targets:
            found = ours(target) if target == "lockup" or target.startswith("lockup.") else None
            if found is not None and found != name:
                out.add(found)
    return out


GRAPH = {name: imports_of(name) for name in MODULES}


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of ``graph`` with more than one node (Tarjan's
    algorithm, iterative), each sorted, sorted by their first node."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    parts: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, list[str]]] = [(root, sorted(graph[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, todo = work[-1]
            if todo:
                nxt = todo.pop(0)
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(graph[nxt])))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                part: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.append(member)
                    if member == node:
                        break
                if len(part) > 1:
                    parts.append(sorted(part))
    return sorted(parts)


def circle_through(part: list[str], graph: dict[str, set[str]]) -> list[str]:
    """A shortest circle from the first module of ``part`` back to it, inside ``part``."""
    start = part[0]
    members = set(part)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for nxt in sorted(graph[node] & members):
                if nxt == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [*reversed(path), start]
                if nxt not in came_from:
                    came_from[nxt] = node
                    following.append(nxt)
        frontier = following
    raise AssertionError(f"no circle in a strongly connected part: {part}")


def describe(parts: list[list[str]], graph: dict[str, set[str]]) -> str:
    """Each part, its modules and one circle through it, a paragraph each."""
    lines = [f"{len(parts)} import circle(s), TYPE_CHECKING and deferred imports included:"]
    for part in parts:
        lines.append(f"- {len(part)} modules: {', '.join(part)}")
        lines.append("  e.g. " + " -> ".join(circle_through(part, graph)))
    return "\n".join(lines)


def test_the_graph_reads_what_it_must() -> None:
    """Relative imports resolved, submodules named in ``from`` imports, TYPE_CHECKING."""
    assert "lockup.server.app" in MODULES and "lockup.engine" in MODULES
    assert "lockup.engine" in GRAPH["lockup.server.session.game"]
    assert "lockup.server.store.rows" in GRAPH["lockup.server.store.writer"]
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"f"}, "f": {"e"}}
    parts = strongly_connected(graph)
    assert parts == [["a", "b", "c"], ["e", "f"]]
    assert circle_through(parts[0], graph) == ["a", "b", "c", "a"]


def test_type_checking_and_deferred_imports_count() -> None:
    """An import that only the type checker runs, or one inside a function, counts."""
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from .b import B\n"
        "def f():\n    from .c import C\n"
    )
    found = [n.module for n in module_imports(tree) if isinstance(n, ast.ImportFrom)]
    assert found == ["typing", "b", "c"]


def test_no_import_circle() -> None:
    """No strongly connected part of the import graph has more than one module."""
    parts = strongly_connected(GRAPH)
    assert not parts, describe(parts, GRAPH)
