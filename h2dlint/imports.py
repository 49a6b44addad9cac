"""A light import table: which local names stand for which modules and functions.

libcst's full qualified-name metadata costs many times the parse; rules that only need to know
that ``T.cat`` or a bare ``cat`` is ``torch.cat`` use this table instead. It reads import
statements anywhere in the file (module level, in functions, under ``if``/``try``); a relative
import keeps its leading dots (``.utils.helper``), which no torch name has.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import libcst as cst


def dotted_name(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a chain of names and attributes, else None."""
    parts: list[str] = []
    # By exact class (neither has subclasses): an ``isinstance`` that fails calls
    # ``ABCMeta.__instancecheck__`` (see walk.node_classes), and this runs on every name.
    while type(node) is cst.Attribute:
        parts.append(node.attr.value)
        node = node.value
    if type(node) is not cst.Name:
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


# Classes of statement nodes, tested by ``node.__class__ in ...`` (see walk.node_classes).
_LINES = frozenset({cst.SimpleStatementLine, cst.SimpleStatementSuite})
_BLOCKS = frozenset({cst.Module, cst.IndentedBlock})
_DEFINITIONS = frozenset({cst.FunctionDef, cst.ClassDef})
_IMPORTS = frozenset({cst.Import, cst.ImportFrom})  # neither has subclasses


def statements(
    root: cst.CSTNode, *, into_definitions: bool = True
) -> Iterator[cst.BaseSmallStatement]:
    """Every small statement under ``root``, recursing into compound statements (and their
    ``else``/``except``/``finally``/``case`` parts), never into expressions; unless
    ``into_definitions``, not into the functions and classes defined under ``root`` either."""
    stack: list[cst.CSTNode] = [root]
    while stack:
        node = stack.pop()
        kind = node.__class__
        if kind in _LINES:
            yield from node.body  # type: ignore[attr-defined]
            continue
        if kind in _BLOCKS:
            stack.extend(node.body)  # type: ignore[attr-defined]
            continue
        if not into_definitions and kind in _DEFINITIONS:
            continue
        for part_name in ("body", "orelse", "finalbody"):
            # A node or None: only the lines and blocks above hold sequences of statements
            # (not isinstance: libcst's abstract classes check through ABCMeta).
            part = getattr(node, part_name, None)
            if part is not None:
                stack.append(part)
        stack.extend(getattr(node, "handlers", ()))
        stack.extend(getattr(node, "cases", ()))


@dataclass
class ImportTable:
    """Local name -> fully qualified name, e.g. ``{"T": "torch", "cat": "torch.cat"}``."""

    names: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_module(cls, module: cst.Module) -> ImportTable:
        table = cls()
        starred = False
        for stmt in statements(module):
            if stmt.__class__ not in _IMPORTS:
                continue  # most statements: no isinstance through ABCMeta for them
            if isinstance(stmt, cst.Import):
                for alias in stmt.names:
                    full = dotted_name(alias.name)
                    if full is None:
                        continue
                    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                        table.names[alias.asname.name.value] = full
                    else:
                        top = full.split(".", 1)[0]
                        table.names[top] = top
            elif isinstance(stmt, cst.ImportFrom):
                if isinstance(stmt.names, cst.ImportStar):
                    starred = True
                    continue
                dots = "." * len(stmt.relative)
                if stmt.module is None and not dots:
                    continue
                base = dotted_name(stmt.module) if stmt.module is not None else ""
                if base is None:
                    continue
                # A relative import keeps its leading dots (``.buffers.Buffer``): it can never
                # name torch, and the project index resolves it against the module's package.
                base = dots + base if base else dots
                for alias in stmt.names:
                    if not isinstance(alias.name, cst.Name):
                        continue
                    local = alias.name.value
                    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                        local = alias.asname.name.value
                    table.names[local] = (
                        f"{base}{alias.name.value}"
                        if base.endswith(".")
                        else f"{base}.{alias.name.value}"
                    )
        if starred:
            # ``from .utils import *`` that brings numpy in: ``np`` is numpy by convention (a
            # research module's ``np.sum(...)`` loop is over a host array, not a tensor).
            table.names.setdefault("np", "numpy")
        return table

    def qualify(self, node: cst.BaseExpression) -> str | None:
        """The qualified name ``node`` refers to through imports, or None when its root name was
        not imported (a local variable, a parameter, a builtin)."""
        dotted = dotted_name(node)
        if dotted is None:
            return None
        root, _, rest = dotted.partition(".")
        full = self.names.get(root)
        if full is None:
            return None
        return f"{full}.{rest}" if rest else full

    def imports_module(self, module: str) -> bool:
        prefix = module + "."
        return any(v == module or v.startswith(prefix) for v in self.names.values())
