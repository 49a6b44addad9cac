"""Optional parameters a function fills in itself: ``def gather(xs, all_cuda=None):`` then
``if all_cuda is None: all_cuda = all(x.is_cuda for x in xs)``. A caller that passes the
argument passes what the function would have computed (that is the argument's meaning), so at
a later use the parameter stands for the value computed: the name's values are the function's
own bindings of it, without the parameter's."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.bindings import Binding, Bindings
from h2dlint.analysis.device_branches import Resolve


def filled_values(bindings: Bindings) -> Resolve:
    """The values of a name that may reach its use in ``bindings``' function, a parameter
    defaulting to ``None`` that the function also binds left out (for
    :mod:`device_branches`: ``all_cuda`` of ``if not all_cuda:``)."""

    def resolve(name: cst.Name) -> Sequence[cst.BaseExpression | None]:
        return [b.value for b in own_bindings(bindings, bindings.reaching_bindings(name), name)]

    return resolve


def own_bindings(bindings: Bindings, found: Sequence[Binding], name: cst.Name) -> Sequence[Binding]:
    """``found`` without the binding of a ``None``-defaulted parameter when the function binds
    the name too."""
    root = bindings.root
    if len(found) < 2 or not isinstance(root, cst.FunctionDef):
        return found
    params = root.params
    default = next(
        (
            p.default
            for p in (*params.posonly_params, *params.params, *params.kwonly_params)
            if p.name.value == name.value
        ),
        None,
    )
    if not (isinstance(default, cst.Name) and default.value == "None"):
        return found
    return [b for b in found if b.statement is not root]
