"""A loop of steps that feeds its model inputs it builds on the host every iteration: the
model runs where those inputs are, on the host (session 49, fp202w49).

:func:`~h2dlint.analysis.tested_tensors.model_steps_reason` takes a loop over a ``range`` of
steps whose body calls a model for a decoding loop, where a read of the step's logits waits
for the step the device ran. When the body hands the model a tensor it has just made with a
``torch`` factory and no device (``cache_position = torch.tensor([i], dtype=torch.long)``,
``decoder_input_ids = torch.tensor([[next_token]], dtype=torch.long)``), and nothing in the
body names a device or moves a tensor (no ``.to(device)``, ``.cuda()``, ``device=``, no name
that says ``device`` or ``cuda``), the model takes host tensors every step: it is an ExecuTorch
program, an exported graph or a CPU model (a GPU model would fail on a host position or id
tensor). Its logits are then host tensors and ``argmax(...).item()`` waits for no device:
optimum-executorch 1.1.0's seq2seq ``generate`` loops around ``self.forward(...)`` and the
exported decoder, ExecuTorch 1.5.1's QNN T5 and Whisper examples and its LLaVA ``.pte`` test.

A tensor made with ``device=`` (``torch.tensor([i], device=ids.device)``), moved in the body
(``torch.tensor([[tok]]).to(device)``), or a loop whose model gets only values made before it
(a prompt moved once) keeps the reason.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.names import target_names
from h2dlint.analysis.step_drivers import model_call
from h2dlint.imports import dotted_name
from h2dlint.walk import OwnLoopBodyVisitor, visit_read_only

# ``torch.<factory>(...)`` that makes a tensor on the host unless given ``device=``.
HOST_FACTORIES = frozenset(
    {"tensor", "as_tensor", "full", "zeros", "ones", "arange", "empty", "LongTensor", "IntTensor"}
)
# Of these, a tensor of a literal list is no 0-d scalar (``torch.tensor([i])``, not ``(i)``).
SCALAR_FACTORIES = frozenset({"tensor", "as_tensor", "LongTensor", "IntTensor"})
# Words of a name or keyword that say a device is in play.
DEVICE_WORDS = ("device", "cuda")
# Methods that move a tensor to a device (``.to`` only with an argument that is no dtype).
MOVES = frozenset({"cuda", "pin_memory"})


def host_fed_steps(loop: cst.For | cst.While) -> bool:
    """Whether every iteration of ``loop`` hands its model, or a call whose result it binds,
    a tensor the body makes on the host, and the body names no device (see the module docs)."""
    finder = _HostFed()
    visit_read_only(loop.body, finder)
    if finder.device_named:
        return False
    return any(_host_argument(call, finder.host_names) for call in finder.consumers)


def _host_factory(node: cst.BaseExpression) -> bool:
    """``torch.tensor([[tok]], dtype=torch.long)``, ``torch.full((1, 1, n), v)``: a host tensor
    that is no 0-d scalar (a 0-d host tensor mixes with device ones, a 1-d one does not; a
    device keyword is seen by the body's device scan, which rejects the whole loop)."""
    if not isinstance(node, cst.Call):
        return False
    dotted = dotted_name(node.func) or ""
    module, _, name = dotted.rpartition(".")
    if module != "torch" or name not in HOST_FACTORIES:
        return False
    if name in SCALAR_FACTORIES:
        first = node.args[0].value if node.args and node.args[0].keyword is None else None
        return isinstance(first, (cst.List, cst.Tuple))
    return True


def _bound_call(value: cst.BaseExpression) -> cst.Call | None:
    """The call whose result ``value`` is, through ``[0]`` and ``.attr``: ``run(...)[0]``."""
    while isinstance(value, (cst.Subscript, cst.Attribute)):
        value = value.value
    return value if isinstance(value, cst.Call) else None


def _host_argument(call: cst.Call, host_names: set[str]) -> bool:
    """Whether an argument of ``call`` (or an item of a tuple or list it is given) is a host
    factory's tensor or a name the body binds to one."""
    values = [arg.value for arg in call.args]
    while values:
        value = values.pop()
        if isinstance(value, (cst.Tuple, cst.List)):
            values.extend(element.value for element in value.elements)
        elif _host_factory(value) or (isinstance(value, cst.Name) and value.value in host_names):
            return True
    return False


class _HostFed(OwnLoopBodyVisitor):
    """The model calls of a loop's own body, the names it binds to host factories' tensors,
    and whether it names a device anywhere (nested loops included: a move there counts)."""

    def __init__(self) -> None:
        # Calls that compute with what they are given: the model's, and those whose result
        # the body binds (``logits = module.run_method("decoder", (pos, embeds))[0]``).
        self.consumers: list[cst.Call] = []
        self.host_names: set[str] = set()
        self.device_named = False

    def visit_For(self, node: cst.For) -> bool:
        return True  # a device named in a nested loop still rules the loop out

    def visit_While(self, node: cst.While) -> bool:
        return True

    def visit_Assign(self, node: cst.Assign) -> None:
        call = _bound_call(node.value)
        if call is not None:
            self.consumers.append(call)
        if _host_factory(node.value):
            for target in node.targets:
                self.host_names.update(target_names(target.target))

    def visit_Name(self, node: cst.Name) -> None:
        if any(word in node.value.lower() for word in DEVICE_WORDS):
            self.device_named = True

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if any(word in node.attr.value.lower() for word in DEVICE_WORDS):
            self.device_named = True

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None and any(w in node.keyword.value for w in DEVICE_WORDS):
            self.device_named = True

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in MOVES or (method == "to" and not _dtype_only(node)):
                self.device_named = True
        if model_call(node) or (isinstance(func, cst.Call) and model_call(func)):
            self.consumers.append(node)  # ``decoder(...)``, ``self.exported_decoder.module()(...)``


def _dtype_only(call: cst.Call) -> bool:
    """``x.to(torch.long)``, ``x.to(dtype=torch.int32)``: a cast, no move."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value != "dtype":
            return False
        dotted = dotted_name(arg.value) or ""
        if not dotted.startswith("torch.") or dotted in ("torch.device",):
            return False
    return bool(call.args)
