from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from h2dlint.analysis.arguments import first_positional, positional
from h2dlint.analysis.copies import (
    fresh_gathers,
    fresh_joins,
    h2d_copy_source,
    implies_host,
    non_blocking_h2d_source,
)
from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.joining_helpers import JoiningHelper, JoiningHelpers
from h2dlint.analysis.once import RunOnce
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.targets import device_named
from h2dlint.analysis.torch_api import JOINS
from h2dlint.candidate_terms import called_as
from h2dlint.diagnostics import FixSafety
from h2dlint.fix_format import bind_before, replace_fitted
from h2dlint.rule import Invalid, Replacement, Rule, Valid

if TYPE_CHECKING:
    from h2dlint.context import FileContext

# The joins the fix rewrites, and the shape of the pinned ``out`` buffer each needs along dim 0.
FIXABLE = {
    "torch.cat": "cat",
    "torch.concat": "cat",
    "torch.concatenate": "cat",
    "torch.stack": "stack",
}


class ConcatThenCopy(Rule):
    """## What it does
    Flags `torch.cat`/`concat`/`concatenate`/`stack` (and the `hstack`/`vstack` family) whose
    fresh result is then copied to a device (`.to(device)`, `.cuda()`, `dst.copy_(...)`, blocking
    or not) or pinned (`.pin_memory()`), directly or through a local name bound to the join, when
    the joined tensors are on the host: `torch.cat(pos_ids).to(device, non_blocking=True)`.
    A gather of rows of host memory is such a join too: `x.index_select(0, idx)` (or
    `torch.index_select(x, ...)`) copied to a device, where `x` is proven on the host (a
    pinned cache, as `self.caches` made of `torch.empty(..., pin_memory=True)` in `__init__`
    and iterated in a loop); the gather writes a fresh pageable tensor, so the table's pinning
    is lost. A table of unknown placement (an embedding's weight) is left alone.
    The join may be written in a helper of the project (of the module, imported from another,
    a method of `self` or of an object held on `self`) whose every `return` is such a fresh
    join: `collate(xs).to(dev, non_blocking=True)`, `batch = self._rows(items)` then
    `batch.cuda()`; the call is reported, naming the helper, by the same policy as below.

    The inputs are taken to be on the host when the analysis proves one of them is (the tensors
    of one join share a device: `torch.tensor(...)`, `torch.from_numpy(...)`, `x.cpu()`, also
    through a list built with `.append`), or when the copy says so: only host tensors can be
    pinned, and `non_blocking=True` to a device is written for host sources. A join of tensors
    of unknown placement moved with a plain `.to(x.device)` is left alone: in model code those
    are activations already on a device. Also not flagged: joins with `out=`, joins of device
    tensors, results used on the host only, copies to the CPU (also to the device of a batch
    entry, `.to(batch["input_ids"].device)`, in code named for collation: a `collate_fn.py`, a
    `*_collate_fn`, whose batch a processor made on the host), and code that runs once
    (an initializer, a `setup`, a method that memoises what it builds on `self`, a table built
    on a cache miss): the extra host copy is paid once, not per step.

    Confidence: always HIGH. The joined tensors are proven on the host, or the copy itself says
    so (pinning, `non_blocking=True` to a device); a join of unknown placement is left alone.
    Hot paths: the rule does not require one, but code that runs once is exempt (see above).

    ## Why is this bad?
    The join writes a new pageable tensor, and a copy from pageable memory is staged by the driver
    through a pinned bounce buffer: `non_blocking=True` stops meaning anything, and from a few MiB
    up the host waits for the stream. Pinning the result afterwards (`.pin_memory()`) is a second
    full copy. Measured on an H200 (torch 2.11), host ms until the copy is done when idle / host ms
    the call takes behind a 20 ms kernel, for `cat(parts).to(dev, non_blocking=True)` against
    `cat(parts, out=torch.empty(n, pin_memory=True)).to(dev, non_blocking=True)`:

    | size | flagged | `out=` pinned per call | reused pinned buffer |
    | --- | --- | --- | --- |
    | 64 KiB | 0.046 / 0.241 | 0.035 / 0.265 | 0.030 / 0.214 |
    | 1 MiB | 0.181 / 0.585 | 0.177 / 0.455 | 0.158 / 0.441 |
    | 4 MiB | 0.858 / **20.402** | 0.407 / 1.087 | 0.356 / 1.294 |
    | 16 MiB | 2.477 / **22.461** | 0.862 / 0.943 | 0.785 / 0.968 |
    | 64 MiB | 22.617 / **38.158** | 2.835 / 2.825 | 2.775 / 3.168 |

    From 4 MiB the flagged copy blocks the host behind the busy stream although it says
    `non_blocking=True`. Pinning the fresh result instead costs more than it saves
    (`cat(xs).pin_memory().to(dev, non_blocking=True)`: 2.0 ms against 0.6 ms for the flagged code
    at 1 MiB).

    ## Example
    ```python
    positions = torch.cat(pos_ids).to(device, non_blocking=True)
    ```

    ## Use instead
    Concatenate straight into pinned memory with `out=`. Allocating the buffer per call is as fast
    as reusing one (PyTorch's caching host allocator hands back pinned blocks, and does not reuse
    a block until the copies out of it have finished), and never meaningfully slower than the
    flagged code:
    ```python
    pos_ids_pinned = torch.empty(
        (sum(t.shape[0] for t in pos_ids), *pos_ids[0].shape[1:]),
        dtype=pos_ids[0].dtype,
        pin_memory=True,
    )
    positions = torch.cat(pos_ids, out=pos_ids_pinned).to(device, non_blocking=True)
    ```
    For `torch.stack(xs)` the buffer is `torch.empty((len(xs), *xs[0].shape), ...)`.

    ## Fix safety
    The fix is unsafe. It rewrites a `dim=0` join of a named sequence, `torch.cat(xs)` (or
    `stack`), to `torch.cat(xs, out=xs_pinned)`, with the buffer bound on the line before the
    statement (`xs_pinned = torch.empty(..., dtype=xs[0].dtype, pin_memory=True)`, the form
    above, under a name no code of the module uses, wrapped to the project's line length), and
    drops a `.pin_memory()` that followed the join. Where a line before the statement would
    change what runs (the join is in a comprehension, a lambda, a conditional expression, after
    `and`/`or`, in a `while` condition, in a class body, or after another call in the same
    statement), the buffer is written inline instead:
    `torch.cat(xs, out=torch.empty(..., pin_memory=True))`, and the enclosing comprehension,
    conditional expression or call is split over lines the way Ruff and Black split it, so
    a formatter has nothing left to change. The fix is offered only where the
    copy already runs without blocking (`non_blocking=True`, or a `.pin_memory()`): from the
    pinned buffer a blocking copy would still block (HTD105 would report it), so there the
    message also says to copy with `non_blocking=True`. `torch.cat` only accepts a list or
    tuple, so reading `xs` again to size the buffer is harmless, but the result can still
    differ:

    - `pin_memory=True` needs CUDA (or another accelerator): on a CPU-only run the fixed code
      raises.
    - The buffer has the first tensor's dtype. When the inputs' dtypes differ, `torch.cat` promotes
      them; with `out=` it casts to the buffer's dtype instead (`int32` then `int64` inputs are
      truncated to `int32`), or raises where the cast is not allowed.
    - `out=` does not support autograd: when an input requires grad, the fixed code raises.
    - The inputs must be on the host (they are where the rule reports); device inputs raise.

    Joins along another dimension, of a display or an expression, the `hstack` family, and
    joins written in a helper (the buffer belongs in the helper, whose other callers may keep
    the result) are reported without a fix.
    """

    code = "HTD104"
    name = "concat-then-copy"
    message = (
        "a fresh pageable `torch.cat`/`stack` (or `index_select`) result is copied to the device "
        "or pinned"
    )
    fix_safety = FixSafety.UNSAFE
    fix_message = "concatenate into a pinned buffer with `out=`"
    prefilter = (
        b"cat(",
        b"stack(",
        b"concatenate(",
        b"index_select(",
        b".to(",
        b".cuda(",
        b".pin_memory(",
        b".copy_(",
    )
    candidates = (
        # A copy of a join, called as torch.cat or cat, or of a gather.
        f".to|.cuda|.pin_memory|.copy_ on {called_as(JOINS)}|.index_select",
        # A copy of what a helper returns (a join written in the helper): any copy in a def.
        "def .to|.cuda|.pin_memory|.copy_",
    )

    valid = (
        # Session 50 (fp101_50): the same entry's device in code named for collation (a
        # `*_collate_fn`, a `collate_fn.py`): the loader's batch, which a processor made on the
        # host, so the copy stays there (megatron-bridge's VLM collate functions). The twin,
        # a helper not named so, is in `invalid` (session 49's).
        Valid(
            """
            import torch
            def vl_collate_fn(examples, processor):
                batch = processor(examples)
                masks = [torch.ones(ids.shape[0]) for ids in batch["input_ids"]]
                batch["loss_mask"] = torch.stack(masks).to(
                    device=batch["input_ids"].device, dtype=torch.float32
                )
                return batch
            """
        ),
        # Session 33 (recall33): a helper of the project returns the list, its items made on
        # the device (`device=` of the patch they index): the join is on the device
        Valid(
            """
            import torch
            def positions_of(patches):
                positions = []
                for patch in patches:
                    positions.append(torch.arange(patch.shape[-1], device=patch.device))
                return positions
            class Encoder(torch.nn.Module):
                def forward(self, patches):
                    return torch.cat(positions_of(patches)).to(patches[0].device)
            """
        ),
        # Session 25 (join25): helpers that join into `out=`, pin or move their join, join
        # device tensors, or return something else on one path; a caller that runs once; and a
        # helper's join of unknown tensors moved with a plain `.to(x.device)`.
        Valid(
            """
            import torch
            def into(xs, out):
                return torch.cat(xs, out=out)
            def moved(xs, dev):
                return torch.cat(xs).to(dev)
            def on_device(n):
                return torch.stack([torch.zeros(n, device="cuda") for _ in range(4)])
            def maybe(xs):
                if len(xs) == 1:
                    return xs[0]
                return torch.cat(xs)
            def f(xs, buf, dev):
                a = into(xs, buf).to(dev, non_blocking=True)
                b = moved(xs, dev).to(dev, non_blocking=True)
                c = on_device(4).to(dev, non_blocking=True)
                d = maybe(xs).to(dev, non_blocking=True)
                e = maybe(xs).to(xs[0].device)
                return a, b, c, d, e
            class Runner:
                def __init__(self, xs, dev):
                    self.table = maybe(xs).to(dev, non_blocking=True)
            """
        ),
        Valid(
            """
            import torch
            def f(xs, buf, dev):
                return torch.cat(xs, out=buf).to(dev, non_blocking=True)
            """
        ),
        Valid(
            """
            import torch
            def f(n, dev):
                xs = [torch.ones(n, device=dev), torch.zeros(n, device=dev)]
                return torch.cat(xs).to(dev, non_blocking=True)
            """
        ),
        Valid(
            """
            import torch
            def f(xs, dev):
                parts = [x.cuda() for x in xs]
                return torch.cat(parts).to(dev, non_blocking=True)
            """
        ),
        # rows of tensors whose placement is unknown (in model code, activations already on
        # the device), sliced and joined: the copy is a no-op
        Valid(
            """
            import torch
            def position_ids_1d(position_ids, seq_length):
                rows = [ids[:n] for ids, n in zip(position_ids, seq_length)]
                return torch.cat(rows).to(position_ids.device)
            """
        ),
        Valid(
            """
            import torch
            def f(n):
                parts = [torch.arange(n).cuda() for _ in range(4)]
                return torch.stack(parts).cuda()
            """
        ),
        Valid(
            """
            import torch
            def f(rows):
                ids = torch.cat([torch.tensor(r) for r in rows])
                return ids.numpy()
            """
        ),
        Valid(
            """
            import torch
            def f(rows):
                ids = torch.cat([torch.tensor(r) for r in rows])
                return ids.to('cpu', non_blocking=True)
            """
        ),
        Valid(
            """
            import torch
            def f(rows):
                ids = torch.cat([torch.tensor(r) for r in rows])
                return ids.to(torch.int32)
            """
        ),
        Valid(
            """
            import torch
            def f(rows, dev):
                ids = torch.cat([torch.tensor(r) for r in rows])
                ids = ids + 1
                return ids.to(dev)
            """
        ),
        Valid(
            """
            def cat(xs): ...
            def f(xs, dev):
                return cat(xs).to(dev, non_blocking=True)
            """
        ),
        # Model code: joined activations already on a device, moved between devices.
        Valid(
            """
            import torch
            def f(image_embeds, inputs_embeds):
                return torch.cat(image_embeds, dim=0).to(inputs_embeds.device)
            """
        ),
        Valid(
            """
            import torch
            def f(xs, host_buf):
                host_buf.copy_(torch.cat(xs), non_blocking=True)
            """
        ),
        # A stack of views of unknown tensors copied into an unknown destination without
        # blocking: a KV connector's device-to-host gather into a pinned host object as well.
        Valid(
            """
            import torch
            def from_gpu(memory_obj, views, slots):
                keys = torch.stack([k.index_select(0, slots) for k, _ in views])
                values = torch.stack([v.index_select(0, slots) for _, v in views])
                memory_obj.tensor.copy_(torch.stack((keys, values)), non_blocking=True)
            """
        ),
        # Padding device tensors: the inner join's inputs are unknown, so is the outer's.
        Valid(
            """
            import torch
            def f(hidden, n, device):
                embeds = torch.stack(
                    [torch.cat([u, u.new_zeros(n - u.size(0), u.size(1))]) for u in hidden]
                )
                return embeds.to(device)
            """
        ),
        # A helper's result, a join of unknown tensors: unknown.
        Valid(
            """
            import torch
            def mask(x):
                return torch.zeros_like(torch.cat([x[:1], x]), dtype=torch.bool)
            def f(features, ids):
                m = torch.cat([mask(x) for x in features])
                return m.to(ids.device)
            """
        ),
        # A gather of a table of unknown placement (an embedding's weight, in model code on the
        # device), of a device table, or into a pinned buffer with `out=`: left alone.
        Valid(
            """
            import torch
            def f(weight, idx, dev):
                return weight.index_select(0, idx).to(dev)
            """
        ),
        Valid(
            """
            import torch
            class Cache:
                def __init__(self, n):
                    self.blocks = [torch.empty(n, 16, device="cuda") for _ in range(4)]
                def gather(self, ids, dev):
                    return [b.index_select(0, ids).to(dev) for b in self.blocks]
            """
        ),
        Valid(
            """
            import torch
            def f(table, idx, staging, dev):
                host = torch.from_numpy(table)
                rows = torch.index_select(host, 0, idx, out=staging[: len(idx)])
                return rows.to(dev, non_blocking=True)
            """
        ),
        # The fix: contiguous runs of the pinned cache copied into device staging, gathered
        # there; and a gather of host rows kept on the host.
        Valid(
            """
            import torch
            class Offloader:
                def __init__(self, n):
                    self.host_blocks = [torch.empty(n, 16, pin_memory=True) for _ in range(4)]
                def restore(self, runs, staging, ids):
                    for host in self.host_blocks:
                        for start, offset, length in runs:
                            staging[offset : offset + length].copy_(
                                host[start : start + length], non_blocking=True
                            )
                def peek(self, ids):
                    return [h.index_select(0, ids).numpy() for h in self.host_blocks]
            """
        ),
        # Run-once code: a plan built in `__init__` (made on a cache miss), a table an
        # `initialize_*` method builds, a getter that memoises its result on `self`.
        Valid(
            """
            import torch
            class Plan:
                def __init__(self, q_lens, device):
                    zero = torch.zeros(1, dtype=torch.long)
                    self.cu_q = torch.cat([zero, torch.tensor(q_lens).cumsum(0)]).to(device)
            class Trainer:
                def initialize_training_pipeline(self, scheduler):
                    steps = torch.cat((scheduler.timesteps.cpu(), torch.tensor([0.0]))).cuda()
                    self.steps = steps
                def _denoising_steps(self, device):
                    if self._steps is not None and self._steps.device == device:
                        return self._steps
                    table = torch.cat((self.timesteps.to("cpu"), torch.tensor([0.0]))).to(device)
                    self._steps = table
                    return table
            """
        ),
        # A table grown on demand: rebuilt only when a longer sequence comes (the relative
        # positional encodings of speech encoders), kept on `self` or passed back to it.
        Valid(
            """
            import torch
            class RelPositionalEncoding(torch.nn.Module):
                def extend_pe(self, x, pe=None):
                    if pe is not None:
                        if pe.size(1) >= x.size(1) * 2 - 1:
                            return pe
                    pe = torch.cat([torch.zeros(1, x.size(1), 8), torch.zeros(1, x.size(1), 8)], 1)
                    return pe.to(device=x.device, dtype=x.dtype)
                def forward(self, x):
                    self.pe = self.extend_pe(x, self.pe)
                    return self.pe
            class Cached(torch.nn.Module):
                def extend_pe(self, x):
                    if self.pe is not None:
                        if self.pe.size(1) >= x.size(1):
                            return
                    self.pe = torch.cat([torch.zeros(x.size(1)), torch.ones(1)]).to(x.device)
            """
        ),
        # Session 34 (triage34, VoxCPM 2.0.3's `_make_ref_prefix`): every call of the helper
        # passes `tokens.device` of a `LongTensor` of token ids, the host's: `.to(device)` moves
        # nothing (INVALID twin below: the tokens are the caller's, their device unknown).
        Valid(
            """
            import torch
            from torch import nn
            class Speaker(nn.Module):
                def _starts(self, n: int, device: torch.device):
                    return torch.cat([torch.tensor([1]), torch.zeros(n)]).to(device)
                def forward(self, ids: list[int], n: int):
                    tokens = torch.LongTensor(ids)
                    return tokens, self._starts(n, tokens.device)
            """
        ),
        # Session 49 (triage49a): Megatron-Bridge's collate functions move the stacked loss
        # masks to `batch["input_ids"].device`, the device of the processor's host tensors: a
        # dtype cast on the host, no copy to a device.
        Valid(
            """
            import torch
            def collate_fn(examples, processor):
                batch = processor(text=[e["text"] for e in examples], return_tensors="pt")
                masks = [torch.ones(ids.shape[0]) for ids in batch["input_ids"]]
                batch["loss_mask"] = torch.stack(masks).to(
                    device=batch["input_ids"].device, dtype=torch.float32
                )
                return batch
            """
        ),
    )
    invalid = (
        # Session 49 (triage49a): the look-alike: the device of a batch entry whose place is
        # not known (a parameter's) is taken to be a device, as a name's is.
        Invalid(
            """
            import torch
            def add_loss_mask(batch):
                masks = [torch.ones(ids.shape[0]) for ids in batch["input_ids"]]
                batch["loss_mask"] = torch.stack(masks).to(
                                     ^^^^^^^^^^^^^^^^^^
                    device=batch["input_ids"].device, dtype=torch.float32
                )
                return batch
            """
        ),
        # Session 34 (triage34): the twin of VoxCPM's host prefix above, the tokens a tensor
        # parameter: the helper's `device` is what its name says.
        Invalid(
            """
            import torch
            from torch import nn
            class Speaker(nn.Module):
                def _starts(self, n: int, device: torch.device):
                    return torch.cat([torch.tensor([1]), torch.zeros(n)]).to(device)
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                def forward(self, tokens: torch.Tensor, n: int):
                    return tokens, self._starts(n, tokens.device)
            """
        ),
        # Session 33 (recall33): the list a helper of the project returns, its items host
        # aranges appended per image, joined and copied every forward
        Invalid(
            """
            import torch
            def positions_of(patches):
                positions = []
                for patch in patches:
                    positions.append(torch.arange(patch.shape[-1]))
                return positions
            class Encoder(torch.nn.Module):
                def forward(self, patches, device):
                    positions = positions_of(patches)
                    return torch.cat(positions).to(device)
                           ^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # Session 25 (join25): the join is in a helper (of the module, a method of `self` or of
        # an object held on `self`, or imported), the copy at its call: reported at the call.
        Invalid(
            """
            import torch
            def collate(xs):
                return torch.cat([x.flatten(0, 1) for x in xs])
            def f(xs, dev):
                return collate(xs).to(dev, non_blocking=True)
                       ^^^^^^^^^^^
            """,
            message_contains="joined in `collate()`",
        ),
        Invalid(
            """
            import torch
            class Runner:
                def _rows(self, items):
                    rows = [torch.tensor(i) for i in items]
                    return torch.stack(rows)
                def step(self, items):
                    batch = self._rows(items)
                            ^^^^^^^^^^^^^^^^^
                    return batch.cuda()
            """,
        ),
        # A value made when the caller does not pass one is no cache: made on every such call.
        Invalid(
            """
            import torch
            class Positions(torch.nn.Module):
                def positions(self, x, pos=None):
                    if pos is not None:
                        return pos
                    return torch.cat([torch.arange(4), torch.arange(4)]).to(x.device)
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                def forward(self, x):
                    return self.positions(x)
            """,
        ),
        Invalid(
            """
            import torch
            def f(pos_ids, device):
                return torch.cat(pos_ids).to(device, non_blocking=True)
                #      ^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def f(pos_ids, device):
                pos_ids_pinned = torch.empty(
                    (sum(t.shape[0] for t in pos_ids), *pos_ids[0].shape[1:]),
                    dtype=pos_ids[0].dtype,
                    pin_memory=True,
                )
                return torch.cat(pos_ids, out=pos_ids_pinned).to(device, non_blocking=True)
            """,
            message_contains="`torch.cat(pos_ids)`",
        ),
        Invalid(
            """
            import torch as T
            def f(xs, dev):
                return T.stack(xs, 0).to(dev, non_blocking=True)
                #      ^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch as T
            def f(xs, dev):
                xs_pinned = T.empty((len(xs), *xs[0].shape), dtype=xs[0].dtype, pin_memory=True)
                return T.stack(xs, 0, out=xs_pinned).to(dev, non_blocking=True)
            """,
        ),
        Invalid(
            """
            import torch
            def f(rows):
                parts = [torch.tensor(r) for r in rows]
                return torch.cat(parts, dim=0).pin_memory()
                #      ^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def f(rows):
                parts = [torch.tensor(r) for r in rows]
                parts_pinned = torch.empty(
                    (sum(t.shape[0] for t in parts), *parts[0].shape[1:]),
                    dtype=parts[0].dtype,
                    pin_memory=True,
                )
                return torch.cat(parts, dim=0, out=parts_pinned)
            """,
            message_contains="pinned",
        ),
        Invalid(
            """
            import torch
            def f(rows, device):
                parts = []
                for r in rows:
                    parts.append(torch.tensor(r, dtype=torch.int64))
                x = torch.cat(parts)
                #   ^^^^^^^^^^^^^^^^
                x = x.to(device)
                return x
            """,
            message_contains="and copy it with `non_blocking=True`",
        ),
        Invalid(
            """
            import torch
            def f(t, gpu_buf):
                gpu_buf.copy_(torch.cat(t), non_blocking=True)
                #             ^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def f(t, gpu_buf):
                t_pinned = torch.empty(
                    (sum(x.shape[0] for x in t), *t[0].shape[1:]), dtype=t[0].dtype, pin_memory=True
                )
                gpu_buf.copy_(torch.cat(t, out=t_pinned), non_blocking=True)
            """,
        ),
        Invalid(
            """
            import torch
            def f(a, b):
                return torch.cat([a.cpu(), b.cpu()], dim=1).cuda()
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # Per-call code that looks like set-up: names alone (`build_*`) are not trusted, and
        # a getter that tests `self` but never keeps what it builds runs on every call.
        Invalid(
            """
            import torch
            class Sampler:
                def build_positions(self, rows, device):
                    return torch.cat([torch.tensor(r) for r in rows]).to(device)
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                def steps(self, device):
                    if self._steps is not None:
                        return self._steps
                    return torch.cat((self.timesteps.cpu(), torch.tensor([0.0]))).to(device)
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # a join of a join of host tensors
        Invalid(
            """
            import torch
            def f(a, b, c, dev):
                return torch.cat([torch.cat([a.cpu(), b]), c]).to(dev)
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            def f(xs):
                return torch.cat(
                #      ^^^^^^^^^^
                    xs,
                ).cuda(non_blocking=True)
             ...^
            """,
            expected_fix="""
            import torch
            def f(xs):
                xs_pinned = torch.empty(
                    (sum(t.shape[0] for t in xs), *xs[0].shape[1:]),
                    dtype=xs[0].dtype,
                    pin_memory=True,
                )
                return torch.cat(
                    xs,
                    out=xs_pinned,
                ).cuda(non_blocking=True)
            """,
        ),
        # A comment after the opening bracket stays once, on its line (found by the fuzzer).
        Invalid(
            """
            import torch
            def f(xs):
                return torch.cat(  # joined per step
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    xs,
                ).cuda(non_blocking=True)
             ...^
            """,
            expected_fix="""
            import torch
            def f(xs):
                xs_pinned = torch.empty(
                    (sum(t.shape[0] for t in xs), *xs[0].shape[1:]),
                    dtype=xs[0].dtype,
                    pin_memory=True,
                )
                return torch.cat(  # joined per step
                    xs,
                    out=xs_pinned,
                ).cuda(non_blocking=True)
            """,
        ),
        Invalid(
            """
            from torch import cat
            def f(xs, device):
                return cat(xs).to(device, non_blocking=True)
                #      ^^^^^^^
            """,
        ),
        # rows of host copies (`.cpu()`), sliced in a comprehension over zip() and joined:
        # a fresh pageable tensor copied back to the device
        Invalid(
            """
            import torch
            def position_ids_1d(position_ids, seq_length):
                device = position_ids.device
                rows = [ids[:n] for ids, n in zip(position_ids.cpu(), seq_length.cpu())]
                return torch.cat(rows).to(device)
                #      ^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            def f(rows, device):
                x = torch.vstack([torch.tensor(r) for r in rows])
                #   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return x.to(device)
            """,
        ),
        Invalid(
            """
            import torch
            def f(xs, device):
                return torch.concatenate(xs, axis=0).to(device=device, non_blocking=True)
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def f(xs, device):
                xs_pinned = torch.empty(
                    (sum(t.shape[0] for t in xs), *xs[0].shape[1:]),
                    dtype=xs[0].dtype,
                    pin_memory=True,
                )
                return torch.concatenate(
                    xs,
                    axis=0,
                    out=xs_pinned,
                ).to(device=device, non_blocking=True)
            """,
        ),
        # the helper's name is taken in the module: the next free one; a comment above the
        # statement stays above both lines
        Invalid(
            """
            import torch
            xs_pinned = None
            def f(xs, dev):
                # to the device
                return torch.stack(xs).to(dev, non_blocking=True)  # step
                #      ^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            xs_pinned = None
            def f(xs, dev):
                # to the device
                xs_pinned_2 = torch.empty(
                    (len(xs), *xs[0].shape), dtype=xs[0].dtype, pin_memory=True
                )
                return torch.stack(xs, out=xs_pinned_2).to(dev, non_blocking=True)  # step
            """,
        ),
        # `non_blocking=True` says the copy goes to a device, whatever the target is named
        Invalid(
            """
            import torch
            def f(xs, target):
                return torch.cat(xs).to(target, non_blocking=True)
                       ^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def f(xs, target):
                xs_pinned = torch.empty(
                    (sum(t.shape[0] for t in xs), *xs[0].shape[1:]),
                    dtype=xs[0].dtype,
                    pin_memory=True,
                )
                return torch.cat(xs, out=xs_pinned).to(target, non_blocking=True)
            """,
        ),
        # a comprehension cannot take a statement before it: the buffer stays inline, and the
        # comprehension is split the way a formatter splits it
        Invalid(
            """
            import torch
            def f(batches, dev):
                return [torch.stack(b).to(dev, non_blocking=True) for b in batches]
                        ^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def f(batches, dev):
                return [
                    torch.stack(
                        b, out=torch.empty((len(b), *b[0].shape), dtype=b[0].dtype, pin_memory=True)
                    ).to(dev, non_blocking=True)
                    for b in batches
                ]
            """,
        ),
        # nor does a conditional expression (`xs[0]` of an empty list would raise)
        Invalid(
            """
            import torch
            def f(xs, dev):
                return torch.stack(xs).to(dev, non_blocking=True) if xs else None
                       ^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def f(xs, dev):
                return (
                    torch.stack(
                        xs,
                        out=torch.empty(
                            (len(xs), *xs[0].shape), dtype=xs[0].dtype, pin_memory=True
                        ),
                    ).to(dev, non_blocking=True)
                    if xs
                    else None
                )
            """,
        ),
        # a generator given to a call: the call's brackets are split as the generator's
        Invalid(
            """
            import torch
            def f(batches, dev):
                return list(torch.stack(b).to(dev, non_blocking=True) for b in batches if b)
                            ^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def f(batches, dev):
                return list(
                    torch.stack(
                        b, out=torch.empty((len(b), *b[0].shape), dtype=b[0].dtype, pin_memory=True)
                    ).to(dev, non_blocking=True)
                    for b in batches
                    if b
                )
            """,
        ),
        # an argument of another call: that call's arguments go one a line
        Invalid(
            """
            import torch
            def f(xs, dev):
                return pack(torch.stack(xs).to(dev, non_blocking=True), xs[0].shape[0] + 1, 'tail')
                            ^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def f(xs, dev):
                xs_pinned = torch.empty((len(xs), *xs[0].shape), dtype=xs[0].dtype, pin_memory=True)
                return pack(
                    torch.stack(xs, out=xs_pinned).to(dev, non_blocking=True),
                    xs[0].shape[0] + 1,
                    'tail',
                )
            """,
        ),
        # A gather of rows of a pinned cache the class keeps, a list built in `__init__`,
        # iterated with the device views: a fresh pageable tensor copied per layer.
        Invalid(
            """
            import torch
            class Offloader:
                def __init__(self, views, n):
                    self.host_blocks = []
                    for v in views:
                        self.host_blocks.append(torch.empty(n, *v.shape[1:], pin_memory=True))
                    self.device_views = views
                def restore(self, ids):
                    for host, dev in zip(self.host_blocks, self.device_views):
                        rows = host.index_select(0, ids).to(dev.device)
                               ^^^^^^^^^^^^^^^^^^^^^^^^^
                        dev.index_copy_(0, ids.to(dev.device), rows)
            """,
            message_contains="gathers rows of host memory",
        ),
        Invalid(
            """
            import numpy as np
            import torch
            def f(table: np.ndarray, idx, dev):
                return torch.index_select(torch.from_numpy(table), 0, idx).cuda()
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # The list of pinned buffers a comprehension makes, joined: the loop item is pinned.
        Invalid(
            """
            import torch
            class Stager:
                def __init__(self, n):
                    self.parts = [torch.empty(n, pin_memory=True) for _ in range(4)]
                def send(self, dev):
                    return torch.cat(self.parts).to(dev, non_blocking=True)
                           ^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
    )

    def __init__(self, context: FileContext, settings: dict[str, Any]) -> None:
        super().__init__(context, settings)
        self._reported: set[int] = set()
        self._helpers: JoiningHelpers | None = None

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute):
            return
        method = func.attr.value
        if method not in ("to", "cuda", "pin_memory", "copy_"):
            return
        if method == "pin_memory" and node.args:
            return
        provenance = Provenance.of(self.context)
        frame = provenance.current_frame()
        source = (
            func.value
            if method == "pin_memory"
            # `non_blocking=True` says the copy goes to a device whatever its target is named
            else h2d_copy_source(provenance, node, frame)
            or non_blocking_h2d_source(provenance, node, frame)
        )
        if source is None:
            return
        joins = fresh_joins(provenance, source, frame)
        if not joins:
            self._helper_joins(provenance, node, source, method, frame)
        for join in joins:
            if id(join) in self._reported:
                continue
            seq = first_positional(join)
            if seq is None or provenance.where(join, frame) is Where.DEVICE:
                continue
            where = provenance.sequence_where(seq, frame)
            if where is Where.DEVICE:
                continue  # the inputs are on a device: the join is too
            if where is not Where.HOST and not (
                implies_host(node, method) and _into_device(provenance, node, method, frame)
            ):
                continue
            if RunOnce.of(self.context).code(self.context.ancestors):
                return  # setup, an initializer, a memoised table: the copy costs once
            self._reported.add(id(join))
            # A blocking copy would stay blocking from the pinned buffer (HTD105's finding):
            # the fix is offered where the copy already runs without blocking.
            fixable = implies_host(node, method)
            self._report(provenance, join, node if join is source else None, method, frame, fixable)
        for gather, table in fresh_gathers(provenance, source, frame):
            # A gather of rows of host memory (a pinned cache's blocks): only where the table
            # is proven on the host, whatever the copy says.
            if id(gather) in self._reported or not provenance.where(table, frame).on_host:
                continue
            if not _into_device(provenance, node, method, frame):
                continue
            self._reported.add(id(gather))
            self._report_gather(gather, method)

    def _helper_joins(
        self,
        provenance: Provenance,
        node: cst.Call,
        source: cst.BaseExpression,
        method: str,
        frame: Frame,
    ) -> None:
        """A copy of what a joining helper returns (:mod:`~h2dlint.analysis.joining_helpers`):
        reported at the helper's call, by the policy of a join in the same function (host
        inputs, or a copy that says host and goes to a device)."""
        if self._helpers is None:
            self._helpers = JoiningHelpers(provenance)
        for call, helper in self._helpers.called(source, frame):
            if id(call) in self._reported or provenance.where(call, frame) is Where.DEVICE:
                continue
            if not helper.host and not (
                implies_host(node, method) and _into_device(provenance, node, method, frame)
            ):
                continue
            if RunOnce.of(self.context).code(self.context.ancestors):
                return
            self._reported.add(id(call))
            self._report_helper(call, helper, method)

    # -- reporting and the fix --------------------------------------------------------------------

    def _report_helper(self, call: cst.Call, helper: JoiningHelper, method: str) -> None:
        shown = self.shown(call, "the call", limit=50)
        name = helper.function.name.value
        then = (
            "pinned with `.pin_memory()`, a second full copy"
            if method == "pin_memory"
            else "copied to the device through the driver's pinned bounce buffer"
        )
        self.report(
            call,
            f"{shown} returns a fresh pageable `torch.cat`/`stack` result, joined in "
            f"`{name}()` (`{helper.module}`), that is then {then}; have `{name}()` join "
            "straight into pinned memory with `out=` (a reused pinned buffer, or "
            "`torch.empty(..., pin_memory=True)`) and copy it with `non_blocking=True`",
        )

    def _report_gather(self, gather: cst.Call, method: str) -> None:
        shown = self.shown(gather, "the gather", limit=50)
        then = "pinned with `.pin_memory()`" if method == "pin_memory" else "copied to the device"
        self.report(
            gather,
            f"{shown} gathers rows of host memory into a fresh pageable tensor (pinned or not, "
            f"the table's pinning is lost) that is then {then}; gather into pinned memory "
            "(`torch.index_select(x, dim, idx, out=pinned)`) and copy it with "
            "`non_blocking=True`, or copy the contiguous runs of a pinned table and gather on "
            "the device",
        )

    def _report(
        self,
        provenance: Provenance,
        join: cst.Call,
        direct_copy: cst.Call | None,
        method: str,
        frame: Frame,
        fixable: bool = True,
    ) -> None:
        shown = self.shown(join, "the join", limit=50)
        if method == "pin_memory":
            what = "then pinned with `.pin_memory()`, a second full copy"
        else:
            what = (
                "then copied to the device through the driver's pinned bounce buffer (one more "
                "host copy; from a few MiB up the host waits for the stream even with "
                "`non_blocking=True`)"
            )
        replacements: list[Replacement] = []
        buffer = _pinned_buffer(provenance, join, frame) if fixable else None
        if buffer is not None:
            # ``.pin_memory()`` right after the join goes: the join writes pinned memory.
            old = direct_copy if method == "pin_memory" and direct_copy is not None else join
            xs, out = buffer
            bound = bind_before(
                self.context, old, f"{xs}_pinned", out, lambda name: _with_out(join, name)
            )
            fixed = _with_out(join, out)
            replacements.append(bound or replace_fitted(self.context, old, fixed))
        advice = "" if fixable else " and copy it with `non_blocking=True`"
        self.report(
            join,
            f"{shown} makes a fresh pageable tensor that is {what}; concatenate straight into "
            f"pinned memory with `out=`{advice}",
            replacements=replacements,
        )


def _into_device(provenance: Provenance, copy: cst.Call, method: str, frame: Frame) -> bool:
    """Whether a copy whose source is not proven host memory goes to a device: ``.to``,
    ``.cuda`` and ``.pin_memory`` say so themselves (the caller asked); ``dst.copy_(src,
    non_blocking=True)`` only where ``dst`` is device memory by its facts or its name. Into an
    unknown destination the copy may as well go the other way: a KV connector's ``from_gpu``
    copies a stack of device views into a pinned host buffer with ``non_blocking=True``."""
    if method != "copy_":
        return True
    func = copy.func
    assert isinstance(func, cst.Attribute)
    return provenance.where(func.value, frame) is Where.DEVICE or device_named(func.value)


def _is_zero(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Integer) and node.value == "0"


def _pinned_buffer(
    provenance: Provenance, join: cst.Call, frame: Frame
) -> tuple[str, cst.Call] | None:
    """The name of the joined sequence and the pinned ``out=`` buffer for ``join``, where the
    join is along dim 0 of a named sequence; None where the fix does not apply."""
    kind = FIXABLE.get(provenance.qualify(join.func) or "")
    func = join.func
    if kind is None or not isinstance(func, cst.Attribute):
        return None
    if provenance.qualify(func.value) != "torch":
        return None  # the fix needs torch.empty under the name the call used
    args = positional(join)
    if any(a.star for a in join.args) or not args or not isinstance(args[0].value, cst.Name):
        return None
    if len(args) > 2 or (len(args) == 2 and not _is_zero(args[1].value)):
        return None
    for arg in join.args:
        if arg.keyword is not None and not (
            arg.keyword.value in ("dim", "axis") and _is_zero(arg.value)
        ):
            return None
    bindings = provenance.bindings(frame)
    if bindings.of("sum") or bindings.of("len"):
        return None  # the builtins the buffer's size needs are shadowed
    xs = args[0].value.value
    torch_name = provenance.context.module.code_for_node(func.value)
    if kind == "cat":
        var = "x" if xs == "t" else "t"
        shape = f"(sum({var}.shape[0] for {var} in {xs}), *{xs}[0].shape[1:])"
    else:
        shape = f"(len({xs}), *{xs}[0].shape)"
    out = cst.parse_expression(f"{torch_name}.empty({shape}, dtype={xs}[0].dtype, pin_memory=True)")
    assert isinstance(out, cst.Call)
    return xs, out


def _with_out(join: cst.Call, out: cst.BaseExpression) -> cst.Call:
    """``join`` with the argument ``out=out`` added, in the layout of its arguments."""
    last = join.args[-1]
    new_arg = cst.Arg(
        value=out,
        keyword=cst.Name("out"),
        equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
        ),
    )
    if isinstance(last.comma, cst.Comma):
        # A trailing comma (one argument per line): the new argument goes on its own line too.
        new_arg = new_arg.with_changes(comma=last.comma)
        layout = join.whitespace_before_args
        if isinstance(layout, cst.ParenthesizedWhitespace):
            # The line break and indentation only: a comment after `(` stays where it is.
            layout = layout.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=())
        last = last.with_changes(comma=last.comma.with_changes(whitespace_after=layout))
    else:
        last = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return join.with_changes(args=[*join.args[:-1], last, new_arg])
