"""Code that runs only for degenerate input or when something went wrong: not per step.

- A fallback for degenerate input: the arm of a conditional taken only when a tensor has no
  element (``x.mean() if x.numel() > 0 else torch.tensor(0.0, device=d)``), or only for NaN or
  infinite values (``if torch.isnan(t).all(): return torch.tensor(float("nan"), ...)``, the
  ``else`` of ``if norms.isfinite().all():``). The other arm is what runs every step; the test
  itself runs every time and is not covered. Only a tensor's count of elements says so: an
  empty dimension or list (``if dets.size(0) == 0:``, a video frame with no detection;
  ``len(queue) == 0``) is a state the code meets in normal runs, ``len(x.shape) == 0`` is a
  0-d tensor, and ``x.numel() > 1`` also tells a per-tensor scale from a per-channel one.
- An error or warning branch: an ``if`` whose body ends by raising or by emitting a warning
  (``if missing.any(): n = int(missing.sum().item()); raise ValueError(...)``, ``if
  bad.any(): row = bad.nonzero()[0]; logger.warning(...)``): its body runs when the check
  fails. The test itself runs every time and is not covered.
- A repair of a bad value: an ``if`` whose body reports the value first (a log call at any
  level, ``print``, or a function named for warning: ``rank_zero_warn``) and then only rebinds
  a name its test reads (``if loss.item() > 1.0: print("out of range"); loss =
  torch.tensor(1.0, device=d)``) or returns (``if fpr.numel() < 2: rank_zero_warn("too few
  points"); return torch.tensor(0.0, device=d)``): it runs when the value is out of range.
  A body that warns and then does other work (``logger.warning("large batch");
  total = x.sum().item()``) may be a fallback taken every step, and is not one.
- A failure tail: code followed, in a block of its function, by that block's final ``raise``
  with nothing between that leaves the block otherwise (no ``return``, ``break``,
  ``continue``, ``yield``), no loop between the code and that block, and no ``try`` around
  that could catch the error (:func:`failure_tail`): a rank's exception serialised and
  broadcast before every rank raises it (``payload = torch.tensor(list(encoded),
  device=d)`` ... ``raise RuntimeError(message)``). It runs once, on the way out. The same
  code before an early ``return`` (``if not failed: return``) runs on every call.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.float_checks import FLOAT_CHECKS
from h2dlint.analysis.names import names_in
from h2dlint.walk import ReadOnlyVisitor, visit_read_only

# Calls that emit a warning or an error report (``warnings.warn``, ``logger.warning``).
_WARNING_CALLS = frozenset({"warn", "warning", "error", "exception", "critical"})
# Calls that report a value at any level (a repair of a bad value may note it as info).
_REPORT_CALLS = _WARNING_CALLS | {"info", "debug", "log", "warning_once", "info_once"}


def degenerate_fallback(ancestors: Sequence[cst.CSTNode], node: cst.CSTNode) -> bool:
    """Whether ``node`` (below ``ancestors``, innermost last) lies in the arm of a conditional
    expression or an ``if`` statement of its function taken only for empty or all-NaN input."""
    masks: _MaskNames | None = None
    child = node
    for parent in reversed(ancestors):
        if isinstance(parent, (cst.FunctionDef, cst.Lambda)):
            return False
        if isinstance(parent, (cst.IfExp, cst.If)) and child is not parent.test:
            if masks is None:
                masks = _MaskNames(ancestors)
            if _degenerate_arm(parent.test, taken=child is parent.body, masks=masks):
                return True
        child = parent
    return False


class _MaskNames:
    """The names of a function bound only to element masks of (non-)finite values
    (``valid = torch.isfinite(boxes).all(dim=1) & torch.isfinite(scores)``), read lazily: a
    name with any other binding in the function (a parameter, a loop target, ``&=``, a
    tuple target, a second value of another kind) is none."""

    def __init__(self, ancestors: Sequence[cst.CSTNode]) -> None:
        self._ancestors = ancestors
        self._values: dict[str, list[cst.BaseExpression | None]] | None = None

    def polarity(self, name: str) -> bool | None:
        """True when ``name`` is a mask of non-finite values, False when of finite ones."""
        if self._values is None:
            function = next(
                (n for n in reversed(self._ancestors) if isinstance(n, cst.FunctionDef)), None
            )
            self._values = _bindings(function) if function is not None else {}
        values = self._values.get(name)
        if not values or any(value is None for value in values):
            return None
        kinds = {_nonfinite_test(value) for value in values if value is not None}
        return kinds.pop() if len(kinds) == 1 else None


def _bindings(function: cst.FunctionDef) -> dict[str, list[cst.BaseExpression | None]]:
    """Each name bound in ``function`` (not in nested scopes) with the values a plain
    ``name = value`` gives it; ``None`` for a binding of any other form."""
    found: dict[str, list[cst.BaseExpression | None]] = {}
    for param in [*function.params.params, *function.params.kwonly_params]:
        found.setdefault(param.name.value, []).append(None)
    for param in function.params.posonly_params:
        found.setdefault(param.name.value, []).append(None)

    visit_read_only(function, _Bindings(function, found))
    return found


class _Bindings(ReadOnlyVisitor):
    """Records each binding of a name in one function into ``found`` (see :func:`_bindings`)."""

    def __init__(
        self, function: cst.FunctionDef, found: dict[str, list[cst.BaseExpression | None]]
    ) -> None:
        self.function = function
        self.found = found

    def _other(self, target: cst.CSTNode) -> None:
        for name in names_in(target):
            self.found.setdefault(name, []).append(None)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return node is self.function

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            plain = isinstance(target.target, cst.Name) and len(node.targets) == 1
            for name in names_in(target.target):
                self.found.setdefault(name, []).append(node.value if plain else None)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        for name in names_in(node.target):
            self.found.setdefault(name, []).append(node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._other(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._other(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._other(node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._other(node.asname.name)


def _degenerate_arm(
    test: cst.BaseExpression, *, taken: bool, masks: _MaskNames | None = None
) -> bool:
    """Whether the arm run when ``test`` is ``taken`` (True: the body) is for degenerate
    input: the body of an emptiness test or of a test for NaN or infinite values, the other
    arm of a non-emptiness test or of a test that values are finite (a count of zero
    elements only). A test of a name bound only to such a mask (``valid =
    torch.isfinite(boxes).all(dim=1) & torch.isfinite(scores)``; ``if not valid.all():``)
    is one too."""
    if isinstance(test, cst.NamedExpr):  # ``if ok := norms.isfinite().all():``
        return _degenerate_arm(test.value, taken=taken, masks=masks)
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _degenerate_arm(test.expression, taken=not taken, masks=masks)
    nonfinite = _nonfinite_test(test, masks)
    if nonfinite is not None:
        return taken if nonfinite else not taken
    if _size(test):  # ``if x.numel():`` holds for non-empty input
        return not taken
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    target = test.comparisons[0]
    left, right, operator = test.left, target.comparator, target.operator
    if not _size(left):  # ``0 < x.numel()``: turn it around
        if not _size(right):
            return False
        left, right = right, left
        operator = _MIRRORED.get(type(operator), operator)
    bound = _small_int(right)
    if bound is None:
        return False
    if isinstance(operator, cst.Equal):
        return taken and bound == 0
    if isinstance(operator, (cst.LessThanEqual, cst.LessThan)):
        limit = bound - 1 if isinstance(operator, cst.LessThan) else bound
        return taken and limit == 0  # ``n < 1``, ``n <= 0``
    if isinstance(operator, cst.NotEqual):
        return not taken and bound == 0
    if isinstance(operator, (cst.GreaterThan, cst.GreaterThanEqual)):
        limit = bound - 1 if isinstance(operator, cst.GreaterThanEqual) else bound
        return not taken and limit == 0  # ``n > 0``, ``n >= 1``
    return False


_MIRRORED: dict[type, cst.BaseCompOp] = {
    cst.LessThan: cst.GreaterThan(),
    cst.GreaterThan: cst.LessThan(),
    cst.LessThanEqual: cst.GreaterThanEqual(),
    cst.GreaterThanEqual: cst.LessThanEqual(),
}


def _size(node: cst.BaseExpression) -> bool:
    """Whether ``node`` counts a tensor's elements: ``x.numel()``, ``x.nelement()``."""
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in ("numel", "nelement")
        and not node.args
    )


def _small_int(node: cst.BaseExpression) -> int | None:
    if isinstance(node, cst.Integer):
        return int(node.value)
    return None


# Element tests for values that are not finite: their branch is for broken numbers.
_NONFINITE_TESTS = FLOAT_CHECKS - {"isfinite"}


def _nonfinite_test(test: cst.BaseExpression, masks: _MaskNames | None = None) -> bool | None:
    """For a test of non-finite values: True when its body is for them (``torch.isnan(t).any()``,
    ``t.isnan().all()``, ``torch.isinf(loss)``), False when its other arm is
    (``torch.isfinite(norm)``, ``norms.isfinite().all()``); None for any other test.
    Element masks combine: ``isfinite(a) & isfinite(b)`` holds where both are finite,
    ``isnan(a) | isinf(b)`` where either is not (an ``&`` of non-finite masks, or a mask mixed
    with any other test, ``isfinite(x) & (x > 0)``, is none); with ``masks``, a name bound
    only to such a mask and reduced by ``.all()`` or ``.any()`` is one."""
    node = test
    reduced = False
    while (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in ("any", "all", "item")
    ):
        reduced = reduced or node.func.attr.value != "item"
        node = node.func.value
    if isinstance(node, cst.Name):
        # only a reduced mask (``valid.all()``): a bare name tested is a flag, not looked up
        return masks.polarity(node.value) if masks is not None and reduced else None
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.BitAnd, cst.BitOr)):
        left, right = _nonfinite_test(node.left, masks), _nonfinite_test(node.right, masks)
        if left is None or left != right:
            return None
        # all-finite masks meet with ``&``, non-finite ones join with ``|``
        return left if isinstance(node.operator, cst.BitOr) == left else None
    if not isinstance(node, cst.Call):
        return None
    func = node.func
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
    if name in _NONFINITE_TESTS:
        return True
    return False if name == "isfinite" else None


def error_branch(branch: cst.If) -> bool:
    """Whether the body of ``branch`` ends by raising or by emitting a warning or an error
    report: what it does before runs only when the check fails."""
    body = branch.body
    if not isinstance(body, cst.IndentedBlock) or not body.body:
        return False
    last: cst.CSTNode = body.body[-1]
    if isinstance(last, cst.SimpleStatementLine):
        last = last.body[-1]
    if isinstance(last, cst.Raise):
        return True
    if not isinstance(last, cst.Expr) or not isinstance(last.value, cst.Call):
        return False
    func = last.value.func
    return isinstance(func, cst.Attribute) and func.attr.value in _WARNING_CALLS


def repaired_value(ancestors: Sequence[cst.CSTNode], node: cst.CSTNode) -> bool:
    """Whether ``node`` (below ``ancestors``, innermost last) lies in the body of an ``if`` of
    its function that reports a bad value and then only rebinds names its test reads."""
    child = node
    for parent in reversed(ancestors):
        if isinstance(parent, (cst.FunctionDef, cst.Lambda)):
            return False
        if isinstance(parent, cst.If) and child is parent.body and _repair(parent):
            return True
        child = parent
    return False


def _repair(branch: cst.If) -> bool:
    body = branch.body
    if not isinstance(body, cst.IndentedBlock) or len(body.body) < 2:
        return False
    statements: list[cst.BaseSmallStatement] = []
    for line in body.body:
        if not isinstance(line, cst.SimpleStatementLine):
            return False
        statements.extend(line.body)
    first, rest = statements[0], statements[1:]
    if not (isinstance(first, cst.Expr) and isinstance(first.value, cst.Call)):
        return False
    if not _report(first.value.func):
        return False
    if len(rest) == 1 and isinstance(rest[0], cst.Return):
        return True  # ``if fpr.numel() < 2: rank_zero_warn(...); return torch.tensor(0.0, ...)``
    tested = names_in(branch.test)
    return bool(rest) and all(
        isinstance(s, cst.Assign)
        and all(isinstance(t.target, cst.Name) and t.target.value in tested for t in s.targets)
        for s in rest
    )


def _report(func: cst.BaseExpression) -> bool:
    """``print``, ``logger.info``, ``warnings.warn``, ``rank_zero_warn``,
    ``_unable_to_use_bias_correction_warning``: a call that reports at any level."""
    if isinstance(func, cst.Attribute):
        return func.attr.value in _REPORT_CALLS
    if not isinstance(func, cst.Name):
        return False
    return func.value in ("print", "warn") or func.value.endswith(("_warn", "_warning"))


# Statements that leave a block other than by raising, and ``yield`` (a generator resumes).
_OTHER_EXITS = (cst.Return, cst.Break, cst.Continue, cst.Yield)
_LOOPS = (cst.For, cst.While, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


def failure_tail(ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether the innermost node of ``ancestors`` (root first) runs only on the way to a
    ``raise``: a block around it in its function ends by raising, and nothing from the node's
    statement on leaves that block otherwise; no loop lies between the node and that block,
    and no ``try`` around it could catch the error (see the module docs)."""
    found = False
    for i in range(len(ancestors) - 1, 0, -1):
        parent, child = ancestors[i - 1], ancestors[i]
        if isinstance(parent, (cst.FunctionDef, cst.Lambda)):
            return found
        if isinstance(parent, (cst.Try, cst.TryStar)) and child is parent.body:
            return False  # a handler may catch it and go on
        if not found and isinstance(parent, _LOOPS):
            return False  # the loop's other iterations run before the raise
        if not found and isinstance(parent, cst.IndentedBlock):
            found = _raising_tail(parent, child)
    return False


def _raising_tail(block: cst.IndentedBlock, child: cst.CSTNode) -> bool:
    lines = list(block.body)
    if child not in lines or not lines:
        return False
    last = lines[-1]
    if not (isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Raise)):
        return False
    return not any(
        _leaves(line)
        for line in lines[lines.index(child) :]  # type: ignore[arg-type]
    )


def _leaves(node: cst.CSTNode) -> bool:
    if isinstance(node, _OTHER_EXITS):
        return True
    if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        return False  # a nested definition's exits are its own
    return any(_leaves(child) for child in node.children)


def raising_handler(handler: cst.ExceptHandler) -> bool:
    """Whether an ``except`` handler ends by raising (``except IndexError as e: if dim_size <=
    int(index.max()): raise ValueError(...) from e; raise e``): its body runs only after a
    failure, to explain it."""
    body = handler.body
    if not isinstance(body, cst.IndentedBlock) or not body.body:
        return False
    last = body.body[-1]
    return isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Raise)


def lazy_message(function: cst.Lambda) -> bool:
    """Whether a lambda only formats text (``lambda: f"got [{q.amin().item()}, ...]"``): a
    message handed to a check, which calls it only when the check fails."""
    return _text(function.body)


def _text(node: cst.BaseExpression) -> bool:
    if isinstance(node, (cst.FormattedString, cst.SimpleString, cst.ConcatenatedString)):
        return True
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        return _text(node.left) or _text(node.right)  # ``"got " + str(x.item())``
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        return node.func.attr.value == "format" and _text(node.func.value)
    return False


def reporting_handler(handler: cst.ExceptHandler) -> bool:
    """Whether an ``except ... as e:`` handler reports the exception it caught (``print`` or a
    warning-level call whose arguments name ``e``), or hands it on whole to a call
    (``self._fall_back(error)``: fairchem's predict unit re-initialises from a CPU copy of the
    batch after a failed merge, ``units/mlip_unit/predict.py:718``, session 49, triage49b):
    its body is the fallback after a failure (``input_embeds[selected] = ...`` failed on a
    shape), not the path every call takes."""
    if handler.name is None or not isinstance(handler.name.name, cst.Name):
        return False
    caught = handler.name.name.value
    body = handler.body
    for line in body.body if isinstance(body, cst.IndentedBlock) else ():
        for small in line.body if isinstance(line, cst.SimpleStatementLine) else ():
            if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
                continue
            func = small.value.func
            reports = (isinstance(func, cst.Name) and func.value == "print") or (
                isinstance(func, cst.Attribute) and func.attr.value in _WARNING_CALLS
            )
            if reports and any(caught in names_in(a) for a in small.value.args):
                return True
            if any(
                isinstance(a.value, cst.Name) and a.value.value == caught and not a.keyword
                for a in small.value.args
            ):
                return True  # the failure handed to its handler: ``self._fall_back(e)``
    return False
