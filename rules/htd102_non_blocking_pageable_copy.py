from __future__ import annotations

import libcst as cst

from h2dlint.analysis.arguments import keyword
from h2dlint.analysis.copies import fresh_gathers, fresh_joins, non_blocking_h2d_source
from h2dlint.analysis.device_branches import else_of_pinning_move
from h2dlint.analysis.dropped_pins import dropped_pin
from h2dlint.analysis.factories import (
    RANDOM_FACTORIES,
    SHAPE_FACTORIES,
    empty_factory,
    factory_of,
)
from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.joining_helpers import JoiningHelpers
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.registered_pins import registered_view
from h2dlint.analysis.targets import Target
from h2dlint.analysis.tensor_kinds import tensor_evidence
from h2dlint.analysis.views import Layout, layout
from h2dlint.diagnostics import Confidence
from h2dlint.rule import Invalid, Rule, Valid

# Sizes-only factories: `torch.zeros(n).to(dev, non_blocking=True)` is HTD301's finding.
HOST_FACTORIES = SHAPE_FACTORIES | RANDOM_FACTORIES


class NonBlockingPageableCopy(Rule):
    """## What it does
    Flags a host-to-device copy with `non_blocking=True` (`x.to(device, non_blocking=True)`,
    `x.cuda(non_blocking=True)`, `dst.copy_(x, non_blocking=True)`) whose source `x` is a freshly
    made CPU tensor that is not pinned: the result of a torch factory or conversion
    (`torch.tensor`, `as_tensor` of Python data, `from_numpy`, `zeros`, `arange`, ...) without
    `pin_memory=True`, a tensor computed on the host from others (arithmetic, `clone()`,
    advanced indexing — even of a pinned buffer, whose result is a fresh pageable tensor; an
    index that is a parameter annotated as a tensor, `table[order]` of `order: torch.Tensor`,
    counts wherever it lives), or a
    name, `self` attribute or same-module helper whose value is provably one of those.
    `torch.cat`/`torch.stack` results (also returned by a project helper whose every `return`
    is one) are reported by HTD104 instead, with a fix, factories of
    sizes made on the host only to be moved (`torch.zeros(n).to(dev, non_blocking=True)`) by
    HTD301, with a fix, and strided
    views (`buf[:, :n]`) by HTD103; a join written into a buffer with `out=` is judged by its
    buffer, here. The copy goes to a device when its
    target says so (`"cuda"`, `torch.device("cuda", 0)`, a name such as `device`) and also when
    the target is a name the analysis cannot place (`x.to(d, non_blocking=True)`): asking for a
    non-blocking copy says it goes to a device, unless the target is proven host memory or a
    dtype. `non_blocking=` may also be a name that every binding sets to `True`: in the function,
    in a function around it (a worker loop's `non_blocking = True` read by its nested step), or
    at module level. A helper's parameter (`def to_device(x, device, non_blocking=False)`) is
    what every call of the helper in its module passes: the copy is reported in the helper when
    all calls pass `True` and a pageable tensor, and no other module calls a function of that
    name.

    It also flags a `.pin_memory()` whose result is thrown away (`state_dict[k].pin_memory()`
    as a statement of its own): `Tensor.pin_memory()` returns a pinned copy and leaves the
    tensor pageable, so the copy to the device it prepares for is staged by the driver after
    all, and the pinned allocation and copy were wasted. Left alone: `self.pin_memory()`, a
    call with `inplace=`, and any module that defines a `pin_memory` of its own (a custom batch
    whose method pins its fields in place, as PyTorch's data loader documents).

    Confidence: HIGH. The rule reports only a source that the analysis proves pageable,
    so no finding rests on a guess; a source it cannot place is left alone. It does not ask
    whether the code is hot: a pageable non-blocking copy blocks the host wherever it runs, so
    set-up code is reported too. A dropped `.pin_memory()` of a receiver not surely a tensor
    (`state_dict[k]`) is MEDIUM: an object of another module could pin in place.

    ## Why is this bad?
    CUDA can only copy asynchronously from page-locked (pinned) memory. From pageable memory the
    driver stages the data through a pinned bounce buffer, and `non_blocking=True` quietly stops
    meaning anything: the profiler records `Memcpy HtoD (Pageable -> Device)`, and from about
    4 MiB up the host blocks until the stream reaches the copy. Measured on an H200 (torch 2.11),
    a pageable "non-blocking" copy behind a 40 ms kernel held the host for 42.2 ms; the same copy
    from pinned memory returned in 0.1 ms. Pageable copies also run at 7.8 GB/s against 55 GB/s
    pinned. `torch.cuda.set_sync_debug_mode` does not report this case at all.

    ## Example
    ```python
    ids = torch.tensor(token_ids, dtype=torch.int64)
    ids_gpu = ids.to(device, non_blocking=True)
    ```

    ## Use instead
    Make the data in pinned memory from the start, or copy it into a pinned staging buffer
    allocated once and reused:
    ```python
    # allocated once (e.g. in __init__), sized for the largest batch
    self.ids_pinned = torch.empty(max_tokens, dtype=torch.int64, pin_memory=True)

    n = len(token_ids)
    staged = self.ids_pinned[:n]
    staged.copy_(torch.as_tensor(token_ids, dtype=torch.int64))
    ids_gpu = staged.to(device, non_blocking=True)
    ```
    Tensors computed on the host can be written straight into pinned memory with `out=`
    (`torch.arange(n, out=pinned[:n])`), and factories that allocate take
    `pin_memory=True` (`torch.empty(n, pin_memory=True)`: PyTorch's caching host allocator
    reuses pinned blocks, measured as fast as a reused buffer). Measured on an H200: 1 MiB
    through a reused pinned buffer was done in 0.36 ms against 0.59 ms for the flagged code;
    16 MiB in 0.79 ms against 2.48 ms, and the call took 0.97 ms against 22.5 ms behind a busy
    stream. Do not add `.pin_memory()` on every call of a hot path: pinning a fresh tensor
    copies it again and costs more than it saves (1 MiB: 2.0 ms against 0.6 ms for the
    flagged code). A reused buffer must not be overwritten before the
    copy out of it has finished: record a CUDA event after the copy and wait on it before
    the next write.

    ## Fix safety
    No automatic fix: where the pinned memory should come from (a buffer owned by an object, its
    size, when it may be reused) is a design decision, and a buffer reused too early corrupts
    the copy.
    """

    code = "HTD102"
    name = "non-blocking-pageable-copy"
    message = "`non_blocking=True` copy from pageable memory is not asynchronous"
    prefilter = (b"non_blocking", b"pin_memory")
    candidates = (".to|.cuda|.copy_(non_blocking=)", ".pin_memory")

    valid = (
        # Session 50 (triage50a): an empty tensor's copy moves no bytes (OLMo-core 3.0.0
        # `train/utils.py:291`).
        Valid(
            """
            import torch
            def reduce_metrics(values, device):
                return [
                    torch.stack(v) if v else torch.tensor([]).to(device=device, non_blocking=True)
                    for v in values
                ]
            """
        ),
        # Session 27 (misses27): a loader's batches are pageable only where workers collate
        # them and nothing pins them: pinned by the loader, made by the dataset in the main
        # process (`num_workers=0`: it may hand out device tensors), or collated by a function
        # that moves them, they are left alone; so is a parameter one of whose callers passes
        # a pinned loader
        Valid(
            """
            import torch
            from torch.utils.data import DataLoader
            def to_device(samples):
                return {"x": torch.stack([s["x"] for s in samples]).cuda()}
            def run(loader, device):
                for batch in loader:
                    batch["x"].to(device, non_blocking=True)
            def main(ds, device):
                for batch in DataLoader(ds, num_workers=4, pin_memory=True):
                    batch["x"].to(device, non_blocking=True)
                for batch in DataLoader(ds, num_workers=0):
                    batch["x"].to(device, non_blocking=True)
                for batch in DataLoader(ds, num_workers=4, collate_fn=to_device):
                    batch["x"].to(device, non_blocking=True)
                run(DataLoader(ds, num_workers=4), device)
                run(DataLoader(ds, num_workers=4, pin_memory=True), device)
            """
        ),
        # Session 25 (join25): a helper whose every return is a fresh join: HTD104's, at the call
        Valid(
            """
            import torch
            def rows(items):
                return torch.stack([torch.tensor(i) for i in items])
            def f(items, dev):
                return rows(items).cuda(non_blocking=True)
            """
        ),
        # the pinned copy kept (airllm 3.2's fix of its layer prefetcher)
        Valid(
            """
            import torch
            def load_layer(state_dict, prefetching):
                if prefetching and torch.cuda.is_available():
                    for k in state_dict.keys():
                        state_dict[k] = state_dict[k].pin_memory()
                return state_dict
            """
        ),
        # a module whose own `pin_memory` pins a custom batch's fields in place
        Valid(
            """
            class Batch:
                def __init__(self, inp):
                    self.inp = inp
                def pin_memory(self):
                    self.inp = self.inp.pin_memory()
                    return self
            def collate_and_pin(batch):
                batch.pin_memory()
                return batch
            """
        ),
        # a pinned copy passed on or returned, and an in-place request
        Valid(
            """
            import torch
            def stage(x, td):
                td.pin_memory(inplace=True)
                return x.pin_memory()
            """
        ),
        # a view of a raw host address (an engine's host pool, pinned by its allocator or not)
        Valid(
            """
            import ctypes
            import torch
            def _host_bytes(ptr, n):
                return torch.frombuffer((ctypes.c_uint8 * n).from_address(ptr), dtype=torch.uint8)
            def memcpy_h2d(dev_view, host_ptr, n):
                dev_view.copy_(_host_bytes(host_ptr, n), non_blocking=True)
            """
        ),
        # Session 41 (triage41): host memory page-locked in place by `cudaHostRegister` (shared
        # rollout storage registered in a loop, a host pool registered in `__init__`); the
        # registered tensors' slices are views of the same memory
        Valid(
            """
            import torch
            obs = torch.zeros((128, 8, 4))
            actions = torch.zeros((128, 8)).long()
            for x in [obs, actions]:
                x.share_memory_()
                torch.cuda.cudart().cudaHostRegister(x.data_ptr(), x.nbytes, 0)
            gpu_obs = obs.to("cuda", non_blocking=True)
            gpu_actions = actions[:64].to("cuda", non_blocking=True)
            class Pool:
                def __init__(self, n):
                    self.kv = torch.empty(n, 1024)
                    torch.cuda.cudart().cudaHostRegister(self.kv.data_ptr(), self.kv.nbytes, 0)
                def load(self, n, device):
                    return self.kv[:n].to(device, non_blocking=True)
            """
        ),
        # factories of sizes made on the host and moved to a device: HTD301's, with its fix
        Valid(
            """
            import torch
            def f(n, device):
                return torch.zeros(n).to(device, non_blocking=True)
            """
        ),
        Valid(
            """
            import torch as T
            def f(n, device):
                return T.arange(n).to(device, non_blocking=True)
            """
        ),
        Valid(
            """
            from torch import zeros
            def f(n):
                return zeros(n, 4).cuda(non_blocking=True)
            """
        ),
        Valid(
            """
            import torch
            x = torch.tensor([1, 2], pin_memory=True)
            y = x.to('cuda', non_blocking=True)
            """
        ),
        Valid(
            """
            import torch
            y = torch.tensor([1, 2]).pin_memory().to('cuda', non_blocking=True)
            """
        ),
        Valid(
            """
            import torch
            y = torch.tensor([1, 2]).to('cpu', non_blocking=True)
            """
        ),
        Valid(
            """
            import torch
            y = torch.tensor([1, 2]).to(device)
            """
        ),
        Valid(
            """
            import torch
            y = torch.tensor([1, 2]).to(torch.float16, non_blocking=True)
            """
        ),
        Valid(
            """
            import torch
            y = torch.zeros(4, device='cuda').to(dev, non_blocking=True)
            """
        ),
        # `non_blocking=` a parameter, or a name that is not always True: not known to be
        Valid(
            """
            import torch
            def move(ids, device, non_blocking=False):
                return torch.tensor(ids).to(device, non_blocking=non_blocking)
            def step(ids, device):
                non_blocking = device.type == "cuda"
                return torch.tensor(ids).to(device, non_blocking=non_blocking)
            def worker(ids, device, non_blocking=True):
                def step():
                    return torch.tensor(ids).to(device, non_blocking=non_blocking)
                return step
            def loop(ids, device, pinned):
                non_blocking = False
                if pinned:
                    non_blocking = True
                return torch.tensor(ids).to(device, non_blocking=non_blocking)
            """
        ),
        # a helper's parameters: a call passes a pinned or a device tensor, or `False`; the
        # helper is passed on as a callback (its calls are not seen); a call with `**kwargs`
        Valid(
            """
            import torch
            def to_device(x, device, non_blocking=False):
                return x.to(device, non_blocking=non_blocking)
            def step(ids, device, pinned):
                a = to_device(torch.tensor(ids), device, non_blocking=True)
                b = to_device(pinned.pin_memory(), device, non_blocking=True)
                return a, b
            def stage(x, device, flag):
                return x.to(device, non_blocking=flag)
            def first(ids, device):
                return stage(torch.tensor(ids), device, False)
            def second(ids, device):
                return stage(torch.tensor(ids), device, True)
            def move(x, device, non_blocking):
                return x.to(device, non_blocking=non_blocking)
            def third(batch, device):
                moved = move(torch.tensor(batch), device, True)
                return moved, list(map(move, batch))
            def put(x, device, non_blocking):
                return x.to(device, non_blocking=non_blocking)
            def fourth(ids, options):
                return put(torch.tensor(ids), **options)
            """
        ),
        # a module's `forward`: the framework calls it too (through `__call__`), with other
        # arguments than the one call the module shows
        Valid(
            """
            import torch
            import torch.nn as nn
            class Block(nn.Module):
                def forward(self, x, non_blocking=False):
                    return x.to("cuda", non_blocking=non_blocking)
                def warm(self, ids):
                    return self.forward(torch.tensor(ids), non_blocking=True)
            """
        ),
        # Session 25 (variants25c): a row of a pinned table picked by an integer parameter is
        # one dense block (a view), not a gather
        Valid(
            """
            import torch
            class BlockTable:
                def __init__(self, n, m, device):
                    self.cpu = torch.zeros(n, m, dtype=torch.int32, pin_memory=True)
                    self.gpu = torch.zeros(n, m, dtype=torch.int32, device=device)
                def commit_row(self, row: int):
                    self.gpu[row].copy_(self.cpu[row], non_blocking=True)
            """
        ),
        # Session 25 (variants25c): an index_select of rows of a pinned table is HTD104's
        # gather (reported there once, with its advice), not a second finding here
        Valid(
            """
            import torch
            class Cache:
                def __init__(self, n, d):
                    self.host = torch.empty(n, d, pin_memory=True)
                def fetch(self, ids, dev):
                    return self.host.index_select(0, ids).to(dev, non_blocking=True)
            """
        ),
        # torch.cat/stack then copy is HTD104's, which offers a fix
        Valid(
            """
            import torch
            def f(xs, dev):
                return torch.cat(xs).to(dev, non_blocking=True)
            """
        ),
        Valid(
            """
            import torch
            def f(xs, dev):
                x = torch.stack(xs)
                return x.to(dev, non_blocking=True)
            """
        ),
        Valid(
            """
            import torch
            def f(xs, buf):
                out = torch.cat(xs, out=buf)
                return out.to('cuda', non_blocking=True)
            """
        ),
        # a join into a pinned buffer
        Valid(
            """
            import torch
            def f(xs):
                buf = torch.empty(1024, pin_memory=True)
                return torch.cat(xs, out=buf).to('cuda', non_blocking=True)
            """
        ),
        # an offload device is the host
        Valid(
            """
            import torch
            def f(n, offload_device):
                return torch.arange(n).to(offload_device, non_blocking=True)
            """
        ),
        # torchrec's pin-and-move helper: for a host tensor (every call passes one), the plain
        # copy's arm runs only off CUDA
        Valid(
            """
            import torch
            def _pin_and_move(tensor, device):
                return (
                    tensor.pin_memory().to(device=device, non_blocking=True)
                    if device.type == "cuda" and tensor.device.type == "cpu"
                    else tensor.to(device=device, non_blocking=True)
                )
            def permute(order, device):
                return _pin_and_move(torch.tensor(order), device)
            """
        ),
        # the comprehension's `x` is an item of `xs`, not the pageable tensor bound before
        Valid(
            """
            import torch
            def f(xs, dev):
                x = torch.tensor([1, 2])
                return [x.to(dev, non_blocking=True) for x in xs]
            """
        ),
        # numpy data that may be a view of a (pinned) tensor's memory
        Valid(
            """
            import torch
            def f(t):
                return torch.as_tensor(t.numpy()).to('cuda', non_blocking=True)
            """
        ),
        Valid(
            """
            import torch
            def f(batch, device):
                return batch.to(device, non_blocking=True)
            """
        ),
        Valid(
            """
            import torch
            def f(pin):
                x = torch.empty(8, pin_memory=pin)
                return x.cuda(non_blocking=True)
            """
        ),
        Valid(
            """
            import torch
            def f(data):
                x = torch.as_tensor(data)
                return x.cuda(non_blocking=True)
            """
        ),
        Valid(
            """
            import torch
            def f(x, cpu_buf):
                cpu_buf.copy_(torch.tensor([1, 2]), non_blocking=True)
            """
        ),
        Valid(
            """
            import torch
            def f(data):
                x = torch.tensor(data)
                x = x.pin_memory()
                return x.to('cuda', non_blocking=True)
            """
        ),
        Valid(
            """
            import torch
            def f(data, c):
                x = torch.tensor(data)
                if c:
                    x = x.pin_memory()
                return x.to('cuda', non_blocking=True)
            """
        ),
        Valid(
            """
            import torch
            class Batch:
                def __init__(self, n):
                    self.ids = torch.zeros(n, dtype=torch.int64, pin_memory=True)
                def upload(self, n):
                    return self.ids[:n].to('cuda', non_blocking=True)
            """
        ),
        Valid(
            """
            def tensor(xs): ...
            y = tensor([a, b]).to('cuda', non_blocking=True)
            """
        ),
        Valid(
            """
            import torch
            y = torch.tensor([1]).to('cuda', non_blocking=False)
            """
        ),
        # a strided view of pageable memory is HTD103's, which says to pin and copy by rows
        Valid(
            """
            import torch
            def f(n, gpu):
                buf = torch.zeros(3, 64)
                gpu[:, :n].copy_(buf[:, :n], non_blocking=True)
            """
        ),
        Valid(
            """
            import torch
            def f(x, dev):
                host = torch.zeros(4)
                host.copy_(x.to(dev), non_blocking=True)
            """
        ),
        # an unnamed target: blocking, a host tensor's device, no target, a dtype
        Valid(
            """
            import torch
            def f(ids, d):
                return torch.tensor(ids).to(d)
            """
        ),
        Valid(
            """
            import torch
            def f(n):
                like = torch.empty(4)
                return torch.arange(n).to(like, non_blocking=True)
            """
        ),
        Valid(
            """
            import torch
            def f(n):
                return torch.arange(n).to(memory_format=torch.preserve_format, non_blocking=True)
            """
        ),
        Valid(
            """
            import torch
            def f(n, d):
                return torch.arange(n).to(dtype=d, non_blocking=True)
            """
        ),
        # a conversion of pinned memory may return the pinned tensor itself (same dtype, same
        # shape): its pinning is unknown, not pageable
        Valid(
            """
            import torch
            class Stage:
                def __init__(self, n):
                    self.ids = torch.zeros(n, dtype=torch.int64, pin_memory=True)
                def upload(self, n, dtype, device):
                    ids = self.ids.to(dtype).reshape(-1)
                    return ids.long().to(device, non_blocking=True)
            """
        ),
        # an item of a mapping that may hold tensors (a copy of a cache), not Python data
        Valid(
            """
            import torch
            def fetch(cache, name, device):
                entries = {k: v for k, v in cache.items()}
                return torch.as_tensor(entries[name]).to(device, non_blocking=True)
            """
        ),
        # the fixed helper builds the ids on the device: the copy is a no-op
        Valid(
            """
            import torch
            def position_ids_in_meshgrid(patches, max_width, device):
                positions = []
                for patch in patches:
                    height, width = patch.shape[-2:]
                    rows = torch.arange(height, device=device)
                    cols = torch.arange(width, device=device)
                    positions.append((rows[:, None] * max_width + cols).flatten())
                return torch.cat(positions)
            class Vision(torch.nn.Module):
                def forward(self, patches, embeds, **kwargs):
                    ids = position_ids_in_meshgrid(patches, 16, embeds.device)
                    kwargs["ids"] = ids.unsqueeze(0).to(embeds.device, non_blocking=True)
                    return kwargs
            """
        ),
    )
    invalid = (
        # Session 50 (triage50a): a one-element host tensor is still pageable memory.
        Invalid(
            """
            import torch
            def reduce_metrics(values, dev):
                return [
                    torch.stack(v) if v else torch.tensor([0.0]).to(device=dev, non_blocking=True)
                                             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    for v in values
                ]
            """,
        ),
        # Session 27 (misses27): batches that worker processes collate without pinning are
        # pageable host memory: the loader made here, returned in a tuple by a helper
        # (`train, val = make_loaders(...)`), or passed to a function's parameter by every call
        Invalid(
            """
            import torch
            from torch.utils.data import DataLoader
            def collate(samples):
                return {"x": torch.stack([s["x"] for s in samples])}
            def make_loaders(train_set, val_set):
                train = DataLoader(train_set, num_workers=4, pin_memory=True, collate_fn=collate)
                val = DataLoader(val_set, num_workers=2, collate_fn=collate)
                return train, val
            def evaluate(loader, device):
                for batch in loader:
                    batch["x"].to(device, non_blocking=True)
                #   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            def fit(train_set, val_set, device):
                train, val = make_loaders(train_set, val_set)
                for batch in train:
                    batch["x"].to(device, non_blocking=True)
                evaluate(val, device)
                for batch in DataLoader(val_set, num_workers=2):
                    batch.to(device, non_blocking=True)
                #   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """
        ),
        # Session 25 (variants25c): rows of a pinned table gathered by an index tensor (a
        # parameter annotated as one) make a fresh pageable tensor
        Invalid(
            """
            import torch
            class BlockTable:
                def __init__(self, n, m, device):
                    self.cpu = torch.zeros(n, m, dtype=torch.int32, pin_memory=True)
                    self.gpu = torch.zeros(n, m, dtype=torch.int32, device=device)
                def commit(self, order: torch.Tensor, k: int):
                    self.gpu[:k].copy_(self.cpu[order], non_blocking=True)
                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """
        ),
        # a pin-and-move helper's other arm with a test that says nothing of the source
        Invalid(
            """
            import torch
            def _move(tensor, device, pin):
                return (
                    tensor.pin_memory().to(device=device, non_blocking=True)
                    if device.type == "cuda" and pin
                    else tensor.to(device=device, non_blocking=True)
                    #    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                )
            def permute(order, device, pin):
                return _move(torch.tensor(order), device, pin)
            """
        ),
        # the pinned copy thrown away: the layer stays pageable (airllm 2.11's prefetcher)
        Invalid(
            """
            import torch
            def load_layer(state_dict, prefetching):
                if prefetching and torch.cuda.is_available():
                    for k in state_dict.keys():
                        state_dict[k].pin_memory()
                        ^^^^^^^^^^^^^^^^^^^^^^^^^^
                return state_dict
            """,
            message_contains="thrown away",
        ),
        # of a tensor's attribute, before an asynchronous upload
        Invalid(
            """
            import torch
            def upload(scale: torch.Tensor, device):
                scale.pin_memory()
                ^^^^^^^^^^^^^^^^^^
                return scale.to(device, non_blocking=True)
            """,
            message_contains="`scale` stays in pageable memory",
        ),
        # a view of a Python array's buffer: pageable
        Invalid(
            """
            import array
            import torch
            def stage(buf, ids):
                host = torch.frombuffer(array.array("q", ids), dtype=torch.long)
                buf[: len(ids)].copy_(host, non_blocking=True)
                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            y = torch.tensor([1, 2]).to('cuda', non_blocking=True)
                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # a helper's copy whose source and flag come from its callers' arguments: every call
        # passes a fresh host tensor and `non_blocking=True`
        Invalid(
            """
            import torch
            def to_device(x, device, non_blocking=False):
                return x.to(device, non_blocking=non_blocking)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            class Runner:
                def _stage(self, batch, non_blocking):
                    return batch.cuda(non_blocking=non_blocking)
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                def forward(self, rows, lens, device):
                    host = torch.from_numpy(rows)
                    ids = to_device(torch.tensor(lens), device, non_blocking=True)
                    return self._stage(host, True), ids
            """,
        ),
        # `non_blocking=` a name set to True: in the worker loop around a nested step, or at
        # module level (a serving loop's `non_blocking = True` read by its `preprocess()`)
        Invalid(
            """
            import torch
            NON_BLOCKING = True
            def model_loop(inputs, device):
                non_blocking = True
                def preprocess(inp):
                    ids = torch.tensor(inp.batch_indices, dtype=torch.long)
                    return ids.to(device, non_blocking=non_blocking)
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                def positions(inp):
                    pos = torch.tensor(inp.position_ids, dtype=torch.long)
                    return pos.to(device, non_blocking=NON_BLOCKING)
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return [preprocess(i) for i in inputs], [positions(i) for i in inputs]
            """,
        ),
        # position ids computed on the host from pieces of a meshgrid, then copied
        Invalid(
            """
            import torch
            def position_ids(h, w, max_width, device):
                mesh = torch.meshgrid(torch.arange(h), torch.arange(w), indexing='ij')
                rows, cols = torch.stack(mesh, dim=-1).reshape(-1, 2).chunk(2, -1)
                ids = rows * max_width + cols
                return ids.to(device, non_blocking=True)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # the same ids built by a helper over a list of patches and copied by the caller: the
        # helper's return is known however deep the question that asks for it
        Invalid(
            """
            import torch
            def position_ids_in_meshgrid(patches, max_width):
                positions = []
                for patch in patches:
                    height, width = patch.shape[-2:]
                    mesh = torch.meshgrid(torch.arange(height), torch.arange(width))
                    rows, cols = torch.stack(mesh, dim=-1).reshape(-1, 2).chunk(2, -1)
                    ids = rows * max_width + cols
                    positions.append(ids[:, 0])
                return torch.cat(positions)
            class Vision(torch.nn.Module):
                def forward(self, patches, embeds, **kwargs):
                    position_ids = position_ids_in_meshgrid(patches, max_width=16)
                    kwargs["ids"] = position_ids[None].to(embeds.device, non_blocking=True)
                                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return kwargs
            """,
        ),
        # a join written into a pageable buffer with out=: HTD104 leaves joins with out= alone
        Invalid(
            """
            import torch
            def f(xs):
                buf = torch.empty(1024)
                out = torch.cat(xs, out=buf)
                return out.to('cuda', non_blocking=True)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="`out` is not pinned",
        ),
        Invalid(
            """
            import torch
            def f(xs):
                return torch.stack(xs, out=torch.zeros(4, 8)).cuda(non_blocking=True)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # a numpy array, converted without a copy: pageable
        Invalid(
            """
            import numpy as np
            import torch
            def f(a: np.ndarray):
                return torch.as_tensor(a).to('cuda', non_blocking=True)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            def f(ids, device):
                t = torch.tensor(ids, dtype=torch.int64)
                return t.to(device, non_blocking=True)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="`t` is not pinned",
        ),
        # A factory of sizes moved to a target the analysis cannot name: HTD301 cannot say it
        # goes to a device, but `non_blocking=True` does.
        Invalid(
            """
            import torch as T
            def f(n, where):
                return T.arange(n).to(where, non_blocking=True)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            import numpy as np
            def f(arr, gpu_buf):
                gpu_buf.copy_(torch.from_numpy(arr), non_blocking=True)
                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            def f(n):
                x = torch.arange(n)
                return x.to(device=torch.device('cuda', 0), non_blocking=True)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            x = torch.zeros(16, pin_memory=False)
            y = x.to(self_device, non_blocking=True)
                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            def f(rows):
                pos = torch.as_tensor([r[0] for r in rows])
                return pos.to('cuda:1', non_blocking=True)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            def f(n, image_ids, counts, device):
                index = torch.arange(n) + torch.repeat_interleave(image_ids, counts)
                index = index.to(device, non_blocking=True)
                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return index
            """,
        ),
        # conversions and elementwise math keep pageable memory pageable: a dtype cast of a
        # fresh host scalar (an optimizer's step size), the cos/sin of a host rotary table
        Invalid(
            """
            import torch
            def step_size(lr, params):
                t = torch.tensor([-lr], dtype=torch.float).to(params[0].dtype)
                return t.to(params[0].device, non_blocking=True)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            def rope(n, inv_freq, device):
                freqs = torch.outer(torch.arange(n, device="cpu").float(), inv_freq.cpu())
                return freqs.cos().to(device=device, non_blocking=True)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # a list of a local mapping of Python lists (block ids gathered per allocator)
        Invalid(
            """
            import torch
            def restore(allocators, blocks, device):
                gpu_ids: dict[str, list[int]] = {name: [] for name in allocators}
                for name in allocators:
                    gpu_ids[name].extend(blocks[name])
                for name in allocators:
                    ids = torch.as_tensor(gpu_ids[name], dtype=torch.long)
                    yield ids.to(device, non_blocking=True)
                          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # advanced indexing of a pinned buffer makes a fresh, pageable tensor
        Invalid(
            """
            import torch
            class Batch:
                def __init__(self, n):
                    self.ids = torch.zeros(n, dtype=torch.int64, pin_memory=True)
                def gather(self, order):
                    picked = self.ids[torch.tensor(order)]
                    return picked.to('cuda', non_blocking=True)
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            def host_ids(ids):
                return torch.tensor(ids)
            def f(ids, dev):
                return host_ids(ids).to(
                       ^^^^^^^^^^^^^^^^^
                    dev,
                    non_blocking=True,
                )
             ...^
            """,
        ),
        # a target the names do not reveal: `non_blocking=True` says it is a device
        Invalid(
            """
            import torch
            def f(ids, d):
                t = torch.tensor(ids, dtype=torch.int64)
                return t.to(d, non_blocking=True)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            class Uploader:
                def upload(self, n, target):
                    return torch.arange(n).to(target, non_blocking=True)
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
    )

    _helpers: JoiningHelpers | None = None

    def visit_Call(self, node: cst.Call) -> None:
        provenance = Provenance.of(self.context)
        frame = provenance.current_frame()
        pinned = dropped_pin(self.context, node)
        if pinned is not None:
            shown = self.context.module.code_for_node(pinned)
            surely = tensor_evidence(provenance, pinned, frame) is not None
            self.report(
                node,
                f"`.pin_memory()` returns a pinned copy, and this one is thrown away: `{shown}` "
                "stays in pageable memory, so its copy to the device is staged by the driver "
                f"after all; keep the result (`{shown} = {shown}.pin_memory()`)",
                confidence=Confidence.HIGH if surely else Confidence.MEDIUM,
            )
            return
        source = non_blocking_h2d_source(provenance, node, frame)
        if source is None:
            return
        if fresh_joins(provenance, source, frame):
            return  # torch.cat/stack without out=, then copy: HTD104 reports it, with its fix
        if self._helpers is None:
            self._helpers = JoiningHelpers(provenance)
        if self._helpers.called(source, frame):
            return  # a helper's fresh join (HTD104's, at the call)
        if any(
            provenance.where(table, frame).on_host
            for _, table in fresh_gathers(provenance, source, frame)
        ):
            return  # an index_select of host rows is HTD104's gather, with its advice
        factory = factory_of(source)
        if factory is not None and empty_factory(provenance.qualify(factory.func), factory):
            return  # ``torch.tensor([])``: no elements, no bytes to stage
        if (
            factory is not None
            and provenance.qualify(factory.func) in HOST_FACTORIES
            and _to_a_device(provenance, node, frame)
        ):
            return  # a factory made on the host only to be moved: HTD301 reports it, with its fix
        fact = provenance.fact(source, frame)
        if fact.contiguous is False and layout(provenance, source, frame) is Layout.STRIDED:
            return  # a strided view: HTD103 reports it, pinned or not
        if fact.where is Where.PAGEABLE:
            if else_of_pinning_move([*self.context.ancestors, node], source):
                return  # the host source's CUDA copy is the pinned arm's; this one runs off CUDA
            if registered_view(self.context, source, frame):
                return  # pinned in place: ``cudaHostRegister(source.data_ptr(), ...)`` (a
                # transposed view of it is HTD103's, session 43)
            shown = self.shown(source, "the source")
            self.report(
                node,
                f"`non_blocking=True` copy from pageable memory: {shown} is not pinned, so the "
                "copy is staged by the driver and, from a few MiB up, blocks the host",
            )


def _to_a_device(provenance: Provenance, copy: cst.Call, frame: Frame) -> bool:
    """Whether the copy's target is a device by value or by name (``.cuda()``, ``"cuda"``,
    ``device``): where HTD301 reports a host factory moved there."""
    func = copy.func
    if isinstance(func, cst.Attribute) and func.attr.value == "cuda":
        return True
    target = keyword(copy, "device")
    if target is None:
        args = [a for a in copy.args if a.keyword is None]
        target = args[0] if args else None
    return target is not None and provenance.device_target(target.value, frame) is Target.DEVICE
