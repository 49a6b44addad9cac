"""Arms of a function that none of its calls take: the parameter an arm tests is settled by what
every call passes (:mod:`~h2dlint.analysis.argument_flow`).

``def to_onehot(label_tensor, num_classes=None): if num_classes is None: num_classes =
int(label_tensor.max().item() + 1)`` syncs only when a call leaves ``num_classes`` out; when
every call of the helper in the project passes one (torchmetrics' hinge update passes
``max(2, preds.shape[1])``), the read never runs, however hot the helper is. The same for a
read after an early return (``if lens is not None: return torch.split(x, lens)``, AReaL's
``unpack_sequence``, whose one caller passes ``lens=``) and for a flag's arm (``if check:``)
that every call turns off with ``False``.

The arms told: the body of ``if P is None:`` (or the ``else`` of ``if P is not None:``), the
body of ``if not P:`` and the value of ``x if not P else P`` (run when ``P`` is falsy), the
body of ``if P:`` (run when ``P`` is truthy), and the statements after ``if P is not None:
return ...`` (or ``if P: return ...``) at the top of the function's body. ``P`` is a parameter
of the function the read is in; the read's own ``if``s in between do not matter. Every call
must be known (argument flow's conditions: a public framework method, a callback, a
``*args`` call leave the arm unsettled), and each call's value must surely settle it: written
so that it cannot be None (a number, a display, arithmetic, a size, a builtin's result, a
host value another module's summary places), surely true (a non-zero number, ``True``), or
surely false (``False``, ``None``, ``0``) as the arm needs. A call that leaves the parameter to
its default is judged by the default.

HTD202 asks only for a read that is hot through its function's calls (``called from ...``): a
function hot by its own loop is hot for a caller outside the project too, which may take an
arm the project's calls leave alone (amd-quark's ``ppl_eval_with_synthetic_dataset`` loops
over a dataset and copies each sample's ids for ONNX under ``is_onnx_model``, which no call
in the package sets: a user's call does; labelled true).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.argument_flow import passed
from h2dlint.analysis.chained_arguments import argument_at
from h2dlint.analysis.fact_source import FactSource
from h2dlint.analysis.frames import Frame
from h2dlint.walk import visit_read_only

# What an arm needs of its parameter to run: None, a false value, a true value.
NONE, FALSY, TRUTHY = "none", "falsy", "truthy"
# Codes of another module's argument that are never None (numpy, host data, tensors).
_NOT_NONE_CODES = frozenset("nlcpd")
# Builtins whose result is never None.
_VALUE_BUILTINS = frozenset(
    {"int", "float", "len", "max", "min", "sum", "abs", "round", "list", "tuple", "dict", "str"}
)
_DISPLAYS = (
    cst.Integer,
    cst.Float,
    cst.SimpleString,
    cst.ConcatenatedString,
    cst.FormattedString,
    cst.List,
    cst.Tuple,
    cst.Dict,
    cst.Set,
    cst.ListComp,
    cst.SetComp,
    cst.DictComp,
    cst.BinaryOperation,
    cst.UnaryOperation,
    cst.Comparison,
)


def settled_arm(source: FactSource, ancestors: Sequence[cst.CSTNode], node: cst.CSTNode) -> bool:
    """Whether ``node`` (a read) lies in an arm of its function that no call takes."""
    found = _function_at(ancestors)
    if found is None:
        return False
    at, function = found
    path = [*ancestors[at + 1 :], node]
    for parameter, need, guard in _arm_needs(function, path):
        if _settled(source, function, parameter, need, guard):
            return True
    return False


def _function_at(ancestors: Sequence[cst.CSTNode]) -> tuple[int, cst.FunctionDef] | None:
    for at in range(len(ancestors) - 1, -1, -1):
        if isinstance(ancestors[at], cst.FunctionDef):
            return at, ancestors[at]  # type: ignore[return-value]
        if isinstance(ancestors[at], (cst.ClassDef, cst.Lambda)):
            return None
    return None


def _arm_needs(
    function: cst.FunctionDef, path: list[cst.CSTNode]
) -> list[tuple[str, str, cst.CSTNode]]:
    """(parameter, what it must be for ``path``'s end to run, the test's ``if``) of each arm
    around it."""
    needs: list[tuple[str, str, cst.CSTNode]] = []
    for parent, child in itertools.pairwise(path):
        if isinstance(parent, cst.If | cst.IfExp) and child is not parent.test:
            needs += _test_needs(parent.test, child is parent.body, parent)
    body = function.body
    if path and isinstance(body, cst.IndentedBlock) and len(path) > 1 and path[0] is body:
        statement = path[1]
        for earlier in body.body:
            if earlier is statement:
                break
            if isinstance(earlier, cst.If) and earlier.orelse is None and _leaves(earlier):
                needs += _test_needs(earlier.test, False, earlier)
    return needs


def _leaves(branch: cst.If) -> bool:
    """Whether ``branch``'s body always returns or raises."""
    body = branch.body
    last = body.body[-1] if isinstance(body, cst.IndentedBlock) and body.body else None
    if isinstance(last, cst.SimpleStatementLine):
        return isinstance(last.body[-1], (cst.Return, cst.Raise))
    if isinstance(body, cst.SimpleStatementSuite):
        return isinstance(body.body[-1], (cst.Return, cst.Raise))
    return False


def _test_needs(
    test: cst.BaseExpression, taken: bool, guard: cst.CSTNode
) -> list[tuple[str, str, cst.CSTNode]]:
    """What ``test``'s parameter must be for the arm (``taken``: the test holds) to run."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _test_needs(test.expression, not taken, guard)
    if isinstance(test, cst.Name) and test.value not in ("True", "False", "None"):
        return [(test.value, TRUTHY if taken else FALSY, guard)]
    if (
        isinstance(test, cst.Comparison)
        and isinstance(test.left, cst.Name)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].comparator, cst.Name)
        and test.comparisons[0].comparator.value == "None"
    ):
        operator = test.comparisons[0].operator
        if isinstance(operator, cst.Is) == taken and isinstance(operator, (cst.Is, cst.IsNot)):
            return [(test.left.value, NONE, guard)]
    return []


def _settled(
    source: FactSource, function: cst.FunctionDef, parameter: str, need: str, guard: cst.CSTNode
) -> bool:
    """Whether every call of ``function`` passes ``parameter`` a value the arm does not run on
    (and the function binds it nowhere but in the arms of ``guard``, after its test)."""
    if not any(
        p.name.value == parameter for p in (*function.params.params, *function.params.kwonly_params)
    ) or _rebinds(function, parameter, guard):
        return False
    flow = passed(source, function, parameter)
    if flow is None:
        return False
    if any(not _keeps_out(a.value, need, a.source, a.frame) for a in flow.local):
        return False
    pending = iter(flow.pending)
    for code in flow.remote:
        if code == "?":
            found = argument_at(source, *next(pending))
            if found is None or not _keeps_out(found[1], need, found[0], found[2]):
                return False
        elif not (need == NONE and code in _NOT_NONE_CODES):
            return False
    return True


def _keeps_out(
    value: cst.BaseExpression, need: str, source: FactSource | None, frame: Frame | None
) -> bool:
    """Whether ``value``, passed for the parameter, surely keeps the arm from running; a
    local name of the call's function (``frame`` of ``source``) by the values reaching it."""
    if need == TRUTHY:
        return _falsy(value)
    if need == FALSY:
        return _truthy(value)
    if isinstance(value, cst.Name) and value.value in ("True", "False"):
        return True
    if isinstance(value, cst.Name):
        if source is None or frame is None:
            return False
        reaching = source.bindings(frame).reaching(value)
        return bool(reaching) and all(
            v is not None and _keeps_out(v, need, None, None) for v in reaching
        )
    if isinstance(value, _DISPLAYS):
        return True
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
        return value.func.value in _VALUE_BUILTINS
    return _size(value)


def _size(value: cst.BaseExpression) -> bool:
    """``x.shape[i]``, ``x.size(i)``."""
    if isinstance(value, cst.Subscript):
        value = value.value
        return isinstance(value, cst.Attribute) and value.attr.value == "shape"
    return (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value == "size"
        and len(value.args) == 1
    )


def _truthy(value: cst.BaseExpression) -> bool:
    if isinstance(value, cst.Name):
        return value.value == "True"
    if isinstance(value, (cst.Integer, cst.Float)):
        return value.evaluated_value != 0
    return False


def _falsy(value: cst.BaseExpression) -> bool:
    if isinstance(value, cst.Name):
        return value.value in ("False", "None")
    if isinstance(value, (cst.Integer, cst.Float)):
        return value.evaluated_value == 0
    return False


def _rebinds(function: cst.FunctionDef, name: str, guard: cst.CSTNode) -> bool:
    """Whether ``function`` binds ``name`` itself outside ``guard``'s arms (then the test may
    not read what the calls pass)."""
    finder = _Binds(name, guard)
    visit_read_only(function.body, finder)
    return finder.found


class _Binds(cst.CSTVisitor):
    def __init__(self, name: str, guard: cst.CSTNode) -> None:
        self.name = name
        self.guard = guard
        self.found = False

    def visit_If(self, node: cst.If) -> bool:
        if node is self.guard:
            visit_read_only(node.test, self)
            return False
        return True

    def _target(self, target: cst.BaseExpression) -> None:
        names = [target, *(e.value for e in getattr(target, "elements", ()))]
        if any(isinstance(n, cst.Name) and n.value == self.name for n in names):
            self.found = True

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._target(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._target(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._target(node.target)
