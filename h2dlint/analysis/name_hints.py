"""What names say about a value: that a tensor is on the host (``cpu_lengths``, a function
named for CPU work) or that an object is a module (``self.model``), whose ``.cpu()`` moves
parameters. Split out of ``tensor_kinds.py``."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.arguments import host_named
from h2dlint.analysis.frames import Frame

# Names that say an object is a module (whose ``.cpu()`` moves parameters), not a tensor.
MODULE_WORDS = (
    "model",
    "module",
    "net",
    "layer",
    "block",
    "encoder",
    "decoder",
    "embed",
    "unet",
    "vae",
    "transformer",
    "pipe",
    "optimizer",
    "generator",
    "head",
    "tower",
    "engine",
)


def on_host_by_name(node: cst.BaseExpression, frame: Frame) -> bool:
    """Whether names say the tensor is on the host: the tensor's (``cpu_lengths``) or the
    function's (``fill_indices_cpu``, a CPU reference implementation; not ``outputs_to_host``,
    which moves tensors there); or, for a value a function computed from one tensor, that
    tensor's (``prepare_lens(cu_seqlens_cpu)``, ``triton.cdiv(lens_cpu, n)``)."""
    if named_host(node):
        return True
    function = frame.function
    if not isinstance(function, cst.FunctionDef):
        return False
    name = function.name.value.lower()
    if any(f"to_{word}" in name for word in ("cpu", "host")):
        return False  # ``outputs_to_host``: it moves device tensors to the host
    return any(word in name for word in ("cpu", "host"))


def named_host(node: cst.BaseExpression) -> bool:
    """Whether the tensor's own name says it is on the host (``cpu_lengths``), or that of the
    one tensor a function computed it from (``prepare_lens(cu_seqlens_cpu)``)."""
    return host_named(node) or host_named(computed_from(node))


# Modules whose functions compute a value from their first argument where it is (``torch.diff``,
# ``F.pad``, ``triton.cdiv``); other dotted calls may be methods that move it (``x.cuda()``).
_COMPUTING_MODULES = frozenset({"torch", "F", "triton", "np", "numpy", "math"})
# Words of a plain function's name that say it moves its argument (``to_device(ids_cpu)``,
# ``move_to_cuda``, ``gpu``): its result is not where the argument was.
_MOVER_WORDS = frozenset({"to", "move", "cuda", "gpu", "device", "transfer", "send", "copy"})


def computed_from(node: cst.BaseExpression) -> cst.BaseExpression:
    """The first argument of the function calls ``node`` is made by (``cu_seqlens_cpu`` for
    ``triton.cdiv(prepare_lens(cu_seqlens_cpu), n)``), followed while each call is a plain
    function of the project whose name does not say it moves (``to_device``) or a function of
    torch, numpy or triton not told a ``device=``; else ``node``."""
    while isinstance(node, cst.Call) and node.args and node.args[0].keyword is None:
        func = node.func
        plain = isinstance(func, cst.Name) and not _MOVER_WORDS & set(func.value.lower().split("_"))
        library = (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value in _COMPUTING_MODULES
        )
        placed = any(a.keyword is not None and a.keyword.value == "device" for a in node.args)
        if not (plain or library) or node.args[0].star or placed:
            break  # a method may move it; ``torch.as_tensor(ids_cpu, device=d)`` places it
        node = node.args[0].value
    return node


def module_named(node: cst.BaseExpression) -> bool:
    """Whether the last name of ``node`` says it is a module (``self.model``, ``encoder``)."""
    if isinstance(node, cst.Attribute):
        name = node.attr.value
    elif isinstance(node, cst.Name):
        name = node.value
    else:
        return False
    lowered = name.lower()
    return lowered in ("self", "cls", "m") or any(word in lowered for word in MODULE_WORDS)
