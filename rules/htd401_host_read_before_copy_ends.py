from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from h2dlint.analysis.arguments import first_positional, is_true, keyword
from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.host_reads import first_host_read
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.targets import Target
from h2dlint.analysis.writes import buffer_roots
from h2dlint.diagnostics import Confidence, Severity
from h2dlint.rule import Invalid, Rule, Valid


@dataclass(frozen=True)
class _Copy:
    """A device-to-host ``non_blocking=True`` copy: the names its result goes by (empty for
    ``.to``/``.cpu``, whose result is followed from the expression), how sure it is, and what
    would make it certain."""

    names: frozenset[str]
    confidence: Confidence
    source: str


class HostReadBeforeCopyEnds(Rule):
    """## What it does
    Flags a host read of the result of a device-to-host copy made with `non_blocking=True`
    (`y = x.to("cpu", non_blocking=True)`, `x.cpu(non_blocking=True)`,
    `pinned.copy_(x, non_blocking=True)`) before anything has waited for the copy: indexing it,
    `.tolist()`, `.numpy()` and reading the array, `.item()`, arithmetic or comparison on it,
    iterating it, `int()`/`float()`/`print()` and other builtins, torch or numpy functions on
    it, or writing into it, in the same function on a path with no sync between.

    A sync is `torch.cuda.synchronize()`, `stream.synchronize()`, `event.synchronize()` (an
    event recorded after the copy), `.wait()`, any call named `...sync...`, and `.item()`,
    `.tolist()` or a blocking `.cpu()` of another tensor (each waits for the stream, so for the
    copy queued on it). `stream.wait_event(e)` does not count: it makes the device wait, not
    the host.

    Not flagged: a result only handed back to a device (`y.to(dev)`, `gpu.copy_(y)`: ordered
    on the stream after the copy), only looked at for its metadata (`y.shape`, `len(y)`), read
    after a sync, returned, stored (`self.out = y`, `outs.append(y)`) or passed to code the rule
    cannot see (that code may wait first). A result returned to a caller is left alone: the
    caller may wait on an event first.

    Confidence: HIGH when the copied tensor is provably on a device (`.cuda()`,
    `.to(device)`, a factory with `device=`); MEDIUM when its device is unknown: the message
    says which tensor would have to be on the GPU (from a CPU tensor, `.to("cpu")` copies
    nothing and nothing races).

    This is a correctness rule (severity **error**), not a speed rule: the code computes wrong
    results.

    Hot paths: the rule does not require one; a race is a bug wherever it runs.

    ## Why is this bad?
    A `non_blocking=True` device-to-host copy returns at once, before the copy has run; the
    result is a pinned host tensor whose memory the copy fills later, when the stream reaches
    it. Reading it before then reads whatever the memory held. Measured on an H200 (torch
    2.11): `x` filled with 7.0 behind a 40 ms kernel, `y = x.to("cpu", non_blocking=True)`,
    then `float(y[:1000].sum())` at once read 0.0 where 7000.0 was expected; after
    `torch.cuda.synchronize()` it read 7000.0. No error, wrong numbers. PyTorch's own tutorial
    on `non_blocking` warns about exactly this.

    ## Example
    ```python
    scores = logits.softmax(-1).to("cpu", non_blocking=True)
    best = scores.argmax(-1).tolist()
    ```

    ## Use instead
    ```python
    scores = logits.softmax(-1).to("cpu", non_blocking=True)
    copied = torch.cuda.Event()
    copied.record()
    ...  # host work that overlaps the copy
    copied.synchronize()
    best = scores.argmax(-1).tolist()
    ```
    or, when there is no host work to overlap, a blocking copy (`.cpu()`).

    ## Fix safety
    No automatic fix: where to wait depends on what host work should overlap the copy.

    ## On real code
    On the 12 pinned corpus packages (`scripts/fetch_corpus.py`: transformers, diffusers,
    lightning, accelerate, timm, torchrec, deepspeed, megatron-core, lmdeploy, peft, torchao,
    bitsandbytes) the first version reported 1 finding, a false positive (torchrec's
    `predictions.to(torch.device("cpu"), non_blocking=True).float()`, returned: `.float()` of a
    float32 tensor reads nothing), fixed since by following dtype conversions like views; the
    rule now reports nothing there: no finding to measure precision on (0 of 0), as the issue
    expected. The look-alikes it leaves alone (a pinned slot read after `event.synchronize()`
    two steps later in transformers' generation, a read after `ev_d2h.synchronize()` in
    torchrec's benchmarks, results stored on `self` or returned) are labelled in
    `tests/data/labels/HTD401.tsv`.
    """

    code = "HTD401"
    name = "host-read-before-copy-ends"
    message = "the host reads the result of a non-blocking device-to-host copy before a sync"
    severity = Severity.ERROR
    prefilter = (b"non_blocking",)
    candidates = (".to|.cpu|.copy_(non_blocking=True)",)

    valid = (
        # a sync before the read
        Valid(
            """
            import torch
            def f(x):
                y = x.cuda().to('cpu', non_blocking=True)
                torch.cuda.synchronize()
                return y.tolist()
            """
        ),
        # an event recorded after the copy, waited on
        Valid(
            """
            import torch
            def f(x, dev):
                g = x.to(dev) * 2
                y = g.to('cpu', non_blocking=True)
                done = torch.cuda.Event()
                done.record()
                done.synchronize()
                return float(y.sum())
            """
        ),
        # a stream sync, and another tensor's .item() (it waits for the stream)
        Valid(
            """
            import torch
            def f(x, dev, stream):
                g = x.to(dev)
                y = g.cpu(non_blocking=True)
                stream.synchronize()
                return y[0]
            """
        ),
        Valid(
            """
            import torch
            def f(x, dev):
                g = x.to(dev)
                y = g.to('cpu', non_blocking=True)
                n = g.sum().item()
                return y.numpy(), n
            """
        ),
        # only handed back to the device
        Valid(
            """
            import torch
            def f(x, dev):
                g = x.to(dev)
                y = g.to('cpu', non_blocking=True)
                return y.to(dev, non_blocking=True) + 1
            """
        ),
        # returned to the caller, or stored, unread
        Valid(
            """
            import torch
            def f(x, dev):
                g = x.to(dev)
                y = g.to('cpu', non_blocking=True)
                event = torch.cuda.Event()
                event.record()
                return y, event
            """
        ),
        Valid(
            """
            import torch
            class Offload:
                def save(self, g):
                    self.host = g.cuda().to('cpu', non_blocking=True)
                    self.outs.append(g.cuda().cpu(non_blocking=True))
            """
        ),
        # converted and returned (a no-op conversion when the dtype is already float32)
        Valid(
            """
            import torch
            def predict(model, batch):
                scores = model(batch.cuda()).sigmoid()
                return {'default': scores.to(torch.device('cpu'), non_blocking=True).float()}
            """
        ),
        # only metadata
        Valid(
            """
            import torch
            def f(x):
                y = x.cuda().to('cpu', non_blocking=True)
                return y.shape, len(y), y.dtype
            """
        ),
        # another tensor's blocking copy to `torch.device("cpu")` waits for the stream first
        Valid(
            """
            import torch
            def splits(local, remote):
                send = local.sum(dim=1).to(torch.device("cpu"), non_blocking=True)
                recv = remote.sum(dim=1).to(torch.device("cpu"), non_blocking=False)
                send_list = send.tolist()
                return send_list, recv.tolist()
            """
        ),
        # a blocking copy, and a host-to-host one
        Valid(
            """
            import torch
            def f(x):
                y = x.cuda().to('cpu')
                return y.tolist()
            """
        ),
        Valid(
            """
            import torch
            def f(data):
                y = torch.tensor(data).to('cpu', non_blocking=True)
                return y.tolist()
            """
        ),
        # returned at once: the next branch's copy into the same buffer never follows it
        Valid(
            """
            import torch
            class Buffers:
                def __init__(self, n, device):
                    self.cpu = torch.empty(n, pin_memory=True)
                    self.gpu = torch.empty(n, device=device)
                def copy_to_cpu(self, n=None):
                    if n is None:
                        return self.cpu.copy_(self.gpu, non_blocking=True)
                    return self.cpu[:n].copy_(self.gpu[:n], non_blocking=True)
            """
        ),
        # bound again before the read
        Valid(
            """
            import torch
            def f(x):
                y = x.cuda().to('cpu', non_blocking=True)
                y = x.cpu()
                return y.tolist()
            """
        ),
    )
    invalid = (
        Invalid(
            """
            import torch
            def f(x):
                y = x.cuda().to('cpu', non_blocking=True)
                return y.tolist()
                #      ^^^^^^^^
            """,
            message_contains="`y` (copied from the device with `non_blocking=True` at line 3)",
        ),
        # read in the same expression
        Invalid(
            """
            import torch
            def f(x, dev):
                g = x.to(dev)
                return g.to('cpu', non_blocking=True).numpy().sum()
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            def f(x, dev):
                g = x.to(dev)
                y = g.cpu(non_blocking=True)
                return float(y[:1000].sum())
                #            ^^^^^^^^^^^^
            """,
        ),
        # into a pinned buffer
        Invalid(
            """
            import torch
            def f(x, dev):
                host = torch.empty(8, pin_memory=True)
                host.copy_(x.to(dev), non_blocking=True)
                return host.tolist()
                #      ^^^^^^^^^^^
            """,
        ),
        # arithmetic, comparison, iteration
        Invalid(
            """
            import torch
            def f(x, dev):
                y = x.to(dev).to('cpu', non_blocking=True)
                if (y > 0).any():
                #   ^^^^^
                    return 1
            """,
        ),
        Invalid(
            """
            import torch
            def f(x, dev):
                y = x.to(dev).to('cpu', non_blocking=True)
                for v in y:
                #        ^
                    print(v)
            """,
        ),
        # through a numpy alias
        Invalid(
            """
            import torch
            def f(x, dev):
                arr = x.to(dev).to('cpu', non_blocking=True).numpy()
                return arr.mean()
                #      ^^^^^^^^
            """,
        ),
        # a device-side wait does not make the host wait
        Invalid(
            """
            import torch
            def f(x, dev):
                y = x.to(dev).to('cpu', non_blocking=True)
                e = torch.cuda.Event()
                e.record()
                torch.cuda.current_stream().wait_event(e)
                return y.tolist()
                #      ^^^^^^^^
            """,
        ),
        # an unknown device: medium confidence
        Invalid(
            """
            import torch
            def f(logits):
                y = logits.to('cpu', non_blocking=True)
                return y.argmax(-1).tolist()
                #      ^^^^^^^^
            """,
            message_contains="certain if `logits` is on a GPU",
        ),
    )

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._pending: dict[cst.CSTNode, tuple[str, Confidence]] = {}

    # -- which copies --------------------------------------------------------------------------
    def _copy(self, call: cst.Call, provenance: Provenance, frame: Frame) -> _Copy | None:
        func = call.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in ("to", "cpu", "copy_"):
            return None
        non_blocking = keyword(call, "non_blocking")
        if non_blocking is None or not is_true(non_blocking.value):
            return None
        method = func.attr.value
        if method == "copy_":
            source = first_positional(call)
            if source is None or not provenance.fact(func.value, frame).where.pinned:
                return None
            names = frozenset(buffer_roots(provenance, func.value, frame))
            if not names:
                return None
        else:
            if method == "to" and provenance.to_target(call, frame) is not Target.HOST:
                return None
            source, names = func.value, frozenset()
        where = provenance.where(source, frame)
        if where is Where.DEVICE:
            confidence = Confidence.HIGH
        elif where is Where.UNKNOWN:
            confidence = Confidence.MEDIUM
        else:
            return None
        shown = self.shown(source, "the source")
        return _Copy(names, confidence, shown)

    # -- visits --------------------------------------------------------------------------------
    def _flag(self, node: cst.CSTNode) -> None:
        if self._pending and node in self._pending:
            message, confidence = self._pending.pop(node)
            self.report(node, message, confidence=confidence)

    def visit_Call(self, node: cst.Call) -> None:
        self._flag(node)
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in ("to", "cpu", "copy_"):
            return
        if keyword(node, "non_blocking") is None:
            return
        provenance = Provenance.of(self.context)
        frame = provenance.current_frame()
        copy = self._copy(node, provenance, frame)
        if copy is None:
            return
        found = first_host_read(self.context, node, copy.names, provenance, frame)
        if found is None:
            return
        read, name = found
        line = self.context.position(node).start.line
        subject = (
            "the result of a `non_blocking=True` copy from the device"
            if read is node
            else f"`{name}` (copied from the device with `non_blocking=True` at line {line})"
        )
        message = (
            f"the host reads {subject} before anything waits for the copy: it may read the "
            "memory before the copy has written it; record an event after the copy and "
            "`event.synchronize()` before reading (or copy without `non_blocking`)"
        )
        if copy.confidence is Confidence.MEDIUM:
            message += f"; certain if {copy.source} is on a GPU"
        if read is node:
            self.report(node, message, confidence=copy.confidence)
        else:
            self._pending[read] = (message, copy.confidence)

    def visit_Name(self, node: cst.Name) -> None:
        self._flag(node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._flag(node)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        self._flag(node)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        self._flag(node)

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        self._flag(node)

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        self._flag(node)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        self._flag(node)
