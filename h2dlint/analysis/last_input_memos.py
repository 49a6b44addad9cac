"""Caches of the last input: a function memoised by key (see
:func:`h2dlint.analysis.memo_methods.memoised_by_key`) whose hit test also asks that an entry
hold the very object it was given (``entry["seq_lengths"] is seq_lengths``), an object its key
does not name. Such a cache keeps one entry per key (per device, say), replaced whenever a new
object comes: it spares the layers of one step from redoing the work, and the work runs again
on every step's new input. Its body is per call, not once.

A key that names the object (``key = (id(plan), device)``, then ``cached[1] is plan``) keeps
one entry per object: the identity test only guards against a reused ``id``, and the work runs
once per object."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.names import target_names


def keeps_last_input(
    function: cst.FunctionDef, lookup: cst.If, read_into: str | None, key: cst.BaseExpression
) -> bool:
    """Whether the hit test of ``lookup`` (an ``if`` over the entry bound to ``read_into``,
    read from a mapping with ``key``) checks ``entry... is name`` for a ``name`` that ``key``
    does not hold (itself, in a tuple, or as ``id(name)``; through the local it names, if it is
    one). An attribute of the object in the key (``seq_lengths.device``) does not hold it. The
    name is a parameter or a local: the input of this call."""
    assigned = _assignments(function)
    inputs = {p.name.value for p in function.params.params} | _bound(function)
    identities = _identity_names(lookup.test, read_into) & inputs  # not a module's sentinel
    if not identities:
        return False
    return bool(identities - _keyed(key, assigned))


def _keyed(key: cst.BaseExpression, assigned: dict[str, cst.BaseExpression]) -> set[str]:
    """The names a key holds: ``x``, ``(x, device)``, ``id(x)``; a local's assigned value."""
    if isinstance(key, cst.Name):
        value = assigned.pop(key.value, None)  # popped: a name bound to itself ends
        return {key.value} | (_keyed(value, assigned) if value is not None else set())
    if isinstance(key, cst.Tuple):
        return {n for element in key.elements for n in _keyed(element.value, assigned)}
    if (
        isinstance(key, cst.Call)
        and isinstance(key.func, cst.Name)
        and key.func.value in ("id", "hash", "tuple")
        and key.args
    ):
        return _keyed(key.args[0].value, assigned)
    return set()


def _identity_names(test: cst.BaseExpression, entry: str | None) -> set[str]:
    """The names ``n`` of the ``entry[...] is n`` / ``entry.x is n`` parts of an ``and``."""
    parts: list[cst.BaseExpression] = []
    while isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        parts.append(test.right)
        test = test.left
    parts.append(test)
    found: set[str] = set()
    for part in parts:
        if not isinstance(part, cst.Comparison) or len(part.comparisons) != 1:
            continue
        comparison = part.comparisons[0]
        if not isinstance(comparison.operator, cst.Is):
            continue
        other = comparison.comparator
        if not isinstance(other, cst.Name) or other.value in ("None", "True", "False"):
            continue
        if _reads_entry(part.left, entry):
            found.add(other.value)
    return found


def _reads_entry(node: cst.BaseExpression, entry: str | None) -> bool:
    """``entry[...]`` or ``entry.x`` (any entry when the lookup bound no name)."""
    while isinstance(node, (cst.Subscript, cst.Attribute)):
        node = node.value
    return isinstance(node, cst.Name) and (entry is None or node.value == entry)


def _assignments(function: cst.FunctionDef) -> dict[str, cst.BaseExpression]:
    """``name -> value`` of the ``name = value`` statements of ``function``'s own body."""
    found: dict[str, cst.BaseExpression] = {}
    body = function.body.body if isinstance(function.body, cst.IndentedBlock) else []
    for statement in body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                target = small.targets[0].target
                if isinstance(target, cst.Name):
                    found[target.value] = small.value
    return found


def _bound(function: cst.FunctionDef) -> set[str]:
    """The names the ``=`` statements of ``function``'s own body bind, unpacked ones too
    (``_, cu_seqlens, n = seq_info``)."""
    found: set[str] = set()
    body = function.body.body if isinstance(function.body, cst.IndentedBlock) else []
    for statement in body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Assign):
                for target in small.targets:
                    found |= target_names(target.target)
    return found
