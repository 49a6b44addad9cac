"""Host copies of the same tensor made more than once in one function (HTD202's message
suggests reusing the first): ``x.cpu()`` twice, ``x.to("cpu")`` after ``x.cpu()``."""

from __future__ import annotations

import libcst as cst


def earlier_host_copy(
    seen: dict[cst.CSTNode, dict[str, str]],
    module: cst.Module,
    function: cst.FunctionDef,
    tensor: cst.BaseExpression,
    explicit: cst.Call | None,
) -> str | None:
    """For a host copy (``explicit``, a ``.cpu()`` or ``.to()`` of ``tensor``): the code of
    an earlier host copy of the same tensor in ``function``, if any; this one is noted in
    ``seen`` (per function, tensor code -> copy code, in source order) for the next."""
    if explicit is None or not isinstance(explicit.func, cst.Attribute):
        return None
    if explicit.func.attr.value not in ("cpu", "to"):
        return None
    copies = seen.setdefault(function, {})
    key = module.code_for_node(tensor)
    earlier = copies.get(key)
    if earlier is None:
        copies[key] = module.code_for_node(explicit)
    return earlier
