"""The references to a module's functions that :mod:`once` judges (moved out of
``once.py``): where each is, whether it is a call, and under which guards and loops."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from h2dlint.walk import visit_read_only


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


@dataclass(frozen=True)
class Reference:
    """A reference to a private function or method: where it is, and whether it is a call."""

    function: cst.FunctionDef | None  # the innermost function around it; None: module or class
    guards: tuple[cst.If, ...]  # the ``if`` statements around it in that function, in order
    called: bool
    # ``self`` of ``self._m``; None for a plain name, "" for an attribute of an expression
    base: str | None = None
    in_loop: bool = False  # inside a loop or comprehension of that function


class References(cst.CSTVisitor):
    """Every reference to a private name or to a name in ``defined`` (``_f``, ``self._m``,
    ``cls._m``, ``C._m``), keyed by that name; an attribute of anything but a name
    (``self.x._m``) counts as no call."""

    def __init__(self, defined: frozenset[str]) -> None:
        self.defined = defined
        self.found: dict[str, list[Reference]] = {}
        self.functions: list[cst.FunctionDef] = []
        self.guards: list[list[cst.If]] = [[]]
        self.loops: list[int] = [0]  # per function: the loops around the visitor
        self.calls: set[cst.CSTNode] = set()
        self.definitions: set[cst.Name] = set()
        self.own_names: set[int] = set()  # ids of attributes' and parameters' own names

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.definitions.add(node.name)
        self.functions.append(node)
        self.guards.append([])
        self.loops.append(0)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.functions.pop()
        self.guards.pop()
        self.loops.pop()

    def visit_For(self, node: cst.For) -> None:
        self.loops[-1] += 1

    def leave_For(self, original_node: cst.For) -> None:
        self.loops[-1] -= 1

    visit_While = visit_For  # type: ignore[assignment]
    leave_While = leave_For  # type: ignore[assignment]
    visit_ListComp = visit_GeneratorExp = visit_SetComp = visit_DictComp = visit_For  # type: ignore[assignment]
    leave_ListComp = leave_GeneratorExp = leave_SetComp = leave_DictComp = leave_For  # type: ignore[assignment]

    def visit_If(self, node: cst.If) -> bool:
        visit_read_only(node.test, self)
        self.guards[-1].append(node)
        visit_read_only(node.body, self)
        self.guards[-1].pop()
        if node.orelse is not None:
            visit_read_only(node.orelse, self)
        return False

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.add(node.func)

    def _wanted(self, name: str) -> bool:
        return private(name) or name in self.defined

    def _add(self, name: str, node: cst.CSTNode, base: str | None) -> None:
        function = self.functions[-1] if self.functions else None
        called = node in self.calls
        reference = Reference(function, tuple(self.guards[-1]), called, base, self.loops[-1] > 0)
        self.found.setdefault(name, []).append(reference)

    def visit_Name(self, node: cst.Name) -> None:
        if (
            self._wanted(node.value)
            and id(node) not in self.own_names
            and node not in self.definitions
        ):
            self._add(node.value, node, None)

    # An attribute is a reference by its own name once what it is read from was walked.
    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.own_names.add(id(node.attr))

    def leave_Attribute(self, original_node: cst.Attribute) -> None:
        name = original_node.attr.value
        if self._wanted(name):
            value = original_node.value
            self._add(name, original_node, value.value if isinstance(value, cst.Name) else "")

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if isinstance(node.target, cst.Name):
            self.definitions.add(node.target)  # ``sinc = torch.sinc``: a rebinding, no use

    def visit_Param(self, node: cst.Param) -> None:
        # a parameter's name is no reference (its annotation and default are visited)
        self.own_names.add(id(node.name))
