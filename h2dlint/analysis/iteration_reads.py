"""HTD201's judgement of the two reads it reports outside a row loop (session 45: moved out of
the rule so that HTD202 asks the same question and leaves these reads to HTD201, one report a
read): a tensor read on every iteration of a ``while`` loop (its test, or an explicit read in
its body), and a builtin that walks a tensor element by element (``max(lens)``).

Both answer None where HTD201 does not report, or a judgement: which read, how sure, and
why (the device, a row counted by the body, or the hot path's reason)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import libcst as cst

from h2dlint.analysis.array_frameworks import other_framework_module
from h2dlint.analysis.builtin_walks import BuiltinWalk, builtin_walk
from h2dlint.analysis.device_branches import off_cuda_branch
from h2dlint.analysis.env_steps import loop_copy_handed_to_environment
from h2dlint.analysis.facts import Where
from h2dlint.analysis.host_data import dataset_module
from h2dlint.analysis.host_runtimes import host_runtime_module
from h2dlint.analysis.hot_calls import runs_model
from h2dlint.analysis.hot_guards import name_values
from h2dlint.analysis.hot_paths import HotPaths
from h2dlint.analysis.name_hints import on_host_by_name
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.reference_helpers import in_reference_code
from h2dlint.analysis.row_deferrals import as_if_visiting
from h2dlint.analysis.tensor_kinds import tensor_evidence
from h2dlint.analysis.tested_tensors import calls_model, step_call
from h2dlint.analysis.value_syncs import IterationSync, iteration_syncs, value_where
from h2dlint.context import FileContext, SharedKey
from h2dlint.walk import holds, visit_read_only

# How a ``while`` loop's read is judged: proven on the device, a row the body counts through,
# or a surely-tensor read on a hot path.
DEVICE = "device"
COUNTED = "counted"
HOT = "hot"


@dataclass(frozen=True)
class WhileRead:
    """The read HTD201 reports for a ``while`` loop: ``sync``, judged ``kind``; ``reason`` the
    hot path's (for ``HOT``)."""

    sync: IterationSync
    kind: str
    reason: str = ""


@dataclass(frozen=True)
class WalkRead:
    """A builtin walk HTD201 reports: ``walk``, proven on the device or (``reason``) on a hot
    path."""

    walk: BuiltinWalk
    device: bool
    reason: str = ""


# Each loop's and walk's verdict, judged once per file: HTD201 asks it when it visits the node,
# HTD202 for each of its candidates inside or around it (``reported_iteration_read``).
_WHILE_READS: SharedKey[WhileRead | None] = SharedKey("while reads")
_WALK_READS: SharedKey[WalkRead | None] = SharedKey("walk reads")


def while_read(context: FileContext, node: cst.While) -> WhileRead | None:
    """The read HTD201 reports for ``node`` (being visited: ``context.ancestors`` are its
    ancestors, not the loop itself), or None."""
    return context.shared(_WHILE_READS, partial(_while_read, context, node), node)


def _while_read(context: FileContext, node: cst.While) -> WhileRead | None:
    syncs = iteration_syncs(node)
    if not syncs:
        return None
    provenance = Provenance.of(context)
    frame = provenance.current_frame()
    ordered = sorted(syncs, key=lambda s: not s.what.startswith("`."))
    ancestors = context.ancestors
    ordered = [  # an episode's actions handed to the simulator: its input, not loop state
        s
        for s in ordered
        if not loop_copy_handed_to_environment(provenance, ancestors, node, s.node, frame)
    ]
    for sync in ordered:
        if value_where(provenance, sync.tensor, frame) is Where.DEVICE:
            return WhileRead(sync, DEVICE)
    # Where the device is unknown: a surely-tensor read per iteration on a hot path (not in a
    # dataset's module, whose samples are host data unless proven otherwise, nor in a branch
    # that runs only off CUDA: ``if not is_cuda: while (weight == 0).any():``), nor in a host
    # runtime's module (OpenVINO's, Core ML's host tensors).
    if (
        dataset_module(context)
        or other_framework_module(context)
        or off_cuda_branch([*ancestors, node], name_values(provenance))
        or host_runtime_module(context.path)
    ):
        return None
    for sync in ordered:
        tensor = sync.tensor
        if value_where(provenance, tensor, frame).on_host or on_host_by_name(tensor, frame):
            continue
        if tensor_evidence(provenance, tensor, frame, read=True) is None:
            continue
        if provenance.is_host_data(tensor, frame):
            continue
        if _counted_row(node, tensor):
            return WhileRead(sync, COUNTED)
        # The test runs on every iteration: in a per-request driver, whose loops are its
        # steps, it is as hot as the loop's body.
        # A read in the body of a loop of steps (``while True: step_method.step(...)``) too;
        # a test read of such a loop is HTD202's (``tested_tensors.model_while_reason``).
        reason = HotPaths.of(context).why_hot_at([*ancestors, node]) or _model_loop_reason(
            context, node, steps=not holds(node.test, sync.node)
        )
        return None if reason is None else WhileRead(sync, HOT, reason)
    return None


def walk_read(context: FileContext, node: cst.Call) -> WalkRead | None:
    """``node`` (being visited) as a builtin walk of a tensor HTD201 reports, or None."""
    return context.shared(_WALK_READS, partial(_walk_read, context, node), node)


def _walk_read(context: FileContext, node: cst.Call) -> WalkRead | None:
    walk = builtin_walk(node)
    if walk is None:
        return None
    provenance = Provenance.of(context)
    if provenance.qualify(node.func) is not None or walk.builtin in provenance.index.functions:
        return None  # ``from torch import max``, or the module's own ``max``
    frame = provenance.current_frame()
    if provenance.bindings(frame).of(walk.builtin):
        return None
    ancestors = context.ancestors
    if any(isinstance(a, (cst.Assert, cst.Raise)) for a in ancestors):
        return None  # a check or an error message
    tensor = walk.tensor
    where = provenance.where(tensor, frame)
    if where.on_host:
        return None
    if where is Where.DEVICE:
        return WalkRead(walk, True)
    if (
        dataset_module(context)
        or other_framework_module(context)
        or on_host_by_name(tensor, frame)
        or provenance.is_host_data(tensor, frame)
        or tensor_evidence(provenance, tensor, frame) is None
        or in_reference_code(context, ancestors)
        or host_runtime_module(context.path)
    ):
        return None
    reason = HotPaths.of(context).why_hot_at(ancestors)
    return None if reason is None else WalkRead(walk, False, reason)


def reported_iteration_read(
    context: FileContext, node: cst.CSTNode, loop: cst.While | None = None
) -> bool:
    """Whether HTD201 reports ``node`` (being visited by HTD202) as the read of a ``while``
    loop around it or as a builtin walk (the walk itself, around ``node``, or inside it): the
    same read, reported once, by HTD201 (as :mod:`row_deferrals` leaves it a row loop's
    reads; session 45: ``while (s - t0).abs().mean() > tol:`` and ``max(lens)`` in a hot
    ``forward`` were reported by both rules on the same span). ``loop``: the ``while`` loop
    being visited whose test ``node`` is part of (not yet among the ancestors)."""
    if loop is not None:
        found = while_read(context, loop)
        if found is not None and _same_read(found.sync.node, node):
            return True
    ancestors = context.ancestors
    for index in range(len(ancestors) - 1, -1, -1):
        parent = ancestors[index]
        if isinstance(parent, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            break
        if isinstance(parent, cst.While):
            found = as_if_visiting(context, index, partial(while_read, context, parent))
            if found is not None and _same_read(found.sync.node, node):
                return True
        elif isinstance(parent, cst.Call) and builtin_walk(parent) is not None:
            walked = as_if_visiting(context, index, partial(walk_read, context, parent))
            if walked is not None:
                return True
    if isinstance(node, cst.Call) and builtin_walk(node) is not None:
        return walk_read(context, node) is not None
    return False


def _same_read(read: cst.CSTNode, node: cst.CSTNode) -> bool:
    return holds(read, node) or holds(node, read)


def _counted_row(loop: cst.While, read: cst.BaseExpression) -> bool:
    """Whether ``read`` is a row ``t[n]`` whose index the loop's body counts up or down
    (``n += 1``): the ``while`` loop walks the rows of ``t``, one sync per row."""
    if not isinstance(read, cst.Subscript) or len(read.slice) != 1:
        return False
    index = read.slice[0].slice
    if not isinstance(index, cst.Index) or not isinstance(index.value, cst.Name):
        return False
    finder = _Counts(index.value.value)
    visit_read_only(loop.body, finder)
    return finder.found


class _Counts(cst.CSTVisitor):
    """Whether a block counts ``name`` (``name += ...``, ``name -= ...``)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.found = False

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        target = node.target
        if isinstance(target, cst.Name) and target.value == self.name:
            self.found = self.found or isinstance(
                node.operator, (cst.AddAssign, cst.SubtractAssign)
            )

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False


def _model_loop_reason(context: FileContext, loop: cst.While, steps: bool) -> str | None:
    """A ``while`` loop whose own body runs a model (``while not done.all(): nxt =
    model(ids)...``, a generation loop in a plain function) tests its tensor once per step,
    whatever its function is called; not in run-once code or tests. ``steps``: also a loop
    whose body calls a function named for one step (``step_method.step(...)``,
    ``self._adaptive_step(...)``): an adaptive solver's or a sampler's loop, whose body reads
    once per step (torchode 1.0.1 ``adjoints.py:224``: which evaluation points the step
    passed, ``if to_be_evaluated.any():``)."""
    hot = HotPaths.of(context)
    function = next(
        (a for a in reversed(context.ancestors) if isinstance(a, cst.FunctionDef)), None
    )
    if function is None or hot.test_module or hot.once.function(function):
        return None
    if runs_model(loop) or calls_model(loop):  # ``self.forward(...)`` too (transfusion-pytorch)
        return "its body runs the model on every iteration"
    called = step_call(loop) if steps else None
    return None if called is None else f"its body takes a step (`{called}()`) on every iteration"
