"""A call of a helper that returns a tensor test of its argument, tested by the caller.

``def has_only_one_value(t): return (t == t[0]).all()`` gives a 0-d device tensor when ``t``
is on the device; ``if has_only_one_value(sizes):`` or ``var = not has_only_one_value(sizes)``
in the caller is Python's ``bool()`` of it, a device sync, as ``if (sizes == sizes[0]).all():``
written there would be (st-moe-pytorch 0.1.8 st_moe_pytorch.py:224 and distributed.py:45, on
the sizes every rank all-gathers each forward).

:func:`helper_tested_argument` answers with the argument the caller passes for that parameter,
whose own evidence (on the device: HIGH; surely a tensor: MEDIUM) the rule judges. The helper is
a function of the project the call resolves to, not a generator, and every one of its returns is
a tensor test (:func:`~h2dlint.analysis.value_syncs.tensor_test`: ``t.any()``, ``(x > 0)
.all()``, ``x.max() > 0``) that reads exactly one of its parameters and nothing but literals
and that parameter. A helper that reads the value itself (``return bool(t.all())``) is
reported inside it; one that returns a Python value (``return len(t) == 1``) is no test.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from h2dlint.analysis.fact_source import FactSource
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.returns import returned_values
from h2dlint.analysis.value_syncs import tensor_test
from h2dlint.walk import visit_read_only


def helper_tested_argument(
    provenance: Provenance, test: cst.BaseExpression, frame: Frame
) -> cst.BaseExpression | None:
    """The argument of ``test`` (a call, also under ``not``) for the parameter its helper
    returns a tensor test of; None when ``test`` is no such call."""
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test = test.expression
    if not isinstance(test, cst.Call) or not isinstance(test.func, (cst.Name, cst.Attribute)):
        return None
    if not test.args:  # passes no argument (``is_torchdynamo_compiling()``): not resolved, its
        return None  # module not parsed or loaded (transformers' import_utils, 0.05 s a worker)
    found = provenance.callee(test, frame)
    if found is None:
        return None
    owner, function = found
    params = [p.name.value for p in function.params.params]
    if owner.index.owner.get(function) is not None and isinstance(test.func, cst.Attribute):
        params = params[1:]  # a method called on its object: ``self`` is bound
    tested = _tested_parameter(function, frozenset(params), _imported(owner))
    if tested is None:
        return None
    return _argument(test, params, tested)


def _imported(owner: FactSource) -> Callable[[str], bool]:
    """Whether a name is one the helper's module imports (``torch`` of ``torch.isnan(t)``)."""
    return lambda name: owner.qualify(cst.Name(name)) is not None


def _tested_parameter(
    function: cst.FunctionDef, params: frozenset[str], imported: Callable[[str], bool]
) -> str | None:
    """The one parameter every ``return`` of ``function`` gives a tensor test of."""
    values = returned_values(function)
    if not values:
        return None
    found: set[str] = set()
    for value in values:
        if tensor_test(value) is None:
            return None
        names = _Names()
        visit_read_only(value, names)
        others = {n for n in names.read - params if not imported(n)}
        if names.other or len(names.read & params) != 1 or others:
            return None
        found |= names.read & params
    return found.pop() if len(found) == 1 else None


def _argument(call: cst.Call, params: list[str], name: str) -> cst.BaseExpression | None:
    """What ``call`` passes for parameter ``name``."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    positional = [arg for arg in call.args if arg.keyword is None]
    if any(arg.star for arg in positional):
        return None
    index = params.index(name)
    return positional[index].value if index < len(positional) else None


class _Names(cst.CSTVisitor):
    """The names an expression reads (not attribute or keyword names), and whether it holds
    anything that may read more (a lambda, a comprehension, a call of a bare name)."""

    def __init__(self) -> None:
        self.read: set[str] = set()
        self.other = False

    def visit_Name(self, node: cst.Name) -> None:
        self.read.add(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        visit_read_only(node.value, self)
        return False  # ``t.all``: the attribute's name is no read

    def visit_Arg(self, node: cst.Arg) -> bool:
        visit_read_only(node.value, self)
        return False  # ``dim=0``: the keyword is no read

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name):
            self.other = True  # ``f(t).all()``: what ``f`` does is not known here

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self.other = True

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self.other = True
