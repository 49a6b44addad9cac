"""``for logprob, token in zip(*logprobs.topk(k))``: a loop over the pairs of a tensor
method's two results (values and indices of ``topk``, ``sort``, ``max``/``min``/``kthvalue``
/``mode``/``median`` along a dimension). Each target name walks one result row by row, both
made where the tensor is: Whisper's beam search (copied into WhisperLiveKit, FunASR,
Xinference) reads ``token.item()`` and ``logprob.item()`` per candidate. Asked by
:func:`syncs.zipped_loops` for a ``zip`` of one starred argument."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.names import target_names
from h2dlint.analysis.sync_basics import RowLoop, Walk

# Tensor methods that return a (values, indices) pair; those after ``sort`` only with a
# dimension (``t.max()`` alone is one 0-d tensor).
_PAIR_METHODS = frozenset({"topk", "sort", "max", "min", "kthvalue", "mode", "median"})
_NEED_DIM = frozenset({"max", "min", "median", "mode"})


def star_zip_loops(iterable: cst.Call, elements: Sequence[cst.BaseElement]) -> list[RowLoop]:
    """How each of two target names walks its result when ``iterable`` is ``zip(*<pair>)``
    (:data:`_PAIR_METHODS`). The walked tensor is the method's receiver (the first argument of
    ``torch.topk(x, k)``): both results are made where it is, one row per pair."""
    if len(iterable.args) != 1 or iterable.args[0].star != "*" or len(elements) != 2:
        return []
    pair = iterable.args[0].value
    if not (
        isinstance(pair, cst.Call)
        and isinstance(pair.func, cst.Attribute)
        and pair.func.attr.value in _PAIR_METHODS
        and (pair.args or pair.func.attr.value not in _NEED_DIM)
    ):
        return []
    source = pair.func.value  # ``logprobs`` of ``logprobs.topk(k)``, or of ``torch.topk(...)``
    if isinstance(source, cst.Name) and source.value == "torch":
        first = next((a.value for a in pair.args if a.keyword is None and not a.star), None)
        if first is None:
            return []
        source = first
    loops = []
    for element in elements:
        if not isinstance(element, cst.Element):
            return []
        names = frozenset(target_names(element.value))
        loops.append(RowLoop(Walk.ROWS, source, names, element.value))
    return loops
