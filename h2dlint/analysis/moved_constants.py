"""Constant tensors written with a move: ``torch.tensor([len(x)]).to(device)``,
``torch.Tensor([1.0]).cuda()``, ``torch.tensor([n, 1]).long().to(x.device)``.

HTD107 flags ``torch.tensor([n], device=dev)`` on a hot path. The same short display of Python
numbers built on the host and then moved is the same blocking copy from pageable memory, written
another way (trl 0.15's KTO trainer copied ``torch.Tensor([len(chosen_rewards)]).to(device)``
every training step; 0.17 sums the device labels). HTD301 reports the moves of 0-d constants and
of data of unknown length, and leaves short displays alone; this module finds those displays,
so that HTD107 judges them as it judges the ``device=`` spelling (hot path or loop, run-once
code exempt)."""

from __future__ import annotations

from typing import NamedTuple

import libcst as cst

from h2dlint.analysis.arguments import first_positional, is_true, keyword, positional
from h2dlint.analysis.factories import (
    EXACT_METHODS,
    constant_choice,
    factory_of,
    numeric_constant,
)
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.host_data import host_scalar, host_sequence
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.targets import Move

# ``torch.Tensor([0.5])`` is data; ``torch.Tensor(3)`` sizes: only displays count here.
MOVED_CONSTRUCTORS = frozenset(
    {
        "torch.tensor",
        "torch.as_tensor",
        *(f"torch.{kind}Tensor" for kind in ("", "Float", "Double", "Half", "Long", "Int")),
    }
)
# Keywords of the constructor that make it more than host data (a device, a pinned buffer...).
_OTHER_KEYWORDS = ("device", "pin_memory", "out", "requires_grad")
MOVED_TAILS = "|".join(
    f".{n.rsplit('.', 1)[1]}|{n.rsplit('.', 1)[1]}" for n in sorted(MOVED_CONSTRUCTORS)
)
CHAIN_TAILS = "|".join(f".{m}" for m in sorted(EXACT_METHODS))


class MovedConstant(NamedTuple):
    data: cst.BaseExpression  # the display or the number
    device: cst.BaseExpression | None  # None: ``.cuda()`` without an argument
    by_value: bool  # the move's target is an accelerator by value (``"cuda"``, ``.cuda()``)


def moved_constant(node: cst.Call, provenance: Provenance, frame: Frame) -> MovedConstant | None:
    """``node`` as a move (``.to(dev)``, ``.cuda()``) of a list or tuple display, or of a
    computed Python number (``torch.tensor(len(x))``, ``torch.tensor(step * dt)``), made into a
    tensor on the host (through value-exact methods: ``.float()``, ``.view(...)``), or None.
    A literal number is HTD301's (``torch.tensor(0.5).to(dev)``: a 0-d constant, anywhere).
    None also where HTD301 or HTD102 reports the move: data it proves a host sequence of
    unknown length (a starred or nested display), and a copy with ``non_blocking=True``."""
    func = node.func
    if not isinstance(func, cst.Attribute) or func.attr.value not in ("to", "cuda"):
        return None
    constructor = factory_of(func.value)
    if constructor is None or provenance.qualify(constructor.func) not in MOVED_CONSTRUCTORS:
        return None
    if any(keyword(constructor, k) is not None for k in _OTHER_KEYWORDS):
        return None
    data = first_positional(constructor)
    if data is None or len(positional(constructor)) != 1:
        return None
    if not isinstance(data, (cst.List, cst.Tuple)) and not _computed_number(
        provenance, data, frame, constructor
    ):
        return None
    non_blocking = keyword(node, "non_blocking")
    if non_blocking is not None and is_true(non_blocking.value):
        return None
    if host_sequence(provenance, data, frame):
        return None
    move = Move.of(node, provenance, frame)
    if move is None:
        return None
    return MovedConstant(data, move.device, move.by_value)


def _computed_number(
    provenance: Provenance, data: cst.BaseExpression, frame: Frame, constructor: cst.Call
) -> bool:
    """A proven Python number that is not a literal (nor a choice of two literals, which
    HTD301 reports); ``torch.Tensor(n)`` of a number makes ``n`` uninitialised floats."""
    if numeric_constant(data) or constant_choice(data):
        return False
    if provenance.qualify(constructor.func) not in ("torch.tensor", "torch.as_tensor"):
        return False
    return host_scalar(provenance, data, frame)
