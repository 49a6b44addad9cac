"""Collections whose items are not like items to batch, though a loop moves them one by one:
whole batches, and activations reached through a local name (HTD101, at MEDIUM only).

HTD101 reports a loop that moves each item of a collection to the device at MEDIUM when it
cannot prove the items on the host. Two kinds of collection are left alone there:

- a collection named as batches (``batches``, ``processed_batches``, ``micro_batches``,
  ``microbatches``): each item is a whole batch, the unit one step or one forward consumes
  (``model, batches = set_device_and_dtype(model, batches, device)``, then ``for b in
  batches: model(b)``). One copy per batch is the floor, and batches differ in shape (the last
  one is short): nothing to stack. Batches proven on the host and gathered onto the device
  together (``torch.tensor`` of each, a data loader's) are a HIGH finding and stay reported;
- a local name bound only to an element, slice or attribute of a collection named as
  activations or outputs (``result = self._activations[-1]``, then ``[r.cuda() for r in
  result]``): the alias holds what the collection holds, tensors made where the model ran, as
  a loop over the collection itself does (``loop_iterables.activation_iterable``). A name
  bound to a call of one (``process(hidden)``) is not followed: a call may return anything;
- a list of ``self`` that the class's forward hooks fill with a layer's outputs
  (``self.recordings.append(output.clone().detach())``): :mod:`hook_records`;
- items that a field annotation of the enclosing class names as objects of a batch class
  (``inputs: dict[DataType, list[BatchedNCData]]``, then ``[item.to(device) for item in
  value]`` for ``value`` of ``self.inputs.items()``): :mod:`batch_items`.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.batch_items import batch_class_items
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.hook_records import hook_recorded
from h2dlint.analysis.loop_iterables import activation_iterable, last_name
from h2dlint.analysis.model_outputs import iterated_collection
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.targets import name_words

# Words of a collection's name that say its items are whole batches.
BATCHES_WORDS = frozenset({"batches", "microbatches", "minibatches"})


def whole_batches(iterable: cst.BaseExpression) -> bool:
    """Whether ``iterable`` is named as a collection of batches (``batches``,
    ``self.micro_batches``, ``enumerate(processed_batches)``)."""
    return bool(BATCHES_WORDS & name_words(last_name(iterable) or ""))


def activation_alias(iterable: cst.BaseExpression, provenance: Provenance, frame: Frame) -> bool:
    """Whether ``iterable`` is a local name whose every binding that reaches it is an element,
    slice or attribute of a collection named as activations or outputs
    (``result = self._activations[-1]``)."""
    node = iterated_collection(iterable)
    if not isinstance(node, cst.Name):
        return False
    values = provenance.bindings(frame).reaching(node)
    return bool(values) and all(
        isinstance(value, (cst.Subscript, cst.Attribute))
        and _plain_access(value)
        and activation_iterable(value)
        for value in values
    )


def _plain_access(node: cst.BaseExpression) -> bool:
    """``a.b[i].c``: attributes and subscripts of a name, no call anywhere along."""
    while isinstance(node, (cst.Subscript, cst.Attribute)):
        node = node.value
    return isinstance(node, cst.Name)


def unsure_whole_units(iterable: cst.BaseExpression, provenance: Provenance, frame: Frame) -> bool:
    """Whether a per-item move over ``iterable`` whose items are not proven on the host moves
    whole batches or activations (see the module's docstring)."""
    return (
        whole_batches(iterable)
        or activation_alias(iterable, provenance, frame)
        or hook_recorded(iterable, provenance, frame)
        or batch_class_items(iterable, provenance.context.ancestors)
    )
