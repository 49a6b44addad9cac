"""A host copy that is the output of a function its callers run once per call of theirs: the
caller chain (HTD202).

``forward`` is hot by its name, and a helper a hot function calls is hot through it, so a host
copy at the end of either looks like a per-step sync. Whether it is one depends on who calls the
function and how often: a safety checker's verdict, a folding run's coordinates, an annotator's
heatmaps copied to numpy are what the host needs, once per request, after the device work is
done; a sampler's token ids copied every step stall every step. The module alone cannot tell
them apart; the project's call graph (:mod:`h2dlint.project.callers`) can, where it knows the
callers.

A copy counts when it is an *output* of its function: outside the function's loops, and either
what it returns (:func:`returned_copies.returned_copy`, for any function) or handed to numpy
(``.cpu().numpy()``, :func:`host_io_calls.to_numpy`), not kept on an object as host state
(kvpress's ``self.important_per_head = torch.bincount(...).cpu().numpy()``, once per request
but read back into the masks the device then applies: labelled true), and a value the function
computed, not one of its parameters copied as it came in (fastchat's RWKV wrapper: ``input_ids =
input_ids[0].detach().cpu().numpy()`` in a ``__call__`` a generation loop calls per step through
a variable, the step's input handed to a host runtime). The function then runs once per request
when every caller the project index finds (resolved calls, and methods called through objects
of their class: ``self.helper(...)``, ``self.drafter.propose(...)``) calls it outside any loop of
the caller,
and the caller is cold by its name (set-up, a logger, a pipeline's per-request ``__call__``), or
is in turn run only that way (:data:`MAX_DEPTH` hops up: a pipeline's ``decode`` is hot by its
name, but one the pipeline's ``__call__`` alone calls, once after its loop, runs once per
request). A ``forward`` or ``__call__`` (the function or a caller up the chain) is run
through calls of its objects (``self.vocoder(mel)``): those calls count as its callers where
:func:`object_callers.object_callers` knows them all (session 39: no module naming the class
lets an object of it escape), and any one of them in a loop (a vocoder called per chunk of a
stream) keeps it reported, as does a caller that calls it in a loop.

Unknown callers keep it reported too: a function (or a caller up the chain) that nothing in the
project is found to call is no proof of a request. Tried and dropped (session 38): trusting an
uncalled ``__call__``/``predict...`` of a class that is no torch module as a request's entry
cleared two true labelled rows whose callers are reached through variables the index cannot
follow (fastchat's RWKV wrapper, called by a generation loop per step; lerobot's Pi0-FAST
processor step, called per action by a processor pipeline over its list of steps), against
one false row (controlnet-aux's DWPose detector) and three unlabelled ones.
"""

from __future__ import annotations

import ast
import itertools
import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import libcst as cst

from h2dlint.analysis.host_io_calls import to_numpy
from h2dlint.analysis.names import names_read, target_names
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.returned_copies import returned_copy
from h2dlint.analysis.returns import ReturnedValues
from h2dlint.project.object_callers import REPEATING, object_callers
from h2dlint.project.remembered import remembered
from h2dlint.project.summary import top_functions
from h2dlint.walk import visit_read_only

if TYPE_CHECKING:
    from h2dlint.context import FileContext
    from h2dlint.project.caller_scans import Caller
    from h2dlint.project.index import ProjectIndex

# Hops up the chain of callers, and callers of one function read, before the answer is "not
# known to run once" (a helper called from many places is left reported).
MAX_DEPTH = 2
MAX_CALLERS = 6

# Whether a function (name, class, the class's bases) runs per step by its name (True), may
# through its callers (False), or is cold (None): :meth:`HotPaths.hot_name`.
HotName = Callable[[str, str | None, tuple[str, ...]], "bool | None"]

# Methods Python runs through a call of the object (``self.vocoder(mel)``, a framework's
# ``step(batch)`` of a list of steps): the index cannot find all their callers.
_IMPLICIT = frozenset({"forward", "__call__"})
# Per project index: (function, depth) -> whether it runs once, and the modules the answer
# rests on (recorded as consulted again by every question that reuses it).
_MEMO: weakref.WeakKeyDictionary[
    ProjectIndex, dict[tuple[str, int], tuple[bool, dict[str, str]]]
] = weakref.WeakKeyDictionary()


def once_output(
    context: FileContext, function: cst.FunctionDef, copy: cst.Call, hot_name: HotName
) -> bool:
    """Whether the host copy ``copy`` being visited in ``function`` is an output of a function
    that every known caller runs once per call of its own (see the module)."""
    ancestors = context.ancestors
    if not _outside_loops(ancestors, function):
        return False
    if not (
        returned_copy(ancestors, function, copy, any_name=True)
        or to_numpy(function, copy)
        or _returned_name(ancestors, function)
    ):
        return False
    if _copied_parameter(function, copy):
        return False  # the step's input handed to a host runtime (a model wrapper's ``__call__``)
    if _kept_as_state(ancestors):
        return False  # ``self.counts = bins.cpu().numpy()``: host state for later work
    provenance = Provenance.of(context)
    project, module = provenance.project, provenance.module_name
    owner = provenance.index.owner.get(function)
    if project is None or module is None or (owner is None and function not in _top(context)):
        return False
    name = function.name.value
    qualified = f"{module}.{owner.name.value}.{name}" if owner else f"{module}.{name}"
    return _called_once(project, qualified, hot_name, 0)


def _returned_name(ancestors: Sequence[cst.CSTNode], function: cst.FunctionDef) -> bool:
    """Whether the copy below ``ancestors`` is bound to a name that a ``return`` of
    ``function`` gives, read on the way or not (deepfloyd's safety checker: ``nsfw_detected =
    (...).tolist()``, tested to blank images, then ``return images, nsfw_detected, ...``):
    only where the caller chain proves the function runs once per request."""
    for node in reversed(ancestors):
        if isinstance(node, cst.Assign):
            bound = {name for t in node.targets for name in target_names(t.target)}
            returns = ReturnedValues()
            visit_read_only(function.body, returns)
            return any(n.value in bound for v in returns.values for n in names_read(v))
        if isinstance(node, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            return False
    return False


def _top(context: FileContext) -> frozenset[cst.FunctionDef]:
    return frozenset(Provenance.of(context).index.functions.values())


def _outside_loops(ancestors: Sequence[cst.CSTNode], function: cst.FunctionDef) -> bool:
    """Whether the node below ``ancestors`` is in ``function``'s own body, outside its loops,
    comprehensions and closures."""
    for node in reversed(ancestors):
        if node is function:
            return True
        if isinstance(node, (cst.For, cst.While, cst.BaseComp, cst.DictComp, cst.Lambda)):
            return False
        if isinstance(node, cst.FunctionDef):
            return False
    return False


def _kept_as_state(ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether the copy below ``ancestors`` is assigned to an attribute or an item
    (``self.important_per_head = torch.bincount(...).cpu().numpy()``): a host mirror kept on an
    object for the work that follows, not an output handed on."""
    for node in reversed(ancestors):
        if isinstance(node, cst.Assign):
            return any(not isinstance(t.target, (cst.Name, cst.Tuple)) for t in node.targets)
        if isinstance(node, (cst.AnnAssign, cst.AugAssign)):
            return not isinstance(node.target, cst.Name)
        if isinstance(node, (cst.SimpleStatementLine, cst.FunctionDef)):
            return False
    return False


def _copied_parameter(function: cst.FunctionDef, copy: cst.Call) -> bool:
    """Whether ``copy`` copies a parameter of ``function`` that nothing rebinds before it, through
    views and method calls (``input_ids[0].detach().cpu()``): what the caller handed in, not a
    result the function computed (fastchat's RWKV wrapper copies each step's ids for the host
    runtime, called by a generation loop through a variable the index cannot follow)."""
    node: cst.BaseExpression = copy.func.value if isinstance(copy.func, cst.Attribute) else copy
    while True:
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            node = node.func.value
        elif isinstance(node, (cst.Attribute, cst.Subscript)):
            node = node.value
        else:
            break
    if not isinstance(node, cst.Name):
        return False
    name = node.value
    params = function.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    if name not in {param.name.value for param in every}:
        return False
    rebinds = _Rebinds(name, copy)
    visit_read_only(function.body, rebinds)
    return not rebinds.found


class _Rebinds(cst.CSTVisitor):
    """Whether a statement before ``copy`` binds ``name`` (an assignment, a loop, a ``with``
    target, ``:=``); the copy's own assignment (``ids = ids.cpu()``) binds it after the read."""

    def __init__(self, name: str, copy: cst.Call) -> None:
        self.name = name
        self.copy = copy
        self.seen = False
        self.found = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if node is self.copy:
            self.seen = True
        if self.seen or self.found:
            return False
        if isinstance(node, cst.For):
            self._bind(node.target)
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            self._bind(node.asname.name)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if self.seen:
            return
        if isinstance(original_node, cst.Assign):
            for target in original_node.targets:
                self._bind(target.target)
        elif isinstance(original_node, (cst.AugAssign, cst.AnnAssign, cst.NamedExpr)):
            self._bind(original_node.target)

    def _bind(self, target: cst.BaseExpression) -> None:
        if self.name in target_names(target):
            self.found = True


def _called_once(project: ProjectIndex, qualified: str, hot_name: HotName, depth: int) -> bool:
    """Whether ``qualified`` has callers in the project and every one runs it once per call of
    its own, outside loops, up a chain of callers that ends cold (kept per project index)."""
    memo = _MEMO.setdefault(project, {})
    return remembered(
        memo,
        (qualified, depth),
        project,
        lambda: _every_caller_once(project, qualified, hot_name, depth),
    )


def _every_caller_once(
    project: ProjectIndex, qualified: str, hot_name: HotName, depth: int
) -> bool:
    index = project.caller_index()
    callers = list(itertools.islice(index.callers(qualified), MAX_CALLERS + 1))
    if len(callers) > MAX_CALLERS:
        return False
    owner, _, callee = qualified.rpartition(".")
    if callee in _IMPLICIT:
        # Run through calls of its objects (``self.vocoder(mel)``): all of them must be known.
        objects = object_callers(index, owner) if owner not in project.layout.modules else None
        if objects is None or any(call.looped for call in objects):
            return False
        callers += [call.caller for call in objects]
    if not callers:
        return False
    for caller in callers:
        if caller.qualified == qualified or _looped(project, caller, callee):
            return False
        verdict = hot_name(caller.name, caller.cls, caller.bases)
        if verdict is None:
            continue  # run once by its name, a logger, a pipeline's per-request ``__call__``
        if depth >= MAX_DEPTH:
            return False
        if not _called_once(project, caller.qualified, hot_name, depth + 1):
            return False
    return True


def _looped(project: ProjectIndex, caller: Caller, callee: str) -> bool:
    """Whether ``caller`` calls ``callee`` (or anything, at its first call's line) in a loop, a
    comprehension or a closure of its own body (read from its module's ``ast``)."""
    part = project.caller_index().tree_part(caller.module, "looped_calls", _looped_calls)
    if part is None:
        return True
    key = f"{caller.cls}.{caller.name}" if caller.cls else caller.name
    found = part.get(key)
    if found is None:
        return False
    ranges, names = found
    return callee in names or any(first <= caller.line <= last for first, last in ranges)


def _looped_calls(tree: ast.Module) -> dict[str, Any]:
    """Per top-level function and method: the line ranges of its loops (comprehensions and
    closures too) and the last names of the calls in them."""
    found: dict[str, Any] = {}
    for function, cls in top_functions(tree):
        ranges: list[list[int]] = []
        names: set[str] = set()
        for statement in function.body:
            for node in ast.walk(statement):
                if isinstance(node, REPEATING) and isinstance(node, (ast.stmt, ast.expr)):
                    ranges.append([node.lineno, node.end_lineno or node.lineno])
                    for inner in ast.walk(node):
                        if isinstance(inner, ast.Call):
                            func = inner.func
                            if isinstance(func, ast.Attribute):
                                names.add(func.attr)
                            elif isinstance(func, ast.Name):
                                names.add(func.id)
        if ranges:
            found[f"{cls}.{function.name}" if cls else function.name] = [ranges, sorted(names)]
    return found


__all__ = ["once_output"]
