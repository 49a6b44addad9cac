"""Aliases and escapes of a host buffer: the ways the host may reach its memory other than by its
own name.

Making a copy from pinned memory asynchronous is only correct when nothing writes the buffer until
the copy has run. Writes through the buffer's own name are found by
:func:`h2dlint.analysis.views.function_writes`; this module finds the other ways in, within one
function or, for a ``self.<attr>`` buffer, within every method of its class:

- an alias: a view or another name of the buffer bound to a name or an attribute
  (``v = buf[:n]``, ``self.np_view = self.buf.numpy()``, ``rows = buf.split(2)``,
  ``for row in buf:``), followed to the aliases of aliases;
- an escape: the buffer (or a view of it) passed to a call that is not known to only read it
  (``fill(buf, x)``, ``np.asarray(buf)``), returned or yielded, stored in a container or in an
  item, or used in a nested function.

Both are conservative: a name or call this module cannot follow counts as a way in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.alias_calls import (
    CONTAINERS,
    ELEMENTS,
    MAY_ALIAS_METHODS,
    NESTED,
    READ_ONLY_BUILTINS,
    READ_ONLY_METHODS,
    READ_ONLY_TORCH,
    VIEW_ATTRIBUTES,
)
from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.names import bound_parameters
from h2dlint.analysis.targets import Target
from h2dlint.analysis.writes import ALIAS_DEPTH, ALIASING_METHODS
from h2dlint.imports import dotted_name
from h2dlint.walk import OwnScopeVisitor, visit_read_only

if TYPE_CHECKING:
    from h2dlint.analysis.provenance import Provenance


@dataclass(frozen=True)
class Way:
    """One way the host may reach the buffer other than by its name. ``alias`` is the dotted
    name an alias is bound to (``v``, ``self.np_view``) in ``frame``, or None for an escape."""

    reason: str
    frame: Frame
    alias: str | None = None


@dataclass
class WaysIn:
    """Everything :func:`ways_in` found."""

    ways: list[Way] = field(default_factory=list)

    def aliases_in(self, frame: Frame) -> set[str]:
        """The dotted names of aliases bound in ``frame``'s function, and of ``self.<attr>``
        aliases of its class as ``frame`` spells ``self``."""
        names: set[str] = set()
        for way in self.ways:
            if way.alias is None:
                continue
            if way.frame.function is frame.function:
                names.add(way.alias)
            elif (
                frame.cls is not None
                and way.frame.cls is frame.cls
                and way.frame.self_name is not None
                and frame.self_name is not None
                and way.alias.startswith(way.frame.self_name + ".")
            ):
                names.add(frame.self_name + way.alias[len(way.frame.self_name) :])
        return names


# A buffer name to look for: ("local", frame, dotted) is a name of one function (or of the
# module), ("attr", class, attribute) a ``self.<attribute>`` of every method of a class.
_Key = tuple[str, object, str]


def _key(frame: Frame, dotted: str) -> _Key:
    head, _, rest = dotted.partition(".")
    if (
        frame.cls is not None
        and frame.self_name is not None
        and head == frame.self_name
        and rest
        and "." not in rest
    ):
        return ("attr", frame.cls, rest)
    return ("local", frame, dotted)


def _bound_names(node: cst.FunctionDef | cst.Lambda) -> set[str]:
    """The names a nested function or lambda binds for itself (so that a use of one there is not
    the outer buffer): its parameters and, for a function, what it assigns, unless declared
    ``global`` or ``nonlocal``."""
    names = set(bound_parameters(node.params))
    if isinstance(node, cst.FunctionDef):
        collector = _Locals()
        visit_read_only(node.body, collector)
        names |= collector.assigned - collector.declared
    return names


class _Locals(OwnScopeVisitor):
    def __init__(self) -> None:
        self.assigned: set[str] = set()
        self.declared: set[str] = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.assigned.add(node.name.value)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.assigned.add(node.name.value)
        return False

    def _names(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.assigned.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._names(element.value)
        elif isinstance(target, cst.StarredElement):
            self._names(target.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._names(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._names(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._names(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._names(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._names(node.target)

    def visit_Global(self, node: cst.Global) -> None:
        self.declared.update(item.name.value for item in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.declared.update(item.name.value for item in node.names)


def _skipped_name(node: cst.Name, parent: cst.CSTNode) -> bool:
    """Whether ``node`` is not a use of a variable: an attribute's name, a keyword, a parameter,
    the name of a definition or an import."""
    if isinstance(parent, cst.Attribute):
        return parent.attr is node
    if isinstance(parent, cst.Arg):
        return parent.keyword is node
    return isinstance(
        parent,
        (cst.Param, cst.FunctionDef, cst.ClassDef, cst.ImportAlias, cst.AsName, cst.NameItem),
    )


class _Scan(cst.CSTVisitor):
    """Finds the uses of one dotted name in one function, and the ways in they open."""

    def __init__(self, provenance: Provenance, frame: Frame, dotted: str) -> None:
        self.provenance = provenance
        self.frame = frame
        self.dotted = dotted
        self.head = dotted.partition(".")[0]
        self.stack: list[cst.CSTNode] = []
        # Nested functions and lambdas around the current node: whether each shadows the name.
        self.nested: list[bool] = []
        self.ways: list[Way] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        parent = self.stack[-1] if self.stack else None
        self.stack.append(node)
        if isinstance(node, NESTED) and node is not self.frame.function:
            shadows = isinstance(node, (cst.FunctionDef, cst.Lambda)) and self.head in _bound_names(
                node
            )
            self.nested.append(shadows)
            # A class body's names are its own, but its methods may read the outer name.
            return not shadows
        if isinstance(node, (cst.Name, cst.Attribute)) and parent is not None:
            if isinstance(node, cst.Name) and _skipped_name(node, parent):
                return False
            if dotted_name(node) == self.dotted:
                self._use(node)
                return False
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()
        if isinstance(original_node, NESTED) and original_node is not self.frame.function:
            self.nested.pop()

    def _add(self, reason: str, alias: str | None = None) -> None:
        self.ways.append(Way(reason, self.frame, alias))

    def _use(self, node: cst.BaseExpression) -> None:
        if self.nested:
            self._add("is used in a nested function or lambda")
            return
        if isinstance(node, cst.Name) and self._rebound_elsewhere(node):
            return  # ``x = x.to(device)`` then ``return x``: the name no longer is the buffer
        shown = self.provenance.context.module.code_for_node
        i = len(self.stack) - 2  # the parent of ``node``
        expression: cst.CSTNode = node
        contained = False
        while i >= 0:
            parent = self.stack[i]
            if isinstance(parent, cst.Subscript) and parent.value is expression:
                expression, i = parent, i - 1
            elif isinstance(parent, cst.Attribute) and parent.value is expression:
                call = self.stack[i - 1] if i >= 1 else None
                if parent.attr.value in VIEW_ATTRIBUTES:
                    expression, i = parent, i - 1
                elif (
                    isinstance(call, cst.Call)
                    and call.func is parent
                    and self._aliasing_method(parent.attr.value, call)
                ):
                    expression, i = call, i - 2
                else:
                    return  # a method called on it, or an attribute read
            elif (isinstance(parent, cst.IfExp) and expression is not parent.test) or isinstance(
                parent, cst.BooleanOperation
            ):
                # ``a if c else buf``, ``buf or a``: the value may be the buffer
                expression, i = parent, i - 1
            elif isinstance(parent, ELEMENTS) and i >= 1:
                if not isinstance(self.stack[i - 1], CONTAINERS):
                    break
                expression, i, contained = self.stack[i - 1], i - 2, True
            else:
                break
        if i < 0:
            return
        parent = self.stack[i]
        code = shown(expression)
        if isinstance(parent, (cst.Assign, cst.AnnAssign, cst.NamedExpr)):
            if getattr(parent, "value", None) is not expression:
                return  # a store to it: a write (function_writes) or a new binding
            targets = (
                [t.target for t in parent.targets]
                if isinstance(parent, cst.Assign)
                else [parent.target]
            )
            for target in targets:
                self._bind(target, code, contained)
        elif isinstance(parent, cst.For) and parent.iter is expression:
            self._bind(parent.target, f"rows of {code}", False)
        elif isinstance(parent, cst.CompFor) and parent.iter is expression:
            self._add("is iterated over in a comprehension")
        elif isinstance(parent, cst.Arg):
            call = self.stack[i - 1]
            if parent.keyword is not None and parent.keyword.value == "out":
                return  # a write, which function_writes finds
            if not isinstance(call, cst.Call) or parent.star or not self._read_only(call):
                callee = shown(call.func) if isinstance(call, cst.Call) else "a call"
                self._add(f"is passed to `{callee}()`")
        elif isinstance(parent, cst.Return):
            self._add("is returned")
        elif isinstance(parent, (cst.Yield, cst.Await)):
            self._add("is yielded")
        elif isinstance(parent, (cst.WithItem, cst.DictElement, cst.StarredDictElement)):
            self._add("is stored where h2dlint cannot follow it")
        elif contained:
            self._add("is put in a container")

    def _rebound_elsewhere(self, use: cst.Name) -> bool:
        """Whether every binding of ``use``'s name that may reach it is provably a tensor on
        the device, so that this use is not of the host buffer."""
        reaching = self.provenance.bindings(self.frame).reaching_bindings(use)
        return bool(reaching) and all(
            binding.value is not None
            and self.provenance.fact(binding.value, self.frame).where is Where.DEVICE
            for binding in reaching
        )

    def _bind(self, target: cst.BaseExpression, code: str, contained: bool) -> None:
        name = dotted_name(target) if isinstance(target, (cst.Name, cst.Attribute)) else None
        if name is None or contained:
            where = self.provenance.context.module.code_for_node(target)
            self._add(f"is stored in `{where}`")
            return
        self._add(f"is also reachable as `{name}` (`{code}`)", alias=name)

    def _aliasing_method(self, method: str, call: cst.Call) -> bool:
        if method in ALIASING_METHODS or method in MAY_ALIAS_METHODS:
            return True
        if method == "to":
            # ``buf.to(device)`` is the copy; ``buf.to("cpu")``, ``buf.to(dtype)`` may be ``buf``.
            target = self.provenance.to_target(call, self.frame)
            return target in (Target.HOST, Target.DTYPE)
        return False

    def _read_only(self, call: cst.Call) -> bool:
        func = call.func
        qualified = self.provenance.qualify(func)
        if qualified is not None:
            return qualified in READ_ONLY_TORCH
        if isinstance(func, cst.Name):
            return func.value in READ_ONLY_BUILTINS
        if isinstance(func, cst.Attribute):
            return func.attr.value in READ_ONLY_METHODS
        return False


def _frames_of(provenance: Provenance, key: _Key) -> list[tuple[Frame, str]]:
    kind, where, name = key
    if kind == "local":
        assert isinstance(where, Frame)
        return [(where, name)]
    assert isinstance(where, cst.ClassDef)
    found = []
    for method in provenance.index.methods.get(where, {}).values():
        frame = provenance.index.frame_of(method)
        if frame.self_name is not None:
            found.append((frame, f"{frame.self_name}.{name}"))
    return found


def ways_in(provenance: Provenance, frame: Frame, roots: set[str]) -> WaysIn:
    """The aliases and escapes of the buffer known in ``frame`` by the dotted names ``roots``
    (see :func:`h2dlint.analysis.views.buffer_roots`), looked for in ``frame``'s function and,
    for ``self.<attr>`` roots, in every method of the class; aliases are followed to their own
    aliases up to ``ALIAS_DEPTH`` steps. Aliases that are roots themselves are not listed."""
    known = {_key(frame, root) for root in roots}
    pending = [(key, 0) for key in known]
    seen = set(known)
    result = WaysIn()
    while pending:
        key, depth = pending.pop()
        for scan_frame, dotted in _frames_of(provenance, key):
            scan = _Scan(provenance, scan_frame, dotted)
            visit_read_only(scan_frame.function, scan)
            for way in scan.ways:
                if way.alias is None:
                    result.ways.append(way)
                    continue
                alias_key = _key(way.frame, way.alias)
                if alias_key in known:
                    continue
                if alias_key not in seen:
                    result.ways.append(way)
                    seen.add(alias_key)
                    if depth + 1 < ALIAS_DEPTH:
                        pending.append((alias_key, depth + 1))
    return result
