"""A named field of a dict parameter that every call fills with a host tensor (HTD201, MEDIUM
findings only: rows not proven on a device).

A method that works on one batch takes it as a dict (``get_extra_features(self, valid_data:
dict[str, Any], ...)``) and walks the rows of a field, ``first_frame =
valid_data["pixel_values"][:, :, 0].permute(0, 2, 3, 1)`` then ``frame.cpu().numpy()`` for
each ``frame``: a sync per row only if the field is a device tensor. Fastvideo 0.2.1's
preprocessing pipelines call it from the base class's loop over a ``DataLoader`` with
``valid_data = {"pixel_values": torch.stack([data["pixel_values"][i] for i in valid_indices]),
"text": [...]}``: the loader's host batch, of which only a ``.to(device)`` copy goes to the VAE,
so the per-frame ``.cpu()`` copies nothing. Argument flow places a parameter by what its
callers pass, but a dict display has no place of its own (its fields differ): here the field
itself is followed into each call, as ``d["key"]`` of a local dict display is
(:func:`~h2dlint.analysis.views.dict_entry`).

Only where every call is known (:func:`~h2dlint.analysis.argument_flow.passed`, each call asked
in its own module) and passes a name whose every binding is a dict display with the key, and
each value the caller gives the key (the display's, and every ``name["key"] = value`` of the
calling function) is host data (:func:`~h2dlint.analysis.host_callers.host_value`). The read
tensor must be the field itself, a view or slice of it, through local names bound once; the
method must not write the field itself.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import libcst as cst

from h2dlint.analysis.argument_flow import _slot, framework_called, name_uses, passed
from h2dlint.analysis.chained_arguments import argument_at
from h2dlint.analysis.fact_source import FactSource
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.host_callers import host_value
from h2dlint.analysis.host_company import own_scope_nodes
from h2dlint.analysis.loader_batches import plain_loader_batch
from h2dlint.analysis.names import call_name, calls_in
from h2dlint.analysis.torch_api import JOINS
from h2dlint.analysis.views import SAME_LAYOUT_VIEW_METHODS, STRIDED_VIEW_METHODS, dict_entry
from h2dlint.project.override_callers import base_self_callers
from h2dlint.project.passed_sites import Site, remote_sites

# Methods that keep a tensor where it is and make a view or a same-device copy of it.
_KEEPING_METHODS = STRIDED_VIEW_METHODS | SAME_LAYOUT_VIEW_METHODS | {"reshape", "contiguous"}
# ... and those that make a host copy of one on the host (``x.repeat(1, 1, n, 1, 1)``).
_HOST_KEEPING = _KEEPING_METHODS | {"repeat", "clone", "float"}
# Local names followed back to the field.
_MAX_NAMES = 4


def field_passed_on_host(
    source: FactSource, ancestors: Sequence[cst.CSTNode], tensor: cst.BaseExpression | None
) -> bool:
    """Whether ``tensor`` (read inside ``ancestors``' innermost function) is a field of a dict
    parameter that every call of the function fills with host data (see the module)."""
    function = next((a for a in reversed(ancestors) if isinstance(a, cst.FunctionDef)), None)
    if tensor is None or function is None:
        return False
    frame = source.index.frame_of(function)
    field = _parameter_field(source, tensor, frame, 0)
    if field is None:
        return False
    parameter, key = field
    if _written(function, parameter.value, key):
        return False
    calls = _calls(source, function, parameter.value)
    if not calls:
        return False
    return all(_host_field(other, value, where, key) for other, value, where in calls)


def _calls(
    source: FactSource, function: cst.FunctionDef, name: str
) -> list[tuple[FactSource, cst.BaseExpression, Frame]] | None:
    """What each call of ``function`` passes for ``name``, each with its module's provenance
    and frame; None where a call or its argument is not known."""
    flow = passed(source, function, name)
    bases = _base_calls(source, function, name)
    if bases is None:
        return None
    if flow is None:
        # No call known outside the base classes' own: only they may call it.
        alone = bases and not name_uses(source).get(function.name.value)
        return bases if alone else None
    if flow.remote.count("?") != len(flow.remote):
        return None  # a summary's code places a whole argument, not one of its fields
    calls = [(a.source, a.value, a.frame) for a in flow.local] + bases
    for site, slot in flow.pending:
        found = argument_at(source, site, slot)
        if found is None:
            return None
        calls.append(found)
    return calls


def _base_calls(
    source: FactSource, function: cst.FunctionDef, name: str
) -> list[tuple[FactSource, cst.BaseExpression, Frame]] | None:
    """The calls of an override that its project base classes make on ``self`` (the template
    method: a base's loop calls ``self.get_extra_features(valid_data, args)``, which each
    subclass overrides), which argument flow does not count: what each passes for ``name``.
    None where one is not told, where the method or the base's own is called through objects
    in other modules, or where a caller makes more than one such call (its edge names the
    first); empty for a function that is no method or overrides nothing."""
    cls = source.index.owner.get(function)
    project, module = source.project, source.module_name
    own = function.name.value
    if cls is None or project is None or module is None:
        return []
    slot = _slot(function, name, source.index.frame_of(function), True)
    if slot is None:
        return None
    index = project.caller_index()
    callers = base_self_callers(index, f"{module}.{cls.name.value}.{own}")
    if not callers:
        return []
    if framework_called(own) or own.startswith("__"):
        return None  # a framework's hook or ``forward``: called from outside the project too
    if remote_sites(index, f"{module}.{cls.name.value}.{own}", True) != []:
        return None
    calls = []
    for caller in callers:
        if remote_sites(index, f"{caller.module}.{caller.cls}.{own}", True) != []:
            return None
        found = argument_at(source, Site(caller.module, caller.line, "", {}, own), slot)
        if found is None or not isinstance(found[2].function, cst.FunctionDef):
            return None
        if sum(call_name(c) == own for c in calls_in(found[2].function)) != 1:
            return None  # the edge is the caller's first call: another would go unseen
        calls.append(found)
    return calls


def _parameter_field(
    source: FactSource, node: cst.BaseExpression, frame: Frame, depth: int
) -> tuple[cst.Name, str] | None:
    """``(parameter, key)`` where ``node`` is ``parameter["key"]``, a view or slice of it, or a
    local name bound once to one."""
    while True:
        if isinstance(node, cst.Subscript):
            key = _string_key(node)
            if key is None:
                node = node.value
                continue
            base = node.value
            if isinstance(base, cst.Name) and source.bindings(frame).is_parameter(base):
                return base, key
            return None
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in _KEEPING_METHODS
        ):
            node = node.func.value
            continue
        break
    if not isinstance(node, cst.Name) or depth >= _MAX_NAMES:
        return None
    values = source.bindings(frame).reaching(node)
    if len(values) != 1 or values[0] is None:
        return None
    return _parameter_field(source, values[0], frame, depth + 1)


def _string_key(node: cst.Subscript) -> str | None:
    """``"key"`` of ``x["key"]``."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    key = node.slice[0].slice.value
    if isinstance(key, cst.SimpleString) and isinstance(key.evaluated_value, str):
        return key.evaluated_value
    return None


def _host_field(source: FactSource, value: cst.BaseExpression, frame: Frame, key: str) -> bool:
    """Whether every value that the name ``value`` may give ``key`` in ``frame`` is host data:
    the dict display's entry (every binding of the name must be one) and each
    ``value["key"] = ...`` of the function."""
    if not isinstance(value, cst.Name):
        return False
    read = cst.Subscript(value, [cst.SubscriptElement(cst.Index(cst.SimpleString(repr(key))))])
    entry = dict_entry(source, read, frame)
    if entry is None:
        return False
    values = [entry, *((v, frame) for v in _writes(frame.function, value.value, key))]
    return all(_host_made(source, v, f, 0) for v, f in values)


def _host_made(source: FactSource, value: cst.BaseExpression, frame: Frame, depth: int) -> bool:
    """Whether ``value`` is host data (:func:`~h2dlint.analysis.host_callers.host_value`) or
    made on the host of a data loader's batch: a field or slice of the batch, a view, a
    ``repeat`` of one, or ``torch.stack``/``torch.cat`` of such pieces (the preprocessing
    loop's ``torch.stack([data["pixel_values"][i] for i in valid])``), through local names and
    dict displays."""
    if host_value(source, value, frame):
        return True
    if depth >= _MAX_NAMES * 2:
        return False
    if isinstance(value, cst.Subscript):
        entry = dict_entry(source, value, frame) if _string_key(value) is not None else None
        if entry is not None:
            return _host_made(source, entry[0], entry[1], depth + 1)
        return _host_made(source, value.value, frame, depth + 1)
    if isinstance(value, cst.Call):
        if isinstance(value.func, cst.Attribute) and value.func.attr.value in _HOST_KEEPING:
            return _host_made(source, value.func.value, frame, depth + 1)
        if source.qualify(value.func) in JOINS and value.args:
            pieces = value.args[0].value
            if isinstance(pieces, (cst.ListComp, cst.GeneratorExp)):
                return _host_made(source, pieces.elt, frame, depth + 1)
            if isinstance(pieces, (cst.List, cst.Tuple)) and pieces.elements:
                return all(
                    not isinstance(e, cst.StarredElement)
                    and _host_made(source, e.value, frame, depth + 1)
                    for e in pieces.elements
                )
        return False
    if not isinstance(value, cst.Name):
        return False
    if plain_loader_batch(value, source, frame):
        return True
    values = source.bindings(frame).reaching(value)
    return (
        len(values) == 1
        and values[0] is not None
        and _host_made(source, values[0], frame, depth + 1)
    )


def _writes(
    function: cst.FunctionDef | cst.Module, name: str, key: str
) -> Iterator[cst.BaseExpression]:
    """The values of ``name["key"] = value`` in ``function`` (its nested scopes left out)."""
    for node in own_scope_nodes(function):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                if _is_field(target.target, name, key):
                    yield node.value
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)) and _is_field(node.target, name, key):
            yield node.value if node.value is not None else cst.Name("None")


def _written(function: cst.FunctionDef, name: str, key: str) -> bool:
    """Whether ``function`` writes ``name["key"]`` itself."""
    return next(_writes(function, name, key), None) is not None


def _is_field(target: cst.BaseExpression, name: str, key: str) -> bool:
    return (
        isinstance(target, cst.Subscript)
        and isinstance(target.value, cst.Name)
        and target.value.value == name
        and _string_key(target) == key
    )


__all__ = ["field_passed_on_host"]
