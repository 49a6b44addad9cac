"""A read of a tensor whose device is unknown (``x.item()``, ``x.cpu()``, ``x.sum()`` as a size):
the tensor it surely is, or is computed from, unless that is host memory by its name, its data
or the input preparer; and whether a ``.cpu()`` moves state in place. HTD202 (a sync on a hot
path) asks these for its MEDIUM findings.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.arguments import host_named
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.host_inputs import prepared_on_host
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.tensor_kinds import module_named, tensor_evidence
from h2dlint.analysis.value_syncs import value_where
from h2dlint.context import FileContext


def tensor_root(
    context: FileContext,
    tensor: cst.BaseExpression,
    frame: Frame,
    explicit: cst.Call | None,
    sizes: bool,
) -> cst.BaseExpression | None:
    """The tensor ``tensor`` surely is, or is computed from, when its device is
    unknown (see :func:`tensor_evidence`); None when it may be no tensor. With ``sizes``
    only a reduction of one (a 0-d tensor that may be used as a size) counts. ``explicit``
    is the read: ``.item()``/``.tolist()`` exist only on arrays, and ``.cpu()`` only on
    tensors and modules (a used result of a ``.cpu()`` of something not named as a module
    is a tensor's)."""
    provenance = Provenance.of(context)
    if sizes:
        if not (
            isinstance(tensor, cst.Call)
            and isinstance(tensor.func, cst.Attribute)
            and tensor.func.attr.value in ("sum", "max", "min", "amax", "amin", "prod")
            and not tensor.args
        ):
            return None
        tensor = tensor.func.value
    method = (
        explicit.func.attr.value
        if explicit is not None and isinstance(explicit.func, cst.Attribute)
        else None
    )
    read = method in ("item", "tolist")
    root = tensor_evidence(provenance, tensor, frame, read=read)
    if method == "cpu" and moved_in_place(context, tensor):
        return None  # ``x.w = x.w.cpu()``: offloading a tensor (or a module), by design
    if root is None and method == "cpu" and not module_named(tensor):
        parent = context.ancestors[-1] if context.ancestors else None
        if not isinstance(parent, cst.Expr):
            root = tensor
    if root is None or host_named(root) or provenance.is_host_data(root, frame):
        return None  # a host tensor by name (``lengths_cpu.max()``), a numpy array
    if value_where(provenance, root, frame).on_host:
        return None
    if isinstance(root, cst.Name) and prepared_on_host(provenance, root, frame):
        return None  # the model's input preparer hands ``forward`` a host tensor
    return root


def moved_in_place(context: FileContext, tensor: cst.BaseExpression) -> bool:
    """Whether the ``.cpu()`` being visited is assigned back to the attribute it copies
    (``self.buf = self.buf.cpu()``, ``w.data = w.data.cpu()``): a move of state to the
    host, not a read."""
    ancestors = context.ancestors
    parent = ancestors[-1] if ancestors else None
    if not isinstance(parent, cst.Assign) or not isinstance(tensor, cst.Attribute):
        return False  # ``x = x.cpu()`` of a local name is a host copy to compute with
    code = context.module.code_for_node
    return any(code(target.target) == code(tensor) for target in parent.targets)
