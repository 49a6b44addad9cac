"""The buffers a class registers: ``self.register_buffer("count", torch.tensor(0))``.

``register_buffer`` takes only a tensor (or ``None``), and ``Module.to()``/``.cuda()`` moves
every buffer with its module: ``self.count`` read in a method is a tensor that lives where the
module lives, whatever device it was built on in ``__init__``. So a buffer is a tensor of
unknown device (its reads are MEDIUM), never a host tensor by its construction.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.frames import Frame, decorator_names
from h2dlint.walk import visit_read_only


class _Buffers(cst.CSTVisitor):
    def __init__(self, self_names: frozenset[str]) -> None:
        self.self_names = self_names
        self.names: set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (
            isinstance(func, cst.Attribute)
            and func.attr.value == "register_buffer"
            and isinstance(func.value, cst.Name)
            and func.value.value in self.self_names
            and len(node.args) >= 2
        ):
            return
        name, value = node.args[0].value, node.args[1].value
        if isinstance(name, cst.SimpleString) and not (
            isinstance(value, cst.Name) and value.value == "None"
        ):
            self.names.add(name.raw_value)  # ``register_buffer("x", None)`` holds no tensor


_CACHE: dict[int, tuple[cst.ClassDef, frozenset[str]]] = {}


def registered_buffers(cls: cst.ClassDef) -> frozenset[str]:
    """The names ``cls``'s methods register as buffers with a tensor value."""
    cached = _CACHE.get(id(cls))
    if cached is not None and cached[0] is cls:
        return cached[1]
    found: set[str] = set()
    for statement in cls.body.body:
        if (
            isinstance(statement, cst.FunctionDef)
            and statement.params.params
            and "staticmethod" not in decorator_names(statement)  # no ``self`` there
        ):
            visitor = _Buffers(frozenset({statement.params.params[0].name.value}))
            visit_read_only(statement.body, visitor)
            found |= visitor.names
    result = frozenset(found)
    if len(_CACHE) > 256:
        _CACHE.clear()
    _CACHE[id(cls)] = (cls, result)
    return result


def own_buffer(node: cst.Attribute, frame: Frame) -> bool:
    """Whether ``node`` is ``self.<name>`` of a buffer its class registers."""
    base = node.value
    return (
        frame.cls is not None
        and isinstance(base, cst.Name)
        and base.value == frame.self_name
        and node.attr.value in registered_buffers(frame.cls)
    )
