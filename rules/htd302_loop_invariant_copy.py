from __future__ import annotations

import libcst as cst

from h2dlint.analysis.carried_copies import carried_copy
from h2dlint.analysis.copies import device_copy_of
from h2dlint.analysis.host_copies import host_copy_of, quiet_loop
from h2dlint.analysis.loop_invariance import (
    Reads,
    enclosing_loops,
    every_iteration,
    loop_changes,
    result_kept,
)
from h2dlint.analysis.names import call_name
from h2dlint.analysis.once import RunOnce
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.stacked_copies import (
    comprehension_names,
    joined_comprehension,
    number_tuple,
)
from h2dlint.diagnostics import Confidence
from h2dlint.rule import Invalid, Rule, Valid


class LoopInvariantCopy(Rule):
    """## What it does
    Flags a copy to the device inside a `for` or `while` loop of a tensor that the loop does not
    change: `x.to(device)`, `x.cuda()`, `torch.tensor(data, device=...)` and
    `torch.as_tensor(data, device=...)` where the copied expression (and its target) depends on
    nothing the loop assigns: not the loop variable, no name the body rebinds (`=`, `+=`,
    `for`, `with ... as`, `:=`), no attribute or item the body writes (`self.x = ...`,
    `x[i] = ...`), nothing changed in place (`x.add_(...)`, `x.copy_(...)`, `out=x`,
    `xs.append(...)`, a method of the class that assigns the attribute), and no call but pure
    ones (torch factories and conversions, `len`, `int`, shape methods). The source must be
    host memory by the provenance analysis (a tensor made on the host, Python or numpy data): a
    move of a tensor already on the device copies nothing. The finding names the outermost loop
    the copy can leave.

    It also flags the other direction: a copy to the host (`x.cpu()`, `x.to("cpu")`) of a
    tensor the loop does not change, on the device (HIGH) or surely a tensor of unknown place
    (MEDIUM: a parameter annotated as a tensor, an element of a tensor method's result such as
    `q.coalesce().indices()[0]`), in a loop whose body runs no device work (no model call,
    backward pass, optimizer step or graph replay, which may change a device tensor in place
    unseen): a per-query `.cpu()` of the same query indices (sentence-transformers 5.5's
    sparse search).

    It also flags a history a loop grows where it lives and copies whole to the device on every
    iteration (`analysis/carried_copies.py`): `X.to(device)` in a loop whose body rebinds `X`
    by joining it with a value brought back from the device to `X` (`.to(X)`, `.to(X.device)`)
    or to the host (`.cpu()`): an autoregressive loop keeping its context on the host
    (chronos-forecasting 1.3's Chronos-Bolt). MEDIUM (certain if `X` is a host tensor), HIGH
    when the value is brought to the host (`torch.cat` then proves `X` a host tensor). A
    history grown on the device, or moved once before the loop, is left alone.

    Left alone, and why:

    - copies that depend on the loop variable or on anything the body changes (a name rebound,
      an attribute written, a buffer filled in place), and copies with calls that may return
      something else each time (`f(x).to(dev)`, random factories);
    - copies whose source the analysis does not prove on the host (it may already be on the
      device, where `.to(device)` is a no-op);
    - copies under a test of something the loop changes (`if i == 0:`), or on a path that
      leaves the loop (`return x.to(dev)`, a branch ending in `break`): they run once;
    - copies whose result is stored per iteration (`out.append(x.to(dev))`, `outs[i] = ...`)
      or changed in place later in the body: each iteration needs its own tensor;
    - copies in comprehensions (each element is its own tensor), unless the comprehension
      goes straight into a join (`torch.stack([torch.as_tensor(shape, device=d) for _ in
      range(n)])`, kornia 0.8's mosaic parameters): the join copies the elements into one new
      tensor, so one copy, expanded or repeated, is enough (the data must be host data or a
      parameter annotated as a tuple of numbers; MEDIUM for the latter); loops over at most 8
      literal items, and code that runs once (setup, initializers, tests);
    - host factories moved to the device (`torch.zeros(n).cuda()`): HTD301 flags those, and its
      fix removes the copy altogether.

    On the 12 pinned corpus packages: 7 findings, all read, all correct
    (docs/needless-copies.md).

    Confidence: HIGH for copies to the device (the source is proven host memory and the copy
    provably loop invariant) and for host copies of device tensors; MEDIUM for host copies of
    tensors of unknown place. Hot paths: the loop itself is the repetition, so the rule does
    not require a hot function; loops in code that runs once are left alone.

    ## Why is this bad?
    The copy is paid on every iteration although it copies the same bytes: a launch, a device
    allocation, and, from pageable memory, a blocking copy that waits for the stream to drain,
    which in a denoising or decoding loop stalls the host once per step. Measured on an H200
    (torch 2.11, `benchmarks/device/needless_copies.py`), a 50-step loop copying the same
    pageable tensor every step: 4 MiB took 23.5 ms of host time against 2.1 ms with the copy
    before the loop, 4 KiB 2.09 against 1.21 ms; 50 synchronizing copies against one. From
    pinned memory with `non_blocking=True` the host is free, but the GPU still spent 4.97 ms
    against 1.89 ms on the 4 MiB loop.

    ## Example
    ```python
    epsilon = torch.tensor(1e-5)
    for i in range(num_inputs):
        h = proj[i](x)
        scale = torch.sqrt(torch.maximum(h.pow(2).mean(), epsilon.to(x.device)))
    ```

    ## Use instead
    ```python
    epsilon = torch.tensor(1e-5, device=x.device)  # or clamp(min=1e-5): no tensor at all
    for i in range(num_inputs):
        h = proj[i](x)
        scale = torch.sqrt(torch.maximum(h.pow(2).mean(), epsilon))
    ```

    ## Fix safety
    No automatic fix: hoisting changes when the copy happens (before the loop, also when the
    loop runs zero times) and makes every iteration share one device tensor, which is only
    correct if nothing writes to it; naming the hoisted tensor is a choice for the author.
    """

    code = "HTD302"
    name = "loop-invariant-copy"
    message = "a tensor that the loop does not change is copied on every iteration"
    prefilter = (b".to(", b".cuda(", b"device=", b"device =", b".cpu(")
    candidates = (
        "loop .to|.cuda|.cpu",
        "loop .tensor|tensor|.as_tensor|as_tensor|.asarray|asarray(device=)",
    )

    valid = (
        # a comprehension whose copies are kept, or that copies each element's own data
        # (HTD101's per-item transfer), or that joins device tensors
        Valid(
            """
            import torch
            def f(shape: tuple[int, ...], rows: list[list[int]], xs, n, device):
                kept = [torch.as_tensor(shape, device=device) for _ in range(n)]
                per_row = torch.stack([torch.as_tensor(r, device=device) for r in rows])
                moved = torch.cat([x.to(device) for x in xs])
                once = torch.as_tensor(shape, device=device).expand(n, -1)
                return kept, per_row, moved, once
            """
        ),
        # to the device of a tensor the loop makes: it may differ per iteration
        Valid(
            """
            import torch
            def f(xs, proj):
                eps = torch.tensor(1e-5)
                for i in range(1, len(xs)):
                    h = proj[i](xs[i])
                    m = torch.maximum(h, eps.to(h.device))
            """
        ),
        # depends on the loop variable
        Valid(
            """
            import torch
            def f(xs, device):
                for x in xs:
                    y = torch.tensor(x).to(device)
            """
        ),
        # a name the body rebinds
        Valid(
            """
            import torch
            def f(n, device):
                mask = torch.zeros(4)
                for i in range(n):
                    m = mask.to(device)
                    mask = mask + 1
            """
        ),
        # a buffer filled in place per iteration
        Valid(
            """
            import torch
            def f(rows, device):
                buf = torch.empty(1024)
                for row in rows:
                    buf.copy_(row)
                    y = buf.to(device, non_blocking=True)
            """
        ),
        Valid(
            """
            import torch
            def f(rows, device):
                buf = torch.empty(8, 1024)
                for i, row in enumerate(rows):
                    buf[0] = row
                    y = buf.to(device)
            """
        ),
        # an attribute that a method called in the body assigns
        Valid(
            """
            import torch
            class Sampler:
                def _refresh(self):
                    self.table = torch.rand(8)
                def step(self, n, device):
                    for i in range(n):
                        self._refresh()
                        t = self.table.to(device)
            """
        ),
        # already on the device: `.to(device)` copies nothing
        Valid(
            """
            import torch
            def f(n, device):
                cond = torch.zeros(4, device='cuda')
                for i in range(n):
                    c = cond.to(device)
            """
        ),
        # source of unknown placement
        Valid(
            """
            def f(cond, n, device):
                for i in range(n):
                    c = cond.to(device)
            """
        ),
        # runs once: under a test of the loop variable, or on the way out of the loop
        Valid(
            """
            import torch
            def f(n, device):
                eps = torch.tensor(1e-5)
                for i in range(n):
                    if i == 0:
                        e = eps.to(device)
            """
        ),
        Valid(
            """
            import torch
            def f(xs, device):
                eps = torch.tensor(1e-5)
                for x in xs:
                    if x is None:
                        return eps.to(device)
            """
        ),
        # a flag the loop changes: maybe once
        Valid(
            """
            import torch
            def f(xs, device):
                eps = torch.tensor(1e-5)
                first = True
                for x in xs:
                    if first:
                        e = eps.to(device)
                        first = False
            """
        ),
        # one tensor per iteration, kept
        Valid(
            """
            import torch
            def f(n, device):
                init = torch.zeros(4)
                states = []
                for i in range(n):
                    states.append(init.to(device))
            """
        ),
        # changed in place after the copy: each iteration needs a fresh one
        Valid(
            """
            import torch
            def f(n, device):
                init = torch.zeros(4)
                for i in range(n):
                    acc = init.to(device)
                    acc.add_(i)
            """
        ),
        # a fresh buffer per iteration, which a function may write (an overflow flag)
        Valid(
            """
            import torch
            def f(groups, apply):
                for params in groups:
                    flag = torch.tensor([0], dtype=torch.int, device='cuda')
                    apply(params, flag)
            """
        ),
        # an empty tensor: no bytes to copy
        Valid(
            """
            import torch
            def f(rows, device):
                for row in rows:
                    picked = row if len(row) else torch.tensor([], device=device)
            """
        ),
        # a call that may return something else each time, a random draw
        Valid(
            """
            import torch
            def f(n, device, sample):
                for i in range(n):
                    x = sample().to(device)
            """
        ),
        Valid(
            """
            import torch
            def f(n, device):
                for i in range(n):
                    noise = torch.randn(4).to(device)
            """
        ),
        # a host factory: HTD301's finding
        Valid(
            """
            import torch
            def f(n, k, device):
                for i in range(n):
                    m = torch.ones(k).to(device)
            """
        ),
        # a comprehension, a tiny literal loop, setup code
        Valid(
            """
            import torch
            def f(n, device):
                eps = torch.tensor(1e-5)
                return [eps.to(device) for _ in range(n)]
            """
        ),
        Valid(
            """
            import torch
            def f(device):
                eps = torch.tensor(1e-5)
                for i in range(2):
                    e = eps.to(device)
            """
        ),
        Valid(
            """
            import torch
            class M:
                def __init__(self, n, device):
                    eps = torch.tensor(1e-5)
                    for i in range(n):
                        e = eps.to(device)
            """
        ),
        # a copy to a device that depends on the loop
        Valid(
            """
            import torch
            def scatter(devices):
                table = torch.arange(8)
                for d in devices:
                    t = table.to(d)
            """
        ),
        # Session 19: a device tensor copied to the host in a loop whose device work may change
        # it in place (the optimizer step updates the parameter `w` holds); the fix of the
        # sparse search below (one copy before the loop); a copy of the row the loop selects.
        Valid(
            """
            import torch
            def train(model, opt, loader, device):
                w = model.weight
                for batch in loader:
                    model(batch.to(device)).sum().backward()
                    opt.step()
                    snapshot = w.cpu()
            def search(query_embeddings: torch.Tensor, client):
                query_indices = query_embeddings.coalesce().indices().cpu().numpy()
                for q_idx in range(query_embeddings.size(0)):
                    mask = query_indices[0] == q_idx
                    client.query(query_indices[1][mask].tolist())
                    client.query(query_embeddings.coalesce().indices()[q_idx].cpu())
            """
        ),
        # Session 29 (peritem29): a history grown on the device (nothing brought back from
        # it), or moved once before the loop, is no carried copy.
        Valid(
            """
            import torch
            def generate(model, ids, n, device):
                for _ in range(n):
                    logits = model(ids.to(device))
                    nxt = logits[:, -1].argmax(-1, keepdim=True)
                    ids = torch.cat([ids, nxt], dim=-1)
                return ids
            def forecast(model, context, n):
                context = context.to(model.device)
                for _ in range(n):
                    pred = model(context.to(dtype=torch.float32)).to(context)
                    context = torch.cat([context, pred[:, 4]], dim=-1)
                return context
            """
        ),
    )
    invalid = (
        Invalid(
            """
            import torch
            def f(xs, proj):
                target = xs[0].pow(2).mean()
                eps = torch.tensor(1e-5)
                for i in range(1, len(xs)):
                    h = proj[i](xs[i])
                    m = torch.maximum(h, eps.to(target.device))
                    #                    ^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            def f(xs, proj, out):
                eps = torch.tensor(1e-5)
                target = out.device
                for i in range(1, len(xs)):
                    h = proj[i](xs[i])
                    m = torch.maximum(h, eps.to(target))
                    #                    ^^^^^^^^^^^^^^
            """,
            message_contains="line 5",
        ),
        # the copy of a mask made before a denoising loop
        Invalid(
            """
            import torch
            def denoise(unet, latents, timesteps, mask_list, device):
                mask = torch.tensor(mask_list)
                for t in timesteps:
                    latents = unet(latents, t, mask.to(device))
                    #                          ^^^^^^^^^^^^^^^
                return latents
            """,
        ),
        # Python data converted on the device in every iteration
        Invalid(
            """
            import torch
            def decode(model, tokens, steps, bad_words, device):
                banned = list(bad_words)
                while steps > 0:
                    logits = model(tokens)
                    logits[:, torch.tensor(banned, device=device)] = -1e9
                    #         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    steps -= 1
            """,
        ),
        # a pinned staging of constants inside a loop over a batch's fields, behind a filter
        Invalid(
            """
            import torch
            def f(batch, r, s):
                for key, val in batch.items():
                    if val is None:
                        continue
                    i = torch.tensor([r, 2 * s - r - 1], pin_memory=True).cuda(non_blocking=True)
                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    batch[key] = val.index_select(1, i)
            """,
        ),
        # nested loops: it can leave both; the message names the outer one
        Invalid(
            """
            import torch
            def f(model, xs, n, device):
                scale = torch.tensor([0.5, 2.0])
                for epoch in range(n):
                    for x in xs:
                        model(x, scale.cuda())
                        #        ^^^^^^^^^^^^
            """,
            message_contains="line 4",
        ),
        # depends on the outer loop only: it can leave the inner one
        Invalid(
            """
            import torch
            def f(model, tables, xs, device):
                for table in tables:
                    host = torch.tensor(table)
                    for x in xs:
                        model(x, host.to(device))
                        #        ^^^^^^^^^^^^^^^
            """,
            message_contains="line 5",
        ),
        # a step method of a class: an attribute nothing in the loop writes
        Invalid(
            """
            import torch
            class Pipe:
                def __init__(self):
                    self.weights = torch.ones(8)
                def run(self, latents, steps, device):
                    for t in steps:
                        latents = self.unet(latents, t) * self.weights.to(device)
                        #                                 ^^^^^^^^^^^^^^^^^^^^^^^
                    return latents
            """,
        ),
        # a numpy array
        Invalid(
            """
            import numpy as np
            import torch
            def f(model, x, n, device):
                table = np.arange(16)
                for i in range(n):
                    x = model(x, torch.as_tensor(table, device=device))
                    #            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # Session 19 (sentence-transformers 5.5's sparse search): the same indices of a tensor
        # the loop never changes, copied to the host once per query.
        Invalid(
            """
            import torch
            def search(query_embeddings: torch.Tensor, client):
                for q_idx in range(query_embeddings.size(0)):
                    mask = query_embeddings.coalesce().indices()[0].cpu().numpy() == q_idx
                    #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    client.query_points(query=models.SparseVector(indices=mask))
            """,
            message_contains="copied to the host on every iteration",
        ),
        # Session 20 (kornia 0.8's mosaic parameters): the same shape copied once per batch
        # item, only for torch.stack to join the copies
        Invalid(
            """
            import torch
            def forward(shape: tuple[int, ...], b, device):
                return torch.stack([torch.as_tensor(shape[1:], device=device) for _ in range(b)])
                #                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="only for `stack` to join",
        ),
        Invalid(
            """
            import torch
            def f(n, device):
                table = torch.arange(4).tolist()
                return torch.cat([torch.tensor(table, device=device) for _ in range(n)])
                #                 ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # Session 29 (peritem29): a history the loop grows where it lives, bringing each
        # step's output back there (`.to(context)`), copied whole to the device every step
        # (chronos-forecasting 1.3's Chronos-Bolt): MEDIUM; HIGH where the output is brought
        # back to the host (`torch.cat` then proves the history a host tensor).
        Invalid(
            """
            import torch
            class Pipeline:
                def predict(self, context, remaining):
                    while remaining > 0:
                        prediction = self.model(
                            context=context.to(device=self.model.device, dtype=torch.float32),
                            #       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                        ).quantile_preds.to(context)
                        remaining -= prediction.shape[-1]
                        central = prediction[:, 4]
                        context = torch.cat([context, central], dim=-1)
                    return context
            """,
            message_contains="if it is a host tensor",
        ),
        Invalid(
            """
            import torch
            def generate(model, ids, n, device):
                for _ in range(n):
                    logits = model(ids.to(device))
                    #              ^^^^^^^^^^^^^^
                    nxt = logits[:, -1].argmax(-1, keepdim=True).cpu()
                    ids = torch.cat([ids, nxt], dim=-1)
                return ids
            """,
            message_contains="as a host tensor",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        name = call_name(node)
        if name not in ("to", "cuda", "tensor", "as_tensor", "asarray", "cpu"):
            return
        loops = enclosing_loops(self.context.ancestors)
        if not loops:
            self._joined(node, name)
            return
        provenance = Provenance.of(self.context)
        frame = provenance.current_frame()
        # A copy to the device of a host value, or to the host of a device (or surely tensor)
        # value: both repeat the same transfer on every iteration.
        to_host = host_copy_of(provenance, node, name, frame)
        copied = None if name == "cpu" else device_copy_of(provenance, node, name, frame)
        if to_host is not None:
            source, confidence, where = to_host[0], to_host[1], "host"
        elif copied is not None and copied[1]:
            source, confidence, where = copied[0], Confidence.HIGH, "device"
        else:
            if copied is not None:
                self._carried(node, loops)
            return
        if RunOnce.of(self.context).code(self.context.ancestors):
            return
        reads = Reads(provenance, frame)
        reads.scan(node)
        if not reads.pure:
            return
        statement = self.context.current_statement()
        left: cst.For | cst.While | None = None
        for loop, path in loops:
            summary = loop_changes(self.context, loop, provenance, frame)
            if reads.depends_on(summary) or not every_iteration(path, summary):
                break
            if result_kept(self.context.ancestors, node, statement, summary):
                break
            if where == "host" and not quiet_loop(provenance, loop, frame):
                break  # the loop's device work may change the tensor in place
            left = loop
        if left is None:
            return
        line = self.context.position(left).start.line
        shown = self.shown(source, "a host tensor" if where == "device" else "a tensor")
        self.report(
            node,
            f"{shown} does not change in the loop at line {line} but is copied to the {where} "
            "on every iteration: copy it once, before the loop",
            confidence=confidence,
        )

    def _carried(
        self, node: cst.Call, loops: list[tuple[cst.For | cst.While, list[cst.CSTNode]]]
    ) -> None:
        """A tensor the innermost loop grows where it lives, bringing each step's output back
        there, and copies whole to the device on every iteration (``carried_copies``)."""
        loop, path = loops[0]
        carried = carried_copy(node, loop)
        if carried is None:
            return
        copied, on_host = carried
        provenance = Provenance.of(self.context)
        summary = loop_changes(self.context, loop, provenance, provenance.current_frame())
        if not every_iteration(path, summary):
            return
        if RunOnce.of(self.context).code(self.context.ancestors):
            return
        line = self.context.position(loop).start.line
        shown = self.shown(copied, "the tensor")
        self.report(
            node,
            f"{shown} grows in the loop at line {line} with values brought back to it from the "
            "device, and is copied whole to the device on every iteration: "
            f"{'as a host tensor' if on_host else 'if it is a host tensor'}, each step copies "
            "the whole history again; move it to the device once, before the loop, and grow "
            "it there",
            confidence=Confidence.HIGH if on_host else Confidence.MEDIUM,
        )

    def _joined(self, node: cst.Call, name: str) -> None:
        """``torch.stack([torch.as_tensor(c, device=d) for _ in range(n)])``: the same host
        data copied once per element, only for the join to copy the elements together."""
        if name == "cpu":
            return
        provenance = Provenance.of(self.context)
        found = joined_comprehension(provenance, self.context.ancestors, node)
        if found is None:
            return
        comprehension, join = found
        frame = provenance.current_frame()
        copied = device_copy_of(provenance, node, name, frame)
        if copied is None or not (copied[1] or number_tuple(provenance, copied[0], frame)):
            return
        reads = Reads(provenance, frame)
        reads.scan(node)
        if not reads.pure or reads.names & comprehension_names(comprehension):
            return
        if RunOnce.of(self.context).code(self.context.ancestors):
            return
        shown = self.shown(copied[0], "a host tensor")
        self.report(
            node,
            f"{shown} is the same for every element of the comprehension but is copied to the "
            f"device once per element, only for `{join}` to join the copies: copy it once and "
            "`expand` or `repeat` it",
            confidence=Confidence.HIGH if copied[1] else Confidence.MEDIUM,
        )
