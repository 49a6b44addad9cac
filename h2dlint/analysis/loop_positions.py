"""Index loops by positions a loop's iteration gives (HTD201, HTD202): the counter of
``enumerate`` (``for i, req in enumerate(reqs)`` reading ``lens[i]``), a counter the body
adds 1 to (``yhat[idx]`` then ``idx += 1``) and the items themselves
or their fields (``for req in reqs`` reading ``logprobs[req.idx]``). Each is a
:class:`~h2dlint.analysis.sync_basics.RowLoop` of :attr:`Walk.INDEX`: the rows it reads are
those of the tensors the body indexes by those names, one read per iteration."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.arguments import positional
from h2dlint.analysis.names import target_names
from h2dlint.analysis.sync_basics import RowLoop, Walk


def counter_loop(iterable: cst.BaseExpression, target: cst.BaseExpression) -> RowLoop | None:
    """``for i, item in enumerate(xs)`` as an index loop of its counter ``i``: the rows of the
    tensors the body indexes by ``i`` (``mm_token_type_ids[i]``, ``self.lens[i]``), whatever
    ``xs`` is (the rows of a tensor, or requests)."""
    if not (
        isinstance(iterable, cst.Call)
        and isinstance(iterable.func, cst.Name)
        and iterable.func.value == "enumerate"
        and positional(iterable)
        and len(iterable.args) <= 2
        and isinstance(target, cst.Tuple)
        and len(target.elements) == 2
    ):
        return None
    counter = target.elements[0].value
    if not isinstance(counter, cst.Name):
        return None
    return RowLoop(Walk.INDEX, None, frozenset({counter.value}), counter)


def item_index_loop(iterable: cst.BaseExpression, target: cst.BaseExpression) -> RowLoop | None:
    """``for req in reqs`` as an index loop of its items: the rows of the tensors the body
    indexes by an item or a field of it (``logprobs[req.idx]``, ``scores[i, tok]`` of
    ``for i, tok in pairs``), one read per item whatever the items are (requests, Python
    positions, the rows of a ``.tolist()``). Only rows picked by an index count: a range
    sliced by the items (``x[:, :, start:end]`` of ``for start, end in tiles``) is a chunk of
    work per item (a tiled encode), whose reads HTD202 judges. Not ``range`` (an index loop of
    its own) nor ``enumerate``'s counter (:func:`counter_loop`): its item only."""
    if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name):
        if iterable.func.value == "range":
            return None
        if iterable.func.value == "enumerate":
            if not (isinstance(target, cst.Tuple) and len(target.elements) == 2):
                return None
            target = target.elements[1].value
    names = frozenset(target_names(target))
    if not names:
        return None
    return RowLoop(Walk.INDEX, None, names, target, picks=True)


def counted_loop(node: cst.For) -> RowLoop | None:
    """``for j in range(n): ... order[i, j] = yhat[idx]; idx += 1`` as an index loop of the
    names its own body (not a nested loop's or function's) adds 1 to (``idx += 1``): a counter
    kept by hand moves one position per iteration (or per iteration its branch takes), as an
    ``enumerate`` counter does; the rows of the tensors the body indexes by it, written into a
    host tensor or array (other reads by such a counter, Qwen2-VL's rope index reading
    ``image_grid_thw[image_index]`` per image, are HTD202's findings, and stay so)."""
    names: set[str] = set()
    stack: list[cst.CSTNode] = [node.body]
    while stack:
        current = stack.pop()
        if isinstance(current, (cst.For, cst.While, cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if (
            isinstance(current, cst.AugAssign)
            and isinstance(current.operator, cst.AddAssign)
            and isinstance(current.target, cst.Name)
            and isinstance(current.value, cst.Integer)
            and current.value.value == "1"
        ):
            names.add(current.target.value)
        stack.extend(current.children)
    names -= set(target_names(node.target))
    if not names:
        return None
    first = min(names)
    return RowLoop(Walk.INDEX, None, frozenset(names), cst.Name(first), kept_counter=True)
