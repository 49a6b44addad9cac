"""libcst's parse of code that CPython accepts, without validating every node it builds.

The native parser builds only valid nodes (its grammar is Python's), yet each node's
``__post_init__`` checks itself again as it is made: about a fifth of a parse's time (libcst's own
source calls moving that work a PERF opportunity). The engine parses the files it checks this
way once CPython has accepted them, and the project index the modules it reads facts from.
"""

from __future__ import annotations

import libcst as cst
from libcst._nodes.base import CSTNode

_VALIDATE = CSTNode.__post_init__

# libcst compares nodes by identity, through Python methods (``self is other``, ``id(self)``)
# that every dict and set keyed by nodes calls: hundreds of thousands of times a run (the
# analyses' memos, parents, bindings). CPython's own identity comparison and hash mean the same
# without a Python call.


def _identity_by_cpython(cls: type, libcst_own: dict[str, object]) -> None:
    """Give ``cls`` and its subclasses (each node class holds its own copy of the two methods,
    made by libcst's ``add_slots``) CPython's identity ``__eq__`` and ``__hash__``."""
    for name, method in libcst_own.items():
        if cls.__dict__.get(name) is method:
            setattr(cls, name, getattr(object, name))
    subclasses: list[type] = cls.__subclasses__()
    for sub in subclasses:
        _identity_by_cpython(sub, libcst_own)


_identity_by_cpython(CSTNode, {name: CSTNode.__dict__[name] for name in ("__eq__", "__hash__")})


def _unchecked(self: CSTNode) -> None:
    """Stands in for :meth:`CSTNode.__post_init__` (node validation) while a parse runs."""


def parse_valid_python(text: str) -> cst.Module:
    """``libcst.parse_module`` of code that CPython accepts, without validating each node as it
    is built. The native parser builds only valid nodes (its grammar is Python's), yet every
    node's ``__post_init__`` checks itself again: about a fifth of a parse's time (libcst's own
    source calls this a PERF opportunity). Nodes built afterwards (a fix's) are validated as
    usual. Raises what ``parse_module`` raises."""
    CSTNode.__post_init__ = _unchecked  # type: ignore[method-assign]
    try:
        return cst.parse_module(text)
    finally:
        CSTNode.__post_init__ = _VALIDATE  # type: ignore[method-assign]
