"""Batches a data loader yields: their items are the batch's fields, not like items.

A collated batch is a tuple or list of fields (``audio, lengths, labels = batch``): tensors of
different shapes and dtypes that one copy cannot carry. So a loop over such a batch that moves
each item (``for batch in loader: batch = [x.to(dev) for x in batch]``) moves fields, as a loop
over a dict's named fields does, not a batch of like items (HTD101's per-item transfer). The
loop over the loader itself (``for batch in loader: xs.append(batch.to(dev))``) is another
matter and is not judged here.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.bindings import enumerated_item
from h2dlint.analysis.fact_source import FactSource
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.loop_transfers import names_in
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.targets import name_words

# Words of a name that say it is a data loader (``dataloader``, ``self.train_loader``).
LOADER_WORDS = frozenset({"loader", "dataloader", "loaders", "dataloaders"})
# Wrappers that iterate what they are given (``enumerate(loader)``, ``tqdm(loader)``).
WRAPPERS = frozenset({"enumerate", "tqdm", "iter", "list"})


def loader_batch(iterable: cst.BaseExpression, provenance: Provenance, frame: Frame) -> bool:
    """Whether ``iterable`` is a batch that a loop over a data loader binds: a name bound by
    such a loop (and, if at all, otherwise only to values computed from itself, as
    ``batch = [x.to(dev) for x in batch]``)."""
    node = _unwrapped(iterable)
    if not isinstance(node, cst.Name):
        return False
    bindings = provenance.bindings(frame).reaching_bindings(node)
    loops = [b.statement for b in bindings if isinstance(b.statement, cst.For)]
    if not loops or not all(_batches(loop, node.value, provenance) for loop in loops):
        return False
    name = node.value
    return all(
        isinstance(b.statement, cst.For) or (b.value is not None and name in names_in(b.value))
        for b in bindings
    )


def _unwrapped(node: cst.BaseExpression) -> cst.BaseExpression:
    while (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value in WRAPPERS
        and node.args
    ):
        node = node.args[0].value
    return node


def _batches(loop: cst.For, name: str, provenance: Provenance) -> bool:
    """Whether ``loop`` binds ``name`` to each batch of a data loader."""
    target, iterable = enumerated_item(loop.target, loop.iter)
    if not (isinstance(target, cst.Name) and target.value == name):
        return False
    return _loader(_unwrapped(iterable), provenance)


def _loader(node: cst.BaseExpression, provenance: Provenance) -> bool:
    if isinstance(node, cst.Call):
        if (provenance.qualify(node.func) or "").endswith("DataLoader"):
            return True
        node = node.func
    if isinstance(node, cst.Attribute):
        return bool(LOADER_WORDS & name_words(node.attr.value))
    return isinstance(node, cst.Name) and bool(LOADER_WORDS & name_words(node.value))


# Bindings followed from a loop's iterable back to the loader (``pbar = tqdm(loader)``,
# ``self.it = iter(self.loader)``).
_MAX_HOPS = 4


def plain_loader_batch(name: cst.Name, provenance: FactSource, frame: Frame) -> bool:
    """Whether ``name`` is bound only by loops over the batches of a ``DataLoader(...)`` that
    collates with PyTorch's default (no ``collate_fn``): host tensors, which the default
    collate stacks from the dataset's samples. The loader is followed through wrappers
    (``enumerate``, ``tqdm``, ``iter``) and names or ``self`` attributes bound once to one.
    A dataset that hands out device tensors would make device batches, but only with no
    worker process; that is left to a MEDIUM finding's judgement."""
    bindings = provenance.bindings(frame).reaching_bindings(name)
    if not bindings:
        return False
    for binding in bindings:
        loop = binding.statement
        if not isinstance(loop, cst.For):
            return False
        target, iterable = enumerated_item(loop.target, loop.iter)
        if not (isinstance(target, cst.Name) and target.value == name.value):
            return False
        if not _plain_loader(_unwrapped(iterable), provenance, frame, 0):
            return False
    return True


def _plain_loader(
    node: cst.BaseExpression, provenance: FactSource, frame: Frame, hops: int
) -> bool:
    if isinstance(node, cst.Call):
        if (provenance.qualify(node.func) or "").endswith("DataLoader"):
            return not any(
                a.star or (a.keyword and a.keyword.value == "collate_fn") for a in node.args
            )
        return False
    if hops >= _MAX_HOPS:
        return False
    if isinstance(node, cst.Name):
        values = provenance.bindings(frame).reaching(node)
    elif (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and frame.cls is not None
        and node.value.value == frame.self_name
    ):
        assigned = provenance.index.attributes.get(frame.cls, {}).get(node.attr.value, [])
        values = [value for value, _ in assigned]
        frames = {where for _, where in assigned}
        if len(frames) != 1:
            return False
        frame = frames.pop()
    else:
        return False
    return (
        len(values) == 1
        and values[0] is not None
        and _plain_loader(_unwrapped(values[0]), provenance, frame, hops + 1)
    )
