"""Whether a module works on the arrays of another framework than PyTorch.

A module that imports MLX, JAX or TensorFlow and never imports torch computes on that
framework's arrays: their ``.item()``, ``.tolist()`` and row loops are no PyTorch syncs
(session 20: unsloth-zoo's ``mlx/compile.py``, ``int(visual_pos_masks[row].sum().item())`` on
MLX arrays). A module that imports torch too may hold both, and stays judged as before.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.context import FileContext, SharedKey
from h2dlint.imports import dotted_name
from h2dlint.walk import ReadOnlyVisitor, visit_read_only

OTHER_FRAMEWORKS = frozenset({"mlx", "jax", "jaxlib", "tensorflow"})


def other_framework_module(context: FileContext) -> bool:
    """Whether the module imports another array framework and not torch (see the module)."""
    return context.shared(OTHER_FRAMEWORK, lambda: _other_framework(context.module))


def _other_framework(module: cst.Module) -> bool:
    imports = _Imports()
    visit_read_only(module, imports)
    return bool(imports.roots & OTHER_FRAMEWORKS) and "torch" not in imports.roots


class _Imports(ReadOnlyVisitor):
    """The top-level package of every import of the module, wherever it is (a ``try`` block,
    a function), so that a torch imported anywhere keeps the module judged."""

    def __init__(self) -> None:
        self.roots: set[str] = set()

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            self.roots.add((dotted_name(alias.name) or "").partition(".")[0])

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.module is not None:
            self.roots.add((dotted_name(node.module) or "").partition(".")[0])


OTHER_FRAMEWORK: SharedKey[bool] = SharedKey("other array framework")
