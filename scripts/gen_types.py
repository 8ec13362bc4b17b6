"""Generate lockup/web/static/js/types.js, the page's JSDoc types of the protocol, from the
TypedDicts of lockup/server/protocol/wire.py.

    python scripts/gen_types.py           # write types.js
    python scripts/gen_types.py --check   # exit 1 if types.js is not what it generates

The protocol module is read with :mod:`ast`, not imported (nothing of the server runs):
each ``TypedDict`` class becomes an ``@typedef {object}`` with a ``@property`` per field
(``NotRequired`` ones optional), and each module-level alias of wire types (``A | B``,
``Literal[...]``, ``Annotated[str, "Name"]``) a ``@typedef`` of its own. Docstrings become
the descriptions. tests/test_protocol_types.py holds the checked-in file to this output.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "lockup" / "server" / "protocol" / "wire.py"
TARGET = ROOT / "lockup" / "web" / "static" / "js" / "types.js"

JS_NAMES = {
    "RulesJSON": "Rules",
    "TrickPlay": "Play",
    "RoomOptionsJSON": "RoomOptions",
    "ClientJSON": "ClientMessage",
}
"""Python names that JavaScript spells otherwise (where Python already has the name)."""
SCALARS = {
    "int": "number",
    "float": "number",
    "str": "string",
    "bool": "boolean",
    "None": "null",
    "Any": "any",
    "object": "unknown",
}
HEADER = """\
// @ts-check
// The page's view of docs/web-protocol.md, as JSDoc types (checked by `tsc --checkJs`).
// GENERATED from the TypedDicts of lockup/server/protocol/wire.py by scripts/gen_types.py:
// do not edit; change wire.py and run `python scripts/gen_types.py`
// (tests/test_protocol_types.py checks that this file is what it generates).
// This module holds no code; other modules import its types with import("./types.js").
"""


class Unsupported(ValueError):
    """An annotation the generator does not translate."""


def _js_name(name: str) -> str:
    return JS_NAMES.get(name, name)


def _union(parts: list[str]) -> str:
    return " | ".join(dict.fromkeys(parts))


def js_type(node: ast.expr, known: set[str]) -> str:
    """The JSDoc type of a Python annotation (``known``: the wire types' Python names)."""
    if isinstance(node, ast.Constant):
        if node.value is None:
            return "null"
        if isinstance(node.value, str):
            return '"' + node.value.replace('"', '\\"') + '"'
        raise Unsupported(ast.unparse(node))
    if isinstance(node, ast.Name):
        if node.id in SCALARS:
            return SCALARS[node.id]
        if node.id in known:
            return _js_name(node.id)
        raise Unsupported(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union([js_type(node.left, known), js_type(node.right, known)])
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        head = node.value.id
        args = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if head == "list" and len(args) == 1:
            inner = js_type(args[0], known)
            return f"({inner})[]" if " " in inner else f"{inner}[]"
        if head == "dict" and len(args) == 2:
            return f"Record<{js_type(args[0], known)}, {js_type(args[1], known)}>"
        if head == "Literal":
            return _union([js_type(a, known) for a in args])
        if head == "Annotated":
            return js_type(args[0], known)
        if head == "NotRequired" and len(args) == 1:
            return js_type(args[0], known)
    raise Unsupported(ast.unparse(node))


def _doc(text: str | None) -> str:
    """A docstring as one line of description."""
    if not text:
        return ""
    first = text.strip().split("\n\n")[0]
    return (
        " ".join(first.split())
        .replace("``", "`")
        .replace(":class:", "")
        .replace(":data:", "")
        .replace(":func:", "")
    )


def _is_typeddict(node: ast.ClassDef, typeddicts: set[str]) -> bool:
    return any(
        isinstance(b, ast.Name) and (b.id == "TypedDict" or b.id in typeddicts) for b in node.bases
    )


def _fields(cls: ast.ClassDef, classes: dict[str, ast.ClassDef]) -> list[tuple[str, ast.expr, str]]:
    """A TypedDict's fields, its bases' first: (name, annotation, description)."""
    out: list[tuple[str, ast.expr, str]] = []
    for base in cls.bases:
        if isinstance(base, ast.Name) and base.id in classes:
            out += _fields(classes[base.id], classes)
    body = cls.body
    for i, stmt in enumerate(body):
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            doc = ""
            nxt = body[i + 1] if i + 1 < len(body) else None
            if (
                isinstance(nxt, ast.Expr)
                and isinstance(nxt.value, ast.Constant)
                and isinstance(nxt.value.value, str)
            ):
                doc = _doc(nxt.value.value)
            out.append((stmt.target.id, stmt.annotation, doc))
    return out


def _alias_doc(tree: ast.Module, index: int) -> str:
    nxt = tree.body[index + 1] if index + 1 < len(tree.body) else None
    if (
        isinstance(nxt, ast.Expr)
        and isinstance(nxt.value, ast.Constant)
        and isinstance(nxt.value.value, str)
    ):
        return _doc(nxt.value.value)
    return ""


def generate(source: str) -> str:
    """The text of types.js for the protocol module's ``source``."""
    tree = ast.parse(source)
    classes: dict[str, ast.ClassDef] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and _is_typeddict(node, set(classes)):
            classes[node.name] = node
    known = set(classes)
    aliases: dict[str, ast.expr] = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id[:1].isupper()
            and isinstance(node.value, ast.BinOp | ast.Subscript)
        ):
            name = node.targets[0].id
            try:
                js_type(node.value, known | set(aliases) | {name})
            except Unsupported:
                continue  # not a wire type (the parsed client messages, say)
            aliases[name] = node.value
    known |= set(aliases)
    blocks = [HEADER.rstrip("\n")]
    for index, node in enumerate(tree.body):
        if isinstance(node, ast.ClassDef) and node.name in classes:
            doc = _doc(ast.get_docstring(node))
            lines = [
                "/**",
                f" * @typedef {{object}} {_js_name(node.name)}" + (f" {doc}" if doc else ""),
            ]
            for field, annotation, fdoc in _fields(node, classes):
                optional = (
                    isinstance(annotation, ast.Subscript)
                    and isinstance(annotation.value, ast.Name)
                    and annotation.value.id == "NotRequired"
                )
                shown = f"[{field}]" if optional else field
                line = f" * @property {{{js_type(annotation, known)}}} {shown}"
                lines.append(line + (f" {fdoc}" if fdoc else ""))
            lines.append(" */")
            blocks.append("\n".join(lines))
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if name not in aliases:
                continue
            value = aliases[name]
            doc = _alias_doc(tree, index)
            text = f"/** @typedef {{{js_type(value, known)}}} {_js_name(name)}" + (
                f" {doc}" if doc else ""
            )
            blocks.append(text + " */")
    blocks.append("export {};\n")
    return "\n\n".join(blocks)


def main(argv: list[str]) -> int:
    text = generate(SOURCE.read_text(encoding="utf-8"))
    if "--check" in argv:
        if TARGET.read_text(encoding="utf-8") != text:
            print(f"{TARGET.relative_to(ROOT)} is out of date: run python scripts/gen_types.py")
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
