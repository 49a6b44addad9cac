"""Helpers named as initializers that a module's ``forward`` calls on every pass.

``_init*``, ``init_*`` and ``initialize*`` names mostly run once (:mod:`once`), but a helper so
named that ``forward`` calls with no guard around the call runs per forward: fairchem 2.7's
``_init_gp_partitions(graph_dict, atomic_numbers)`` built ``torch.arange(n).to(device)`` for every
graph, torchaudio's Tacotron2 ``_initialize_decoder_states`` and torchgeo's ConvLSTM
``_init_hidden`` make the pass's state. A call under an ``if`` (``if self.pe is None:
self.pe = self._init_pos_encoding(...)``, lazy set-up) keeps the name's meaning; an ``if`` that
only picks a mode (``if gp_utils.initialized():``) does not. ``forward`` counts, and a method
of the class that ``forward`` calls (fairchem's ``_generate_graph``, which calls
``_init_gp_partitions``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import libcst as cst

from h2dlint.analysis.once_references import Reference

INIT_PREFIXES = ("_init", "init_", "initialize", "_initialize")
PER_PASS_CALLERS = frozenset({"forward"})


def init_named(name: str) -> bool:
    """Whether ``name`` is an initializer's by its prefix alone (not a dunder)."""
    return name.startswith(INIT_PREFIXES) and not name.startswith("__")


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
