from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.arguments import host_named, keyword, positional
from h2dlint.analysis.bindings import COMPREHENSIONS
from h2dlint.analysis.device_loops import DeviceLoop, device_loop
from h2dlint.analysis.element_writes import ONE_ELEMENT, syncing_write
from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.host_data import host_scalar
from h2dlint.analysis.host_inputs import prepared_on_host
from h2dlint.analysis.hot_paths import HotPaths
from h2dlint.analysis.once import RunOnce
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.sync_basics import RowLoop, periodic_test
from h2dlint.analysis.syncs import row_loop, sync_of
from h2dlint.analysis.tensor_kinds import (
    annotated_tensor_parameter,
    module_named,
    on_host_by_name,
    tensor_evidence,
)
from h2dlint.analysis.value_syncs import (
    COMPARISON_OPERATORS,
    MASK_METHODS,
    explicit_sync,
    tensor_test,
    value_where,
)
from h2dlint.candidate_terms import called_as
from h2dlint.diagnostics import Confidence
from h2dlint.rule import Invalid, Rule, Valid
from h2dlint.walk import visit_read_only

# torch.<factory>(*sizes): every positional argument is a size (or a tuple of sizes).
SIZE_FACTORIES = frozenset(
    f"torch.{name}" for name in ("arange", "zeros", "ones", "empty", "rand", "randn", "full")
)
# Only the first positional argument is the size (``torch.full(size, value)``).
FIRST_ARG_SIZE = frozenset({"torch.full"})
# Tensor methods whose positional arguments are sizes (``x.repeat(n, 1)``, ``x.view(n, -1)``).
SIZE_METHODS = frozenset(
    {"repeat", "view", "reshape", "expand", "tile", "new_zeros", "new_ones", "new_empty"}
)
# Calls whose output size depends on the data: the host waits to learn it.
DATA_SIZED_METHODS = frozenset(
    {"nonzero", "argwhere", "unique", "unique_consecutive", "masked_select"}
)
DATA_SIZED_FUNCTIONS = frozenset(f"torch.{name}" for name in DATA_SIZED_METHODS)
# Calls whose arguments are only logged or printed.
LOGGING_METHODS = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "log", "print", "write"}
)
# Tensor methods that reduce to one value when called without arguments.
REDUCTIONS = frozenset({"sum", "max", "min", "mean", "prod", "amax", "amin", "norm", "item"})
# Second words of functions named ``log_*`` that compute, not log (``log_softmax``).
MATH_WORDS = frozenset({"softmax", "sigmoid", "sum", "prob", "probs", "det", "normal", "ndtr"})
# Guards of code that runs only while tracing or scripting, never in eager steps.
TRACING_GUARDS = frozenset({"is_tracing", "is_scripting", "is_compiling", "is_fx_tracing"})
# Words in an `if` test that say the branch is for debugging.
DEBUG_WORDS = (
    "debug",
    "verbose",
    "isenabledfor",
    "check_",
    "validate",
    "sanity",
    "device.type",
    "report",
    "should_log",
)

_MESSAGES = {
    "element-write": "PyTorch copies the number from the host, blocking; fill on the device "
    "instead (`x[i].fill_(v)`, `x.index_fill_(dim, idx, v)`), or write a host (pinned) copy "
    "and copy it to the device once per step",
    "read": "keep the value on the device and use it as a tensor, or read it on the host "
    "only every N steps",
    "copy": "copy it with `.to('cpu', non_blocking=True)` into pinned memory and wait on an "
    "event only where the values are needed",
    "size": "pass a size known on the host (a Python int kept next to the tensor), or "
    "allocate for the upper bound and mask",
    "mask": "keep the shape: `torch.where(mask, x, 0)` or `x.masked_fill(~mask, 0)`, or "
    "index with positions computed on the host",
    "data-sized": "use a fixed-size form (`torch.nonzero_static(..., size=n)`, "
    "`torch.where(mask, x, fill)`), or compute it on host data",
    "repeat_interleave": "pass `output_size=` with the total as a host int",
    "test": "decide on the device with `torch.where`, or on host data you already have",
    "mask-write": "keep the shape: `x.masked_scatter_(mask[..., None], values)` (values in "
    "mask order) or `torch.where(mask[..., None], new, x)` write without reading the mask on "
    "the host",
}


class SyncOnHotPath(Rule):
    """## What it does
    Flags a single host sync of a device tensor on a hot path, code that runs once per step or
    per request: an explicit read (`.item()`, `.tolist()`, `int(t)`, `float(t)`, `bool(t)`, a
    tensor as an `if` test such as `if mask.any():`), a blocking copy to the host (`.cpu()`,
    `.to("cpu")`, also when the function already made a host copy of the same tensor), and
    implicit syncs: a device scalar used as a size (`torch.arange(n)`, `torch.zeros(n)`,
    `x.repeat(n, 1)`, `x.view(n, -1)`), boolean-mask indexing (`x[x > 0]`), writes of many
    values through a boolean mask (`embeds[is_image] = image_embeds`, and any `x[mask] += v`:
    PyTorch turns the mask into indices with `nonzero`; `x[mask] = 0` is a `masked_fill` and
    does not sync), a Python number written into one element of a device tensor
    (`seq_lens[i] = n` of a 1-D tensor, `block_table[i, j] = b` of a 2-D one: the number of
    dimensions must be known from where the tensor was made) or through a list or tensor of
    indices (`logits[:, banned] = -inf`), which PyTorch copies from the host, blocking, and
    calls whose output size depends on the data (`nonzero`, `argwhere`, `unique`,
    `masked_select`, `repeat_interleave` with a tensor of repeats and no `output_size=`).

    A function is on a *hot path* when it runs per step or per request: `forward` or
    `__call__` of a class; a step-like entry point by name (`step`, `training_step`,
    `execute_model`, `prepare_inputs`, `schedule`, `update_from_output`, `sample`, `decode`,
    `handle`, `process_request`...); `build()` of an attention metadata builder (a class named
    `...Metadata...Builder`) and functions named for the per-step metadata of attention or a
    batch (`init_forward_metadata`, `build_attn_metadata`), which run per step although
    `build`/`init_` names are otherwise run-once; alternate constructors (`new`, `init_new`,
    `create`, `build`, `from_*`) and `prepare*` methods of a class named for the state an engine
    builds every step (a last word `Context`/`Batch`/`Inputs`/`Meta`/`Metadata` after a
    `Step`/`Forward`/`Schedule`/`Input` word: `StepContext.new`, `ForwardBatch.init_new`,
    not pipeline blocks named `...PrepareLatentsStep`); a name with a `step` word
    (`update_step_context`, `decode_step`), `forward`/`fwd` first or last (`forward_decode`,
    `_attn_forward`), a
    forward hook (`pre_process_fwd_hook`), or a top-level function with an `attention`/`attn`
    word (attention backends and their helpers) — not names that configure or count
    (`set_step`, `get_*`, `num_steps`, `register_*`) or debug (`dump_*`, `print_*`, `debug_*`,
    `show_*`, `plot_*`); or a function the same module calls from
    one (`self.method(...)` of the same class, a module function), transitively. The body of a
    `for` loop whose every iteration runs device work is hot too, wherever the loop is: a
    backward pass, an optimizer step or a CUDA graph replay (a training loop), or a copy to the
    device (`x.to(device)`) for reads of values computed from the copied data. Run-once code
    (`__init__`, setup, loaders, tests, memoised functions, code under a run-once guard such as
    `if self.cache is None:`) is never hot. Configure it with `[tool.h2dlint.analysis]
    hot-functions = [...]` and `cold-functions = [...]` (names, `Class.method`, globs).

    Confidence: HIGH when the analysis proves the tensor is on a device (`.cuda()`,
    `.to(device)`, `device=` of a factory, and what is computed from those); MEDIUM when it is
    surely a tensor whose device is unknown: a parameter annotated `torch.Tensor`, a field a
    class of the project declares as a tensor (`seq_lens: torch.Tensor` of a dataclass of
    step inputs), a `torch.<function>` result (`torch.cat(...)`, `torch.max(x)`), a method
    only tensors have (`x.int()`, `x.detach()`), a reduction or comparison read with
    `.item()`/`.tolist()` (`ctx.q_seqlens.max().item()`, `(a == b).tolist()`), the used
    result of a `.cpu()` of something not named as a module, or a name bound only to such
    values. Used as a size, a slice bound or compared in an `if` test, only a reduction
    (`x.max()`) or a parameter annotated as a tensor (`input_pos_maxp1: Optional[Tensor]`
    in `mask[..., :input_pos_maxp1]`: it can only be a 0-d tensor there) counts. The message says
    which tensor would have to be on the GPU. Host tensors stay silent: numpy arrays, `.cpu()`
    results, names that say host (`lengths_cpu`, `host_ids`), results of `numel()`/`size()`
    (Python numbers), torch functions of host tensors (`torch.clamp(host, 0, n)`,
    `torch.stack(torch.meshgrid(*host_ranges))`), and `forward` arguments that the class's
    `prepare_inputs_for_generation` (its own or an inherited one, also from another module)
    returns built on the host, or that an outer module of the same file passes on from such
    an argument (`self.model(x, grid_thw=grid_thw)`).

    Not flagged: run-once and cold code; host tensors (built without `device=`, `.cpu()`
    results, `.to("cpu", non_blocking=True)` results); syncs reading the rows of a loop (HTD201
    reports those) and syncs in `while` loops (HTD201); explicit waits (`torch.cuda.synchronize()`,
    `stream.synchronize()`) other than the one shape below; code that only runs while tracing or
    scripting (`if torch.jit.is_tracing():`);
    debugging aids and error paths: `assert` and `raise` statements, arguments of logging and
    `print` calls (also functions named `log_*`/`print_*`), branches taken once every N steps
    (`if step % 100 == 0:`, `if it - last == self.eviction_interval:`, also around the call of
    a helper), and branches whose test names debugging (`if self.debug:`,
    `if logger.isEnabledFor(...)`); branches for another backend (`if x.device.type == "mps":`,
    `x.cpu() if x.device.type == "cpu" else x`); calls of the object's own members named like
    tensor methods (`self.repeat(x)` runs a submodule);
    assignments through a mask (`x[mask] = 0` does not sync). A pipeline's `__call__` (a class
    named, or derived from one named, `...Pipeline...`) runs once per request around its loop
    of steps: only the loop's body is hot there. The one `.tolist()` that HTD201's fix leaves
    (`t.prod(dim=-1).tolist()`, all rows at once) is not reported again.

    Explicit waits are reported in one shape only, at MEDIUM confidence: a statement
    `torch.cuda.synchronize()` (or `torch.accelerator.synchronize()`...) or
    `stream.synchronize()` right after `non_blocking=True` copies to the device in the same
    block, on a hot path or in a loop (a `while` loop of steps counts here) around both: the host
    waits for the copies it has just queued, every step, so they overlap nothing (lmdeploy's
    inputs loop synchronized its H2D stream per step until it recorded an event instead). It is
    certain when nothing on the host reads the copied data next. Left alone: an event's
    `synchronize()` (the precise wait), waits after a copy to the host (the host reads it next)
    or from a staging buffer (`pinned`, `buf`: the host may rewrite it next, HTD402), waits in
    timing code (`time.perf_counter()`, `elapsed_time`, names with `time`/`bench`/`profile`), in
    run-once code (warm-up, set-up) and waits with no copy queued before them in their block.
    Most explicit waits in real code are of those kinds; upstream fixes replaced the reported
    kind with an event and a device-side `wait_event`/`wait_stream`.

    ## Why is this bad?
    The host queues GPU work far ahead of the GPU; a sync makes it wait until all queued work
    is done, and the GPU then idles while the host prepares the next step. Measured on an H200
    (torch 2.11): behind a 40 ms kernel, `.item()`, `int(t)`, a 0-d device tensor as a size
    (`torch.arange(t)`, `x.repeat(t, 1)`), `x[x > 0]`, `nonzero`, `unique`, `masked_select` and
    `repeat_interleave` with tensor repeats each held the host about 40 ms;
    `repeat_interleave(..., output_size=n)` returned at once. Writes through a device mask
    (`benchmarks/device/mask_writes.py`): `x[mask] = vals[mask]`, `x[mask] = <0-d device
    tensor>` and `x.index_put_((mask,), v)` held it 40.6-40.7 ms, `x[mask] = 0.0` 0.18 ms and
    `x.masked_fill_(mask, 0.0)` 0.02 ms. Python numbers written by index
    (`benchmarks/device/index_writes.py`): `x[5] = 0.0`, `rows[3, 7] = 0.0`, `x[idx] = 0.0`,
    `logits[:, idx] = -inf` and `x[[1, 2, 3]] = 0.0` held it 40.0-40.3 ms; `rows[3] = 0.0`,
    `rows[3, :100] = 0.0`, `x[2:10] = 0.0`, `x[5].fill_(0.0)`, `x.index_fill_(0, idx, 0.0)` and
    `x[idx] = vals` (values on the device) 0.02-0.03 ms. Once per step, that is the whole
    queue's worth of overlap lost every step.

    ## Example
    ```python
    class Experts(nn.Module):
        def forward(self, hidden, counts):
            counts = counts.to(hidden.device)
            expanded = torch.repeat_interleave(hidden, counts, dim=0)
            return expanded[expanded.norm(dim=-1) > 0]
    ```

    ## Use instead
    ```python
    class Experts(nn.Module):
        def forward(self, hidden, counts, total: int):
            counts = counts.to(hidden.device)
            expanded = torch.repeat_interleave(hidden, counts, dim=0, output_size=total)
            return torch.where((expanded.norm(dim=-1) > 0)[:, None], expanded, 0)
    ```
    Numbers per request go into a pinned host copy, and that is copied once per step:
    ```python
    for i, req in enumerate(reqs):
        self.seq_lens_cpu[i] = len(req.tokens)  # torch.zeros(n, pin_memory=True)
    self.seq_lens[:n].copy_(self.seq_lens_cpu[:n], non_blocking=True)
    ```

    ## Fix safety
    No automatic fix: the host-side value (a size, a total) has to come from somewhere the
    code already has, which only its author knows.
    """

    code = "HTD202"
    name = "sync-on-hot-path"
    message = "a device tensor is read on the host (a sync) on a hot path"
    prefilter = (
        b".item(",
        b".tolist(",
        b".cpu(",
        b".to(",
        b"int(",
        b"float(",
        b"bool(",
        b"if ",
        b"[",
        b"synchronize(",
        *(f"{name}(".encode() for name in sorted(DATA_SIZED_METHODS | {"repeat_interleave"})),
        *(f"{name.rpartition('.')[2]}(".encode() for name in sorted(SIZE_FACTORIES)),
        *(f".{name}(".encode() for name in sorted(SIZE_METHODS)),
    )
    # Only function bodies can be hot; a subscript with a mask or an `if` test of a tensor
    # needs a call somewhere in the function too (a comparison's `.any()`, the mask's maker,
    # or the `.to(device)`/factory that puts the tensor on the device).
    candidates = "def " + "|".join(
        [
            ".item|.tolist|.cpu|.to|int|float|bool",
            called_as(SIZE_FACTORIES | DATA_SIZED_FUNCTIONS | {"torch.repeat_interleave"}),
            "|".join(f".{name}" for name in sorted(SIZE_METHODS | MASK_METHODS)),
            ".any|.all|.max|.min|.sum|.cuda|.tensor|tensor|.synchronize",
        ]
    )

    valid = (
        # A number written into several elements by basic indexing is a fill, through a mask a
        # masked_fill; values already on the device, fill_ and index_fill_ do not sync either
        # (measured); a host tensor's element writes are host work; a row index into a tensor
        # whose number of dimensions is unknown may select many elements.
        Valid(
            """
            import torch
            class Runner:
                def __init__(self, n):
                    self.rows = torch.zeros(n, 64, device="cuda")
                    self.lens = torch.zeros(n, dtype=torch.int32, device="cuda")
                    self.host_lens = torch.zeros(n, dtype=torch.int32)
                def execute_model(self, reqs, table):
                    for i, req in enumerate(reqs):
                        self.rows[i] = 0.0
                        self.rows[i, :10] = 1.0
                        self.host_lens[i] = len(req.tokens)
                        self.lens[i].fill_(len(req.tokens))
                        table[i] = 0
                    self.lens[2:4] = 0
                    self.lens[self.lens > 9] = 9
                    self.lens[0] = self.lens[1]
                    idx = torch.arange(4, device="cuda")
                    self.lens.index_fill_(0, idx, 0)
                    logits = torch.randn(4, 100, device="cuda")
                    logits[:, 7] = -float("inf")
                    return logits
            """
        ),
        # Run-once code: an initializer, and a cache filled once.
        Valid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def __init__(self, n, device):\n"
            "        super().__init__()\n"
            "        t = torch.arange(n, device=device)\n"
            "        self.size = int(t.sum().item())\n"
        ),
        Valid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x):\n"
            "        if self.n is None:\n"
            "            self.n = int(x.cuda().sum())\n"
            "        return x\n"
        ),
        # A function no hot path reaches.
        Valid("import torch\ndef report(x):\n    return x.cuda().sum().item()\n"),
        # Host tensors: a list tensor, a pinned copy made without blocking, a .cpu() result.
        Valid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x, lengths):\n"
            "        lens = torch.tensor(lengths)\n"
            "        return torch.arange(lens.max().item())\n"
        ),
        Valid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x, device):\n"
            "        host = x.to(device).to('cpu', non_blocking=True)\n"
            "        return host.tolist()\n"
        ),
        # Reads of the rows of a loop: HTD201's.
        Valid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, grid, device):\n"
            "        g = grid.to(device)\n"
            "        return [r.prod().item() for r in g]\n"
        ),
        # An explicit synchronize, an assert, a log line and a debugging branch.
        Valid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x, device):\n"
            "        y = x.to(device) * 2\n"
            "        torch.cuda.synchronize()\n"
            "        assert (y >= 0).all()\n"
            "        logger.debug('norm %s', y.norm().item())\n"
            "        if self.debug:\n"
            "            print(y.sum().item())\n"
            "        return y\n"
        ),
        # Only while tracing; a write through a mask; repeat_interleave with output_size=.
        Valid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x, counts, total, device):\n"
            "        y = x.to(device)\n"
            "        if torch.jit.is_tracing():\n"
            "            n = int(y.sum())\n"
            "        y[y < 0] = 0\n"
            "        c = counts.to(device)\n"
            "        return y.repeat_interleave(c, dim=0, output_size=total)\n"
        ),
        # A pipeline's per-request set-up, outside its loop of steps.
        Valid(
            "import torch\n"
            "class ImagePipeline:\n"
            "    def __call__(self, prompt, steps, device):\n"
            "        sigmas = torch.linspace(1, 0, steps, device=device)\n"
            "        self.scheduler.set_timesteps(sigmas.tolist())\n"
            "        for t in self.scheduler.timesteps:\n"
            "            prompt = self.unet(prompt, t)\n"
            "        return prompt\n"
        ),
        # Python sizes and an unknown tensor that is not surely a tensor.
        Valid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x, n: int, device):\n"
            "        y = x.to(device)\n"
            "        return y.repeat(n, 1).view(y.shape[0], -1), torch.arange(n), x.item()\n"
        ),
        # Host tensors by name and by provenance: a `_cpu` copy read again, a numpy array,
        # the `.tolist()` of a `.cpu()` result.
        Valid(
            "import numpy as np\n"
            "class Backend:\n"
            "    @classmethod\n"
            "    def update_step_context(cls, ctx, lengths_cpu):\n"
            "        n = lengths_cpu.max().item()\n"
            "        m = np.asarray(ctx.sizes).max().item()\n"
            "        seqlens = ctx.seqlens_cpu.tolist()\n"
            "        return n, m, seqlens\n"
        ),
        # A forward argument that the model's input preparer builds on the host.
        Valid(
            "import torch\n"
            "class VLModel(torch.nn.Module):\n"
            "    def forward(self, embeds, grid_thw: torch.Tensor = None):\n"
            "        sizes = (grid_thw.prod(-1) // 4).tolist()\n"
            "        return torch.split(embeds, sizes)\n"
            "    def prepare_inputs_for_generation(self, embeds, items):\n"
            "        grid_thw = None\n"
            "        if items:\n"
            "            grid_thw = torch.stack([i.grid for i in items]).cpu()\n"
            "        return dict(embeds=embeds, grid_thw=grid_thw)\n"
        ),
        # A loop over inputs that converts each to numpy before it copies it to the device
        # (the read waits for no device work).
        Valid(
            "import torch\n"
            "def encode(conditions, device):\n"
            "    out = []\n"
            "    for c in conditions:\n"
            "        arr = c.frames.detach().cpu().numpy()\n"
            "        out.append(torch.from_numpy(resize(arr)).to(device))\n"
            "    return out\n"
        ),
        # A loop over adapters that copies each one's weights (state looked up by name, not
        # data the loop streams); state moved to the host in place; a periodic report.
        Valid(
            "import torch\n"
            "class Layer(torch.nn.Module):\n"
            "    def merge(self, names, device):\n"
            "        for name in names:\n"
            "            w = (self.weight + self.delta[name]).to(device)\n"
            "            self.saved[name] = w.to('cpu')\n"
            "    def forward(self, x, ids: torch.Tensor):\n"
            "        self.counter = self.counter.cpu()\n"
            "        if self.should_report():\n"
            "            self.log(int(torch.sum(ids == -1).item()))\n"
            "        return x\n"
        ),
        # `.cpu()` of a module (moved once, its result not used as a tensor), and names that
        # configure or count steps, not run one.
        Valid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x):\n"
            "        self.encoder.cpu()\n"
            "        return x\n"
            "    def set_step(self, steps):\n"
            "        self.last = steps.max().item()\n"
            "    def num_steps(self, steps):\n"
            "        return int(steps.sum().item())\n"
        ),
        # A training loop that reads the loss only every N steps and once after the loop; a
        # loop that does no device work (one read per module, not per step).
        Valid(
            "import torch\n"
            "def train(model, loader, optimizer):\n"
            "    total = torch.zeros(())\n"
            "    for step, batch in enumerate(loader):\n"
            "        loss = torch.nn.functional.mse_loss(model(batch), batch)\n"
            "        loss.backward()\n"
            "        optimizer.step()\n"
            "        total += loss.detach()\n"
            "        if step % 100 == 0:\n"
            "            last = float(loss.item())\n"
            "    return total.item()\n"
            "def scales(modules):\n"
            "    return [float(m.weight.detach().abs().mean().item()) for m in modules]\n"
        ),
        # A submodule named like a tensor method (`self.repeat = nn.Sequential(...)`).
        Valid(
            "import torch\n"
            "class Net(torch.nn.Module):\n"
            "    def forward(self, x):\n"
            "        x = self.stem(x)\n"
            "        x = self.repeat(x)\n"
            "        return self.expand(x)\n"
        ),
        # Host tensors computed with torch functions (`torch.clamp` of a host tensor stays on
        # the host), read in a helper called from `forward`.
        Valid(
            "import torch\n"
            "def rand_box(size, lam):\n"
            "    w = torch.tensor(size[1], dtype=torch.float32)\n"
            "    cut = (w * lam).int()\n"
            "    cx = torch.randint(0, size[1], (1,))\n"
            "    x1 = torch.clamp(cx - cut // 2, 0, size[1])\n"
            "    return x1.item()\n"
            "class Mixer(torch.nn.Module):\n"
            "    def forward(self, x, lam):\n"
            "        start = rand_box(x.size(), lam)\n"
            "        return x[:, start:]\n"
        ),
        # An inner model's `forward` argument that the outer model passes on from its input
        # preparer, which builds it on the host.
        Valid(
            "import torch\n"
            "class Inner(torch.nn.Module):\n"
            "    def forward(self, embeds, grid_thw: torch.Tensor = None):\n"
            "        return torch.split(embeds, (grid_thw.prod(-1) // 4).tolist())\n"
            "class Outer(torch.nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.model = Inner()\n"
            "    def forward(self, embeds, grid_thw: torch.Tensor = None):\n"
            "        return self.model(embeds, grid_thw=grid_thw)\n"
            "    def prepare_inputs_for_generation(self, embeds, items):\n"
            "        grid_thw = torch.stack([i.grid for i in items]).cpu()\n"
            "        return dict(embeds=embeds, grid_thw=grid_thw)\n"
        ),
        # Writes of one number through a mask are a `masked_fill` (no sync); a
        # `masked_scatter_` of many values does not sync either.
        Valid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, ids: torch.Tensor, embeds: torch.Tensor, mm: torch.Tensor):\n"
            "        x = self.embed(ids)\n"
            "        fill = 0.5\n"
            "        x[ids == 0] = 0\n"
            "        x[ids < 0] = float('-inf')\n"
            "        x[ids > 9] = fill\n"
            "        x.masked_scatter_((ids == 7)[..., None], mm)\n"
            "        return x\n"
        ),
        # Python numbers from tensor metadata (`numel()`), a copy in the branch for host
        # tensors, and a dump of a step's values for debugging.
        Valid(
            "import torch\n"
            "def partition_start(item, rank, size):\n"
            "    n = item.numel()\n"
            "    return int(n / size * rank)\n"
            "class Experts(torch.nn.Module):\n"
            "    def forward(self, tokens: torch.Tensor, counts: torch.Tensor):\n"
            "        start = partition_start(tokens, 0, 2)\n"
            "        use_cpu = tokens.device.type == 'cpu'\n"
            "        host_counts = counts.cpu() if use_cpu else counts\n"
            "        return tokens[start:], host_counts\n"
            "    def dump_step_stats(self, x: torch.Tensor):\n"
            "        self.last_max = x.max().item()\n"
        ),
        # A meshgrid of host ranges is on the host.
        Valid(
            "import torch\n"
            "class Rope(torch.nn.Module):\n"
            "    def forward(self, sizes):\n"
            "        axes = [torch.arange(s, dtype=torch.float32) for s in sizes]\n"
            "        grid = torch.stack(torch.meshgrid(*axes, indexing='ij'))\n"
            "        return torch.arange(8) + grid.view(-1).max().item()\n"
        ),
        # Explicit waits that are right: before the host reads a copy to the host, in timing
        # code, for one event, in warm-up, before a staging buffer is rewritten, and waits with
        # no copy queued before them in their block.
        Valid(
            "import time\n"
            "import torch\n"
            "class Runner:\n"
            "    def execute_model(self, batch, device):\n"
            "        ids = batch.ids.to(device, non_blocking=True)\n"
            "        host = self.model(ids).to('cpu', non_blocking=True)\n"
            "        torch.cuda.current_stream().synchronize()\n"
            "        return host.tolist()\n"
            "    def step(self, batch, device):\n"
            "        start = time.perf_counter()\n"
            "        batch.ids.to(device, non_blocking=True)\n"
            "        torch.cuda.synchronize()\n"
            "        return time.perf_counter() - start\n"
            "    def forward(self, x, device):\n"
            "        y = x.to(device, non_blocking=True)\n"
            "        self.copy_done.synchronize()\n"
            "        return y\n"
            "    def warmup(self, x, device):\n"
            "        y = x.to(device, non_blocking=True)\n"
            "        torch.cuda.synchronize()\n"
            "        return y\n"
            "    def prepare_inputs(self, ids):\n"
            "        self.gpu_ids.copy_(self.pinned_ids, non_blocking=True)\n"
            "        torch.cuda.synchronize()\n"
            "        self.pinned_ids.fill_(0)\n"
            "    def sample(self, logits):\n"
            "        torch.cuda.synchronize()\n"
            "        return logits.argmax(-1)\n"
        ),
        # The same bound kept as a Python int (annotated so) is no tensor.
        Valid(
            "from typing import Optional\n"
            "import torch\n"
            "class GPT(torch.nn.Module):\n"
            "    def forward(self, x: torch.Tensor, input_pos_maxp1: Optional[int] = None):\n"
            "        mask = self.mask_cache.to(x.device)\n"
            "        if input_pos_maxp1 is not None and input_pos_maxp1 > self.max_len:\n"
            "            raise ValueError(input_pos_maxp1)\n"
            "        return mask[..., :input_pos_maxp1]\n"
        ),
        # A parameter annotated as a tensor that its callers pass a shape for: an int.
        Valid(
            "import torch\n"
            "class Matcher(torch.nn.Module):\n"
            "    def forward(self, keypoints: torch.Tensor):\n"
            "        batch, _, num, _ = keypoints.shape\n"
            "        return self._prune(keypoints, num)\n"
            "    def _prune(self, keypoints: torch.Tensor, num_keypoints: torch.Tensor):\n"
            "        return torch.full((2, num_keypoints), -1, device=keypoints.device)\n"
        ),
        # A pipeline block named `...Step` prepares its latents once per request.
        Valid(
            "class FluxPrepareLatentsStep:\n"
            "    def prepare_latents(self, latents, lengths):\n"
            "        return latents[:, : lengths.max().item()]\n"
        ),
        # A helper called once every N steps (an eviction interval), not every step.
        Valid(
            "import torch\n"
            "class Table(torch.nn.Module):\n"
            "    def forward(self, ids, device):\n"
            "        self.history = ids.to(device)\n"
            "        if self.it - self.last_eviction == self.eviction_interval:\n"
            "            self._coalesce()\n"
            "        return ids\n"
            "    def _coalesce(self):\n"
            "        return torch.unique(self.history).tolist()\n"
        ),
    )
    invalid = (
        # A Python number written into one element of a device tensor, or through a list or
        # tensor of indices: PyTorch copies it from the host, blocking (measured: 40 ms behind a
        # 40 ms kernel).
        Invalid(
            """
            import torch
            class Runner:
                def __init__(self, max_num_reqs):
                    self.seq_lens = torch.zeros(max_num_reqs, dtype=torch.int32, device="cuda")
                    self.block_table = torch.zeros((max_num_reqs, 64), device="cuda")
                def execute_model(self, reqs):
                    for i, req in enumerate(reqs):
                        self.seq_lens[i] = len(req.tokens)
                    #   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                        self.block_table[i, 0] = 7
                    #   ^^^^^^^^^^^^^^^^^^^^^^^^^^
                    logits = torch.randn(4, 100, device="cuda")
                    logits[:, [1, 2, 3]] = -float("inf")
                #   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return logits
            """,
            message_contains="copies the number from the host",
        ),
        # Many values written through a boolean mask: the mask becomes indices on the host.
        Invalid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, ids: torch.Tensor, mm: torch.Tensor):\n"
            "        x = self.embed(ids)\n"
            "        is_mm = ids == 7\n"
            "        x[is_mm] = mm.to(x.dtype)\n"
            "        return x\n",
            6,
            9,
            message_contains="masked_scatter_",
        ),
        Invalid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x, device):\n"
            "        y = x.to(device)\n"
            "        return y.sum().item()\n",
            5,
            16,
            message_contains="`.item()` of `y.sum()`",
        ),
        Invalid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x, device):\n"
            "        return self._count(x.to(device))\n"
            "    def _count(self, y):\n"
            "        z = y * 2\n"
            "        return int(z.cuda().max())\n",
            7,
            16,
            message_contains="called from `M.forward()`",
        ),
        Invalid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x, device):\n"
            "        y = x.to(device)\n"
            "        n = y.sum()\n"
            "        return torch.arange(n, device=device)\n",
            6,
            16,
            message_contains="as a size",
        ),
        Invalid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x, device):\n"
            "        y = x.to(device)\n"
            "        return y[y > 0]\n",
            5,
            16,
            message_contains="boolean mask",
        ),
        Invalid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x, device):\n"
            "        y = x.to(device)\n"
            "        return torch.nonzero(y)\n",
            5,
            16,
        ),
        Invalid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, hidden, counts, device):\n"
            "        c = counts.to(device)\n"
            "        return torch.repeat_interleave(hidden, c, dim=0)\n",
            5,
            16,
            message_contains="output_size=",
        ),
        Invalid(
            "import torch\n"
            "class Sampler:\n"
            "    def __call__(self, logits, device):\n"
            "        probs = logits.to(device).softmax(-1)\n"
            "        if (probs > 0.5).any():\n"
            "            return None\n"
            "        return probs\n",
            5,
            12,
            message_contains="`if` test",
        ),
        Invalid(
            "import torch\n"
            "def step(batch, device):\n"
            "    ids = batch.to(device)\n"
            "    first = ids.cpu()\n"
            "    second = ids.cpu()\n"
            "    return first, second\n",
            5,
            14,
            also_at=((4, 13),),  # the first read syncs too
            message_contains="host copy of `ids` already exists",
        ),
        Invalid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x: torch.Tensor, y: torch.Tensor):\n"
            "        return x.repeat(int(y.max()), 1)\n",
            4,
            25,
            message_contains="if `y` is on the GPU",
        ),
        # Unknown devices of values that are surely tensors, on paths hot by name: a
        # reduction read with `.item()`, a comparison read with `.tolist()`, a `.cpu()` copy
        # kept under a `_cpu` name, a `.cpu()` of a torch.cat of annotated tensors.
        Invalid(
            "class Backend:\n"
            "    @classmethod\n"
            "    def update_step_context(cls, ctx):\n"
            "        longest = ctx.q_seqlens.max().item()\n"
            "        return longest\n",
            4,
            19,
            message_contains="if `ctx.q_seqlens` is on the GPU",
        ),
        Invalid(
            "class Backend:\n"
            "    def decode_step(self, ctx):\n"
            "        return all((ctx.q_seqlens == ctx.kv_seqlens).tolist())\n",
            3,
            20,
        ),
        Invalid(
            "class Backend:\n"
            "    def prepare_step(self, ctx):\n"
            "        kv_seqlens_cpu = ctx.kv_seqlens.cpu()\n"
            "        return kv_seqlens_cpu\n",
            3,
            26,
            message_contains="`.cpu()` of `ctx.kv_seqlens`",
        ),
        Invalid(
            "import torch\n"
            "class Transformer(torch.nn.Module):\n"
            "    def forward(self, txt_ids: torch.Tensor, img_ids: torch.Tensor):\n"
            "        if img_ids.ndim == 3:\n"
            "            img_ids = img_ids[0]\n"
            "        ids = torch.cat((txt_ids, img_ids), dim=0)\n"
            "        return self.pos_embed(ids.cpu())\n",
            7,
            31,
            message_contains="if `ids` is on the GPU",
        ),
        # A top-level attention helper (attention backends run in every forward pass).
        Invalid(
            "def _prepare_flash_attn_varlen(seqlens_q, seqlens_k):\n"
            "    return seqlens_q.max().item(), seqlens_k.max().item()\n",
            2,
            12,
            also_at=((2, 36),),
            message_contains="attention call",
        ),
        # A pipeline's loop of steps: a reduction read with `.tolist()` every step.
        Invalid(
            "class ImagePipeline:\n"
            "    def __call__(self, latents, mask, timesteps):\n"
            "        for t in timesteps:\n"
            "            latents = self.transformer(latents, t, lens=mask.sum(dim=1).tolist())\n"
            "        return latents\n",
            4,
            57,
        ),
        # A training loop: every iteration runs backward and an optimizer step, and reads
        # the loss on the host.
        Invalid(
            "import torch\n"
            "def fit(model, loader, optimizer):\n"
            "    epoch_loss = 0.0\n"
            "    for x, y in loader:\n"
            "        loss = torch.nn.functional.mse_loss(model(x), y)\n"
            "        loss.backward()\n"
            "        optimizer.step()\n"
            "        epoch_loss += float(loss.item())\n"
            "    return epoch_loss\n",
            8,
            29,
            message_contains="`loss.backward()`",
        ),
        Invalid(
            "import torch\n"
            "class M(torch.nn.Module):\n"
            "    def forward(self, x, device):\n"
            "        y = x.to(device)\n"
            "        return y.unique(), y.masked_select(y > 0)\n",
            5,
            16,
            also_at=((5, 28),),
        ),
        # A parameter annotated as a tensor compared in an `if` test and used as a slice
        # bound: a 0-d tensor read on the host in every forward.
        Invalid(
            "from typing import Optional\n"
            "import torch\n"
            "class GPT(torch.nn.Module):\n"
            "    def forward(self, x: torch.Tensor, input_pos_maxp1: Optional[torch.Tensor]):\n"
            "        mask = self.mask_cache.to(x.device)\n"
            "        if input_pos_maxp1 > self.max_len:\n"
            "            raise ValueError(input_pos_maxp1)\n"
            "        return mask[..., :input_pos_maxp1]\n",
            6,
            12,
            also_at=((8, 16),),
            message_contains="if `input_pos_maxp1` is on the GPU",
        ),
        # The context an engine builds for every step, by its class's name.
        Invalid(
            "import torch\n"
            "class StepContext:\n"
            "    @classmethod\n"
            "    def new(cls, inputs, device):\n"
            "        q_seqlens = inputs.seq_length\n"
            "        longest = q_seqlens.max().item()\n"
            "        return cls(torch.arange(longest, device=device))\n",
            6,
            19,
            message_contains="builds the per-step state `StepContext`",
        ),
        # A side stream's copies waited for by the host every iteration of a loop of steps;
        # a device-wide wait right after the step's input copies.
        Invalid(
            "import torch\n"
            "class Agent:\n"
            "    async def preprocess_loop(self, keys):\n"
            "        while True:\n"
            "            inputs = await self.queue.get()\n"
            "            with torch.cuda.stream(self.out_stream):\n"
            "                for k in keys:\n"
            "                    inputs[k] = inputs[k].cuda(non_blocking=True)\n"
            "                self.out_stream.synchronize()\n"
            "            self.ready.put_nowait(inputs)\n",
            9,
            17,
            message_contains="Record an event",
        ),
        Invalid(
            "import torch\n"
            "class Runner:\n"
            "    def execute_model(self, batch, device):\n"
            "        ids = batch.ids.to(device, non_blocking=True)\n"
            "        torch.cuda.synchronize()\n"
            "        return self.model(ids)\n",
            5,
            9,
            message_contains="`batch.ids.to(device, non_blocking=True)`",
        ),
    )

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        # Per function: the code of the tensors already copied to the host, in source order.
        self._host_copies: dict[cst.CSTNode, dict[str, str]] = {}
        # Per ``for`` loop: why each of its iterations is a step (device work in its body).
        self._loops: dict[cst.For, DeviceLoop] = {}

    # -- visits ----------------------------------------------------------------------------------
    def _maybe_hot(self) -> bool:
        """Cheap gate: the visited node's function may be hot (most code is not; the questions
        below about where tensors live cost more)."""
        return HotPaths.of(self.context).could_be_hot_at(self.context.ancestors)

    def visit_Call(self, node: cst.Call) -> None:
        if _stream_wait(node) is not None:
            self._explicit_wait(node)
            return
        if not self._maybe_hot():
            return
        read = explicit_sync(node)
        if read is not None:
            tensor, what = read
            if what == "`.tolist()`" and _row_reduction(tensor):
                return  # the one read HTD201's fix leaves in place of a read per row
            kind = "copy" if what in ("`.cpu()`", '`.to("cpu")`', "`.tolist()`") else "read"
            self._judge(node, tensor, what + " of {}", kind, explicit=node)
            return
        provenance = Provenance.of(self.context)
        func = node.func
        qualified = provenance.qualify(func) or ""
        # A method of a tensor (not a function of a module: ``torch.nonzero``; not a method or
        # submodule of the object itself: ``self.repeat(x)`` runs an ``nn.Sequential``).
        method = func.attr.value if isinstance(func, cst.Attribute) and not qualified else None
        if method is not None and _own_member(provenance, node):
            return
        if qualified in SIZE_FACTORIES or method in SIZE_METHODS:
            args = positional(node)
            if qualified in FIRST_ARG_SIZE or method in ("new_zeros", "new_ones", "new_empty"):
                args = args[:1]
            for size in _sizes(args):
                if self._judge(node, size, "{} as a size", "size", sizes=True):
                    return
            return
        if qualified in DATA_SIZED_FUNCTIONS or method in DATA_SIZED_METHODS:
            operand = _operand(node, method)
            name = method or qualified.rpartition(".")[2]
            if operand is not None and keyword(node, "size") is None:
                self._judge(node, operand, f"`{name}()` of {{}}", "data-sized")
            return
        if qualified == "torch.where" and len(node.args) == 1:
            self._judge(node, node.args[0].value, "`torch.where()` of {}", "data-sized")
            return
        if qualified == "torch.repeat_interleave" or method == "repeat_interleave":
            repeats = _repeats(node, method is not None)
            if repeats is not None and keyword(node, "output_size") is None:
                self._judge(
                    node, repeats, "`repeat_interleave()` with repeats {}", "repeat_interleave"
                )

    def _explicit_wait(self, node: cst.Call) -> None:
        """``stream.synchronize()`` or ``torch.cuda.synchronize()`` as a statement right after
        ``non_blocking=True`` copies to the device in the same block, per step: the host waits
        for the copies it has just queued (see the class docs for what is left alone)."""
        ancestors = self.context.ancestors
        statement = ancestors[-1] if ancestors else None
        line = ancestors[-2] if len(ancestors) > 1 else None
        block = ancestors[-3] if len(ancestors) > 2 else None
        if not (isinstance(statement, cst.Expr) and isinstance(line, cst.SimpleStatementLine)):
            return
        if not isinstance(block, (cst.IndentedBlock, cst.Module)) or RunOnce.of(self.context).code(
            ancestors
        ):
            return
        function = next(
            (a for a in reversed(ancestors) if isinstance(a, (cst.FunctionDef, cst.Lambda))),
            None,
        )
        if not isinstance(function, cst.FunctionDef) or _timing_code(self.context.module, function):
            return
        before = list(block.body[: block.body.index(line)])
        copies = _queued_copies(self.context.module, before)
        if copies is None or not copies:
            return  # nothing queued here, or a copy to the host the wait is for
        reason = HotPaths.of(self.context).why_hot_at(ancestors)
        inner = ancestors[ancestors.index(function) :]
        if reason is None and any(isinstance(a, (cst.For, cst.While)) for a in inner):
            reason = "it runs on every iteration of the loop around it, as the copies do"
        if reason is None or not self._hot_here(node, None, loops=True):
            return
        code = self.context.module.code_for_node
        self.report(
            node,
            f"`{code(node)}` makes the host wait for the `non_blocking=True` copies queued just "
            f"before it ({copies[0]}) on a hot path ({reason}): the copies overlap nothing. "
            "Record an event after them (`ev = torch.cuda.Event(); ev.record(stream)`) and make "
            "the stream that uses the data wait on the device "
            "(`torch.cuda.current_stream().wait_event(ev)` or `.wait_stream(stream)`); the wait "
            "is only needed if the host itself reads the copied data next",
            confidence=Confidence.MEDIUM,
        )

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._mask_write(node, target.target, node.value)
            self._element_write(node, target.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._mask_write(node, node.target, None)

    def _mask_write(
        self, node: cst.CSTNode, target: cst.BaseExpression, value: cst.BaseExpression | None
    ) -> None:
        """``x[mask] = values`` with a tensor of values (not one number: ``x[mask] = 0`` is a
        ``masked_fill``), or ``x[mask] += v`` (reads ``x[mask]`` first): PyTorch turns the mask
        into indices (``nonzero``), which syncs."""
        if not isinstance(target, cst.Subscript) or len(target.slice) != 1:
            return
        index = target.slice[0].slice
        if not isinstance(index, cst.Index) or not self._maybe_hot():
            return
        provenance = Provenance.of(self.context)
        frame = provenance.current_frame()
        if not _is_mask(provenance, index.value, frame):
            return
        if value is not None and not _many_values(provenance, value, frame):
            return
        on_device = value_where(provenance, target.value, frame) is Where.DEVICE
        tensor = target.value if on_device else index.value
        verb = "writing" if value is not None else "updating in place"
        if on_device:
            what = f"{verb} {{}} through a boolean mask"
        else:
            what = f"{verb} through the boolean mask {{}}"
        self._judge(node, tensor, what, "mask-write")

    def _element_write(
        self, node: cst.CSTNode, target: cst.BaseExpression, value: cst.BaseExpression
    ) -> None:
        """``x[i] = 0`` into one element of a device tensor, or ``x[idx] = 0`` through a list or
        tensor of indices: PyTorch copies the number from the host, blocking (measured; see
        :mod:`h2dlint.analysis.element_writes`)."""
        if not isinstance(target, cst.Subscript) or not self._maybe_hot():
            return
        provenance = Provenance.of(self.context)
        how = syncing_write(provenance, target, value, provenance.current_frame())
        if how is None:
            return
        if how == ONE_ELEMENT:
            what = "writing a Python number into one element of {}"
        else:
            what = "writing a Python number into {} through a list or tensor of indices"
        self._judge(node, target.value, what, "element-write")

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self._assigned(node) or not self._maybe_hot():
            return
        provenance = Provenance.of(self.context)
        frame = provenance.current_frame()
        for element in node.slice:
            index = element.slice
            if isinstance(index, cst.Index) and _is_mask(provenance, index.value, frame):
                if value_where(provenance, index.value, frame) is Where.DEVICE:
                    self._judge(node, index.value, "indexing with the boolean mask {}", "mask")
                else:
                    self._judge(node, node.value, "indexing {} with a boolean mask", "mask")
                return
            if isinstance(index, cst.Slice):
                for bound in (index.lower, index.upper):
                    if bound is not None and self._judge(
                        node, bound, "{} as a slice bound", "size", sizes=True
                    ):
                        return

    def visit_If(self, node: cst.If) -> None:
        self._test(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._test(node.test)

    def _test(self, test: cst.BaseExpression) -> None:
        if not self._maybe_hot():
            return
        tensor = tensor_test(test)
        if tensor is None and isinstance(test, (cst.Name, cst.Attribute)):
            provenance = Provenance.of(self.context)
            if provenance.where(test) is Where.DEVICE:
                tensor = test
        if tensor is None and _annotated_comparison(Provenance.of(self.context), test):
            tensor = test  # ``if input_pos_maxp1 > self.max_seq_length:`` of a tensor parameter
        if tensor is not None:
            self._judge(tensor, tensor, "{} as an `if` test", "test")

    # -- judging ---------------------------------------------------------------------------------
    def _judge(
        self,
        node: cst.CSTNode,
        tensor: cst.BaseExpression,
        what: str,
        kind: str,
        *,
        explicit: cst.Call | None = None,
        sizes: bool = False,
    ) -> bool:
        """Report ``node`` when ``tensor`` is on a device (HIGH) or surely a tensor (MEDIUM)
        and ``node`` is on a hot path; whether it reported. ``what`` says how the tensor is
        read, with ``{}`` where it goes; ``sizes``: ``tensor`` is used as a size, which only a
        0-d tensor can be (so only a reduction of a tensor is surely one)."""
        provenance = Provenance.of(self.context)
        frame = provenance.current_frame()
        function = frame.function
        if not isinstance(function, cst.FunctionDef):
            return False
        where = value_where(provenance, tensor, frame)
        if where.on_host:
            return False
        root = None
        if where is Where.DEVICE:
            confidence = Confidence.HIGH
        else:
            if kind not in ("read", "copy", "test", "size", "mask-write", "repeat_interleave"):
                return False
            root = self._tensor_root(tensor, frame, explicit, sizes)
            if root is None or provenance.is_host_data(tensor, frame):
                return False
            # A CPU reference implementation (``fill_cpu``) reads its own host tensors; a
            # ``.cpu()`` copy in a function named for what it makes (``get_cpu_seqlens``)
            # still copies a tensor that may be on the device.
            if on_host_by_name(tensor, frame) and not (kind == "copy" and not host_named(tensor)):
                return False
            confidence = Confidence.MEDIUM
        reason = HotPaths.of(self.context).why_hot_at(self.context.ancestors)
        if reason is None:
            reason = self._loop_reason(frame, tensor)
        if reason is None or not self._hot_here(node, explicit):
            return False
        code = self.context.module.code_for_node(tensor)
        shown = "the tensor" if len(code) > 40 or "\n" in code else f"`{code}`"
        read = what.format(shown)
        read = read[0].upper() + read[1:]
        earlier = self._earlier_host_copy(function, tensor, explicit)
        if root is not None:
            message = (
                f"{read} syncs the host on a hot path ({reason}) if {_named(root)} is on the GPU; "
                f"{_MESSAGES[kind]}"
            )
        elif earlier is not None:
            message = (
                f"{read} syncs the host on a hot path ({reason}), and a host copy of {shown} "
                f"already exists in this function (`{earlier}`): reuse it"
            )
        else:
            message = (
                f"{read} syncs the host on a hot path ({reason}): {shown} is on the device; "
                f"{_MESSAGES[kind]}"
            )
        self.report(node, message, confidence=confidence)
        return True

    def _tensor_root(
        self,
        tensor: cst.BaseExpression,
        frame: Frame,
        explicit: cst.Call | None,
        sizes: bool,
    ) -> str | None:
        """The code of the tensor ``tensor`` surely is, or is computed from, when its device is
        unknown (see :func:`tensor_evidence`); None when it may be no tensor. With ``sizes``
        only a reduction of one (a 0-d tensor that may be used as a size) counts. ``explicit``
        is the read: ``.item()``/``.tolist()`` exist only on arrays, and ``.cpu()`` only on
        tensors and modules (a used result of a ``.cpu()`` of something not named as a module
        is a tensor's)."""
        provenance = Provenance.of(self.context)
        if sizes:
            if isinstance(tensor, cst.Name) and _annotated_tensor_size(provenance, tensor, frame):
                pass  # a parameter annotated as a tensor, used as a size: a 0-d tensor
            elif not (
                isinstance(tensor, cst.Call)
                and isinstance(tensor.func, cst.Attribute)
                and tensor.func.attr.value in ("sum", "max", "min", "amax", "amin", "prod")
                and not tensor.args
            ):
                return None
            else:
                tensor = tensor.func.value
        method = (
            explicit.func.attr.value
            if explicit is not None and isinstance(explicit.func, cst.Attribute)
            else None
        )
        read = method in ("item", "tolist")
        root = tensor_evidence(provenance, tensor, frame, read=read)
        if method == "cpu" and self._moved_in_place(tensor):
            return None  # ``x.w = x.w.cpu()``: offloading a tensor (or a module), by design
        if root is None and method == "cpu" and not module_named(tensor):
            parent = self.context.ancestors[-1] if self.context.ancestors else None
            if not isinstance(parent, cst.Expr):
                root = tensor
        if root is None or host_named(root) or provenance.is_host_data(root, frame):
            return None  # a host tensor by name (``lengths_cpu.max()``), a numpy array
        if value_where(provenance, root, frame).on_host:
            return None
        if isinstance(root, cst.Name) and prepared_on_host(provenance, root, frame):
            return None  # the model's input preparer hands ``forward`` a host tensor
        code = self.context.module.code_for_node(root)
        return code if len(code) <= 40 and "\n" not in code else "the tensor"

    def _moved_in_place(self, tensor: cst.BaseExpression) -> bool:
        """Whether the ``.cpu()`` being visited is assigned back to the attribute it copies
        (``self.buf = self.buf.cpu()``, ``w.data = w.data.cpu()``): a move of state to the
        host, not a read."""
        ancestors = self.context.ancestors
        parent = ancestors[-1] if ancestors else None
        if not isinstance(parent, cst.Assign) or not isinstance(tensor, cst.Attribute):
            return False  # ``x = x.cpu()`` of a local name is a host copy to compute with
        code = self.context.module.code_for_node
        return any(code(target.target) == code(tensor) for target in parent.targets)

    def _loop_reason(self, frame: Frame, tensor: cst.BaseExpression) -> str | None:
        """Why the read of ``tensor`` being visited runs per step in a function not known to:
        a ``for`` loop around it (in its function) runs device work on every iteration that
        the read waits for."""
        provenance = Provenance.of(self.context)
        for parent in reversed(self.context.ancestors):
            if isinstance(parent, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                return None
            if isinstance(parent, cst.For):
                loop = self._loops.get(parent)
                if loop is None:
                    loop = self._loops[parent] = device_loop(provenance, parent, frame)
                reason = loop.reason_for(tensor, self.context.module)
                if reason is not None:
                    return reason
        return None

    def _hot_here(
        self, node: cst.CSTNode, explicit: cst.Call | None, *, loops: bool = False
    ) -> bool:
        """Whether the code around ``node`` in its function runs on every call: not under a
        run-once or tracing guard, not in a debugging aid, not in a row loop (HTD201).
        ``loops``: a ``while`` loop around it is a loop of steps, not HTD201's."""
        ancestors = self.context.ancestors
        if RunOnce.of(self.context).code(ancestors):
            return False
        provenance = Provenance.of(self.context)
        for i in range(len(ancestors) - 1, -1, -1):
            parent = ancestors[i]
            if isinstance(parent, cst.FunctionDef):
                return True
            child = ancestors[i + 1] if i + 1 < len(ancestors) else node
            if isinstance(parent, (cst.Assert, cst.Raise)) or (
                isinstance(parent, cst.While) and not loops
            ):
                return False  # a debugging aid, an error path, HTD201's loop
            if (
                isinstance(parent, cst.If)
                and child is parent.body
                and _debug_or_tracing(provenance, parent.test)
            ):
                return False
            if isinstance(parent, cst.Call) and _logging(parent):
                return False
            if (
                isinstance(parent, cst.IfExp)
                and child is not parent.test
                and _device_type_test(provenance, parent.test)
            ):
                return False  # ``x.cpu() if x.device.type == "cpu" else x``
            if isinstance(parent, cst.If) and child is parent.body and periodic_test(parent.test):
                return False  # once every N calls or iterations (``if step % 100 == 0:``)
            if explicit is not None and isinstance(parent, (cst.For, *COMPREHENSIONS)):
                loop = _row_loop_of(parent)
                if loop is not None and sync_of(explicit, loop) is not None:
                    return False  # HTD201's
        return True

    def _assigned(self, node: cst.Subscript) -> bool:
        """Whether ``node`` is written to (``x[mask] = v``, ``x[mask] += v``, ``del x[m]``)."""
        ancestors = self.context.ancestors  # the visited node's, not it
        parent = ancestors[-1] if ancestors else None
        if isinstance(parent, (cst.AssignTarget, cst.Del)):
            return True
        return isinstance(parent, (cst.AugAssign, cst.AnnAssign)) and parent.target is node

    def _earlier_host_copy(
        self, function: cst.FunctionDef, tensor: cst.BaseExpression, explicit: cst.Call | None
    ) -> str | None:
        """For a host copy: the code of an earlier host copy of the same tensor in the same
        function, if any (and note this one)."""
        if explicit is None or not isinstance(explicit.func, cst.Attribute):
            return None
        if explicit.func.attr.value not in ("cpu", "to"):
            return None
        seen = self._host_copies.setdefault(function, {})
        key = self.context.module.code_for_node(tensor)
        earlier = seen.get(key)
        if earlier is None:
            seen[key] = self.context.module.code_for_node(explicit)
        return earlier


# Words in the code of a function that say it measures time: a wait there is the point.
TIMING_WORDS = ("perf_counter", "time.time", "monotonic", "elapsed_time", "enable_timing", "timer")
# Words of the code of a ``.synchronize()`` receiver that say it is a stream (an event's wait is
# the precise wait that the fix recommends, and is never reported).
STREAM_WORDS = ("stream",)


def _stream_wait(call: cst.Call) -> str | None:
    """``call`` as a wait of the host for a whole stream or device: ``torch.cuda.synchronize()``
    (also ``torch.accelerator``/``torch.xpu``...), ``stream.synchronize()``,
    ``torch.cuda.current_stream().synchronize()``; None for anything else (an event's
    ``synchronize()``, a barrier)."""
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value != "synchronize":
        return None
    base = func.value
    dotted = _dotted(base)
    if dotted is not None and dotted.startswith("torch.") and dotted.count(".") == 1:
        return "device"
    words = _dotted(base.func) if isinstance(base, cst.Call) else dotted
    if words is not None and any(w in words.rpartition(".")[2].lower() for w in STREAM_WORDS):
        return "stream"
    return None


def _dotted(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr.value}" if inner is not None else None
    return None


def _timing_code(module: cst.Module, function: cst.FunctionDef) -> bool:
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
    not entered."""

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self.to_device: list[str] = []
        self.to_host = False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Call(self, node: cst.Call) -> None:
        flag = keyword(node, "non_blocking")
        if flag is None or (isinstance(flag.value, cst.Name) and flag.value.value == "False"):
            return
        code = self.module.code_for_node(node)
        func = node.func
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
            self.to_device.append(f"`{short}`")


def _queued_copies(
    module: cst.Module, statements: Sequence[cst.BaseStatement | cst.BaseSmallStatement]
) -> list[str] | None:
    """The ``non_blocking=True`` copies to a device among ``statements`` (the ones before a
    wait in its block); None when one of them copies to the host (the wait lets the host read
    the copy) or from a staging buffer (the wait lets the host rewrite it): there a wait is
    right."""
    collector = _Copies(module)
    for statement in statements:
        statement.visit(collector)
    return None if collector.to_host else collector.to_device


def _annotated_comparison(provenance: Provenance, test: cst.BaseExpression) -> bool:
    """Whether ``test`` compares a parameter annotated as a tensor (``x: torch.Tensor``,
    ``Optional[torch.Tensor]``) by value: Python then calls ``bool()`` of a tensor."""
    if not isinstance(test, cst.Comparison) or not all(
        isinstance(c.operator, COMPARISON_OPERATORS) for c in test.comparisons
    ):
        return False
    frame = provenance.current_frame()
    operands = [test.left, *(c.comparator for c in test.comparisons)]
    return any(
        isinstance(o, cst.Name) and _annotated_tensor_size(provenance, o, frame) for o in operands
    )


def _annotated_tensor_size(provenance: Provenance, name: cst.Name, frame: Frame) -> bool:
    """Whether ``name`` is a parameter annotated as a tensor that no call of its function in
    the module contradicts: a call passing a Python number for it (``x.shape[0]``, a name
    unpacked from ``x.shape``, ``len(...)``) says the annotation is wrong."""
    if not annotated_tensor_parameter(provenance, name, frame):
        return False
    function = frame.function
    if not isinstance(function, cst.FunctionDef):
        return False
    return not any(
        host_scalar(provenance, argument, caller) or _unpacked_size(provenance, argument, caller)
        for argument, caller in _arguments_for(provenance, function, frame, name.value)
    )


def _arguments_for(
    provenance: Provenance, function: cst.FunctionDef, frame: Frame, param: str
) -> list[tuple[cst.BaseExpression, Frame]]:
    """The arguments that calls of ``function`` in its module (``self.name(...)`` of its class,
    ``name(...)`` of a module function) pass for parameter ``param``, each with the frame of
    the function that makes the call."""
    params = [p.name.value for p in (*function.params.posonly_params, *function.params.params)]
    if frame.cls is not None and params and params[0] == frame.self_name:
        params = params[1:]
    position = params.index(param) if param in params else None
    collector = _CallsOf(function.name.value, method=frame.cls is not None)
    visit_read_only(provenance.context.module, collector)
    found: list[tuple[cst.BaseExpression, Frame]] = []
    for call, caller in collector.found:
        caller_frame = provenance.index.frame_of(caller)
        given = keyword(call, param)
        if given is not None:
            found.append((given.value, caller_frame))
            continue
        args = positional(call)
        if position is not None and position < len(args) and not args[position].star:
            found.append((args[position].value, caller_frame))
    return found


class _CallsOf(cst.CSTVisitor):
    """Calls of ``name`` (``self.name(...)``/``cls.name(...)`` for a method, else
    ``name(...)``) inside functions, with the innermost function around each."""

    def __init__(self, name: str, *, method: bool) -> None:
        self.name = name
        self.method = method
        self.stack: list[cst.FunctionDef] = []
        self.found: list[tuple[cst.Call, cst.FunctionDef]] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.stack.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.stack.pop()

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if self.method:
            hit = (
                isinstance(func, cst.Attribute)
                and func.attr.value == self.name
                and isinstance(func.value, cst.Name)
                and func.value.value in ("self", "cls")
            )
        else:
            hit = isinstance(func, cst.Name) and func.value == self.name
        if hit and self.stack:
            self.found.append((node, self.stack[-1]))


def _unpacked_size(provenance: Provenance, node: cst.BaseExpression, frame: Frame) -> bool:
    """``n`` bound only by unpacking a shape: ``b, n, _ = x.shape`` (Python ints)."""
    if not isinstance(node, cst.Name):
        return False
    reaching = provenance.bindings(frame).reaching_bindings(node)
    if not reaching:
        return False
    for binding in reaching:
        statement = binding.statement
        if binding.value is not None or not isinstance(statement, cst.SimpleStatementLine):
            return False
        assign = statement.body[0] if statement.body else None
        if not (
            isinstance(assign, cst.Assign)
            and isinstance(assign.targets[0].target, (cst.Tuple, cst.List))
            and isinstance(assign.value, (cst.Attribute, cst.Call))
        ):
            return False
        value = assign.value
        shape = (isinstance(value, cst.Attribute) and value.attr.value == "shape") or (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value == "size"
            and not value.args
        )
        if not shape:
            return False
    return True


def _many_values(provenance: Provenance, value: cst.BaseExpression, frame: Frame) -> bool:
    """Whether ``value`` (written through a mask) is surely a tensor that may hold many
    values: not a number (``0``, ``float("-inf")``, a name bound to one), not a 0-d reduction
    (``x.sum()``), not ``torch.tensor(number)``."""
    if isinstance(value, (cst.Integer, cst.Float, cst.UnaryOperation)):
        return False
    if isinstance(value, cst.Call):
        func = value.func
        if isinstance(func, cst.Name) and func.value in ("float", "int", "bool"):
            return False
        if isinstance(func, cst.Attribute) and func.attr.value in REDUCTIONS and not value.args:
            return False
        qualified = provenance.qualify(func) or ""
        if qualified in ("torch.tensor", "torch.as_tensor", "torch.scalar_tensor"):
            first = positional(value)
            return bool(first) and isinstance(first[0].value, (cst.List, cst.ListComp))
    while (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value in ("to", "type", "contiguous", "view_as", "reshape_as")
    ):
        value = value.func.value  # a conversion keeps the number of values
    if provenance.is_host_data(value, frame):
        return False
    if provenance.fact(value, frame).known:
        return True
    return tensor_evidence(provenance, value, frame) is not None


def _own_member(provenance: Provenance, call: cst.Call) -> bool:
    """Whether ``call`` calls a method or attribute of the function's own object
    (``self.repeat(x)``, ``cls.expand(n)``): a submodule or a method, never a tensor's."""
    func = call.func
    if not isinstance(func, cst.Attribute) or not isinstance(func.value, cst.Name):
        return False
    frame = provenance.current_frame()
    return func.value.value in {frame.self_name, "self", "cls"} - {None}


def _row_reduction(node: cst.BaseExpression) -> bool:
    """``t.prod(dim=-1)``, ``torch.sum(t, dim=-1)``: every row reduced at once (HTD201's fix)."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
        return False
    dim = keyword(node, "dim")
    return (
        node.func.attr.value in ("prod", "sum")
        and dim is not None
        and isinstance(dim.value, cst.UnaryOperation)
        and isinstance(dim.value.expression, cst.Integer)
        and dim.value.expression.value == "1"
    )


def _sizes(args: list[cst.Arg]) -> list[cst.BaseExpression]:
    """The size expressions among positional arguments, also inside a tuple or list of sizes."""
    sizes: list[cst.BaseExpression] = []
    for arg in args:
        value = arg.value
        if isinstance(value, (cst.Tuple, cst.List)):
            sizes.extend(e.value for e in value.elements if isinstance(e, cst.Element))
        else:
            sizes.append(value)
    return [s for s in sizes if not isinstance(s, (cst.Integer, cst.UnaryOperation))]


def _repeats(call: cst.Call, is_method: bool) -> cst.BaseExpression | None:
    """The repeats of ``x.repeat_interleave(r)``, ``torch.repeat_interleave(x, r)`` or
    ``torch.repeat_interleave(r)``, unless it is a literal number."""
    given = keyword(call, "repeats")
    args = positional(call)
    if given is not None:
        repeats: cst.BaseExpression | None = given.value
    elif is_method:
        repeats = args[0].value if args else None
    elif len(args) == 1:
        repeats = args[0].value
    else:
        repeats = args[1].value if len(args) > 1 else None
    return None if isinstance(repeats, (cst.Integer, cst.UnaryOperation)) else repeats


def _operand(call: cst.Call, method: str | None) -> cst.BaseExpression | None:
    if method is not None and isinstance(call.func, cst.Attribute):
        return call.func.value
    args = positional(call)
    return args[0].value if args else None


def _is_mask(
    provenance: Provenance, node: cst.BaseExpression, frame: Frame, depth: int = 0
) -> bool:
    """Whether ``node`` is surely a boolean mask: a comparison, `~`/`&`/`|` of masks, a mask
    method (`x.isnan()`, `x.bool()`), or a name bound only to masks."""
    if depth > 4:
        return False
    if isinstance(node, cst.Comparison):
        return all(isinstance(c.operator, COMPARISON_OPERATORS) for c in node.comparisons)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.BitInvert):
        return _is_mask(provenance, node.expression, frame, depth + 1)
    if isinstance(node, cst.BinaryOperation) and isinstance(
        node.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)
    ):
        return _is_mask(provenance, node.left, frame, depth + 1) or _is_mask(
            provenance, node.right, frame, depth + 1
        )
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in MASK_METHODS:
            return not node.args or func.attr.value != "bool"
        qualified = provenance.qualify(func) or ""
        return qualified.startswith("torch.") and qualified[6:] in MASK_METHODS
    if isinstance(node, cst.Name):
        values = provenance.bindings(frame).reaching(node)
        return bool(values) and all(
            v is not None and _is_mask(provenance, v, frame, depth + 1) for v in values
        )
    return False


def _named(code: str) -> str:
    return code if code == "the tensor" else f"`{code}`"


def _row_loop_of(node: cst.CSTNode) -> RowLoop | None:
    if isinstance(node, cst.For):
        return row_loop(node.iter, node.target)
    for_in = getattr(node, "for_in", None)
    if isinstance(for_in, cst.CompFor):
        return row_loop(for_in.iter, for_in.target)
    return None


def _logging(call: cst.Call) -> bool:
    func = call.func
    if isinstance(func, cst.Name):
        # ``print(...)``, and functions named for logging (``log_eviction(...)``,
        # ``print_stats(...)``), not math named ``log`` (``log_softmax``)
        words = func.value.lower().split("_")
        return func.value in ("print", "warn") or (
            len(words) > 1 and words[0] in ("log", "print", "warn") and words[1] not in MATH_WORDS
        )
    if isinstance(func, cst.Attribute) and func.attr.value in LOGGING_METHODS:
        base = func.value
        text = base.value if isinstance(base, cst.Name) else ""
        if isinstance(base, cst.Attribute):
            text = base.attr.value
        return any(word in text.lower() for word in ("log", "warn", "writer", "stdout", "stderr"))
    return False


DEVICE_TYPE_WORDS = ("device.type", ".is_cpu", ".is_cuda", 'device == "cpu"', "device == 'cpu'")


def _device_type_test(provenance: Provenance, test: cst.BaseExpression, depth: int = 0) -> bool:
    """Whether a test asks which kind of device a tensor is on (``x.device.type == "cpu"``,
    ``x.is_cuda``, or a name bound only to such tests): each branch then knows where it is."""
    if isinstance(test, cst.UnaryOperation):
        return _device_type_test(provenance, test.expression, depth)
    if isinstance(test, cst.Name) and depth < 3:
        frame = provenance.current_frame()
        values = provenance.bindings(frame).reaching(test)
        return bool(values) and all(
            v is not None and _device_type_test(provenance, v, depth + 1) for v in values
        )
    code = provenance.context.module.code_for_node(test)
    return any(word in code for word in DEVICE_TYPE_WORDS)


def _debug_or_tracing(provenance: Provenance, test: cst.BaseExpression) -> bool:
    """Whether an `if` test says its body is for debugging, runs only while tracing, or only
    on another backend (``if x.device.type == "mps":``, a workaround for missing kernels)."""
    if isinstance(test, cst.Call):
        qualified = provenance.qualify(test.func) or ""
        if qualified.rpartition(".")[2] in TRACING_GUARDS:
            return True
    code = provenance.context.module.code_for_node(test).lower()
    return any(word in code for word in DEBUG_WORDS)
