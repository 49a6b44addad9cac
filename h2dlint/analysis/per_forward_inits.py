"""Helpers named as initializers that a module's ``forward`` calls on every pass.

``_init*``, ``init_*`` and ``initialize*`` names mostly run once (:mod:`once`), but a helper so
named that ``forward`` calls with no run-once guard around the call runs per forward:
fairchem 2.7's ``_init_gp_partitions(graph_dict, atomic_numbers)`` built
``torch.arange(n).to(device)`` for every graph; torchgeo's ConvLSTM ``_init_hidden`` and moshi's
``_init_streaming_state`` make the pass's state. A call under a run-once guard (``if self.pe is
None: self.pe = self._init_pos_encoding(...)``, lazy set-up) keeps the name's meaning, as does a
helper that first returns when a flag of ``self`` says it ran (``if self.initialized:
return``); an ``if`` that only picks a mode (``if gp_utils.initialized():``) does not.
``forward`` counts, and a method of the class that ``forward`` calls (fairchem's
``_generate_graph``, which calls ``_init_gp_partitions``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import libcst as cst

from h2dlint.analysis.docstrings import is_docstring
from h2dlint.analysis.once_references import Reference
from h2dlint.walk import visit_read_only

INIT_PREFIXES = ("_init", "init_", "initialize", "_initialize")
PER_PASS_CALLERS = frozenset({"forward"})


def init_named(name: str) -> bool:
    """Whether ``name`` is an initializer's by its prefix alone (not a dunder)."""
    return name.startswith(INIT_PREFIXES) and not name.startswith("__")


def returns_when_done(function: cst.FunctionDef) -> bool:
    """Whether ``function`` first leaves when a flag of ``self`` says it ran (``if
    self.initialized: return``, moshi 0.2.13's ``_init_embedding`` that runs k-means once):
    lazy set-up whoever calls it."""
    body = function.body
    if not isinstance(body, cst.IndentedBlock):
        return False
    for statement in body.body:
        if is_docstring(statement):
            continue
        return (
            isinstance(statement, cst.If)
            and statement.orelse is None
            and _reads_self(statement.test)
            and isinstance(statement.body, cst.IndentedBlock)
            and len(statement.body.body) == 1
            and isinstance(statement.body.body[0], cst.SimpleStatementLine)
            and isinstance(statement.body.body[0].body[0], cst.Return)
        )
    return False


class _SelfAttributes(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.found = self.found or (isinstance(node.value, cst.Name) and node.value.value == "self")


def _reads_self(test: cst.BaseExpression) -> bool:
    finder = _SelfAttributes()
    visit_read_only(test, finder)
    return finder.found


def called_per_forward(
    references: Iterable[Reference],
    per_pass: Callable[[cst.FunctionDef], bool],
    once_guard: Callable[[cst.If], bool],
) -> bool:
    """Whether one of ``references`` (those that may be to the helper) is a call from a
    function ``per_pass`` accepts (``forward``, or a method ``forward`` calls) under no ``if``
    that ``once_guard`` says runs its body once."""
    return any(
        r.called
        and r.function is not None
        and per_pass(r.function)
        and not any(once_guard(g) for g in r.guards)
        for r in references
    )
