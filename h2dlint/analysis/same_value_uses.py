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
from h2dlint.analysis.type_tests import tensor_type_test
from h2dlint.walk import visit_read_only


class _Receivers(cst.CSTVisitor):
    """The names a function's own body (not nested functions, lambdas or classes, whose
    bindings are their own) calls a tensor-only method on: ``x.type_as(y)``, ``x.fill_(0)``;
    not under a tensor type test of the name (``if isinstance(batch, torch.Tensor):
    batch.detach()`` holds only for the values the test lets in: monai's ``decollate_batch``
    reads ``batch.item()`` above it for numpy scalars too)."""

    def __init__(self, provenance: Provenance) -> None:
        self.provenance = provenance
        self.found: dict[str, list[cst.Name]] = {}
        self.tests: list[cst.BaseExpression] = []  # the enclosing `if`s' tests

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_If(self, node: cst.If) -> None:
        self.tests.append(node.test)

    def leave_If(self, original_node: cst.If) -> None:
        self.tests.pop()

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self.tests.append(node.test)

    def leave_IfExp(self, original_node: cst.IfExp) -> None:
        self.tests.pop()

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.attr.value in TENSOR_USE_METHODS
            and not any(_type_tests(self.provenance, t, func.value.value) for t in self.tests)
        ):
            self.found.setdefault(func.value.value, []).append(func.value)


def _type_tests(provenance: Provenance, test: cst.BaseExpression, name: str) -> bool:
    """Whether ``test`` holds a tensor type test of ``name`` (:func:`tensor_type_test`), also
    as a part of ``and``/``or``/``not``: the code it guards runs for some values only."""
    if isinstance(test, cst.BooleanOperation):
        return _type_tests(provenance, test.left, name) or _type_tests(provenance, test.right, name)
    if isinstance(test, cst.UnaryOperation):
        return _type_tests(provenance, test.expression, name)
    return tensor_type_test(provenance, test, name) is not None


_CACHE: dict[int, tuple[cst.FunctionDef, dict[str, list[cst.Name]]]] = {}


def _receivers(provenance: Provenance, function: cst.FunctionDef) -> dict[str, list[cst.Name]]:
    cached = _CACHE.get(id(function))
    if cached is not None and cached[0] is function:
        return cached[1]
    finder = _Receivers(provenance)
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
    uses = _receivers(provenance, function).get(name.value)
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
