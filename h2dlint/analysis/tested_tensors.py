"""Which part of an ``if``/``while`` test Python turns into ``bool()`` of a tensor (HTD202's
tests). A ``while`` test is read before every iteration, so a tensor there syncs once per
step of the loop: ``while time >= -dt / 2:`` of ``time = torch.tensor(1.0, device=device)``
(a flow-matching sampler's denoising loop) waits for the device on every step.

Besides :func:`~h2dlint.analysis.value_syncs.tensor_test`'s shapes (``t.any()``, a reduction
compared), a value comparison counts when one of its operands, through arithmetic
(``-dt / 2``), is a name or attribute that is a tensor by how it was made (a ``torch``
factory, an in-place update of one) or is on the device: comparing it calls ``bool()`` of
the tensor the comparison makes. A Python number compared (``step < n``) or a name of unknown
kind is not.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.facts import Where
from h2dlint.analysis.host_fed_steps import host_fed_steps
from h2dlint.analysis.hot_calls import runs_model
from h2dlint.analysis.hot_names import step_name
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.step_drivers import model_call
from h2dlint.analysis.step_schedules import schedule_loop
from h2dlint.analysis.tensor_kinds import tensor_evidence
from h2dlint.analysis.tested_helpers import helper_tested_argument
from h2dlint.analysis.unknown_tensors import annotated_comparison, read_reduction
from h2dlint.analysis.value_syncs import COMPARISON_OPERATORS, tensor_test, value_where
from h2dlint.walk import OwnLoopBodyVisitor, visit_read_only


def tested_tensor(provenance: Provenance, test: cst.BaseExpression) -> cst.BaseExpression | None:
    """The part of ``test`` that is a tensor Python calls ``bool()`` of, or None."""
    if _compared_with_none(test):
        return None  # ``if g != None:`` of a tensor: Python's identity answer, a bool
    tensor = tensor_test(test)
    if tensor is not None:
        return tensor
    argument = helper_tested_argument(provenance, test, provenance.current_frame())
    if argument is not None:
        return argument  # ``if has_only_one_value(sizes):`` of ``return (t == t[0]).all()``
    if isinstance(test, (cst.Name, cst.Attribute)):
        if provenance.where(test) is Where.DEVICE:
            return test
        # ``if total:`` of ``total = (target != ignore).sum()``, as ``if total > 0:``
        frame = provenance.current_frame()
        read = isinstance(test, cst.Name) and read_reduction(provenance, test, frame)
        return test if read else None
    if annotated_comparison(provenance, test):
        return test  # ``if input_pos_maxp1 > self.max_seq_length:`` of a tensor parameter
    if isinstance(test, cst.Comparison) and (
        value_where(provenance, test, provenance.current_frame()) is Where.DEVICE
    ):
        return test  # ``while t > 0:`` of ``t`` on the device: the comparison is judged whole
    return compared_tensor(provenance, test)


def _compared_with_none(test: cst.BaseExpression) -> bool:
    """``g != None``, ``x == None``: ``Tensor.__eq__``/``__ne__`` return ``NotImplemented`` for
    None, so Python answers by identity with a bool and reads nothing on the device."""
    return (
        isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, (cst.Equal, cst.NotEqual))
        and any(
            isinstance(o, cst.Name) and o.value == "None"
            for o in (test.left, test.comparisons[0].comparator)
        )
    )


def compared_tensor(provenance: Provenance, test: cst.BaseExpression) -> cst.BaseExpression | None:
    """The operand of a value comparison in ``test`` (also under ``not``, ``and``/``or``)
    that is surely a tensor or on the device, the name or attribute read (``time`` of
    ``time >= -dt / 2``); None when there is none."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return compared_tensor(provenance, test.expression)
    if isinstance(test, cst.BooleanOperation):
        return compared_tensor(provenance, test.left) or compared_tensor(provenance, test.right)
    if not isinstance(test, cst.Comparison) or not all(
        isinstance(c.operator, COMPARISON_OPERATORS) for c in test.comparisons
    ):
        return None
    operands = [test.left, *(c.comparator for c in test.comparisons)]
    if any(isinstance(o, cst.Name) and o.value == "None" for o in operands):
        return None  # ``mask != None``: Python's identity answer, a bool
    for operand in operands:
        found = _tensor_operand(provenance, operand)
        if found is not None:
            return found
    return None


def _tensor_operand(provenance: Provenance, node: cst.BaseExpression) -> cst.BaseExpression | None:
    """The name or attribute ``node`` reads (through unary and binary arithmetic and
    indexing) that is on the device, or surely a tensor and not on the host."""
    if isinstance(node, cst.UnaryOperation):
        return _tensor_operand(provenance, node.expression)
    if isinstance(node, cst.BinaryOperation):
        return _tensor_operand(provenance, node.left) or _tensor_operand(provenance, node.right)
    if isinstance(node, cst.Subscript) and isinstance(node.value, (cst.Name, cst.Attribute)):
        # ``delta_active[0] == -1``: an element of a tensor is a 0-d tensor (session 30,
        # botorch 0.9.5's slice sampler); the tensor indexed decides, and the element is what
        # is read (a row of a loop HTD201 reports stays HTD201's)
        if _tensor_operand(provenance, node.value) is not None:
            return node
        # ``sigmas[i + 1] == 0`` of a sampler's schedule handed in bare (step_schedules)
        frame = provenance.current_frame()
        found = schedule_loop(provenance, provenance.context.ancestors, node, frame)
        return node if found is not None else None
    if not isinstance(node, (cst.Name, cst.Attribute)):
        return None
    frame = provenance.current_frame()
    where = value_where(provenance, node, frame)
    if where is Where.DEVICE:
        return node
    if where.on_host or provenance.is_host_data(node, frame):
        return None
    # ``total = (target != ignore).sum()`` then ``if total > 0``: a reduction's value compared
    read = isinstance(node, cst.Name) and read_reduction(provenance, node, frame)
    if tensor_evidence(provenance, node, frame, read=read) is not None:
        return node
    # ``if sigma_down == 0:`` of a name bound from a schedule's elements (step_schedules)
    if isinstance(node, cst.Name) and schedule_loop(
        provenance, provenance.context.ancestors, node, frame
    ):
        return node
    return None


WHILE_REASON = "a `while` loop whose every iteration runs a model reads its test before each step"


STEP_WHILE_REASON = (
    "a `while` loop whose every iteration takes a step (`{}()`) reads its test before each step"
)


def model_while_reason(loop: cst.While) -> str | None:
    """Why the test of ``loop`` runs once per step in a function that may run more than once
    though it is not known to be hot: the loop's own body runs a model (a sampler's denoising
    loop, ``while time >= -dt / 2: v = self.denoise_step(...)``), or calls a function whose
    name says it takes one step (an adaptive ODE solver's ``while next_t > self.rk_state.t1:
    self.rk_state = self._adaptive_step(self.rk_state)``, torchdiffeq 0.2.5 ``rk_common.py:244``),
    so each iteration is a step and the test is read before each."""
    if runs_model(loop):
        return WHILE_REASON
    called = step_call(loop)
    return STEP_WHILE_REASON.format(called) if called else None


def step_call(loop: cst.While) -> str | None:
    """The name of the first function named for one step that ``loop``'s own body calls
    (``self._adaptive_step``, ``step_method.step``), or None."""
    finder = _StepCalls()
    visit_read_only(loop.body, finder)
    return finder.found


class _StepCalls(OwnLoopBodyVisitor):
    """The first call in a loop's own body of a function named for one step
    (:func:`~h2dlint.analysis.hot_names.name_reason`'s ``step`` word: ``self._adaptive_step``,
    ``solver.step``), by the called name."""

    def __init__(self) -> None:
        self.found: str | None = None

    def visit_Call(self, node: cst.Call) -> bool:
        func = node.func
        name = func.attr.value if isinstance(func, cst.Attribute) else None
        if isinstance(func, cst.Name):
            name = func.value
        if self.found is None and name is not None and step_name(name):
            self.found = name
        return self.found is None


STEPS_REASON = "a loop of steps whose every iteration runs a model"


def model_steps_reason(loop: cst.For, whole_copy: bool = False) -> str | None:
    """Why a read in the body of ``loop`` runs once per step in a function not known to be
    hot: a loop over a ``range`` of steps (``for step in range(decode_strategy.max_length):``)
    whose own body runs a model is a decoding or sampling loop (a translator's beam search,
    session 28: eole's and OpenNMT's ``_translate_batch_with_strategy`` around
    ``self._decode_and_generate(...)`` and ``self.model.decoder.map_state(...)``), and a sync
    there waits for the step the iteration queued. Not a loop over a collection's items
    (``for batch in loader:``, ``range(len(batches))``): an evaluation pass reads its
    outputs. Only for reads of values (``.item()``, ``.tolist()``, a test, a mask), not for
    a copy of a whole tensor to the host (``whole_copy``: ``.cpu()``): a loop over tiles or
    chunks hands each chunk's output to the host, which needs it (xinference's tiled
    upscaler). Nor a loop that feeds its model tensors it makes on the host each step and names
    no device (:mod:`~h2dlint.analysis.host_fed_steps`: an ExecuTorch program's decoding loop,
    whose logits are host tensors)."""
    if whole_copy or _epoch_loop(loop):
        return None
    it = loop.iter
    if not (
        isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "range"
    ):
        return None
    if any(_calls_len(arg.value) for arg in it.args):
        return None
    return STEPS_REASON if calls_model(loop) else None


def calls_model(loop: cst.For | cst.While) -> bool:
    """Whether ``loop``'s own body calls the model (:class:`_ModelCalls`: ``self.forward(...)``,
    ``self(...)``, ``model(...)``) and does not feed it host tensors it makes each step."""
    finder = _ModelCalls()
    visit_read_only(loop.body, finder)
    return finder.found and not host_fed_steps(loop)


class _ModelCalls(OwnLoopBodyVisitor):
    """Whether a loop's own body calls the model or a part of it by the callee's name
    (:func:`~h2dlint.analysis.step_drivers.model_call`: ``self.model.decoder.map_state(...)``,
    ``model.forward(...)``), not a name that only holds the word (``ModelInput(...)`` builds an
    input)."""

    def __init__(self) -> None:
        self.found = False

    def visit_Call(self, node: cst.Call) -> bool:
        self.found = self.found or model_call(node)
        return not self.found


def _epoch_loop(loop: cst.For) -> bool:
    """``for epoch in range(start, self.epochs):``: each iteration is a whole pass over the data
    (its batches in a nested loop), and what its own body reads runs once per epoch (tabpfn's
    fine-tuning loss all-reduced after the batch loop)."""
    target = loop.target
    return isinstance(target, cst.Name) and "epoch" in target.value.lower()


def _calls_len(node: cst.BaseExpression) -> bool:
    """Whether ``node`` calls ``len`` anywhere (a range over a collection's positions)."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "len":
        return True
    return any(
        _calls_len(child) for child in node.children if isinstance(child, cst.BaseExpression)
    )
