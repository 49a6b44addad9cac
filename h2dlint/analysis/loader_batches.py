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
