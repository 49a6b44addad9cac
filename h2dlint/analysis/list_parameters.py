"""Parameters annotated as a bare list (session 45, mine45).

``def allocate_slots_batch(self, block_ids: list) -> list:`` then
``torch.tensor(block_ids, device=self.block_to_slot.device)``: whatever the list holds, the
tensor is built from host data. Python numbers are copied from pageable memory, and a list of
0-d tensors is read back element by element before that copy (a list of larger tensors does
not convert at all), so ``xs: list`` says host data as ``xs: list[int]`` does. Megatron-core
0.17.1's Mamba slot allocator built its block-id tensors on the GPU this way; 0.18 moved the
bookkeeping to the CPU. A tuple (``tuple``: a shape or a few settings) or a sequence of
named elements (:func:`~h2dlint.analysis.host_data.number_sequence_annotation`) is not this.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.provenance.common import annotation_is
from h2dlint.imports import dotted_name

if TYPE_CHECKING:
    from h2dlint.analysis.fact_source import FactSource

_BARE_LISTS = frozenset({"list", "List", "typing.List"})


def bare_list_annotation(provenance: FactSource, annotation: cst.BaseExpression) -> bool:
    """``list``, ``typing.List``, ``Optional[list]``, ``list | None``: a list, unsubscripted."""

    def leaf(node: cst.BaseExpression) -> bool:
        if not isinstance(node, (cst.Name, cst.Attribute)):
            return False
        return (provenance.qualify(node) or dotted_name(node) or "") in _BARE_LISTS

    return annotation_is(provenance, annotation, leaf)
