"""Python numbers logged per step through a Lightning module's ``log``/``log_dict``.

Lightning 2.6's ``LightningModule.log`` turns every value that is a ``numbers.Number`` into
``torch.tensor(value, device=self.device, dtype=...)`` (``__to_tensor``, on every call,
whatever ``on_step``/``on_epoch`` say; ``log_dict`` calls ``log`` per entry); a tensor is
kept (``clone().detach()``, no copy). A number logged in ``training_step`` or a per-batch hook
is therefore one blocking copy from pageable memory to the module's device per step: what
NeMo 2.6 removed from ``MegatronStrategy.training_step`` ("pl_module.log() will trigger
pageable H2D Memcpy which stalls CPU"). HTD107 asks this.

Only the receivers that are a Lightning module: ``self`` of a ``LightningModule`` subclass
(resolved through the project's classes), ``pl_module`` (a callback's hook parameter) and
``<x>.lightning_module``/``<x>.pl_module``. Only code that runs per batch: a hot function
(``training_step``, ``validation_step``, what they call) or a per-batch hook
(``on_train_batch_end``, ``on_before_optimizer_step``, ``on_*_step_end``), never under an
epoch hook (once per epoch: one copy, nothing to fix).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.arguments import first_positional, keyword
from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame, decorator_names
from h2dlint.analysis.framework_inputs import lightning_class
from h2dlint.analysis.host_data import host_scalar
from h2dlint.analysis.hot_guards import periodic_steps_only
from h2dlint.analysis.hot_paths import HotPaths
from h2dlint.analysis.once import RunOnce
from h2dlint.analysis.periodic_exits import periodic_gate
from h2dlint.analysis.provenance import MAX_DEPTH, Provenance
from h2dlint.analysis.returned_outputs import HOST_CLOCKS
from h2dlint.analysis.value_syncs import value_where
from h2dlint.walk import visit_read_only

if TYPE_CHECKING:
    from h2dlint.context import FileContext

LOG_METHODS = frozenset({"log", "log_dict"})
# Receivers that are a Lightning module by name (a callback's ``pl_module``, a strategy's or
# a trainer's ``lightning_module``).
MODULE_NAMES = frozenset({"pl_module", "lightning_module"})
# Hooks Lightning calls once per batch (besides the hot ``*_step`` entry points).
PER_BATCH_HOOKS = frozenset(
    {
        "on_train_batch_start",
        "on_train_batch_end",
        "on_validation_batch_start",
        "on_validation_batch_end",
        "on_test_batch_start",
        "on_test_batch_end",
        "on_before_backward",
        "on_after_backward",
        "on_before_optimizer_step",
        "on_before_zero_grad",
        "optimizer_step",
        "training_step_end",
        "validation_step_end",
        "test_step_end",
    }
)
# Attributes of a module or a trainer that hold Python ints.
INT_ATTRIBUTES = frozenset({"global_step", "current_epoch"})
# ``torch.cuda`` memory statistics: Python ints.
MEMORY_STATS = frozenset(
    f"torch.cuda.{name}"
    for name in (
        "max_memory_reserved",
        "max_memory_allocated",
        "memory_reserved",
        "memory_allocated",
    )
)
_NUMBER_ANNOTATIONS = frozenset({"int", "float"})
_EMPTY = cst.Module(body=[])


def logged_per_step(call: cst.Call, context: FileContext) -> str | None:
    """What ``call`` logs that Lightning copies to the device per step (``"the Python number
    `n`"``, ``"2 Python numbers"``); None where it is no Lightning module's ``log``, logs no
    number, or does not run per batch."""
    provenance = Provenance.of(context)
    frame = provenance.current_frame()
    if not isinstance(frame.function, cst.FunctionDef):
        return None
    if not lightning_receiver(call, provenance, frame):
        return None
    ancestors = context.ancestors
    if under_epoch_hook(ancestors) or RunOnce.of(context).code(ancestors):
        return None
    if periodic_steps_only(list(ancestors)) or under_periodic_gate(ancestors):
        return None  # ``if batch_idx % 100 == 0: self.log(...)``: once every N steps
    if HotPaths.of(context).why_hot_at(ancestors) is None and not per_batch_hook(ancestors):
        return None
    numbers = logged_numbers(call, provenance, frame)
    if not numbers:
        return None
    return "a Python number" if numbers == 1 else f"{numbers} Python numbers"


def per_batch_hook(ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether the innermost function is a hook Lightning calls once per batch
    (``on_train_batch_end``, ``on_megatron_step_end``)."""
    for node in reversed(ancestors):
        if isinstance(node, cst.FunctionDef):
            name = node.name.value
            return name in PER_BATCH_HOOKS or (
                name.startswith("on_") and name.endswith(("_step_end", "_step_start"))
            )
    return False


def under_epoch_hook(ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether a function around the code is named for an epoch (``on_train_epoch_end``,
    ``validation_epoch_end``): once per epoch."""
    return any(
        isinstance(node, cst.FunctionDef) and "epoch" in node.name.value.split("_")
        for node in ancestors
    )


def under_periodic_gate(ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether the code sits in the body of an ``if`` of its function that holds once every
    N steps (``if self.global_step % 50 == 0:``, ``if self.should_log(step):``); not a gate
    of gradient accumulation, which holds once per optimizer step."""
    for node, child in zip(reversed(ancestors[:-1]), reversed(ancestors[1:]), strict=True):
        if isinstance(node, (cst.FunctionDef, cst.Lambda)):
            return False
        if isinstance(node, cst.If) and child is node.body and periodic_gate(node.test):
            # ``if (batch_idx + 1) % self.trainer.accumulate_grad_batches == 0:`` holds once
            # per optimizer step: still every step (nemo 2.4.1 megatron_bert_model.py:436)
            return "accum" not in _EMPTY.code_for_node(node.test).lower()
    return False


def lightning_receiver(call: cst.Call, provenance: Provenance, frame: Frame) -> bool:
    """Whether ``call`` is ``log``/``log_dict`` of a Lightning module."""
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value not in LOG_METHODS:
        return False
    receiver = func.value
    if isinstance(receiver, cst.Attribute):
        return receiver.attr.value in MODULE_NAMES
    if not isinstance(receiver, cst.Name):
        return False
    if receiver.value in MODULE_NAMES:
        return True
    return (
        receiver.value == frame.self_name
        and frame.cls is not None
        and lightning_class(provenance, frame.cls)
    )


def logged_numbers(call: cst.Call, provenance: Provenance, frame: Frame) -> int:
    """How many Python numbers ``call`` (a Lightning ``log``/``log_dict``) logs."""
    func = call.func
    assert isinstance(func, cst.Attribute)
    if func.attr.value == "log":
        named = keyword(call, "value")
        positional = [a for a in call.args if a.keyword is None and not a.star]
        value = (
            named.value
            if named is not None
            else positional[1].value
            if len(positional) > 1
            else None
        )
        return int(value is not None and _copied_number(value, provenance, frame))
    logged = keyword(call, "dictionary")
    dictionary = logged.value if logged is not None else first_positional(call)
    if isinstance(dictionary, cst.Name):
        dictionary = _only_value(dictionary, provenance, frame)
    if not isinstance(dictionary, cst.Dict):
        return 0
    return sum(
        1
        for element in dictionary.elements
        if isinstance(element, cst.DictElement) and _copied_number(element.value, provenance, frame)
    )


def _copied_number(node: cst.BaseExpression, provenance: Provenance, frame: Frame) -> bool:
    """Whether ``node`` is a Python number this rule reports logging: not ``t.item()`` of a
    tensor proven on the device, whose read HTD202 already reports on the same line (one
    finding per line; logging ``t`` itself removes both the read and the copy back)."""
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "item"
        and not node.args
        and value_where(provenance, node.func.value, frame) is Where.DEVICE
    ):
        return False
    return python_number(node, provenance, frame)


def python_number(
    node: cst.BaseExpression, provenance: Provenance, frame: Frame, depth: int = 0
) -> bool:
    """Whether ``node`` is a Python number: what ``host_scalar`` proves, ``x.item()``,
    ``self.global_step``, ``trainer.current_epoch``, a ``torch.cuda`` memory statistic, a clock
    reading (``time.time()``), a
    learning rate (``opt.param_groups[0]["lr"]``, ``sched.get_last_lr()[0]``), a method or
    property of the class annotated ``-> int``/``-> float``, arithmetic of those, and names
    bound only to them."""
    if depth > MAX_DEPTH:
        return False
    if host_scalar(provenance, node, frame):
        return True
    if isinstance(node, cst.UnaryOperation):
        return python_number(node.expression, provenance, frame, depth + 1)
    if isinstance(node, cst.BinaryOperation):
        return not isinstance(node.operator, cst.MatrixMultiply) and all(
            python_number(side, provenance, frame, depth + 1) for side in (node.left, node.right)
        )
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "item" and not node.args:
            return True
        if provenance.qualify(func) in MEMORY_STATS | HOST_CLOCKS:
            return True
        return _annotated_number(func, provenance, frame, method=True)
    if isinstance(node, cst.Attribute):
        return (
            node.attr.value in INT_ATTRIBUTES
            or _annotated_number(node, provenance, frame, method=False)
            or _number_attribute(node, provenance, frame, depth)
        )
    if isinstance(node, cst.Subscript):
        return _learning_rate(node)
    if isinstance(node, cst.Name):
        reaching = provenance.bindings(frame).reaching_bindings(node)
        return bool(reaching) and all(
            b.value is not None and python_number(b.value, provenance, frame, depth + 1)
            for b in reaching
        )
    return False


def _number_attribute(
    node: cst.Attribute, provenance: Provenance, frame: Frame, depth: int
) -> bool:
    """``self.avg_std`` where every assignment of the class to it is a Python number
    (``self.avg_std = 0.0``, ``self.avg_std = 0.9 * self.avg_std + 0.1 * std.item()``; one
    that reads the attribute itself counts as a number); not an augmented one, whose operand
    is unknown."""
    if frame.cls is None or not isinstance(node.value, cst.Name):
        return False
    if node.value.value != frame.self_name or depth > MAX_DEPTH:
        return False
    values = provenance.index.attributes.get(frame.cls).get(node.attr.value, [])
    if not values or provenance.index.attributes.in_place(frame.cls, node.attr.value):
        return False
    return all(
        value is not None and _number_or_self(value, node.attr.value, provenance, where, depth + 1)
        for value, where in values
    )


def _number_or_self(
    value: cst.BaseExpression, attr: str, provenance: Provenance, frame: Frame, depth: int
) -> bool:
    """A number, reading ``self.<attr>`` as one (an update of the attribute from itself)."""
    if (
        isinstance(value, cst.Attribute)
        and value.attr.value == attr
        and isinstance(value.value, cst.Name)
        and value.value.value == frame.self_name
    ):
        return True
    if isinstance(value, cst.BinaryOperation):
        return not isinstance(value.operator, cst.MatrixMultiply) and all(
            _number_or_self(side, attr, provenance, frame, depth)
            for side in (value.left, value.right)
        )
    return python_number(value, provenance, frame, depth)


def _learning_rate(node: cst.Subscript) -> bool:
    """``opt.param_groups[0]["lr"]`` or ``sched.get_last_lr()[0]``."""
    value = node.value
    if isinstance(value, cst.Call):
        func = value.func
        return isinstance(func, cst.Attribute) and func.attr.value in ("get_last_lr", "get_lr")
    index = node.slice[0].slice if len(node.slice) == 1 else None
    return (
        isinstance(index, cst.Index)
        and isinstance(index.value, cst.SimpleString)
        and index.value.evaluated_value == "lr"
        and isinstance(value, cst.Subscript)
        and isinstance(value.value, cst.Attribute)
        and value.value.attr.value == "param_groups"
    )


def _annotated_number(
    node: cst.BaseExpression, provenance: Provenance, frame: Frame, *, method: bool
) -> bool:
    """``self.f(...)`` (``method``) or ``self.p`` where the class defines ``f``/``p`` with
    ``-> int`` or ``-> float`` and makes no tensor: boltz 2.2.1's ``gradient_norm(...) ->
    float`` returns ``torch.tensor([...]).sum().sqrt()``, a host tensor (Lightning keeps a
    logged tensor where it is: no copy)."""
    if not isinstance(node, cst.Attribute) or frame.cls is None:
        return False
    if not isinstance(node.value, cst.Name) or node.value.value != frame.self_name:
        return False
    for statement in frame.cls.body.body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value == node.attr.value:
            returns = statement.returns
            is_property = "property" in decorator_names(statement)
            return (
                is_property != method
                and returns is not None
                and isinstance(returns.annotation, cst.Name)
                and returns.annotation.value in _NUMBER_ANNOTATIONS
                and not _makes_tensor(statement)
            )
    return False


class _TorchCalls(cst.CSTVisitor):
    """Whether a function calls ``torch.<...>`` (``torch.tensor(...)``, ``torch.stack``)."""

    def __init__(self) -> None:
        self.found = False

    def visit_Call(self, node: cst.Call) -> None:
        func: cst.BaseExpression = node.func
        while isinstance(func, cst.Attribute):
            func = func.value
        if isinstance(func, cst.Name) and func.value == "torch" and node.func is not func:
            self.found = True


def _makes_tensor(function: cst.FunctionDef) -> bool:
    finder = _TorchCalls()
    visit_read_only(function.body, finder)
    return finder.found


def _only_value(name: cst.Name, provenance: Provenance, frame: Frame) -> cst.BaseExpression | None:
    reaching = provenance.bindings(frame).reaching_bindings(name)
    return reaching[0].value if len(reaching) == 1 else None
