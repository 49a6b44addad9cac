"""Whether the host has just waited for the device when a statement starts: it lies in an arm of
an ``if`` (or a conditional expression) whose test reads a tensor's value on the host, and
nothing between the test and it queues device work.

``if not indices.any(): best = torch.tensor(1e6, device=d)``, ``if loss.sum() > 0: ... else:
loss = torch.tensor(0.0, device=d)``: the test waited for the stream to compute its truth
value, so a small copy made right after it (HTD107's constant built on the host) has nothing
queued to wait for. Where the tested tensor is on the host, the test costs nothing and neither
does the copy (the function's tensors are on the host). What counts as the test's tensor is
what Python always evaluates: the left operand of ``and``/``or`` (``numel() < 2 or x.any()``
may never read ``x``), a test of :func:`~h2dlint.analysis.value_syncs.tensor_test`
(``x.any()``, ``x.max() > 0``, ``torch.min(a, b) == 1``) or a name proven on the device. What
may come between: assignments and returns of host numbers and constant tensors, warnings, log
calls and prints, host reads (``.item()``, ``.tolist()``: they wait, they queue nothing); a loop,
a model call or any other call in between may queue device work.

Session 31: a test ``x in t`` (``if 0 not in target:``) of a tensor ``t`` reads it on the host
(``Tensor.__contains__`` is ``(t == x).any().item()``), and so does a statement earlier in the
block whose value ends in a host read or a data-sized op (``y_unique = y.unique()``,
``n = mask.sum().item()``, ``ids = x.nonzero()``): the host waited there, and if only quiet
statements (or ``if ...: return`` arms whose tests and bodies are quiet) follow it, nothing is
queued when the copy is made (MONAI's ROC-AUC and average precision check ``y.unique()``
against ``torch.tensor([0, 1], device=y.device)`` right after computing it). A statement that
runs device work after its read (``s = x.sum().item() * y.softmax(-1)``), or quiet statements
after device work, do not count.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.facts import Where
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.shape_syncs import DATA_SIZED_METHODS
from h2dlint.analysis.sync_basics import SYNC_METHODS, leaves
from h2dlint.analysis.tensor_kinds import tensor_evidence
from h2dlint.analysis.value_syncs import COMPARISON_OPERATORS, tensor_test, value_where
from h2dlint.walk import visit_read_only

# Calls that queue no device work: constant tensors, host numbers, reports.
_QUIET_CALLS = frozenset(
    {
        "tensor",
        "as_tensor",
        "full",
        "zeros",
        "ones",
        "empty",
        "len",
        "float",
        "int",
        "bool",
        "str",
        "print",
        "warn",
        "warning",
        "warning_once",
        "info",
        "debug",
        "log",
        "error",
        # Host reads wait for the device; they queue no work.
        "item",
        "tolist",
    }
)


def waited_at_test(
    provenance: Provenance, ancestors: Sequence[cst.CSTNode], node: cst.CSTNode
) -> bool:
    """Whether ``node`` (below ``ancestors``, innermost last) runs right after the test of an
    ``if`` or conditional expression of its function read a tensor on the host, with nothing
    that queues device work in between (the statements before it in the arm, and the rest of
    its own statement)."""
    child = node
    for parent in reversed(ancestors):
        if isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.For, cst.While)):
            return False  # a loop in the arm: later iterations run after device work
        if isinstance(parent, cst.BaseComp | cst.DictComp):
            return False
        if isinstance(parent, cst.IfExp) and child is not parent.test:
            return _waits(provenance, parent.test)
        if isinstance(parent, cst.If) and child is not parent.test:
            if _waits(provenance, parent.test):
                return True
            if not _quiet(parent.test):
                return False
        elif isinstance(parent, (cst.IndentedBlock, cst.SimpleStatementLine)):
            before: list[cst.CSTNode] = []
            for earlier in parent.body:
                if earlier is child:
                    break
                before.append(earlier)
            for statement in reversed(before):
                if _exit_after_wait(provenance, statement):
                    return True  # ``if y_o > 0: return ...`` just before: its implicit else
                if _ends_in_wait(provenance, statement):
                    return True  # ``y_unique = y.unique()`` just before (quiet statements between)
                if not _quiet(statement):
                    return False
        elif isinstance(parent, cst.Call):
            # Its arguments run before the call itself (``results.update({k: torch.tensor(0.0,
            # device=d)})``): only what else is evaluated counts.
            receiver = parent.func.value if isinstance(parent.func, cst.Attribute) else None
            if (receiver is not None and not _quiet(receiver, skip=child)) or not all(
                _quiet(arg, skip=child) for arg in parent.args
            ):
                return False
        elif isinstance(parent, (cst.BaseSmallStatement, cst.BaseExpression)) and not _quiet(
            parent, skip=child
        ):
            return False
        child = parent
    return False


def _exit_after_wait(provenance: Provenance, statement: cst.CSTNode) -> bool:
    """``if y_o > 0: return dice`` (no ``else``, a body that leaves) whose test reads a tensor
    on the host: what follows it in the block is its ``else`` arm, right after the test."""
    return (
        isinstance(statement, cst.If)
        and statement.orelse is None
        and isinstance(statement.body, cst.IndentedBlock)
        and bool(statement.body.body)
        and leaves(statement.body.body[-1])
        and _waits(provenance, statement.test)
    )


# Methods whose result the host waits for: a value read, or a result sized by the data.
_WAITING_METHODS = SYNC_METHODS | DATA_SIZED_METHODS


def _ends_in_wait(provenance: Provenance, statement: cst.CSTNode) -> bool:
    """Whether ``statement`` is one assignment or expression whose value's last step is a host
    read or a data-sized op of a tensor not proven on the host (``y_unique = y.unique()``,
    ``n = mask.sum().item()``, ``idx = torch.nonzero(m)``): the host waited for the device
    there, after everything the statement queued. The receiver must surely be a tensor: a
    numpy array has ``.tolist()``, ``.item()`` and ``.nonzero()`` too, and reads no device."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    small = statement.body[0]
    if not isinstance(small, (cst.Assign, cst.AnnAssign, cst.Expr)) or small.value is None:
        return False
    value = _read_core(small.value)
    if _host_copies_only(provenance, value):
        return True
    if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Attribute):
        return False
    method, receiver = value.func.attr.value, value.func.value
    if method not in _WAITING_METHODS:
        return False
    if isinstance(receiver, cst.Name) and receiver.value == "torch":
        if method not in DATA_SIZED_METHODS or not value.args:
            return False
        receiver = value.args[0].value  # ``torch.unique(y)``
    frame = provenance.current_frame()
    if tensor_evidence(provenance, receiver, frame) is None:
        return False  # ``ids.tolist()`` of a list, ``np.unique(a)``: maybe no tensor at all
    return not value_where(provenance, receiver, frame).on_host


def _read_core(value: cst.BaseExpression) -> cst.BaseExpression:
    """The expression whose host read must end ``value`` once host arithmetic and conversions
    after the read are set aside (session 35): ``softplus(a).item() + 0.5``, ``-x.max().item()``,
    ``int(n.item())``: a Python number combined with a literal queues nothing on the device.
    An operand that is not a number literal (``x.sum().item() * y.softmax(-1)``) may be a tensor,
    so the whole operation stays the value (no host read ends it)."""
    while True:
        if isinstance(value, cst.UnaryOperation) and not isinstance(value.operator, cst.Not):
            value = value.expression
        elif isinstance(value, cst.BinaryOperation) and _number(value.right):
            value = value.left
        elif isinstance(value, cst.BinaryOperation) and _number(value.left):
            value = value.right
        elif (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Name)
            and value.func.value in ("int", "float", "bool")
            and len(value.args) == 1
            and value.args[0].keyword is None
            and not value.args[0].star
        ):
            value = value.args[0].value
        else:
            return value


def _number(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float))


# A tensor's last steps that hand its values to the host (``x.detach().cpu().numpy()``).
_TO_HOST_STEPS = frozenset({"cpu", "numpy", "detach", "tolist", "item"})


def _host_copies_only(provenance: Provenance, value: cst.BaseExpression) -> bool:
    """A call of a function that is no torch function, every argument of which is a device
    tensor's values copied to the host (``x.cpu().numpy()``, ``x.tolist()``, ``x.item()``) or a
    literal (session 35, MONAI's ``sklearn_silhouette(emb.detach().cpu().numpy(),
    labels.detach().cpu().numpy(), metric="cosine")``): the copies waited for the device, and
    the callee is given host values only. A tensor argument, a name, a ``torch.``/``self.``
    callee or a method of a value (``model.score(x.cpu())``) may queue device work: not this."""
    if not isinstance(value, cst.Call) or not value.args:
        return False
    func = value.func
    if not isinstance(func, cst.Name) or func.value in ("print",):
        return False  # a method (``self.f``, ``torch.f``, ``model.f``) may run the device
    frame = provenance.current_frame()
    for arg in value.args:
        if arg.star:
            return False
        if isinstance(arg.value, (cst.SimpleString, cst.Integer, cst.Float)) or (
            isinstance(arg.value, cst.Name) and arg.value.value in ("True", "False", "None")
        ):
            continue
        if arg.keyword is not None and isinstance(arg.value, cst.Name):
            return False
        root = _copied_to_host(arg.value)
        if root is None or tensor_evidence(provenance, root, frame) is None:
            return False
        if value_where(provenance, root, frame).on_host:
            return False
    return True


def _copied_to_host(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """``x`` of ``x.detach().cpu().numpy()``, ``x.tolist()``, ``x.item()``: the tensor whose values
    the expression copies to the host (its last step a host read or ``.numpy()`` after
    ``.cpu()``); None for anything else (``x.cpu()`` is still a tensor a callee may move back)."""
    steps: list[str] = []
    while (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and not node.args
        and node.func.attr.value in _TO_HOST_STEPS
    ):
        steps.append(node.func.attr.value)
        node = node.func.value
    if not steps:
        return None
    last = steps[0]
    if last in ("tolist", "item") or (last == "numpy" and "cpu" in steps):
        return node
    return None


def _membership(provenance: Provenance, test: cst.BaseExpression) -> cst.BaseExpression | None:
    """The tensor ``t`` of a test ``x in t`` / ``x not in t`` (``Tensor.__contains__`` reads
    ``(t == x).any()`` on the host), when ``t`` is surely a tensor and ``x`` no string."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    comparison = test.comparisons[0]
    if not isinstance(comparison.operator, (cst.In, cst.NotIn)):
        return None
    if isinstance(test.left, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)):
        return None
    frame = provenance.current_frame()
    return tensor_evidence(provenance, comparison.comparator, frame)


def _waits(provenance: Provenance, test: cst.BaseExpression) -> bool:
    """Whether evaluating ``test`` surely reads a tensor's value on the host (where the tensor
    is not proven to be on the host): also a name bound only to tensors (``n = target.sum()``
    ... ``if not n:``) and a comparison of a value that is surely a tensor (``if s_x == 0:``
    of ``s_x = torch.sum(...)``)."""
    while True:
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test = test.expression
        elif isinstance(test, cst.BooleanOperation):
            test = test.left  # the right side may never be evaluated
        elif isinstance(test, cst.NamedExpr):
            test = test.value
        else:
            break
    frame = provenance.current_frame()
    tensor = tensor_test(test) or _read_tensor(test) or _membership(provenance, test)
    if (
        tensor is None
        and isinstance(test, cst.Comparison)
        and all(isinstance(c.operator, COMPARISON_OPERATORS) for c in test.comparisons)
    ):  # not ``x is None``: no value read; any operand (``if len(x) < max_len:``)
        operands = (test.left, *(c.comparator for c in test.comparisons))
        found = (tensor_evidence(provenance, operand, frame) for operand in operands)
        tensor = next((t for t in found if t is not None), None)
    if tensor is not None:
        return not value_where(provenance, tensor, frame).on_host
    where = value_where(provenance, test, frame)
    if isinstance(test, cst.Name) and not where.on_host:
        values = provenance.bindings(frame).reaching(test)
        if values and all(v is not None and _holds_tensor(provenance, v) for v in values):
            return True
    return where is Where.DEVICE


def _holds_tensor(provenance: Provenance, value: cst.BaseExpression) -> bool:
    """Whether a name bound to ``value`` holds a tensor, whose truth value the test reads
    (``n = target.sum()`` ... ``if not n:``); not a number read on the host when it was bound
    (``n = x.sum().item()``, ``same = torch.allclose(a, b)``): device work may run between."""
    if tensor_test(value) is not None:
        return True
    if (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value in _REDUCTIONS
        and not value.args
    ):
        return True
    return tensor_evidence(provenance, value, provenance.current_frame()) is not None


# Methods whose truth value or result is a tensor's value read on the host.
_READS = frozenset({"item", "tolist", "allclose", "equal"})
_REDUCTIONS = frozenset({"sum", "max", "min", "any", "all", "count_nonzero"})


def _read_tensor(test: cst.BaseExpression) -> cst.BaseExpression | None:
    """The tensor a test reads besides :func:`tensor_test`'s: a reduction as the truth value
    (``if not target.sum():``), ``.item()`` compared (``if observed.item() == 0:``),
    ``torch.allclose(a, b)``, ``torch.equal(a, b)``."""
    if isinstance(test, cst.Comparison):
        test = test.left
    if not (isinstance(test, cst.Call) and isinstance(test.func, cst.Attribute)):
        return None
    method, receiver = test.func.attr.value, test.func.value
    if method in _REDUCTIONS and not test.args:
        return receiver
    if method not in _READS:
        return None
    if method in ("item", "tolist"):
        return receiver
    if isinstance(receiver, cst.Name) and receiver.value == "torch" and test.args:
        return test.args[0].value  # ``torch.allclose(a, b)``
    return receiver  # ``a.equal(b)``


class _Calls(cst.CSTVisitor):
    def __init__(self, skip: cst.CSTNode | None) -> None:
        self.skip = skip
        self.loud = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if node is self.skip or isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return False
        if isinstance(node, (cst.For, cst.While, cst.With, cst.Try)):
            self.loud = True
            return False
        if isinstance(node, cst.Call) and _name(node.func) not in _QUIET_CALLS:
            self.loud = True
        return not self.loud


def _name(func: cst.BaseExpression) -> str:
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
    text = str(name)
    if text.endswith(("_warn", "_warning")):  # ``rank_zero_warn``, ``_unstable_warning``
        return "warn"
    return text


def _quiet(node: cst.CSTNode, skip: cst.CSTNode | None = None) -> bool:
    """Whether ``node`` (but ``skip``, below it) calls nothing that may queue device work."""
    visitor = _Calls(skip)
    visit_read_only(node, visitor)
    return not visitor.loud
