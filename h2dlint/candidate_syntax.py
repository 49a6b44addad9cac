"""Syntax the candidate summary records as if it were a call (``@if``, ``@subscript``,
``@compare``), the kinds of nodes patterns name, and the text ``text`` terms search: see
:mod:`h2dlint.candidates`. Split out of ``candidates.py``."""

from __future__ import annotations

import ast
import re
import unicodedata

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


def item_aliases(
    loopvars: dict[str, frozenset[str]], body: list[ast.stmt]
) -> dict[str, frozenset[str]]:
    """``loopvars`` with the names that the leading statements of a loop's body bind to a part
    of a loop variable (``feat = req.mm_feature``, ``e = r["embedding"]``, no call): HTD101
    judges them as the item itself (``analysis/loop_aliases.py``), so they count for ``on
    loop`` as the loop variable they come from."""
    out = loopvars
    for statement in body:
        if not (
            type(statement) is ast.Assign
            and len(statement.targets) == 1
            and type(statement.targets[0]) is ast.Name
            and type(statement.value) in (ast.Name, ast.Attribute, ast.Subscript)
        ):
            break
        kinds = frozenset(
            kind
            for node in ast.walk(statement.value)
            if type(node) is ast.Name and node.id in out and node.id
            for kind in out[node.id]
        )
        if not kinds or any(type(node) is ast.Call for node in ast.walk(statement.value)):
            break
        out = {
            **out,
            statement.targets[0].id: out.get(statement.targets[0].id, frozenset()) | kinds,
        }
    return out
