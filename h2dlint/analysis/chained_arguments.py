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

import libcst as cst

from h2dlint.analysis import cross_module
from h2dlint.analysis.argument_flow import Passed, _argument, _references, _Slot, _Use
from h2dlint.analysis.fact_source import FactSource
from h2dlint.analysis.facts import Fact
from h2dlint.context import Positions, SharedKey
from h2dlint.project.passed_sites import Site

# Chained steps open at once along one question.
MAX_HOPS = 2
_open = [0]


def remote_facts(
    source: FactSource, flow: Passed, depth: int, known: dict[str, Fact], unknown: Fact
) -> list[Fact]:
    """The facts of the other modules' arguments in ``flow``: ``known`` facts of their codes,
    and an argument coded ``?`` asked in its own module (:func:`argument_fact`)."""
    facts: list[Fact] = []
    pending = iter(flow.pending)
    for code in flow.remote:
        if code == "0":
            continue
        if code == "?":
            site, slot = next(pending)
            facts.append(argument_fact(source, site, slot, depth, unknown))
        else:
            facts.append(known.get(code, unknown))
    return facts


def argument_fact(source: FactSource, site: Site, slot: _Slot, depth: int, unknown: Fact) -> Fact:
    """The fact of what ``site`` passes for ``slot``, asked in the calling module."""
    if _open[0] >= MAX_HOPS or not site.called:
        return unknown
    other = _module(source, site.module)
    if other is None:
        return unknown
    matches = [use for line, use in _located(other, site.called) if line == site.line]
    if len(matches) != 1:
        return unknown
    use = matches[0]
    assert use.call is not None
    told, value = _argument(use.call, slot)
    if not told or value is None:
        return unknown
    _open[0] += 1
    try:
        return other.fact(value, use.frame, depth + 1)
    finally:
        _open[0] -= 1


def _module(source: FactSource, module: str) -> FactSource | None:
    if not module or module == source.module_name:
        return source
    project = source.project
    if project is None:
        return None
    parsed = project.parsed(module)
    return cross_module.provenance_of(parsed, source) if parsed is not None else None


def _located(source: FactSource, called: str) -> list[tuple[int, _Use]]:
    """The calls of ``called`` in ``source``'s module with their lines, once per module and
    name: the code of the functions that hold them is generated (not the whole module's)."""
    memo = source.context.shared(_LOCATED, dict)
    found = memo.get(called)
    if found is None:
        uses = [u for u in _references(source).get(called, []) if u.call is not None]
        calls: list[cst.CSTNode] = [u.call for u in uses if u.call is not None]
        tops: set[cst.CSTNode | None] = {u.frame.function for u in uses}
        positions = None
        if uses and all(isinstance(top, cst.FunctionDef) for top in tops):
            tree = source.context.shared(_TREE, lambda: _python_tree(source))
            if tree is not None:
                context = source.context
                positions = Positions.of_statements(
                    context.module, context.source, tree, tops, calls
                )
        if positions is None:
            found = [
                (source.context.position(c).start.line, u) for c, u in zip(calls, uses, strict=True)
            ]
        else:
            spans = positions.spans
            found = [
                (
                    positions.range(c).start.line
                    if c in spans
                    else source.context.position(c).start.line,
                    u,
                )
                for c, u in zip(calls, uses, strict=True)
            ]
        memo[called] = found
    return found


def _python_tree(source: FactSource) -> ast.Module | None:
    if source.context.python_tree is not None:
        return source.context.python_tree
    try:
        return ast.parse(source.context.source)
    except (SyntaxError, ValueError):
        return None


_LOCATED: SharedKey[dict[str, list[tuple[int, _Use]]]] = SharedKey("calls located by line")
_TREE: SharedKey[ast.Module | None] = SharedKey("CPython's tree for locating calls")
