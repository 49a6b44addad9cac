"""A calibration pass's input offloaded to the host inside the record its cache keeps (session
45, triage45): deepcompressor's ``BaseCalibCacheLoader._convert_layer_inputs``, called from
the loader's forward pre-hook, packs each hooked layer's input for the cache as
``ModuleForwardInput(args=[x.detach().cpu() if save_all else MISSING, *args[1:]], ...)`` and
returns it; the loader appends the record to its cache and replays it layer by layer.

It is :mod:`h2dlint.analysis.stored_offloads`' offload (the input itself, copied whole in
calibration code; the copy is the operation, it frees device memory), stored one call later:
the copy, or the conditional expression that takes it only when a setting asks
(``... if save_all else MISSING``), is an element of a list or tuple, or an argument, of a
record's constructor (a callee named in CapWords: a class), directly or through a name bound
only to it and used only there, and the record is returned as it is or stored. A copy read on
the host in the function, or a record read there before it is returned, is no offload.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.later_reads import later_reads

_ELEMENTS = (cst.Element, cst.StarredElement, cst.List, cst.Tuple)


def recorded_offload(
    ancestors: Sequence[cst.CSTNode], function: cst.FunctionDef, copy: cst.Call
) -> bool:
    """Whether ``copy`` (an input's host copy in calibration code, visited under
    ``ancestors``) is only packed into a record that is returned or stored (module
    docstring)."""
    child: cst.CSTNode = copy
    chain = list(reversed(ancestors))
    for i, parent in enumerate(chain):
        if isinstance(parent, cst.IfExp) and parent.test is not child:
            child = parent  # ``x.cpu() if save_all else MISSING``: taken or not, never read
            continue
        if isinstance(parent, cst.Assign) and parent.value is child:
            return _name_only_recorded(parent, function)
        return _record_argument(child, chain[i:])
    return False


def _record_argument(child: cst.CSTNode, chain: Sequence[cst.CSTNode]) -> bool:
    """Whether ``child`` (below ``chain``, innermost first) is an element or an argument of a
    record's constructor whose record is returned or stored."""
    for i, parent in enumerate(chain):
        if isinstance(parent, _ELEMENTS) or (isinstance(parent, cst.Arg) and parent.value is child):
            child = parent
            continue
        if isinstance(parent, cst.Call) and parent.func is not child:
            return _record_class(parent) and _kept(parent, chain[i + 1 :])
        return False
    return False


def _record_class(call: cst.Call) -> bool:
    func = call.func
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
    return isinstance(name, str) and name[:1].isupper() and not name.isupper()


def _kept(record: cst.Call, chain: Sequence[cst.CSTNode]) -> bool:
    """Whether the record is returned as it is, or stored in an entry or a field."""
    parent = chain[0] if chain else None
    if isinstance(parent, cst.Return):
        return True
    if isinstance(parent, cst.Assign) and parent.value is record:
        return all(isinstance(t.target, (cst.Subscript, cst.Attribute)) for t in parent.targets)
    return False


def _name_only_recorded(binding: cst.Assign, function: cst.FunctionDef) -> bool:
    """``x = input.cpu() ...`` whose every later use packs ``x`` into a returned record."""
    if len(binding.targets) != 1 or not isinstance(binding.targets[0].target, cst.Name):
        return False
    found = later_reads(function, binding.targets[0].target.value, binding)
    return (
        bool(found.reads)
        and found.rebound_after is None  # rebound: its other values are not ours to judge
        and all(_record_argument(read.node, read.parents) for read in found.reads)
    )


def copied_container(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """The container a comprehension copies entry by entry (``{k: v for k, v in
    kwargs.items()}``, ``[a for a in args]``: deepcompressor copies its hook's keyword
    arguments before it pops the layer's input out of them), or None: its entries are the
    container's own values."""
    if isinstance(node, cst.DictComp):
        value: cst.BaseExpression = node.value
    elif isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
        value = node.elt
    else:
        return None
    loop = node.for_in
    if loop.inner_for_in is not None or loop.ifs or not isinstance(value, cst.Name):
        return None
    targets = loop.target.elements if isinstance(loop.target, cst.Tuple) else [loop.target]
    names = {getattr(getattr(t, "value", t), "value", None) for t in targets}
    if value.value not in names:
        return None
    source = loop.iter
    if (
        isinstance(source, cst.Call)
        and isinstance(source.func, cst.Attribute)
        and source.func.attr.value in ("items", "values")
        and not source.args
    ):
        return source.func.value
    return source
