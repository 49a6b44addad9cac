"""Tensors a function shows to be on the host by what it combines them with.

PyTorch raises when arithmetic or a join mixes a CUDA tensor with a CPU tensor that has a
dimension ("Expected all tensors to be on the same device"). So a function that adds a tensor
made on the host from a list to a name (``seqlens + torch.tensor(padding_amounts)``), or joins
one with it (``torch.cat([torch.tensor([0]), padded_lengths])``), works only where that name's
tensor is on the host: it says so on every call. The evidence flows back through the
function's own derivations: a name bound once to slices and arithmetic of other names
(``seqlens = cu_seqlens[1:] - cu_seqlens[:-1]``) is on their device, so where it is on the
host, so are they. Transformer Engine 2.18's ``pad_thd_sequences_for_cp`` and
``generate_positional_ids_for_cp`` (``context_parallel.py``) read each sequence length with
``.item()`` on tensors of the host that way (session 44, lead: HTD201 MEDIUM rows of an
annotated ``torch.Tensor`` parameter whose device nothing else says).

Only a host-made tensor that surely has a dimension counts, and only without ``device=``:
``torch.tensor``/``torch.as_tensor`` of a list display, a list comprehension or a name bound
only to one; ``torch.full``/``zeros``/``ones``/``empty``/``rand``/``randn`` of a tuple or list
size; ``torch.arange``. A 0-d CPU tensor (``torch.tensor(3)``) mixes with CUDA tensors freely,
and a name bound more than once says nothing of any one binding.

A name the function copies to CUDA with ``non_blocking=True`` (``val.cuda(non_blocking=True)``,
``x.to("cuda", non_blocking=True)``) is host memory too: an asynchronous copy to a device is
written for a host source (the rule ``copies.implies_host`` states for pinning). Megatron-Bridge
0.6.2's ``get_batch`` helpers (``training/vlm_step.py:154`` and five more) loop over the loader's
batch, moving the device keys with ``val.cuda(non_blocking=True)`` and keeping the host keys with
``val.cpu()``, a copy of nothing (session 49, triage49a; HTD202 asks since then). A copy to the
host (``x.to("cpu", non_blocking=True)``) is no such evidence, nor a copy to a device held in a
variable: exllamav2's ``compat.py`` moves a tensor between GPUs with ``tensor.to(device,
non_blocking=True)`` and falls back to ``tensor.cpu()`` (labelled true).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import libcst as cst

from h2dlint.analysis.arguments import first_positional, is_true, keyword
from h2dlint.analysis.chosen_devices import device_string
from h2dlint.analysis.names import bound_parameters
from h2dlint.analysis.torch_api import JOINS
from h2dlint.context import FileContext, SharedKey
from h2dlint.imports import ImportTable

# Factories that build a tensor from Python data (a list gives it a dimension).
_DATA_FACTORIES = frozenset({"torch.tensor", "torch.as_tensor"})
# Factories whose first argument is the size (a tuple or list size gives a dimension).
_SIZE_FACTORIES = frozenset(
    {"torch.full", "torch.zeros", "torch.ones", "torch.empty", "torch.rand", "torch.randn"}
)
_HOST_NAMES: SharedKey[frozenset[str]] = SharedKey("names shown on the host by company")


def shown_on_host(
    context: FileContext, ancestors: Sequence[cst.CSTNode], *tensors: cst.BaseExpression | None
) -> bool:
    """Whether the innermost function around ``ancestors`` shows the root name of any of
    ``tensors`` (``cu_seqlens`` of ``cu_seqlens[:-1]``) to be on the host (see the module)."""
    function = next((a for a in reversed(ancestors) if isinstance(a, cst.FunctionDef)), None)
    if function is None:
        return False
    roots = {root for t in tensors if t is not None and (root := _root(t)) is not None}
    if not roots:
        return False
    host = context.shared(_HOST_NAMES, lambda: _host_names(context.imports, function), function)
    return bool(roots & host)


def _host_names(imports: ImportTable, function: cst.FunctionDef) -> frozenset[str]:
    """The names ``function`` shows to be host tensors, evidence and derivations together."""
    counts: dict[str, int] = {}
    lists: set[str] = set()
    derivations: dict[str, set[str]] = {}
    for param in bound_parameters(function.params):
        counts[param] = counts.get(param, 0) + 1
    for node in own_scope_nodes(function.body):
        if isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
            targets = (
                [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            )
            for target in targets:
                for name in _bound_names(target):
                    counts[name] = counts.get(name, 0) + 1
                    if isinstance(node, cst.AugAssign):
                        counts[name] += 1  # rebinding: no single binding to reason from
            value = node.value
            if len(targets) == 1 and isinstance(targets[0], cst.Name) and value is not None:
                name = targets[0].value
                if isinstance(value, (cst.List, cst.ListComp)):
                    lists.add(name)
                sources = _derivation_sources(value)
                if sources is not None:
                    derivations[name] = sources
        elif isinstance(node, (cst.For, cst.CompFor)):
            for name in _bound_names(node.target):
                counts[name] = counts.get(name, 0) + 1
    once = {name for name, count in counts.items() if count == 1}
    lists &= once
    host: set[str] = set()
    for node in own_scope_nodes(function.body):
        host |= _evidence(imports, node, lists)
    host &= once
    changed = True
    while changed:
        changed = False
        for name, sources in derivations.items():
            if name in host and name in once and not sources <= host:
                host |= sources & once
                changed = True
    return frozenset(host)


def _evidence(imports: ImportTable, node: cst.CSTNode, lists: set[str]) -> set[str]:
    """Names ``node`` mixes with a host-made tensor that has a dimension, or copies to a device
    asynchronously."""
    moved = _moved_asynchronously(node)
    if moved is not None:
        return {moved}
    if isinstance(node, cst.BinaryOperation) and not isinstance(node.operator, cst.MatrixMultiply):
        for made, other in ((node.left, node.right), (node.right, node.left)):
            if _host_made(imports, made, lists):
                root = _root(other)
                return {root} if root is not None else set()
        return set()
    if isinstance(node, cst.Call) and imports.qualify(node.func) in JOINS and node.args:
        joined = node.args[0].value
        if not isinstance(joined, (cst.List, cst.Tuple)):
            return set()
        parts = [e.value for e in joined.elements if isinstance(e, cst.Element)]
        if not any(_host_made(imports, p, lists) for p in parts):
            return set()
        return {root for p in parts if isinstance(p, cst.Name) and (root := p.value)}
    return set()


def _moved_asynchronously(node: cst.CSTNode) -> str | None:
    """The name ``node`` copies to a device with ``non_blocking=True`` (``x.cuda(...)``, or
    ``x.to(d, ...)`` where ``d`` does not name the host), else None."""
    if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
        return None
    method = node.func.attr.value
    moved = node.func.value
    non_blocking = keyword(node, "non_blocking")
    if method not in ("cuda", "to") or not isinstance(moved, cst.Name) or non_blocking is None:
        return None
    if not is_true(non_blocking.value):
        return None
    if method == "to":
        device_arg = keyword(node, "device")
        device = device_arg.value if device_arg is not None else first_positional(node)
        if device is None or not _names_cuda(device):
            return None
    return moved.value


def _names_cuda(node: cst.BaseExpression) -> bool:
    """Whether a device argument is written as CUDA (``"cuda"``, ``f"cuda:{i}"``): a device held
    in a variable may be another GPU, and a copy between GPUs is asynchronous too (exllamav2's
    cross-device ``tensor.to(device, non_blocking=True)``, labelled true beside its ``.cpu()``)."""
    text = device_string(node)
    return text is not None and text.startswith("cuda")


def _host_made(imports: ImportTable, node: cst.BaseExpression, lists: set[str]) -> bool:
    """``node`` builds a host tensor with a dimension (see the module)."""
    if not isinstance(node, cst.Call) or not node.args:
        return False
    if any(a.keyword is not None and a.keyword.value == "device" for a in node.args):
        return False
    name = imports.qualify(node.func)
    first = node.args[0]
    if first.keyword is not None or first.star:
        return False
    if name in _DATA_FACTORIES:
        data = first.value
        return isinstance(data, (cst.List, cst.ListComp)) or (
            isinstance(data, cst.Name) and data.value in lists
        )
    if name in _SIZE_FACTORIES:
        return isinstance(first.value, (cst.Tuple, cst.List))
    return name == "torch.arange"


def _derivation_sources(value: cst.BaseExpression) -> set[str] | None:
    """The names ``value`` is sliced and computed from when it is only that (``a[1:] - a[:-1]``,
    ``x * 2``); None for anything else (a call, an attribute)."""
    if isinstance(value, cst.Name):
        return {value.value}
    if isinstance(value, cst.Subscript):
        return _derivation_sources(value.value)
    if isinstance(value, cst.BinaryOperation):
        left, right = _derivation_sources(value.left), _derivation_sources(value.right)
        if left is None or right is None:
            return None
        return left | right
    if isinstance(value, cst.UnaryOperation):
        return _derivation_sources(value.expression)
    if isinstance(value, (cst.Integer, cst.Float)):
        return set()
    return None


def _root(node: cst.BaseExpression) -> str | None:
    """The name a subscript chain starts from: ``cu`` of ``cu[:-1]``."""
    while isinstance(node, cst.Subscript):
        node = node.value
    return node.value if isinstance(node, cst.Name) else None


def _bound_names(target: cst.BaseExpression) -> Iterator[str]:
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _bound_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _bound_names(target.value)


def own_scope_nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Every node under ``node``, nested functions' and classes' own scopes left out."""
    for child in node.children:
        yield child
        if not isinstance(child, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            yield from own_scope_nodes(child)
