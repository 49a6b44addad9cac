"""Host tensors page-locked in place by ``cudaHostRegister`` (HTD102).

``torch.cuda.cudart().cudaHostRegister(t.data_ptr(), t.numel() * t.element_size(), 0)`` pins
the memory ``t`` already has: PyTorch then reports ``t.is_pinned()``, and a ``non_blocking=True``
copy from it (or from a slice of it, a view of the same memory) is asynchronous. Serving code
registers host buffers this way (a KV-cache offload pool allocated once, then registered), and
shared-memory rollout storage does it for tensors ``share_memory_()`` placed in shared memory,
which ``pin_memory()`` would copy out of (session 41: CleanRL's asynchronous PPO registers its
eight rollout tensors in a loop, ``for x in [obs, actions, ...]``). A name counts in the
function (or module) that registers it; ``self.buf`` in the class whose method registers it.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.context import FileContext, SharedKey
from h2dlint.walk import visit_read_only

# (the function or module for a name, the class for an attribute; the expression's code)
_Registered = frozenset[tuple[cst.CSTNode | None, str]]
_REGISTERED: SharedKey[_Registered] = SharedKey("tensors cudaHostRegister pins")


def host_registered(context: FileContext, source: cst.BaseExpression, frame: Frame) -> bool:
    """Whether ``source`` (or the tensor it slices: ``buf[:n]``, ``buf[i]``) is a name or
    ``self`` attribute whose memory its function or class registers with ``cudaHostRegister``."""
    base = source
    while isinstance(base, cst.Subscript) and _contiguous_view(base.slice):
        base = base.value
    if isinstance(base, cst.Name):
        scope: cst.CSTNode | None = frame.function
    elif isinstance(base, cst.Attribute) and isinstance(base.value, cst.Name):
        scope = frame.cls
    else:
        return False
    registered = context.shared(_REGISTERED, lambda: _registrations(context.module))
    return (scope, context.module.code_for_node(base)) in registered


# Views that keep their base's memory: ``buf.T``, ``buf.t()``, ``buf.permute(1, 0)``.
_VIEW_ATTRIBUTES = frozenset({"T", "mT"})
_VIEW_METHODS = frozenset({"t", "transpose", "permute", "narrow", "select", "view", "unfold"})


def registered_view(context: FileContext, source: cst.BaseExpression, frame: Frame) -> bool:
    """Whether ``source`` is any view (a strided slice, a transpose) of memory its function or
    class registers with ``cudaHostRegister``: the bytes are page-locked, not pageable, though
    a strided view of them is still gathered into a staging copy (HTD103 says so)."""
    base = source
    while True:
        if isinstance(base, cst.Subscript) or (
            isinstance(base, cst.Attribute) and base.attr.value in _VIEW_ATTRIBUTES
        ):
            base = base.value
        elif (
            isinstance(base, cst.Call)
            and isinstance(base.func, cst.Attribute)
            and base.func.attr.value in _VIEW_METHODS
        ):
            base = base.func.value
        else:
            return host_registered(context, base, frame)


def _contiguous_view(elements: Sequence[cst.SubscriptElement]) -> bool:
    """Basic indexing that keeps the memory contiguous: an integer or a step-less slice of the
    first dimension, every later one whole (``buf[:n]``, ``buf[i]``, ``buf[:n, :]``). A strided
    view (``buf[:, :n]``, ``buf[::2]``) of pinned memory is copied as pageable memory is."""
    first, *rest = elements
    return _plain_index(first.slice) and all(_whole(e.slice) for e in rest)


def _plain_index(index: cst.BaseSlice) -> bool:
    if isinstance(index, cst.Slice):
        return index.step is None
    return isinstance(index, cst.Index) and isinstance(index.value, cst.Integer)


def _whole(index: cst.BaseSlice) -> bool:
    return isinstance(index, cst.Slice) and index.lower is index.upper is index.step is None


def _registrations(module: cst.Module) -> _Registered:
    finder = _Registrations(module)
    visit_read_only(module, finder)
    return frozenset(finder.found)


class _Registrations(cst.CSTVisitor):
    """The tensors whose ``.data_ptr()`` is the first argument of a ``cudaHostRegister`` call,
    by scope; a loop's target stands for each name or attribute of the literal list or tuple it
    runs over."""

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self.found: set[tuple[cst.CSTNode | None, str]] = set()
        self.functions: list[cst.CSTNode] = [module]
        self.classes: list[cst.ClassDef | None] = [None]
        self.loops: list[cst.For] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)
        self.classes.append(None)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.functions.pop()
        self.classes.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.classes.append(node)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.classes.pop()

    def visit_For(self, node: cst.For) -> None:
        self.loops.append(node)

    def leave_For(self, original_node: cst.For) -> None:
        self.loops.pop()

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
        if name != "cudaHostRegister" or not node.args:
            return
        pointer = node.args[0].value
        if not (
            isinstance(pointer, cst.Call)
            and isinstance(pointer.func, cst.Attribute)
            and pointer.func.attr.value == "data_ptr"
        ):
            return
        for tensor in self._each(pointer.func.value):
            self._add(tensor)

    def _each(self, tensor: cst.BaseExpression) -> list[cst.BaseExpression]:
        """``tensor``, or the items of the literal a loop around the call binds it to."""
        if isinstance(tensor, cst.Name):
            for loop in reversed(self.loops):
                target, items = loop.target, loop.iter
                if isinstance(target, cst.Name) and target.value == tensor.value:
                    if not isinstance(items, (cst.List, cst.Tuple)):
                        return []
                    return [e.value for e in items.elements if isinstance(e, cst.Element)]
        return [tensor]

    def _add(self, tensor: cst.BaseExpression) -> None:
        code = self.module.code_for_node(tensor)
        if isinstance(tensor, cst.Name):
            self.found.add((self.functions[-1], code))
        elif isinstance(tensor, cst.Attribute) and isinstance(tensor.value, cst.Name):
            # a method's ``self.buf``: the class around the method
            cls = next((c for c in reversed(self.classes) if c is not None), None)
            self.found.add((cls, code))
