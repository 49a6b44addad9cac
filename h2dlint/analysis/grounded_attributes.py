"""Attributes a class only updates from themselves (session 48, fp202m48).

``state_tensors.own_tensor_attribute`` proves ``self.<attr>`` a tensor when every value its
class assigns the attribute is one. A value that reads the attribute itself asks the same
question again, and the cycle answers "the other assignments decide" (``self.seq =
torch.cat([self.seq, ids])`` next to ``self.seq = ids``). When every assignment reads the
attribute there is no other assignment to decide: ``self.disc_step_count =
(self.disc_step_count + 1) % self.train_cfg.disc_step`` alone in a subclass proves nothing,
its first value is bound elsewhere (mmagic's ``OneStageInpaintor.__init__`` in another module
sets it to ``0``, a Python int). When a base class of the project (any module) assigns the
attribute only numbers besides such updates, the assignments prove a tensor only when one of
them does so with the cycle answered "no": ``self.seq = torch.cat([self.seq, ids])`` is a
tensor whatever ``self.seq`` held, ``(self.n + 1) % k`` is not. A base that binds anything
else (eole's ``DecodeStrategy`` binds ``self.src_len = tile(src_len, beam_size)``, which
``BeamSearchBase`` then only re-indexes: ``self.src_len[self.select_indices]``), or no base
the project defines, leaves the usual answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst

from h2dlint.analysis.classes import named_class
from h2dlint.analysis.fact_source import FactSource
from h2dlint.analysis.frames import Frame
from h2dlint.walk import visit_read_only

# Keys of attributes whose cycle answers "not proven" while their grounding is checked.
_GROUNDING: set[object] = set()


def grounding(key: object) -> bool:
    """Whether ``key``'s assignments are being checked for a value proven without the cycle
    (the cycle then proves nothing)."""
    return key in _GROUNDING


def grounded(
    provenance: FactSource,
    key: object,
    cls: cst.ClassDef,
    values: Sequence[tuple[cst.BaseExpression, Frame]],
    attr: str,
    proves: Callable[[cst.BaseExpression, Frame], bool],
) -> bool:
    """Whether some value of ``values`` (``cls``'s assignments of ``self.<attr>``, each with
    its frame) proves a tensor without the answer of the cycle ``key``: at once when one does
    not read the attribute, or when no base class starts the attribute as a number (the usual
    answer stands); else by ``proves`` with the cycle answered "no". The caller holds ``key``
    in progress."""
    if any(not _reads_own(value, attr, frame) for value, frame in values):
        return True
    if not _number_in_base(provenance, cls, attr, 0):
        return True
    _GROUNDING.add(key)
    try:
        return any(proves(value, frame) for value, frame in values)
    finally:
        _GROUNDING.discard(key)


class _Reads(cst.CSTVisitor):
    def __init__(self, attr: str, self_name: str) -> None:
        self.attr = attr
        self.self_name = self_name
        self.found = False

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if (
            node.attr.value == self.attr
            and isinstance(node.value, cst.Name)
            and node.value.value == self.self_name
        ):
            self.found = True


def _reads_own(value: cst.BaseExpression, attr: str, frame: Frame) -> bool:
    """Whether ``value`` reads ``self.<attr>`` (``self`` as the frame names it)."""
    if not frame.self_name:
        return False
    reads = _Reads(attr, frame.self_name)
    visit_read_only(value, reads)
    return reads.found


def _number_in_base(provenance: FactSource, cls: cst.ClassDef, attr: str, depth: int) -> bool:
    """Whether the nearest base class of ``cls`` the project defines that binds ``self.<attr>``
    other than from itself binds it a number literal and otherwise only updates it from itself
    (``self.n = 0`` in ``__init__``, ``self.n = (self.n + 1) % k``); bases that only update
    it are passed through (mmagic's ``DeepFillv1Inpaintor`` of ``TwoStageInpaintor`` of
    ``OneStageInpaintor``)."""
    if depth > 3:
        return False
    for base in cls.bases:
        ref = named_class(provenance, base.value)
        if ref is None or ref.provenance is None or ref.node is None:
            continue
        assigned = ref.provenance.index.attributes.get(ref.node, {}).get(attr, [])
        if any(v is None for v, _ in assigned):
            return False  # an unpacked or augmented assignment: what it binds is not told
        values = [(v, f) for v, f in assigned if v is not None]
        if all(_reads_own(v, attr, f) for v, f in values):  # none, or only updates: go on up
            if _number_in_base(ref.provenance, ref.node, attr, depth + 1):
                return True
            continue
        numbers = [v for v, _ in values if _number(v)]
        return bool(numbers) and all(_number(v) or _reads_own(v, attr, f) for v, f in values)
    return False


def _number(node: cst.BaseExpression) -> bool:
    """``0``, ``1.0``, ``-1``."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float))
