"""What the batches of a data loader are: the fact of an item of ``for batch in loader``.

``DataLoader(..., pin_memory=True)`` pins every batch (its worker pins them:
:data:`~h2dlint.analysis.facts.Where.PINNED`; a ``pin_memory=`` flag that is neither literal:
``MAYBE_PINNED``). A loader without ``pin_memory`` (or with ``pin_memory=False``) whose batches
worker processes collate (``num_workers=`` a literal above 0) hands out pageable host memory:
a worker cannot return CUDA tensors, and nothing pins them, as long as its ``collate_fn`` is
PyTorch's default or a function of the project whose text neither pins nor moves anything (no
``pin_memory``, ``cuda``, ``.to(``, ``device``). With ``num_workers=0`` the dataset itself may
hand out device tensors, and a collate function that cannot be read may pin: unknown.

The loader is found through names, a tuple a function of the project returns
(``train, val = make_loaders(...)`` in another module), and a parameter every call of whose
function passes such a loader (:mod:`~h2dlint.analysis.argument_flow`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.argument_flow import arguments
from h2dlint.analysis.arguments import is_false, is_true, keyword
from h2dlint.analysis.facts import UNKNOWN_FACT, Fact, Where, join
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance.common import MAX_DEPTH, returns_joined
from h2dlint.analysis.provenance.unpacked import display_element, unpacked_position

if TYPE_CHECKING:
    from h2dlint.analysis.provenance.base import ProvenanceBase

# Words in a collate function's text that say it may pin or move its batch.
_PLACING = ("pin_memory", "cuda", ".to(", "device")


def loader_fact(source: ProvenanceBase, node: cst.BaseExpression, frame: Frame, depth: int) -> Fact:
    """The fact of each batch of the loader ``node`` evaluates to (see the module's
    docstring); unknown when it is not surely such a loader."""
    if depth > MAX_DEPTH:
        return UNKNOWN_FACT
    if isinstance(node, cst.Name):
        return _named(source, node, frame, depth)
    if not isinstance(node, cst.Call):
        return UNKNOWN_FACT
    qualified = source.qualify(node.func) or ""
    if not qualified.endswith("DataLoader"):
        return UNKNOWN_FACT
    pin = keyword(node, "pin_memory")
    if pin is not None and not is_false(pin.value):
        return Fact(Where.PINNED if is_true(pin.value) else Where.MAYBE_PINNED, None, True)
    if _workers(node) and _plain_collate(source, node, frame, depth):
        return Fact(Where.PAGEABLE, None, True)
    return UNKNOWN_FACT  # a collate function may still pin, or move to the device


def _named(source: ProvenanceBase, node: cst.Name, frame: Frame, depth: int) -> Fact:
    bindings = source.bindings(frame)
    facts = []
    for binding in bindings.reaching_bindings(node):
        if binding.value is not None:
            facts.append(loader_fact(source, binding.value, frame, depth + 1))
        elif binding.statement is frame.function and isinstance(frame.function, cst.FunctionDef):
            passed = arguments(source, frame.function, node.value)
            if not passed:
                return UNKNOWN_FACT
            facts.extend(
                loader_fact(_provenance(a.source), a.value, a.frame, depth + 1) for a in passed
            )
        else:
            unpacked = unpacked_position(binding.statement, node.value)
            if unpacked is None:
                return UNKNOWN_FACT
            facts.append(_element(source, *unpacked, frame, depth + 1))
    return join(facts) if facts else UNKNOWN_FACT


def _element(
    source: ProvenanceBase,
    value: cst.BaseExpression,
    position: int,
    length: int,
    frame: Frame,
    depth: int,
) -> Fact:
    """The loader at ``position`` of ``value`` unpacked into ``length`` names: of a display,
    or of what every ``return`` of the project's function called gives there."""
    if depth > MAX_DEPTH:
        return UNKNOWN_FACT
    if isinstance(value, (cst.Tuple, cst.List)):
        element = display_element(value, position, length)
        if element is None:
            return UNKNOWN_FACT
        return loader_fact(source, element, frame, depth + 1)
    if not isinstance(value, cst.Call):
        return UNKNOWN_FACT
    found = source.callee(value, frame, depth + 1)
    if found is None:
        return UNKNOWN_FACT
    owner = _provenance(found[0])
    function = found[1]
    return returns_joined(
        owner, function, lambda v, inner: _element(owner, v, position, length, inner, depth + 1)
    )


def _workers(call: cst.Call) -> bool:
    """``num_workers=`` a literal above 0."""
    workers = keyword(call, "num_workers")
    return (
        workers is not None
        and isinstance(workers.value, cst.Integer)
        and int(workers.value.value, 0) > 0
    )


def _plain_collate(source: ProvenanceBase, call: cst.Call, frame: Frame, depth: int) -> bool:
    """Whether the loader collates with PyTorch's default, or with a function of the project
    that neither pins nor moves (see the module's docstring)."""
    collate = keyword(call, "collate_fn")
    if collate is None:
        return True
    if not isinstance(collate.value, (cst.Name, cst.Attribute)):
        return False
    found = source.callee(cst.Call(func=collate.value), frame, depth + 1)
    if found is None:
        return False
    owner = _provenance(found[0])
    text = owner.context.module.code_for_node(found[1])
    return not any(word in text for word in _PLACING)


def _provenance(source: object) -> ProvenanceBase:
    """A module's fact source as the provenance it is (``Provenance.for_module``)."""
    from h2dlint.analysis.provenance.base import ProvenanceBase

    assert isinstance(source, ProvenanceBase)
    return source
