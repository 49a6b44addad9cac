"""A name the function uses as a tensor elsewhere while it holds the same value.

``_optimal_step_size(last_step, error_ratio, ...)`` tests ``if error_ratio == 0:`` and ``if
error_ratio < 1:``, then rebinds ``error_ratio = error_ratio.type_as(last_step)``
(torchdiffeq 0.2.5 ``_impl/misc.py:92``, ``:94``, ``:95``): ``type_as`` is a method only
tensors have, and the bindings that reach its receiver are exactly those that reach the two
tests (the parameter alone), so the tests compare a tensor too, and each calls ``bool()`` of
it. :func:`~h2dlint.analysis.item_writes.used_as_tensor` asks the same of a name bound once;
this asks it of a parameter read before the function rebinds it: a use after another binding
of the name (a different value) says nothing about the read.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.item_writes import TENSOR_USE_METHODS
from h2dlint.analysis.provenance import Provenance
from h2dlint.walk import visit_read_only


class _Receivers(cst.CSTVisitor):
    """The names a function's own body (not nested functions, lambdas or classes, whose
    bindings are their own) calls a tensor-only method on: ``x.type_as(y)``, ``x.fill_(0)``."""

    def __init__(self) -> None:
        self.found: dict[str, list[cst.Name]] = {}
        # names a type test guards where the walk is (``if isinstance(batch, torch.Tensor):``):
        # a tensor-only use there holds only for the values the test lets in (monai's
        # ``decollate_batch`` calls ``batch.item()`` above for numpy scalars too)
        self.guarded: dict[str, int] = {}

    def _guard(self, test: cst.BaseExpression, step: int) -> None:
        for name in _type_tested(test):
            self.guarded[name] = self.guarded.get(name, 0) + step

    def visit_If(self, node: cst.If) -> None:
        self._guard(node.test, 1)

    def leave_If(self, original_node: cst.If) -> None:
        self._guard(original_node.test, -1)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._guard(node.test, 1)

    def leave_IfExp(self, original_node: cst.IfExp) -> None:
        self._guard(original_node.test, -1)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.attr.value in TENSOR_USE_METHODS
            and not self.guarded.get(func.value.value)
        ):
            self.found.setdefault(func.value.value, []).append(func.value)


_TYPE_TESTS = frozenset({"isinstance", "is_tensor", "torch.is_tensor"})


def _type_tested(test: cst.BaseExpression) -> list[str]:
    """The names a type test in ``test`` asks about (``isinstance(x, T)``, ``torch.is_tensor(x)``,
    also inside ``and``/``or``/``not``)."""
    if isinstance(test, cst.BooleanOperation):
        return _type_tested(test.left) + _type_tested(test.right)
    if isinstance(test, cst.UnaryOperation):
        return _type_tested(test.expression)
    if not isinstance(test, cst.Call) or not test.args:
        return []
    func = test.func
    called = (
        func.value
        if isinstance(func, cst.Name)
        else f"torch.{func.attr.value}"
        if isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.Name)
        and func.value.value == "torch"
        else ""
    )
    first = test.args[0].value
    if called in _TYPE_TESTS and isinstance(first, cst.Name):
        return [first.value]
    return []


_CACHE: dict[int, tuple[cst.FunctionDef, dict[str, list[cst.Name]]]] = {}


def _receivers(function: cst.FunctionDef) -> dict[str, list[cst.Name]]:
    cached = _CACHE.get(id(function))
    if cached is not None and cached[0] is function:
        return cached[1]
    finder = _Receivers()
    visit_read_only(function.body, finder)
    if len(_CACHE) > 256:
        _CACHE.clear()
    _CACHE[id(function)] = (function, finder.found)
    return finder.found


def same_value_used_as_tensor(provenance: Provenance, name: cst.Name, frame: Frame) -> bool:
    """Whether ``name`` reads a parameter's own value (no other binding reaches it) that the
    function also calls a tensor-only method on, where the parameter alone reaches too: what
    every caller passes is a tensor, or that call would fail. A local name rebound from a call
    stays as :func:`~h2dlint.analysis.item_writes.used_as_tensor` judges it."""
    function = frame.function
    if not isinstance(function, cst.FunctionDef):
        return False
    uses = _receivers(function).get(name.value)
    if not uses:
        return False
    bindings = provenance.bindings(frame)
    if not bindings.is_parameter(name):
        return False  # a local's tensor use proves only its binding (HTD202's look-alikes)
    reaching = {id(b) for b in bindings.reaching_bindings(name)}
    return any(
        use is not name and {id(b) for b in bindings.reaching_bindings(use)} == reaching
        for use in uses
    )
