"""Which syncs HTD202 (a sync on a hot path) leaves to HTD201 (a sync per row): exactly the
reads HTD201 reports in a row loop (:mod:`row_findings`), a sync around one or inside one, a
read on the line of one (one report a line), and every read of a loop whose first line
suppresses HTD201. Any other read in the loop is HTD202's (session 44; before, HTD202 also left
to HTD201 every read of a row of a tensor HTD201 named, which HTD201 does not report itself
since it reports each read)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import TypeVar

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.hot_names import metrics_name
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.row_findings import LOOPS, Loop, LoopRows, comprehension_parts, loop_rows
from h2dlint.analysis.value_syncs import value_where
from h2dlint.context import FileContext
from h2dlint.walk import holds

T = TypeVar("T")


def reported_row_read(context: FileContext, node: cst.CSTNode) -> cst.CSTNode | None:
    """The row loop (around ``node``, being visited, in its function) whose HTD201 finding
    covers ``node``; None when HTD202 judges ``node`` itself. A finding covers ``node`` when
    it is the same sync: ``node`` is a read HTD201 reports, holds one or is held by one
    (``int(t[i].item())``), or starts on the line of one (HTD201 merges the reads of a line
    into one finding, and a line gets one report); or when the loop's first line suppresses
    HTD201 (``# noqa: HTD201``), which said the loop's per-row reads are meant (session 44:
    a suppressed loop must not come back under HTD202). Any other read in the loop, of the
    same tensor's rows or not (minicpmv4_7's ``current_mm_token_type_ids[valid_mask]`` beside
    the ``.tolist()`` HTD201 reports), is HTD202's: before session 44 HTD202 left every read of
    a row of a tensor HTD201 named to HTD201, a rule from when HTD201 reported one read per
    loop, and a read HTD201 does not accept was then reported by neither."""
    line = None
    for parent, rows in _row_loops(context, node):
        if not rows.findings:
            continue
        if _suppressed_loop(context, parent):
            return parent
        for finding in rows.findings:
            read = finding.sync.call
            if holds(read, node) or holds(node, read):
                return parent
            line = line or context.position(node).start.line
            if context.position(read).start.line == line:
                return parent
    return None


def mask_judged_alone(context: FileContext, node: cst.Subscript, frame: Frame) -> bool:
    """Whether HTD202 judges the mask of ``node`` (``x[mask]``) by itself when ``x`` says
    nothing: the mask is surely a tensor (``m = mask.bool()``, a row of one) and may be on the
    device. Not when ``x`` is on the host, nor in a function named for metrics
    (``compute_data_metrics``: values for a logger). (A mask read in a row loop HTD201 reports
    is judged too since session 44: :func:`reported_row_read` leaves to HTD201 only its own
    reads.)"""
    function = frame.function
    if isinstance(function, cst.FunctionDef) and metrics_name(function.name.value):
        return False
    return not value_where(Provenance.of(context), node.value, frame).on_host


def _row_loops(context: FileContext, node: cst.CSTNode) -> Iterator[tuple[Loop, LoopRows]]:
    """The loops of ``node``'s function whose iterations run ``node`` (being visited; not a
    loop whose iterable holds it), innermost first, each with HTD201's judgement of its rows:
    HTD201 may report a read for an outer loop too (a read in an inner loop that reads the
    outer loop's row)."""
    ancestors = context.ancestors
    for index in range(len(ancestors) - 1, -1, -1):
        parent = ancestors[index]
        if isinstance(parent, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return
        if not isinstance(parent, LOOPS):
            continue
        inside = (*ancestors[index + 1 :], node)
        if not any(part in inside for part in _repeated(parent)):
            continue  # the iterable, evaluated once per iteration of the loop around
        yield parent, as_if_visiting(context, index, partial(loop_rows, context, parent))


def _suppressed_loop(context: FileContext, loop: Loop) -> bool:
    """Whether the first line of ``loop`` holds a comment that suppresses HTD201 (``# noqa:
    HTD201``, ``# h2dlint: ignore[HTD201]``, a bare ``# noqa``): HTD201's findings of the loop
    are suppressed there (they are reported with the loop as their enclosing construct)."""
    found = context.suppressions
    if not found.by_row:
        return False
    return found.suppresses("HTD201", (context.position(loop).start.line,))


def _repeated(node: Loop) -> list[cst.CSTNode]:
    """The parts of a loop that run on each of its iterations (not its iterable, nor the
    ``else`` of a ``for`` statement)."""
    if isinstance(node, cst.For):
        return [node.body]
    for_in = node.for_in
    extra = [for_in.inner_for_in] if for_in.inner_for_in is not None else []
    return [*comprehension_parts(node), *for_in.ifs, *extra]


def as_if_visiting(context: FileContext, index: int, compute: Callable[[], T]) -> T:
    """``compute()`` as if the node at ``context.ancestors[index]`` were being visited (the
    state HTD201 judges a loop in)."""
    ancestors = context.ancestors
    rest = ancestors[index:]
    del ancestors[index:]
    try:
        return compute()
    finally:
        ancestors.extend(rest)
