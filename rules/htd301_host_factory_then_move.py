from __future__ import annotations

import libcst as cst

from h2dlint.analysis.arguments import first_positional, is_true, keyword, positional
from h2dlint.analysis.array_data import wrapped_python_data
from h2dlint.analysis.broadcast_moves import moved_broadcast
from h2dlint.analysis.computed_factories import ComputedFactory, computed_factory
from h2dlint.analysis.factories import (
    EXACT_FACTORIES,
    EXACT_METHODS,
    RANDOM_FACTORIES,
    SHAPE_FACTORIES,
    constant_choice,
    constant_fill,
    factory_of,
    numeric_constant,
)
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.host_data import dataset_module, host_sequence, host_side
from h2dlint.analysis.host_function_inputs import constructed_input
from h2dlint.analysis.item_movers import mover_call
from h2dlint.analysis.module_constants import host_constant
from h2dlint.analysis.mover_calls import gathered_per_item
from h2dlint.analysis.once import RunOnce
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.size_built import size_built_name
from h2dlint.analysis.targets import Move, Target, device_by_value, device_target
from h2dlint.analysis.tensor_kinds import tensor_evidence
from h2dlint.analysis.torch_aliases import torch_name
from h2dlint.analysis.unknown_data import maybe_host_data
from h2dlint.diagnostics import Confidence, FixSafety
from h2dlint.rule import Invalid, Rule, Valid

CONSTRUCTORS = frozenset({"torch.tensor", "torch.as_tensor", "torch.asarray"})
# The legacy constructors: data when given a sequence (``torch.Tensor([0, 1])``), sizes when
# given numbers (``torch.Tensor(3)``: three uninitialised floats), so only proven data counts.
LEGACY_CONSTRUCTORS = frozenset(
    f"torch.{kind}Tensor" for kind in ("", "Float", "Double", "Half", "Long", "Int", "Bool", "Byte")
)
# Keywords of a factory that make the move more than a move (or the factory more than shapes).
BLOCKING_KEYWORDS = ("device", "out", "pin_memory", "requires_grad")
FACTORY_TAILS = "|".join(
    f".{n.rsplit('.', 1)[1]}|{n.rsplit('.', 1)[1]}"
    for n in sorted(SHAPE_FACTORIES | RANDOM_FACTORIES | CONSTRUCTORS | LEGACY_CONSTRUCTORS)
)
CHAIN_TAILS = "|".join(f".{m}" for m in sorted(EXACT_METHODS))
# The last parts of the factories' names: a project name re-exporting one of them is followed.
FACTORY_NAMES = frozenset(
    n.rsplit(".", 1)[1]
    for n in SHAPE_FACTORIES | RANDOM_FACTORIES | CONSTRUCTORS | LEGACY_CONSTRUCTORS
)


class HostFactoryThenMove(Rule):
    """## What it does
    Flags a tensor made on the host by a factory whose arguments are only sizes and fill values
    (`torch.zeros`, `ones`, `empty`, `full`, `arange`, `linspace`, `logspace`, `eye`, and the
    random `rand`, `randn`, `randint`, `randperm`), or a 0-d constant (`torch.tensor(0)`), and
    then moved to the device: `torch.ones(n).cuda()`, `torch.zeros(b, n).to(device)`,
    `torch.arange(n).to(x.device)`, `torch.zeros(n, n).fill_(-inf).cuda()` (value-exact methods
    between the factory and the move are seen through: `fill_`, `zero_`, `triu`, `tril`,
    reshapes, views such as `expand_as`, `transpose`, dtype conversions, reductions
    (`sum`, `mean`, `prod`: still sizes and fills; not scans such as `cumsum`), and the functions
    `torch.triu(...)`/`torch.tril(...)` around it: `torch.triu(torch.ones(n, n),
    diagonal=1).bool().to(q.device)`). A 0-d constant may be chosen between two numbers
    (`torch.tensor(0.0 if done else 1.0).to(device)`). The target counts when the analysis
    resolves it to an accelerator, by value (`"cuda"`, `.cuda()`) or by name (`device`,
    `x.device`).

    It also flags a tensor built from Python data of unknown length and then moved
    (`torch.tensor(ids).to(device)`), the same pageable blocking copy as
    `torch.tensor(ids, device=device)`: its message gives HTD106's advice (HTD106 reports only
    the `device=` spelling, so nothing is reported twice), also when it is computed on the
    host first (`torch.tensor(lens).cumsum(0).to(device)`, `.long().cuda()`) and when a loop
    moves one row per iteration and uses it there (`t = torch.tensor(row).to(device)`; rows
    gathered into a list are HTD101's). Data proven a Python sequence (a
    parameter annotated `list[int]` counts) is reported wherever it is not run-once; data of
    unknown type (`torch.tensor(batch.seq_lens).to(device)`) only on a step path or per
    iteration, at medium confidence, as HTD106 judges `torch.tensor(batch.seq_lens,
    device=device)`.

    It also flags a broadcast view of any other tensor copied to the device,
    `lam.view(-1, 1, 1, 1).expand_as(x).to(x.device)` (`.expand`, `.expand_as`,
    `broadcast_to`): `.to` cannot keep the stride-0 dimensions, so it allocates and copies the
    full expanded size where `lam.view(-1, 1, 1, 1).to(x.device).expand_as(x)` copies `lam`'s few
    values (kornia 0.8's MixUp copied an image-sized tensor of per-sample weights every batch;
    0.9 moves the weights, then expands). Only a source proven on the host (a tensor of
    unknown placement is mostly a device mask moved defensively, where `.to` copies nothing);
    HIGH when the target is a device by value, else MEDIUM; not in run-once code; no fix is
    offered. (A copy written in place afterwards needs memory of its
    own: `.to(device).expand(...).clone()` still moves only the small tensor.)

    It also flags a module-level host tensor (`pi = torch.tensor(3.14159)`, `EYE = torch.eye(3)`
    at the top of this module, or of the project module a name is imported from) moved to the
    device inside a function: the same copy on every call (kornia 0.8's `rad2deg` copied `pi`
    per call; 0.9 multiplies by a Python float). Left alone where the moved copy is kept (an
    attribute, a buffer, a cache entry), at import, in run-once code, and where the function
    binds the name itself.

    It also flags a local name holding a tensor computed on the host from sizes alone and then
    moved: shape factories (`torch.arange(n)`, `torch.tensor([x.shape[1]] * b)`: one size
    repeated), value-exact methods and views of them, comparisons and arithmetic of such
    tensors and numbers, each name bound once and its values read only on the way to the move
    (`mask = row_vector < length_matrix; return mask.float().to(x.device)`: NeMo 2.1's
    Sortformer built every forward's (batch, frames) mask so, 2.2 builds it on the device).
    Reads of a name's metadata (`lengths.device`, `x.shape`) do not count as uses, nor do
    writes of a number into ranges of it (`mask[start:end, start:end] = True`, bounds spelled
    as Python numbers: eole 0.4's vision encoder filled a block-diagonal mask so on the host
    every forward). Left alone:
    a tensor built from data (`torch.tensor(lengths)` of a list), a name bound twice or read
    elsewhere (the host tensor has another use), a parameter; no fix is offered (each factory
    needs its own `device=`).

    Left alone, and why:

    - a factory given `device=`, `out=`, `pin_memory=` or `requires_grad=` (a grad-requiring
      leaf becomes a non-leaf when moved: moving `device=` changes autograd), and `*_like`
      factories (they follow their input's device);
    - moves to the host, to a dtype only, to another value of unknown kind (`.to(other)`: a
      tensor, a device or a dtype), or to a target the analysis cannot name; a move to a value
      that is surely a tensor by how it was made (`value = attn @ v`,
      `q, k, v = [x.contiguous().to(torch.float32) for x in (q, k, v)]`, a parameter annotated
      as a tensor) and not proven on the host is reported at medium confidence:
      `torch.zeros(b, h, d).to(value)` takes `value`'s device and dtype;
    - Python data copied with `non_blocking=True` (HTD102 reports that copy, with the same
      advice);
    - Python data of few elements (`torch.tensor([n, 1]).cuda()`), non-constant scalars, numpy
      arrays wrapped with `from_numpy` (how host data reaches the device by design; but not an
      array the function builds from Python data, `torch.from_numpy(np.array(ptrs,
      dtype=np.uint64)).to(device)` with `ptrs` a list or a helper's `-> list[int]`: that is
      `torch.tensor(ptrs).to(device)` spelled through numpy, and is reported), code that
      runs once with data (setup, initializers, tests), data preprocessing, and moves of data
      that a loop gathers item by item (HTD101's finding).

    Hot paths: the rule does not require one (the wasted copy costs on every run of the
    line), but code that runs once with data is exempt (above).

    On the 12 pinned corpus packages: 149 findings, all read, all correct
    (docs/needless-copies.md).

    ## Why is this bad?
    The factory allocates pageable host memory and fills it on the CPU, then the move allocates
    device memory and copies into it with a blocking copy: the host waits for the stream to reach
    the copy. Made with `device=`, the tensor is allocated and filled on the device by one
    kernel, queued without waiting. Measured on an H200 (torch 2.11,
    `benchmarks/device/needless_copies.py`): behind a 40 ms kernel,
    `torch.ones(2048, 8192, dtype=torch.bool).cuda()` held the host 42.4 ms and
    `torch.tensor(0).cuda()` 40.1 ms, against 0.14 and 0.16 ms made on the device; on an idle
    GPU, `torch.arange(4 << 20).cuda()` took 9.6 ms of host time against 0.03 ms.

    ## Example
    ```python
    mask = torch.ones(q_len, kv_len, dtype=torch.bool).cuda()
    positions = torch.arange(seq_len).to(hidden.device)
    total = torch.tensor(0, dtype=torch.int).cuda()
    ```

    ## Use instead
    ```python
    mask = torch.ones(q_len, kv_len, dtype=torch.bool, device="cuda")
    positions = torch.arange(seq_len, device=hidden.device)
    total = torch.full((), 0, dtype=torch.int, device="cuda")
    ```

    ## Fix safety
    The fix moves the target into the factory as `device=` (a 0-d constant becomes
    `torch.full((), value, ...)`) and drops the move. It is safe: the dtype, shape and values
    are unchanged. It is offered only when the move names nothing but a device (and
    `non_blocking=`, moot without a copy), or also a dtype that a factory of exact values
    (`zeros`, `ones`, `empty`, `eye`) without `dtype=` can take; never with `copy=` or
    `memory_format=`, and never for random factories (the device's generator draws other
    numbers) or for `.cuda(d)` with a computed `d`.
    """

    code = "HTD301"
    name = "host-factory-then-move"
    message = "tensor made on the host only to be moved to the device: make it there"
    fix_safety = FixSafety.SAFE
    fix_message = "Make the tensor on the device with `device=`"
    # ``device``: a factory handed to a mover of the project (``move_to_device(...)``).
    prefilter = (b".to(", b".cuda(", b"device")
    # The move's receiver is the factory call itself or a chain of exact methods on it.
    candidates = (
        f".to|.cuda of {FACTORY_TAILS}|{CHAIN_TAILS} & {FACTORY_TAILS}",
        # A module-level host tensor moved in a function (`pi.to(x.device)`).
        "def .to|.cuda",
        # A factory handed to a mover of the project (`move_to_device(torch.zeros(n), dev)`).
        f"def * of {FACTORY_TAILS}",
        # A broadcast view moved (`lam.view(-1, 1).expand_as(x).to(x.device)`).
        ".to|.cuda of .expand|.expand_as|.broadcast_to|broadcast_to",
    )

    valid = (
        # Session 47 (unscored47): an initializer-named helper forward calls only under a
        # lazy set-up guard runs once (lightning 2.6's demo _init_pos_encoding)
        Valid(
            """
            import torch
            class PositionalEncoding(torch.nn.Module):
                def _init_table(self, n: int, device: torch.device):
                    return torch.arange(n).to(device)
                def forward(self, x):
                    if self.table is None:
                        self.table = self._init_table(x.size(1), x.device)
                    return x + self.table
            """
        ),
        # Session 35 (recall35): the count made where the weights are (torchrec 1.4), and a
        # reduction of data the function was given
        Valid(
            """
            import torch
            def update(weights: torch.Tensor, counts: torch.Tensor):
                a = torch.ones_like(weights).sum(dim=-1)
                b = counts.sum(dim=-1).to(device=weights.device)
                return a, b
            """
        ),
        # Session 35 (recall35): the broadcast made on the device after the copy (kornia 0.9's
        # fix), a broadcast of a device tensor, a broadcast cast to a dtype, and a mask of
        # unknown placement (the model's ids: on the device, `.to` a no-op): no host copy of
        # repeated elements
        Valid(
            """
            import torch
            from torch import Tensor
            def mix(input: Tensor, lambdas: Tensor):
                lam = lambdas.view(-1, 1, 1, 1).to(input.device).expand_as(input)
                return input * lam
            def on_device(n, device):
                return torch.ones(3, device="cuda").expand(n, 3).to(device)
            def cast(x: Tensor):
                return x.expand(4, 3).to(torch.float16)
            def merge(input_ids: Tensor, embeds: Tensor, image_id: int):
                mask = input_ids == image_id
                return mask.unsqueeze(-1).expand_as(embeds).to(embeds.device)
            """
        ),
        # Session 32 (recall32): the INVALID pointer table's twins: an array the function
        # loaded or was given is how host data reaches the device (as `torch.from_numpy(arr)`
        # of a parameter), and `torch.from_numpy` of an array numpy computed is not Python data.
        Valid(
            """
            import numpy as np
            import torch
            def load(path, device):
                arr = np.load(path).astype(np.float32)
                return torch.from_numpy(arr).to(device)
            def given(frames: np.ndarray, device):
                table = np.asarray(frames)
                return torch.from_numpy(table).to(device)
            def computed(n, device):
                grid = np.array(np.meshgrid(np.arange(n), np.arange(n)))
                return torch.from_numpy(grid).to(device)
            """
        ),
        # Session 31 (recall31): a `device="cpu"` parameter one call leaves to its default
        # proves nothing (the mask may be meant for the host there).
        Valid(
            """
            import torch
            class Aligner(torch.nn.Module):
                def sequence_mask(self, lens, max_len, device="cpu"):
                    return torch.arange(max_len).unsqueeze(0).to(device) < lens.unsqueeze(1)
                def forward(self, mel, lens):
                    return self.sequence_mask(lens, mel.shape[-1], device=mel.device)
                def host_mask(self, lens, n):
                    return self.sequence_mask(lens, n)
            """
        ),
        # Session 31 (recall31): a mask class built only in `__init__` (once per model) runs
        # its own `__init__` once too.
        Valid(
            """
            import torch
            class CausalMask:
                def __init__(self, n, device="cpu"):
                    self.mask = torch.ones(n, n, dtype=torch.bool).triu(1).to(device)
            class Decoder(torch.nn.Module):
                def __init__(self, n, device):
                    super().__init__()
                    self.causal = CausalMask(n, device=device)
            """
        ),
        # Session 28 (held out: eole 0.4.4's fix): the block-diagonal mask allocated on the
        # device and filled block by block there; a host mask written through data (an index
        # list, values) is no mask of sizes alone.
        Valid(
            """
            import torch
            def create_block_diagonal_mask(lengths, device):
                total_length = sum(lengths)
                mask = torch.zeros((total_length, total_length), dtype=torch.bool, device=device)
                start = 0
                for length in lengths:
                    mask[start : start + length, start : start + length] = True
                    start += length
                return mask
            def scatter_mask(ids, device):
                mask = torch.zeros(8, dtype=torch.bool)
                mask[ids] = True
                return mask.to(device)
            def written(values, device):
                table = torch.zeros(4, 8)
                table[0:2] = values
                return table.to(device)
            """
        ),
        # Session 24: a factory's values computed on with numbers, made on the device (the
        # fix); with a parameter of unknown kind (it may be a tensor of data); with a
        # reduction of the factory (not element-wise: `cumsum` above); a random draw from a
        # factory made on the device.
        Valid(
            """
            import torch
            class ProbAttention(torch.nn.Module):
                def forward(self, v, attn, x, scale):
                    b, h, n, d = v.shape
                    attns = (torch.ones([b, h, n, n], device=attn.device) / n).type_as(attn)
                    scaled = (torch.ones(4) * scale).to(x.device)
                    mask = torch.bernoulli(self.ratio * torch.ones(x.shape, device=x.device))
                    return attns, scaled, mask
            """
        ),
        # Session 23: the fixed mask (the view of a factory made on the device), and a view
        # indexed by a tensor (a gather of values, no view of the factory) moved.
        Valid(
            """
            import torch
            def length_to_mask(lengths: torch.Tensor, n: int) -> torch.Tensor:
                return torch.arange(n, device=lengths.device)[None, :] < lengths[:, None]
            def picked(ids: torch.Tensor, n: int, device):
                return torch.arange(n)[ids].to(device)
            """
        ),
        # Session 21: `.to(m.device)` where `m` is a host tensor made just before: a copy to the
        # host's own device, nothing moves
        Valid(
            """
            import torch
            def build_mask_matrix(seq_length, sep):
                m = torch.ones((1, seq_length, seq_length))
                ids = torch.arange(1, seq_length + 1).reshape(1, 1, -1).to(m.device)
                return (ids <= sep).type_as(m)
            """
        ),
        # Session 21: a rotary table rebuilt when a sequence outgrows it (`seq_len >
        # self.max_seq_len_cached`, the rebuild raises the mark), also a subclass's override
        # that the base class's `self._set_cos_sin_cache(...)` calls: not per forward
        Valid(
            """
            import torch
            class Rotary(torch.nn.Module):
                def __init__(self, dim, n, device=None):
                    super().__init__()
                    self.dim = dim
                    self._set_cos_sin_cache(n, device)
                def _set_cos_sin_cache(self, seq_len, device):
                    self.max_seq_len_cached = seq_len
                def forward(self, x, seq_len):
                    if self.max_seq_len_cached is None or seq_len > self.max_seq_len_cached:
                        self._set_cos_sin_cache(seq_len, x.device)
                    return x
            class DynamicRotary(Rotary):
                def _set_cos_sin_cache(self, seq_len, device):
                    self.max_seq_len_cached = seq_len
                    inv = 1.0 / 10000 ** (torch.arange(0, self.dim, 2).float().to(device) / 8)
                    self.register_buffer("inv_freq", inv, persistent=False)
            """
        ),
        # Session 30 (held out: Matcha-TTS 0.0.7's copy of labml's rotary embedding): the
        # table's builder returns at once when the kept table is there and long enough (one
        # `and` test: `self.cos_cached is not None and n <= len`), so the host arange and its
        # move run when a sequence outgrows the table, not per forward (the INVALID twin below
        # never keeps what it builds)
        Valid(
            """
            import torch
            class RotaryPositionalEmbeddings(torch.nn.Module):
                def __init__(self, d, base=10000):
                    super().__init__()
                    self.b = base
                    self.d = d
                    self.cos_cached = None
                def _build_cache(self, x):
                    if self.cos_cached is not None and x.shape[0] <= self.cos_cached.shape[0]:
                        return
                    th = 1 / (self.b ** (torch.arange(0, self.d, 2).float() / self.d)).to(x.device)
                    seq_idx = torch.arange(x.shape[0], device=x.device).float()
                    self.cos_cached = torch.einsum("n,d->nd", seq_idx, th).cos()
                def forward(self, x):
                    self._build_cache(x)
                    return x * self.cos_cached[: x.shape[0]]
            """
        ),
        # Session 21: an ONNX export (`llm_to_onnx`, `export_onnx`) makes its dummy inputs once,
        # for the exporter's trace
        Valid(
            """
            import torch
            def llm_to_onnx(model, num_layers, heads, dim):
                ids = torch.randint(100, (1, 10), dtype=torch.int64).cuda()
                kv = tuple(torch.rand((1, heads, 10, dim)).cuda() for _ in range(num_layers))
                torch.onnx.export(model, (ids, kv), "model.onnx")
            """
        ),
        # a Python number instead of a module-level tensor (kornia 0.9's rad2deg)
        Valid(
            """
            import math
            import torch
            pi = torch.tensor(math.pi)
            def rad2deg(tensor):
                return tensor * (180.0 / math.pi)
            """
        ),
        # a module-level host tensor moved once and kept (a buffer, a per-device cache), moved
        # at import, or a local of the same name: no copy per call
        Valid(
            """
            import torch
            EYE = torch.eye(3)
            WEIGHTS = torch.tensor([0.299, 0.587, 0.114])
            ON_DEVICE = EYE.to("cuda")
            _cache = {}
            class Gray(torch.nn.Module):
                def __init__(self, device):
                    super().__init__()
                    self.weights = WEIGHTS.to(device)
                def forward(self, x):
                    if x.device not in _cache:
                        _cache[x.device] = WEIGHTS.to(x.device)
                    return x * _cache[x.device]
            def f(x, EYE):
                return EYE.to(x.device)
            def g(x):
                WEIGHTS = x.new_ones(3)
                return WEIGHTS.to(x.device)
            """
        ),
        # the legacy constructor given sizes (not data), indices computed on the device (the
        # fix of transformer-engine 2.20), host data pinned before its copy
        Valid(
            """
            import torch
            def f(n: int, seqlens: torch.Tensor, max_seqlen: int, ids: list[int]):
                buf = torch.Tensor(n).to(torch.float16)
                valid = torch.arange(max_seqlen, device=seqlens.device) < seqlens[:, None]
                order = torch.argsort(~valid.flatten(), stable=True)
                pinned = torch.tensor(ids).pin_memory().to("cuda", non_blocking=True)
                return buf, order.to(dtype=torch.int64, device="cuda").unsqueeze(1), pinned
            """
        ),
        # made on the device already
        Valid(
            """
            import torch
            def f(n, device):
                return torch.zeros(n, device=device)
            """
        ),
        # a move to the host, to a dtype, to another tensor
        Valid(
            """
            import torch
            def f(n):
                return torch.zeros(n).to('cpu')
            """
        ),
        Valid(
            """
            import torch
            def f(n):
                return torch.arange(n).to(torch.float16)
            """
        ),
        Valid(
            """
            import torch
            def f(n, x):
                return torch.ones(n).to(x)
            """
        ),
        # a tensor proven on the host, a module's `.to()`, a dtype-only target
        Valid(
            """
            import torch
            def f(n, scores, model):
                host = torch.tensor(scores)
                weights = model.to(torch.float16)
                return torch.zeros(n).to(host), torch.zeros(n).to(weights)
            """
        ),
        # a target that the analysis cannot name
        Valid(
            """
            import torch
            def f(n, where):
                return torch.ones(n).to(where)
            """
        ),
        # factories from real data, or from a tensor
        Valid(
            """
            import torch
            def f(arr):
                return torch.from_numpy(arr).to('cuda')
            """
        ),
        Valid(
            """
            import torch
            def f(x, device):
                return torch.zeros_like(x).to(device)
            """
        ),
        Valid(
            """
            import torch
            def f(t, device):
                return torch.tensor(t).to(device)
            """
        ),
        # a short display of numbers, a computed scalar
        Valid(
            """
            import torch
            def f(n, device):
                return torch.tensor([n, 1]).to(device)
            """
        ),
        Valid(
            """
            import torch
            def f(n, device):
                return torch.tensor(n * 2).to(device)
            """
        ),
        # a grad-requiring leaf: moving device= changes autograd
        Valid(
            """
            import torch
            def f(n):
                return torch.zeros(n, requires_grad=True).cuda()
            """
        ),
        # pinned on purpose, and an output buffer
        Valid(
            """
            import torch
            def f(n, device):
                return torch.zeros(n, pin_memory=True).to(device, non_blocking=True)
            """
        ),
        # a host tensor worked on (not value-exact) before the move
        Valid(
            """
            import torch
            def f(n, device):
                return torch.ones(n).cumsum(0).to(device)
            """
        ),
        # data gathered per item: HTD101 reports the loop
        Valid(
            """
            import torch
            def f(rows):
                return [torch.tensor(list(r)).cuda() for r in rows]
            """
        ),
        # Session 21: a chain on a tensor of unknown origin, a chain ending in a pinned copy
        # (HTD105's), and data computed on the host in an initializer (run once)
        Valid(
            """
            import torch
            def f(host, lens: list[int], device):
                a = host.cumsum(0).to(device)
                b = torch.tensor(lens).cumsum(0).pin_memory().to(device, non_blocking=True)
                return a, b
            class Cache:
                def __init__(self, lens: list[int], device):
                    self.cu = torch.tensor(lens).cumsum(0).to(device)
            """
        ),
        # Session 41: a torch function given a name that may hold a device tensor, one that
        # places its result (`device=`), or one whose result is pinned before the move: not
        # computed on the host alone, or not HTD301's copy.
        Valid(
            """
            import torch
            def f(counts: list[int], repeats, n: int, device):
                a = torch.repeat_interleave(torch.tensor(counts), repeats).to(device)
                b = torch.repeat_interleave(torch.tensor(counts), 2).pin_memory()
                b = b.to(device, non_blocking=True)
                c = torch.where(torch.tensor(counts) > 0, torch.tensor(counts), n).to(device)
                return a, b, c
            """
        ),
        # data copied with non_blocking=True: HTD102 reports it, with the same advice
        Valid(
            """
            import torch
            def f(items, device):
                grids = [i.grid for i in items]
                return torch.tensor(grids).to(device, non_blocking=True)
            """
        ),
        # data at setup
        Valid(
            """
            import torch
            class M:
                def __init__(self, ids, device):
                    self.ids = torch.tensor(list(ids)).to(device)
            """
        ),
        # code that runs once: module level, an initializer, a test
        Valid(
            """
            import torch
            X = torch.eye(8).cuda()
            """
        ),
        Valid(
            """
            import torch
            class M:
                def __init__(self, n):
                    self.ids = torch.arange(n).cuda()
            """
        ),
        Valid(
            """
            import torch
            def test_f(device):
                x = torch.ones(3).to(device)
            """
        ),
        # a test script's check, called once from its `__main__` block (its loops do run
        # per iteration: the INVALID twin below)
        Valid(
            """
            import torch
            def check_forward_equal_with_pytorch_float():
                value = torch.rand(2, 4).cuda() * 0.01
                return value
            if __name__ == "__main__":
                check_forward_equal_with_pytorch_float()
            """
        ),
        # Session 35 (triage35, transparent-background's `Remover`): the look-alike of
        # neuralforecast's ProbMask (INVALID below), a class made in a function, whose
        # `__init__` loads weights: a model's holder, built once per run by the command that
        # makes it, not per step
        Valid(
            """
            import torch
            class Remover:
                def __init__(self, ckpt, device="cuda"):
                    self.model = torch.jit.load(ckpt, map_location=device)
                    self.model(torch.rand(1, 3, 64, 64).to(device))
                def process(self, img):
                    return self.model(img)
            def entry_point(ckpt, images):
                remover = Remover(ckpt)
                return [remover.process(i) for i in images]
            """
        ),
        # a short display of values of unknown type: a few bytes (HTD106 weighs the
        # `device=` spelling; a move of one is left alone)
        Valid(
            """
            import torch
            class Sampler:
                def __call__(self, logits, metadata):
                    offset = torch.tensor([metadata.seed_step]).to(self.device)
                    return logits.argmax(dim=-1) + offset
            """
        ),
        # the same conversion of data of unknown type, once per object
        Valid(
            """
            import torch
            class Runner:
                def __init__(self, config, device):
                    self.lens = torch.tensor(config.seq_lens).to(device)
            """
        ),
        # a local function named like a torch factory
        Valid(
            """
            def zeros(n): ...
            def f(n):
                return zeros(n).cuda()
            """
        ),
        # Session 20 (recall20c): the post-fix spellings of three held-out fixes (the factory
        # on the device, then value-exact functions and views).
        Valid(
            """
            import torch
            def f(q, positions, n, finished):
                mask = torch.triu(torch.ones([2048, 2048], device=q.device), diagonal=1).bool()
                ids = torch.arange(n, dtype=positions.dtype, device=positions.device).view(1, -1)
                flag = torch.tensor(0.0 if finished else 1.0, device=q.device)
                return mask, ids, flag
            """
        ),
        # a choice between a number and data is no constant
        Valid(
            """
            import torch
            def f(ids, device, empty):
                return torch.tensor(0 if empty else ids).to(device)
            """
        ),
        # Session 24 (heldout24a): a mask built on the device (NeMo 2.2's Sortformer), one
        # built from host data (lengths of a list), and one whose host tensor has another use.
        Valid(
            """
            import torch
            def length_to_mask(lengths, max_length):
                batch_size = lengths.shape[0]
                arange = torch.arange(max_length, device=lengths.device)
                mask = arange.expand(batch_size, max_length) < lengths.unsqueeze(1)
                return mask
            def from_data(lens: list[int], n, x):
                lengths = torch.tensor(lens)
                mask = torch.arange(n)[None, :] < lengths[:, None]
                return mask.to(x.device)
            def both(n, x):
                positions = torch.arange(n).unsqueeze(0)
                host_total = positions.sum()
                return positions.to(x.device), host_total
            def rebound(n, x):
                mask = torch.arange(n)
                mask = mask * 2
                return mask.to(x.device)
            """
        ),
        # Session 20 (Lightning Thunder's test_ddp.py): a private test body a harness runs
        # (`_test_*`) runs once per test, as a `test_*` does.
        Valid(
            """
            import torch
            def _test_ddp_transformer_engine(input_data):
                x = torch.randn(16, 16).cuda() * 100
                return x.sum()
            """
        ),
        # Session 27: factories handed to movers that are no plain copy: a helper that pins
        # first (its copy overlaps), a move to the host, a helper whose tensor branch tests
        # another parameter than the one it moves, and a factory made on the device already.
        Valid(
            """
            import torch
            def host_to_device(t, device):
                if isinstance(t, torch.Tensor):
                    return t.pin_memory().to(device, non_blocking=True)
                return t
            def move_to_device(o, device):
                if isinstance(o, torch.Tensor):
                    return o.to(device)
                elif isinstance(o, dict):
                    return {k: move_to_device(v, device) for k, v in o.items()}
                return o
            def odd(o, device, flag):
                if isinstance(flag, torch.Tensor):
                    return o.to(device)
                return o
            def f(n, x: torch.Tensor):
                a = host_to_device(torch.zeros(n), x.device)
                b = move_to_device(torch.zeros(n), torch.device("cpu"))
                c = odd(torch.zeros(n), x.device, x)
                d = move_to_device(torch.zeros(n, device=x.device), x.device)
                return a, b, c, d
            """
        ),
        # Session 27: a mover of another object, whose `self.device` the caller cannot name
        Valid(
            """
            import torch
            class Runner:
                def _stage(self, t):
                    return t.to(self.device, non_blocking=True)
            class Other:
                def __init__(self, runner: Runner):
                    self.runner = runner
                    self.device = "cpu"
                def step(self, n: int):
                    return self.runner._stage(torch.zeros(n))
            """
        ),
        # Session 34 (triage34, VoxCPM 2.0.3's prompt builders): the helper's `device` is the
        # host's at its one call (`tokens.device` of a `LongTensor` of token ids), so its zeros,
        # the join and the mask are all on the host: nothing moves (INVALID twin below: the
        # tokens are the caller's, their device unknown).
        Valid(
            """
            import torch
            from torch import nn
            class Speaker(nn.Module):
                def _prefix(self, n: int, device: torch.device):
                    return torch.zeros(n, dtype=torch.long, device=device)
                def forward(self, ids: list[int], n: int):
                    tokens = torch.LongTensor(ids)
                    tokens = torch.cat([self._prefix(n, tokens.device), tokens])
                    mask = torch.ones(len(tokens), dtype=torch.int32).to(tokens.device)
                    return tokens, mask
            """
        ),
    )
    invalid = (
        # Session 35 (recall35): a reduction of a host factory's ones, moved every metric
        # update (torchrec 1.3's weighted average without weights)
        Invalid(
            """
            import torch
            def update(weights: torch.Tensor):
                return torch.ones(weights.shape).sum(dim=-1).to(device=weights.device)
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def update(weights: torch.Tensor):
                return torch.ones(weights.shape, device=weights.device).sum(dim=-1)
            """,
        ),
        # Session 35 (recall35): per-sample weights drawn on the host, broadcast to the image's
        # shape and then copied: an image-sized copy per batch (kornia 0.8's MixUp)
        Invalid(
            """
            import torch
            from torch import Tensor
            def mix(input: Tensor, lo: float):
                lambdas = torch.rand(input.shape[0]) * (1 - lo) + lo
                lam = lambdas.view(-1, 1, 1, 1).expand_as(input).to(input.device)
                #     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return input * lam
            """,
            message_contains="broadcast view",
        ),
        # Session 34 (triage34): the twin of VoxCPM's host prompt above, the tokens a tensor
        # parameter: the helper's `device` may be an accelerator's, as its name says (MEDIUM).
        Invalid(
            """
            import torch
            from torch import nn
            class Speaker(nn.Module):
                def _prefix(self, n: int, device: torch.device):
                    return torch.zeros(n, dtype=torch.long, device=device)
                def forward(self, tokens: torch.Tensor, n: int):
                    tokens = torch.cat([self._prefix(n, tokens.device), tokens])
                    mask = torch.ones(len(tokens), dtype=torch.int32).to(tokens.device)
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return tokens, mask
            """,
            expected_fix="""
            import torch
            from torch import nn
            class Speaker(nn.Module):
                def _prefix(self, n: int, device: torch.device):
                    return torch.zeros(n, dtype=torch.long, device=device)
                def forward(self, tokens: torch.Tensor, n: int):
                    tokens = torch.cat([self._prefix(n, tokens.device), tokens])
                    mask = torch.ones(len(tokens), dtype=torch.int32, device=tokens.device)
                    return tokens, mask
            """,
            message_contains="certain if `tokens.device` is an accelerator",
        ),
        # Session 32 (recall32: lmcache 0.5.6's KV transfers): a table of pointers built as a
        # numpy array from a Python list on every transfer, wrapped and moved: the pageable
        # blocking copy of `torch.tensor(ptrs).to(device)`, spelled through numpy.
        Invalid(
            """
            import numpy as np
            import torch
            def gather(kv_caches, block_ids, device):
                ptrs = np.array([t.data_ptr() for t in kv_caches], dtype=np.uint64).view(np.int64)
                table = torch.from_numpy(ptrs).to(device=device)
                #       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return table, block_ids
            """
        ),
        # Session 31 (recall31, megatts3's aligner): the `device="cpu"` default is one no call
        # takes: every call passes a tensor's device.
        Invalid(
            """
            import torch
            class Aligner(torch.nn.Module):
                def sequence_mask(self, lens, max_len, device="cpu"):
                    return torch.arange(max_len).unsqueeze(0).to(device) < lens.unsqueeze(1)
            #              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                def forward(self, mel, lens):
                    return self.sequence_mask(lens, mel.shape[-1], device=mel.device)
            """,
            expected_fix="""
            import torch
            class Aligner(torch.nn.Module):
                def sequence_mask(self, lens, max_len, device="cpu"):
                    return torch.arange(max_len, device=device).unsqueeze(0) < lens.unsqueeze(1)
                def forward(self, mel, lens):
                    return self.sequence_mask(lens, mel.shape[-1], device=mel.device)
            """,
        ),
        # Session 31 (recall31, neuralforecast 1.6.4's Informer): a mask object made in every
        # attention forward: its `__init__` builds ones on the host and moves them each call.
        Invalid(
            """
            import torch
            class ProbMask:
                def __init__(self, L, n, device="cpu"):
                    self._mask = torch.ones(L, n, dtype=torch.bool).to(device).triu(1)
            #                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            class ProbAttention(torch.nn.Module):
                def _update_context(self, V, scores):
                    return ProbMask(V.shape[1], scores.shape[-1], device=V.device)._mask
                def forward(self, V, scores):
                    return self._update_context(V, scores)
            """,
            expected_fix="""
            import torch
            class ProbMask:
                def __init__(self, L, n, device="cpu"):
                    self._mask = torch.ones(L, n, dtype=torch.bool, device=device).triu(1)
            class ProbAttention(torch.nn.Module):
                def _update_context(self, V, scores):
                    return ProbMask(V.shape[1], scores.shape[-1], device=V.device)._mask
                def forward(self, V, scores):
                    return self._update_context(V, scores)
            """,
        ),
        # Session 30: the look-alike of Matcha-TTS's rotary table builder that tests a kept
        # table but never keeps what it builds: the host arange and its move run per forward
        Invalid(
            """
            import torch
            class Rotary(torch.nn.Module):
                def __init__(self, d, base=10000):
                    super().__init__()
                    self.b = base
                    self.d = d
                    self.cos_cached = None
                def _build_cache(self, x):
                    if self.cos_cached is not None and x.shape[0] <= self.cos_cached.shape[0]:
                        return self.cos_cached
                    th = 1 / (self.b ** (torch.arange(0, self.d, 2).float() / self.d)).to(x.device)
                    #        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    seq_idx = torch.arange(x.shape[0], device=x.device).float()
                    return torch.einsum("n,d->nd", seq_idx, th).cos()
                def forward(self, x):
                    return x * self._build_cache(x)[: x.shape[0]]
            """,
            message_contains="computed on the host from",
        ),
        # Session 28 (held out: eole 0.4.0's vision encoder): a (N, N) block-diagonal mask
        # allocated on the host, filled with a constant block by block (ranges of Python
        # numbers), then copied to the device on every forward.
        Invalid(
            """
            import torch
            def create_block_diagonal_mask(lengths, device):
                total_length = sum(lengths)
                mask = torch.zeros((total_length, total_length), dtype=torch.bool)
                start = 0
                for length in lengths:
                    end = start + length
                    mask[start:end, start:end] = True
                    start = end
                return mask.to(device)
            #          ^^^^^^^^^^^^^^^
            """,
            message_contains="computed on the host from sizes alone",
        ),
        # Session 24 (held out: kornia 0.6's `denormalize_laf`, per call): a cast to a dtype
        # (`.to(LAF.dtype)`) between the factory and the move is no move.
        Invalid(
            """
            import torch
            def denormalize_laf(laf: torch.Tensor, min_size):
                return torch.ones(1, 1, 2, 3).to(laf.dtype).to(laf.device) * min_size
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def denormalize_laf(laf: torch.Tensor, min_size):
                return torch.ones(1, 1, 2, 3, device=laf.device).to(laf.dtype) * min_size
            """,
        ),
        # Session 24 (held out: neuralforecast 1.6's Informer, every forward with
        # output_attention): ones divided by a size on the host, cast and moved; the fix makes
        # the ones on the device and keeps the cast. TabNet 4.0's obfuscator drew its mask on
        # the host every pretraining step (random: no fix).
        Invalid(
            """
            import torch
            class ProbAttention(torch.nn.Module):
                def forward(self, v, attn):
                    b, h, n, d = v.shape
                    return (torch.ones([b, h, n, n]) / n).type_as(attn).to(attn.device)
                    #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            class RandomObfuscator(torch.nn.Module):
                def forward(self, x):
                    return torch.bernoulli(self.ratio * torch.ones(x.shape)).to(x.device)
                    #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            class ProbAttention(torch.nn.Module):
                def forward(self, v, attn):
                    b, h, n, d = v.shape
                    return (torch.ones([b, h, n, n], device=attn.device) / n).type_as(attn)
            class RandomObfuscator(torch.nn.Module):
                def forward(self, x):
                    return torch.bernoulli(self.ratio * torch.ones(x.shape)).to(x.device)
            """,
        ),
        # Session 23 (held out: audiocraft's `length_to_mask`, every conditioner's forward): a
        # view by basic indexing between the factory and the move is the same copy; the fix
        # moves `device=` into the factory and keeps the view.
        Invalid(
            """
            import torch
            def length_to_mask(lengths: torch.Tensor, n: int) -> torch.Tensor:
                return torch.arange(n)[None, :].to(lengths.device) < lengths[:, None]
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def length_to_mask(lengths: torch.Tensor, n: int) -> torch.Tensor:
                return torch.arange(n, device=lengths.device)[None, :] < lengths[:, None]
            """,
        ),
        # Session 21: Python data computed on the host before the move (a cumulative sum, a
        # dtype), and a row of data moved and used in each iteration (not gathered: no per-item
        # finding of HTD101 covers it); both the same pageable blocking copy per call
        Invalid(
            """
            import torch
            def cu_seqlens(lens: list[int], device):
                return torch.tensor(lens).cumsum(0).to(device)
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            def penalize(logits, rows: list[list[int]], device):
                for i, r in enumerate(rows):
                    t = torch.tensor(r, dtype=torch.long).to(device)
                    #   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    logits[i, t] -= 1.0
                return logits
            """,
            message_contains="Python data on the host, then copied",
        ),
        # Session 41 (agilerl 2.50's routed LoRA experts): a torch function of host-made
        # inputs (a shape factory and a constructor of a list) computes on the host; the
        # result moved is the same copy (2.58 builds it on the device with `output_size=`).
        Invalid(
            """
            import torch
            def expert_ids(c: list[int], a: int, b: int, x):
                ids = torch.repeat_interleave(torch.arange(a, b), torch.tensor(c)).to(x.device)
                #     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return ids
            """,
        ),
        # Session 21's twin: the guard compares with a mark the rebuild does not raise: it may
        # run on every forward
        Invalid(
            """
            import torch
            class Rotary(torch.nn.Module):
                def __init__(self, dim, n, device=None):
                    super().__init__()
                    self.dim = dim
                    self.limit = n
                def _set_cos_sin_cache(self, seq_len, device):
                    inv = 1.0 / 10000 ** (torch.arange(0, self.dim, 2).float().to(device) / 8)
                                          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    self.register_buffer("inv_freq", inv, persistent=False)
                def forward(self, x, seq_len):
                    if seq_len > self.limit:
                        self._set_cos_sin_cache(seq_len, x.device)
                    return x
            """,
            expected_fix="""
            import torch
            class Rotary(torch.nn.Module):
                def __init__(self, dim, n, device=None):
                    super().__init__()
                    self.dim = dim
                    self.limit = n
                def _set_cos_sin_cache(self, seq_len, device):
                    inv = 1.0 / 10000 ** (torch.arange(0, self.dim, 2, device=device).float() / 8)
                    self.register_buffer("inv_freq", inv, persistent=False)
                def forward(self, x, seq_len):
                    if seq_len > self.limit:
                        self._set_cos_sin_cache(seq_len, x.device)
                    return x
            """,
        ),
        # Session 21's twin: a function that runs an ONNX session per call is no export
        Invalid(
            """
            import torch
            def run_onnx(session, x):
                mask = torch.ones(x.shape).cuda()
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^
                return session.run(None, {"x": x, "mask": mask})
            """,
            expected_fix="""
            import torch
            def run_onnx(session, x):
                mask = torch.ones(x.shape, device="cuda")
                return session.run(None, {"x": x, "mask": mask})
            """,
        ),
        # data of unknown type converted on a step path (medium, as HTD106 reports the same
        # copy written `torch.tensor(x, device=...)`)
        Invalid(
            """
            import torch
            class Runner:
                def execute_model(self, batch):
                    lens = torch.tensor(batch.seq_lens).to(self.device)
                    #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return lens
            """
        ),
        # data of a parameter annotated as a sequence of numbers: on the host whatever the
        # caller passes (``torch.tensor`` of a tensor warns)
        Invalid(
            """
            from collections.abc import Sequence
            import torch
            class Runner:
                def execute_model(self, token_ids: list[list[int]], lens: Sequence[int] | None):
                    ids = torch.tensor(token_ids).to(self.device)
                    #     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    n = torch.tensor(lens, dtype=torch.int32).cuda()
                    #   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return ids, n
            """
        ),
        # a script's driver: its loops are its steps, and so are the functions it calls
        Invalid(
            """
            import torch
            def generate(model, n):
                for i in range(n):
                    model(torch.zeros(1, 4).cuda())
                    #     ^^^^^^^^^^^^^^^^^^^^^^^^
            def main(model):
                generate(model, 16)
                while True:
                    model(torch.ones(1, 4).cuda())
                    #     ^^^^^^^^^^^^^^^^^^^^^^^
            if __name__ == "__main__":
                main(None)
            """,
            expected_fix="""
            import torch
            def generate(model, n):
                for i in range(n):
                    model(torch.zeros(1, 4, device="cuda"))
            def main(model):
                generate(model, 16)
                while True:
                    model(torch.ones(1, 4, device="cuda"))
            if __name__ == "__main__":
                main(None)
            """,
        ),
        # a move to the device and dtype of a tensor that the code made (medium: its device
        # is not proven), also of elements of a comprehension over tensors
        Invalid(
            """
            import torch
            def recurrent_rule(query, key, value, k_dim: int):
                query, key, value = [x.contiguous().to(torch.float32) for x in (query, key, value)]
                b, h, n, v_dim = value.shape
                out = torch.zeros(b, h, n, v_dim).to(value)
                #     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                attn = query @ key.transpose(-1, -2)
                state = torch.zeros(b, h, k_dim, v_dim).to(attn @ value)
                #       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return out, state
            """
        ),
        Invalid(
            """
            import torch
            def f(n):
                return torch.ones(n).cuda()
                #      ^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def f(n):
                return torch.ones(n, device="cuda")
            """,
        ),
        Invalid(
            """
            import torch
            def f(b, n, device):
                return torch.zeros(b, n).to(device)
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def f(b, n, device):
                return torch.zeros(b, n, device=device)
            """,
        ),
        Invalid(
            """
            import torch
            def f(q_lengths, maxlen):
                return torch.arange(0, maxlen).to(q_lengths.device)
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def f(q_lengths, maxlen):
                return torch.arange(0, maxlen, device=q_lengths.device)
            """,
        ),
        Invalid(
            """
            import torch
            def f(x, n):
                return torch.full((n,), -1, dtype=torch.long).to(x.device, non_blocking=True)
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def f(x, n):
                return torch.full((n,), -1, dtype=torch.long, device=x.device)
            """,
        ),
        # a device and a dtype: the dtype moves into a factory of exact values
        Invalid(
            """
            import torch
            def f(x):
                return torch.ones(len(x), x.shape[1]).to(x.device, torch.float16)
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def f(x):
                return torch.ones(len(x), x.shape[1], device=x.device, dtype=torch.float16)
            """,
        ),
        # value-exact methods between the factory and the move
        Invalid(
            """
            import torch
            def f(n):
                return torch.zeros(n, n).fill_(-float('inf')).cuda()
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def f(n):
                return torch.zeros(n, n, device="cuda").fill_(-float('inf'))
            """,
        ),
        Invalid(
            """
            import torch
            def f(q, k):
                return torch.ones(q, k, dtype=torch.bool).cuda(non_blocking=True)
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def f(q, k):
                return torch.ones(q, k, dtype=torch.bool, device="cuda")
            """,
        ),
        # a 0-d constant: full((), value) on the device
        Invalid(
            """
            import torch
            def step():
                return torch.tensor(0, dtype=torch.int).cuda()
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def step():
                return torch.full((), 0, dtype=torch.int, device="cuda")
            """,
        ),
        # random numbers: flagged, not fixed (the device's generator draws other numbers)
        Invalid(
            """
            import torch
            def f(n, device):
                return torch.randn(n, 4).to(device)
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="generator",
        ),
        # a dtype that may round differently: flagged, not fixed
        Invalid(
            """
            import torch
            def f(n, device):
                return torch.arange(n).to(device, torch.half)
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # Python data then moved: HTD106's advice
        Invalid(
            """
            import torch
            def f(requests, device):
                return torch.tensor([len(r) for r in requests]).to(device)
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="HTD106",
        ),
        Invalid(
            """
            import torch as T
            def f():
                return T.eye(8).cuda()
                #      ^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch as T
            def f():
                return T.eye(8, device="cuda")
            """,
        ),
        # a list of one constant, repeated: a fill
        Invalid(
            """
            import torch
            def f(batch_size, device):
                return torch.tensor([0] * batch_size).to(device=device, dtype=torch.long)
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="torch.full((n,), value",
        ),
        # Session 20 (recall20c): transformers 4.51's NPU attention built its causal mask on
        # the host through `torch.triu(...)` on every call; 5.2's assisted decoding moved an
        # `arange(...).expand_as(...)`; 4.50's synced generation a 0-d flag of two constants.
        Invalid(
            """
            import torch
            def attention(q, next_position_ids, n, finished, device):
                mask = torch.triu(torch.ones([2048, 2048]), diagonal=1).bool().to(q.device)
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                ids = torch.arange(n).expand_as(next_position_ids).to(next_position_ids.device)
                #     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                flag = torch.tensor(0.0 if finished else 1.0).to(device)
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return mask, ids, flag
            """,
            expected_fix="""
            import torch
            def attention(q, next_position_ids, n, finished, device):
                mask = torch.triu(torch.ones([2048, 2048], device=q.device), diagonal=1).bool()
                ids = torch.arange(n, device=next_position_ids.device).expand_as(next_position_ids)
                flag = torch.full((), 0.0 if finished else 1.0, device=device)
                return mask, ids, flag
            """,
        ),
        # Session 21 (recall21b): transformer-engine 2.18's flash-attention indices, built as
        # a host list and copied through the legacy constructor and two views per forward.
        Invalid(
            """
            import torch
            def get_indices(max_seqlen: int, seqlens: list[int]):
                indices = [i * max_seqlen + k for i, n in enumerate(seqlens) for k in range(n)]
                return torch.Tensor(indices).unsqueeze(1).to(dtype=torch.int64, device="cuda")
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="HTD106",
        ),
        # Session 24 (heldout24a): NeMo 2.1's Sortformer mask, computed on the host from
        # sizes alone through names, then copied on every forward; a view kept in a name.
        Invalid(
            """
            import torch
            class SortformerModules:
                def length_to_mask(self, context_embs):
                    lengths = torch.tensor([context_embs.shape[1]] * context_embs.shape[0])
                    batch_size = context_embs.shape[0]
                    max_len = context_embs.shape[1]
                    row_vector = torch.arange(max_len).unsqueeze(0).expand(batch_size, -1)
                    length_matrix = lengths.unsqueeze(1).expand(-1, max_len).to(lengths.device)
                    mask = row_vector < length_matrix
                    return mask.float().to(context_embs.device)
                    #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            def positions(n, x):
                pos = torch.arange(n).unsqueeze(0)
                return pos.to(x.device)
                #      ^^^^^^^^^^^^^^^^
            """,
            message_contains="computed on the host from sizes alone",
        ),
        # a module-level host tensor copied to the device on every call (kornia 0.8's rad2deg)
        Invalid(
            """
            import torch
            pi = torch.tensor(3.14159265358979323846)
            def rad2deg(tensor):
                return 180.0 * tensor / pi.to(tensor.device).type(tensor.dtype)
                #                       ^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="module-level host tensor `pi`",
        ),
        # Session 27 (held out: ai2-olmo-core 2.1's `batched_histc`, the MoE router's
        # histogram every forward): a factory handed to the project's collection mover, whose
        # tensor branch returns `o.to(device)`: the same host allocation and copy as
        # `torch.zeros(...).to(x.device)`, reported without a fix (the helper may do more).
        Invalid(
            """
            import torch
            def move_to_device(o, device, non_blocking=None):
                "Move a tensor or a container of tensors to the given device."
                if non_blocking is None:
                    non_blocking = device.type != "cpu"
                if isinstance(o, torch.Tensor):
                    return o.to(device, non_blocking=non_blocking)
                elif isinstance(o, dict):
                    return {k: move_to_device(v, device) for k, v in o.items()}
                return o
            def batched_histc(x: torch.Tensor, num_classes: int) -> torch.Tensor:
                hist = move_to_device(torch.zeros((x.shape[0], num_classes)), x.device)
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                ones = move_to_device(torch.tensor(1, dtype=x.dtype), x.device).expand_as(x)
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                hist.scatter_add_(-1, x, ones)
                return hist
            """
        ),
        # Session 27: a one-item mover of the class called on the caller's own `self` (its
        # `self.device` is the caller's), and one that calls `.cuda()`
        Invalid(
            """
            import torch
            class Runner:
                def _stage(self, t):
                    return t.to(self.device, non_blocking=True)
                def _gpu(self, t):
                    return t.cuda()
                def step(self, n: int):
                    pos = self._stage(torch.arange(n))
                    #     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    acc = self._gpu(torch.zeros(n))
                    #     ^^^^^^^^^^^^^^^^^^^^^^^^^
                    return pos, acc
            """
        ),
        # Session 47 (unscored47): a helper named as an initializer that a method of forward
        # calls under a mode test runs per pass (fairchem 2.7's _init_gp_partitions)
        Invalid(
            """
            import torch
            class Backbone(torch.nn.Module):
                def _init_partitions(self, graph, numbers):
                    part = torch.tensor_split(torch.arange(len(numbers)).to(numbers.device), 4)
                    #                         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return part[0]
                def _graph(self, data, parallel: bool):
                    if parallel:
                        return self._init_partitions(data, data.numbers)
                    return None
                def forward(self, data):
                    return self._graph(data, True)
            """,
            expected_fix="""
            import torch
            class Backbone(torch.nn.Module):
                def _init_partitions(self, graph, numbers):
                    part = torch.tensor_split(torch.arange(len(numbers), device=numbers.device), 4)
                    return part[0]
                def _graph(self, data, parallel: bool):
                    if parallel:
                        return self._init_partitions(data, data.numbers)
                    return None
                def forward(self, data):
                    return self._graph(data, True)
            """,
        ),
    )

    def _certain(self, move: Move) -> str:
        """What would make a move to a device given by name certain: the name's being an
        accelerator (nothing when the move's device is a value)."""
        if move.by_value or move.device is None:
            return ""
        device = self.context.module.code_for_node(move.device)
        return f" (certain if `{device}` is an accelerator, as its name says)"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in ("to", "cuda"):
            self._helper_move(node)
            return
        provenance = Provenance.of(self.context)
        computed = computed_factory(provenance, func.value, provenance.current_frame())
        if computed is not None:
            self._computed(node, computed)
            return
        factory = factory_of(func.value)
        if factory is None:
            if self._broadcast_moved(node, func.value, provenance):
                return
            if not self._size_built(node, func.value):
                self._module_constant(node, func.value)
            return
        qualified = torch_name(provenance, factory.func, FACTORY_NAMES.__contains__)
        if qualified == "torch.from_numpy":
            self._wrapped_data(node, factory)  # ``torch.from_numpy(np.array(ids)).to(dev)``
            return
        if qualified is None or (inner := constructed_input(provenance, func.value)):
            # ``torch.tensor(lens).cumsum(0).to(device)``: data computed on the host, then moved
            factory = _constructed_under(func.value) if qualified is None else inner
            qualified = provenance.qualify(factory.func) if factory is not None else None
            if factory is None or qualified not in CONSTRUCTORS | LEGACY_CONSTRUCTORS:
                return
        if any(keyword(factory, k) for k in BLOCKING_KEYWORDS):
            return
        frame = provenance.current_frame()
        move = Move.of(node, provenance, frame)
        if move is None:
            if qualified in SHAPE_FACTORIES:
                self._to_tensor(node, factory, qualified, frame)
            return
        if RunOnce.of(self.context).code(self.context.ancestors):
            return  # setup, an initializer, a test: the copy costs once
        # Views and casts between (``torch.Tensor(ids).unsqueeze(1).to(device=...)``) keep the
        # host data; only a direct move is fixed.
        direct = node.func.value is factory  # type: ignore[attr-defined]
        self._report_made(node, factory, qualified, move, frame, direct)

    def _broadcast_moved(
        self, node: cst.Call, receiver: cst.BaseExpression, provenance: Provenance
    ) -> bool:
        """A broadcast view of a host tensor copied to the device (:mod:`broadcast_moves`);
        True when ``receiver`` is a broadcast view (reported or not)."""
        found = moved_broadcast(provenance, receiver)
        if found is None:
            return False
        move = Move.of(node, provenance, provenance.current_frame())
        if not found.on_host or move is None or (move.device is None and move.device_value is None):
            return True
        if RunOnce.of(self.context).code(self.context.ancestors):
            return True
        self.report(
            node,
            f"a broadcast view (`.{found.how}(...)`) copied to the device{self._certain(move)}: "
            "the copy allocates and moves the full expanded size, every repeated element; move "
            f"the small tensor first and broadcast on the device (`x.to(device).{found.how}(...)`)",
            confidence=Confidence.HIGH if move.by_value else Confidence.MEDIUM,
        )
        return True

    def _wrapped_data(self, node: cst.Call, receiver: cst.BaseExpression) -> None:
        """``torch.from_numpy(np.array(ptrs, dtype=np.uint64)).to(device)``: Python data made an
        array in the function, wrapped and moved, the copy ``torch.tensor(ptrs).to(device)``
        makes (a loaded or given array is left alone: how host data reaches the device)."""
        provenance = Provenance.of(self.context)
        frame = provenance.current_frame()
        data = wrapped_python_data(provenance, receiver, frame)
        if data is None:
            return
        move = Move.of(node, provenance, frame)
        if move is None or RunOnce.of(self.context).code(self.context.ancestors):
            return
        non_blocking = keyword(node, "non_blocking")
        if non_blocking is not None and is_true(non_blocking.value):
            return  # HTD102's finding
        if (
            dataset_module(self.context)
            or host_side(self.context)
            or gathered_per_item(self.context.ancestors, node, provenance)
        ):
            return
        shown = " ".join(self.context.module.code_for_node(data).split()).replace("( ", "(")
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        self.report(
            node,
            f"array built from Python data (`{shown}`) on the host, wrapped with "
            f"`torch.from_numpy` and copied to the device{self._certain(move)}: the same "
            "blocking copy from pageable memory as `torch.tensor(data, device=...)` (see "
            "HTD106): build it once if the data does not change, or into pinned memory and "
            "copy it with `non_blocking=True`",
            confidence=Confidence.HIGH if move.by_value else Confidence.MEDIUM,
        )

    def _helper_move(self, node: cst.Call) -> None:
        """``move_to_device(torch.zeros(n), x.device)``: a factory handed to a mover of the
        project (a helper that returns its argument's ``.to(device)``, or a collection mover
        whose tensor branch does), the same host allocation and copy as
        ``torch.zeros(n).to(x.device)``. Reported without a fix (the helper may do more)."""
        provenance = Provenance.of(self.context)
        if not any(_torch_factory(provenance, a.value) for a in node.args):
            return  # the cheap gate: no torch factory among the arguments
        frame = provenance.current_frame()
        found = mover_call(node, provenance, frame)
        if found is None:
            return
        moved, device = found
        if device is None:
            return  # ``.cuda()``, or a device the helper picks itself
        factory = factory_of(moved)
        if factory is None or any(keyword(factory, k) for k in BLOCKING_KEYWORDS):
            return
        qualified = torch_name(provenance, factory.func, FACTORY_NAMES.__contains__)
        if qualified is None or device_target(provenance, device, frame) is not Target.DEVICE:
            return
        if RunOnce.of(self.context).code(self.context.ancestors):
            return
        move = Move(device, None, None, False, device_by_value(device, provenance, frame))
        self._report_made(node, factory, qualified, move, frame, direct=False)

    def _report_made(
        self,
        node: cst.Call,
        factory: cst.Call,
        qualified: str,
        move: Move,
        frame: Frame,
        direct: bool,
    ) -> None:
        """Report ``factory``'s tensor, made on the host and moved by ``node``, by the kind of
        factory: shapes and fills, random draws, or data (``direct``: moved by ``node`` itself,
        not through views or casts, so the constructor may be fixed)."""
        confidence = Confidence.HIGH if move.by_value else Confidence.MEDIUM
        certain = self._certain(move)
        if qualified in SHAPE_FACTORIES:
            self._shape_factory(node, factory, qualified, move, confidence, certain)
        elif qualified in RANDOM_FACTORIES:
            self.report(
                node,
                f"random tensor made on the host only to be moved to the device{certain}: "
                "pass `device=` to the factory instead; no fix offered: the device's generator "
                "draws other numbers than the host's",
                confidence=confidence,
            )
        elif qualified in CONSTRUCTORS or qualified in LEGACY_CONSTRUCTORS:
            self._constructor(node, factory, qualified, move, confidence, certain, frame, direct)

    def _size_built(self, node: cst.Call, receiver: cst.BaseExpression) -> bool:
        """A local name holding a host tensor computed from sizes alone (a mask of an arange
        and host lengths made from shapes), moved: reported, and True."""
        provenance = Provenance.of(self.context)
        frame = provenance.current_frame()
        name = size_built_name(provenance, receiver, frame)
        if name is None:
            return False
        move = Move.of(node, provenance, frame)
        if move is None or RunOnce.of(self.context).code(self.context.ancestors):
            return False
        certain = self._certain(move)
        self.report(
            node,
            f"`{name.value}` is computed on the host from sizes alone (shape factories, views "
            f"and comparisons of them) only to be copied to the device{certain}: compute it "
            "on the device (`device=` on its factories), with no host work and no blocking copy",
            confidence=Confidence.HIGH if move.by_value else Confidence.MEDIUM,
        )
        return True

    def _computed(self, node: cst.Call, computed: ComputedFactory) -> None:
        """``(torch.ones(shape) / n).to(device)``, ``torch.bernoulli(p * torch.ones(shape))
        .to(device)``: a factory's values computed on with numbers on the host, then moved.
        The fix puts ``device=`` into the factory and drops the move when every other operand
        is a proven number and nothing is drawn at random."""
        factory = computed.factory
        if any(keyword(factory, k) for k in BLOCKING_KEYWORDS):
            return
        provenance = Provenance.of(self.context)
        move = Move.of(node, provenance, provenance.current_frame())
        if move is None or RunOnce.of(self.context).code(self.context.ancestors):
            return
        confidence = Confidence.HIGH if move.by_value else Confidence.MEDIUM
        certain = self._certain(move)
        qualified = (
            torch_name(provenance, factory.func, FACTORY_NAMES.__contains__) or "torch.zeros"
        )
        if computed.proven and not computed.random and move.dtype is None:
            self._shape_factory(node, factory, qualified, move, confidence, certain)
            return
        why = (
            "the device's generator draws other numbers than the host's"
            if computed.random
            else "an operand may be a host tensor"
        )
        self.report(
            node,
            f"tensor computed on the host from `{qualified.rsplit('.', 1)[1]}(...)` and numbers "
            f"only to be moved to the device{certain}: pass `device=` to the factory and "
            f"compute it there; no fix offered: {why}",
            confidence=confidence,
        )

    def _module_constant(self, node: cst.Call, receiver: cst.BaseExpression) -> None:
        """``pi.to(x.device)`` in a function, ``pi`` a module-level host tensor: the same copy
        on every call. Left alone where the copy is kept (``self.pi = pi.to(device)``, a cache
        by key): it then runs once per object or per key."""
        provenance = Provenance.of(self.context)
        frame = provenance.current_frame()
        qualified = host_constant(provenance, receiver, frame)
        if qualified is None:
            return
        move = Move.of(node, provenance, frame)
        if move is None or RunOnce.of(self.context).code(self.context.ancestors):
            return
        for ancestor in reversed(self.context.ancestors):
            if isinstance(ancestor, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
                targets = (
                    [t.target for t in ancestor.targets]
                    if isinstance(ancestor, cst.Assign)
                    else [ancestor.target]
                )
                if any(isinstance(t, (cst.Attribute, cst.Subscript)) for t in targets):
                    return  # kept: a buffer, an attribute, a cache entry
                break
            if isinstance(ancestor, cst.BaseStatement):
                break
        name = self.context.module.code_for_node(receiver)
        target = self._certain(move)
        self.report(
            node,
            f"module-level host tensor `{name}` (made by `{qualified.rsplit('.', 1)[1]}(...)` "
            f"at import) copied to the device on every call{target}: use a Python number, or "
            "make the tensor on the device once (a buffer, a per-device cache)",
            confidence=Confidence.HIGH if move.by_value else Confidence.MEDIUM,
        )

    def _to_tensor(self, node: cst.Call, factory: cst.Call, qualified: str, frame: Frame) -> None:
        """``torch.zeros(shape).to(value)`` with ``value`` surely a tensor (by how it was made,
        or annotated): the zeros take ``value``'s device and dtype, a host allocation and a
        blocking copy when ``value`` is on the device (MEDIUM: its device is not proven)."""
        if node.func.attr.value != "to" or len(node.args) != 1:  # type: ignore[attr-defined]
            return
        target = node.args[0]
        if target.keyword is not None or target.star:
            return
        provenance = Provenance.of(self.context)
        if tensor_evidence(provenance, target.value, frame) is None:
            return
        if provenance.fact(target.value, frame).where.on_host or provenance.is_host_data(
            target.value, frame
        ):
            return
        if RunOnce.of(self.context).code(self.context.ancestors):
            return
        shown = self.context.module.code_for_node(target.value)
        self.report(
            node,
            f"`{qualified.rsplit('.', 1)[1]}(...)` made on the host only to be moved to the device "
            f"and dtype of the tensor `{shown}` (certain if `{shown}` is on an accelerator): "
            f"pass `device={shown}.device, dtype={shown}.dtype` to the factory (no host "
            "allocation, no blocking copy)",
            confidence=Confidence.MEDIUM,
        )

    def _shape_factory(
        self,
        node: cst.Call,
        factory: cst.Call,
        qualified: str,
        move: Move,
        confidence: Confidence,
        certain: str,
    ) -> None:
        message = (
            f"`{qualified.rsplit('.', 1)[1]}(...)` made on the host only to be moved to the "
            f"device{certain}: pass `device=` to the factory (no host allocation, no blocking "
            "copy)"
        )
        extra: list[cst.Arg] = []
        fixable = move.fixable
        if move.dtype is not None:
            if qualified in EXACT_FACTORIES and keyword(factory, "dtype") is None:
                extra.append(_keyword("dtype", move.dtype))
            else:
                fixable = False
        if not fixable or move.device_value is None:
            self.report(node, message, confidence=confidence)
            return
        made = factory.with_changes(
            args=[*factory.args, _keyword("device", move.device_value), *extra]
        )
        receiver = node.func.value  # type: ignore[attr-defined]
        fixed = receiver.deep_replace(factory, made) if receiver is not factory else made
        self.report(node, message, replacements=[(node, fixed)], confidence=confidence)

    def _constructor(
        self,
        node: cst.Call,
        factory: cst.Call,
        qualified: str,
        move: Move,
        confidence: Confidence,
        certain: str,
        frame: Frame,
        direct: bool = True,
    ) -> None:
        data = first_positional(factory)
        if data is None or len(positional(factory)) != 1:
            return
        provenance = Provenance.of(self.context)
        proven = host_sequence(provenance, data, frame)
        if qualified in LEGACY_CONSTRUCTORS and not (
            proven or isinstance(data, (cst.List, cst.ListComp))
        ):
            return  # ``torch.Tensor(n)``: sizes, not data
        if numeric_constant(data) or constant_choice(data):
            message = (
                f"0-d constant made on the host only to be moved to the device{certain}: "
                "`torch.full((), value, device=...)` makes it there"
            )
            others = [a for a in factory.args if a.keyword is not None]
            if (
                not move.fixable
                or not direct
                or move.dtype is not None
                or move.device_value is None
                or qualified != "torch.tensor"
                or not isinstance(factory.func, cst.Attribute)
                or any(a.keyword.value != "dtype" for a in others if a.keyword is not None)
            ):
                self.report(node, message, confidence=confidence)
                return
            made = factory.with_changes(
                func=factory.func.with_changes(attr=cst.Name("full")),
                args=[
                    cst.Arg(cst.Tuple([])),
                    factory.args[0].with_changes(comma=cst.MaybeSentinel.DEFAULT),
                    *others,
                    _keyword("device", move.device_value),
                ],
            )
            self.report(node, message, replacements=[(node, made)], confidence=confidence)
            return
        # Data of unknown type on a step path: what HTD106 takes for `torch.tensor(x,
        # device=...)`, the same copy written with a move.
        if not proven and (
            isinstance(data, (cst.List, cst.Tuple))  # ``[metadata.seed_step]``: a few bytes
            or dataset_module(self.context)  # a dataset's samples: on the host, moves are no-ops
            or not maybe_host_data(self.context, factory, data, provenance, frame)
        ):
            return
        non_blocking = keyword(node, "non_blocking")
        if non_blocking is not None and is_true(non_blocking.value):
            return  # a non-blocking copy from pageable memory: HTD102's finding, same advice
        if host_side(self.context) or gathered_per_item(self.context.ancestors, node, provenance):
            # ``[torch.tensor(r).cuda() for r in rows]``: HTD101 reports the loop
            return
        if not proven:
            shown = self.context.module.code_for_node(data)
            certain = f" (certain if `{shown}` is Python data or a host array)"
            confidence = Confidence.MEDIUM
        if constant_fill(data):
            self.report(
                node,
                f"tensor of one repeated constant made on the host only to be moved to the "
                f"device{certain}: `torch.full((n,), value, device=...)` makes it there",
                confidence=confidence,
            )
            return
        self.report(
            node,
            f"tensor built from Python data on the host, then copied to the device{certain}: "
            "the same blocking copy from pageable memory as `torch.tensor(data, device=...)` "
            "(see HTD106): build it into pinned memory and copy it with `non_blocking=True`",
            confidence=confidence,
        )


# Methods that end the host tensor's story: a copy (pinned or moved) or a Python value.
_NOT_HOST_TENSOR = frozenset(
    {"to", "cuda", "cpu", "pin_memory", "share_memory_", "numpy", "tolist", "item"}
)


def _torch_factory(provenance: Provenance, node: cst.BaseExpression) -> bool:
    """Whether ``node`` is a torch factory (or a chain of exact methods on one)."""
    factory = factory_of(node)
    return factory is not None and (
        torch_name(provenance, factory.func, FACTORY_NAMES.__contains__) is not None
    )


def _constructed_under(node: cst.BaseExpression) -> cst.Call | None:
    """The call under a chain of tensor methods on a call's result (``torch.tensor(lens)`` of
    ``torch.tensor(lens).cumsum(0)``), or None; the caller checks it is a constructor."""
    inner = None
    while (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value not in _NOT_HOST_TENSOR
        and isinstance(node.func.value, cst.Call)
    ):
        node = inner = node.func.value
    return inner


def _keyword(name: str, value: cst.BaseExpression) -> cst.Arg:
    return cst.Arg(
        value=value,
        keyword=cst.Name(name),
        equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
        ),
    )
