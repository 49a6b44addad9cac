"""What an unpacking of an own method's call gives each target: ``self.scores, self.ids =
self._pick(x)`` where every ``return`` of ``_pick`` is a display of two values (``return
topk_scores, topk_ids``). Python binds ``self.scores`` to the first element of whichever
display ran, so each return's element is one of the attribute's values, evaluated in the
method's frame (session 31: OpenNMT-py's beam search keeps its per-step top-k scores this way
and reads them per finished hypothesis).

Kept free of the provenance analysis (the class attribute index, :mod:`frames`, uses it):
only the method's own ``return`` statements are read, not nested functions' or lambdas'."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.returns import returned_values


def own_method_call(
    value: cst.BaseExpression | None, self_name: str, methods: dict[str, cst.FunctionDef]
) -> cst.FunctionDef | None:
    """The method of the same class that ``value`` calls on the instance (``self._pick(x)``),
    or None."""
    if not isinstance(value, cst.Call) or any(a.star for a in value.args):
        return None
    func = value.func
    if not (
        isinstance(func, cst.Attribute)
        and isinstance(func.value, cst.Name)
        and func.value.value == self_name
    ):
        return None
    return methods.get(func.attr.value)


def returned_displays(function: cst.FunctionDef, length: int) -> list[list[cst.BaseExpression]]:
    """The elements of every ``return`` of ``function`` when each returns a tuple or list
    display of ``length`` values without starred elements; empty otherwise (a bare return, a
    generator, one return of anything else: then what the call unpacks is not known)."""
    values = returned_values(function)
    if not values:
        return []
    displays = []
    for value in values:
        if not isinstance(value, (cst.Tuple, cst.List)) or len(value.elements) != length:
            return []
        if any(isinstance(e, cst.StarredElement) for e in value.elements):
            return []
        displays.append([e.value for e in value.elements])
    return displays


__all__ = ["own_method_call", "returned_displays"]
