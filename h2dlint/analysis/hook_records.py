"""Lists of a class that its hooks fill with what a layer computed: activations, not host data.

``self._hook(self, module, inputs, output)`` registered with
``layer.register_forward_hook(self._hook)`` appends ``output.clone().detach()`` to
``self.recordings``; ``forward`` then moves each recording to the input's device
(``map(lambda t: t.to(img.device), self.recordings)``, vit-pytorch 1.26.11 recorder.py:56).
The items are a layer's outputs, made where the model ran: the move is a no-op or a copy
between devices, never one host-to-device copy per item. HTD101 leaves such a loop alone at
MEDIUM (a loop whose items it proves on the host is still reported).

A list counts when it is an attribute of ``self`` and, in its class, at least one append is a
hook's tensor argument (any parameter but ``self``) kept as it is or copied on its device
(``.clone()``, ``.detach()``, an element, a view), and every other append is such a copy of a
parameter of its own method (``record(self, attn)``: what the caller computed). A list also
bound to anything but ``[]``, written by index, or appended anything else (``.cpu()``,
``torch.tensor(...)``, a literal) does not count.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.hook_registrations import hook_functions
from h2dlint.analysis.model_outputs import iterated_collection
from h2dlint.analysis.nested_functions import nested_functions
from h2dlint.analysis.provenance import Provenance
from h2dlint.walk import visit_read_only

# Methods that keep a tensor where it is (a copy, a view, a dtype on the same device).
_KEEPING_METHODS = frozenset(
    {
        "clone",
        "detach",
        "contiguous",
        "view",
        "reshape",
        "float",
        "half",
        "bfloat16",
        "squeeze",
        "unsqueeze",
        "transpose",
        "permute",
        "flatten",
    }
)


def hook_recorded(iterable: cst.BaseExpression, provenance: Provenance, frame: Frame) -> bool:
    """Whether ``iterable`` is a list attribute of ``self`` that the class's hooks fill with
    a layer's tensors (see the module's docstring)."""
    node = iterated_collection(iterable)
    self_name = frame.self_name
    if not (
        self_name
        and isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value == self_name
        and isinstance(frame.function, cst.FunctionDef)
    ):
        return False
    cls = provenance.index.owner.get(frame.function)
    if cls is None:
        return False
    context = provenance.context
    hooks = hook_functions(
        context.module, context.source, provenance.index, nested_functions(context.module)
    )
    if not any(provenance.index.owner.get(hook) is cls for hook in hooks):
        return False
    finder = _Writes(node.attr.value)
    visit_read_only(cls, finder)
    if finder.other:
        return False
    recorded = False
    for function, value in finder.appends:
        if function is None or not _kept_parameter(value, function, provenance, 0):
            return False
        recorded = recorded or function in hooks
    return recorded


# Local names followed back to a parameter (``recording = attn.clone().detach()``).
_MAX_DEPTH = 3


def _kept_parameter(
    node: cst.BaseExpression, function: cst.FunctionDef, provenance: Provenance, depth: int
) -> bool:
    """``output.clone().detach()``, ``out[0]``: a parameter of ``function`` but its first
    (``self``), kept on its device, directly or through local names bound only to such."""
    params = [p.name.value for p in function.params.params][1:]
    while True:
        if isinstance(node, cst.Name):
            if node.value in params:
                return True
            if depth >= _MAX_DEPTH:
                return False
            values = provenance.bindings(provenance.index.frame_of(function)).reaching(node)
            return bool(values) and all(
                isinstance(v, cst.BaseExpression)
                and _kept_parameter(v, function, provenance, depth + 1)
                for v in values
            )
        if isinstance(node, cst.Subscript):
            node = node.value
        elif (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in _KEEPING_METHODS
        ):
            node = node.func.value
        else:
            return False


class _Writes(cst.CSTVisitor):
    """Appends to ``self.<attribute>`` in a class (with the method each is in), and whether it
    is written any other way (bound to other than ``[]``, written by index, extended)."""

    def __init__(self, attribute: str) -> None:
        self.attribute = attribute
        self.functions: list[cst.FunctionDef] = []
        self.appends: list[tuple[cst.FunctionDef | None, cst.BaseExpression]] = []
        self.other = False

    def _ours(self, node: cst.BaseExpression) -> bool:
        return (
            isinstance(node, cst.Attribute)
            and node.attr.value == self.attribute
            and isinstance(node.value, cst.Name)
            and node.value.value == "self"
        )

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.functions.pop()

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (isinstance(func, cst.Attribute) and self._ours(func.value)):
            return
        method = func.attr.value
        if method == "append" and len(node.args) == 1 and not node.args[0].keyword:
            function = self.functions[-1] if self.functions else None
            self.appends.append((function, node.args[0].value))
        elif method in ("extend", "insert", "__setitem__"):
            self.other = True

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._written(target.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._written(node.target, None)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._written(node.target, node.value)

    def _written(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        by_index = isinstance(target, cst.Subscript) and self._ours(target.value)
        empty = isinstance(value, cst.List) and not value.elements
        if by_index or (self._ours(target) and not empty):
            self.other = True
        elif isinstance(target, (cst.Tuple, cst.List)):
            values: list[cst.BaseExpression | None] = [None] * len(target.elements)
            if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(values):
                values = [element.value for element in value.elements]
            for element, paired in zip(target.elements, values, strict=True):
                self._written(element.value, paired)
