"""What a call of a project function returns when its arguments put some of its parameters
on the host: the function's returns, recomputed with those parameters known.

``return_fact`` summarises a function once, whatever its callers pass, and a parameter stays
unknown there; a tensor made with ``device=mask.device`` (or ``x.new_zeros(n)``, or
``torch.arange(n, device=device)`` after ``device = mask.device``) then counts as on the device,
as the name ``device`` says. That is right for the model code that calls it with device tensors,
and wrong at a call that passes a host tensor: a unit test of a decoder's attention mask built on
the CPU (``Decoder._chunk_attn_mask(mock, 8, 0, torch.zeros(1, 1, 8, dtype=torch.bool))``), a
host-side helper that calls the model's own mask builder on host lengths. Such a call's result
follows its argument: the returns are recomputed by a fresh analysis of the callee's module in
which those parameters hold what the call passes (their host facts), and only when the
summary said DEVICE; a return that moves its value itself (``.cuda()``, ``.to(self.device)``)
stays on the device.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.facts import Fact, Where
from h2dlint.analysis.frames import Frame, decorator_names
from h2dlint.analysis.provenance.specialisation import Specialisation

if TYPE_CHECKING:
    from h2dlint.analysis.provenance.base import ProvenanceBase

# Specialisations computed at most per analysis of a module, and nested at most (a fresh
# analysis of a callee may specialise the calls in it in turn).
MAX_SPECIALISED = 32
MAX_NESTED = 2


def _method(owner: ProvenanceBase, function: cst.FunctionDef) -> bool:
    return function in owner.index.owner


def _parameter_names(
    owner: ProvenanceBase, function: cst.FunctionDef, through_class: bool
) -> tuple[list[str], set[str]]:
    """The names of the positional parameters a call fills, in order, and the keyword-only
    ones. A method called through an object (``obj.m(x)``, ``self.m(x)``) binds its first
    parameter to the object; called through its class (``Cls.m(obj, x)``) it does not, but
    a class method's first parameter is bound all the same."""
    params = function.params
    positional = [p.name.value for p in (*params.posonly_params, *params.params)]
    decorators = decorator_names(function)
    bound = not through_class or "classmethod" in decorators
    if bound and positional and "staticmethod" not in decorators and _method(owner, function):
        positional = positional[1:]
    return positional, {p.name.value for p in params.kwonly_params}


def host_parameters(
    source: ProvenanceBase,
    owner: ProvenanceBase,
    function: cst.FunctionDef,
    call: cst.Call,
    frame: Frame,
    depth: int,
    through_class: bool,
) -> frozenset[tuple[str, Where]]:
    """The parameters of ``function`` that ``call`` fills with values proven on the host (as
    ``source`` sees them in ``frame``), with where each is; empty after a ``*args`` or
    ``**kwargs`` (positions no longer tell which parameter a value fills)."""
    positional, keyword_only = _parameter_names(owner, function, through_class)
    found: set[tuple[str, Where]] = set()
    position = 0
    for arg in call.args:
        if arg.star:
            return frozenset()
        if arg.keyword is not None:
            name: str | None = arg.keyword.value
            if name not in positional and name not in keyword_only:
                continue
        else:
            name = positional[position] if position < len(positional) else None
            position += 1
        if name is None:
            continue
        where = source.fact(arg.value, frame, depth + 1).where
        if where.on_host:
            found.add((name, where))
    return frozenset(found)


def specialised_return(
    source: ProvenanceBase,
    owner: ProvenanceBase,
    function: cst.FunctionDef,
    call: cst.Call,
    frame: Frame,
    depth: int,
    through_class: bool = False,
) -> Fact:
    """What ``call`` of ``function`` (analysed by ``owner``) returns: ``owner``'s summary,
    unless it says DEVICE and the call passes host values for some parameters; then the
    returns recomputed with those parameters known (see the module's docstring)."""
    summary = owner.return_fact(function, depth)
    if summary.where is not Where.DEVICE or source.specialisation.nested >= MAX_NESTED:
        return summary
    hosts = host_parameters(source, owner, function, call, frame, depth, through_class)
    if not hosts:
        return summary
    key = (function, hosts)
    state = owner.specialisation
    if key in state.returns:
        return state.returns[key]
    if len(state.returns) >= MAX_SPECIALISED or key in state.active:
        return summary
    fresh = owner.for_module(owner.context)
    assert isinstance(fresh, type(owner))
    fresh.module_name = owner.module_name
    fresh.specialisation = Specialisation(
        {(function, name): Fact(where) for name, where in hosts},
        nested=source.specialisation.nested + 1,
    )
    state.active.add(key)
    try:
        result = fresh.return_fact(function, depth)
    finally:
        state.active.discard(key)
    state.returns[key] = result
    return result
