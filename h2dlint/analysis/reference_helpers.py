"""Reference code by its callers: a private helper that only reference implementations use
(``_quantize_mxfp8`` behind ``_mxfp8_quantize_reference``, the trace templates' decoders) is
part of the reference, an oracle a kernel is checked against, not code that runs per step or
per request. :func:`h2dlint.analysis.loop_body.reference_code` says the same of the functions
whose own names say so (``reference``, ``oracle``, ``golden``, ``tester``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from h2dlint.analysis.loop_body import REFERENCE_WORDS, reference_code
from h2dlint.analysis.targets import name_words
from h2dlint.context import FileContext, SharedKey
from h2dlint.walk import visit_read_only


def in_reference_code(context: FileContext, ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether the innermost of ``ancestors`` is in reference code: the module's, a class's or
    a function's name says so, or a function around it is a private helper that only
    reference code of the module uses."""
    if reference_code(context.path, ancestors):
        return True
    return any(
        isinstance(node, cst.FunctionDef) and reference_helper(context, node) for node in ancestors
    )


def reference_helper(
    context: FileContext, function: cst.FunctionDef, seen: frozenset[str] = frozenset()
) -> bool:
    """Whether ``function`` is a private top-level function (``_name``) of the module that only
    reference code uses: every mention of its name is in a function named for reference code
    (or in another such helper), or an argument of a call named so (a trace template's
    ``_bind_trace_reference_dependencies(_ref, _helper)``), or an item of a value assigned to a
    name that says so (``_FP4_REFERENCE_DEPENDENCIES = (_helper, ...)``). A helper mentioned
    anywhere else may be called from anywhere (a table, a callback): not one."""
    name = function.name.value
    if not name.startswith("_") or name.startswith("__") or name in seen:
        return False
    uses = context.shared(_USES, lambda: _Uses.of(context.module))
    if uses.functions.get(name) is not function:
        return False  # a method or a nested function: its callers are not all in sight
    found = uses.found.get(name, [])
    if not found:
        return False
    for use in found:
        if use.through is not None and name_words(use.through) & REFERENCE_WORDS:
            continue
        caller = use.function
        if caller is None or caller is function:
            return False
        if name_words(caller.name.value) & REFERENCE_WORDS:
            continue
        if not reference_helper(context, caller, seen | {name}):
            return False
    return True


@dataclass(frozen=True)
class _Use:
    """A mention of a private top-level function's name: in which function, and, when it is not
    called there, the name of the call it is an argument of (or of the name it is assigned to,
    in a tuple of them)."""

    function: cst.FunctionDef | None
    through: str | None


class _Uses(cst.CSTVisitor):
    """The module's top-level functions, and every mention of a private name."""

    @classmethod
    def of(cls, module: cst.Module) -> _Uses:
        uses = cls(module)
        visit_read_only(module, uses)
        return uses

    def __init__(self, module: cst.Module) -> None:
        self.functions = {s.name.value: s for s in module.body if isinstance(s, cst.FunctionDef)}
        self.found: dict[str, list[_Use]] = {}
        self._functions: list[cst.FunctionDef] = []
        self._calls: list[cst.Call] = []
        self._assigned: list[str | None] = []
        self._definitions = {f.name for f in self.functions.values()}

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._definitions.add(node.name)
        self._functions.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._functions.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        target = node.targets[0].target
        name = target.attr.value if isinstance(target, cst.Attribute) else None
        self._assigned.append(target.value if isinstance(target, cst.Name) else name)

    def leave_Assign(self, original_node: cst.Assign) -> None:
        self._assigned.pop()

    def visit_Call(self, node: cst.Call) -> None:
        self._calls.append(node)

    def leave_Call(self, original_node: cst.Call) -> None:
        self._calls.pop()

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        visit_read_only(node.value, self)
        return False  # ``obj._name`` is another object's member

    def visit_Name(self, node: cst.Name) -> None:
        name = node.value
        if not name.startswith("_") or name not in self.functions or node in self._definitions:
            return
        call = self._calls[-1] if self._calls else None
        called = call is not None and call.func is node
        through = None
        if call is not None and not called:
            func = call.func
            through = func.value if isinstance(func, cst.Name) else None
            if isinstance(func, cst.Attribute):
                through = func.attr.value
        elif call is None and self._assigned:
            through = self._assigned[-1]  # ``_REFERENCE_DEPENDENCIES = (_helper, ...)``
        function = self._functions[-1] if self._functions else None
        self.found.setdefault(name, []).append(_Use(function, through))


_USES: SharedKey[_Uses] = SharedKey("reference helper uses")
