"""Mappings a function is given for one call (``params`` of ``forward(self, x, params)``):
an entry made when it is missing from such a mapping is made on every call, not once, unlike
one made on a miss of a cache that outlives the call (``self._cache.get(key)``). Asked by
:mod:`loop_body`'s run-once questions (HTD106, HTD202's hot code)."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance


def per_call_lookup(tested: cst.BaseExpression, provenance: Provenance, frame: Frame) -> bool:
    """``x`` of ``x = params.get("x")`` / ``if x is None: x = ...`` with ``params`` a
    :func:`per_call_mapping`: what the caller did not pass is made on every call."""
    if not isinstance(tested, cst.Name):
        return False
    return any(
        isinstance(v, cst.Call)
        and isinstance(v.func, cst.Attribute)
        and v.func.attr.value == "get"
        and per_call_mapping(v.func.value, frame)
        for v in provenance.bindings(frame).of(tested.value)
        if v is not None
    )


# Words of a parameter's name that say the mapping it brings is a cache kept across calls.
_CACHE_WORDS = ("cache", "memo")


def per_call_mapping(mapping: cst.BaseExpression, frame: Frame) -> bool:
    """``params`` of ``params.get("host_lens")`` when ``params`` is a parameter of the function
    not named as a cache (``params``, ``kwargs``, ``metadata``; not ``cache``, ``memo``): the
    caller's per-call state (the arguments one forward shares between its layers), so an
    entry made when it is missing is made once per call, like a parameter's default."""
    function = frame.function
    if not isinstance(mapping, cst.Name) or not isinstance(function, cst.FunctionDef):
        return False
    params = function.params
    star = [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    names = {
        p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params, *star)
    }
    lowered = mapping.value.lower()
    return mapping.value in names and not any(word in lowered for word in _CACHE_WORDS)
