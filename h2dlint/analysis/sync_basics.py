"""What the sync analyses share: the calls that read a tensor on the host, how a loop walks a
tensor (:class:`RowLoop`), blocking copies to the host, the walk of one loop's body that
skips nested scopes and branches taken once every N iterations, and the statements that leave
a block."""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst

from h2dlint.analysis.divisible_gates import divisible_gate
from h2dlint.analysis.period_words import PERIOD_WORDS
from h2dlint.walk import OwnScopeVisitor, visit_read_only

# Statements after which nothing more of their block runs.
LEAVING = (cst.Return, cst.Raise, cst.Break, cst.Continue)


def leaves(unit: cst.CSTNode) -> bool:
    """Whether nothing after ``unit`` runs: a ``return``/``raise``/``break``/``continue``, or a
    line ending with one."""
    if isinstance(unit, LEAVING):
        return True
    return (
        isinstance(unit, cst.SimpleStatementLine)
        and bool(unit.body)
        and isinstance(unit.body[-1], LEAVING)
    )


def early_exits(block: cst.IndentedBlock, child: cst.CSTNode) -> Iterator[cst.If]:
    """The ``if`` statements before ``child`` in ``block`` that have no ``else`` and whose body
    ends by leaving the block (``if x.is_cuda: return ...``, ``if not should_log: return``):
    what follows them runs only where their test is false."""
    for statement in block.body:
        if statement is child:
            return
        if (
            isinstance(statement, cst.If)
            and statement.orelse is None
            and bool(statement.body.body)
            and leaves(statement.body.body[-1])
        ):
            yield statement


SYNC_METHODS = frozenset({"item", "tolist"})
SYNC_BUILTINS = frozenset({"int", "float", "bool", "complex"})
# ``torch`` functions (and the tensor methods of the same names) that compare whole tensors
# and return a Python bool: the answer is read on the host, a sync when the tensors are on the
# device (``if torch.equal(prev_best, best_error): break``, llmcompressor 0.13.0's grid search).
BOOL_COMPARISONS = frozenset({"equal", "allclose"})
# Reading these of a tensor does not copy its data to the host.
METADATA_ATTRIBUTES = frozenset(
    {
        "shape",
        "ndim",
        "dtype",
        "device",
        "is_cuda",
        "layout",
        "requires_grad",
        "is_sparse",
        "is_quantized",
        "is_meta",
        "names",
        "grad_fn",
        "is_leaf",
    }
)
METADATA_METHODS = frozenset(
    {
        "size",
        "dim",
        "numel",
        "nelement",
        "ndimension",
        "stride",
        "element_size",
        "is_contiguous",
        "is_floating_point",
        "is_complex",
        "get_device",
        "data_ptr",
        "storage_offset",
    }
)
METADATA_FUNCTIONS = frozenset({"len", "isinstance", "type", "id", "repr", "str"})
# Methods between a tensor and ``.tolist()`` that only move it to the host.
TO_HOST_METHODS = frozenset({"cpu", "detach", "numpy"})
NESTED_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


class Walk(enum.Enum):
    ROWS = "rows of a tensor"
    INDEX = "indices into tensors"
    LIST = "rows of a tensor's .tolist()"


@dataclass(frozen=True)
class RowLoop:
    """How a loop walks a tensor. ``tensor`` is the walked tensor (None for an index loop, where
    the tensors are the ones indexed in the body); ``names`` are the loop's names bound to a row
    (to the index, for an index loop); ``target`` is the target the rows are bound to."""

    walk: Walk
    tensor: cst.BaseExpression | None
    names: frozenset[str]
    target: cst.BaseExpression
    # The arguments of ``range(...)`` of an index loop.
    bounds: tuple[cst.BaseExpression, ...] = ()
    # For a ``.tolist()`` walk: the tensor went through ``.cpu()``/``.detach()``/``.numpy()``
    # first, tensor methods that prove it is a tensor (not a numpy array).
    via_tensor_method: bool = False
    # Local names the body binds to a tensor computed from a row (``row = torch.as_tensor(t[i],
    # dtype=...)``), with the tensor whose row it is.
    derived: tuple[tuple[str, cst.BaseExpression], ...] = ()
    # A walk of the pieces of ``tensor`` (``t.split(n)``, ``torch.chunk(t, k)``), not of its
    # rows: each piece is a tensor on ``t``'s device, but no per-row fix fits.
    pieces: bool = False
    # An index loop of positions a loop's items give (``logprobs[req.idx]``): only rows picked
    # by them count, not ranges sliced by them (``x[:, :, start:end]`` of a tiled encode's
    # tiles: a chunk of work per item, not a row to read).
    picks: bool = False
    # A walk of the items of a Python sequence of tensors (``outs = [t.to(dev) for t in xs]``
    # then ``[o.cpu() for o in outs]``): each item proven on the device, one sync each, and no
    # per-row fix (a list has no ``.sum(dim=-1)``).
    items: bool = False
    # An index loop of a counter the body adds 1 to (``idx += 1``): only a row it indexes
    # written into a host tensor counts (``loop_positions.counted_loop``).
    kept_counter: bool = False


@dataclass(frozen=True)
class RowSync:
    """A host read of a row: ``call`` (``.item()``, ``int(...)``, ..., or the test of an
    ``if``) reads ``tensor``."""

    call: cst.BaseExpression
    tensor: cst.BaseExpression
    what: str
    # The tensor or array a row is written into by index (``order[i, j] = yhat[k]``): a read
    # only where it is on the host (``analysis/row_writes.py``).
    written: cst.BaseExpression | None = None


def host_copy(call: cst.Call) -> str | None:
    """``call`` as a blocking copy to the host (``x.cpu()``, ``x.to("cpu")``,
    ``x.to(device="cpu")``): how it is spelled, or None."""
    func = call.func
    if not isinstance(func, cst.Attribute):
        return None
    if func.attr.value == "cpu" and not call.args:
        return "`.cpu()`"
    if func.attr.value != "to":
        return None
    blocking = not any(
        arg.keyword is not None
        and arg.keyword.value == "non_blocking"
        and not (isinstance(arg.value, cst.Name) and arg.value.value == "False")
        for arg in call.args
    )
    for arg in call.args:
        if arg.keyword is None or arg.keyword.value == "device":
            value = arg.value
            if isinstance(value, cst.SimpleString) and value.evaluated_value == "cpu":
                return '`.to("cpu")`' if blocking else None
            return None
    return None


class LoopBodyVisitor(OwnScopeVisitor):
    """Walks one loop's body: nested functions, classes and lambdas are not the loop's, and a
    branch taken once every N iterations (``if step % 100 == 0``) is not per iteration (its
    ``else`` is)."""

    def _every_n(self, node: cst.If) -> bool:
        """Whether ``node`` runs every N iterations; then only its ``else`` is walked."""
        if not (has_modulo(node.test) or divisible_gate(node.test)):
            return False
        if node.orelse is not None:
            visit_read_only(node.orelse, self)
        return True


class _Modulo(cst.CSTVisitor):
    found = False

    def visit_Modulo(self, node: cst.Modulo) -> None:
        self.found = True


def has_modulo(node: cst.BaseExpression) -> bool:
    finder = _Modulo()
    visit_read_only(node, finder)
    return finder.found


def periodic_test(test: cst.BaseExpression) -> bool:
    """Whether an ``if`` test says its branch is taken once every N steps: a modulo
    (``step % 100 == 0``), or a comparison with an interval
    (``it - self.last_eviction == self.eviction_interval``, ``step >= self.next_every``), or
    a draw taken on a few calls in a hundred (``random.random() < 0.01``: icefall's scaling
    modules read a device counter there, "don't do this on every iter")."""
    if has_modulo(test) or divisible_gate(test):
        return True
    if not isinstance(test, cst.Comparison):
        return False
    if _rare_draw(test):
        return True
    code = cst.Module([]).code_for_node(test).lower()
    return any(word in code for word in PERIOD_WORDS)


# The largest chance of a ``random.random() < p`` branch that makes it occasional.
RARE_CHANCE = 0.1


def _rare_draw(test: cst.Comparison) -> bool:
    """``random.random() < p`` (or ``<=``) with a literal ``p`` of at most :data:`RARE_CHANCE`."""
    if len(test.comparisons) != 1:
        return False
    target = test.comparisons[0]
    left, right = test.left, target.comparator
    if not isinstance(target.operator, (cst.LessThan, cst.LessThanEqual)):
        return False
    if not (
        isinstance(left, cst.Call)
        and not left.args
        and cst.Module([]).code_for_node(left.func) in ("random.random", "random")
    ):
        return False
    if not isinstance(right, (cst.Float, cst.Integer)):
        return False
    return float(right.evaluated_value) <= RARE_CHANCE


def bool_comparison(call: cst.Call, qualified: str) -> tuple[str, list[cst.BaseExpression]] | None:
    """``call`` as a comparison of whole tensors that returns a Python bool
    (:data:`BOOL_COMPARISONS`): its name and the tensors it compares, ``torch.equal(a, b)``
    (``qualified`` is the call's qualified name) or ``a.equal(b)``; None for other calls."""
    func = call.func
    args = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
    name = qualified.removeprefix("torch.")
    if qualified.startswith("torch.") and name in BOOL_COMPARISONS and len(args) >= 2:
        return f"torch.{name}", args[:2]
    if (
        not qualified
        and isinstance(func, cst.Attribute)
        and func.attr.value in BOOL_COMPARISONS
        and len(args) >= 1
    ):
        return f".{func.attr.value}", [func.value, args[0]]
    return None
