"""Whether the rows a loop reads are tensors though where they are is unknown: a row passed to
a ``torch.*`` function or a tensor-only method, rows the loop walks of a tensor; and whether a
tensor comes from data the function converts without ``device=`` (most likely on the host).
HTD201 (a sync per row) asks these.
"""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from h2dlint.analysis.arguments import keyword
from h2dlint.analysis.declared_tensors import declared_tensor
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.hot_guards import past_cache_lookup
from h2dlint.analysis.hot_paths import HotPaths
from h2dlint.analysis.name_hints import on_host_by_name
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.reference_helpers import in_reference_code
from h2dlint.analysis.sync_basics import RowLoop, Walk
from h2dlint.analysis.syncs import reads_row, with_derived
from h2dlint.analysis.tensor_kinds import is_tensor, walks_its_rows
from h2dlint.analysis.tensor_pieces import split_source, unbound
from h2dlint.context import FileContext
from h2dlint.walk import visit_read_only


def pieces_walk(provenance: Provenance, loop: RowLoop, frame: Frame) -> RowLoop:
    """``loop`` as a walk of the pieces of a tensor when the name it walks holds them on every
    path (``chunks = torch.split(x, n)`` then ``for c in chunks``), or as a walk of the rows of
    a tensor when the name holds them (``rows = x.unbind(0)``), else ``loop``."""
    if loop.walk is not Walk.ROWS or loop.pieces or not isinstance(loop.tensor, cst.Name):
        return loop
    values = provenance.bindings(frame).reaching(loop.tensor)
    if len(values) != 1:
        return loop
    value = values[0]
    if value is None:
        return loop
    cut = unbound(value)
    if cut is not None:  # `rows = x.unbind(0)` then `for r in rows`: x's rows (or pieces)
        return replace(loop, tensor=cut[0], pieces=not cut[1])
    source = split_source(value)
    if source is None:
        return loop
    return replace(loop, tensor=source, pieces=True)


def rows_are_tensors(
    provenance: Provenance,
    module: cst.Module,
    tensor: cst.BaseExpression,
    loop: RowLoop,
    frame: Frame,
) -> bool:
    """Whether ``tensor``, whose rows ``loop`` reads, is a tensor: known to be one (declared,
    or cut or computed from a declared one), or walked row by row as only a tensor is (not
    numpy or Python data)."""
    if proven_tensor(provenance, tensor, frame, module):
        return True
    if provenance.is_host_data(tensor, frame):
        return False  # numpy or Python data
    return walks_its_rows(module, tensor, loop)


def proven_tensor(
    provenance: Provenance, tensor: cst.BaseExpression, frame: Frame, module: cst.Module
) -> bool:
    """Whether ``tensor`` is surely one tensor: known, or a tensor by declaration
    (:mod:`declared_tensors`); a row of it tested as a truth value is read then."""
    return is_tensor(provenance, tensor, frame) or declared_tensor(
        provenance, tensor, frame, module
    )


def hot_rows_of_tensors(
    context: FileContext,
    provenance: Provenance,
    tensor: cst.BaseExpression,
    loop: RowLoop,
    parts: list[cst.CSTNode],
    frame: Frame,
    *,
    known: bool = False,
    node: cst.CSTNode | None = None,
) -> str | None:
    """Why the loop is hot, when the rows it reads are surely tensors though where they
    are is unknown: ``tensor`` is surely one (``known``), or a row goes into a ``torch.*``
    call or a tensor-only method. None when the loop is not on a hot path or the rows may be
    anything else (``node``, the loop: also when it runs only on a cache miss)."""
    function = frame.function
    if not isinstance(function, cst.FunctionDef):
        return None
    if provenance.is_host_data(tensor, frame) or on_host_by_name(tensor, frame):
        return None
    reason = HotPaths.of(context).why_hot_at(context.ancestors)
    if reason is None or converted_here(provenance, tensor, frame):
        return None
    if in_reference_code(context, context.ancestors):
        return None
    if node is not None and past_cache_lookup(context.ancestors, node):
        return None  # computed once per new input, then looked up
    return reason if known or rows_used_as_tensors(provenance, parts, loop) else None


def rows_used_as_tensors(provenance: Provenance, parts: list[cst.CSTNode], loop: RowLoop) -> bool:
    """Whether the loop's ``parts`` use a row as a tensor (see :class:`TensorUses`)."""
    finder = TensorUses(provenance, with_derived(parts, loop))
    for part in parts:
        visit_read_only(part, finder)
    return finder.found


# Tensor methods numpy arrays and Python values do not have: a row they are called on is a tensor.
TENSOR_ONLY_METHODS = frozenset({"cpu", "cuda", "numel", "item_size", "nonzero", "unbind"})
# Such methods that say so only of the row itself (``asym_id[i].detach().cpu().item()``,
# alphafold3-pytorch 0.8.3 ``alphafold3.py:5448``), not of a name bound from it: ``t =
# condition.frames`` then ``t.detach()`` is a field of an object the loop walks (diffusers
# 0.42.1's LTX-2 conditions), no row.
ROW_ONLY_METHODS = frozenset({"detach"})


class TensorUses(cst.CSTVisitor):
    """Whether a loop's parts use a row as a tensor: ``torch.<fn>(row, ...)`` or a
    tensor-only method of it (``row.cpu()``)."""

    def __init__(self, provenance: Provenance, loop: RowLoop) -> None:
        self.provenance = provenance
        self.loop = loop
        self.found = False

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in TENSOR_ONLY_METHODS:
            self.found = self.found or self._row(func.value)
            return
        if isinstance(func, cst.Attribute) and func.attr.value in ROW_ONLY_METHODS:
            self.found = self.found or self._row(func.value, derived=False)
            return
        qualified = self.provenance.qualify(func) or ""
        first = node.args[0] if node.args else None
        if qualified.startswith("torch.") and first is not None and first.keyword is None:
            self.found = self.found or self._row(first.value)

    def _row(self, node: cst.BaseExpression, derived: bool = True) -> bool:
        """Whether ``node`` is a row itself (not something computed from one, such as
        ``np.array(reference.image)``): a row name, a row bound to a local name (unless not
        ``derived``), ``t[i]``."""
        bound = {name for name, _ in self.loop.derived} if derived else set()
        names = self.loop.names | bound
        if self.loop.walk is Walk.INDEX:
            names = frozenset(bound)
            if isinstance(node, cst.Subscript) and reads_row(node, self.loop):
                return all(
                    isinstance(e.slice, cst.Index) and isinstance(e.slice.value, cst.Name)
                    for e in node.slice
                )
        return isinstance(node, cst.Name) and node.value in names


CONVERSIONS = frozenset({"torch.as_tensor", "torch.asarray", "torch.tensor"})


def converted_here(
    provenance: Provenance, tensor: cst.BaseExpression, frame: Frame, depth: int = 0
) -> bool:
    """Whether ``tensor`` comes from data the function converts without ``device=``
    (``torch.as_tensor(sr, dtype=...)``, also through arithmetic on it): data converted in the
    function is most likely Python data, which lands on the host."""
    if depth > 16:
        return False
    if isinstance(tensor, cst.Call):
        if provenance.qualify(tensor.func) in CONVERSIONS:
            return keyword(tensor, "device") is None
        qualified = provenance.qualify(tensor.func) or ""
        args = tensor.args
        if qualified.startswith("torch.") and args and args[0].keyword is None:
            return converted_here(provenance, args[0].value, frame, depth + 1)
        return False
    if isinstance(tensor, cst.UnaryOperation):
        return converted_here(provenance, tensor.expression, frame, depth + 1)
    if isinstance(tensor, cst.BinaryOperation):
        return converted_here(provenance, tensor.left, frame, depth + 1) or converted_here(
            provenance, tensor.right, frame, depth + 1
        )
    if isinstance(tensor, cst.Name):
        values = provenance.bindings(frame).reaching(tensor)
        return bool(values) and all(
            v is not None and converted_here(provenance, v, frame, depth + 1) for v in values
        )
    if isinstance(tensor, cst.Subscript):
        return converted_here(provenance, tensor.value, frame, depth + 1)
    return False


def _string_keyed(subscript: cst.Subscript) -> bool:
    """Whether ``subscript`` reads a mapping's entry by a string key (``group["params"]``)."""
    return any(
        isinstance(element.slice, cst.Index)
        and isinstance(element.slice.value, (cst.SimpleString, cst.ConcatenatedString))
        for element in subscript.slice
    )


class _DeviceReads(cst.CSTVisitor):
    """``seq[0].device``, ``seq[0][0].device``: the device of an item of ``seq`` read; and how
    many times the function binds ``seq`` (a rebound name may hold other items)."""

    def __init__(self, code: str, module: cst.Module) -> None:
        self.code = code
        self.module = module
        self.found = False
        self.bound = 0

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if self.found or node.attr.value not in ("device", "is_cuda"):
            return
        value = node.value
        if not isinstance(value, cst.Subscript):
            return
        chain: list[cst.Subscript] = []
        while isinstance(value, cst.Subscript):
            chain.append(value)
            value = value.value
        # ``self.param_groups[0]["params"][0].device``: a key after an index says the items of
        # ``seq`` are mappings that hold tensors, so a loop over ``seq`` walks dicts (an
        # optimizer's hyperparameter groups), not tensors. A key on ``seq`` itself
        # (``batch["continuation"][idx].device``) says its entries are tensors, as before.
        keyed = any(_string_keyed(subscript) for subscript in chain[:-1])
        self.found = not keyed and self.module.code_for_node(value) == self.code

    def _binds(self, target: cst.CSTNode) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._binds(element.value)
        elif isinstance(target, cst.StarredElement):
            self._binds(target.value)
        elif isinstance(target, (cst.Name, cst.Attribute)):
            self.bound += self.module.code_for_node(target) == self.code

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._binds(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._binds(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._binds(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._binds(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._binds(node.target)


def items_device_read(
    module: cst.Module, function: cst.FunctionDef, sequence: cst.BaseExpression
) -> bool:
    """Whether ``function`` reads the device of an item of ``sequence`` (``dtype, device =
    predictions[0][0].dtype, predictions[0][0].device``) and binds ``sequence`` once at most (a
    parameter never rebound: ``grads = [g.cpu() for g in grads]`` holds host copies after): the
    items are tensors (numpy arrays and Python values have no device a function builds on)."""
    if not isinstance(sequence, (cst.Name, cst.Attribute)):
        return False
    finder = _DeviceReads(module.code_for_node(sequence), module)
    visit_read_only(function.body, finder)
    params = function.params
    parameter = isinstance(sequence, cst.Name) and any(
        p.name.value == sequence.value
        for p in (*params.posonly_params, *params.params, *params.kwonly_params)
    )
    return finder.found and finder.bound <= (0 if parameter else 1)
