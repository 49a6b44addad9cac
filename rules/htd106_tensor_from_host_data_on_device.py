from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.arguments import first_positional, keyword
from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.host_data import (
    host_sequence,
    host_side,
)
from h2dlint.analysis.host_indices import host_index
from h2dlint.analysis.hot_guards import periodic_steps_only
from h2dlint.analysis.hot_paths import HotPaths
from h2dlint.analysis.loop_body import (
    export_branch,
    in_loop_body,
    mentions_loop_names,
    on_cache_miss,
)
from h2dlint.analysis.mover_calls import gathered_per_item
from h2dlint.analysis.names import call_name
from h2dlint.analysis.once import RunOnce
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.targets import Target
from h2dlint.analysis.tensor_lists import tensor_elements
from h2dlint.analysis.unknown_data import empty_here, maybe_host_data
from h2dlint.candidate_terms import called_as
from h2dlint.diagnostics import Confidence
from h2dlint.rule import Invalid, Rule, Valid

CONSTRUCTORS = frozenset({"torch.tensor", "torch.as_tensor", "torch.asarray"})
# Index expressions that may be a tensor (not a number, a string, a slice or ``None``).
_INDEX_NODES = (cst.Name, cst.Attribute, cst.Call)


def _stored(ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether a subscript that is an element of a tuple or list display is assigned to
    (``a[i], b[j] = ...``)."""
    for node in reversed(ancestors):
        if isinstance(node, (cst.AssignTarget, cst.For, cst.CompFor)):
            return True
        if not isinstance(node, (cst.Element, cst.Tuple, cst.List)):
            return False
    return False


def _in_comprehension(ancestors: Sequence[cst.CSTNode]) -> bool:
    """Inside what a comprehension computes per item (of the innermost function)."""
    for node in reversed(ancestors):
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return False
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            return True
    return False


_CONSTRUCTED = called_as(CONSTRUCTORS)
# Data host_sequence or maybe_host_data may take (not a literal, a dict, a generator...).
_DATA = "Name|Call|List|Tuple|ListComp|BinOp|Subscript|Attribute"


class TensorFromHostDataOnDevice(Rule):
    """## What it does
    Flags `torch.tensor(data, device=<accelerator>)`, `torch.as_tensor(data, device=...)` and
    `torch.asarray(data, device=...)` where `data` is provably a Python sequence or a numpy array
    of unknown length: a list comprehension, `list(...)`, `sorted(...)`, `x.tolist()`, `[v] * n`,
    a display with a starred or nested sequence, a numpy array (a `numpy` call, `x.numpy()`, a
    parameter annotated `np.ndarray`), a parameter annotated as a list of numbers
    (`token_ids: list[list[int]]`, `Sequence[int] | None`; not a tuple, which holds a shape or a
    few settings), the result of a helper of the project annotated to return one
    (`def cu_seqlens(...) -> list[int]`, `-> np.ndarray`, here or in another module), or a
    local name bound only to such values (or to a list built up by `append`). The device
    counts when the analysis resolves it to an accelerator, by
    value or by name (`device`, `self.device`, `x.device`). Also such a tensor built without
    `device=` and written into a tensor proven on a device (`dev[:n] = torch.tensor(lens)`) or
    copied into one without `non_blocking` (`dev[:n].copy_(torch.tensor(lens))`): the same
    blocking copy from pageable memory (one item per iteration of a loop is HTD101's; with
    `non_blocking=True`, HTD102's).

    Also a read of a device tensor through a host index tensor, per iteration of a loop or a
    comprehension or on a hot path: `h[idx]` with `idx = torch.arange(n)` (a host tensor of one
    dimension or more; a 0-d one is read as a number), or a row of a host tensor of two or more
    taken by the loop (`for s, col in zip(scores, grid.T)`). Advanced indexing copies the index
    to the indexed tensor's device before the gather, from pageable memory, blocking: the copy
    `torch.tensor(data, device=...)` makes. A CUDA tensor takes indices on its own device or
    on the host only, so an index proven on the device beside the host one proves the indexed
    tensor there (MEDIUM; HIGH when the indexed tensor itself is proven on the device). Writes
    through such an index are HTD202's.

    Per step (in a hot function, see HTD202, or an attention backend's per-batch `plan`,
    `begin_forward`, `init_forward_metadata`, `build_metadata`) or per iteration of a loop,
    `torch.tensor(data, device=...)` of a name, attribute or element whose type the analysis
    cannot prove (`torch.tensor(batch.seq_lens, device=dev)`, `torch.tensor(metadata.kv_indptr,
    ...)`, `torch.tensor(seq[:-1], ...)`, a short display of such values beside numbers
    `torch.tensor([scale], ...)`, `torch.tensor([start + 1, x.shape[1]], ...)`) is flagged with
    MEDIUM confidence: it copies from the host in every case but a device
    tensor's (and `torch.tensor` of a tensor is discouraged by PyTorch itself). Not for
    `as_tensor`/`asarray`, which pass a device tensor through, unless the data's name says
    numpy (`torch.as_tensor(batch.positions_np, device=dev)`); not for data proven a tensor, a
    shape (`x.shape`, a few ints) or a number (HTD107's); not in pipeline code outside its
    loops, export or tracing branches, values made on a cache miss,
    or code whose name says it runs now and then (logging, reports, checkpoint saving).

    Left alone, and why:

    - `device="cpu"`, no device, an unknown device, and a `device` parameter that defaults to
      `None` or `"cpu"` (the name proves nothing there);
    - data that is, or may be, a tensor: `as_tensor` of a device tensor is a no-op;
    - Python scalars and short displays of proven numbers only (`torch.tensor(0.0,
      device=dev)`, `torch.tensor([x.shape[0], 1], device=dev)`): a 0-d or few-element constant
      is still a blocking copy, but it moves a handful of bytes, and flagging every one of them
      (there are hundreds in the corpus, mostly constants and collective-communication scalars)
      would bury the findings that copy real data (HTD107 reports one number per step);
    - code that runs once: module level, `__init__`, `setup`, `build`, `from_pretrained`,
      initializers (`_init_*`, `reset_parameters`), weight loaders (`load_state_dict`,
      `load_weights`), tests, private helpers called only from such code, closure factories
      (the closure they return is what runs per call), and values built under a guard that
      runs once (`if key not in cache:`, `if self.table is None:`, a flag such as
      `if not self.prepared:` that the guarded code sets, the `else` of `if key in d:` that
      sets `d[key]`, a high-water mark such as `if n > self.max_len:` that the rebuild
      raises), and a failure's report built on the way to the function's final `raise`;
    - data preprocessing, which runs on the host unless the user asks otherwise: Hugging Face
      processor, feature extractor and tokenizer modules and classes, and dataset annotation
      converters (post-processing of model outputs is still checked);
    - calls with `pin_memory=`, and the `else` branch of a test of the data's length (empty).

    ## Why is this bad?
    PyTorch builds the tensor on the host in pageable memory, then copies it to the device with a
    blocking copy: the host waits until the stream reaches the copy, and the copy is staged by the
    driver. Measured on an H200 (torch 2.11): `torch.tensor(list(range(50_000)), device="cuda")`
    recorded one `Pageable -> Device` copy and one sync, took 11.0 ms with an idle GPU and held
    the host for 40.6 ms behind a 40 ms kernel; a copy from pinned memory with
    `non_blocking=True` returned in 0.1 ms. Pageable copies also run at 7.8 GB/s against 55 GB/s
    from pinned memory.

    ## Example
    ```python
    def step(requests, device):
        ids = [tok for r in requests for tok in r.token_ids]
        return torch.tensor(ids, dtype=torch.int64, device=device)
    ```

    ## Use instead
    Build the tensor on the host into pinned memory (a buffer allocated once and reused), then
    copy it without blocking:
    ```python
    pinned = torch.empty(max_tokens, dtype=torch.int64, pin_memory=True)  # at setup
    ...
    ids = [tok for r in requests for tok in r.token_ids]
    staged = pinned[: len(ids)]
    staged.copy_(torch.tensor(ids, dtype=torch.int64))
    ids_gpu = staged.to(device, non_blocking=True)
    ```
    Reuse the buffer only once the previous copy out of it has finished (record a CUDA event
    after the copy and synchronize on it before the next write). From a numpy array, write into
    the buffer directly (`pinned.numpy()[:n] = arr`). Do not call `.pin_memory()` on a fresh
    tensor per call: pinning costs more than it saves (1 MiB: 2.0 ms against 0.6 ms).

    What this buys is the host not waiting behind a busy stream; on an idle GPU it saves no time.
    Measured with this rule's fixture (a million Python ints from 64 requests, H200), the step
    took 70.4 ms as flagged against 72.2 ms in the recommended form: turning the Python list
    into a tensor dominates both, and the pinned form adds one host copy into the buffer.

    When the list holds tensors (`[x[s].sum() for s in subsets]`, losses appended per
    mini-batch), the message says so: `torch.tensor` turns each element into a Python number
    first, one device-to-host read and sync per element that lives on a device, before the
    pageable copy back. `torch.stack(xs)` (`torch.stack(xs).to(device)` for host tensors)
    joins them where they are, with no read back.

    ## Fix safety
    No automatic fix: where the pinned memory comes from (a buffer owned by whom, sized how, and
    when it may be reused) is a design decision, and pinning per call is slower than the flagged
    code.
    """

    code = "HTD106"
    name = "tensor-from-host-data-on-device"
    message = "tensor built from Python data on the device: a blocking copy from pageable memory"
    # Session 35 (recall35): widening this to `.device`/`.cuda(` (for host index reads) let the
    # constructor checks into files that spell `device = x` with spaces, which they never saw
    # (exllamav3: a loader's nested helper reported); left as it was, measured in recall.md.
    # So a host index read is looked for only in files that pass it (`device=` written).
    prefilter = (b"device=", b"device =", b".copy_(", b"] = torch.", b"] = tensor(")
    candidates = (  # torch.tensor(data, device=...) in a function, data not a literal
        f"def {_CONSTRUCTED}(device=) arg {_DATA}",
        # `dev[:n] = torch.tensor(data)`, `dev[:n].copy_(torch.tensor(data))`
        f"def @subscript arg Store & def {_CONSTRUCTED} arg {_DATA}",
        f"def .copy_ of {_CONSTRUCTED} & def {_CONSTRUCTED} arg {_DATA}",
        # `dev[host_idx]`: a host index tensor copied to the indexed tensor's device
        "def @subscript arg Index & text device|cuda",
    )

    valid = (
        # Session 45 (mine45): a parameter annotated as a bare tuple: a shape or a few settings
        Valid(
            """
            import torch
            def f(shape: tuple, device):
                return torch.tensor(shape, device=device)
            """
        ),
        # Session 45 (mine45): the device of an attribute the class allocates on the host by an
        # explicit `device="cpu"` (megatron-core 0.18's Mamba slot allocator)
        Valid(
            """
            import torch
            class Slots:
                def __init__(self, n):
                    self.block_to_slot = torch.full((n,), -1, device="cpu")
                def assign(self, blocks):
                    device = self.block_to_slot.device
                    new_bids = []
                    for b in blocks:
                        new_bids.append(b + 1)
                    return torch.tensor(new_bids, device=device)
            """
        ),
        # Session 35 (recall35): an index made on the device, a 0-d host index (read as a
        # number), and a host tensor indexed by a host index: no copy of the index
        Valid(
            """
            import torch
            def f(x, n, device):
                h = x.to(device)
                idx = torch.arange(n, device=device)
                one = torch.tensor(3)
                host = torch.zeros(n, 4)
                rows = torch.arange(n)
                return [(h[idx], h[one], host[rows]) for _ in range(3)]
            """
        ),
        # Session 25 (variants25c): a helper annotated to return a tensor or a number is no
        # list of unknown length (as_tensor passes a tensor through; a number is HTD107's),
        # nor one whose every return is a short display (transformers' pocket_tts
        # `_placeholder_token_ids() -> list[int]`, four config ids)
        Valid(
            """
            import torch
            def lengths_of(reqs) -> torch.Tensor:
                return torch.stack([r.lens for r in reqs])
            def total(reqs) -> int:
                return sum(r.n for r in reqs)
            def special_ids(cfg) -> list[int]:
                return [cfg.bos_token_id, cfg.eos_token_id, cfg.pad_token_id]
            class PrefillMeta:
                def f(self, reqs, device):
                    a = torch.as_tensor(lengths_of(reqs), device=device)
                    b = torch.tensor(total(reqs), device=device)
                    c = torch.tensor(special_ids(self.cfg), device=device)
                    return a, b, c
            """
        ),
        # Session 23 (precision23): a backend whose `device` property is the host, as a
        # constant (lm-eval 0.4.13's Neuron backend: "Device are neuron cores, but the created
        # tensors are on CPU"): `device=self.device` makes a host tensor, no copy.
        Valid(
            """
            import torch
            class NeuronLM:
                @property
                def device(self):
                    return "cpu"
                def loglikelihood(self, requests):
                    for context_enc, continuation_enc in requests:
                        inp = torch.tensor(
                            (context_enc + continuation_enc)[-(self.max_length + 1) :][:-1],
                            dtype=torch.long,
                            device=self.device,
                        )
                        self.model(inp)
            """
        ),
        # Session 21: a failure tail: a rank's exception serialised and broadcast on the way
        # to the `raise` that ends the function (nothing else leaves it): once, on failure
        Valid(
            """
            import torch
            import torch.distributed as dist
            def sync_error(error, device, failed):
                if not failed:
                    return
                encoded = str(error).encode()
                payload = torch.tensor(list(encoded), device=device, dtype=torch.uint8)
                dist.broadcast(payload, src=0)
                raise RuntimeError(bytes(payload.cpu().tolist()).decode())
            """
        ),
        # Session 19: made once, under `if getattr(self, "gates", None) is None:` whose body
        # registers the buffer (a lazy set-up on the first forward)
        Valid(
            """
            import torch
            class MoE(torch.nn.Module):
                def forward(self, x):
                    if getattr(self, "gates", None) is None:
                        addrs = [e.weight.data_ptr() for e in self.experts]
                        gates = torch.tensor(addrs, dtype=torch.uint64, device=x.device)
                        self.register_buffer("gates", gates, persistent=False)
                    return moe(x, self.gates)
            """
        ),
        # One host tensor per item of a loop that only gathers them: HTD101's per-item
        # transfer reports it (once).
        Valid(
            """
            import torch
            class Runner:
                def forward(self, reqs, device):
                    return [torch.tensor(r.token_ids, device=device) for r in reqs]
            """
        ),
        # A public helper that only the module's own set-up calls runs once too (no other
        # module of the project calls the name).
        Valid(
            """
            import torch
            class Pruner(torch.nn.Module):
                def __init__(self, sizes, device):
                    super().__init__()
                    self.init_state(sizes, device)
                def init_state(self, sizes, device):
                    self.create_buffers(sizes, device)
                def create_buffers(self, sizes, device):
                    self.emb_sizes = torch.tensor(sizes, device=device)
            """
        ),
        # The parameter may be rebound to a numpy scalar: not provably a sequence.
        Valid(
            """
            import numpy as np
            import torch
            def f(arr: np.ndarray, device, scalar):
                if scalar:
                    arr = np.float32(3)
                return torch.tensor(arr, device=device)
            """
        ),
        Valid(
            """
            import torch
            def f(ids):
                return torch.tensor(list(ids), device='cpu')
            """
        ),
        Valid(
            """
            import torch
            def f(ids):
                return torch.tensor(list(ids))
            """
        ),
        # data that may be a tensor: as_tensor of a device tensor is a no-op
        Valid(
            """
            import torch
            def f(x, device):
                return torch.as_tensor(x, device=device)
            """
        ),
        # scalars and short displays of scalars: a few bytes
        Valid(
            """
            import torch
            def f(device):
                return torch.tensor(0.0, device=device)
            """
        ),
        Valid(
            """
            import torch
            def f(n, device):
                return torch.tensor([n, 1], device=device)
            """
        ),
        Valid(
            """
            import torch
            def f(device):
                return torch.tensor([], device=device)
            """
        ),
        # one-time setup
        Valid(
            """
            import torch
            TABLE = torch.tensor([i * i for i in range(64)], device='cuda')
            """
        ),
        Valid(
            """
            import torch
            class M:
                def __init__(self, sizes, device):
                    self.sizes = torch.tensor(list(sizes), device=device)
            """
        ),
        # a device parameter that defaults to the host
        Valid(
            """
            import torch
            def f(ids, device='cpu'):
                return torch.tensor(list(ids), device=device)
            """
        ),
        Valid(
            """
            import torch
            def f(ids, device=None):
                return torch.tensor(list(ids), device=device)
            """
        ),
        # set up once: a private helper only __init__ calls, a static factory, a test
        Valid(
            """
            import torch
            class M:
                def __init__(self, ids, device):
                    self.idx = self._table(ids, device)
                @staticmethod
                def _table(ids, device):
                    return torch.tensor(list(ids), device=device)
            """
        ),
        Valid(
            """
            import torch
            def test_gather(device):
                idx = torch.tensor([i * 2 for i in range(8)], device=device)
            """
        ),
        # a flag that the guarded call sets: prepared on the first call only
        Valid(
            """
            import torch
            class Bias:
                def __call__(self, scores, ids):
                    if not self.prepared:
                        self._prepare(scores, ids)
                    return scores + self.table
                def _prepare(self, scores, ids):
                    self.table = torch.tensor([i for i in ids], device=scores.device)
                    self.prepared = True
            """
        ),
        # made on a cache miss only: looked up by key and stored back under it
        Valid(
            """
            import torch
            class Attn:
                def forward(self, slots, n):
                    bt = self.bt_cache.get(slots)
                    if bt is None:
                        bt = torch.tensor([list(range(s, s + n)) for s in slots], device="cuda")
                        self.bt_cache[slots] = bt
                    return bt
            """
        ),
        # past an early return unless this step logs: on logging steps only
        Valid(
            """
            import torch
            class Trainer:
                def train_step(self, batch):
                    self.optimizer.step()
                    if not self.metrics.should_log(self.step):
                        return
                    total = torch.tensor([self.ntokens_seen], device="cuda")
                    self.metrics.log(total)
            """
        ),
        # a closure factory: the closure is what runs per call
        Valid(
            """
            import torch
            def make_permute(order, device):
                idx = torch.tensor(list(order), device=device)
                def permute(x):
                    return x[idx]
                return permute
            """
        ),
        # an unknown device
        Valid(
            """
            import torch
            def f(ids, d):
                return torch.tensor(list(ids), device=d)
            """
        ),
        # pinned on the host
        Valid(
            """
            import torch
            def f(ids, device):
                return torch.tensor(list(ids), pin_memory=True).to(device, non_blocking=True)
            """
        ),
        # a name bound to a tensor on one path
        Valid(
            """
            import torch
            def f(ids, c, device):
                data = list(ids)
                if c:
                    data = torch.zeros(3)
                return torch.as_tensor(data, device=device)
            """
        ),
        # a local function named like the torch one
        Valid(
            """
            def tensor(x, device): ...
            def f(ids):
                return tensor(list(ids), device='cuda')
            """
        ),
        # data of unknown type in a function that is not hot, outside a loop
        Valid(
            """
            import torch
            def build(meta, x):
                return torch.tensor(meta.indices, device=x.device)
            """
        ),
        # a short display of unknown values in a function that is not hot
        Valid(
            """
            import torch
            def pack(scale, x):
                return torch.tensor([scale], device=x.device)
            """
        ),
        # a shape sent to other ranks: a few ints, like a short display
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    shape = x.shape
                    return torch.tensor(shape, device=x.device)
            """
        ),
        # a report that runs now and then, although it loops
        Valid(
            """
            import torch
            def log_summary(records, device):
                for name, vals in records.items():
                    lats = torch.tensor(vals, device=device)
                    print(name, lats.max())
            """
        ),
        # as_tensor of what may already be a device tensor: no copy then
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, meta):
                    return x[torch.as_tensor(meta.indices, device=x.device)]
            """
        ),
        # a device tensor: not a host copy
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    y = torch.arange(4, device='cuda')
                    return torch.tensor(y, device=x.device)
            """
        ),
        # Host tensors written into host memory (a pinned staging buffer), a non-blocking copy
        # (HTD102's), and one item per iteration of a loop (HTD101's).
        Valid(
            """
            import torch
            class Runner:
                def __init__(self, n, device):
                    self.lens_host = torch.zeros(n, dtype=torch.int32, pin_memory=True)
                    self.lens = torch.zeros(n, dtype=torch.int32, device=device)
                    self.table = torch.zeros(n, 64, dtype=torch.int32, device=device)
                def execute_model(self, batch):
                    n = len(batch.reqs)
                    lens = [len(r.ids) for r in batch.reqs]
                    self.lens_host[:n] = torch.tensor(lens, dtype=torch.int32)
                    self.lens[:n].copy_(self.lens_host[:n], non_blocking=True)
                    self.lens[:n].copy_(torch.tensor(lens), non_blocking=True)
                    for i, r in enumerate(batch.reqs):
                        self.table[i, : len(r.blocks)] = torch.tensor(r.blocks)
            """
        ),
        # The fix of the `range` above (sentence-transformers 5.2): made on the device.
        Valid(
            """
            import torch
            class Loss(torch.nn.Module):
                def forward(self, scores):
                    return torch.arange(len(scores), dtype=torch.long, device=scores.device)
            """
        ),
        # Session 20 (Lightning Thunder's tests): a helper nested in a test makes the test's
        # inputs, and a loop over literal cases builds one constant per case (twins in
        # tests/test_precision_fixes_s20.py: the same helper in a function run per call, a loop
        # over data).
        Valid(
            """
            import torch
            def test_div(device, dtype):
                def make_integer_tensor():
                    return torch.tensor([*range(-5, 0), *range(1, 6)], device=device, dtype=dtype)
                return make_integer_tensor() // make_integer_tensor()
            def grouped_mm_samples(a, b, device):
                for offsets in [[0, 16], [16, 16]]:
                    yield a, b, torch.tensor(offsets, device=device, dtype=torch.int32)
            """
        ),
        # Session 25 (rf-detr's deformable transformer): a branch taken only while the model is
        # exported or traced (`torch.compiler.is_exporting()`, however spelled,
        # `torch.onnx.is_in_onnx_export()`, `torch.jit.is_tracing()`) runs once, and its tensor
        # becomes a constant of the exported graph (twin in tests/test_precision_fixes_s25.py:
        # the eager `else` of the same test stays reported).
        Valid(
            """
            import torch
            from torch import nn
            class Transformer(nn.Module):
                def forward(self, srcs: list[torch.Tensor]):
                    shapes = [tuple(src.shape[-2:]) for src in srcs]
                    if self.cached is not None:
                        spatial_shapes = self.cached
                    elif getattr(torch.compiler, "is_exporting", lambda: False)():
                        spatial_shapes = torch.as_tensor(shapes, device=srcs[0].device)
                    elif torch.onnx.is_in_onnx_export():
                        spatial_shapes = torch.as_tensor(shapes, device=srcs[0].device)
                    else:
                        spatial_shapes = torch.stack([torch._shape_as_tensor(s)[2:4] for s in srcs])
                    return spatial_shapes
            """
        ),
        # Session 35 (prefilter35): a helper nested in a run-once function and only called
        # there runs once (a loader's per-expert pointer tables, exllamav3's `_bias_ptrs`);
        # twin INVALID: the same helper handed on as a hook, which runs per call
        Valid(
            """
            import torch
            class Experts(torch.nn.Module):
                def __init__(self, layers, device):
                    def pointers(ls):
                        return torch.tensor([l.weight.data_ptr() for l in ls], device=device)
                    self.up = pointers(layers)
                    self.down = pointers(reversed(layers))
            """
        ),
    )
    invalid = (
        # Session 45 (mine45): a parameter annotated as a bare list holds host data
        Invalid(
            """
            import torch
            def allocate(block_ids: list, device):
                return torch.tensor(block_ids, device=device)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # Session 45 (mine45): the same attribute allocated on the GPU (megatron-core 0.17.1)
        Invalid(
            """
            import torch
            class Slots:
                def __init__(self, n):
                    self.block_to_slot = torch.full((n,), -1, device=torch.cuda.current_device())
                def assign(self, blocks):
                    device = self.block_to_slot.device
                    new_bids = []
                    for b in blocks:
                        new_bids.append(b + 1)
                    return torch.tensor(new_bids, device=device)
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # Session 35 (prefilter35): a helper nested in a run-once function but registered as
        # a hook runs on every forward (twin VALID: one only called there)
        Invalid(
            """
            import torch
            class Experts(torch.nn.Module):
                def __init__(self, device):
                    def hook(module, args):
                        return (torch.tensor([a.numel() for a in args], device=device),)
                        #       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    self.register_forward_pre_hook(hook)
            """
        ),
        # Session 35 (recall35): a host index tensor indexing a device tensor in a loop, and a
        # column of a host grid beside device row indices, per grid dimension (hivemind's MoE
        # gating)
        Invalid(
            """
            import torch
            def f(x, n, device):
                h = x.to(device=device)
                idx = torch.arange(n)
                out = []
                for _ in range(3):
                    out.append(h[idx])
                    #          ^^^^^^
                return out
            """,
            message_contains="host index tensor `idx`",
        ),
        Invalid(
            """
            import torch
            def gate(grid_scores, n, device):
                rows = torch.arange(n, device=device)
                grid = torch.zeros([n, len(grid_scores)], dtype=torch.int64)
                return [s[rows, col] for s, col in zip(grid_scores, grid.T)]
                #       ^^^^^^^^^^^^
            """,
            message_contains="an index beside it is on the device",
        ),
        # Session 29 (lead): a device picked by whether CUDA is there is the GPU wherever
        # there is one (a choice by a feature flag, `"cuda" if fused else "cpu"`, proves
        # nothing: targets._either)
        Invalid(
            """
            import torch
            def average_metrics(metrics: dict[str, float]) -> dict[str, float]:
                keys, values = zip(*metrics.items())
                device = "cuda" if torch.cuda.is_available() else "cpu"
                tensor = torch.tensor(list(values) + [1], device=device)
                         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                torch.distributed.all_reduce(tensor)
                return dict(zip(keys, (tensor[:-1] / tensor[-1]).tolist()))
            """
        ),
        # Session 25 (variants25c): the data is what a helper of the project returns, annotated
        # as a list of numbers (or a numpy array), here or in another module
        Invalid(
            """
            import numpy as np
            import torch
            def cumulative(lengths: list[int]) -> list[int]:
                out = [0]
                for n in lengths:
                    out.append(out[-1] + n)
                return out
            def mask_of(allowed: list[int], vocab: int) -> np.ndarray:
                m = np.zeros(vocab, dtype=np.bool_)
                m[allowed] = True
                return m
            class PrefillMeta:
                def cu_seqlens(self, lengths, device):
                    return torch.tensor(cumulative(lengths), dtype=torch.int32, device=device)
                    #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                def allowed(self, allowed, device):
                    return torch.tensor(mask_of(allowed, 100), device=device)
                    #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """
        ),
        # Session 23 (precision23): a `device` property that may name an accelerator (not a
        # host constant) leaves `self.device` an accelerator by its name: still reported.
        Invalid(
            """
            import torch
            class HFLM:
                @property
                def device(self):
                    return self._device
                def loglikelihood(self, requests):
                    for context_enc, continuation_enc in requests:
                        inp = torch.tensor(
            #                 ^^^^^^^^^^^^^
                            (context_enc + continuation_enc)[-(self.max_length + 1) :][:-1],
                            dtype=torch.long,
                            device=self.device,
                        )
            #        ...^
                        self.model(inp)
            """
        ),
        # Session 21 (lead): a 0-d host tensor of one number (Gemma's `normalizer`) times the
        # hidden states leaves them where they were: the device of the model's input
        Invalid(
            """
            import torch
            class Model(torch.nn.Module):
                def forward(self, inputs_embeds, query_lengths: list[int]):
                    normalizer = torch.tensor(self.hidden_size**0.5, dtype=inputs_embeds.dtype)
                    hidden_states = inputs_embeds * normalizer
                    lengths = torch.tensor(query_lengths, device=hidden_states.device)
                    #         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return hidden_states, lengths
            """,
        ),
        # Session 21: `as_tensor` of data whose name says numpy, per step (of a device tensor it
        # would be a no-op, so only the name can say host)
        Invalid(
            """
            import torch
            class Runner:
                def execute_model(self, batch):
                    idx = torch.as_tensor(batch.indices_np, device=self.device)
                    #     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    same = torch.as_tensor(batch.indices, device=self.device)
                    return idx, same
            """,
            message_contains="batch.indices_np",
        ),
        # Session 21's twin: the same tensor before an early `return` of the normal path runs
        # on every call, though the function ends by raising
        Invalid(
            """
            import torch
            import torch.distributed as dist
            def sync_error(error, device, failed):
                encoded = str(error).encode()
                payload = torch.tensor(list(encoded), device=device, dtype=torch.uint8)
                          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                dist.broadcast(payload, src=0)
                if not failed:
                    return
                raise RuntimeError(bytes(payload.cpu().tolist()).decode())
            """
        ),
        # Session 19's twin: the guard tests an attribute the body does not set, so it runs
        # on every forward
        Invalid(
            """
            import torch
            class MoE(torch.nn.Module):
                def forward(self, x):
                    if getattr(self, "bias", None) is None:
                        addrs = [e.weight.data_ptr() for e in self.experts]
                        gates = torch.tensor(addrs, dtype=torch.uint64, device=x.device)
                                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                        self.register_buffer("gates", gates, persistent=False)
                    return moe(x, self.gates)
            """
        ),
        # the public twin also called per step: not run once
        Invalid(
            """
            import torch
            class Pruner(torch.nn.Module):
                def __init__(self, sizes, device):
                    super().__init__()
                    self.create_buffers(sizes, device)
                def forward(self, x, sizes):
                    self.create_buffers(sizes, x.device)
                    return x
                def create_buffers(self, sizes, device):
                    self.emb_sizes = torch.tensor(sizes, device=device)
                                     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # a default looked up but never stored back: made on every call without the key
        Invalid(
            """
            import torch
            class Attn:
                def forward(self, ids, n, kwargs):
                    bt = kwargs.get("block_table")
                    if bt is None:
                        bt = torch.tensor([list(range(s, s + n)) for s in ids], device="cuda")
                             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return bt
            """,
        ),
        # an early return when logging is off: the rest runs every step
        Invalid(
            """
            import torch
            class Trainer:
                def train_step(self, batch):
                    if self.should_log(self.step):
                        return
                    total = torch.tensor([self.ntokens_seen], device="cuda")
                            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    self.metrics.log(total)
            """,
        ),
        # a private helper called per call as well as from __init__
        Invalid(
            """
            import torch
            class M:
                def __init__(self, ids, device):
                    self.idx = self._table(ids, device)
                def _table(self, ids, device):
                    return torch.tensor(list(ids), device=device)
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                def forward(self, ids, device):
                    return self._table(ids, device)
            """,
        ),
        # a flag that nothing sets, and a tensor built in the closure itself
        Invalid(
            """
            import torch
            class Bias:
                def __call__(self, scores, ids):
                    if not self.frozen:
                        self.table = torch.tensor([i for i in ids], device=scores.device)
                                     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return scores
            """,
        ),
        Invalid(
            """
            import torch
            def make_lookup(device):
                def lookup(ids):
                    return torch.tensor(list(ids), device=device)
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return lookup
            """,
        ),
        # numpy arrays: a parameter annotated as one, `.numpy()`
        Invalid(
            """
            import numpy as np
            import torch
            def f(arr: np.ndarray, device):
                return torch.tensor(arr, device=device)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            from typing import Union
            import numpy as np
            import torch
            def f(arr: Union[np.ndarray, None], device):
                return torch.tensor(arr, device=device)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            def f(n, device):
                return torch.tensor(list(range(n))[::-1], device=device)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import numpy as np
            import torch
            def f(arr: np.ndarray, device, skip):
                if skip:
                    arr = arr[1:]
                return torch.tensor(arr, device=device)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            def f(t, device):
                return torch.as_tensor(t.numpy(), device=device)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            def f(requests, device):
                return torch.tensor([r.n for r in requests], device=device)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            def f(ids):
                return torch.tensor(list(ids), dtype=torch.int64, device='cuda')
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            import numpy as np
            def f(n, device):
                return torch.as_tensor(np.arange(n), device=device)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            def f(requests, dev):
                ids = []
                for r in requests:
                    ids.extend(r.ids)
                return torch.tensor(ids, device=dev)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="`ids`",
        ),
        Invalid(
            """
            import torch
            from torch import tensor
            def f(x, n):
                return tensor([x] * n, device=torch.device('cuda', 0))
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch as T
            def f(x, device):
                return T.tensor(x.tolist(), device=device)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            def f(rows, device):
                data = [[a, b] for a, b in rows]
                return torch.tensor(data, dtype=torch.float32, device=device)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            class Sampler:
                def step(self, seqs):
                    lens = [len(s) for s in seqs]
                    return torch.tensor(lens, device=self.device)
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            def f(xs, device):
                return torch.asarray(sorted(xs), device=device)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            def f(head, tail, device):
                return torch.tensor([*head, *tail], device=device)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # an attention wrapper's plan runs once per batch: the metadata's lists and a short
        # display of a computed scale are copied per step
        Invalid(
            """
            import torch
            class Wrapper:
                def plan(self, metadata, scale, x):
                    indptr = torch.tensor(metadata.kv_indptr, device=x.device)
                             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    s = torch.tensor([scale], device=x.device)
                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return indptr, s
            """,
        ),
        # a display of a value of unknown type computed beside sizes, per forward (pi0's block
        # sizes: a cache's length plus one, and the actions' length)
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, actions, cache):
                    past = cache.get_seq_length()
                    sizes = torch.tensor([past + 1, actions.shape[1] - 1], device=actions.device)
                            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return torch.cumsum(sizes, dim=0)
            """,
        ),
        Invalid(
            """
            import torch
            class Wrapper:
                def plan(self, metadata, scale, x):
                    s = torch.tensor([scale], device=x.device)
                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return s
            """,
        ),
        # Session 31: a list of device tensors (torch-geometric's influence, skrl's KL list):
        # torch.tensor reads each element back (one sync each), then copies; torch.stack is
        # the fix the message names.
        Invalid(
            """
            import torch
            def per_hop(influence, subsets):
                influence = influence.cuda()
                sums = [influence[s].sum() for s in subsets]
                return torch.tensor(sums, device=influence.device)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="`torch.stack(sums)` keeps them on the device",
        ),
        Invalid(
            """
            import torch
            def update(self, batches):
                kls = []
                for ratio in batches:
                    kls.append(((torch.exp(ratio) - 1) - ratio).mean())
                return torch.tensor(kls, device=self.device).mean()
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="one sync per element when they are on a device",
        ),
        # ... but a list also grown with Python numbers is Python data: the pinned-memory advice
        Invalid(
            """
            import torch
            def update(self, batches):
                kls = []
                for ratio in batches:
                    kls.append(ratio.mean())
                kls.extend([0.0, 1.0])
                return torch.tensor(kls, device=self.device)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="build it into pinned memory",
        ),
        # data of unknown type on a hot path: a list in all but a device tensor's case (MEDIUM)
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, meta):
                    return x[torch.tensor(meta.indices, device=x.device)]
                             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="certain if it is Python data",
        ),
        Invalid(
            """
            import torch
            def bias(input_ids, sequences):
                for seq in sequences:
                    hit = torch.eq(input_ids, torch.tensor(seq[:-1], device=input_ids.device))
                                              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return hit
            """,
        ),
        # A host tensor of Python data written into a tensor on the device, or copied into it
        # without `non_blocking`: a blocking copy from pageable memory per step.
        Invalid(
            """
            import torch
            class Runner:
                def __init__(self, n, device):
                    self.lens = torch.zeros(n, dtype=torch.int32, device=device)
                    self.pos = torch.zeros(8192, dtype=torch.int64, device=device)
                def execute_model(self, batch):
                    lens = [len(r.ids) for r in batch.reqs]
                    self.lens[: len(lens)] = torch.tensor(lens, dtype=torch.int32)
                                             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    pos = [p for r in batch.reqs for p in r.positions]
                    self.pos[: len(pos)].copy_(torch.tensor(pos))
                                               ^^^^^^^^^^^^^^^^^
            """,
            message_contains="written into a device tensor",
        ),
        # Session 19 (sentence-transformers 5.0's ContrastiveTensionLoss): a `range` is host
        # data of unknown length, as `list(range(n))` is.
        Invalid(
            """
            import torch
            class Loss(torch.nn.Module):
                def forward(self, scores):
                    labels = torch.tensor(range(len(scores)), device=scores.device)
                             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return labels
            """,
        ),
    )

    def visit_Subscript(self, node: cst.Subscript) -> None:
        """``dev[idx]`` read with ``idx`` a host tensor: advanced indexing copies the index to
        the device from pageable memory, blocking, as ``torch.tensor(data, device=...)`` does
        (:mod:`h2dlint.analysis.host_indices`); per iteration of a loop or per step."""
        if not any(
            isinstance(e.slice, cst.Index) and isinstance(e.slice.value, _INDEX_NODES)
            for e in node.slice
        ):
            return  # cheap test first: constants, strings and slices copy nothing
        ancestors = self.context.ancestors
        parent = ancestors[-1] if ancestors else None
        if isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.Del)) or (
            isinstance(parent, cst.Element) and _stored(ancestors)
        ):
            return  # a write: HTD202's index writes
        provenance = Provenance.of(self.context)
        frame = provenance.current_frame()
        if not isinstance(frame.function, cst.FunctionDef):
            return
        found = host_index(provenance, node, frame, ancestors)
        if found is None:
            return
        per_item = in_loop_body(ancestors) or _in_comprehension(ancestors)
        reason = None if per_item else HotPaths.of(self.context).why_hot_at(list(ancestors))
        if not per_item and reason is None:
            return
        if host_side(self.context) or RunOnce.of(self.context).code(ancestors):
            return
        if export_branch(list(ancestors), self.context.module):
            return
        where = "per iteration of a loop" if per_item else f"on a hot path ({reason})"
        index = self.shown(found.index, "the index", limit=30)
        beside = (
            ""
            if found.indexed_proven
            else " (an index beside it is on the device, so the indexed tensor is there too)"
        )
        self.report(
            node,
            f"host index tensor {index} indexes a device tensor{beside} {where}: PyTorch "
            "copies the index to the device from pageable memory and waits for the copy "
            "every time; make the index on the device (`device=`), or copy it once, from "
            "pinned memory with `non_blocking=True`",
            confidence=Confidence.HIGH if found.indexed_proven else Confidence.MEDIUM,
        )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        name = call_name(node)
        if name not in ("tensor", "as_tensor", "asarray"):
            return
        device = keyword(node, "device")
        if keyword(node, "pin_memory") is not None:
            return
        if device is None and not isinstance(self.context.ancestors[-1], (cst.Assign, cst.Arg)):
            return  # cheap test first: only a write into a device tensor counts without device=
        data = first_positional(node)
        if data is None:
            return
        provenance = Provenance.of(self.context)
        if provenance.qualify(func) not in CONSTRUCTORS:
            return
        frame = provenance.current_frame()
        if not isinstance(frame.function, cst.FunctionDef):
            return  # module level: runs once
        written = None
        if device is None:
            written = self._written_to_device(node, provenance, frame)
            if written is None or (
                in_loop_body(self.context.ancestors)
                and mentions_loop_names(self.context.ancestors, data)
            ):
                return  # a host tensor, or one item per iteration (HTD101's)
        elif provenance.device_target(device.value, frame, allocation=True) is not Target.DEVICE:
            return
        elif gathered_per_item(self.context.ancestors, node, provenance):
            return  # ``[torch.tensor(r, device=dev) for r in rows]``: HTD101's per-item copies
        proven = host_sequence(provenance, data, frame)
        if not proven and not maybe_host_data(self.context, node, data, provenance, frame):
            return
        if host_side(self.context) or empty_here(self.context.ancestors, node, data):
            return
        if RunOnce.of(self.context).code(self.context.ancestors):
            return  # setup, an initializer, a memoised value: runs once
        ancestors = list(self.context.ancestors)
        if export_branch(ancestors, self.context.module):
            return  # ``if torch.compiler.is_exporting():``: baked into the exported graph once
        if on_cache_miss(ancestors, self.context.module, provenance, frame):
            return  # made on a cache miss (``ent = cache.get(key)``/``if ent is None:``)
        if periodic_steps_only(ancestors):
            return  # past ``if not should_log(step): return``: on logging steps only
        shown = self.shown(data, "Python data", limit=30)
        if written is not None:
            certain = "" if proven else " (certain if it is Python data or a host array)"
            self.report(
                node,
                f"tensor built from {shown} on the host and {written} a device tensor"
                f"{certain}: PyTorch copies it from pageable memory and waits for the copy; "
                "write it into a pinned buffer and copy that with `non_blocking=True`",
                confidence=Confidence.HIGH if proven else Confidence.MEDIUM,
            )
            return
        if proven:
            self.report(node, self._proven_message(node, data, shown, provenance, frame))
            return
        ancestors = self.context.ancestors
        if in_loop_body(ancestors):
            where = "in a loop"
        else:
            reason = HotPaths.of(self.context).why_hot_at(ancestors)
            where = f"on a hot path ({reason})" if reason else "on a hot path"
        self.report(
            node,
            f"tensor built from {shown} on the device {where} (certain if it is Python data or "
            "a host array, not a device tensor): PyTorch stages it in pageable host memory and "
            "copies it synchronously every time; build it into pinned memory and copy it with "
            "`non_blocking=True`, or keep it on the device",
            confidence=Confidence.MEDIUM,
        )

    @staticmethod
    def _proven_message(
        node: cst.Call,
        data: cst.BaseExpression,
        shown: str,
        provenance: Provenance,
        frame: Frame,
    ) -> str:
        """What a proven finding says: a list of tensors costs a read per element, and
        ``torch.stack`` is its fix; other Python data wants pinned memory."""
        elements = tensor_elements(provenance, data, frame)
        if elements is None:
            return (
                f"tensor built from {shown} on the device: PyTorch stages it in pageable host "
                "memory and copies it synchronously; build it into pinned memory and copy it "
                "with `non_blocking=True`"
            )
        stack = f"`torch.stack({shown.strip('`')})`" if shown.startswith("`") else "`torch.stack`"
        built = provenance.qualify(node.func) or call_name(node)
        if elements is Where.DEVICE:
            cost = "reads each of its device tensors back to the host (one sync per element)"
            keep = "keeps them on the device with no sync"
        else:
            cost = (
                "reads each of its tensors back as a Python number (one sync per element when "
                "they are on a device)"
            )
            keep = "joins them where they are"
        return (
            f"tensor built on the device from {shown}, a list of tensors: `{built}` "
            f"{cost}, then copies the values from pageable memory again; {stack} {keep}"
        )

    def _written_to_device(
        self, node: cst.Call, provenance: Provenance, frame: Frame
    ) -> str | None:
        """How ``node`` (a host tensor) goes into a tensor proven on a device, copied from
        pageable memory and waited for: ``dev[:n] = torch.tensor(x)`` ("written into") or a
        blocking ``dev[:n].copy_(torch.tensor(x))`` ("copied into"; with
        ``non_blocking=True`` it is HTD102's); None otherwise."""
        ancestors = self.context.ancestors
        parent = ancestors[-1] if ancestors else None
        if isinstance(parent, cst.Assign):
            targets = parent.targets
            if (
                parent.value is node
                and len(targets) == 1
                and isinstance(targets[0].target, cst.Subscript)
                and provenance.where(targets[0].target.value, frame) is Where.DEVICE
            ):
                return "written into"
            return None
        call = ancestors[-2] if len(ancestors) > 1 else None
        if (
            isinstance(parent, cst.Arg)
            and isinstance(call, cst.Call)
            and isinstance(call.func, cst.Attribute)
            and call.func.attr.value == "copy_"
            and call.args
            and call.args[0] is parent
            and parent.keyword is None
            and keyword(call, "non_blocking") is None
            and provenance.where(call.func.value, frame) is Where.DEVICE
        ):
            return "copied into"
        return None
