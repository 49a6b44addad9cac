"""A row read through ``.numpy()`` with no move before it: the row is a host tensor's.

``Tensor.numpy()`` raises on a tensor that is not on the CPU ("can't convert cuda:0 device
type tensor to numpy"): code that calls it on a row directly (``bboxes[ind].numpy().tolist()``,
``row.detach().numpy()``) runs only where the rows are in host memory, and reading them waits
for no queued kernel. A ``.cpu()``, ``.to(...)`` or ``.cuda()`` between the row and
``.numpy()`` says nothing of where the row was (``imgs[i].cpu().numpy()`` is the usual per-row
copy of a device tensor). Session 44 (fp201m44): yolox's ``coco_evaluator.py:224``, the boxes
of ``output = output.cpu()`` reached through a helper.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.walk import visit_read_only

# Methods that move a tensor (or may): the row before them may be on a device.
MOVES = frozenset({"cpu", "to", "cuda", "xpu", "npu", "mps", "pin_memory"})


def row_read_through_numpy(read: cst.BaseExpression, tensor: cst.BaseExpression) -> bool:
    """Whether ``read`` (a sync of a row of ``tensor``) calls ``.numpy()`` on the row, or on a
    chain of methods of it that moves nothing (``t[i].detach().numpy()``), the row being
    ``tensor[...]`` or ``tensor`` itself."""
    finder = _NumpyCalls()
    visit_read_only(read, finder)
    return any(_unmoved_row(call, tensor) for call in finder.calls)


class _NumpyCalls(cst.CSTVisitor):
    def __init__(self) -> None:
        self.calls: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "numpy" and not node.args:
            self.calls.append(node)


def _unmoved_row(call: cst.Call, tensor: cst.BaseExpression) -> bool:
    assert isinstance(call.func, cst.Attribute)
    node = call.func.value
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        if node.func.attr.value in MOVES:
            return False
        node = node.func.value
    if isinstance(node, cst.Subscript):
        node = node.value
    return node.deep_equals(tensor)
