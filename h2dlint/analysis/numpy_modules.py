"""A module that works in numpy and never in torch: its arrays are host arrays.

A module that imports numpy, imports nothing of torch (at module level or in a function), has
no starred import (``from .utils import *`` may bring torch in) and calls no tensor-only
method anywhere (``.cpu()``, ``.cuda()``, ``.detach()``, ``.numpy()``, ``.to(...)``,
``.pin_memory()``, and ``.item()``, torch's idiom for a scalar) computes on numpy arrays: an
evaluation helper over the annotation file's ground-truth tubes (mmaction2's
``evaluation/functional/multisports_utils.py:345``, ``int(tube[i, 0])``), a COCO metric over
mmdet-style numpy results (modelscope's
``metrics/image_instance_segmentation_metric.py:184``, ``float(bboxes[i][4])``), a mask
decoder over the masks' host run lengths (inference's ``core/utils/rle_to_polygon.py:28``).
Reading such an array's rows waits for no device (session 46, fp1xx46).

Only rows not proven on a device are left out (MEDIUM findings): a module may still be
handed a tensor, so a row read through a tensor-only method, or any such method in the
module, keeps the finding; so does a module that imports neither numpy nor torch
(whisperlivekit's ``align_att_base.py:149``, a true row: ``tokens[i].tolist()`` of the
decoder's device tokens, in a module whose tensors all come from its callers). Session 20's
twin (``tests/test_precision_fixes_s20.py``: ``int(visual_pos_masks[row].sum().item())`` in a
module that imports numpy and not torch) stays reported by its ``.item()``.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.context import FileContext, SharedKey
from h2dlint.walk import visit_read_only

# Methods that say a module handles tensors: those a numpy array does not have, and
# ``.item()``, torch's way to a Python scalar (numpy code writes ``int(x)``, ``float(x)``).
TENSOR_METHODS = frozenset({"cpu", "cuda", "detach", "numpy", "to", "pin_memory", "item"})

_NUMPY_ONLY: SharedKey[bool] = SharedKey("numpy-only module")


def numpy_only_module(context: FileContext) -> bool:
    """Whether the file imports numpy, imports nothing of torch, has no starred import and
    calls no tensor-only method (:data:`TENSOR_METHODS`) anywhere."""
    return context.shared(_NUMPY_ONLY, lambda: _numpy_only(context))


def _numpy_only(context: FileContext) -> bool:
    imports = context.imports
    if not imports.imports_module("numpy") or imports.imports_module("torch"):
        return False
    finder = _TensorMethods()
    visit_read_only(context.module, finder)
    return not finder.found


class _TensorMethods(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_Call(self, node: cst.Call) -> bool:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in TENSOR_METHODS:
            self.found = True
        return not self.found

    def visit_ImportStar(self, node: cst.ImportStar) -> bool:
        self.found = True  # ``from .utils import *`` may bring torch in
        return False
