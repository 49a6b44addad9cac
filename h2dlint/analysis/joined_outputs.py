"""Two ways a model's output reaches a name that :mod:`model_outputs` follows (HTD101's
collections made where the model ran):

- a join of a displayed tuple or list (``torch.cat((base_feature, feature), dim=0)``,
  ``torch.stack([...])``): every operand of one join sits on one device, so the result is
  where the model ran when one operand is the model's output (:func:`joined_operands`);
- the target of a ``for`` loop (``for idx, feature in enumerate(features)``): an item of the
  collection it walks (:func:`bindings.zipped_item`); a binding met again while its own value
  is judged adds no origin (:class:`BindingsOnPath`).

Session 45 (fp1xx45): LLaVA's ``prepare_inputs_labels_for_multimodal`` (llava-torch
``llava/model/llava_arch.py:265`` and IPEX's copy of it) moves each piece of a sample's
embeddings with ``[x.to(self.device) for x in cur_new_input_embeds]``: the pieces are split from
``self.get_model().embed_tokens(...)``'s output and the image features the vision tower made,
joined per image with ``torch.cat((base_image_feature, image_feature))`` in a loop over the
split features; every one is on the device already.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.bindings import Binding, Bindings
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.torch_api import JOINS


def joined_operands(node: cst.BaseExpression, provenance: Provenance) -> list[cst.BaseExpression]:
    """The tensors a join of a displayed tuple or list takes (``torch.cat((a, b), dim=0)``:
    ``a`` and ``b``); empty for anything else (a join of a name, of a starred element)."""
    if not isinstance(node, cst.Call) or not node.args or node.args[0].keyword is not None:
        return []
    if provenance.qualify(node.func) not in JOINS:
        return []
    display = node.args[0].value
    if not isinstance(display, (cst.List, cst.Tuple)):
        return []
    elements = display.elements
    if not elements or not all(isinstance(e, cst.Element) for e in elements):
        return []
    return [e.value for e in elements]


def past_target_rebinding(bindings: Bindings, use: cst.Name) -> list[Binding]:
    """The bindings that reach ``use`` (:meth:`Bindings.reaching_bindings`), less those a
    ``for`` loop's own target kills: where the loop binds the name as its item and the use sits
    in its body, a binding later in the body reaches the use only through the next iteration,
    which binds the item again first (``for feature in features: base = feature[0]; feature =
    feature[1:]``: ``base`` is an item's first row, whatever ``feature`` became last time);
    so does a binding earlier in the body but in another arm of an ``if`` than the use. A
    binding in an inner loop that also holds the use is kept: it comes round without the
    target's rebinding."""
    reaching = list(bindings.reaching_bindings(use))
    loops = [b.statement for b in reaching if b.value is None and isinstance(b.statement, cst.For)]
    if not loops:
        return reaching
    statement = _statement(bindings, use)
    if statement is None:
        return reaching
    here = bindings.order[statement]
    kept = []
    for binding in reaching:
        apart = binding.order >= here or _exclusive(bindings, binding.statement, statement)
        if (
            apart
            and binding.value is not None
            and any(_killed_by(bindings, binding.statement, use, loop) for loop in loops)
        ):
            continue
        kept.append(binding)
    return kept


def _exclusive(bindings: Bindings, first: cst.CSTNode, second: cst.CSTNode) -> bool:
    """Whether ``first`` and ``second`` sit in different arms of one ``if`` (one in its body,
    the other in its ``else``/``elif``): one pass through the code runs only one of them."""
    arms: dict[int, cst.CSTNode] = {}
    child: cst.CSTNode = first
    current = bindings.parents.get(first)
    while current is not None:
        if isinstance(current, cst.If):
            arms[id(current)] = child
        child, current = current, bindings.parents.get(current)
    child = second
    current = bindings.parents.get(second)
    while current is not None:
        arm = arms.get(id(current))
        if arm is not None:
            return arm is not child
        child, current = current, bindings.parents.get(current)
    return False


def _statement(bindings: Bindings, node: cst.CSTNode) -> cst.CSTNode | None:
    """The statement of the scope that holds ``node``."""
    current: cst.CSTNode | None = node
    while current is not None and current not in bindings.order:
        current = bindings.parents.get(current)
    return current


def _killed_by(bindings: Bindings, binding: cst.CSTNode, use: cst.Name, loop: cst.For) -> bool:
    """Whether ``loop`` holds ``use`` in its body and ``binding``, and no loop inside it holds
    both."""
    inner_use = _loops_up_to(bindings, use, loop)
    inner_binding = _loops_up_to(bindings, binding, loop)
    if inner_use is None or inner_binding is None:
        return False
    return not inner_use & inner_binding


def _loops_up_to(bindings: Bindings, node: cst.CSTNode, loop: cst.For) -> set[int] | None:
    """The loops around ``node`` inside ``loop`` (by id), or None if ``loop``'s body does not
    hold ``node``."""
    found: set[int] = set()
    child: cst.CSTNode = node
    current = bindings.parents.get(node)
    while current is not None:
        if current is loop:
            return found if child is loop.body else None
        if isinstance(current, (cst.For, cst.While)):
            found.add(id(current))
        child, current = current, bindings.parents.get(current)
    return None


class BindingsOnPath:
    """The binding statements whose values are being judged, outermost first: a binding met
    again while its own value is judged (``feature = feature[1:]`` and ``feature =
    feature.view(...)`` in one loop body, each reaching the other through the next iteration)
    adds no origin of its own: it is made wherever the name's other bindings are, so it is
    skipped, and the judgement ends instead of going round until the depth limit."""

    def __init__(self) -> None:
        self._statements: set[int] = set()

    def entered(self, statement: cst.CSTNode) -> bool:
        """Enter ``statement``; False (and nothing entered) when it is on the path already."""
        key = id(statement)
        if key in self._statements:
            return False
        self._statements.add(key)
        return True

    def leave(self, statement: cst.CSTNode) -> None:
        self._statements.discard(id(statement))


__all__ = [
    "BindingsOnPath",
    "joined_operands",
    "past_target_rebinding",
]
