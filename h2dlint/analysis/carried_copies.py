"""A tensor a loop grows on the host and copies whole to the device on every iteration (HTD302).

An autoregressive loop that keeps its history where the caller gave it, and brings each step's
output back there, copies the whole history to the device again on every step::

    while remaining > 0:
        prediction = self.model(context=context.to(self.model.device)).to(context)
        context = torch.cat([context, prediction[:, mid]], dim=-1)

(chronos-forecasting 1.3's Chronos-Bolt, fixed in 1.5 by moving the context once before the
loop.) The copy is not loop-invariant (the loop rebinds ``context``), so the invariant-copy
question never asks it; and where ``context`` lives is the caller's business, unknown here. What
the loop itself says is enough to suspect the host: it joins onto the tensor a value it brought
back from the device to the tensor's own placement (``.to(context)``, ``.to(context.device)``)
or to the host (``.cpu()``, ``.to("cpu")``), while it copies the tensor to the device. If the
tensor were on the device both copies would be no-ops; the loop is written for the case where
it is not, and then every step is a round trip of the whole history.

A copy ``X.to(<device>)`` (or ``X.cuda()``) in a loop is a *carried copy* when ``X`` is a name
that the copy does not rebind (``X = X.to(dev)`` moves it once for good), the loop's own body
rebinds ``X`` by joining it with other values (``X = torch.cat([X, y], ...)``, ``concat``,
``concatenate``, ``hstack``, ``vstack``, ``column_stack``, ``dstack``), and one of those values
comes back from a copy to ``X``'s placement or to the host, directly or through names the body
binds (at most a few hops). Reported with MEDIUM confidence, certain if ``X`` is a host
tensor; HIGH where the value was copied to the host (``torch.cat`` needs its parts on one
device, so ``X`` is a host tensor).
A history grown on the device (no value brought back) is left alone, as are copies of values
the loop does not join onto themselves.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.arguments import first_positional, keyword
from h2dlint.analysis.names import call_name, calls_in, names_in
from h2dlint.walk import OwnScopeVisitor, visit_read_only

# Joins that grow a tensor by its own value and new ones.
_JOINS = frozenset({"cat", "concat", "concatenate", "hstack", "vstack", "column_stack", "dstack"})
# Names followed back from a joined value to where it was made.
_HOPS = 3


class _Bindings(OwnScopeVisitor):
    """Each name the body binds with ``=``, with its values."""

    def __init__(self) -> None:
        self.values: dict[str, list[cst.BaseExpression]] = {}

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self.values.setdefault(target.target.value, []).append(node.value)


def _joined_parts(value: cst.BaseExpression, name: str) -> list[cst.BaseExpression] | None:
    """The other parts of ``torch.cat([name, ...])`` (any join of ``_JOINS``), or None when
    ``value`` is no join of ``name`` with others."""
    if not (isinstance(value, cst.Call) and call_name(value) in _JOINS):
        return None
    parts = first_positional(value)
    if not isinstance(parts, (cst.List, cst.Tuple)):
        return None
    values = [e.value for e in parts.elements if isinstance(e, cst.Element)]
    own = [v for v in values if isinstance(v, cst.Name) and v.value == name]
    others = [v for v in values if not (isinstance(v, cst.Name) and v.value == name)]
    return others if own and others else None


def _brought_back(call: cst.Call, name: str) -> str | None:
    """``"own"`` for ``y.to(name)``, ``y.to(name.device)``, ``y.to(device=name.device)`` (a copy
    to ``name``'s placement), ``"host"`` for ``y.cpu()`` or ``y.to("cpu")``, else None."""
    method = call_name(call)
    if not isinstance(call.func, cst.Attribute):
        return None
    if method == "cpu":
        return "host"
    if method != "to":
        return None
    device = keyword(call, "device")
    target = device.value if device is not None else first_positional(call)
    if isinstance(target, cst.Attribute) and target.attr.value == "device":
        target = target.value
    if isinstance(target, cst.Name) and target.value == name:
        return "own"
    if isinstance(target, cst.SimpleString) and target.evaluated_value == "cpu":
        return "host"
    return None


def _comes_back(
    value: cst.BaseExpression, name: str, bindings: dict[str, list[cst.BaseExpression]], hops: int
) -> str | None:
    """How ``value`` was brought back (``_brought_back``), through names bound in the body."""
    kinds = {_brought_back(call, name) for call in calls_in(value)}
    if hops > 0:
        kinds |= {
            _comes_back(bound, name, bindings, hops - 1)
            for other in names_in(value) - {name}
            for bound in bindings.get(other, [])
        }
    return "host" if "host" in kinds else "own" if "own" in kinds else None


def carried_copy(node: cst.Call, loop: cst.For | cst.While) -> tuple[cst.Name, bool] | None:
    """The name ``node`` (a copy to the device) copies when it is a carried copy of ``loop``
    (see the module's docstring), and whether it is surely on the host (the loop joins onto it
    a value copied to the host: ``torch.cat`` needs its parts on one device); else None."""
    func = node.func
    if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)):
        return None
    copied = func.value
    found = _Bindings()
    visit_read_only(loop.body, found)
    values = found.values.get(copied.value, [])
    if any(call is node for v in values for call in calls_in(v)):
        return None  # ``X = X.to(dev)``: moved once, for good
    kinds: set[str | None] = set()
    for value in values:
        parts = _joined_parts(value, copied.value) or []
        kinds |= {_comes_back(part, copied.value, found.values, _HOPS) for part in parts}
    if "host" in kinds or "own" in kinds:
        return copied, "host" in kinds
    return None
