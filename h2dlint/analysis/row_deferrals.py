"""Which syncs HTD202 (a sync on a hot path) leaves to HTD201 (a sync per row): the reads
HTD201 reports in a row loop (:mod:`row_findings`), syncs around them, and the reads of a row of
a tensor HTD201 names there (a name bound to the row, a boolean mask of the row, the row indexed
by a mask), so that each per-row sync is reported once, by HTD201. A read in a loop HTD201
reports nothing for, or of another tensor's rows, is HTD202's own."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TypeVar

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.hot_names import metrics_name
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.row_findings import LOOPS, Loop, LoopRows, comprehension_parts, loop_rows
from h2dlint.analysis.syncs import reads_row
from h2dlint.analysis.value_syncs import value_where
from h2dlint.context import FileContext
from h2dlint.walk import holds

T = TypeVar("T")


def reported_row_read(
    context: FileContext, node: cst.CSTNode, tensor: cst.BaseExpression
) -> cst.CSTNode | None:
    """The loop that repeats ``node`` (being visited; the innermost loop of its function whose
    iterations run it, not one whose iterable holds it) when HTD201 reports a per-row finding
    for that loop and ``node`` (``tensor`` being what it reads) is the sync HTD201 names or
    reads a row of the tensor HTD201 names (through a name bound to the row, a boolean mask of
    the row, the row indexed by a mask). None otherwise: a read in a loop nested in the row
    loop runs once per inner iteration, not once per row."""
    found = _repeating_loop(context, node)
    if found is None:
        return None
    parent, rows = found
    if not rows.findings:
        return None
    if any(holds(f.sync.call, node) or holds(node, f.sync.call) for f in rows.findings):
        return parent  # one of the reads HTD201 reports, or around one (``int(t[i].item())``)
    # A read of a row of a tensor HTD201 names (``types[b]`` bound to a name, its row
    # indexed by a mask): the same per-row syncs. Rows of another tensor read in the same
    # loop (per-request top-k copies beside a read of host metadata) stay HTD202's.
    code = context.module.code_for_node
    named = {code(finding.sync.tensor) for finding in rows.findings}
    read = [tensor, node] if isinstance(node, cst.BaseExpression) else [tensor]
    for walk in rows.walks:
        for part in read:
            if any(code(base) in named for base in reads_row(part, walk) or ()):
                return parent
    return None


def mask_judged_alone(context: FileContext, node: cst.Subscript, frame: Frame) -> bool:
    """Whether HTD202 judges the mask of ``node`` (``x[mask]``) by itself when ``x`` says
    nothing: the mask is surely a tensor (``m = mask.bool()``, a row of one) and may be on the
    device. Not when ``x`` is on the host, in a row loop HTD201 reports (one report per loop),
    nor in a function named for metrics (``compute_data_metrics``: values for a logger)."""
    function = frame.function
    if isinstance(function, cst.FunctionDef) and metrics_name(function.name.value):
        return False
    if value_where(Provenance.of(context), node.value, frame).on_host:
        return False
    return not in_reported_row_loop(context, node)


def in_reported_row_loop(context: FileContext, node: cst.CSTNode) -> bool:
    """Whether the innermost loop that repeats ``node`` is one HTD201 reports per-row syncs
    for: a mask read in it is left to that finding (one report per loop)."""
    found = _repeating_loop(context, node)
    return found is not None and bool(found[1].findings)


def _repeating_loop(context: FileContext, node: cst.CSTNode) -> tuple[Loop, LoopRows] | None:
    """The innermost loop of ``node``'s function whose iterations run ``node`` (being visited;
    not a loop whose iterable holds it), with HTD201's judgement of its rows; None in none."""
    ancestors = context.ancestors
    for index in range(len(ancestors) - 1, -1, -1):
        parent = ancestors[index]
        if isinstance(parent, (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.While)):
            return None
        if not isinstance(parent, LOOPS):
            continue
        inside = (*ancestors[index + 1 :], node)
        if not any(part in inside for part in _repeated(parent)):
            continue  # the iterable, evaluated once per iteration of the loop around
        return parent, _at(context, index, partial(loop_rows, context, parent))
    return None


def _repeated(node: Loop) -> list[cst.CSTNode]:
    """The parts of a loop that run on each of its iterations (not its iterable, nor the
    ``else`` of a ``for`` statement)."""
    if isinstance(node, cst.For):
        return [node.body]
    for_in = node.for_in
    extra = [for_in.inner_for_in] if for_in.inner_for_in is not None else []
    return [*comprehension_parts(node), *for_in.ifs, *extra]


def _at(context: FileContext, index: int, compute: Callable[[], T]) -> T:
    """``compute()`` as if the node at ``context.ancestors[index]`` were being visited (the
    state HTD201 judges a loop in)."""
    ancestors = context.ancestors
    rest = ancestors[index:]
    del ancestors[index:]
    try:
        return compute()
    finally:
        ancestors.extend(rest)
