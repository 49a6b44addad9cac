"""Buffers of a trainer module that hands its models to accelerate and never moves itself.

``register_buffer`` ties a tensor to its module so that ``Module.to()`` moves it along
(:mod:`module_buffers`: a buffer's device is unknown, its reads MEDIUM). A trainer written as
an ``nn.Module`` that gives its models to ``accelerator.prepare(...)`` lets accelerate place
them, and nothing moves the trainer: its own buffers stay where ``__init__`` built them. In
phenaki-pytorch 0.5.0 (cvivit_trainer.py:219) and muse-maskgit-pytorch 0.3.5 (trainers.py:297)
``self.register_buffer('steps', torch.Tensor([0]))`` is read each step with
``int(self.steps.item())``: a host tensor, no device sync.

:func:`unmoved_buffer` gives the value such a buffer is registered with (and the frame it is
read in) when its class calls some ``.prepare(...)`` and never moves itself: no
``self.to(...)``, ``self.cuda()``, ``self.<anything>(...)`` that places modules
(``self.to_empty``), and no call given ``self`` itself (``accelerator.prepare(self)``,
``move(self, device)``). The caller asks the value's own fact: ``torch.Tensor([0])`` is host,
``torch.zeros(1, device=device)`` is not. Only a buffer never rebound counts (``self.steps +=
1`` updates it where it is; ``self.steps = torch.tensor([n], device=self.device)`` on resuming,
soundstorm-pytorch's trainer, puts it on the device). A trainer that moves itself
(``self.to(self.device)``, imagen-pytorch's) or uses no accelerate (dalle2-pytorch's
``VQGanVAETrainer``, moved with the model it holds) keeps MEDIUM reads.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.frames import Frame, ModuleIndex, decorator_names
from h2dlint.analysis.module_buffers import registered_buffers
from h2dlint.walk import visit_read_only

# Methods of ``self`` that place the module's tensors somewhere.
_MOVING_METHODS = frozenset(
    {"to", "cuda", "cpu", "xpu", "to_empty", "half", "float", "bfloat16", "type", "apply"}
)


def unmoved_buffer(
    index: ModuleIndex, cls: cst.ClassDef, attr: str
) -> tuple[cst.BaseExpression, Frame] | None:
    """The value ``cls`` registers as buffer ``attr`` and the frame it is made in, when the
    class hands models to ``.prepare(...)`` and never moves itself; else None."""
    if attr not in registered_buffers(cls):
        return None
    found: list[tuple[cst.BaseExpression, Frame]] = []
    prepares = False
    for statement in cls.body.body:
        if not isinstance(statement, cst.FunctionDef) or not statement.params.params:
            continue
        if "staticmethod" in decorator_names(statement):
            continue
        finder = _Scan(statement.params.params[0].name.value, attr)
        visit_read_only(statement.body, finder)
        if finder.moves:
            return None
        prepares = prepares or finder.prepares
        found.extend((value, index.frame_of(statement)) for value in finder.values)
    if not prepares or len(found) != 1:
        return None
    return found[0]


class _Scan(cst.CSTVisitor):
    """In one method: the values registered as buffer ``attr``, whether it calls some
    ``.prepare(...)``, and whether it moves ``self`` (see the module's docstring)."""

    def __init__(self, self_name: str, attr: str) -> None:
        self.self_name = self_name
        self.attr = attr
        self.values: list[cst.BaseExpression] = []
        self.prepares = False
        self.moves = False

    def _is_self(self, node: cst.BaseExpression) -> bool:
        return isinstance(node, cst.Name) and node.value == self.self_name

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if any(self._is_self(arg.value) for arg in node.args):
            self.moves = True  # ``prepare(self)``, ``move(self, device)``: it may be placed
        if not isinstance(func, cst.Attribute):
            return
        method = func.attr.value
        base = func.value
        if isinstance(base, cst.Call) and getattr(base.func, "value", None) == "super":
            self.moves = self.moves or method in _MOVING_METHODS  # ``super().to(device)``
        elif self._is_self(base):
            if method in _MOVING_METHODS:
                self.moves = True
            elif method == "register_buffer" and len(node.args) >= 2:
                name = node.args[0].value
                if isinstance(name, cst.SimpleString) and name.raw_value == self.attr:
                    self.values.append(node.args[1].value)
        elif method == "prepare":
            self.prepares = True
