from __future__ import annotations

import libcst as cst

from h2dlint.analysis.arguments import first_positional, keyword
from h2dlint.analysis.edge_cases import degenerate_fallback, repaired_value
from h2dlint.analysis.export_modules import export_module
from h2dlint.analysis.host_data import (
    dataset_module,
    host_side,
    in_host_pipeline_class,
    module_constant,
    number_fill,
)
from h2dlint.analysis.hot_paths import HotPaths
from h2dlint.analysis.lightning_logs import logged_per_step
from h2dlint.analysis.loop_body import (
    export_branch,
    in_loop_body,
    occasional,
    per_batch_method,
    pipeline_code,
    set_once,
    setup_function,
    varies_with_loop,
)
from h2dlint.analysis.moved_constants import CHAIN_TAILS, MOVED_TAILS, moved_constant
from h2dlint.analysis.number_displays import number_display
from h2dlint.analysis.once import RunOnce
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.reference_helpers import in_reference_code
from h2dlint.analysis.step_drivers import request_setup
from h2dlint.analysis.targets import Target, device_by_value, tensor_device
from h2dlint.analysis.tested_arms import waited_at_test
from h2dlint.diagnostics import Confidence, FixSafety
from h2dlint.rule import Invalid, Rule, Valid

CONSTRUCTORS = frozenset({"torch.tensor", "torch.as_tensor"})
# Keywords that ``torch.full`` takes as they are.
KEPT_KEYWORDS = frozenset({"dtype", "device", "requires_grad"})


class ConstantTensorOnHotPath(Rule):
    """## What it does
    Flags a constant tensor built from a Python number on an accelerator in code that runs per
    step or per request: `torch.tensor(0.0, device=dev)`, `torch.tensor([0], dtype=torch.int,
    device="cuda")`, `torch.as_tensor(1.0, device=x.device)`, in a hot function (a `forward`,
    a `step`, what they call; see HTD202 for hot paths; an attention backend's per-batch
    `plan`, `begin_forward`, `init_forward_metadata`) or in the body of a loop. A number is
    a literal or a value the analysis proves a Python number: `float(x)`, `int(x)`, `len(x)`,
    a size (`x.shape[1]`, `x.size(0)`, `x.numel()`), arithmetic of those, the counter of a
    `for ... in range(...)` loop and names bound only to such values (`t = 1.0 + step * dt`).
    A module-level table of numbers (`SPECIAL_TOKENS = [101, 102]`) made into a tensor per
    call is flagged too (build it once, as a buffer), and so is a display of up to 64 such
    numbers (`torch.tensor([0.299, 0.587, 0.114], device=x.device)`, `torch.tensor([[-1, 0],
    [0, w - 1]], device=...)`): the same blocking copy, without a `torch.full` fix (kornia 0.8's
    grayscale weights, rotation centres and flip matrices; 0.9 fills them on the device).
    The same tensor made on the host and then moved is the same copy, and is flagged alike:
    `torch.Tensor([len(rewards)]).to(self.accelerator.device)` (trl 0.15's KTO trainer, every
    training step; 0.17 sums the device labels), `torch.tensor([n, 1]).long().cuda()`,
    `torch.tensor(x.shape[0] * 2).to(dev)`; a 0-d literal moved (`torch.tensor(0.5).to(dev)`)
    is HTD301's, a copy with `non_blocking=True` HTD102's. `x.new_tensor([0])` is
    `torch.tensor([0], device=x.device)` and is flagged alike, in a loop or on a hot path only
    (optimum-intel 1.22's per-layer `input_lens.new_tensor([0])`; 1.24 builds it once per step).

    A Python number logged per step through a Lightning module's `log` or `log_dict` is the
    same copy, made by Lightning: `LightningModule.log` turns every number into
    `torch.tensor(value, device=self.device)` (a tensor it keeps where it is). Flagged with
    MEDIUM confidence (the module is on a GPU only when the trainer runs on one): `self.log`
    of a `LightningModule` subclass, `pl_module.log`, `self.lightning_module.log`, in
    `training_step`/`validation_step`, what they call, or a per-batch hook
    (`on_train_batch_end`, `on_before_optimizer_step`, `on_*_step_end`); not in epoch hooks
    (`on_train_epoch_end`). A number there is what the rule proves above, `x.item()`,
    `self.global_step`, a learning rate (`opt.param_groups[0]["lr"]`), a `torch.cuda` memory
    statistic, a clock reading, a method or property of the class annotated `-> int` that
    calls no `torch.*`, or an attribute the class only assigns numbers to (nemo-toolkit 2.4.1's
    `MegatronStrategy.training_step` logged `self.trainer.global_step` and
    `torch.cuda.max_memory_reserved()` every step; 2.6.2 copies them from pinned memory).
    `t.item()` of a tensor proven on the device is left to HTD202, which reports the read on
    the same line (one finding per statement; logging `t` removes both).
    Log the tensor itself (the loss, not `loss.item()`), keep counters on the device, or copy
    the number from a pinned buffer with `non_blocking=True`.

    Outside hot paths and loops, a function that is not run-once still pays the copy on every
    call (gradient-clipping helpers, metric computations, quantization helpers): flagged with
    MEDIUM confidence where the device is proven (`"cuda"`, `torch.cuda.current_device()`) or
    is the device of a tensor in hand (`x.device`, a name bound to it), not where only a name
    (`device`, `self.device`) says so.

    Confidence: HIGH on a hot path or in a loop when the analysis resolves the device to an
    accelerator by value (`"cuda"`, `x.device` of a device tensor); MEDIUM when only its name
    says so (`device`, `self.device`), or when the function is not known to run per step: the
    message says what would make it certain.

    Not flagged: code that runs once (initializers, setup, module level, code under a run-once
    guard, `if X is None: X = ...` of a class attribute, a value made on a cache miss `x =
    cache.get(k)` / `if x is None:`; not an optimizer's per-parameter state made while it is
    empty, `if len(state) == 0:`, whose first step makes one copy per parameter, reported),
    branches run while exporting or tracing (`if torch.onnx.is_in_onnx_export():`), code
    outside hot paths and loops in pipelines (once per
    request, before the steps: nothing queued to wait for) and, in the same way, outside the
    loop of a function that drives the model's steps (a loop whose body calls the model:
    `self(**inputs)`, `model.decoder(...)`, `self.unet(...)`) or in a generation entry
    (`generate`, whose steps run in what it calls), before the function first calls the model
    (after a prefill or an encoder the copy waits for them, and is reported), in functions that
    drive a loop (`*_loop`) or whose name, class or file says they run now and then (checkpoint
    saving, export, conversion, warm-up, profiling, benchmarks, logging, reports, validation;
    outside loops also tuning and benchmark drivers that take warm-up and timed-run counts; in
    and outside loops, functions named for allocating buffers,
    `create_*_tensors`/`_build_workspace`, or preparing weights, `preprocess_*_weights`),
    helpers called only on a cache miss of a function memoised by key (`cached = cache.get(key)`
    / `if cached is not None: return cached`), outside loops reference implementations a kernel
    is checked against (named `*_reference`, `oracle`, `golden`, `tester`) and the private
    helpers only they use (called from them or listed as their inlined dependencies,
    `_REFERENCE_DEPENDENCIES = (_helper, ...)`), loops in test code (`test_utils`, `testing`
    packages, `test_*.py`), numbers the analysis cannot prove (a parameter, a call's result:
    HTD106 judges data per step), tensors made with `pin_memory=`, `torch.tensor(c).cuda()`
    (HTD301), and fallbacks for degenerate input: the arm of a conditional taken only when a
    tensor has no element (`x.mean() if x.numel() > 0 else torch.tensor(0.0, device=d)`, `if not
    x.numel(): return ...`) or only for NaN or infinite values (`if torch.isnan(t).all():`, the
    `else` of `if torch.isfinite(t).all():`); an empty dimension or list (`if dets.size(0) ==
    0:`) is a state of normal runs and stays reported. Nor the repair of a bad value: a branch
    that reports it first (a log call or `print`) and then only rebinds names its test reads
    (`if loss.item() > 1.0: print("out of range"); loss = torch.tensor(1.0, device=d)`); a
    branch that logs after its work, or warns and does other work, stays reported.
    Nor a constant made right after a test that read a tensor on the host, with no device work
    queued since: in an arm of the test (`if not indices.any(): best = torch.tensor(0.0,
    device=d)`) or after an exit it guards (`if y_o > 0: return dice` ... `return
    torch.tensor(0.0, device=d)`): the stream is drained, and the copy has nothing to wait for.
    Nor, at MEDIUM, a constant in exporter code or a host runtime's (a file named `onnx*`, a
    folder `exporters/`, `mlx/`, `openvino/`, `coreml/`, `cortex_m/`): traced once into an
    exported graph, or made on the host for a runtime off torch's CUDA devices.

    ## Why is this bad?
    PyTorch builds the tensor in pageable host memory and copies it to the device with a
    blocking copy, and a blocking copy from pageable memory waits for the stream to reach it:
    the host stops until all queued GPU work is done, however small the copy. Measured on an
    H200 (torch 2.11): behind a 40 ms kernel, `torch.tensor(0).cuda()` held the host 40.07 ms;
    `torch.full((), 0, device="cuda")` returned in 0.16 ms (`benchmarks/device/needless_copies.py`).
    Once per step, that is the overlap of the whole queue lost every step, and the copy cannot
    be captured in a CUDA graph.

    ## Example
    ```python
    def step(self, model_output, sample):
        rhos = torch.tensor([0.5], dtype=sample.dtype, device=sample.device)
        total = torch.tensor(0.0, device="cuda")
    ```

    ## Use instead
    ```python
    def step(self, model_output, sample):
        rhos = torch.full((1,), 0.5, dtype=sample.dtype, device=sample.device)
        total = torch.full((), 0.0, device="cuda")
    ```
    Where the operation takes a Python number (`x * 0.5`, `torch.clamp(x, min=0.0)`,
    `torch.where(mask, x, 0.0)`), pass the number itself; a constant used every step can also
    be made once, as a buffer of the module.

    ## Fix safety
    The fix writes `torch.full((), c, ...)` for a number and `torch.full((1,), c, ...)` for a
    list of one number, with the same `dtype=`, `device=` and `requires_grad=`; none for a
    module-level table. It is safe:
    `torch.full` infers the same dtype from the number as `torch.tensor` (`int64` for an int,
    the default float type for a float, `bool` for a bool), and shape and value are unchanged.
    No fix when the call has other keywords or arguments.
    """

    code = "HTD107"
    name = "constant-tensor-on-hot-path"
    message = "constant tensor built on the host and copied to the device (a stream sync) per step"
    fix_safety = FixSafety.SAFE
    fix_message = "Make the constant on the device with `torch.full`"
    prefilter = (b"device", b".cuda(", b".new_tensor(", b".log(", b".log_dict(")
    candidates = (  # numbers: literals, host numbers (names, sizes, arithmetic), tables
        # a Lightning module's ``self.log(name, number)`` (analysis/lightning_logs.py)
        "def .log|.log_dict",
        "def .tensor|.as_tensor|tensor|as_tensor(device=) "
        "arg Literal|List|Tuple|UnaryOp|Call|Name|Attribute|Subscript|BinOp",
        # ``x.new_tensor([0])``: a constant made on ``x``'s device
        "def .new_tensor arg Literal|List|Tuple|UnaryOp|Call|Name|Attribute|Subscript|BinOp",
        # a display moved: ``torch.tensor([len(x)]).to(device)`` (analysis/moved_constants.py)
        f"def .to|.cuda of {MOVED_TAILS}|{CHAIN_TAILS} & def {MOVED_TAILS} "
        "arg Literal|List|Tuple|UnaryOp|Call|Name|Attribute|Subscript|BinOp",
    )

    valid = (
        # Session 48 (log48): Lightning keeps a logged tensor (no copy); a number logged once
        # per epoch, or once every N steps, is one copy per epoch or per N steps; `self.log`
        # of a class that is no Lightning module (a Hugging Face trainer's, a logger's) makes
        # no tensor.
        Valid(
            """
            import torch
            import lightning.pytorch as pl
            class Model(pl.LightningModule):
                def training_step(self, batch, batch_idx):
                    loss = self.net(batch).mean()
                    self.log("train_loss", loss)
                    self.log_dict({"loss": loss, "acc": (loss > 0).float().mean()})
                    if batch_idx % 100 == 0:
                        self.log("lr", self.optimizers().param_groups[0]["lr"])
                    return loss
                def on_train_epoch_end(self):
                    self.log("epoch", self.current_epoch)
            class Trainer:
                def training_step(self, model, inputs):
                    loss = model(inputs).mean()
                    self.log({"loss": loss.item()})
                    self.log("step", self.global_step)
                    return loss
            """
        ),
        # Session 48 (lead): `t.item()` of a tensor proven on the device is logged after a
        # read HTD202 reports on the same line (anomalib's `self.log("train_loss",
        # loss.item())`): one finding per statement, and logging `t` removes both.
        Valid(
            """
            import lightning.pytorch as pl
            class Model(pl.LightningModule):
                def training_step(self, batch, batch_idx):
                    x = batch.cuda()
                    loss = (x * x).mean()
                    self.log("train_loss", loss.item())
                    return loss
            """
        ),
        # Session 26 (heldout26): ``new_tensor`` of a host tensor makes a host tensor (no
        # copy), and one outside a hot path (a collate function) runs per batch on the host.
        Valid(
            """
            import torch
            from torch import nn
            class Net(nn.Module):
                def forward(self, x: torch.Tensor) -> torch.Tensor:
                    counts = torch.zeros(3)
                    return x + counts.new_tensor([len(x)]).sum().item()
            def collate(items, lens):
                return lens.new_tensor([len(items)])
            """
        ),
        # Session 22: a display or a number made into a tensor and moved, where nothing runs
        # per step (a constructor), where the move is a host copy or non-blocking (HTD102's),
        # the display holds values that are not proven numbers (a device reduction's result),
        # and the post-fix code of trl 0.17's KTO trainer (a device sum, no host data)
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def __init__(self, n):
                    super().__init__()
                    self.scale = torch.tensor([n, 1.0]).to("cuda")
                def forward(self, x, labels, rewards):
                    num_chosen = labels.sum().to(x.device)
                    a = torch.tensor([len(rewards)]).to("cpu")
                    b = torch.tensor([len(rewards)]).to(x.device, non_blocking=True)
                    c = torch.tensor([rewards.sum()]).to(x.device)
                    return x * self.scale, num_chosen, a, b, c
            """
        ),
        # Session 21: the `else` of `if "step" in group:` sets `group["step"]`: an optimizer's
        # lazy state, made on its first step only
        Valid(
            """
            import torch
            class Adam(torch.optim.Optimizer):
                def step(self):
                    for group in self.param_groups:
                        if "step" in group:
                            group["step"] += 1
                        else:
                            step_device = group["params"][0].device
                            group["step"] = torch.tensor([1], dtype=torch.int, device=step_device)
            """
        ),
        # kornia 0.9's flip matrix: the literal is kept only where the size is no Python number
        # (under torch.jit.trace it is a 0-d tensor); the eager arm fills on the device
        Valid(
            """
            import torch
            class Flip(torch.nn.Module):
                def forward(self, x):
                    w: int = x.shape[-1]
                    return (
                        fill_on_device([[-1, w - 1], [0, 1]], device=x.device)
                        if isinstance(w, int)
                        else torch.tensor([[-1, w - 1], [0, 1]], device=x.device)
                    )
            """
        ),
        # a data transform (a class derived from one named `...Transform`, torch-geometric's
        # Delaunay): it runs on a sample in the data pipeline, outside the steps
        Valid(
            """
            import torch
            from torch_geometric.transforms import BaseTransform
            class Delaunay(BaseTransform):
                def forward(self, data):
                    device = data.pos.device
                    data.edge_index = torch.tensor([[0, 1], [1, 0]], device=device)
                    return data
            """
        ),
        # a display of numbers at import, or of values that are not proven numbers
        Valid(
            """
            import torch
            WEIGHTS = torch.tensor([0.299, 0.587, 0.114], device="cuda")
            class M(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.register_buffer("w", torch.tensor([0.299, 0.587, 0.114], device="cuda"))
                def forward(self, x, lo, hi):
                    return x.clamp(*torch.tensor([lo, hi], device=x.device).unbind())
            """
        ),
        # a fallback defined where torch lacks it (`sinc = torch.sinc` is a rebinding, not a
        # use), called only while a filter is built in `__init__` (BigVGAN's alias-free filter)
        Valid(
            """
            import math
            import torch
            if "sinc" in dir(torch):
                sinc = torch.sinc
            else:
                def sinc(x):
                    one = torch.tensor(1.0, device=x.device, dtype=x.dtype)
                    return torch.where(x == 0, one, torch.sin(math.pi * x) / math.pi / x)
            def _kaiser_sinc_filter1d(cutoff, kernel_size):
                time = torch.arange(-kernel_size, kernel_size) / 2
                return 2 * cutoff * sinc(2 * cutoff * time)
            class LowPassFilter1d(torch.nn.Module):
                def __init__(self, cutoff=0.5, kernel_size=12):
                    super().__init__()
                    self.register_buffer("filter", _kaiser_sinc_filter1d(cutoff, kernel_size))
            """
        ),
        # set-up run once: buffers installed per layer after loading, a helper only a weight
        # loader (`load_fp16`) calls
        Valid(
            """
            import torch
            _LUT = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]
            def install_comm_state(attn_modules):
                for layer_idx, attn in enumerate(attn_modules):
                    device = next(attn.parameters()).device
                    attn.register_buffer("layer_idx", torch.tensor([layer_idx], device=device))
            def _dequant(blocks):
                lut = torch.tensor(_LUT, device=blocks.device)
                return lut[blocks.long()]
            class Linear:
                def load_fp16(self, blocks):
                    self.weight = _dequant(blocks)
            """
        ),
        # data, not a constant: HTD106's
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, ids):
                    return torch.tensor(ids, device=x.device)
            """
        ),
        # a computed number: not a constant (its value may come from the device)
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, n):
                    return torch.tensor(n * 2, device=x.device)
            """
        ),
        # made once: an initializer, a module-level constant
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.eps = torch.tensor(1e-6, device='cuda')
            """
        ),
        Valid(
            """
            import torch
            EPS = torch.tensor(1e-6, device='cuda')
            """
        ),
        # a function no hot path reaches, outside a loop
        Valid(
            """
            import torch
            def report(device):
                return torch.tensor(0.0, device=device)
            """
        ),
        # a test harness's check of a kernel's output (its name says it validates): now and then
        Valid(
            """
            import torch
            def validate(out, expected):
                ok = bool((out == expected).all())
                return torch.tensor([int(ok)], dtype=torch.int32, device=out.device)
            """
        ),
        # outside hot paths, the device of a parameter typed as no tensor (a framework object)
        # is a configured device like `self.device`: two facts inferred, not reported
        Valid(
            """
            import torch
            from lightning import Fabric
            def fit(fabric: Fabric, model, batches):
                counts = torch.tensor(0, device=fabric.device, dtype=torch.long)
                for batch in batches:
                    counts += model(batch)
                return counts
            """
        ),
        # Session 19: the test compares a host number with a device tensor (its right
        # operand): the host has just waited, and the arm queues nothing before the constant
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, longest: torch.Tensor):
                    if len(x) < longest:
                        return self.pad(x)
                    else:
                        count = torch.tensor(0, device="cuda")
                    return x, count
            """
        ),
        # Session 19: a capability probe (the tensor is thrown away inside `try`)
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    try:
                        torch.tensor([1.0], dtype=torch.bfloat16, device=x.device)
                        dtype = torch.bfloat16
                    except TypeError:
                        dtype = torch.float16
                    return x.to(dtype)
            """
        ),
        # set-up of a decoding function, before its loop of model calls: once per request,
        # nothing queued yet (the loop's own copies stay reported)
        Valid(
            """
            import torch
            class Gen:
                def _beam_search(self, input_ids, max_new_tokens):
                    trace_idx = torch.tensor(0, device=input_ids.device)
                    while trace_idx < max_new_tokens:
                        out = self(input_ids)
                        trace_idx += 1
                    return out
                def generate(self, inputs):
                    token_idx = torch.tensor(inputs.shape[1], device=inputs.device)
                    return self._beam_search(inputs, token_idx)
            """
        ),
        # in a loop, but under a first-pass flag the branch clears: once per call, not per
        # iteration (and the function is not known to run per step)
        Valid(
            """
            import torch
            def generate(model, x, steps, device):
                first = True
                for _ in range(steps):
                    x = model(x)
                    if first:
                        first = False
                        pos = torch.tensor([0], device=device)
                    else:
                        pos.add_(1)
                return x
            """
        ),
        # on the host: no copy
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    return x + torch.tensor(1.0, device='cpu')
            """
        ),
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    return x + torch.tensor(1.0)
            """
        ),
        # made on the device already
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    return x + torch.full((), 1.0, device=x.device)
            """
        ),
        # a device that the analysis cannot name
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, where):
                    return x + torch.tensor(1.0, device=where)
            """
        ),
        # under a run-once guard
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    if self.zero is None:
                        self.zero = torch.tensor(0.0, device=x.device)
                    return x + self.zero
            """
        ),
        # made on the first call only: a class attribute under an `is None` guard
        Valid(
            """
            import torch
            class Scaler(torch.autograd.Function):
                scale = None
                @staticmethod
                def backward(ctx, grad):
                    if Scaler.scale is None:
                        Scaler.scale = torch.tensor(1.0, device=grad.device)
                    return grad * Scaler.scale
            """
        ),
        # one device after another: initialising each device once
        Valid(
            """
            import torch
            def touch_devices(n):
                for i in range(n):
                    _ = torch.tensor(0, device=torch.device('cuda', i))
            """
        ),
        # made on a cache miss only: once per device
        Valid(
            """
            import torch
            CACHE = {}
            def sampler(device):
                fn = CACHE.get(device)
                if fn is None:
                    one = torch.tensor(1.0, device=device)
                    fn = CACHE[device] = one.exp
                return fn
            """
        ),
        # not hot, and saving a checkpoint runs now and then
        Valid(
            """
            import torch
            def save_checkpoint_finalize(failures):
                flag = torch.tensor([int(len(failures) > 0)], device='cuda')
                return flag
            """
        ),
        # a number the analysis cannot prove (a parameter) in a function that is not hot
        Valid(
            """
            import torch
            def scale(x, n):
                return x / torch.tensor(n, device=x.device)
            """
        ),
        # a module-level table made into a tensor once, at construction
        Valid(
            """
            import torch
            SPECIAL = [101, 102]
            class M(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.register_buffer('special', torch.tensor(SPECIAL, device='cuda'))
            """
        ),
        # Outside hot paths and loops, code that runs once though no initialiser's name says
        # so: a benchmark driver (warm-up and timed-run counts), a function named for
        # allocating buffers or preparing weights, a tuner, and a helper called only on a
        # cache miss of a function memoised by key.
        Valid(
            """
            import torch
            def run(m, warmup_iterations: int, iterations: int):
                def make_inputs():
                    return torch.tensor(0.125, dtype=torch.float32, device="cuda")
                scale = torch.tensor(0.125, dtype=torch.float32, device="cuda")
                return make_inputs(), scale
            def create_gather_gemm_tensors(n):
                return torch.tensor([n], device="cuda", dtype=torch.int32)
            def preprocess_moe_weights(w, scale: float):
                return torch.tensor((float(scale),), dtype=torch.float32, device=w.device)
            def _build_workspace(n: int):
                for rank in range(n):
                    cap = torch.tensor([rank * 2], dtype=torch.int64, device="cuda")
            def autotune_knobs(ok: bool):
                return torch.tensor([int(ok)], dtype=torch.int32, device="cuda")
            def _encode_descriptor(k: torch.Tensor):
                return torch.tensor([int(k.data_ptr())], dtype=torch.int64, device=k.device)
            def get_descriptor(k: torch.Tensor, cache: dict):
                key = (k.data_ptr(), k.device)
                cached = cache.get(key)
                if cached is not None:
                    return cached
                desc = cache[key] = _encode_descriptor(k)
                return desc
            """
        ),
        # Per call of reference implementations a kernel is checked against, and of the private
        # helpers only they use (called from them, or listed as their inlined dependencies).
        Valid(
            """
            import torch
            def _quantize_mxfp8(x: torch.Tensor):
                return x / torch.pow(torch.tensor(2.0, device=x.device), x.floor())
            def _decode_scales(x: torch.Tensor):
                return x * torch.tensor(1.0, dtype=torch.float32, device=x.device)
            def mxfp8_quantize_reference(x: torch.Tensor):
                return _quantize_mxfp8(x)
            _REFERENCE_DEPENDENCIES = (_quantize_mxfp8, _decode_scales)
            """
        ),
        # Session 17: a branch that reports a bad value and repairs it (an out-of-range SSIM
        # loss clamped after a printed warning, in SpeechBrain and Coqui): it runs when the
        # check fails, not every step.
        Valid(
            """
            import torch
            class SSIMLoss(torch.nn.Module):
                def forward(self, y, y_hat):
                    ssim_loss = self.loss_func(y, y_hat)
                    if ssim_loss.item() > 1.0:
                        print(f" > SSIM loss is out-of-range {ssim_loss.item()}, setting it 1.0")
                        ssim_loss = torch.tensor(1.0, device=ssim_loss.device)
                    return ssim_loss
            """
        ),
        # fallbacks for degenerate input: the arm taken only when a tensor has no element, or
        # when every value is NaN
        Valid(
            """
            import torch
            class Metrics(torch.nn.Module):
                def forward(self, delta, rewards):
                    device = delta.device
                    mean = delta.mean() if delta.numel() > 0 else torch.tensor(0.0, device=device)
                    if not rewards.numel():
                        return mean, torch.tensor(1.0, device=device)
                    return mean, rewards.min()
            def nanmin(t: torch.Tensor) -> torch.Tensor:
                if torch.isnan(t).all():
                    return torch.tensor(float("nan"), dtype=t.dtype, device=t.device)
                return torch.min(t[~torch.isnan(t)])
            class Loss(torch.nn.Module):
                def forward(self, x):
                    return nanmin(x)
            """
        ),
        # Session 18 (held out, torchmetrics and axolotl): right after a test that read a
        # tensor on the host (`if not indices.any():`, the `else` of `if mask.sum() > 0:`)
        # the stream is drained, and a small copy has nothing to wait for
        Valid(
            """
            import torch
            def sensitivity_at(sensitivity, specificity, thresholds, floor):
                indices = specificity >= floor
                if not indices.any():
                    best = torch.tensor(0.0, device=sensitivity.device)
                    threshold = torch.tensor(1e6, device=thresholds.device)
                else:
                    best, threshold = sensitivity[indices].max(), thresholds[indices].min()
                return best, threshold
            class Diffusion(torch.nn.Module):
                def forward(self, logits, targets, masked):
                    if masked.sum() > 0:
                        loss = torch.nn.functional.cross_entropy(logits[masked], targets[masked])
                    else:
                        loss = torch.tensor(0.0, device=logits.device, requires_grad=True)
                        accuracy = torch.tensor(0.0, device=logits.device)
                    return loss
            """
        ),
        # Session 19 (held out, MONAI's Dice): after `if y_o > 0: return ...` the rest of the
        # block is the test's `else`, right after it read `y_o` on the host
        Valid(
            """
            import torch
            class DiceHelper:
                def compute_channel(self, y_pred, y):
                    y_o = torch.sum(y)
                    if y_o > 0:
                        return 2.0 * torch.sum(y * y_pred) / (y_o + torch.sum(y_pred))
                    if self.ignore_empty:
                        return torch.tensor(float("nan"), device=y_o.device)
                    return torch.tensor(0.0, device=y_o.device)
            """
        ),
        # a warning and then a constant returned: the arm for input the metric cannot score
        Valid(
            """
            import torch
            from lightning.fabric.utilities import rank_zero_warn
            def logauc(fpr, tpr):
                if fpr.numel() < 2 or tpr.numel() < 2:
                    rank_zero_warn("At least two points are needed; returns 0.")
                    return torch.tensor(0.0, device=fpr.device)
                return torch.trapz(tpr, fpr)
            """
        ),
        # Session 31 (precision31: MONAI's ROC-AUC and average precision, torchmetrics'
        # retrieval AUROC): a statement just before that waited for the device
        # (`y_unique = y.unique()`, data-sized; `n = m.sum().item()`), or a test `0 not in t`
        # (`Tensor.__contains__` reads `(t == 0).any()`), with only quiet statements between:
        # the stream is drained, and the constant has nothing to wait for. Device work between
        # them stays reported (INVALID twin).
        Valid(
            """
            import torch
            from torch import Tensor
            def roc_auc(y_pred: Tensor, y: Tensor) -> float:
                y_unique = y.unique()
                if len(y_unique) == 1:
                    print(f"y values can not be all {y_unique.item()}")
                    return float("nan")
                if not y_unique.equal(torch.tensor([0, 1], dtype=y.dtype, device=y.device)):
                    return float("nan")
                return float(y_pred.mean())
            def retrieval_auroc(preds: Tensor, target: Tensor) -> Tensor:
                if (0 not in target) or (1 not in target):
                    return torch.tensor(0.0, device=preds.device, dtype=preds.dtype)
                return preds.mean()
            """
        ),
        # Session 35 (precision35b: exllamav3's xIELU reference, MONAI's embedding collapse):
        # the statement just before waited for the device although its value goes on after the
        # read: host arithmetic with a literal (`softplus(a).item() + 0.5`) or a non-torch
        # function given only host copies (`silhouette(e.cpu().numpy(), l.cpu().numpy())`).
        # Nothing is queued after the wait, so the constant has nothing to wait for. A tensor
        # operand after the read, or a tensor handed to the callee, stays reported (INVALID).
        Valid(
            """
            import torch
            from torch import Tensor
            from sklearn.metrics import silhouette_score
            class XIELU(torch.nn.Module):
                def forward(self, x: Tensor) -> Tensor:
                    alpha_n = torch.nn.functional.softplus(self.alpha_n.float()).item() + 0.5
                    eps = torch.tensor([-1e-6], device=x.device)
                    return torch.expm1(torch.min(x, eps)) * alpha_n
            def collapse(emb: Tensor, labels: Tensor) -> Tensor:
                sil = silhouette_score(emb.cpu().numpy(), labels.cpu().numpy(), metric="cosine")
                return torch.tensor((1.0 - float(sil)) / 2.0, device=emb.device)
            """
        ),
    )
    invalid = (
        # Session 48 (log48): Lightning's `log` makes `torch.tensor(value, device=self.device)`
        # of a Python number on every call: nemo-toolkit 2.4.1's MegatronStrategy.training_step
        # logged `self.trainer.global_step` and memory statistics per step, and its data
        # sampler's step-end hook the consumed samples (2.6.2 passes a tensor copied from
        # pinned memory).
        Invalid(
            """
            import torch
            import lightning.pytorch as pl
            from lightning.pytorch.callbacks import Callback
            class Model(pl.LightningModule):
                def training_step(self, batch, batch_idx):
                    loss = self.net(batch).mean()
                    self.log("train_loss", loss.item())
                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    self.log("lr", self.optimizers().param_groups[0]["lr"])
                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return loss
            class Monitor(Callback):
                def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
                    pl_module.log("global_step", trainer.global_step)
                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    memory = torch.cuda.max_memory_allocated() / 2**30
                    pl_module.log_dict({"memory": memory, "loss": outputs["loss"]})
                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """
        ),
        # Session 34 (precision34b, stable-audio-tools' `trim_silence`): a constant made on the
        # device of an argument whose device is unknown, per call (MEDIUM). The same function
        # in a module named for a dataset (`data/dataset.py`, `*_dataset.py`, a collation
        # module) is left alone: a dataset's samples are host data unless proven otherwise, as
        # HTD201 and HTD301 already judge there (a path, which an example cannot give: see
        # tests/test_precision_fixes_s34b.py).
        Invalid(
            """
            import torch
            def trim_silence(audio, threshold: float):
                mask = torch.abs(audio) < threshold
                starts = torch.where(torch.diff(mask.int()) == 1)[0] + 1
                if mask[0]:
                    starts = torch.cat((torch.tensor([0], device=starts.device), starts))
                                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return starts
            """,
            expected_fix="""
            import torch
            def trim_silence(audio, threshold: float):
                mask = torch.abs(audio) < threshold
                starts = torch.where(torch.diff(mask.int()) == 1)[0] + 1
                if mask[0]:
                    starts = torch.cat((torch.full((1,), 0, device=starts.device), starts))
                return starts
            """,
        ),
        # Session 26 (heldout26): ``x.new_tensor([0])`` is ``torch.tensor([0],
        # device=x.device)``: a constant copied to ``x``'s device on every call (optimum-intel's
        # per-layer ``input_lens.new_tensor([0])``).
        Invalid(
            """
            import torch
            from torch import nn
            class Attn(nn.Module):
                def forward(self, q: torch.Tensor, input_lens: torch.Tensor) -> torch.Tensor:
                    seq = torch.cat((input_lens.new_tensor([0]), input_lens.cumsum(-1)))
                                     ^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return q[seq]
            """
        ),
        # Session 22 (trl 0.15's KTO trainer, timm 1.0.9's Lamb): a display of Python numbers,
        # or a computed number, made into a tensor on the host and then moved, per step: the
        # same blocking copy as `torch.tensor([n], device=dev)` (0-d literals are HTD301's)
        Invalid(
            """
            import torch
            class KTOTrainer:
                def compute_loss(self, model, inputs):
                    chosen_rewards = model(inputs)
                    num_chosen = torch.Tensor([len(chosen_rewards)]).to(self.accelerator.device)
                    #            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    bounds = torch.tensor([0.0, inputs.shape[1]]).float().cuda()
                    #        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    steps = torch.tensor(inputs.shape[0] * 2).to("cuda")
                    #       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return num_chosen, bounds, steps
            """
        ),
        # Session 27 (held out: ai2-olmo-core 2.1's AdamW, `torch.tensor(0.0, device=p.device)`
        # per parameter; 2.3 fills with `torch.zeros`): on a hot path, a device that changes
        # with the loop (each parameter's) is one copy per iteration of every call all the
        # same, not one device initialised after another
        Invalid(
            """
            import torch
            class SkipStepAdamW(torch.optim.Optimizer):
                def step(self, closure=None):
                    for group in self.param_groups:
                        for p in group["params"]:
                            one = torch.tensor(1.0, dtype=torch.float32, device=p.device)
                            #     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                            p.mul_(one)
            """,
            expected_fix="""
            import torch
            class SkipStepAdamW(torch.optim.Optimizer):
                def step(self, closure=None):
                    for group in self.param_groups:
                        for p in group["params"]:
                            one = torch.full((), 1.0, dtype=torch.float32, device=p.device)
                            p.mul_(one)
            """,
        ),
        # Session 28: an optimizer's per-parameter state set up while it is still empty is made
        # once per parameter, but on the first step that is one blocking copy per parameter
        # (thousands): ai2-olmo-core 2.1's AdamW, which 2.3 replaced with `torch.zeros((),
        # device=p.device)` (a held-out upstream fix). The `else` of `if "step" in group:`
        # above is once per group.
        Invalid(
            """
            import torch
            class AdamW(torch.optim.Optimizer):
                def step(self, closure=None):
                    for group in self.param_groups:
                        for p in group["params"]:
                            state = self.state[p]
                            if len(state) == 0:
                                state["step"] = torch.tensor(0.0, device=p.device)
                                #               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                            state["step"] += 1
            """,
            expected_fix="""
            import torch
            class AdamW(torch.optim.Optimizer):
                def step(self, closure=None):
                    for group in self.param_groups:
                        for p in group["params"]:
                            state = self.state[p]
                            if len(state) == 0:
                                state["step"] = torch.full((), 0.0, device=p.device)
                            state["step"] += 1
            """,
        ),
        # Session 21's twin: the `else` sets another entry than the one tested: per step
        Invalid(
            """
            import torch
            class Adam(torch.optim.Optimizer):
                def step(self):
                    for group in self.param_groups:
                        if "step" in group:
                            group["step"] += 1
                        else:
                            dev = group["params"][0].device
                            group["count"] = torch.tensor([1], dtype=torch.int, device=dev)
                                             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            class Adam(torch.optim.Optimizer):
                def step(self):
                    for group in self.param_groups:
                        if "step" in group:
                            group["step"] += 1
                        else:
                            dev = group["params"][0].device
                            group["count"] = torch.full((1,), 1, dtype=torch.int, device=dev)
            """,
        ),
        # Session 20 (kornia 0.8's grayscale weights, rotation centres, flip matrices; 0.9
        # fills them on the device): several numbers are the same blocking copy as one, only
        # without a `torch.full` fix
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    return x * torch.tensor([1.0, 2.0], device=x.device)
                               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="constant tensor of 2 Python numbers",
        ),
        # a layer named `...Transform` (MONAI's HilbertTransform(nn.Module)) is no data transform
        Invalid(
            """
            import torch
            class HilbertTransform(torch.nn.Module):
                def forward(self, f):
                    return torch.heaviside(f, torch.tensor([0.5, 0.5], device=f.device))
                                              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # a parameter's default made under `if weights is None:`: on every call without one
        Invalid(
            """
            import torch
            def gray(image, weights=None):
                if weights is None:
                    weights = torch.tensor([0.299, 0.587, 0.114], device=image.device)
                              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return image * weights
            """,
            message_contains="per call",
        ),
        Invalid(
            """
            import torch
            def center(t: torch.Tensor):
                h, w = t.shape[-2:]
                return torch.tensor([float(w - 1) / 2, float(h - 1) / 2], device=t.device)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="per call",
        ),
        # Session 19's twin: inside `try`, but the tensor is used
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    try:
                        one = torch.tensor([1.0], dtype=torch.bfloat16, device=x.device)
                              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    except TypeError:
                        one = 1.0
                    return x * one
            """,
            expected_fix="""
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    try:
                        one = torch.full((1,), 1.0, dtype=torch.bfloat16, device=x.device)
                    except TypeError:
                        one = 1.0
                    return x * one
            """,
        ),
        # Session 19's twin: a concatenation queued between the test and the constant
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, longest: torch.Tensor):
                    if len(x) < longest:
                        x = torch.cat([x, x[:1]])
                        count = torch.tensor(1, device="cuda")
                                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                        return x, count
                    return x
            """,
            expected_fix="""
            import torch
            class M(torch.nn.Module):
                def forward(self, x, longest: torch.Tensor):
                    if len(x) < longest:
                        x = torch.cat([x, x[:1]])
                        count = torch.full((), 1, device="cuda")
                        return x, count
                    return x
            """,
        ),
        # Session 19's twin: the decoding loop's own copy, every step (its set-up before the
        # loop is valid); a function with no loop of model calls still pays per call; set-up
        # after the prefill waits for it
        Invalid(
            """
            import torch
            def generate(model, prompt, n):
                token = model(prompt)
                input_pos = torch.tensor([prompt.shape[-1]], device=prompt.device)
                            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                while n:
                    token = model(token, input_pos)
                    n -= 1
                return token
            """,
            expected_fix="""
            import torch
            def generate(model, prompt, n):
                token = model(prompt)
                input_pos = torch.full((1,), prompt.shape[-1], device=prompt.device)
                while n:
                    token = model(token, input_pos)
                    n -= 1
                return token
            """,
        ),
        Invalid(
            """
            import torch
            class Gen:
                def _beam_search(self, input_ids, logits, n):
                    while n:
                        out = self(input_ids)
                        idx = torch.tensor(out.shape[-2], device=input_ids.device)
                              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                        n -= 1
                    return idx
            def grad_scale(grads):
                return torch.tensor(1.0, device=grads[0].device)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            class Gen:
                def _beam_search(self, input_ids, logits, n):
                    while n:
                        out = self(input_ids)
                        idx = torch.full((), out.shape[-2], device=input_ids.device)
                        n -= 1
                    return idx
            def grad_scale(grads):
                return torch.full((), 1.0, device=grads[0].device)
            """,
        ),
        # Session 19's twin: the exit's test reads no tensor (`if self.flag:`), and device work
        # queued after a test that did (`denorm = ...`) comes before the constant
        Invalid(
            """
            import torch
            class DiceHelper:
                def compute_channel(self, y_pred, y):
                    y_o = torch.sum(y)
                    if self.flag:
                        return y_o
                    return torch.tensor(0.0, device=y_o.device)
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                def compute_other(self, y_pred, y):
                    y_o = torch.sum(y)
                    if y_o > 0:
                        return y_o
                    denorm = self.proj(y_pred)
                    return torch.tensor(1.0, device=y_o.device) * denorm
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            class DiceHelper:
                def compute_channel(self, y_pred, y):
                    y_o = torch.sum(y)
                    if self.flag:
                        return y_o
                    return torch.full((), 0.0, device=y_o.device)
                def compute_other(self, y_pred, y):
                    y_o = torch.sum(y)
                    if y_o > 0:
                        return y_o
                    denorm = self.proj(y_pred)
                    return torch.full((), 1.0, device=y_o.device) * denorm
            """,
        ),
        # Session 18's twins: device work queued between the test and the constant (the
        # copy waits for it), and a test of a tensor made on the host (it waited for nothing)
        Invalid(
            """
            import torch
            class Loss(torch.nn.Module):
                def forward(self, x, mask):
                    if mask.any():
                        y = self.proj(x)
                        scale = torch.tensor(2.0, device=x.device)
                                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                        return y * scale
                    return x
            def clip(x, lens):
                lengths = torch.tensor(lens)
                if lengths.max() > 10:
                    return x * torch.tensor(0.5, device=x.device)
                               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return x
            """,
            expected_fix="""
            import torch
            class Loss(torch.nn.Module):
                def forward(self, x, mask):
                    if mask.any():
                        y = self.proj(x)
                        scale = torch.full((), 2.0, device=x.device)
                        return y * scale
                    return x
            def clip(x, lens):
                lengths = torch.tensor(lens)
                if lengths.max() > 10:
                    return x * torch.full((), 0.5, device=x.device)
                return x
            """,
        ),
        # Session 17's twins: a branch that warns and then does other work (a fallback that
        # may be taken every step), and one that logs after its work.
        Invalid(
            """
            import torch
            class Scaler(torch.nn.Module):
                def forward(self, x, logger):
                    if self.fallback:
                        logger.warning("slow path")
                        scale = torch.tensor([2.0], device=x.device)
                                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                        x = x * scale
                    if self.rescale:
                        x = torch.tensor([3.0], device=x.device)
                            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                        logger.info("rescaled")
                    return x
            """,
            expected_fix="""
            import torch
            class Scaler(torch.nn.Module):
                def forward(self, x, logger):
                    if self.fallback:
                        logger.warning("slow path")
                        scale = torch.full((1,), 2.0, device=x.device)
                        x = x * scale
                    if self.rescale:
                        x = torch.full((1,), 3.0, device=x.device)
                        logger.info("rescaled")
                    return x
            """,
        ),
        # the same helper called by a forward as well as by the weight loader
        Invalid(
            """
            import torch
            _LUT = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]
            def _dequant(blocks):
                lut = torch.tensor(_LUT, device=blocks.device)
                      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return lut[blocks.long()]
            class Linear:
                def load_fp16(self, blocks):
                    self.weight = _dequant(blocks)
                def forward(self, blocks):
                    return _dequant(blocks)
            """,
        ),
        # the arm for non-empty input runs every step; an empty dimension (a frame with no
        # detection), a 0-d tensor and a single element are states of normal runs
        Invalid(
            """
            import torch
            class Metrics(torch.nn.Module):
                def forward(self, delta, dets, scale):
                    zero = torch.tensor(0.0, device=delta.device) if delta.numel() > 0 else None
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    if dets.size(0) == 0:
                        return torch.tensor(1.0, device=delta.device)
                               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    if len(scale.shape) == 0:
                        scale = torch.tensor([1.0], device=delta.device)
                                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    one = torch.tensor(1.0, device=delta.device) if scale.numel() > 1 else scale
                          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return zero, one
            """,
            expected_fix="""
            import torch
            class Metrics(torch.nn.Module):
                def forward(self, delta, dets, scale):
                    zero = torch.full((), 0.0, device=delta.device) if delta.numel() > 0 else None
                    if dets.size(0) == 0:
                        return torch.full((), 1.0, device=delta.device)
                    if len(scale.shape) == 0:
                        scale = torch.full((1,), 1.0, device=delta.device)
                    one = torch.full((), 1.0, device=delta.device) if scale.numel() > 1 else scale
                    return zero, one
            """,
        ),
        # A helper that per-call code uses besides a reference stays reported.
        Invalid(
            """
            import torch
            def _quantize_mxfp8(x: torch.Tensor):
                return x / torch.pow(torch.tensor(2.0, device=x.device), x.floor())
                                     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            def mxfp8_quantize_reference(x: torch.Tensor):
                return _quantize_mxfp8(x)
            def mxfp8_quantize(x: torch.Tensor):
                return _quantize_mxfp8(x)
            """,
            message_contains="per call",
            expected_fix="""
            import torch
            def _quantize_mxfp8(x: torch.Tensor):
                return x / torch.pow(torch.full((), 2.0, device=x.device), x.floor())
            def mxfp8_quantize_reference(x: torch.Tensor):
                return _quantize_mxfp8(x)
            def mxfp8_quantize(x: torch.Tensor):
                return _quantize_mxfp8(x)
            """,
        ),
        # A per-call helper with no such name stays reported: a MoE LoRA delta runs per forward.
        Invalid(
            """
            import torch
            def moe_lora_delta(hidden_states: torch.Tensor):
                device = hidden_states.device
                starts = torch.tensor([0], dtype=torch.int64, device=device)
                         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return starts
            def fit(model, lr_warmup_steps: int, max_iters: int):
                return torch.tensor([1.0], device="cuda")
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="per call",
            expected_fix="""
            import torch
            def moe_lora_delta(hidden_states: torch.Tensor):
                device = hidden_states.device
                starts = torch.full((1,), 0, dtype=torch.int64, device=device)
                return starts
            def fit(model, lr_warmup_steps: int, max_iters: int):
                return torch.full((1,), 1.0, device="cuda")
            """,
        ),
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    return x + torch.tensor(1.0, device=x.device)
                               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    return x + torch.full((), 1.0, device=x.device)
            """,
        ),
        Invalid(
            """
            import torch
            def step(grads):
                overflow = torch.tensor([0], dtype=torch.int, device='cuda')
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return overflow
            """,
            expected_fix="""
            import torch
            def step(grads):
                overflow = torch.full((1,), 0, dtype=torch.int, device='cuda')
                return overflow
            """,
        ),
        # in a loop of a function no hot path reaches: once per iteration
        Invalid(
            """
            import torch
            def total(xs, device):
                out = []
                for x in xs:
                    out.append(x + torch.tensor(-1, device=device))
                                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return out
            """,
            expected_fix="""
            import torch
            def total(xs, device):
                out = []
                for x in xs:
                    out.append(x + torch.full((), -1, device=device))
                return out
            """,
        ),
        Invalid(
            """
            import torch
            class S:
                def step(self, sample):
                    rhos = torch.tensor([0.5], dtype=sample.dtype, device=sample.device)
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return sample * rhos
            """,
            expected_fix="""
            import torch
            class S:
                def step(self, sample):
                    rhos = torch.full((1,), 0.5, dtype=sample.dtype, device=sample.device)
                    return sample * rhos
            """,
        ),
        Invalid(
            """
            from torch import as_tensor
            class M:
                def forward(self, x):
                    return x.clamp(min=as_tensor(0.0, device=x.device))
                                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, mask):
                    return torch.where(mask, x, torch.tensor(False, device=x.device))
                                                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            class M(torch.nn.Module):
                def forward(self, x, mask):
                    return torch.where(mask, x, torch.full((), False, device=x.device))
            """,
        ),
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    return self.helper(x)
                def helper(self, x):
                    return x - torch.tensor(float('inf'), device=x.device)
                               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    return self.helper(x)
                def helper(self, x):
                    return x - torch.full((), float('inf'), device=x.device)
            """,
        ),
        Invalid(
            """
            import torch
            def train(model, batches):
                while batches:
                    b = batches.pop()
                    model(b, torch.tensor(1, device='cuda'))
                             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def train(model, batches):
                while batches:
                    b = batches.pop()
                    model(b, torch.full((), 1, device='cuda'))
            """,
        ),
        # not hot by any name, but a blocking copy on every call: MEDIUM
        Invalid(
            """
            import torch
            def grad_norm(grads):
                buf = torch.tensor([0], dtype=torch.int, device='cuda')
                      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return buf
            """,
            expected_fix="""
            import torch
            def grad_norm(grads):
                buf = torch.full((1,), 0, dtype=torch.int, device='cuda')
                return buf
            """,
            message_contains="certain if this function runs per step",
        ),
        # a Python number computed on the host: `float(...)`, for the device of data in hand
        Invalid(
            """
            import torch
            def qparams(lo, hi, qmin, qmax):
                return (hi - lo) / torch.tensor(float(qmax - qmin), device=lo.device)
                                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def qparams(lo, hi, qmin, qmax):
                return (hi - lo) / torch.full((), float(qmax - qmin), device=lo.device)
            """,
        ),
        # per denoising step: a number made of the loop's counter
        Invalid(
            """
            import torch
            def sample(model, x, num_steps, device):
                dt = -1.0 / num_steps
                for step in range(num_steps):
                    t = 1.0 + step * dt
                    x = model(x, torch.tensor(t, dtype=torch.float32, device=device))
                                 ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return x
            """,
            expected_fix="""
            import torch
            def sample(model, x, num_steps, device):
                dt = -1.0 / num_steps
                for step in range(num_steps):
                    t = 1.0 + step * dt
                    x = model(x, torch.full((), t, dtype=torch.float32, device=device))
                return x
            """,
        ),
        # a module-level table copied on every forward: build it once (no automatic fix)
        Invalid(
            """
            import torch
            SPECIAL = [101, 102, 103]
            class M(torch.nn.Module):
                def forward(self, ids):
                    return torch.isin(ids, torch.tensor(SPECIAL, device=ids.device))
                                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="module-level `SPECIAL`",
        ),
        # Session 31: the VALID ROC-AUC's twin: device work (`y_pred.softmax`) queued after the
        # data-sized `y.unique()` read, so the constant's copy waits for it
        Invalid(
            """
            import torch
            from torch import Tensor
            def roc_auc(y_pred: Tensor, y: Tensor) -> float:
                y_unique = y.unique()
                y_pred = y_pred.softmax(-1)
                if not y_unique.equal(torch.tensor([0, 1], dtype=y.dtype, device=y.device)):
                                      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return float("nan")
                return float(y_pred.mean())
            """
        ),
        # Session 35: the VALID xIELU's and embedding collapse's twins: the read's number is
        # multiplied by a device tensor (device work after the read), and the callee is handed
        # a tensor (`.cpu()` without `.numpy()`: a function may move it back and compute)
        Invalid(
            """
            import torch
            from torch import Tensor
            class XIELU(torch.nn.Module):
                def forward(self, x: Tensor) -> Tensor:
                    alpha_n = torch.nn.functional.softplus(self.alpha_n.float()).item() * x
                    eps = torch.tensor([-1e-6], device=x.device)
                          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return torch.expm1(torch.min(x, eps)) * alpha_n
            """,
            expected_fix="""
            import torch
            from torch import Tensor
            class XIELU(torch.nn.Module):
                def forward(self, x: Tensor) -> Tensor:
                    alpha_n = torch.nn.functional.softplus(self.alpha_n.float()).item() * x
                    eps = torch.full((1,), -1e-6, device=x.device)
                    return torch.expm1(torch.min(x, eps)) * alpha_n
            """,
        ),
        Invalid(
            """
            import torch
            from torch import Tensor
            def collapse(emb: Tensor, labels: Tensor) -> Tensor:
                sil = score_on_gpu(emb.detach().cpu(), labels.cpu().numpy())
                return torch.tensor((1.0 - float(sil)) / 2.0, device=emb.device)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            from torch import Tensor
            def collapse(emb: Tensor, labels: Tensor) -> Tensor:
                sil = score_on_gpu(emb.detach().cpu(), labels.cpu().numpy())
                return torch.full((), (1.0 - float(sil)) / 2.0, device=emb.device)
            """,
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        provenance = Provenance.of(self.context)
        device = keyword(node, "device")
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("log", "log_dict"):
            self._judge_log(node)
            return
        if isinstance(func, cst.Attribute) and func.attr.value == "new_tensor":
            # ``lens.new_tensor([0])``: ``torch.tensor([0], device=lens.device)`` said through
            # a tensor (only tensors have ``new_tensor``): the same copy to its device
            data = first_positional(node)
            if data is None or keyword(node, "pin_memory") is not None:
                return
            if not isinstance(provenance.current_frame().function, cst.FunctionDef):
                return  # module level: runs once
            where = cst.Attribute(value=func.value, attr=cst.Name("device"))
            self._judge(
                node, data, device.value if device is not None else where, None, per_call=False
            )
            return
        if device is None:
            # ``torch.tensor([len(x)]).to(device)``: the same copy, written with a move
            frame = provenance.current_frame()
            moved = moved_constant(node, provenance, frame)
            if moved is not None and isinstance(frame.function, cst.FunctionDef):
                self._judge(node, moved.data, moved.device, moved.by_value)
            return
        if keyword(node, "pin_memory") is not None:
            return
        data = first_positional(node)
        if data is None:
            return
        if provenance.qualify(node.func) not in CONSTRUCTORS:
            return
        if not isinstance(provenance.current_frame().function, cst.FunctionDef):
            return  # module level: runs once
        self._judge(node, data, device.value, None)

    def _judge_log(self, node: cst.Call) -> None:
        """A Lightning module's ``self.log(name, number)`` per step: Lightning makes
        ``torch.tensor(number, device=self.device)`` of it."""
        logged = logged_per_step(node, self.context)
        if logged is None:
            return
        method = "log_dict" if "log_dict" in self.context.module.code_for_node(node.func) else "log"
        self.report(
            node,
            f"{logged} logged through a Lightning module's `{method}` per step "
            "(certain if the module is on a GPU): Lightning makes `torch.tensor(value, "
            "device=self.device)` of each number, a blocking copy from pageable memory that "
            "waits for the stream every step; log the tensor itself (the loss, not "
            "`loss.item()`), keep counters in a device tensor, or copy the number from a "
            "pinned buffer with `non_blocking=True`",
            confidence=Confidence.MEDIUM,
        )

    def _judge(
        self,
        node: cst.Call,
        data: cst.BaseExpression,
        device: cst.BaseExpression | None,
        moved_by_value: bool | None,
        *,
        per_call: bool = True,
    ) -> None:
        """Report ``node``, a constant tensor made on the device (``device`` the argument; a
        move when ``moved_by_value`` is not None, ``device`` None for a bare ``.cuda()``); not
        ``per_call``: only in a loop or on a hot path."""
        provenance = Provenance.of(self.context)
        frame = provenance.current_frame()
        fill = number_fill(data, provenance, frame)
        table = None
        numbers = None
        if fill is None:
            if isinstance(data, cst.Name):
                table = data.value if module_constant(provenance, data) is not None else None
            numbers = (
                number_display(provenance, data, frame, (*self.context.ancestors, node))
                if table is None
                else None
            )
            if table is None and numbers is None:
                return
        ancestors = self.context.ancestors
        if RunOnce.of(self.context).code(ancestors):
            return
        hot_paths = HotPaths.of(self.context)
        in_loop = in_loop_body(ancestors) and not hot_paths.test_module
        by_name = (
            hot_paths.why_hot_at(ancestors) is not None or per_batch_method(ancestors) is not None
        )
        if in_loop and not by_name and setup_function(ancestors):
            return  # a loop over layers or ranks while allocating a workspace: once per set-up
        hot = in_loop or by_name
        if not hot and not per_call:
            return  # ``x.new_tensor(c)`` only where it runs often: ``x`` is often host data
        if not hot and (
            hot_paths.test_module
            or host_side(self.context)
            or dataset_module(self.context)  # a dataset's samples: host data, as for HTD201
            or in_host_pipeline_class(ancestors)
            or occasional(self.context.path, ancestors, cold=True)
        ):
            return
        if set_once(ancestors, self.context.module, provenance, frame):
            return
        if degenerate_fallback(ancestors, node) or repaired_value(ancestors, node):
            return  # empty input only (``x.mean() if x.numel() > 0 else ...``), a failed check
        if waited_at_test(provenance, ancestors, node):
            return  # ``if not mask.any(): best = torch.tensor(1e6, ...)``: nothing to wait for
        if not in_loop and in_reference_code(self.context, ancestors):
            return  # per call of a reference implementation, or of a helper only it calls
        if export_branch(ancestors, self.context.module) or _probe(ancestors, node):
            return  # an export branch; a capability probe whose tensor is thrown away
        if not hot and (
            pipeline_code(self.context.path, ancestors) or request_setup(ancestors, node)
        ):
            return  # per request, before the steps: nothing queued to wait for
        if device is not None and in_loop and not by_name and varies_with_loop(device, ancestors):
            # One device after another (initialising each), not one copy repeated; on a hot
            # path (an optimizer's `step` over its parameters, `p.device`) each iteration of
            # each call copies its constant all the same.
            return
        if moved_by_value is None:
            assert device is not None
            if provenance.device_target(device, frame, allocation=True) is not Target.DEVICE:
                return
            by_value = device_by_value(device, provenance, frame)
        else:
            by_value = moved_by_value  # the move's target is a device (``Move.of``)
        if (
            not hot
            and not by_value
            and (device is None or not tensor_device(device, provenance, frame))
        ):
            return  # two facts inferred: that it runs often, and that the name is a GPU
        if not (by_value and hot) and export_module(self.context.path):
            return  # MEDIUM in an exporter's or a host runtime's module: traced once
        where = "in a loop" if in_loop else "on a hot path" if hot else "per call"
        doubts = []
        if not by_value and device is not None:
            code = self.context.module.code_for_node(device)
            doubts.append(f"`{code}` is a GPU, as its name says")
        if not hot:
            doubts.append("this function runs per step or per request")
        certain = f" (certain if {' and '.join(doubts)})" if doubts else ""
        if table is not None:
            self.report(
                node,
                f"constant tensor built from the module-level `{table}` on the device "
                f"{where}{certain}: a blocking copy from pageable memory waits for the stream "
                "every time; build it once (a buffer of the module, or a cached tensor per "
                "device)",
                confidence=Confidence.HIGH if by_value and hot else Confidence.MEDIUM,
            )
            return
        if numbers is not None:
            self.report(
                node,
                f"constant tensor of {numbers} Python numbers built on the host and copied to the "
                f"device {where}{certain}: a blocking copy from pageable memory waits for the "
                "stream every time; build it once (a buffer of the module, or a cached tensor "
                "per device), or compute with the numbers themselves",
                confidence=Confidence.HIGH if by_value and hot else Confidence.MEDIUM,
            )
            return
        assert fill is not None
        full = _full(node, fill) if moved_by_value is None else None
        self.report(
            node,
            f"constant tensor built on the host and copied to the device {where}{certain}: a "
            "blocking copy from pageable memory waits for the stream every time; make it on "
            "the device with `torch.full`, or pass the number itself",
            replacements=[(node, full)] if full is not None else (),
            confidence=Confidence.HIGH if by_value and hot else Confidence.MEDIUM,
        )


def _full(call: cst.Call, fill: tuple[str, cst.BaseExpression]) -> cst.Call | None:
    """``torch.full(shape, c, ...)`` with the call's keywords, or None where the call has
    other arguments or is not ``<module>.tensor``/``<module>.as_tensor`` (the fix renames the
    attribute only: no import to add)."""
    func = call.func
    if not isinstance(func, cst.Attribute) or not isinstance(func.value, cst.Name):
        return None
    if func.attr.value not in ("tensor", "as_tensor"):
        return None  # ``x.new_tensor(c)``: no ``x.full``
    first, *rest = call.args
    if first.keyword is not None or first.star:
        return None
    if any(a.keyword is None or a.star or a.keyword.value not in KEPT_KEYWORDS for a in rest):
        return None
    shape, value = fill
    space = cst.SimpleWhitespace(" ")
    return call.with_changes(
        func=func.with_changes(attr=cst.Name("full")),
        args=[
            cst.Arg(cst.parse_expression(shape), comma=cst.Comma(whitespace_after=space)),
            first.with_changes(value=value),
            *rest,
        ],
    )


def _probe(ancestors: list[cst.CSTNode], node: cst.Call) -> bool:
    """``try: torch.tensor([1.0], dtype=torch.bfloat16, device=d)`` ``except TypeError:``:
    a statement that makes the tensor and throws it away inside a ``try`` body tests whether
    the device supports it (once per set-up, and its copy is not on any path of the data)."""
    if not ancestors or not (isinstance(ancestors[-1], cst.Expr) and ancestors[-1].value is node):
        return False
    for parent in reversed(ancestors):
        if isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.For, cst.While)):
            return False
        if isinstance(parent, cst.Try):
            return True
    return False
