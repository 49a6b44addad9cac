"""Reads right after a whole generation: ``ids = model.generate(...)`` then ``ids.cpu()``.

A ``generate(...)`` call runs its whole decoding loop before it returns, and the loop reads
the host every step to decide whether to stop, so when it returns nothing is left queued on
the device. A read of its output a few cheap statements later (slicing the prompt off, an
end-of-sequence mask, ``torch.isin``, ``argmax``; then ``completion_ids.cpu()`` to build
token lists) waits for those few small kernels only: the output has to reach the host once
per generation, and there is no queue to overlap. A model call, a loss or any other call
between them queues work again, and the read is a sync like any other.

The same holds for the result of a whole loop of steps handed to the caller: a denoising
loop's trajectory stacked after the loop and stored on the request's batch
(``batch.trajectory_latents = torch.stack(latents, dim=1).cpu()``). The copy runs once per
call, after the last step, and the caller needs the values on the host; only cheap statements
(logging, stacking) are between the loop and the copy (:func:`output_after_loop`), and for
the kept tokens of a whole generation joined and copied once for a tokenizer's decode
(``decoded_outputs``).
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.decoded_outputs import decoded_output
from h2dlint.analysis.names import calls_in
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.returned_outputs import HOST_CLOCKS, returned_to_caller
from h2dlint.analysis.torch_api import ARRAY_METHODS, TENSOR_ONLY_METHODS
from h2dlint.walk import visit_read_only

# Calls that queue nothing, or only small kernels on data in hand: builtins, tensor methods
# that reshape, compare or reduce, list and dict methods.
_BUILTINS = frozenset(
    {"len", "int", "float", "bool", "range", "zip", "list", "tuple", "dict", "set", "min"}
    | {"max", "sum", "enumerate", "isinstance", "getattr", "hasattr", "sorted", "any", "all"}
)
_CHEAP_METHODS = (
    TENSOR_ONLY_METHODS
    | ARRAY_METHODS
    | {"size", "dim", "numel", "to", "cpu", "tolist", "item", "ne", "eq", "fill_", "zero_"}
    | {"append", "extend", "get", "items", "keys", "values", "pop", "index", "count"}
)


def after_generation(provenance: Provenance, ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether the statement around the visited node (its ``ancestors``, innermost last) runs
    right after a ``generate(...)`` call in the same block, with only cheap statements between
    (see the module's docs), and in no loop of its function."""
    chain = _blocks_up(ancestors)
    if not chain:
        return False
    block, statement = chain[0]
    body = list(block.body)
    index = next((i for i, s in enumerate(body) if s is statement), None)
    if index is None:
        return False
    for previous in reversed(body[:index]):
        if _generates(previous):
            return True
        if not _cheap(provenance, previous):
            return False
    return False


def output_after_loop(
    provenance: Provenance, ancestors: Sequence[cst.CSTNode], copy: cst.Call
) -> bool:
    """Whether ``copy`` (a ``.cpu()``/``.to("cpu")`` of the visited statement) copies a whole
    generated sequence for a tokenizer's decode (:func:`decoded_output`), or hands a value to
    the caller after the function's loop of steps: the statement stores it on an object or in
    a mapping (``batch.trajectory_timesteps = t.cpu()``), it is in no loop, and the statements
    before it, up to a loop that queues device work, are cheap (see the module's docs)."""
    if decoded_output(ancestors, copy):
        return True  # the whole sequence joined and decoded to text, once (decoded_outputs)
    chain = _blocks_up(ancestors)
    statement = chain[0][1] if chain else None
    if not (_stores_output(statement, copy) or returned_to_caller(statement, copy)):
        return False
    for block, child in chain or ():
        body = list(block.body)
        index = next((i for i, s in enumerate(body) if s is child), None)
        if index is None:
            return False
        for previous in reversed(body[:index]):
            if _queues_in_loop(provenance, previous):
                return True
            if not _cheap_block(provenance, previous):
                return False
    return False


def _blocks_up(
    ancestors: Sequence[cst.CSTNode],
) -> list[tuple[cst.IndentedBlock, cst.CSTNode]] | None:
    """The blocks around the visited node up to its function, innermost first, each with its
    statement that holds the node; None when a loop of the function is around it (the
    statement then runs per iteration)."""
    chain: list[tuple[cst.IndentedBlock, cst.CSTNode]] = []
    for i in range(len(ancestors) - 1, -1, -1):
        parent = ancestors[i]
        if isinstance(parent, (cst.FunctionDef, cst.Lambda)):
            break
        if isinstance(parent, (cst.For, cst.While)):
            return None
        if isinstance(parent, cst.IndentedBlock) and i + 1 < len(ancestors):
            chain.append((parent, ancestors[i + 1]))
    return chain


def _stores_output(statement: cst.CSTNode | None, copy: cst.Call) -> bool:
    """``obj.attr = <copy>`` or ``obj[key] = <copy>``: the copy itself is the stored value."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    small = statement.body[0]
    return (
        isinstance(small, cst.Assign)
        and small.value is copy
        and all(isinstance(t.target, (cst.Attribute, cst.Subscript)) for t in small.targets)
    )


class _Loops(cst.CSTVisitor):
    def __init__(self) -> None:
        self.loops: list[cst.CSTNode] = []

    def visit_For(self, node: cst.For) -> None:
        self.loops.append(node)

    def visit_While(self, node: cst.While) -> None:
        self.loops.append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False


def _queues_in_loop(provenance: Provenance, statement: cst.BaseStatement) -> bool:
    """Whether ``statement`` is or holds a loop whose body makes a call that is not cheap
    (a model's forward, a scheduler's step): device work queued per iteration."""
    loops = _Loops()
    visit_read_only(statement, loops)
    for loop in loops.loops:
        if any(not _cheap_call(provenance, call) for call in calls_in(loop)):
            return True
    return False


# Logging calls' methods: they queue nothing.
_LOG_METHODS = frozenset(
    {"debug", "info", "warning", "warn", "error", "update", "set_postfix", "write"}
)


def _cheap_block(provenance: Provenance, statement: cst.BaseStatement) -> bool:
    """A cheap statement (:func:`_cheap`, or a logging call), or an ``if`` whose branches hold
    only such statements."""
    if isinstance(statement, cst.SimpleStatementLine):
        return all(
            _cheap_call(provenance, call)
            or (isinstance(call.func, cst.Attribute) and call.func.attr.value in _LOG_METHODS)
            for call in calls_in(statement)
        )
    if isinstance(statement, cst.If):
        parts: list[cst.BaseStatement] = list(statement.body.body)  # type: ignore[arg-type]
        orelse = statement.orelse
        while orelse is not None:
            parts.extend(orelse.body.body)  # type: ignore[arg-type]
            orelse = orelse.orelse if isinstance(orelse, cst.If) else None
        return all(_cheap_block(provenance, part) for part in parts)
    return False


def _generates(statement: cst.BaseStatement) -> bool:
    """``out = model.generate(...)``, also as the last statement of a ``with`` block."""
    if isinstance(statement, cst.With):
        inner = statement.body
        return (
            isinstance(inner, cst.IndentedBlock) and bool(inner.body) and _generates(inner.body[-1])
        )
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    small = statement.body[0]
    value = small.value if isinstance(small, (cst.Assign, cst.AnnAssign, cst.Expr)) else None
    return (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value == "generate"
    )


def _cheap(provenance: Provenance, statement: cst.BaseStatement) -> bool:
    """Whether ``statement`` is a simple statement whose calls queue nothing but small
    kernels on data in hand (builtins, ``torch.*`` outside ``torch.nn``, tensor methods)."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    return all(_cheap_call(provenance, call) for call in calls_in(statement))


def _cheap_call(provenance: Provenance, call: cst.Call) -> bool:
    """A builtin, a ``torch.*`` function outside ``torch.nn``, or a cheap method."""
    func = call.func
    if isinstance(func, cst.Name) and func.value in _BUILTINS:
        return True
    qualified = provenance.qualify(func) or ""
    if qualified.startswith("torch.") and not qualified.startswith("torch.nn"):
        return True
    if qualified in HOST_CLOCKS:
        return True  # ``time.time()`` around the loop: a timing, no device work
    return isinstance(func, cst.Attribute) and func.attr.value in _CHEAP_METHODS
