"""Tensors read as Python values: a tensor as the test of an ``if`` or ``while`` (a sync on a
device), where such a value lives, and the syncs of each iteration of a ``while`` loop,
explicit ones (``torch.cuda.synchronize()``) included. Split out of ``syncs.py``."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from h2dlint.analysis.arguments import positional
from h2dlint.analysis.facts import Where
from h2dlint.analysis.float_checks import float_check
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.host_data import host_scalar
from h2dlint.analysis.loop_transfers import root_name
from h2dlint.analysis.mapping_keys_loops import key_membership_of_loop
from h2dlint.analysis.names import len_operand
from h2dlint.analysis.numpy_comparisons import numpy_comparison
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.sync_basics import (
    METADATA_ATTRIBUTES,
    METADATA_FUNCTIONS,
    METADATA_METHODS,
    SYNC_BUILTINS,
    SYNC_METHODS,
    LoopBodyVisitor,
    bool_comparison,
    host_copy,
)
from h2dlint.analysis.tensor_kinds import tensor_evidence
from h2dlint.analysis.torch_api import MASK_OPS
from h2dlint.context import SharedKey
from h2dlint.walk import visit_read_only

# -- tensors used as Python truth values --------------------------------------------------------

# Methods and ``torch.<name>`` functions that make a boolean mask of a tensor.
MASK_METHODS = MASK_OPS | {"bool", "isin"}
# Methods and ``torch.<name>`` functions whose result is a tensor on the input's device (a 0-d
# one for the reductions): used as a Python bool or number, each syncs. (``isin`` is left out
# of the truth values as it always was: a membership mask is tested with ``.any()``.)
VALUE_METHODS = (MASK_METHODS - {"isin"}) | frozenset(
    {
        "any",
        "all",
        "max",
        "min",
        "amax",
        "amin",
        "argmax",
        "argmin",
        "sum",
        "prod",
        "mean",
        "norm",
        "count_nonzero",
        "abs",
        "float",
        "long",
        "int",
        "squeeze",
        "flatten",
        "softmax",
        "log_softmax",
        "sigmoid",
        "exp",
        "log",
        "sqrt",
        "clamp",
        "detach",
        "contiguous",
    }
)
# Tests of tensors that are Python bools already (no tensor as the truth value).
COMPARISON_OPERATORS = (
    cst.LessThan,
    cst.LessThanEqual,
    cst.GreaterThan,
    cst.GreaterThanEqual,
    cst.Equal,
    cst.NotEqual,
)


# The methods ``tensor_test`` recognises: ``.any()``/``.all()``, and reductions compared.
REDUCTION_METHODS = frozenset({"max", "min", "sum", "amax", "amin", "mean", "norm"})
TEST_METHODS = frozenset({"any", "all"}) | REDUCTION_METHODS


def tensor_test(test: cst.BaseExpression) -> cst.BaseExpression | None:
    """The part of an ``if``/``while`` test that is surely a tensor when what it reads is one,
    so that Python calls ``bool()`` of it: ``t.any()``, ``(x > 0).all()``, ``torch.isnan(x)
    .any()``, ``x.max() > 0``, ``not done.all()``. Bare names and Python-looking comparisons
    (``n > 0`` of a count) are not: a name may hold a Python bool."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return tensor_test(test.expression)
    if isinstance(test, cst.BooleanOperation):
        return tensor_test(test.left) or tensor_test(test.right)
    if isinstance(test, cst.Call) and isinstance(test.func, cst.Attribute):
        if test.func.attr.value in ("any", "all") and not _metadata_value(test.func.value):
            return test
        return test if float_check(test) else None
    if isinstance(test, cst.Comparison) and all(
        isinstance(c.operator, COMPARISON_OPERATORS) for c in test.comparisons
    ):
        operands = [test.left, *(c.comparator for c in test.comparisons)]
        if any(_reduction_call(o) for o in operands):
            return test
    return None


def compared_value(test: cst.BaseExpression) -> cst.BaseExpression | None:
    """The value an ``if`` test compares with a number or a name (``nxt == eos``, ``score >
    0.996``, ``not step_id < n``): Python calls ``bool()`` of the comparison, a tensor's read
    when the value is one (:func:`tensor_test` takes only values surely tensors by their
    syntax). Not ``is``/``in``, ``None`` or a string: no tensor comparison."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return compared_value(test.expression)
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return None
    target = test.comparisons[0]
    if not isinstance(target.operator, COMPARISON_OPERATORS):
        return None
    left, right = test.left, target.comparator
    if not isinstance(left, (cst.Name, cst.Attribute, cst.Subscript)):
        return None
    if isinstance(right, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
        return None
    if isinstance(right, cst.Name) and right.value in ("None", "True", "False"):
        return None
    return left


def _reduction_call(node: cst.BaseExpression) -> bool:
    """``x.max()``, ``x.sum()``, ``x.abs().max()``: a tensor method that reduces."""
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in REDUCTION_METHODS
        and not _metadata_value(node.func.value)
    )


def _metadata_value(node: cst.BaseExpression) -> bool:
    """``x.shape``, ``x.size()``, ``len(x)``, a list display: no tensor data."""
    if isinstance(node, (cst.List, cst.Tuple, cst.ListComp, cst.GeneratorExp)):
        return True
    if isinstance(node, cst.Attribute) and node.attr.value in METADATA_ATTRIBUTES:
        return True
    if isinstance(node, cst.Subscript):
        return _metadata_value(node.value)
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in METADATA_METHODS:
            return True
        if isinstance(func, cst.Name) and func.value in METADATA_FUNCTIONS:
            return True
    return False


# Answers of :func:`value_where` per file, by (node, frame, depth): a name rebound in a loop
# under many branches reaches each of its bindings from every use, and each of those from every
# other, so the same questions come back many times over.
_VALUE_WHERE: SharedKey[dict[tuple[cst.CSTNode, Frame, int], Where]] = SharedKey("where values are")


def value_where(
    provenance: Provenance, node: cst.BaseExpression, frame: Frame, depth: int = 0
) -> Where:
    """Where the tensor ``node`` evaluates to is, also through comparisons, ``~``, ``not`` and
    value methods (``(x > 0).any()`` is where ``x`` is), and names bound to such values."""
    memo = provenance.context.shared(_VALUE_WHERE, dict)
    key = (node, frame, depth)
    found = memo.get(key)
    if found is None:
        found = memo[key] = _value_where(provenance, node, frame, depth)
    return found


def _value_where(
    provenance: Provenance, node: cst.BaseExpression, frame: Frame, depth: int
) -> Where:
    if isinstance(node, cst.NamedExpr):  # ``(oob := x < 0)``: what it binds is its value
        return value_where(provenance, node.value, frame, depth + 1)
    where = provenance.fact(node, frame).where
    if where is not Where.UNKNOWN or depth > 4:
        return where
    if isinstance(node, cst.Name):
        values = provenance.bindings(frame).reaching(node)
        if not values or any(v is None for v in values):
            return Where.UNKNOWN
        wheres = [value_where(provenance, v, frame, depth + 1) for v in values if v is not None]
        if all(w is Where.DEVICE for w in wheres):
            return Where.DEVICE
        return Where.HOST if all(w.on_host for w in wheres) else Where.UNKNOWN
    if isinstance(node, cst.Comparison):
        if any(isinstance(c.operator, (cst.Is, cst.IsNot)) for c in node.comparisons):
            return Where.HOST  # ``x is not None``: a Python bool
        if key_membership(node) or key_membership_of_loop(provenance, node, frame):
            return Where.HOST  # ``"mask" in batch``, a loop's dict key: a Python bool
        if _container_membership(provenance, node, frame):
            return Where.UNKNOWN  # ``k in batch["boxes"][0]``: a container's test, maybe
        operands = [node.left, *(c.comparator for c in node.comparisons)]
        where = _device_first([_operand_where(provenance, o, frame, depth) for o in operands])
        if where is Where.UNKNOWN and numpy_comparison(provenance, node, frame):
            return Where.HOST  # ``names == name`` of ``names = np.array(...)``: a numpy mask
        return where
    if isinstance(node, cst.UnaryOperation):
        return value_where(provenance, node.expression, frame, depth + 1)
    if isinstance(node, cst.BinaryOperation):
        sides = [node.left, node.right]
        return _device_first([_operand_where(provenance, o, frame, depth) for o in sides])
    if isinstance(node, cst.BooleanOperation):
        return _device_first(
            [
                value_where(provenance, node.left, frame, depth + 1),
                value_where(provenance, node.right, frame, depth + 1),
            ]
        )
    if isinstance(node, cst.Subscript):
        return value_where(provenance, node.value, frame, depth + 1)
    if isinstance(node, cst.Call):
        func = node.func
        qualified = provenance.qualify(func) or ""
        # ``torch.all(x)`` is where ``x`` is, not where the module ``torch`` is.
        if isinstance(func, cst.Attribute) and func.attr.value in VALUE_METHODS and not qualified:
            return value_where(provenance, func.value, frame, depth + 1)
        if qualified.startswith("torch.") and qualified[6:] in VALUE_METHODS:
            first = positional(node)
            if first:
                return value_where(provenance, first[0].value, frame, depth + 1)
    return Where.UNKNOWN


def key_membership(node: cst.Comparison) -> bool:
    """``"sample_id" in batch``, ``f"{k}_mask" not in inputs``: a membership test of a string
    (session 24, uni2ts' Lightning steps over ``batch: dict[str, torch.Tensor]``). A tensor
    cannot hold a string (``Tensor.__contains__`` takes numbers and tensors), so the container
    is a dict, a list of names or a string, and the test is Python's, whatever the container's
    values live on; ``x in t`` of a number in a tensor is a real read of ``t`` and stays."""
    return all(
        isinstance(c.operator, (cst.In, cst.NotIn)) for c in node.comparisons
    ) and isinstance(node.left, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString))


def _container_membership(provenance: Provenance, node: cst.Comparison, frame: Frame) -> bool:
    """``cls_idx in gt_baselines`` of ``gt_baselines = batch["baselines"][0]`` (kraken's
    validation step): a membership test reads a tensor only where the container is surely a
    tensor (``Tensor.__contains__``); a value that is on the device only because it comes out
    of a moved batch may be any of the batch's Python containers (a dict of polylines per
    class), whose membership test is Python's. Only such a plain item of a structure (a
    subscript of a name, no call) is read so; where the container is computed or surely a
    tensor the test stays the read it is."""
    comparisons = node.comparisons
    if len(comparisons) != 1 or not isinstance(comparisons[0].operator, (cst.In, cst.NotIn)):
        return False
    container = comparisons[0].comparator
    value: cst.BaseExpression | None = container
    for _ in range(3):  # ``gt = batch["baselines"][0]`` ... ``k in gt``
        if not isinstance(value, cst.Name):
            break
        values = provenance.bindings(frame).reaching(value)
        value = values[0] if len(values) == 1 else None
    if not isinstance(value, cst.Subscript):
        return False  # ``3 in ids`` of ``ids = logits.argmax(-1)``: computed, a tensor
    while isinstance(value, (cst.Subscript, cst.Attribute)):
        value = value.value
    return isinstance(value, cst.Name) and tensor_evidence(provenance, container, frame) is None


def _operand_where(
    provenance: Provenance, node: cst.BaseExpression, frame: Frame, depth: int
) -> Where:
    """Where an operand of a comparison or arithmetic is: a proven Python number
    (``num_iterations - 1`` of ``num_iterations = len(x) + 1``) counts as host, so that
    ``host_row >= n - 1`` is on the host and ``device_row >= n - 1`` on the device."""
    where = value_where(provenance, node, frame, depth + 1)
    if where is Where.UNKNOWN and host_scalar(provenance, node, frame):
        return Where.HOST
    return where


def _device_first(wheres: list[Where]) -> Where:
    """A result with a device operand is on the device; with only host operands on the host."""
    if any(w is Where.DEVICE for w in wheres):
        return Where.DEVICE
    known = [w for w in wheres if w is not Where.UNKNOWN]
    if known and len(known) == len(wheres):
        return Where.HOST
    return Where.UNKNOWN


# -- while loops: a sync per iteration -----------------------------------------------------------


@dataclass(frozen=True)
class IterationSync:
    """A host read of a tensor in a ``while`` loop: ``node`` (a call, or the loop's test) reads
    ``tensor`` on every iteration."""

    node: cst.BaseExpression
    tensor: cst.BaseExpression
    what: str


def explicit_sync(call: cst.Call) -> tuple[cst.BaseExpression, str] | None:
    """``call`` as an explicit host read of a tensor: the tensor and how it is read
    (``t.item()``, ``t.tolist()``, ``t.cpu()``, ``t.to("cpu")``, ``int(t)``...)."""
    func = call.func
    if isinstance(func, cst.Attribute):
        if func.attr.value in SYNC_METHODS and not call.args:
            return func.value, f"`.{func.attr.value}()`"
        copy = host_copy(call)
        if copy is not None:
            return func.value, copy
        return None
    if isinstance(func, cst.Name) and func.value in SYNC_BUILTINS:
        args = positional(call)
        if len(call.args) == 1 and args and not _metadata_value(args[0].value):
            value = args[0].value
            if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Not):
                # ``float(not x)`` converts a Python bool: the only read is ``not``'s of ``x``
                return value.expression, "`bool()`"
            return value, f"`{func.value}()`"
    return None


class _IterationSyncs(LoopBodyVisitor):
    """Explicit host reads in a ``while`` body, not in nested functions, nested loops (they
    are judged as loops of their own) or branches taken once every N iterations."""

    def __init__(self) -> None:
        self.found: list[IterationSync] = []

    def visit_For(self, node: cst.For) -> bool:
        return False

    def visit_While(self, node: cst.While) -> bool:
        return False

    def visit_If(self, node: cst.If) -> bool:
        if self._every_n(node):
            return False
        test = tensor_test(node.test)
        if test is not None:
            self.found.append(IterationSync(test, test, "a tensor as an `if` test"))
        elif (compared := compared_value(node.test)) is not None:
            # ``if nxt == eos: break``: a bool only if ``nxt`` is a number; HTD201 asks for
            # the evidence that it is a tensor (``torch.argmax(...)``) before it reports.
            self.found.append(IterationSync(node.test, compared, "a comparison as an `if` test"))
        return True

    def visit_Call(self, node: cst.Call) -> None:
        read = explicit_sync(node)
        if read is not None:
            self.found.append(IterationSync(node, read[0], read[1]))
            return
        func = node.func
        written = (
            f"torch.{func.attr.value}"
            if isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == "torch"
            else ""
        )
        compared = bool_comparison(node, written)
        if compared is not None:  # ``if torch.equal(prev_best, best_error): ...`` per iteration
            self.found.append(IterationSync(node, compared[1][0], f"`{compared[0]}()`"))


def iteration_syncs(node: cst.While) -> list[IterationSync]:
    """The host reads a ``while`` loop makes on every iteration: of its test (a tensor as the
    truth value, or an explicit read in it) and of its body. A loop that drains a Python
    collection (:func:`drained_item`) is a for-each loop over its items: of its body, only
    the reads of the item taken count (as a ``for`` loop over the collection would judge
    them); other reads are per item of a list, not of the loop's state or a tensor's rows."""
    finder = _IterationSyncs()
    test = tensor_test(node.test)
    if test is not None:
        finder.found.append(IterationSync(test, test, "a tensor as the `while` test"))
    else:
        visit_read_only(node.test, finder)
    in_test = len(finder.found)
    visit_read_only(node.body, finder)
    item = drained_item(node)
    if item is None:
        return finder.found
    return finder.found[:in_test] + [
        sync for sync in finder.found[in_test:] if root_name(sync.tensor) == item
    ]


def drained_item(node: cst.While) -> str | None:
    """The name a ``while`` loop takes each item into when it drains a collection: ``while
    xs:``, ``while len(xs) > 0:`` or ``while len(xs):`` whose body starts by taking an item
    off the same collection (``x = xs.pop()``, ``popleft()``)."""
    collection = _tested_collection(node.test)
    body = node.body
    if collection is None or not isinstance(body, cst.IndentedBlock) or not body.body:
        return None
    first = body.body[0]
    if not (isinstance(first, cst.SimpleStatementLine) and len(first.body) == 1):
        return None
    small = first.body[0]
    if not (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
        and isinstance(small.value, cst.Call)
        and isinstance(small.value.func, cst.Attribute)
        and small.value.func.attr.value in ("pop", "popleft")
        and small.value.func.value.deep_equals(collection)
    ):
        return None
    return small.targets[0].target.value


def _tested_collection(test: cst.BaseExpression) -> cst.BaseExpression | None:
    """``xs`` of ``while xs:``, ``while len(xs):``, ``while len(xs) > 0:``."""
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if not (
            isinstance(target.operator, (cst.GreaterThan, cst.NotEqual))
            and isinstance(target.comparator, cst.Integer)
            and target.comparator.value == "0"
        ):
            return None
        test = test.left
    test = len_operand(test)
    return test if isinstance(test, (cst.Name, cst.Attribute)) else None
