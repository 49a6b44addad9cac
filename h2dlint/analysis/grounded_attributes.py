"""Attributes a class only updates from themselves (session 48, fp202m48).

``state_tensors.own_tensor_attribute`` proves ``self.<attr>`` a tensor when every value its
class assigns the attribute is one. A value that reads the attribute itself asks the same
question again, and the cycle answers "the other assignments decide" (``self.seq =
torch.cat([self.seq, ids])`` next to ``self.seq = ids``). When every assignment reads the
attribute there is no other assignment to decide: ``self.disc_step_count =
(self.disc_step_count + 1) % self.train_cfg.disc_step`` alone in a subclass proves nothing,
its first value is bound elsewhere (mmagic's ``OneStageInpaintor.__init__`` in another module
sets it to ``0``, a Python int). Such assignments prove a tensor only when one of them does so
with the cycle answered "no": ``self.seq = torch.cat([self.seq, ids])`` is a tensor whatever
``self.seq`` held, ``(self.n + 1) % k`` is not.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.walk import visit_read_only

# Keys of attributes whose cycle answers "not proven" while their grounding is checked.
_GROUNDING: set[object] = set()


def grounding(key: object) -> bool:
    """Whether ``key``'s assignments are being checked for a value proven without the cycle
    (the cycle then proves nothing)."""
    return key in _GROUNDING


def grounded(
    key: object,
    values: Sequence[tuple[cst.BaseExpression, Frame]],
    attr: str,
    proves: Callable[[cst.BaseExpression, Frame], bool],
) -> bool:
    """Whether some value of ``values`` (the class's assignments of ``self.<attr>``, each with
    its frame) proves a tensor without the answer of the cycle ``key``: at once when one does
    not read the attribute (the usual answer stands), else by ``proves`` with the cycle
    answered "no". The caller holds ``key`` in progress."""
    if any(not _reads_own(value, attr, frame) for value, frame in values):
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
