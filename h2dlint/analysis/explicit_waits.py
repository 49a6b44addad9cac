"""Explicit waits of the host for a stream or the device (``torch.cuda.synchronize()``,
``stream.synchronize()``) and what was queued before them in their block: the one shape of
explicit wait HTD202 reports is a wait right after ``non_blocking=True`` copies to the device,
which makes the host wait for the copies it has just queued. Waits after a copy to the host
or from a staging buffer, and waits in timing code, are right.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import libcst as cst

from h2dlint.analysis.arguments import keyword
from h2dlint.analysis.called_copies import called_helpers, callee_key
from h2dlint.analysis.hot_guards import runs_every_call
from h2dlint.analysis.hot_paths import HotPaths
from h2dlint.analysis.once import RunOnce
from h2dlint.analysis.provenance import Provenance
from h2dlint.context import FileContext
from h2dlint.imports import dotted_name
from h2dlint.walk import visit_read_only

# Words in the code of a function that say it measures time: a wait there is the point.
TIMING_WORDS = ("perf_counter", "time.time", "monotonic", "elapsed_time", "enable_timing", "timer")
# Words of the code of a ``.synchronize()`` receiver that say it is a stream (an event's wait is
# the precise wait that the fix recommends, and is never reported).
STREAM_WORDS = ("stream",)


def stream_wait(call: cst.Call) -> str | None:
    """``call`` as a wait of the host for a whole stream or device: ``torch.cuda.synchronize()``
    (also ``torch.accelerator``/``torch.xpu``...), ``stream.synchronize()``,
    ``torch.cuda.current_stream().synchronize()``; None for anything else (an event's
    ``synchronize()``, a barrier)."""
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value != "synchronize":
        return None
    base = func.value
    dotted = dotted_name(base)
    if dotted is not None and dotted.startswith("torch.") and dotted.count(".") == 1:
        return "device"
    words = dotted_name(base.func) if isinstance(base, cst.Call) else dotted
    if words is not None and any(w in words.rpartition(".")[2].lower() for w in STREAM_WORDS):
        return "stream"
    return None


def timing_code(module: cst.Module, function: cst.FunctionDef) -> bool:
    """Whether ``function`` measures time (a wait makes its clock right) or is named for
    timing, benchmarking or profiling."""
    name = function.name.value.lower()
    if any(word in name for word in ("time", "tic", "toc", "bench", "profile", "measure")):
        return True
    code = module.code_for_node(function.body)
    return any(word in code for word in TIMING_WORDS)


# Words of a copy's source that say it is a reused staging buffer: waiting for the copy before
# the host writes the buffer again is needed (HTD402), and a device-side wait would not do.
BUFFER_WORDS = ("pin", "staging", "buf")
DEVICE_WORDS = ("cuda", "gpu", "device")


class _Copies(cst.CSTVisitor):
    """Calls with ``non_blocking=`` other than ``False``, split into copies to a device and
    the copies a host wait may be for: to the host (``.to("cpu")``, ``.cpu()``, a destination
    or argument named for the host, a ``copy_`` into a destination of unknown placement), or
    from a staging buffer (``pinned``, ``buf``) the host may rewrite next; nested functions are
    not entered, but the body of a function of ``helpers`` called by name is, once (its copies
    are queued by the call)."""

    def __init__(
        self, module: cst.Module, helpers: Mapping[str, cst.FunctionDef] | None = None
    ) -> None:
        self.module = module
        self.to_device: list[str] = []
        self.to_host = False
        self.helpers = helpers or {}
        self.entered: list[str] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Call(self, node: cst.Call) -> None:
        flag = keyword(node, "non_blocking")
        func = node.func
        key = callee_key(func)
        helper = self.helpers.get(key) if key is not None else None
        if flag is None and helper is not None and helper.name.value not in self.entered:
            self.entered.append(helper.name.value)  # ``cpu_to_gpu(stream, params)``
            visit_read_only(helper.body, self)
            self.entered.pop()
            return
        if flag is None or (isinstance(flag.value, cst.Name) and flag.value.value == "False"):
            return
        code = self.module.code_for_node(node)
        method = func.attr.value if isinstance(func, cst.Attribute) else ""
        args = " ".join(self.module.code_for_node(a.value) for a in node.args if a is not flag)
        target = self.module.code_for_node(func.value) if isinstance(func, cst.Attribute) else ""
        source = args if method == "copy_" else target
        host_words = ("cpu", "host", "pinned")
        to_host = (
            any(word in source.lower() for word in BUFFER_WORDS)  # a staging buffer it protects
            or method == "cpu"
            or any(word in args.lower() for word in host_words)
            # a destination of unknown placement may be a host buffer
            or (method == "copy_" and not any(w in target.lower() for w in DEVICE_WORDS))
        )
        if to_host:
            self.to_host = True
        else:
            short = code if len(code) <= 60 and "\n" not in code else None
            if short is None:
                callee = self.module.code_for_node(func)
                short = f"{callee}(...)" if len(callee) <= 50 else f"{method or 'copy'}(...)"
            where = f" in `{self.entered[0]}()`" if self.entered else ""
            self.to_device.append(f"`{short}`{where}")


def queued_copies(
    module: cst.Module,
    statements: Sequence[cst.BaseStatement | cst.BaseSmallStatement],
    helpers: Mapping[str, cst.FunctionDef] | None = None,
) -> list[str] | None:
    """The ``non_blocking=True`` copies to a device among ``statements`` (the ones before a
    wait in its block), those of the ``helpers`` they call by name too; None when one of them
    copies to the host (the wait lets the host read the copy) or from a staging buffer (the
    wait lets the host rewrite it): there a wait is right."""
    collector = _Copies(module, helpers)
    for statement in statements:
        visit_read_only(statement, collector)
    return None if collector.to_host else collector.to_device


# Words of a function's name that say a device-wide wait there is the point: warm-up, CUDA-graph
# capture, teardown, weight loading or offloading, memory accounting.
_WAIT_FUNCTION_WORDS = (
    "warm",
    "capture",
    "graph",
    "close",
    "shutdown",
    "stop",
    "teardown",
    "cleanup",
    "load",
    "offload",
    "memory",
    "empty_cache",
    "init",
    "reset",
    "sync",
    "wait",
    "barrier",
)


def per_step_wait(module: cst.Module, function: cst.FunctionDef, reason: str) -> bool:
    """Whether a device-wide wait with no copy queued before it in its block
    (``torch.cuda.synchronize()``) stalls the host on every step for nothing: its function runs
    once per step of a loop of steps (``reason``: "called in the loop of ..."; session 20:
    transformers' continuous batching waited for the whole device before and after every
    batch's step, then read the outputs with ``.tolist()`` anyway, until 5.0 and 5.4 removed
    the waits). Left alone: functions named for warm-up, graph capture, teardown, loading,
    memory accounting or waiting itself, and timing code."""
    name = function.name.value.lower()
    if any(word in name for word in _WAIT_FUNCTION_WORDS):
        return False
    return reason.startswith("called in the loop of") and not timing_code(module, function)


def wait_message(code: str, copies: list[str], reason: str) -> str:
    """HTD202's message for an explicit wait: after ``non_blocking=True`` copies (``copies``),
    or, with none, a device-wide wait on every step."""
    if not copies:
        return (
            f"`{code}` makes the host wait for all the work queued on the device on every step "
            f"({reason}): the next step's inputs cannot be prepared while the device works. "
            "Drop it where the host reads the step's outputs anyway (`.tolist()`, `.item()` "
            "wait for them), or record an event after the work the host needs and wait on "
            "that event only"
        )
    return (
        f"`{code}` makes the host wait for the `non_blocking=True` copies queued just "
        f"before it ({copies[0]}) on a hot path ({reason}): the copies overlap nothing. "
        "Record an event after them (`ev = torch.cuda.Event(); ev.record(stream)`) and make "
        "the stream that uses the data wait on the device "
        "(`torch.cuda.current_stream().wait_event(ev)` or `.wait_stream(stream)`); the wait "
        "is only needed if the host itself reads the copied data next"
    )


def hot_wait_message(context: FileContext, node: cst.Call) -> str | None:
    """What HTD202 says of ``node``, a ``stream.synchronize()`` or ``torch.cuda.synchronize()``
    statement, when it comes right after ``non_blocking=True`` copies to the device in the same
    block on a hot path (the host waits for the copies it has just queued); None when it is no
    such wait: run-once or timing code, a wait after a copy to the host, a stream's wait with
    nothing queued, a cold path."""
    ancestors = context.ancestors
    statement = ancestors[-1] if ancestors else None
    line = ancestors[-2] if len(ancestors) > 1 else None
    block = ancestors[-3] if len(ancestors) > 2 else None
    if not (isinstance(statement, cst.Expr) and isinstance(line, cst.SimpleStatementLine)):
        return None
    if not isinstance(block, (cst.IndentedBlock, cst.Module)) or RunOnce.of(context).code(
        ancestors
    ):
        return None
    function = next(
        (a for a in reversed(ancestors) if isinstance(a, (cst.FunctionDef, cst.Lambda))),
        None,
    )
    if not isinstance(function, cst.FunctionDef) or timing_code(context.module, function):
        return None
    before = list(block.body[: block.body.index(line)])
    cls = next((a for a in reversed(ancestors) if isinstance(a, cst.ClassDef)), None)
    self_name = Provenance.of(context).index.frame_of(function).self_name
    helpers = called_helpers(context.module, function, cls, self_name)
    copies = queued_copies(context.module, before, helpers)
    if copies is None or (not copies and stream_wait(node) != "device"):
        return None  # a copy to the host the wait is for, or a stream's wait with nothing queued
    reason = HotPaths.of(context).why_hot_at(ancestors)
    inner = ancestors[ancestors.index(function) :]
    if reason is None and copies and any(isinstance(a, (cst.For, cst.While)) for a in inner):
        reason = "it runs on every iteration of the loop around it, as the copies do"
    if reason is None or not runs_every_call(context, node, None, loops=True):
        return None
    if not copies and not per_step_wait(context.module, function, reason):
        return None
    return wait_message(context.module.code_for_node(node), copies, reason)
