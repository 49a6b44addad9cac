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
