"""What another module's call passes for a parameter, where that module's summary could not
place it (code ``?``): the argument evaluated by that module's own provenance, whose
parameters are in turn placed by their own callers.

``MinTokensProcessor.apply(logits, ...)`` is called from ``Sampler.forward`` with the
sampler's own parameter ``logits``, and ``forward`` from the model runner with the model's
logits (``self.sampler(self.model.compute_logits(h), meta)``): the fact that ``logits`` is on
the device is known only at the caller's caller. The summary of a calling module
(``project/passed_args.py``) places what that module alone can tell; here the call is found
again in the module's tree (by its line and the name its function ends with) and its argument
asked about like any expression of that module, which follows a parameter of the calling
function to its own callers (:mod:`~h2dlint.analysis.argument_flow`).

Bounded: at most :data:`MAX_HOPS` such steps are open at once along one question (a caller,
its caller), each under argument flow's own bounds (call sites, modules), and a
calling module is parsed only when a question reaches one of its calls.
"""

from __future__ import annotations

import ast
import bisect

import libcst as cst

from h2dlint.analysis import cross_module
from h2dlint.analysis.argument_flow import Passed, Slot, slot_argument
from h2dlint.analysis.fact_source import FactSource
from h2dlint.analysis.facts import UNKNOWN_FACT, Fact, join
from h2dlint.analysis.frames import Frame
from h2dlint.context import Positions, SharedKey
from h2dlint.project.passed_sites import Site
from h2dlint.source import python_ast
from h2dlint.statement_positions import statement_lines
from h2dlint.walk import visit_read_only

# Chained steps open at once along one question.
MAX_HOPS = 2
_open = [0]


def remote_facts(
    source: FactSource,
    flow: Passed,
    depth: int,
    known: dict[str, Fact],
    unknown: Fact,
    local: list[Fact],
) -> list[Fact]:
    """The facts of the other modules' arguments in ``flow``: ``known`` facts of their codes,
    and an argument coded ``?`` asked in its own module (:func:`argument_fact`).

    The caller joins them with ``local``, the facts of its own module's arguments. A join
    that is unknown in every field stays so whatever is joined to it (and the order of
    the facts joined does not matter): once the codes, ``local`` and the arguments asked so
    far make it so, the rest of the arguments coded ``?`` are not asked, and their modules
    are not parsed for them."""
    facts = [known.get(code, unknown) for code in flow.remote if code not in ("0", "?")]
    joined = join([*local, *facts]) if local or facts else None
    for site, slot in flow.pending:
        if joined == UNKNOWN_FACT:
            break
        fact = argument_fact(source, site, slot, depth, unknown)
        facts.append(fact)
        joined = fact if joined is None else join([joined, fact])
    return facts


def argument_fact(source: FactSource, site: Site, slot: Slot, depth: int, unknown: Fact) -> Fact:
    """The fact of what ``site`` passes for ``slot``, asked in the calling module."""
    if _open[0] >= MAX_HOPS:
        return unknown
    found = argument_at(source, site, slot)
    if found is None:
        return unknown
    other, value, frame = found
    _open[0] += 1
    try:
        return other.fact(value, frame, depth + 1)
    finally:
        _open[0] -= 1


def argument_at(
    source: FactSource, site: Site, slot: Slot
) -> tuple[FactSource, cst.BaseExpression, Frame] | None:
    """What ``site`` passes for ``slot``: the calling module's provenance, the argument's
    expression and the frame it is evaluated in; None where the call or argument is not told."""
    if not site.called:
        return None
    other = _module(source, site.module)
    if other is None:
        return None
    memo = other.context.shared(_CALLS, dict)
    key = (site.called, site.line)
    if key not in memo:
        memo[key] = _call_at(other, site.called, site.line)
    found = memo[key]
    if found is None:
        return None
    call, frame = found
    told, value = slot_argument(call, slot)
    if not told or value is None:
        return None
    return other, value, frame


def _call_at(source: FactSource, called: str, line: int) -> tuple[cst.Call, Frame] | None:
    """The one call of ``called`` on ``line`` of ``source``'s module, with the frame of the
    function or method that holds it: found in that function's code alone (by CPython's
    lines of the module's statements), not by a walk of the whole module; None at module
    level, or when the line holds no such call or several."""
    starts = source.context.shared(_STARTS, lambda: _statement_starts(source))
    if not starts:
        return None
    at = bisect.bisect_right([start for start, _ in starts], line) - 1
    if at < 0:
        return None
    statement = starts[at][1]
    if not isinstance(statement, cst.FunctionDef):
        return None
    index = source.index
    if index.functions.get(statement.name.value) is not statement and statement not in index.owner:
        return None
    collector = _Calls(called)
    visit_read_only(statement, collector)
    tree = source.context.shared(_TREE, lambda: _python_tree(source))
    if not collector.calls or tree is None:
        return None
    context = source.context
    positions = Positions.of_statements(
        context.module, context.source, tree, {statement}, collector.calls
    )
    matches = [
        call
        for call in collector.calls
        if (
            positions.range(call)
            if positions is not None and call in positions.spans
            else context.position(call)
        ).start.line
        == line
    ]
    if len(matches) != 1:
        return None
    return matches[0], index.frame_of(statement)


class _Calls(cst.CSTVisitor):
    """The calls whose function ends with a name (``apply`` of ``self.proc.apply(...)``)."""

    def __init__(self, called: str) -> None:
        self.called = called
        self.calls: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        name = func.attr.value if isinstance(func, cst.Attribute) else None
        if isinstance(func, cst.Name):
            name = func.value
        if name == self.called:
            self.calls.append(node)


def _statement_starts(source: FactSource) -> list[tuple[int, cst.CSTNode]]:
    """The module's top-level statements and top-level classes' members by the line each
    starts on (its decorators, comments and blank lines before it included), in order."""
    tree = source.context.shared(_TREE, lambda: _python_tree(source))
    if tree is None:
        return []
    lines = statement_lines(source.context.module, tree)
    if lines is None:
        return []
    return sorted(((line, node) for node, line in lines.items()), key=lambda item: item[0])


def _module(source: FactSource, module: str) -> FactSource | None:
    if not module or module == source.module_name:
        return source
    project = source.project
    if project is None:
        return None
    parsed = project.parsed(module)
    return cross_module.provenance_of(parsed, source) if parsed is not None else None


def _python_tree(source: FactSource) -> ast.Module | None:
    if source.context.python_tree is not None:
        return source.context.python_tree
    try:
        return python_ast(source.context.source)
    except (SyntaxError, ValueError):
        return None


_CALLS: SharedKey[dict[tuple[str, int], tuple[cst.Call, Frame] | None]] = SharedKey(
    "calls found by line"
)
_STARTS: SharedKey[list[tuple[int, cst.CSTNode]]] = SharedKey(
    "statements by the line they start on"
)
_TREE: SharedKey[ast.Module | None] = SharedKey("CPython's tree for locating calls")
