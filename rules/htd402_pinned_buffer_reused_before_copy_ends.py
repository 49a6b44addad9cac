from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from h2dlint.analysis.copies import non_blocking_h2d_source
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.hot_paths import HotPaths
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.races import (
    LATER,
    NEXT_CALL,
    NEXT_ITERATION,
    Reuse,
    pending_reuses,
    scan_function,
)
from h2dlint.context import SharedKey
from h2dlint.diagnostics import Confidence, Severity
from h2dlint.rule import Invalid, Rule, Valid

# Shared per file with every rule, each under its own typed key.
_RACES: SharedKey[dict[cst.CSTNode, _Race]] = SharedKey("races of a function")


@dataclass(frozen=True)
class _Race:
    reuse: Reuse
    copy: cst.Call
    buffer: str


class PinnedBufferReusedBeforeCopyEnds(Rule):
    """## What it does
    Flags a host write to a pinned buffer (by its name, a slice or view of it, or an alias such as
    `np_view = buf.numpy()`) that an earlier `non_blocking=True` host-to-device copy reads, with
    no event wait or sync between the copy and the write:

    - later in the same function (`g = buf.to(dev, non_blocking=True)` then `buf.fill_(0)`);
    - earlier in a loop around the copy: the next iteration writes while this iteration's copy
      is queued (`for x in xs: buf.copy_(x); outs.append(buf.to(dev, non_blocking=True))`);
    - earlier in the same method, for a buffer kept in `self.<attr>`: the next call writes it
      while the last call's copy is queued (`self.buf.copy_(x)` then
      `self.gpu.copy_(self.buf, non_blocking=True)` in a method run per step).

    Writes are assignments into it (`buf[:n] = x`, `buf += 1`), in-place methods (`copy_`,
    `fill_`, `zero_`...), `out=buf` and `np.copyto(view, x)`. What counts as a sync:
    `event.synchronize()`, `stream.synchronize()`, `torch.cuda.synchronize()`, `.wait()`, any
    call named `...sync...`, `.item()`, `.tolist()` and blocking `.cpu()` (each waits for the
    stream). `torch.cuda.current_stream().wait_event(e)` does not count: it makes the device
    wait, not the host.

    Not flagged: double buffering (two buffers alternated, `cur, nxt = nxt, cur`, or a pool
    indexed by the step, `bufs[i % 2]`), a write after an event recorded after the copy has
    been waited on, a buffer bound anew before the write (`buf = torch.empty(..., pin_memory=
    True)` in the loop), rows of a buffer different from the copied ones (`buf[i]` written,
    `buf[j]` copied), and copies from memory that is not provably pinned (from pageable
    memory, `non_blocking=True` copies synchronously: HTD102's business).

    Confidence: HIGH when the write follows the copy in the same function, or in a loop with
    no call into code the rule cannot see; MEDIUM for the next call of a method (the caller may
    wait for the device between two calls, e.g. by reading a result with `.item()` every step)
    and for loops that call such code: the message says which call would have to wait.

    This is a correctness rule (severity **error**), not a speed rule: the code computes wrong
    results.

    Hot paths: the rule does not require one; a race is a bug wherever it runs. A MEDIUM
    finding about the next call names the hot path that calls the method again when there is
    one.

    ## Why is this bad?
    A `non_blocking=True` copy from pinned memory returns at once; the copy runs when the
    stream reaches it, reading the buffer *then*. A host write in between changes what the
    device receives, silently. Measured on an H200 (torch 2.11): a pinned buffer filled with
    1.0, copied with `buf.to(dev, non_blocking=True)` behind a 40 ms kernel, then filled with
    2.0 on the host: the GPU received 2.0 (expected 1.0). With an event recorded after the copy
    and `event.synchronize()` before the second fill, the GPU received 1.0.

    ## Example
    ```python
    class Stager:
        def __init__(self, n, device):
            self.buf = torch.empty(n, pin_memory=True)
            self.gpu = torch.empty(n, device=device)

        def step(self, batch):
            self.buf.copy_(batch)  # the next step's write races this step's copy
            self.gpu.copy_(self.buf, non_blocking=True)
            return self.gpu
    ```

    ## Use instead
    ```python
    class Stager:
        def __init__(self, n, device):
            self.buf = torch.empty(n, pin_memory=True)
            self.gpu = torch.empty(n, device=device)
            self.copied = torch.cuda.Event()

        def step(self, batch):
            self.copied.synchronize()  # the last copy has read the buffer
            self.buf.copy_(batch)
            self.gpu.copy_(self.buf, non_blocking=True)
            self.copied.record()
            return self.gpu
    ```
    or alternate two buffers, each with its event, so that the wait is for the copy of two
    steps ago, which has long run.

    ## Fix safety
    No automatic fix: where to wait (or whether to add a second buffer) depends on how far
    ahead the host should run.

    ## On real code
    On the 12 pinned corpus packages (`scripts/fetch_corpus.py`) the rule reports nothing: no
    finding to measure precision on (0 of 0). The non-blocking copies from pinned memory there
    copy from buffers the function does not write again (transformers' CPU-offloaded KV
    blocks, deepspeed's sequence chunks, megatron's parameter buffers) or write a different
    buffer per iteration (torchao's CPU-offload optimizer); they are labelled as look-alikes in
    `tests/data/labels/HTD402.tsv`.
    """

    code = "HTD402"
    name = "pinned-buffer-reused-before-copy-ends"
    message = "a pinned buffer is written on the host while a non-blocking copy may still read it"
    severity = Severity.ERROR
    prefilter = (b"non_blocking",)
    candidates = (".to|.cuda|.copy_(non_blocking=)",)

    valid = (
        # an event recorded after the copy, waited on before the write
        Valid(
            """
            import torch
            def f(x, y, dev):
                buf = torch.empty(8, pin_memory=True)
                buf.copy_(x)
                g = buf.to(dev, non_blocking=True)
                done = torch.cuda.Event()
                done.record()
                done.synchronize()
                buf.copy_(y)
                return g
            """
        ),
        # the same in a loop, and with a stream sync
        Valid(
            """
            import torch
            def f(xs, dev):
                buf = torch.empty(8, pin_memory=True)
                out = []
                for x in xs:
                    buf.copy_(x)
                    out.append(buf.to(dev, non_blocking=True))
                    torch.cuda.current_stream().synchronize()
                return out
            """
        ),
        # double buffering: two buffers swapped every step, each waited on
        Valid(
            """
            import torch
            def f(xs, dev):
                cur = torch.empty(8, pin_memory=True)
                nxt = torch.empty(8, pin_memory=True)
                out = []
                for x in xs:
                    cur.copy_(x)
                    out.append(cur.to(dev, non_blocking=True))
                    cur, nxt = nxt, cur
                return out
            """
        ),
        # double buffering: a pool indexed by the step, with events
        Valid(
            """
            import torch
            class Stager:
                def __init__(self, n):
                    self.bufs = [torch.empty(n, pin_memory=True) for _ in range(2)]
                    self.events = [torch.cuda.Event() for _ in range(2)]
                def step(self, i, x, gpu):
                    slot = i % 2
                    self.events[slot].synchronize()
                    self.bufs[slot].copy_(x)
                    gpu.copy_(self.bufs[slot], non_blocking=True)
                    self.events[slot].record()
            """
        ),
        # a fresh buffer every iteration
        Valid(
            """
            import torch
            def f(xs, dev):
                out = []
                for x in xs:
                    buf = torch.empty(8, pin_memory=True)
                    buf.copy_(x)
                    out.append(buf.to(dev, non_blocking=True))
                return out
            """
        ),
        # a blocking copy: the host waits for it before writing again
        Valid(
            """
            import torch
            def f(xs, dev):
                buf = torch.empty(8, pin_memory=True)
                out = []
                for x in xs:
                    buf.copy_(x)
                    out.append(buf.to(dev))
                return out
            """
        ),
        # the step reads a result on the host (a sync) before the next write
        Valid(
            """
            import torch
            class Stager:
                def __init__(self, n):
                    self.buf = torch.empty(n, pin_memory=True)
                def step(self, x, model, dev):
                    self.buf.copy_(x)
                    out = model(self.buf.to(dev, non_blocking=True))
                    return out.argmax(-1).tolist()
            """
        ),
        # written only before the copy, in a function that runs the copy once
        Valid(
            """
            import torch
            def f(x, dev):
                buf = torch.empty(8, pin_memory=True)
                buf.copy_(x)
                return buf.to(dev, non_blocking=True)
            """
        ),
        # different rows: a ring of rows, each written once per pass
        Valid(
            """
            import torch
            def f(xs, dev):
                ring = torch.empty(4, 8, pin_memory=True)
                out = []
                for i, x in enumerate(xs):
                    ring[i].copy_(x)
                    out.append(ring[i].to(dev, non_blocking=True))
                return out
            """
        ),
        # pageable memory: the copy is synchronous (HTD102 reports it)
        Valid(
            """
            import torch
            def f(xs, dev):
                buf = torch.empty(8)
                out = []
                for x in xs:
                    buf.copy_(x)
                    out.append(buf.to(dev, non_blocking=True))
                return out
            """
        ),
        # the copy is returned: the write after the branch runs only when it was not made
        Valid(
            """
            import torch
            def f(x, dev, fast):
                buf = torch.empty(8, pin_memory=True)
                if fast:
                    return buf.to(dev, non_blocking=True)
                buf.copy_(x)
                return buf.to(dev)
            """
        ),
        # a write of another buffer
        Valid(
            """
            import torch
            def f(x, dev):
                a = torch.empty(8, pin_memory=True)
                b = torch.empty(8, pin_memory=True)
                g = a.to(dev, non_blocking=True)
                b.copy_(x)
                return g, b
            """
        ),
    )
    invalid = (
        Invalid(
            """
            import torch
            def f(dev):
                buf = torch.empty(8, pin_memory=True)
                buf.fill_(1.0)
                g = buf.to(dev, non_blocking=True)
                buf.fill_(2.0)
                ^^^^^^^^^^^^^^
                return g
            """,
            message_contains="the non-blocking copy from `buf` at line 5",
        ),
        # the next iteration writes while this one's copy is queued
        Invalid(
            """
            import torch
            def f(xs, dev):
                buf = torch.empty(8, pin_memory=True)
                out = []
                for x in xs:
                    buf.copy_(x)
                    ^^^^^^^^^^^^
                    out.append(buf.to(dev, non_blocking=True))
                return out
            """,
            message_contains="in the next iteration of the loop",
        ),
        # a slice written, a prefix copied
        Invalid(
            """
            import torch
            def f(xs, n, dev):
                buf = torch.empty(64, pin_memory=True)
                out = []
                for x in xs:
                    buf[: x.numel()] = x
                    ^^^^^^^^^^^^^^^^
                    out.append(buf[:n].to(dev, non_blocking=True))
                return out
            """,
        ),
        # through a numpy alias
        Invalid(
            """
            import torch
            def f(arrays, dev):
                buf = torch.empty(8, pin_memory=True)
                view = buf.numpy()
                out = []
                for a in arrays:
                    view[:] = a
                    ^^^^^^^
                    out.append(buf.to(dev, non_blocking=True))
                return out
            """,
            message_contains="through `view`",
        ),
        # cat into the buffer
        Invalid(
            """
            import torch
            def f(chunks, more, dev):
                buf = torch.empty(64, pin_memory=True)
                torch.cat(chunks, out=buf)
                g = buf.to(dev, non_blocking=True)
                torch.cat(more, out=buf)
                ^^^^^^^^^^^^^^^^^^^^^^^^
                return g
            """,
        ),
        # copy_ into a device tensor, the buffer kept on the object: the next call writes it
        Invalid(
            """
            import torch
            class Stager:
                def __init__(self, n, device):
                    self.buf = torch.empty(n, pin_memory=True)
                    self.gpu = torch.empty(n, device=device)
                def step(self, x):
                    self.buf.copy_(x)
                    ^^^^^^^^^^^^^^^^^
                    self.gpu.copy_(self.buf, non_blocking=True)
                    return self.gpu
            """,
            message_contains="in the next call",
        ),
        # an event recorded but only the stream waits on it: the host does not
        Invalid(
            """
            import torch
            def f(xs, dev):
                buf = torch.empty(8, pin_memory=True)
                done = torch.cuda.Event()
                out = []
                for x in xs:
                    buf.copy_(x)
                    ^^^^^^^^^^^^
                    out.append(buf.cuda(non_blocking=True))
                    done.record()
                    torch.cuda.current_stream().wait_event(done)
                return out
            """,
        ),
        # a view bound to a name, written after the copy
        Invalid(
            """
            import torch
            def f(x, dev):
                buf = torch.empty(64, pin_memory=True)
                head = buf[:8]
                g = buf.to(dev, non_blocking=True)
                head.copy_(x)
                ^^^^^^^^^^^^^
                return g
            """,
        ),
        # the loop calls code that might wait: reported with medium confidence
        Invalid(
            """
            import torch
            def f(xs, dev):
                buf = torch.empty(8, pin_memory=True)
                for x in xs:
                    buf.copy_(x)
                    ^^^^^^^^^^^^
                    train_step(buf.to(dev, non_blocking=True))
            """,
            message_contains="unless `train_step()` waits",
        ),
    )

    def _races(self, frame: Frame) -> dict[cst.CSTNode, _Race]:
        def build() -> dict[cst.CSTNode, _Race]:
            provenance = Provenance.of(self.context)
            scan = scan_function(frame, self.context.imports)
            races: dict[cst.CSTNode, _Race] = {}
            for call in scan.calls:
                if non_blocking_h2d_source(provenance, call, frame) is None:
                    continue
                found = pending_reuses(provenance, frame, scan, call)
                if found is None:
                    continue
                source, reuses_ = found
                code = self.context.module.code_for_node(source)
                for reuse in reuses_:
                    races.setdefault(reuse.write.node, _Race(reuse, call, code))
            return races

        return self.context.shared(_RACES, build, frame.function)

    def _check(self, node: cst.CSTNode) -> None:
        provenance = Provenance.of(self.context)
        frame = provenance.current_frame()
        race = self._races(frame).get(node)
        if race is None:
            return
        reuse = race.reuse
        line = self.context.position(race.copy).start.line
        shown = race.buffer if len(race.buffer) <= 40 and "\n" not in race.buffer else "it"
        through = ""
        if reuse.write.root != shown and not shown.startswith(reuse.write.root):
            through = f" (through `{reuse.write.root}`)"
        when = {
            LATER: "after the copy",
            NEXT_ITERATION: "in the next iteration of the loop",
            NEXT_CALL: "in the next call",
        }[reuse.when]
        message = (
            f"host write to pinned memory{through} that the non-blocking copy from `{shown}` at "
            f"line {line} may still be reading: it runs {when} with no event wait or sync "
            "between, so the device may receive this write's data; record an event after the "
            "copy and `event.synchronize()` before writing, or alternate two buffers"
        )
        confidence = Confidence.HIGH
        if reuse.unless is not None:
            confidence = Confidence.MEDIUM
            unless = reuse.unless if reuse.unless == "the caller" else f"`{reuse.unless}`"
            if reuse.when == NEXT_CALL:
                function = frame.function
                hot = (
                    HotPaths.of(self.context).why_hot(function)
                    if isinstance(function, cst.FunctionDef)
                    else None
                )
                runs = f" ({hot})" if hot else ""
                message += f"; certain unless {unless} waits for the device between two calls{runs}"
            else:
                message += f"; certain unless {unless} waits for the device"
        self.report(node, message, confidence=confidence)

    def visit_Call(self, node: cst.Call) -> None:
        self._check(node)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._check(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._check(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._check(node.target)
