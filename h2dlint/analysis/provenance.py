"""Where a tensor expression lives: pageable host memory, pinned host memory, a device, or unknown.

Only what the code proves counts. A fresh tensor from a torch factory without ``pin_memory`` or
``device=`` is pageable; ``.pin_memory()`` is pinned; a local name has the provenance its bindings
agree on. Anything else is :attr:`Where.UNKNOWN`, and rules stay silent on unknowns.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.bindings import Bindings, Scope, collect_bindings
from h2dlint.analysis.imports import ImportTable
from h2dlint.analysis.torch_api import (
    CONVERTERS,
    DTYPE_NAMES,
    FRESH_FACTORIES,
    HOST_DEVICE_PREFIXES,
    HOST_WRAPPERS,
    JOINS,
    NUMPY_PREFIXES,
)
from h2dlint.context import FileContext

MAX_DEPTH = 8


class Where(enum.Enum):
    PAGEABLE = "pageable host memory"
    PINNED = "pinned host memory"
    MAYBE_PINNED = "host memory pinned when enabled"
    DEVICE = "an accelerator"
    UNKNOWN = "unknown"


class Target(enum.Enum):
    """Where a ``.to(...)``-style argument sends a tensor."""

    DEVICE = "device"
    HOST = "host"
    DTYPE = "dtype"
    UNKNOWN = "unknown"


def keyword(call: cst.Call, name: str) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def positional(call: cst.Call) -> list[cst.Arg]:
    return [arg for arg in call.args if arg.keyword is None and not arg.star]


def is_true(node: cst.BaseExpression | None) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def is_false(node: cst.BaseExpression | None) -> bool:
    return isinstance(node, cst.Name) and node.value in ("False", "None")


def string_value(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


class Provenance:
    """Answers provenance questions for one file; bindings are computed per scope on demand."""

    def __init__(self, context: FileContext) -> None:
        self.context = context
        self.imports: ImportTable = context.imports
        self._bindings: dict[int, Bindings] = {}

    @classmethod
    def of(cls, context: FileContext) -> Provenance:
        return context.shared("provenance", lambda: cls(context))

    # -- names ---------------------------------------------------------------------------
    def qualify(self, node: cst.BaseExpression) -> str | None:
        return self.imports.qualify(node)

    def bindings(self, scope: Scope) -> Bindings:
        key = id(scope)
        if key not in self._bindings:
            self._bindings[key] = collect_bindings(scope)
        return self._bindings[key]

    def current_scope(self) -> Scope:
        scope = self.context.enclosing(cst.FunctionDef)
        return scope if isinstance(scope, cst.FunctionDef) else self.context.module

    # -- tensors -------------------------------------------------------------------------
    def where(self, node: cst.BaseExpression, scope: Scope, depth: int = 0) -> Where:
        if depth > MAX_DEPTH:
            return Where.UNKNOWN
        if isinstance(node, cst.Name):
            return self._name(node.value, scope, depth)
        if isinstance(node, cst.Call):
            return self._call(node, scope, depth)
        return Where.UNKNOWN

    def _name(self, name: str, scope: Scope, depth: int) -> Where:
        values = self.bindings(scope).of(name)
        if not values:
            return Where.UNKNOWN
        found = {
            self.where(v, scope, depth + 1) if v is not None else Where.UNKNOWN for v in values
        }
        return found.pop() if len(found) == 1 else Where.UNKNOWN

    def _call(self, call: cst.Call, scope: Scope, depth: int) -> Where:
        func = call.func
        if isinstance(func, cst.Attribute) and self.qualify(func) is None:
            method = func.attr.value
            if method == "pin_memory":
                return Where.PINNED
            if method == "cuda":
                return Where.DEVICE
            if method == "to" and self.to_target(call) is Target.DEVICE:
                return Where.DEVICE
            return Where.UNKNOWN
        qualified = self.qualify(func)
        if qualified is None:
            return Where.UNKNOWN
        if qualified in HOST_WRAPPERS:
            return Where.PAGEABLE
        if qualified in FRESH_FACTORIES:
            return self._allocated(call)
        if qualified in CONVERTERS:
            args = positional(call)
            if args and self.is_host_data(args[0].value, scope, depth):
                return self._allocated(call)
            return Where.UNKNOWN
        if qualified in JOINS:
            out = keyword(call, "out")
            if out is not None:
                return self.where(out.value, scope, depth + 1)
            args = positional(call)
            if args and self._any_on_device(args[0].value, scope, depth):
                return Where.DEVICE
            return Where.PAGEABLE
        return Where.UNKNOWN

    def _allocated(self, call: cst.Call) -> Where:
        """A fresh tensor: where ``device=`` and ``pin_memory=`` put it."""
        device = keyword(call, "device")
        if device is not None:
            target = self.device_target(device.value)
            if target is Target.DEVICE:
                return Where.DEVICE
            if target is not Target.HOST:
                return Where.UNKNOWN
        pin = keyword(call, "pin_memory")
        if pin is not None and not is_false(pin.value):
            return Where.PINNED if is_true(pin.value) else Where.MAYBE_PINNED
        return Where.PAGEABLE

    def _any_on_device(self, seq: cst.BaseExpression, scope: Scope, depth: int) -> bool:
        if isinstance(seq, (cst.List, cst.Tuple)):
            return any(
                self.where(el.value, scope, depth + 1) is Where.DEVICE for el in seq.elements
            )
        if isinstance(seq, (cst.ListComp, cst.GeneratorExp)):
            return self.where(seq.elt, scope, depth + 1) is Where.DEVICE
        return False

    def is_host_data(self, node: cst.BaseExpression, scope: Scope, depth: int = 0) -> bool:
        """Python or numpy data (never a tensor): lists, tuples, comprehensions, numbers,
        numpy calls."""
        if isinstance(node, (cst.List, cst.Tuple, cst.ListComp, cst.Integer, cst.Float)):
            return True
        if isinstance(node, cst.Call):
            qualified = self.qualify(node.func)
            if qualified is not None and qualified.startswith(NUMPY_PREFIXES):
                return True
            return isinstance(node.func, cst.Name) and node.func.value in ("list", "tuple")
        if isinstance(node, cst.Name) and depth <= MAX_DEPTH:
            values = self.bindings(scope).of(node.value)
            return bool(values) and all(
                v is not None and self.is_host_data(v, scope, depth + 1) for v in values
            )
        return False

    # -- copy targets ----------------------------------------------------------------------
    def device_target(self, node: cst.BaseExpression) -> Target:
        """What a device-or-dtype argument names."""
        text = string_value(node)
        if text is not None:
            return Target.HOST if text.startswith(HOST_DEVICE_PREFIXES) else Target.DEVICE
        qualified = self.qualify(node)
        if qualified in DTYPE_NAMES:
            return Target.DTYPE
        if isinstance(node, cst.Call) and self.qualify(node.func) == "torch.device":
            args = positional(node)
            first = string_value(args[0].value) if args else None
            if first is None:
                return Target.DEVICE if len(args) > 1 else Target.UNKNOWN
            return Target.HOST if first.startswith(HOST_DEVICE_PREFIXES) else Target.DEVICE
        if isinstance(node, (cst.Name, cst.Attribute)):
            last = node.value if isinstance(node, cst.Name) else node.attr.value
            lowered = last.lower()
            if "dtype" in lowered:
                return Target.DTYPE
            if "cpu" in lowered or "host" in lowered:
                return Target.HOST
            return Target.DEVICE
        return Target.UNKNOWN

    def to_target(self, call: cst.Call) -> Target:
        """Where ``x.to(...)`` sends ``x``."""
        device = keyword(call, "device")
        if device is not None:
            return self.device_target(device.value)
        args = positional(call)
        if not args:
            return Target.DTYPE if keyword(call, "dtype") is not None else Target.UNKNOWN
        return self.device_target(args[0].value)


def host_named(node: cst.BaseExpression) -> bool:
    """Whether a destination's name says it lives on the host (``cpu_buf``, ``host_ids``)."""
    while isinstance(node, (cst.Subscript, cst.Attribute)) and not isinstance(node, cst.Name):
        if isinstance(node, cst.Attribute) and _hosty(node.attr.value):
            return True
        node = node.value
    return isinstance(node, cst.Name) and _hosty(node.value)


def _hosty(name: str) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in ("cpu", "host", "pinned", "numpy", "_np"))


def first_positional(call: cst.Call) -> cst.BaseExpression | None:
    args: Sequence[cst.Arg] = positional(call)
    return args[0].value if args else None
