"""Syntax the candidate summary records as if it were a call (``@if``, ``@subscript``,
``@compare``), the kinds of nodes patterns name, and the text ``text`` terms search: see
:mod:`h2dlint.candidates`. Split out of ``candidates.py``."""

from __future__ import annotations

import ast
import re
import unicodedata
from collections.abc import Iterable

_DISPLAYS = (ast.List, ast.Tuple, ast.Set)
SYNTAX = frozenset({ast.If, ast.IfExp, ast.Subscript, ast.Compare})


def _literal(node: ast.AST) -> bool:
    kind = type(node)
    if kind is ast.Constant:
        return True
    if kind is ast.UnaryOp:
        return type(node.operand) is ast.Constant  # type: ignore[attr-defined]
    if isinstance(node, _DISPLAYS):
        return all(_literal(e) for e in node.elts)
    return False


def kind_of(node: ast.AST | None) -> str:
    if node is None:
        return ""
    if _literal(node):
        return "Literal"
    return type(node).__name__


_VALUE_COMPARISONS = frozenset({ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE})


def _bound(node: ast.AST | None) -> bool:
    """Whether a slice bound is there and is not a literal."""
    return node is not None and not _literal(node)


def _subscript_kind(node: ast.Subscript) -> str:
    """The ``arg`` of ``@subscript`` (see the module's documentation)."""
    if type(node.ctx) is ast.Store:
        return "Store"
    index = node.slice
    for part in index.elts if type(index) is ast.Tuple else (index,):
        if type(part) is ast.Slice and (_bound(part.lower) or _bound(part.upper)):
            return "Slice"
    return "Index"


def syntax_name(node: ast.AST, kind: type) -> tuple[str, str] | None:
    """``node`` as one of the syntax names (``@if``...) with its ``arg``, or None."""
    if kind is ast.If or kind is ast.IfExp:
        return "@if", kind_of(node.test)  # type: ignore[attr-defined]
    if kind is ast.Subscript:
        return "@subscript", _subscript_kind(node)  # type: ignore[arg-type]
    if kind is ast.Compare and all(type(op) in _VALUE_COMPARISONS for op in node.ops):  # type: ignore[attr-defined]
        return "@compare", ""
    return None


# Fields that never hold a node that can contain a call.
_LEAF_FIELDS = frozenset(
    {
        "ctx",
        "op",
        "id",
        "attr",
        "arg",
        "name",
        "names",
        "module",
        "level",
        "asname",
        "kind",
        "conversion",
        "is_async",
        "type_comment",
        "type_ignores",
    }
)
# Nodes that hold no call, loop or binding.
_LEAF_TYPES = frozenset(
    {ast.Constant, ast.Pass, ast.Break, ast.Continue, ast.Global, ast.Nonlocal, ast.alias}
)
CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def child_fields(kind: type) -> tuple[str, ...]:
    fields = CHILD_FIELDS.get(kind)
    if fields is None:
        if kind in _LEAF_TYPES or kind is ast.Name:
            fields = ()
        else:
            fields = tuple(f for f in kind._fields if f not in _LEAF_FIELDS)  # type: ignore[attr-defined]
        CHILD_FIELDS[kind] = fields
    return fields


_EMPTY: frozenset[str] = frozenset()
WITHIN = ""  # never a name: the key of the kinds of all loops around


def stored_names(target: ast.AST) -> frozenset[str]:
    """The names a binding target binds (``a``, ``a, (b, *c)``; not ``x.a`` or ``x[a]``)."""
    stack, names = [target], []
    while stack:
        node = stack.pop()
        if type(node) is ast.Name:
            names.append(node.id)
        elif isinstance(node, (ast.Tuple, ast.List)):
            stack.extend(node.elts)
        elif type(node) is ast.Starred:
            stack.append(node.value)
    return frozenset(names)


def iterable_kind(node: ast.AST) -> str:
    """What a loop iterates, as patterns name it: ``.name`` for a method call, ``name`` for a
    call of a bare name, else the ``ast`` kind (``Name``, ``Attribute``, ``Subscript``...)."""
    if type(node) is ast.Call:
        func = node.func
        if type(func) is ast.Attribute:
            return "." + func.attr
        if type(func) is ast.Name:
            return func.id
    return type(node).__name__


def loop_variables(
    loopvars: dict[str, frozenset[str]], targets: Iterable[tuple[ast.AST, ast.AST]]
) -> dict[str, frozenset[str]]:
    """``loopvars`` with the names each (target, iterable) pair binds."""
    out = dict(loopvars)
    for target, iterable in targets:
        kinds = frozenset({iterable_kind(iterable)})
        out[WITHIN] = out.get(WITHIN, _EMPTY) | kinds
        for name in stored_names(target):
            out[name] = out.get(name, _EMPTY) | kinds
    return out


# Escapes that may spell a letter in a string (``\x63``, ``\u0063``, ``\N{...}``, ``\143``).
_LETTER_ESCAPES = re.compile(rb"\\[xuUN0-7]")


def searchable(source: bytes | None) -> bytes:
    """``source`` in lower case, identifiers as Python reads them (NFKC); empty when a word
    could hide in it (escapes in strings, not UTF-8) or it is unknown."""
    if source is None or _LETTER_ESCAPES.search(source):
        return b""
    if source.isascii():
        return source.lower()
    try:
        text = unicodedata.normalize("NFKC", source.decode("utf-8"))
    except UnicodeDecodeError:
        return b""
    return text.lower().encode("utf-8")
