"""Functions registered as the implementation of a custom operator: PyTorch runs them on every
call of the operator, and a layer's ``forward`` calls it (``torch.ops.ns.op(...)``), so they are
as hot as a ``forward`` although no call of them by name appears.

Registrations recognised: the decorators and calls of ``torch.library`` (``@torch.library.
custom_op("ns::op")``, ``@torch.library.impl("ns::op", "cuda")``, ``torch.library.impl(
"ns::op", ["cpu", "cuda"])(fn)``, ``torch.library.register_kernel``, ``triton_op``) and a
project's registration helper named for it (``direct_register_custom_op("op", op_func=fn)``,
``register_custom_op(fn)``). Left alone: a registration for the host or for tracing only (every
device string it names is ``cpu`` or ``meta``), ``register_fake`` (shapes for tracing, never
run on data) and ``register_autograd``; :mod:`hot_paths` also leaves an operator whose name or
module names ONNX or export (``onnx_extensions.py``: run while a model is exported).
"""

from __future__ import annotations

import re

import libcst as cst

from h2dlint.analysis.frames import ModuleIndex
from h2dlint.imports import dotted_name
from h2dlint.walk import visit_read_only

OP_KERNEL_REASON = "registered as the kernel of a custom operator (`{}`): it runs on every call"
_LIBRARY_TAILS = ("library.impl", "library.custom_op", "library.register_kernel", "triton_op")
# A project's own helper: ``direct_register_custom_op``, ``register_custom_op``.
_HELPER = re.compile(r"(?:^|_)register(?:_custom)?_op$")
_HOST_ONLY = frozenset({"cpu", "meta"})
_TEXT = re.compile(rb"library\.|register(?:_custom)?_op\b|triton_op")


def _registration(call: cst.Call) -> str | None:
    """The registration's name when ``call`` registers an operator's implementation for a
    device (not the host or tracing only), else None."""
    name = dotted_name(call.func) or ""
    last = name.rpartition(".")[2]
    if not (name.endswith(_LIBRARY_TAILS) or _HELPER.search(last)):
        return None
    devices = {
        s.value.evaluated_value.lower()
        for arg in call.args[1:]
        for s in (arg.value.elements if isinstance(arg.value, (cst.List, cst.Tuple)) else [arg])
        if isinstance(s.value, cst.SimpleString)
    }
    return None if devices and devices <= _HOST_ONLY else name


class _Registrations(cst.CSTVisitor):
    def __init__(self, index: ModuleIndex) -> None:
        self.index = index
        self.found: dict[cst.FunctionDef, str] = {}

    def _add(self, value: cst.BaseExpression, name: str) -> None:
        if isinstance(value, cst.Name):
            function = self.index.functions.get(value.value)
            if function is not None:
                self.found.setdefault(function, OP_KERNEL_REASON.format(name))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        for decorator in node.decorators:
            call = decorator.decorator
            name = _registration(call) if isinstance(call, cst.Call) else None
            if name is not None and self.index.functions.get(node.name.value) is node:
                self.found.setdefault(node, OP_KERNEL_REASON.format(name))

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Call):  # ``torch.library.impl("ns::op", "cuda")(fn)``
            name = _registration(func)
            if name is not None and node.args:
                self._add(node.args[0].value, name)
            return
        name = _registration(node)
        if name is None or name.endswith(_LIBRARY_TAILS):
            return  # a decorator factory called alone registers nothing yet
        for arg in node.args:  # ``direct_register_custom_op("op", op_func=fn)``
            self._add(arg.value, name)


def op_kernels(
    module: cst.Module, source: bytes | str, index: ModuleIndex
) -> dict[cst.FunctionDef, str]:
    """The module's top-level functions registered as a custom operator's implementation."""
    text = source.encode() if isinstance(source, str) else source
    if _TEXT.search(text) is None:
        return {}
    finder = _Registrations(index)
    visit_read_only(module, finder)
    return finder.found
