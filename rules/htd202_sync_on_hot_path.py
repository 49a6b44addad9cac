from __future__ import annotations

import libcst as cst

from h2dlint.analysis.accumulators import ELEMENT_BUILTINS, device_accumulator
from h2dlint.analysis.arguments import keyword, positional
from h2dlint.analysis.boolean_operands import bool_operand
from h2dlint.analysis.call_reads import call_reads
from h2dlint.analysis.conversion_helpers import conversion_helper
from h2dlint.analysis.cpu_backend_flags import cpu_backend_arm
from h2dlint.analysis.device_loops import DeviceLoop, device_loop
from h2dlint.analysis.earlier_copies import earlier_host_copy
from h2dlint.analysis.element_writes import ONE_ELEMENT, syncing_write
from h2dlint.analysis.explicit_waits import hot_wait_message, stream_wait
from h2dlint.analysis.facts import Where
from h2dlint.analysis.first_iterations import first_iteration
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.generation_outputs import after_generation, output_after_loop
from h2dlint.analysis.host_data import host_scalar
from h2dlint.analysis.host_inputs import discarded_copy, prepared_host_input, written_to
from h2dlint.analysis.hot_guards import runs_every_call
from h2dlint.analysis.hot_paths import HotPaths
from h2dlint.analysis.iteration_reads import reported_iteration_read
from h2dlint.analysis.loop_body import saving_code, showing_code
from h2dlint.analysis.once_outputs import once_output
from h2dlint.analysis.policy_actions import action_copy
from h2dlint.analysis.prediction_outputs import prediction_output
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.request_end_classes import request_end_class
from h2dlint.analysis.returned_copies import RETURNED_NOTE, copy_role
from h2dlint.analysis.round_trips import round_trip_read
from h2dlint.analysis.row_deferrals import mask_judged_alone, reported_row_read
from h2dlint.analysis.runtime_backend_arms import host_runtime_arm
from h2dlint.analysis.scalar_arguments import scalar_argument
from h2dlint.analysis.shape_syncs import (
    DATA_SIZED_FUNCTIONS,
    DATA_SIZED_METHODS,
    FIRST_ARG_SIZE,
    SIZE_FACTORIES,
    SIZE_METHODS,
    device_mask,
    mask_write,
    operand_of,
    own_member,
    repeats_of,
    row_reduction,
    sizes_of,
)
from h2dlint.analysis.step_schedules import schedule_reason, schedule_root
from h2dlint.analysis.sync_basics import SYNC_BUILTINS, SYNC_METHODS
from h2dlint.analysis.syncing_helpers import synced_argument
from h2dlint.analysis.tested_tensors import model_steps_reason, model_while_reason, tested_tensor
from h2dlint.analysis.tuple_targets import unpacked_pairs
from h2dlint.analysis.type_tests import not_a_tensor_here
from h2dlint.analysis.unknown_reads import unknown_device_root
from h2dlint.analysis.value_syncs import (
    MASK_METHODS,
    REDUCTION_METHODS,
    explicit_sync,
    value_where,
)
from h2dlint.candidate_terms import called_as
from h2dlint.diagnostics import Confidence
from h2dlint.rule import Invalid, Rule, Valid

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
    "scalar": "PyTorch reads a tensor given as a Python scalar with `.item()`: multiply by the "
    "tensor instead (`g.sub(w * proj)`, `x.addcmul_(a, b * v)`)",
    "test": "decide on the device with `torch.where`, or on host data you already have",
    "elements": "reduce on the device (`x.max()`, `x.any()`) and read the one result, or use "
    "host values kept next to the tensor",
    "round-trip": "the number only goes back to the device: add the tensor itself "
    "(`total += n`, `n.detach()` for a loss) and read the total once, where it is needed",
    "mask-write": "keep the shape: `x.masked_scatter_(mask[..., None], values)` (values in "
    "mask order) or `torch.where(mask[..., None], new, x)` write without reading the mask on "
    "the host",
}


class SyncOnHotPath(Rule):
    """## What it does
    Flags a single host sync of a device tensor on a hot path, code that runs once per step or
    per request: an explicit read (`.item()`, `.tolist()`, `int(t)`, `float(t)`, `bool(t)`, a
    tensor as an `if` test such as `if mask.any():` or `if torch.isnan(loss):`), a blocking
    copy to the host (`.cpu()`,
    `.to("cpu")`, also when the function already made a host copy of the same tensor), and
    implicit syncs: a device scalar used as a size (`torch.arange(n)`, `torch.zeros(n)`,
    `x.repeat(n, 1)`, `x.view(n, -1)`), boolean-mask indexing (`x[x > 0]`; a row or a slice of
    a mask is one too: `for h, m in zip(hidden, masks): h[m]`, `x[i][mask[i]]`, and so is a
    helper's parameter that every call of the module passes a mask for, or a name unpacked
    from what a function of the module returns with a mask at its position:
    `noisy, masked = self.sample_noise(x)` then `self.loss(hidden, masked)`), writes of many
    values through a boolean mask (`embeds[is_image] = image_embeds`, and any `x[mask] += v`:
    PyTorch turns the mask into indices with `nonzero`; `x[mask] = 0` is a `masked_fill` and
    does not sync), a tensor given where an op takes a Python number (`g.sub(w, alpha=t)`,
    `x.addcmul_(a, b, value=t)`: PyTorch reads it with `.item()`), a Python number written
    into one element of a device tensor
    (`seq_lens[i] = n` of a 1-D tensor, `block_table[i, j] = b` of a 2-D one: the number of
    dimensions must be known from where the tensor was made) or through a list or tensor of
    indices (`logits[:, banned] = -inf`, also a parameter or a field of a class of the project
    annotated `list[int]`), which PyTorch copies from the host, blocking, and
    calls whose output size depends on the data (`nonzero`, `argwhere`, `unique`,
    `masked_select`, `bincount`, even with `minlength=`, which reads the maximum to size its
    output: count with `torch.zeros(n).scatter_add_(0, x, ones)` instead, `repeat_interleave`
    with a tensor of repeats and no `output_size=`).
    Two reads by how their result is used: a builtin that compares a tensor's elements as
    Python values (`max(lens)`, `min`, `sorted`, `any`, `all` of a tensor: one sync per
    element), and a number read only to go back into a device tensor (`total += n.item()`,
    `total = total + n.item() / k` with `total` on the device, also a `nonlocal` one of the
    enclosing function: a round trip; MEDIUM when `n`'s device is unknown, as `n` may be a host
    tensor, whose read is free).

    A function is on a *hot path* when it runs per step or per request: `forward` or
    `__call__` of a class; a step-like entry point by name (`step`, `backward`, `training_step`,
    `execute_model`, `prepare_inputs`, `schedule`, `update_from_output`, `sample`, `decode`,
    `handle`, `process_request`...), a model's `prepare_inputs_for_generation` (once per
    decoding step; its host copies returned to `forward` are the preparation and stay
    silent), an iterator's `__next__` (once per item: a batch, for a data loader) and a
    metric's `update()` (a class whose name or a base's has the word `Metric`, torchmetrics'
    `Metric`, torchrec's `RecMetricComputation`: a loop calls it once per batch, and
    `Metric.forward` calls it; not a logger, tracker or meter of metrics);
    `build()` of an attention metadata builder (a class named
    `...Metadata...Builder`) and functions named for the per-step metadata of attention or a
    batch (`init_forward_metadata`, `build_attn_metadata`), which run per step although
    `build`/`init_` names are otherwise run-once; alternate constructors (`new`, `init_new`,
    `create`, `build`, `from_*`) and `prepare*` methods of a class named for the state an engine
    builds every step (a last word `Context`/`Batch`/`Inputs`/`Meta`/`Metadata` after a
    `Step`/`Forward`/`Schedule`/`Input` word: `StepContext.new`, `ForwardBatch.init_new`,
    not pipeline blocks named `...PrepareLatentsStep`); a name with a `step` word
    (`update_step_context`, `decode_step`), `forward`/`fwd` first or last (`forward_decode`,
    `_attn_forward`), `backward` last (`pc_backward`, `fuser_backward`), a
    forward hook (`pre_process_fwd_hook`), or a top-level function with an `attention`/`attn`
    word (attention backends and their helpers; not one annotated to return Python lists,
    which prepares prompts on the host) — not names that configure or count
    (`set_step`, `get_*`, `num_steps`, `register_*`) or debug (`dump_*`, `print_*`, `debug_*`,
    `show_*`, `plot_*`); or a function the same module calls from
    one (`self.method(...)` of the same class, a module function, a method of the class of an
    attribute, also through a local name for it: `helper = self.helper`), transitively; or a
    function of the project called in a loop that runs a step on every iteration (an engine's
    `while True:` loop around `self.async_step()`, a trainer's loop around `optimizer.step()`;
    not a scheduler's `step()`, nor a call made every N steps), in any module. The body of a
    `for` loop whose every iteration runs device work is hot too, wherever the loop is (a
    function or a method: `Trainer.fit`, `Validator.validate`): a
    backward pass, an optimizer step or a CUDA graph replay (a training loop; also a helper of
    the class or of a base class, in any module, whose body backpropagates the loss it is
    given: `self.optimizer_update(optimizer, loss)`, the loss then a tensor), a copy to the
    device (`x.to(device)`) for reads of values computed from the copied data (a validation
    loop's `valid += (labels != -100).sum()` of labels it copied), or a tensor the loop carries
    from one iteration to the next, for reads of it and of values computed from it (a greedy
    selection's `idx = torch.argmax(min_dist)` that the next iteration's `features[idx]` reads,
    an iterative solver's estimate: read before the body binds it to a tensor torch computes;
    one copy after the loop does instead; not a tensor proven on the host), or a loop over a
    `range` of steps whose own body calls the model by the callee's name (a translator's
    decoding loop, `for step in range(max_length):` around `self.model.decoder(...)`,
    `model.forward(...)`; not `ModelInput(...)`, which builds an input; not a loop over a
    collection's positions, `range(len(batches))`; not a loop that feeds the model a tensor it
    makes on the host each step and names no device, `cache_position = torch.tensor([i])` /
    `logits = self.forward(ids, cache_position)`: the model runs on the host, an ExecuTorch
    program or an exported graph; for reads of values, not `.cpu()` copies
    of whole outputs, which a loop over tiles or chunks hands to the host; not in code that
    saves or exports state, `save_checkpoint`, `gather_cpu_state_dict`: it copies values to the host
    for the file; nor in a function named for showing or recording values,
    `visualize_predictions`, `log_samples`, `_debug_stats`: the plot or the log needs them).
    Run-once code (`__init__`, setup, loaders, tests, memoised functions, compiler passes over a
    `torch.fx` graph such as `plan_fwd(gm: GraphModule, ...)`, code under a run-once guard such as
    `if self.cache is None:`) is never hot; an entry made when a mapping the function is given
    lacks it (`lens = params.get("lens")` / `if lens is None: ...`, `params` a parameter not
    named as a cache) is made on every call, and is hot. A device read in the `else` of a test
    that another tensor is on the host (`if src.device.type == "cpu": lens = src.tolist()` /
    `else: lens = seqlens.cpu().tolist()`) is the fallback for a caller that supplies no host
    copy, and is not reported. A closure that a factory returns or installs on an
    object (`def get_attention_forward(cfg): def forward(self, x): ...; return forward`, model
    patching) runs when it is called, so it is hot by its own name. Model surgery
    (`W.weight.data = ...`, `setattr(layer, "weight", new)`) and the functions of a module named
    for debugging (`model_debugging_utils.py`) are never hot. Configure it with
    `[tool.h2dlint.analysis] hot-functions = [...]` and `cold-functions = [...]` (names,
    `Class.method`, globs).

    Confidence: HIGH when the analysis proves the tensor is on a device (`.cuda()`,
    `.to(device)`, `device=` of a factory, and what is computed from those); MEDIUM when it is
    surely a tensor whose device is unknown: a parameter annotated `torch.Tensor`, a name read
    in the branch of `if isinstance(x, torch.Tensor):` (or `torch.is_tensor(x)`) with nothing
    rebinding it between the test and the read, whatever its annotation says (`sigma: float |
    torch.Tensor`), a field of a module's output read with `.item()`/`.tolist()`
    (`outputs = self.model(**batch)`, `outputs.loss.item()`), a field a
    class of the project declares as a tensor (`seq_lens: torch.Tensor` of a dataclass of
    step inputs), a buffer the module registers (`self.register_buffer("count", ...)`: it
    moves with the module, wherever `__init__` built it; a plain `self.count = torch.tensor(0)`
    stays on the host), a parameter its function saves with `ctx.save_for_backward(...)` (only
    tensors may be saved so) or a bare parameter of a `@torch.jit.script` function (TorchScript
    types it `Tensor`), also as passed on to a helper by every call of it, a
    `torch.<function>` result (`torch.cat(...)`, `torch.max(x)`), a factory given a device
    of unknown kind (`torch.zeros((), device=device_type)`), a method only tensors have
    (`x.int()`, `x.detach()`) or a method called with a keyword only tensor methods take
    (`logits.argmax(dim=-1)`; numpy says `axis=`), a reduction or comparison read
    with `.item()`/`.tolist()` (`ctx.q_seqlens.max().item()`, `(a == b).tolist()`), the used
    result of a `.cpu()` of something not named as a module, or a name bound only to such
    values (also when updated in place, `count += mask.sum()`) or unpacked from a function
    that returns several tensors
    (`weights, ids = torch.topk(x, k)`, `vals, idx = x.sort()`), a container entry or a name
    bound once that the function uses with a method only tensors have
    (`cache["end"].fill_(n)`, `ids.masked_select(mask)`, `loss.backward()`; a rebinding by
    arithmetic on itself, `loss = loss / accumulation_steps`, is no second binding), and what
    a process group's
    collective returns of a tensor (`group.all_reduce(loss, op=AVG)`). Such a tensor given to a call
    whose output size depends on the data (`torch.nonzero(input_ids == image_token_id)`) or
    indexed through a boolean mask (`ids[ids < k]`) is MEDIUM too, and so is a mask that is
    surely a tensor (`keep = mask.bool()`, a row of one) indexing a value that says nothing
    (`jsd[keep]`), except in a function named for metrics (`compute_data_metrics`: the values
    go to a logger). `x.max(dim=0).values` (`.indices`) is
    the tensor `x.max(dim=0)` is. Used as a size, a slice
    bound or compared in an `if` test, only a reduction (`x.max()`, also bound to a name:
    `longest = lens.max()`) or a parameter annotated as a tensor (`input_pos_maxp1:
    Optional[Tensor]` in `mask[..., :input_pos_maxp1]`: it can only be a 0-d tensor there)
    counts, unless a call of its function in the module passes a Python
    number for it. The message says which tensor would have to be on the GPU. A copy that a
    `forward` or `__call__` returns (`return wave.squeeze().cpu()`, or a name bound to the copy
    and read by nothing but the `return`s) is MEDIUM even of a device tensor: whether it costs
    a stall per step or hands a request its result once is its callers' to say. An offload a
    setting asks for is left alone: a name rebound to its own host copy in an `if` of a flag
    with no `else` (`if self.cpu_cache: hr = hr.cpu()`), after which the code works on the
    value wherever it is. So is a calibration pass's input offloaded whole and only stored, in
    code whose names say calibration, an observer or a weight-quantization search
    (`self.inputs.append(input.to("cpu"))` in an AWQ or SmoothQuant observer's `forward`,
    AutoAWQ's `x = x.detach().cpu(); feat_dict[name].append(x)` hook, a weight backed up to the
    host before a scale search): the pass runs once offline and the host never reads the copy;
    a statistic of the input copied there (`torch.max(x).to("cpu")`, accumulate it on the
    device) or a copy read on the host stays reported. Host tensors stay
    silent: numpy arrays, `.cpu()` results, names that say host (`lengths_cpu`, `host_ids`) and
    names bound to values computed from them (`query_lens = qsl_cpu[1:] - qsl_cpu[:-1]`),
    results of `numel()`/`size()` (Python numbers), `float(not flag)` (a Python bool; `not`
    of a tensor is reported as its `bool()`), a tokenizer's or processor's batch (a call
    with `return_tensors="pt"`, or with a parameter of the function passed on whose default is
    such a string, and no `device=`) and its fields (`enc.input_ids`, unless the function moves
    it in place with `enc.to(dev)` or sets that field), results of a helper asked for the host by a
    literal device argument (`get_for_device(params, "slots", "cpu")`, `device="cpu"`; not
    `src_device="cpu"`), the `forward`/`__call__` argument (or the same values in another
    layout: `.permute`, `.flatten`, `.detach`) of a class that is no `torch.nn` module, handed
    to numpy with `.cpu().numpy()` when its device is unknown (a backend feeding an exported
    model's runtime: the caller chose where the tensor is, and the values must reach the host
    there; a value computed from it, `logits.argmax(-1)`, an array the function gives back to a
    `torch.*` call, `pack_padded_sequence(x, lengths)`, and a function that moves values to a
    device again, a round trip, still count), a function's own tensor argument (or a layout
    of it) handed with `.cpu().numpy()` to a library outside PyTorch, numpy and the project,
    directly or through the name the array is bound to (`pesq(fs, target.cpu().numpy(), ...)`,
    `stoi(target_np[b, :], preds_np[b, :], fs)`: an audio metric's score, also with the library
    imported inside the function; not in a method of a class that may be a `torch.nn` module,
    not an array given back to `torch.*`), a function's own argument copied in the arm of
    its type test and rebound or returned (`if isinstance(data, torch.Tensor): data =
    data.detach().cpu().numpy()`: a converter such as MONAI's `convert_to_numpy`, asked for
    host data by its caller), torch functions of host tensors
    (`torch.clamp(host, 0, n)`, `torch.stack(torch.meshgrid(*host_ranges))`), and `forward`
    arguments that the class's `prepare_inputs_for_generation` (its own or an inherited one,
    also from another module) returns built on the host, or that an outer module of the same
    file passes on from such an argument (`self.model(x, grid_thw=grid_thw)`).

    Not flagged: run-once and cold code; host tensors (built without `device=`, `.cpu()`
    results, `.to("cpu", non_blocking=True)` results); the reads HTD201 reports in a row loop
    (each per-row sync is reported once, by HTD201 at its read: the read itself, a sync around
    or inside it, a read on its line; every read of a loop whose line suppresses HTD201, `#
    noqa: HTD201`; any other read in the loop, such as a mask indexing a row, is HTD202's) and
    syncs in `while` loops and the builtins that walk a tensor (`max(lens)`) that HTD201
    reports (one report a read, HTD201's); explicit waits (`torch.cuda.synchronize()`,
    `stream.synchronize()`) other than the one shape below; code that only runs while tracing or
    scripting (`if torch.jit.is_tracing():`); an arm only a torch older than 2.0 takes (the
    `else` of `if digit_version(torch.__version__) > digit_version("1.6.0"):`, the body of
    `if V(torch.__version__) < V("1.7"):`, also through a module constant such as
    `is_torch_1_9_plus`);
    reference implementations a kernel is checked against (`*_reference`, `oracle`, `golden`,
    `tester`) and the private helpers only they use;
    debugging aids and error paths: `assert` and `raise` statements, arguments of logging and
    `print` calls and of testing assertions (`torch.testing.assert_close`, `assertEqual`)
    (also functions named `log_*`/`print_*`; not a logger's `debug(...)`, whose arguments
    Python evaluates also when debug logging is off and the message is dropped, unless a
    debugging branch such as `if logger.isEnabledFor(logging.DEBUG):` holds it), the body of a
    branch that ends by
    raising or by a warning (`if bad.any(): n = int(bad.sum().item()); raise ...`: it runs
    when a check failed; the test itself runs every step and is reported), an `except` handler
    that ends by raising, a lambda that only formats a message (`check(ok, lambda: f"got
    {x.amin().item()}")`: the check calls it when it fails), the arm of a test
    taken only for degenerate input (empty tensors or lists, NaN or infinite values: the body of
    `if torch.isnan(loss).any():`, the `else` of `if norms.isfinite().all():`), the read of a
    generation's output right after `out = model.generate(...)` with only cheap statements
    between (slicing, `torch.isin`, masks: `generate` reads the host every step to stop, so
    nothing is left queued; a model call between queues work again), branches taken once
    every N steps (`if step % 100 == 0:`, `if it - last == self.eviction_interval:`, also
    around the call of a helper), the first step's set-up (a step counter equal to 0 or 1:
    `if group["step"] == 0:`, `if self.global_step == 1:`), and branches whose test names
    debugging (`if self.debug:`,
    `if logger.isEnabledFor(...)`) or reads a diagnostic switch from the environment that is
    off unless set at launch (`if check:` with `check` bound, in the function or at module
    level, to `os.environ.get("X_ROUTING_CHECK", "0") != "0"`; a switch on by default or named
    for a feature, `USE_FAST_PATH`, runs per step); branches for another backend
    (`if x.device.type == "mps":`,
    `x.cpu() if x.device.type == "cpu" else x`, `if x.device == torch.device("cpu"):`,
    `if x.is_mps:`, `if is_mps_tensor_safe(x):` (a
    predicate named for another accelerator), the `else` of
    `if x.device.type in {"cpu", "cuda"}:` and the test of its `elif`, the code after
    `if x.is_cuda: return ...`, what only a CPU branch calls, forwards named for the CPU such as
    `_cpu_forward`); values a type test says are no tensor (the `else` of
    `isinstance(x, torch.Tensor)`); a tokenizer's, processor's or data transform's methods
    (a class named `...Transform`, or derived from one and from no torch module: MONAI's
    `SqueezeDim(Transform)`, PyTorch Geometric's `AddMetaPaths(BaseTransform)`), also when a
    hot function calls them, and the functions of a tokenizer module
    (`tokenizer.py`); the copy of a post-processor's result outside its loops (a class named
    `...PostProcessor`, or any class that is no torch module in a module named for
    post-processing, `rec_postprocess.py`: an OCR label decoder's `preds.cpu().numpy()`);
    the `forward`/`__call__` of an export wrapper or an evaluator (a class
    named `...Export...`, `...Onnx...`, `...Evaluator`) and functions named for the log they
    write (`train_step_logs`); calls of the object's own members named like
    tensor methods (`self.repeat(x)` runs a submodule);
    assignments through a mask (`x[mask] = 0` does not sync). A pipeline's `__call__` (a class
    named, or derived from one named, `...Pipeline...`) runs once per request around its loop
    of steps: only the loop's body is hot there. So does a host-in, host-out `__call__` (a
    class that is no torch module whose `__call__` makes its tensor or image from host data:
    `torch.from_numpy`, `Image.fromarray`; ControlNet's annotators; any other method of such
    a class that makes its own input so: an infill model's `forward`): a helper without loops
    that run a model, called outside its loops (in any module of the project), runs the model
    once per request, and its copy to numpy is the request's output. The one `.tolist()` that
    HTD201's fix leaves (`t.prod(dim=-1).tolist()`, all rows at once) is not reported again,
    nor a copy outside loops that becomes the numpy array its function declares it returns
    (`-> np.ndarray`, `-> tuple[np.ndarray, ...]`, not under `Iterator`; not in a torch
    module's method): the function's caller is host code, and the copy is what it exists to
    hand over; nor a copy handed straight to `matplotlib` (a plot). Nor, at MEDIUM, each
    batch's output copied to the host and collected (`.append`/`.extend`, or bound in a loop
    that collects) in a pass over batches that trains nothing (a `for` over a loader, over
    batches or a range stepped by a batch size, in a function other than a module's
    `forward`: `predict`, `encode`, `embed`): upstream keeps that copy (Lightning's predict
    loop, sentence-transformers' `encode`, timm's `validate`), which bounds the device memory
    a long pass holds, one copy per batch behind a whole forward (session 47). A per-batch
    `.item()` of a loss or metric summed into a float stays reported: the host could sum the
    tensors and read once (FunASR 1.4.16 and torchtitan 0.3.0 moved such reads out of their
    validation loops).

    Explicit waits are reported in two shapes, at MEDIUM confidence. First, a statement
    `torch.cuda.synchronize()` (or `torch.accelerator.synchronize()`...) or
    `stream.synchronize()` right after `non_blocking=True` copies to the device in the same
    block, on a hot path or in a loop (a `while` loop of steps counts here) around both: the host
    waits for the copies it has just queued, every step, so they overlap nothing (lmdeploy's
    inputs loop synchronized its H2D stream per step until it recorded an event instead). The
    copies count also when a call just before the wait queues them: a function nested in the
    waiting one, one of the module, or a method of `self` (mmgp's block loader queued them in a
    nested `cpu_to_gpu(stream, params)`). It is
    certain when nothing on the host reads the copied data next. Left alone: an event's
    `synchronize()` (the precise wait), waits after a copy to the host (the host reads it next)
    or from a staging buffer (`pinned`, `buf`: the host may rewrite it next, HTD402), waits in
    timing code (`time.perf_counter()`, `elapsed_time`, names with `time`/`bench`/`profile`), in
    run-once code (warm-up, set-up) and waits with no copy queued before them in their block.
    Most explicit waits in real code are of those kinds; upstream fixes replaced the reported
    kind with an event and a device-side `wait_event`/`wait_stream`.
    Second, a device-wide wait (`torch.cuda.synchronize()`) with nothing queued before it, in a
    function that a loop of steps calls on every iteration (the loop's body, or the function it
    calls, runs a step by name: transformers' continuous batching loop calls
    `_inner_generation_loop()`, which runs `_generation_step()`): the host stalls for all the
    device's work every step, where the step's outputs are read with `.tolist()` anyway
    (transformers 5.0 and 5.4 removed two such waits). Functions named for warm-up, capture,
    teardown, loading, memory or waiting, and timing code, are left alone.

    A call of a helper of another module of the project that returns a host read of its
    argument (`return x.item()`, `return float(all_reduce(x).item())`, or another such helper
    of it: `dist_utils.dist_sum(local_tokens, mesh)` in a training step) is that read, at the
    call. Code after an early exit taken on all but the period's steps (`if not
    self.metrics.should_log(step): return`, `if step % n != 0: continue` of a counter of
    steps; not a check that raises, `if length % chunk != 0: raise ...`) runs once every N
    steps and is left alone, like the body of `if step % n == 0:`; so is code after a lookup
    that returns a cached result (`for key, plan in memo: if key is k: return plan`), which runs
    once per new input. A function registered as a hook (`module.register_forward_pre_hook(f)`,
    `register_forward_hook`, the backward ones, `register_module_forward_hook`, a tensor's
    `register_hook`, an optimizer's `register_step_post_hook`) runs on every forward, backward
    or step: it is hot, and so is what it calls. The hook is found as a function of the module,
    a method (`self._hook`), one nested in the function that registers it, a `partial` of one,
    the functions a lambda calls (`register_forward_hook(lambda m, i, o, k=j: record(m, i, o,
    k))`) or the closure a factory returns (`register_forward_hook(make_hook(name))`); not the
    hooks of loading and saving (`register_load_state_dict_post_hook`: once). So is a function
    of the module installed as a module's forward (`Model.forward = __patch__Model_forward__`,
    `m.forward = types.MethodType(f, m)`: model patching libraries replace forwards this way).

    ## Why is this bad?
    The host queues GPU work far ahead of the GPU; a sync makes it wait until all queued work
    is done, and the GPU then idles while the host prepares the next step. Measured on an H200
    (torch 2.11): behind a 40 ms kernel, `.item()`, `int(t)`, a 0-d device tensor as a size
    (`torch.arange(t)`, `x.repeat(t, 1)`), `x[x > 0]`, `nonzero`, `unique`, `masked_select` and
    `repeat_interleave` with tensor repeats each held the host about 40 ms;
    `repeat_interleave(..., output_size=n)` returned at once. Writes through a device mask
    (`benchmarks/device/write_syncs.py`): `x[mask] = vals[mask]`, `x[mask] = <0-d device
    tensor>` and `x.index_put_((mask,), v)` held it 40.6-40.7 ms, `x[mask] = 0.0` 0.18 ms and
    `x.masked_fill_(mask, 0.0)` 0.02 ms. Python numbers written by index
    (`benchmarks/device/write_syncs.py`): `x[5] = 0.0`, `rows[3, 7] = 0.0`, `x[idx] = 0.0`,
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
        *(b"while ", b"decode(", b"convert_ids_to_tokens(", b"equal(", b"allclose("),
        *(b"max(", b"min("),  # ``max(loss, best)``: Python compares the values
        *(f"{n}(".encode() for n in sorted(DATA_SIZED_METHODS | {"repeat_interleave", "where"})),
        *(f"{name.rpartition('.')[2]}(".encode() for name in sorted(SIZE_FACTORIES)),
        *(f".{name}(".encode() for name in sorted(SIZE_METHODS)),
    )
    # Every report is in a function (only they can be hot), at one of: a call that reads a
    # tensor on the host (`.item()`, `.to("cpu")`, `int(t)`, `decode`...), uses it as a size or
    # makes a data-sized result, an `if` or `while` test reducing one, or a wait for a stream;
    # else at syntax without a call, judged by where its tensor is, which may be learned from
    # another module: an `if` test that is a name, an attribute or a comparison (of a parameter
    # annotated as a tensor), a slice bound, a write into a subscript, or an index that is a mask.
    candidates = (
        "def "
        + "|".join(
            [
                "|".join(f".{name}" for name in sorted(SYNC_METHODS)),
                ".cpu|" + "|".join(sorted(SYNC_BUILTINS | ELEMENT_BUILTINS)),
                called_as(
                    SIZE_FACTORIES
                    | DATA_SIZED_FUNCTIONS
                    | {"torch.repeat_interleave", "torch.where"}
                ),
                "|".join(f".{name}" for name in sorted(SIZE_METHODS | DATA_SIZED_METHODS)),
                ".any|.all|" + "|".join(f".{name}" for name in sorted(REDUCTION_METHODS)),
                ".synchronize",
                ".decode|.batch_decode|.convert_ids_to_tokens|.detokenize|.equal|equal|.allclose",
            ]
        ),
        "def .to arg Literal",  # .to("cpu")
        "def .to(device=)",
        "def .add|.add_|.sub|.sub_|.subtract|.rsub|add|sub|subtract|rsub(alpha=)",
        "def .addcmul|.addcmul_|.addcdiv|.addcdiv_|addcmul|addcdiv(value=)",
        "def @if arg Name|Attribute|Compare",
        "def @compare in While",  # a `while` test compared every step
        "def @subscript arg Slice|Store",
        "def @subscript & def @compare",
        f"def @subscript & def {called_as(f'torch.{name}' for name in MASK_METHODS)}",
    )

    valid = (
        # Session 51 (triage51a): a post-training-quantization (PTQ) hook caches each block's
        # inputs and outputs on the host: the calibration offload (fms-model-optimizer 0.8.7
        # `quant/ptq.py:404`).
        Valid(
            """
            import torch
            from torch import nn
            class PTQHookRecInOut(nn.Module):
                def __init__(self, qcfg):
                    super().__init__()
                    self.qcfg = qcfg
                def __call__(self, mod, x, output):
                    submods = [m for m in mod.modules()]
                    if len(x) > 1:
                        self.qcfg["cached_input0"].append(x[0].detach().cpu())
                    self.qcfg["cached_output"].append(output.detach().cpu())
            """
        ),
        # Session 51 (triage51a): a counter tested for zero that the body raises runs its body
        # on the first forward only (fms-model-optimizer 0.8.7 `quant/quantizers.py:2318`, LSQ+
        # initialising its clip values from the first batch).
        Valid(
            """
            import torch
            from torch import nn
            class LSQPlus(nn.Module):
                def __init__(self, bits):
                    super().__init__()
                    self.clip = nn.Parameter(torch.tensor(1.0))
                    self.counter = 0
                    self.bits = bits
                def forward(self, x):
                    with torch.no_grad():
                        if self.counter == 0:
                            lo = x.min().item()
                            self.clip.data.fill_((x.max().item() - lo) / (2**self.bits - 1))
                            self.counter += 1
                    return torch.round(x / self.clip) * self.clip
            """
        ),
        # Session 51 (mine51a): a local name bound to a module function makes it as hot as its
        # caller, no more: called from a run-once `__init__` it stays cold.
        Valid(
            """
            import torch
            from torch import nn
            def _count(counts: torch.Tensor) -> int:
                offsets = torch.cumsum(counts, dim=0)
                return int(offsets[-1])
            class Experts(nn.Module):
                def __init__(self, counts: torch.Tensor):
                    super().__init__()
                    count = _count
                    self.total = count(counts)
            """
        ),
        # Session 50 (triage50a): a value tested to be a Python int is no tensor in the test's
        # body (OLMo-core 3.0.0 `nn/lm_head.py:233`, a `Union[int, torch.Tensor]` parameter).
        Valid(
            """
            from typing import Union
            import torch
            from torch import nn
            class Head(nn.Module):
                def forward(self, x: torch.Tensor, *, keep: Union[int, torch.Tensor] = 0):
                    if isinstance(keep, int):
                        if keep != 0:
                            x = x[:, -keep:, :]
                    else:
                        x = x.gather(1, keep.unsqueeze(-1).expand(-1, -1, x.size(-1)))
                    return self.proj(x)
            """
        ),
        # Session 50 (triage50a): `backward_stage_index(op)` looks a number up, it runs no
        # backward pass (OLMo-core 3.0.0's pipeline schedule, built once).
        Valid(
            """
            def backward_stage_index(op, n):
                return n - 1 - op
            def rank_ops(total_ops, warmup_ops, n):
                ops = []
                for op in range(total_ops):
                    if op < warmup_ops:
                        ops.append(("F", op))
                    else:
                        ops.append(("B", backward_stage_index(op, n)))
                return ops
            """
        ),
        # Session 50 (triage50a): a validation loss's totals are read once per validation,
        # not per training batch (instructlab-training 0.16.2 `main_ds.py:153`).
        Valid(
            """
            import torch
            def compute_validation_loss(model, loader, device):
                total = 0.0
                for batch in loader:
                    total += model(batch["input_ids"]).loss.detach()
                loss_tensor = torch.tensor(total, device=device)
                torch.distributed.all_reduce(loss_tensor)
                return loss_tensor.item()
            """
        ),
        # Session 49 (lead): a generic helper's `.item()` of a parameter that a later use under
        # a type test (`if isinstance(batch, torch.Tensor): batch.detach()`) does not prove a
        # tensor: the read above serves numpy scalars too (monai's `decollate_batch`).
        Valid(
            """
            import torch
            class Model(torch.nn.Module):
                def forward(self, batch, detach: bool = True):
                    if getattr(batch, "ndim", -1) == 0 and hasattr(batch, "item"):
                        return batch.item() if detach else batch
                    if isinstance(batch, torch.Tensor):
                        batch = batch.detach()
                    return batch
            """
        ),
        # Session 49 (recall49): the look-alikes of `torch.equal` in `invalid`: an assertion
        # (a check, as the rule leaves every `assert`) and values of unknown kind.
        Valid(
            """
            import torch
            class SimModel(torch.nn.Module):
                def forward(self, numbers: torch.Tensor, positions, cell):
                    assert torch.equal(numbers, self.atomic_numbers), "changed"
                    if torch.equal(cell, self.cell):
                        return self.cached
                    return self.net(positions)
            """
        ),
        # Session 49 (recall49): the look-alikes of the step-size control and the `while`
        # loop in `invalid`: a tensor use after another binding of the name says nothing of
        # the read before it; a solver's loop over a Python count of steps, and a fixed-step
        # loop, read no tensor per step.
        Valid(
            """
            import torch
            def _step_size(last_step, ratio):
                if ratio < 1:
                    ratio = torch.tensor(ratio)
                ratio.fill_(2)
                return last_step * ratio
            """
        ),
        Valid(
            """
            import torch
            class Solver:
                def _advance(self, next_t):
                    n_steps = 0
                    while n_steps < self.max_num_steps:
                        self.rk_state = self._adaptive_step(self.rk_state)
                        n_steps += 1
                    return self.rk_state.y1
                def integrate(self, t: torch.Tensor):
                    y = self.y0
                    for t0, t1 in zip(self.grid[:-1], self.grid[1:]):
                        y = y + self._step_func(self.func, t0, t1 - t0, t1, y)
                    return y
            """
        ),
        # Session 49 (recall49): the look-alikes of the generation hooks in `invalid`: a
        # `__call__` of another callable object (a collator's, a hook class of another
        # library, whose arrays may be numpy) and a decode of Python ids on a hot path.
        Valid(
            """
            from outlines.processors import OutlinesLogitsProcessor
            class StopOnText(OutlinesLogitsProcessor):
                def __call__(self, input_ids, logits):
                    text = self.tokenizer.decode(input_ids[0])
                    return logits
            """
        ),
        Valid(
            """
            class Printer:
                def __call__(self, input_ids, scores):
                    return self.tokenizer.decode(input_ids[0])
            """
        ),
        Valid(
            """
            import torch
            class Model(torch.nn.Module):
                def forward(self, x, token_ids: list[int]):
                    self.last_text = self.tokenizer.decode(token_ids)
                    return self.net(x)
            """
        ),
        # Session 49 (triage49b): an offload (a rebinding to its host copy followed by
        # `torch.cuda.empty_cache()`, Protenix's confidence head), a mask compared with a whole
        # numpy array (fairchem's dataset heads), and a check under a memo kept through
        # `getattr(owner, "_merged", None)` (fairchem's UMA Nitro): none reads per step.
        Valid(
            """
            import numpy as np
            import torch
            from torch import nn
            class Head(nn.Module):
                def forward(self, z, xs, data, out):
                    preds = []
                    for x in xs:
                        pae = self.pae(x)
                        if z.shape[-2] > 2000 and not self.training:
                            pae = pae.cpu()
                            torch.cuda.empty_cache()
                        preds.append(pae)
                    names = np.array(data.dataset)
                    mask = names == self.name
                    return preds, out[mask]
            def _bound(w):
                return float(w.abs().sum(dim=1).max())
            def merged(backbone, x):
                cache = getattr(backbone, "_merged", None)
                if cache is None:
                    cache = (backbone.w, _bound(backbone.w))
                    backbone._merged = cache
                return x @ cache[0]
            class Model(nn.Module):
                def forward(self, x):
                    return merged(self.backbone, x)
            """
        ),
        # Session 47 (misses47): the look-alikes of the collection test and the transformers
        # model in `invalid`: `if self.validate:` (an attribute) and `if validate:` (a
        # parameter) are debugging switches; a subclass of transformers' config is no module.
        Valid(
            """
            import torch
            from transformers import LlamaConfig
            class Config(LlamaConfig):
                pass
            class Cache:
                def append_kv_cache(self, scales, validate: bool):
                    if self.validate:
                        torch.stack(scales).cpu()
                    if validate:
                        torch.stack(scales).cpu()
                    out = Config()(scales)
                    return out.loss.item()
            """
        ),
        # Session 48 (hot48): the look-alikes of the backward pass and the helper in `invalid`:
        # a name that registers a backward pass runs none; a helper of the class that steps an
        # optimizer but backpropagates nothing makes no training loop of the loop calling it.
        Valid(
            """
            import torch
            class Trainer:
                def register_backward(self, grads, has_grads):
                    shared = torch.stack(has_grads).prod(0).bool()
                    return torch.stack([g[~shared] for g in grads])
                def apply(self, optimizer, objective):
                    optimizer.step()
                def update_net(self, buffer, optimizer):
                    total = 0.0
                    for _ in range(8):
                        obj_critic = self.get_obj_critic(buffer)
                        total += obj_critic.item()
                        self.apply(optimizer, obj_critic)
                    return total
            """
        ),
        # Session 46 (misses46): the look-alikes of the guarded read, the helper's copies and
        # the model output's field in `invalid`: a guard of another kind, or the else arm, or
        # a name rebound after the guard, proves no tensor; a helper that copies to the host
        # makes the wait right; a tokenizer's output is no module's.
        Valid(
            """
            import numpy as np
            import torch
            def to_velocity(sample, sigma: float | torch.Tensor, denoised, table):
                if isinstance(sigma, np.ndarray):
                    s = sigma.item()
                if isinstance(sigma, torch.Tensor):
                    sigma = table[0]
                    s = sigma.item()
                return (sample - denoised) / s
            class EulerDiffusionStep:
                def step(self, sample, denoised, sigmas: torch.Tensor, i: int):
                    return to_velocity(sample, sigmas[i], denoised, self.table)
            class Offload:
                def step(self, blocks):
                    def gpu_to_cpu(params):
                        for p in params:
                            p.data = p.to("cpu", non_blocking=True)
                    gpu_to_cpu(blocks)
                    torch.cuda.synchronize()
            class Policy(torch.nn.Module):
                def forward(self, text):
                    enc = self.tokenizer(text, return_tensors="pt")
                    return enc.input_ids.tolist()
            """
        ),
        # Session 45 (miss45): one report a read. A builtin that compares a tensor's elements
        # as Python values per forward, and a `while` test of a tensor per iteration, are
        # HTD201's reads (a sync per element, per iteration): HTD202 leaves them to it
        # (`analysis/iteration_reads.py`), as it leaves a row loop's reads.
        Valid(
            """
            import torch
            class Attention(torch.nn.Module):
                def forward(self, q, mask):
                    lens = mask.sum(dim=-1)
                    longest = max(lens)
                    return q[:, :longest]
            class Solver:
                def sample(self, x, t_0, t_err):
                    s = x.cuda()
                    while torch.abs(s - t_0).mean() > t_err:
                        s = s * 0.5
                    return s
            """
        ),
        # Session 43 (truth43): a calibration observer stores each input on the host, to
        # move it back for its search once; the host never reads it (stored_offloads).
        Valid(
            """
            import torch
            class AWQObserver(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.inputs = []
                def forward(self, input: torch.Tensor, output: torch.Tensor):
                    self.inputs.append(input.to("cpu"))
            """
        ),
        # Session 36 (mine36): the twins of the INVALID debug log and gradient norm. Under
        # `logger.isEnabledFor(logging.DEBUG)` the reads run only when the message is kept
        # (nemo-automodel 0.6's fix); a log at INFO level is one the run asked for; a norm read
        # only every N steps.
        Valid(
            """
            import logging
            import torch
            logger = logging.getLogger(__name__)
            class CausalAttention(torch.nn.Module):
                def forward(self, q, k, v, mask):
                    rows = (mask > -1e4).sum(dim=-1)
                    if logger.isEnabledFor(logging.DEBUG):
                        logger.debug("visible keys per row: %s", rows.tolist())
                    logger.info("visible keys in the first row: %s", rows[0].item())
                    return torch.nn.functional.scaled_dot_product_attention(q, k, v, mask)
            """
        ),
        Valid(
            """
            import torch
            def train(model, optimizer, loader, max_norm, log_every):
                for step, batch in enumerate(loader):
                    model(batch).loss.backward()
                    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
                    optimizer.step()
                    if step % log_every == 0:
                        print(step, grad_norm.item())
            """
        ),
        # Session 41: a call that names a backward without running one (registering a hook,
        # saving for an autograd backward) is no loop's device work.
        Valid(
            """
            def attach(modules, hooks, scales, ctx):
                for module, scale in zip(modules, scales):
                    module.register_full_backward_hook(hooks[0])
                    ctx.save_for_backward(scale)
                    module.scale = scale.item()
            """
        ),
        # Session 36 (recall36): the twins of the hooks in `invalid`: a hook of loading
        # (runs once per `load_state_dict`), a nested helper only called once in set-up, and
        # a value read once when the `and` of tests says it is unset (`probs is None`).
        Valid(
            """
            import torch
            def attach(model):
                def fix_scales(module, incompatible_keys):
                    module.scale_host = module.scale.cpu()
                model.register_load_state_dict_post_hook(fix_scales)
            def transcribe(model, audio, language):
                probs = None
                def hook_logits(layer, ins, outs):
                    nonlocal probs
                    if language is None and probs is None:
                        probs = outs[0].softmax(dim=-1).tolist()
                model.decoder.ln.register_forward_hook(hook_logits)
                return model.transcribe(audio), probs
            """
        ),
        # Session 34 (recall34): the twin of `triton.cdiv` of a tensor in `invalid`: of two
        # Python ints it is an int (a number of blocks), with nothing to read back.
        Valid(
            """
            import torch
            import triton
            class Chunked(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x: torch.Tensor, chunk_size: int):
                    n = triton.cdiv(x.shape[1], chunk_size)
                    starts = [i * chunk_size for i in range(n)]
                    return torch.stack([x[:, s] for s in starts])
            """
        ),
        # Session 34 (recall34): the same chunk counts of the caller's host copy of the
        # lengths (`cu_seqlens_cpu`, computed from by a function): nothing to read back.
        Valid(
            """
            import torch
            import triton
            def chunk_indices(cu_seqlens: torch.Tensor, cu_seqlens_cpu: torch.Tensor, size: int):
                counts = triton.cdiv(torch.diff(cu_seqlens_cpu), size).tolist()
                return torch.cat([torch.arange(n) for n in counts]).to(cu_seqlens)
            class Chunked(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x, cu_seqlens, cu_seqlens_cpu):
                    return x[chunk_indices(cu_seqlens, cu_seqlens_cpu, 64)]
            """
        ),
        # Session 33 (recall33b): twins of the buffer and the saved tensor in `invalid`. A
        # plain attribute is no buffer: `.to(device)` leaves it on the host where it was built;
        # a value kept on `ctx` as an attribute (not saved) may be a Python list.
        Valid(
            """
            import torch
            class Normalizer(torch.nn.Module):
                def __init__(self, until: int):
                    super().__init__()
                    self.until = until
                    self.count = torch.tensor(0)
                def forward(self, x):
                    if self.count >= self.until:
                        return x
                    self.count += x.shape[0]
                    return x * 2
            """
        ),
        Valid(
            """
            import torch
            def half_index(cu_seqlens):
                return torch.zeros((cu_seqlens[-1].item(),), dtype=torch.bool)
            class ZigZag(torch.autograd.Function):
                @staticmethod
                def forward(ctx, q, cu_seqlens):
                    index = half_index(cu_seqlens)
                    ctx.save_for_backward(q)
                    ctx.cu_seqlens = cu_seqlens
                    return q[index]
                @staticmethod
                def backward(ctx, dout):
                    return dout, None
            """
        ),
        # Session 33 (recall33): `and`/`or` of host values, and a device comparison as the
        # last operand (returned as it is, not converted: no read here)
        Valid(
            """
            import torch
            class Beam(torch.nn.Module):
                def __init__(self, device):
                    super().__init__()
                    self.best = torch.zeros(4, device=device)
                def forward(self, scores, done, limit: float):
                    stop = all(done) or limit < 0
                    keep = all(done) and (scores.sum() <= self.best[0])
                    return stop, keep
            """
        ),
        # Session 32 (recall32: torchmetrics' STOI, PESQ, DNSMOS): a metric's functional helper
        # hands its own inputs to a host library: the copy is the hand-off the library needs,
        # read at once, with the library's score moved back (INVALID twin: a computed value).
        Valid(
            """
            import numpy as np
            import torch
            from pystoi import stoi as stoi_backend
            from torchmetrics import Metric
            def one_quality(preds: torch.Tensor, target: torch.Tensor, fs: int):
                score = stoi_backend(target.detach().cpu().numpy(), preds.cpu().numpy(), fs)
                return torch.tensor(score).to(preds.device)
            def batch_quality(preds: torch.Tensor, target: torch.Tensor, fs: int):
                preds_np = preds.reshape(-1, preds.shape[-1]).detach().cpu().numpy()
                target_np = target.reshape(-1, preds.shape[-1]).detach().cpu().numpy()
                score = np.empty(preds_np.shape[0])
                for b in range(preds_np.shape[0]):
                    score[b] = stoi_backend(target_np[b, :], preds_np[b, :], fs)
                return torch.from_numpy(score).to(preds.device)
            class SpeechQuality(Metric):
                def update(self, preds: torch.Tensor, target: torch.Tensor):
                    self.total += one_quality(preds, target, 16000).sum()
                    self.total += batch_quality(preds, target, 16000).sum()
            """
        ),
        # Session 40 (triage40): numpy's own reshaping of the array on the way (`.squeeze(0)`,
        # `.astype(...)`) keeps it the input handed to the library (torchcrepe's loudness).
        Valid(
            """
            import librosa
            import numpy as np
            import resampy
            import torch
            def a_weighted(audio, sample_rate):
                device = audio.device
                audio = audio.detach().cpu().numpy().squeeze(0)
                if sample_rate != 16000:
                    audio = resampy.resample(audio, sample_rate, 16000)
                db = librosa.amplitude_to_db(np.abs(librosa.stft(audio, n_fft=1024)))
                return torch.from_numpy(db.mean(axis=0)).float().to(device)[None]
            class Silence:
                def __call__(self, periodicity, audio, sample_rate):
                    return periodicity * (a_weighted(audio, sample_rate) > -60)
            """
        ),
        # Session 32 (recall32): a test that the tensor is on the CPU (`x.device ==
        # torch.device("cpu")`) guards host work; on a GPU the other arm runs.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x: torch.Tensor):
                    if x.device == torch.device("cpu"):
                        if not torch.all((x >= 0) * (x <= 1)):
                            x = x.sigmoid()
                    return x
            """
        ),
        # Session 40 (triage40): a value of any name compared with "cpu" chooses where the
        # work runs: YOLOX's label assignment, retried with mode="cpu" after an out-of-memory
        # error, moves its inputs to the host on purpose in that branch.
        Valid(
            """
            import torch
            from torch import nn
            class Head(nn.Module):
                def forward(self, preds, gts):
                    try:
                        return self.assign(preds, gts)
                    except RuntimeError:
                        return self.assign(preds, gts, "cpu")
                def assign(self, preds, gts, mode="gpu"):
                    preds = preds.cuda()
                    if mode == "cpu":
                        preds = preds.cpu().float()
                        gts = gts.cpu()
                    return preds * 2, gts
            """
        ),
        # Session 32 (recall32): the INVALID loss module's twin: an attribute that is a module
        # in one branch and a host scorer in the other says nothing of where its result is.
        Valid(
            """
            import torch
            from torch import nn
            class PairLoss(nn.Module):
                def forward(self, a, b):
                    return -torch.nn.functional.logsigmoid(a - b).mean()
            class HostScore:
                def __call__(self, a, b):
                    return (a - b).numpy().mean()
            class Trainer:
                def __init__(self, host):
                    if host:
                        self.loss_fn = HostScore()
                    else:
                        self.loss_fn = PairLoss()
                def fit(self, model, optimizer, batches):
                    for x, y in batches:
                        loss = self.loss_fn(model(x), model(y))
                        optimizer.step()
                        self.total += loss.item()
            """
        ),
        # Session 31 (recall31): `max()` of sizes and counts compares Python ints.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, lengths: list[int]):
                    n = max(x.size(0), len(lengths), 1)
                    return x[:n]
            """
        ),
        # Session 31 (mine31): the INVALID metric's twins: a metric whose `update()` sums per
        # group with `scatter_add_` (torchrec 1.7.0's fix) syncs nothing, and a logger of
        # metrics records values already read (`MetricLogger.update(**values)`), once per log.
        Valid(
            """
            import torch
            from torchmetrics import Metric
            class SegmentedNE(Metric):
                def update(self, labels: torch.Tensor, keys: torch.Tensor):
                    out = torch.zeros(self.num_groups, device=labels.device)
                    out.scatter_add_(0, keys.long(), labels)
                    self.sums += out
            class MetricLogger:
                def update(self, **values):
                    for name, value in values.items():
                        self.meters[name].append(float(torch.as_tensor(value).sum()))
            """
        ),
        # Session 30 (held out: ExecuTorch 1.5.1's attention-sink perplexity eval): a driver
        # named for what it evaluates (`eval_..._attention_sink`) is no attention call; its
        # result read once after the loop is no per-step sync (the INVALID twin below is an
        # attention function, run per layer and forward)
        Valid(
            """
            import torch
            def eval_llama_with_attention_sink(model, chunks):
                nlls = []
                for chunk in chunks:
                    nlls.append(model(chunk.to("cuda")).mean())
                ppl = torch.exp(torch.cat(nlls).mean())
                return ppl.item()
            """
        ),
        # Session 39 (triage39, TransformerLens' benchmarks): a driver named for the forward
        # it verifies (`benchmark_..._forward`) runs one forward per benchmark, not per step:
        # its NaN check is read once (`encoder_forward` itself, below, is a forward pass).
        Valid(
            """
            import torch
            def benchmark_encoder_forward(bridge, tokens):
                out = bridge(tokens.to("cuda"))
                if torch.isnan(out).any() or torch.isinf(out).any():
                    return "non-finite output"
                return "ok"
            """
        ),
        # Session 30 (recall30): look-alikes of the pair and attribute evidence. A scheduler
        # that moves its sigmas to the host on purpose (diffusers: "to avoid too much CPU/GPU
        # communication") tests an element without a sync; a helper annotated to return a
        # tensor whose return is numpy arithmetic (`np.arange(n) / rate`, diffusers' MIDI
        # processor) hands back host data.
        Valid(
            """
            import numpy as np
            import torch
            class Scheduler:
                def set_timesteps(self, sigmas: torch.Tensor, device):
                    self.sigmas = torch.cat([sigmas, sigmas[-1:]]).to(device)
                    self.sigmas = self.sigmas.to("cpu")
                def step(self, x: torch.Tensor, i: int):
                    sigma_next = self.sigmas[i + 1]
                    if sigma_next == 0:
                        return x
                    return x * sigma_next
            """
        ),
        Valid(
            """
            import numpy as np
            import torch
            def to_frames(samples, rate: int) -> tuple[torch.Tensor, torch.Tensor]:
                frames = torch.as_tensor(samples)
                times = np.arange(len(samples)) / rate
                return frames, times
            class Encoder:
                def forward(self, samples):
                    frames, times = to_frames(samples, 100)
                    if times[-1] > 3.0:
                        return frames[:300]
                    return frames
            """
        ),
        # Session 30 (recall30): an attribute also re-assigned what a project helper makes of
        # it (megatron's dispatcher: `self.splits = maybe_move_tensor_to_cpu(self.splits,
        # as_numpy=True)` at its host point, a helper annotated `-> torch.Tensor`) is no proven
        # tensor: its later `.tolist()` reads the host copy.
        Valid(
            """
            import torch
            def to_host(t: torch.Tensor, as_numpy: bool = False) -> torch.Tensor:
                return t.cpu().numpy() if as_numpy else t.cpu()
            class Dispatcher:
                def preprocess(self, counts: torch.Tensor):
                    self.splits = counts.sum(dim=1)
                def to_host_point(self):
                    self.splits = to_host(self.splits, as_numpy=True)
                def forward(self, x):
                    return x.split(self.splits.tolist())
            """
        ),
        # Session 30 (recall30): the look-alike of the slice sampler above: the helper hands
        # back host values (a list, an attribute of unknown kind) in that position, so the
        # test of an element is no tensor's.
        Valid(
            """
            import torch
            from torch import Tensor
            class Sampler:
                def step(self, nu: Tensor) -> Tensor:
                    theta, delta = self._active(nu)
                    if delta[0] == -1:
                        theta = torch.cat((theta[1:], theta[:1]))
                    return theta
                def _active(self, theta: Tensor):
                    if len(theta) < 2:
                        return theta, []
                    return theta, self.signs
            """
        ),
        # Session 30 (recall30): the look-alike of the strategy's attribute (HTD202's invalid
        # examples). OpenNMT-py 3.5.1 walks the host list of finished flags and gathers with an
        # index tensor made from it: no sync; and an attribute also assigned a list
        # (`self.finished = []`) or unpacked from a call is no proven tensor, one also
        # assigned an index tensor no mask.
        Valid(
            """
            import torch
            class GreedySearch:
                def __init__(self):
                    self.finished = []
                def advance(self, log_probs, finished_list):
                    topk_ids, self.topk_scores = self._pick(log_probs)
                    self.finished = topk_ids.eq(self.eos)
                    self.finished_list = finished_list
                    self.alive_seq = torch.cat([self.alive_seq, topk_ids], -1)
                def step(self):
                    keep = [b for b, fin in enumerate(self.finished_list) if not fin]
                    index = torch.tensor(keep, device=self.alive_seq.device)
                    self.alive_seq = self.alive_seq[index]
                    self.keep = self.keep if self.finished_list else index
                    self.scores = self.scores[self.keep.view(-1)]
                    return self.finished.nonzero(), self.topk_scores.nonzero()
            """
        ),
        # Session 28 (held out: eole 0.4.4's fix): the source length read once before the
        # loop of decoding steps, a Python int in the loop; a loop over a collection's
        # positions (`range(len(...))`) is no loop of steps by that alone.
        Valid(
            """
            import torch
            class GeneratorLM:
                def _predict_batch_with_strategy(self, batch, decode_strategy):
                    src_len = batch["srclen"].to("cuda")
                    prefill_length = max(src_len.tolist())
                    for step in range(decode_strategy.max_length):
                        position = step + prefill_length
                        log_probs = self.model.decoder(decode_strategy.current, position)
                        decode_strategy.advance(log_probs)
                def rescore(self, hyps):
                    scores = torch.zeros(len(hyps), device="cuda")
                    for i in range(len(hyps)):
                        scores[i] = self.model(hyps[i]).sum()
                        if hyps[i].numel() > 4:
                            break
                    return scores.tolist()
            # xinference's tiled upscaler: each tile's output copied to the host, which needs it
            def upscale(model, pixels, tile):
                result = torch.empty(pixels.shape)
                for y in range(0, pixels.shape[-2], tile):
                    patch = pixels[..., y : y + tile].to("cuda")
                    result[..., y : y + tile] = model(patch.to("cuda")).float().cpu()
                return result
            # torchrec's test-input generator: `ModelInput(...)` builds an input, no model runs
            class ModelInput:
                @staticmethod
                def generate(lengths, world_size):
                    lengths = lengths.to("cuda")
                    inputs = []
                    for r in range(world_size):
                        cumsum = lengths.view(world_size, -1).sum(dim=1).cumsum(dim=0).tolist()
                        inputs.append(ModelInput(cumsum[r]))
                    return inputs
            """
        ),
        # Session 26's twin: a module of the project whose `forward` returns a host tensor at
        # that position (a count built on the host), unpacked: its read is no device sync.
        Valid(
            """
            import torch
            class Encoder(torch.nn.Module):
                def forward(self, x):
                    return self.proj(x), torch.tensor([x.shape[0]])
            class Net(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.encoder = Encoder()
                def forward(self, x):
                    feats, n = self.encoder(x)
                    return feats, n.tolist()
            """
        ),
        # Session 26 (heldout26): the fixed step keeps the backpropagated loss on the device
        # (``.detach()``), and a name bound twice (a Python total, then a loss) proves nothing.
        Valid(
            """
            class Unit:
                def train_step(self, state, data):
                    loss_dict = self.compute_loss(self.model(data), data)
                    scalar_loss = sum(loss_dict.values())
                    scalar_loss.backward()
                    self.optimizer.step()
                    self.last_loss = scalar_loss.detach()
                def eval_step(self, state, data):
                    total = 0.0
                    total = self.criterion(self.model(data), data)
                    total.backward()
                    return total.item()
            """
        ),
        # Session 25 (unpack25): names unpacked from a helper's result get the fact of their
        # position: here numpy arrays, by the helper's `tuple[np.ndarray, np.ndarray]`
        # annotation and by the display of the other branch (python-doctr 1.1.0's LW-DETR
        # post-processor), so `.tolist()` of one is no device sync.
        Valid(
            """
            import numpy as np
            import torch
            class PostProcessor:
                def _decode(self, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
                    return decode_rotated(boxes)
                def __call__(self, logits: np.ndarray, boxes: np.ndarray):
                    results = []
                    for b in range(boxes.shape[0]):
                        kept = boxes[b][logits[b] > 0.5]
                        polys, _ = self._decode(kept) if len(kept) else (np.zeros(0), np.zeros(0))
                        results.append([polys[i].reshape(-1).tolist() for i in range(len(polys))])
                    return results
            """
        ),
        # Session 25 (variants25s): the rows of a tensor whose name says host (HTD201 leaves
        # the loop for that name) are host rows too: no single sync per row either.
        Valid(
            """
            import torch
            class VisionEncoder(torch.nn.Module):
                def forward(self, x: torch.Tensor, batch):
                    sizes = [int(torch.prod(g)) for g in batch.grid_thw_cpu]
                    for t, h, w in batch.grid_thw_cpu:
                        sizes.append(int(t * h * w))
                    return x.split(sizes)
            """
        ),
        # Session 24: `.diff()` of a value of unknown kind (pandas has one) proves no tensor,
        # so its `nonzero()` may be numpy's.
        Valid(
            """
            class Sampler:
                def step(self, frame):
                    changes = frame.diff()
                    return changes.nonzero()
            """
        ),
        # Session 22 (heldout22): a validation or test step copies its outputs to the host for
        # a host metric (outetts 0.4.4's WavTokenizer: PESQ per validation batch): the pass's
        # purpose, with no training step queued behind it (analysis/evaluation_steps.py).
        Valid(
            """
            import torch
            from lightning import LightningModule
            from pesq import pesq
            class Codec(LightningModule):
                def validation_step(self, batch, batch_idx):
                    audio, _ = batch
                    audio_hat = self(audio)
                    score = 0.0
                    for ref, deg in zip(audio.cpu().numpy(), audio_hat.cpu().numpy()):
                        score += pesq(16000, ref, deg, "wb")
                    self.log("pesq", score / len(audio))
            """
        ),
        # Session 22 (heldout22): a `decode()` or `sample()` that holds the loop of model steps
        # itself decodes or samples a whole request (outetts 0.4.4's chunked DAC decode copies
        # the audio to the host once, for loudness normalisation), and so does a diffusion
        # `...Sampler`'s forward looping over the denoiser it is given (StyleTTS 2's VSampler
        # reads its first sigma before the loop): only their loops run per step.
        Valid(
            """
            import math
            import numpy as np
            import torch
            def normalise(audio):
                return torch.from_numpy(np.clip(audio.detach().cpu().numpy(), -1, 1))
            class Codec:
                def decode(self, codes, chunk=2048):
                    out = []
                    for i in range(0, codes.shape[-1], chunk):
                        out.append(self.model.decode(codes[..., i:i + chunk].to(self.device)))
                    return normalise(torch.cat(out, dim=-1))
            class VSampler(Sampler):
                def forward(self, noise: torch.Tensor, fn, sigmas: torch.Tensor, num_steps: int):
                    x = sigmas[0] * noise
                    alpha = math.cos(sigmas[0].item())
                    for i in range(num_steps - 1):
                        x = fn(x, sigma=sigmas[i]) * alpha
                    return x
            """
        ),
        # Session 39 (mine39): the schedule sampler's look-alikes: a loop over a collection
        # whose items are the model's whole inputs (no schedule combined with a tensor), and
        # a schedule annotated as a list of floats (host numbers).
        Valid(
            """
            def evaluate(model, batches, lengths):
                for i in range(len(batches)):
                    out = model(batches[i])
                    if lengths[i] == 0:
                        continue
                    print(out)
            def sample(model, x, sigmas: list[float]):
                s_in = x.new_ones([x.shape[0]])
                for i in range(len(sigmas) - 1):
                    x = model(x, sigmas[i] * s_in)
                    if sigmas[i + 1] == 0:
                        break
                return x
            """
        ),
        # Session 23 (precision23): a `sample()` or `decode()` that calls a model's generation
        # entry (`model.generate_samples_from_batch(...)`) runs whole generations, each with
        # its own loop of steps: a training callback drawing preview samples every N
        # iterations (cosmos-predict2 1.0.9's EveryNDrawSample) copies each finished sample
        # to the host to draw it. No step, and its loop (over guidance scales) no step loop.
        Valid(
            """
            import torch
            class EveryNDrawSample(EveryN):
                def sample(self, trainer, model, data_batch, output_batch, loss, iteration):
                    to_show = []
                    for guidance in self.guidance:
                        sample = model.generate_samples_from_batch(data_batch, guidance=guidance)
                        to_show.append(sample.float().cpu())
                    to_show.append(data_batch["video"].float().cpu())
                    self.draw(to_show, iteration)
            """
        ),
        # A default that is a Python number, or set under another test: no tensor proven.
        Valid(
            """
            import torch
            class Scaled(torch.nn.Module):
                def forward(self, x, fallback: float):
                    scale = self.scale
                    if scale is None:
                        scale = fallback
                    if scale == 0:
                        return x
                    other = self.other
                    if self.flag is None:
                        other = x.sum()
                    if other == 0:
                        return x
                    return x / scale
            """
        ),
        # Kernels registered for the host, for tracing or for ONNX export only, and a closure
        # (not a method) handed to a call that runs it inside its set-up factory.
        Valid(
            """
            import torch
            def _cpu_impl(inputs: torch.Tensor, amax: torch.Tensor):
                return fake_quant_block(inputs, amax.item())
            def _fake_impl(inputs: torch.Tensor, amax: torch.Tensor):
                return torch.empty((int(amax.item()),))
            torch.library.impl("trt::block_quant", "cpu")(_cpu_impl)
            torch.library.register_fake("trt::block_quant")(_fake_impl)
            @torch.library.custom_op("tex::onnx_quantize", mutates_args=[])
            def onnx_quantize(tensor: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
                return tensor * scale.item()  # an ONNX export operator: traced, not a step
            def calibrate(model, data):
                def forward(batch):
                    return model(batch).abs().amax().item()
                return max(map(forward, data))
            """
        ),
        # Session 21: an ONNX Runtime session's outputs (`session.run(None, {...})`) are numpy
        # arrays on the host: their `.tolist()` is no sync
        Valid(
            """
            import torch
            class Extractor:
                def __call__(self, feat):
                    out = self.session.run(None, {"feat": feat.numpy()})[0].flatten().tolist()
                    return out
            """
        ),
        # Session 20 (ultralytics 8.4.190's Dice loss): counts by scatter_add_ into a
        # fixed-size tensor, no data-sized output
        Valid(
            """
            import torch
            class SegLoss(torch.nn.Module):
                def forward(self, preds, masks):
                    valid = masks.reshape(-1) != 255
                    target = torch.where(valid, masks.reshape(-1), 0).long()
                    counts = torch.zeros(self.nc, device=preds.device)
                    ones = torch.ones_like(target, dtype=counts.dtype)
                    return counts.scatter_add_(0, target, ones)
            """
        ),
        # Session 19: a finished batch's ids copied once for the tokenizer: text is made on the
        # host, so the ids must reach it, once per call (not per step)
        Valid(
            """
            import torch
            class Engine:
                def process_step(self, tokenizer, cur_id):
                    next_ids = self.model(self.inputs[cur_id]).argmax(-1)
                    self.tokens[cur_id].append(next_ids)
                    if len(self.tokens[cur_id]) >= self.max_tokens:
                        outputs = torch.cat(self.tokens[cur_id], dim=1)
                        outputs = outputs.cpu()
                        texts = tokenizer.batch_decode(outputs, skip_special_tokens=True)
                        self.results[cur_id] = texts
            """
        ),
        # Session 19: a parameter annotated as a tensor, but the only call passes a field the
        # class sets from its config (a Python int)
        Valid(
            """
            import torch
            def aux_loss(logits: torch.Tensor, num_experts: torch.Tensor = None):
                probs = logits.softmax(-1)
                return probs.reshape(-1, num_experts).mean(0)
            class MoE(torch.nn.Module):
                def __init__(self, config):
                    super().__init__()
                    self.num_experts = config.num_local_experts
                def forward(self, x):
                    logits = self.gate(x)
                    return x, aux_loss(logits, self.num_experts)
            """
        ),
        # the fallback of a handler that reports the failure it caught (a shape mismatch):
        # not the path every call takes (an unreported handler is: INVALID twin)
        Valid(
            """
            import torch
            class Chat(torch.nn.Module):
                def forward(self, input_ids, input_embeds, vit_embeds):
                    selected = (input_ids == self.img_context_token_id).nonzero()
                    try:
                        input_embeds.index_put_((selected,), vit_embeds)
                    except Exception as e:
                        print(f"warning: {e}")
                        n_token = min(selected.sum().item(), vit_embeds.size(0))
                        input_embeds[selected[:n_token]] = vit_embeds[:n_token]
                    return input_embeds
            """
        ),
        # Session 17: a backend's `forward` hands its own input to another runtime as numpy (an
        # exported model's session, a CoreML predictor, scikit-learn): the caller chose where
        # the tensor is, and its values must reach the host there. The arguments of a testing
        # assertion (`torch.testing.assert_close`) are a check, as an `assert` statement's.
        Valid(
            """
            import torch
            class ONNXBackend:
                def forward(self, im: torch.Tensor):
                    if self.nhwc:
                        im = im.permute(0, 2, 3, 1)
                    return self.session.run(self.output_names, {"images": im.cpu().numpy()})
            from abc import ABC
            class BaseBackend(ABC):
                pass
            class CoreMLBackend(BaseBackend):
                def forward(self, im: torch.Tensor):
                    return self.model.predict(im.detach().flatten(end_dim=-2).cpu().numpy())
            def run_attention_fwd(q, k, v):
                o = torch.empty_like(q)
                ref_o = torch.nn.functional.scaled_dot_product_attention(q, k, v)
                torch.testing.assert_close(o.cpu(), ref_o.cpu(), atol=1e-2, rtol=1e-4)
            """
        ),
        # Session 16's look-alikes: a factory's local `forward` that only the (run-once) factory
        # calls; a dict entry assigned a number (no tensor method writes it in place); a process
        # group's collective of a value with no tensor evidence; a name rebound (its tensor use
        # proves only one binding) and a host tensor used with `masked_select`; a tensor compared
        # with `None` (`mask != None` is Python's identity answer, a bool: no sync); the `else`
        # of a conditional expression testing `isinstance(entry, torch.Tensor)` reads a number;
        # a parameter replaced by `setattr(layer, "weight", new)` is model surgery, not a step.
        Valid(
            """
            import torch
            def build(model):
                def forward(hidden: torch.Tensor):
                    return hidden.sum().item()
                return forward(model.weight)
            class Counter(torch.nn.Module):
                def forward(self, q, stats):
                    n = stats["count"].item()
                    stats["count"] = n + 1
                    return q * n
            class Trainer:
                def train_one_step(self, batch):
                    counts = self.world_group.all_reduce(batch.counts, op=None)
                    batch.total += counts.item()
                    return batch
            class Dispatcher:
                def forward(self, hidden, counts_cpu):
                    ids = self.lookup(hidden)
                    ids = self.remap(ids)
                    ids.contiguous()
                    n = ids.item()
                    kept = counts_cpu.masked_select(counts_cpu > 0)
                    return kept.tolist(), n
            def get_attention_forward(cfg):
                def forward(self, hidden, attention_mask: torch.Tensor | None = None):
                    if attention_mask != None:
                        hidden = hidden * attention_mask
                    return hidden
                return forward
            class CachedAttention(torch.nn.Module):
                def forward(self, q, kv_cache, current_end):
                    if isinstance(kv_cache["end"], torch.Tensor):
                        kv_cache["end"].fill_(current_end)
                    end = (
                        kv_cache["end"].numel()
                        if isinstance(kv_cache["end"], torch.Tensor)
                        else int(kv_cache["end"])
                    )
                    return q * end
            class RescaledModel(torch.nn.Module):
                def forward(self, x):
                    self._rescale(self.layer)
                    return self.layer(x)
                def _rescale(self, target_layer):
                    w = self.dequantize(target_layer.weight.data)
                    w.div_(2)
                    new = self.quantize(w.to("cpu")).to(w.device)
                    setattr(target_layer, "weight", new)
            """
        ),
        # The twins of the stored replay closure and the sampler's step objects below: the
        # closure is stored for a set-up method only, and the step method takes another class
        # than the one the hot caller passes (so nothing says the call runs it).
        Valid(
            """
            from dataclasses import dataclass
            import torch
            class Runner:
                def __init__(self, device):
                    self.device = device
                    def _capture(x):
                        self.buf.copy_(x, non_blocking=True)
                        torch.cuda.synchronize(self.device)
                    self._capture_fn = _capture
                def setup(self, x):
                    self._capture_fn(x)
            @dataclass
            class State:
                probs: torch.Tensor | None = None
            class Options:
                pass
            class Step:
                def run(self, state: State):
                    temp = torch.argmax(state.probs, dim=-1)
                    state.sampled = state.probs[0, temp].item()
            class Sampler(torch.nn.Module):
                def __init__(self, steps):
                    super().__init__()
                    self.steps = steps
                def forward(self, logits):
                    options = Options()
                    for step in self.steps:
                        step.run(options)
                    return logits
            """
        ),
        # A vision module's helper called through an attribute of the model
        # (`self.visual.get_window_index(grid)`): every call passes a host grid, so the rows,
        # the window counts (a comparison, `F.pad`, views rebound earlier in the same loop
        # body) and their `.tolist()` are host work. A public method of an `nn.Module` that no
        # framework calls by its name takes what the project's calls pass.
        Valid(
            """
            import torch
            import torch.nn.functional as F
            from torch import nn
            class Vision(nn.Module):
                def get_window_index(self, grid_thw):
                    cu = [0]
                    for grid_t, grid_h, grid_w in grid_thw:
                        index = torch.arange(grid_t * grid_h * grid_w).reshape(grid_t, grid_h, -1)
                        padded = F.pad(index, (0, 1, 0, 1), "constant", -100)
                        padded = padded.permute(0, 2, 1).reshape(grid_t, -1)
                        lens = (padded != -100).sum(-1)
                        cu.extend((lens.cumsum(0) + cu[-1]).tolist())
                        padded = padded.reshape(-1)
                    return cu
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.visual = Vision()
                def prepare_inputs_for_generation(self, images):
                    grid_thw = torch.tensor([image.grid_thw for image in images])
                    return self.visual.get_window_index(grid_thw)
            """
        ),
        # A denoising loop's trajectory, collected on request, stacked after the last step and
        # handed to the caller on the batch (logging between): once per call, needed on the host.
        Valid(
            """
            import logging
            import torch
            logger = logging.getLogger(__name__)
            class DenoisingStage(torch.nn.Module):
                def forward(self, batch, timesteps):
                    latents = batch.latents
                    trajectory = []
                    for t in timesteps:
                        noise = self.transformer(latents, t)
                        latents = self.scheduler.step(noise, t, latents)[0]
                        if batch.return_trajectory_latents:
                            trajectory.append(latents)
                    logger.info("done %d steps", len(timesteps))
                    if trajectory:
                        batch.trajectory_latents = torch.stack(trajectory, dim=1).cpu()
                    batch.latents = latents
                    return batch
            """
        ),
        # A module offloaded in place (`vae.to("cpu")` as a statement: a tensor's `.to()` would
        # return a copy, so nothing but a module is moved that way), a debugging helper (by its
        # name, or returning at once unless a debugging variable is set at launch) and an
        # attention probe switched on by the environment, all called from a forward.
        Valid(
            """
            import os
            import torch
            def record_probe(out_dir, scores):
                torch.save({"mass": scores.sum().item()}, out_dir)
            def _dump_args(prefix, x):
                if os.getenv("MODEL_DEBUG_LOG", "0") != "1" or x is None:
                    return
                print(prefix, x.float().sum().item())
            def _debug_stats(x):
                return x.abs().max().item()
            class Stage(torch.nn.Module):
                def forward(self, x, offload: bool, probe_dir):
                    _dump_args("in", x)
                    _debug_stats(x)
                    if probe_dir is not None:
                        record_probe(probe_dir, x)
                    out = self.vae(x)
                    if offload:
                        self.vae.to("cpu")
                        self.encoder.cpu()
                    return out
            """
        ),
        # An offload a setting asks for: the name rebound to its host copy under a flag, and
        # the code after it works on the value wherever it is (BasicVSR++'s `cpu_cache`).
        Valid(
            """
            import torch
            class Restorer(torch.nn.Module):
                def forward(self, frames):
                    outputs = []
                    for i in range(frames.size(1)):
                        out = self.body(frames[:, i].cuda())
                        if self.cpu_cache:
                            out = out.cpu()
                            torch.cuda.empty_cache()
                        outputs.append(out)
                    return torch.stack(outputs, dim=1)
            """
        ),
        # A data loader's shards kept on the host on purpose (assigned back in place).
        Valid(
            """
            import torch
            class ShardingLoader:
                def __next__(self):
                    batch = next(self.it)
                    for k in batch.keys():
                        batch[k] = batch[k][:, self.start : self.end].cpu()
                    return batch
            """
        ),
        # Builtins over host data, two values, a key, or a tensor's shape: no element reads.
        Valid(
            """
            import torch
            class Attention(torch.nn.Module):
                def forward(self, q, seq_lens: list[int], lens_cpu):
                    n = max(seq_lens)
                    m = max(q.shape[1], n)
                    order = sorted(range(len(seq_lens)), key=seq_lens.__getitem__)
                    lens = lens_cpu.sum(dim=-1)
                    return q[:, : max(lens)], order, m, max(q.shape)
            """
        ),
        # Numbers added into a Python number, a host tensor, a name rebound to host data, or
        # passed through a call: no round trip through the device (the read itself is left to
        # the rest of the rule: the values here are of unknown placement).
        Valid(
            """
            import torch
            def forward_backward(forward_step, data, n, log):
                total = 0
                host_total = torch.zeros([], dtype=torch.int)
                dev_total = torch.zeros([], device="cuda")
                rebound = torch.zeros([], device="cuda")
                for i in range(n):
                    loss, num_tokens = forward_step(data)
                    total += num_tokens.item()
                    host_total += num_tokens.item()
                    dev_total += log(num_tokens.item())
                    dev_total += num_tokens
                    rebound += num_tokens.item()
                    loss.backward()
                rebound = 0.0
                return total, host_total, dev_total, rebound
            def forward_count(forward_step, data):
                count = torch.tensor(0)
                total = torch.zeros([], device="cuda")
                total += count.item()
                return total
            """
        ),
        # The same hook's decision made once per new input and looked up on later steps: the
        # read runs on a cache miss only.
        Valid(
            """
            import torch
            _MEMO = []
            def _plan(kwargs):
                image = kwargs.get("image_embeds")
                for held, plan in _MEMO:
                    if held is image:
                        return plan
                plan = bool(torch.all(image == 0).item())
                _MEMO.insert(0, (image, plan))
                return plan
            def _trim_hook(module, args, kwargs):
                return args, kwargs if not _plan(kwargs) else {}
            def install(dit):
                dit.register_forward_pre_hook(_trim_hook, with_kwargs=True)
            """
        ),
        # The same helpers read only on logging steps (after `if not should_log: return`, or
        # `if step % n != 0: continue`), a helper that keeps the tensor (`dist_sum_tensor`),
        # and the syncing helpers' own calls of each other.
        Valid(
            """
            import torch
            import torch.distributed._functional_collectives as funcol
            def _reduce(x, op, mesh):
                return funcol.all_reduce(x, reduceOp=op, group=mesh).item()
            def dist_sum(x, mesh=None):
                return _reduce(x, "sum", mesh)
            def dist_sum_tensor(x, mesh):
                return funcol.all_reduce(x, reduceOp="sum", group=mesh)
            class Trainer:
                def train_step(self, loss, mesh):
                    tokens = torch.zeros((), device=self.device)
                    total = dist_sum_tensor(tokens, mesh)
                    if not self.metrics.should_log(self.step):
                        return total
                    return dist_sum(loss.detach(), mesh), loss.item()
                def train_step_flag(self, loss, mesh, should_log):
                    if not should_log:
                        return None
                    return dist_sum(loss, mesh), loss.item()
                def train_steps(self, losses, mesh):
                    for step, loss in enumerate(losses):
                        if step % 10 != 0:
                            continue
                        print(dist_sum(loss, mesh), loss.item())
            """
        ),
        # Made on a cache miss only (once per configuration), a reference implementation that
        # a kernel is checked against, and a setup function named for an attention backend.
        Valid(
            """
            import torch
            _COMPILED = {}
            def flash_attention_forward(q, key):
                entry = _COMPILED.get(key)
                if entry is None:
                    cu = torch.zeros(3, dtype=torch.int32, device=q.device)
                    cu[1] = 8
                    entry = _COMPILED[key] = (cu, int(cu.sum().item()))
                return entry
            def paged_attention_reference(q, cu_seqlens: torch.Tensor):
                return [q[s:e] for s, e in zip(cu_seqlens[:-1].tolist(), cu_seqlens[1:].tolist())]
            def _sparse_attention_init(q, cu: torch.Tensor):
                return cu.tolist()
            """
        ),
        # Code that runs only off CUDA: the test of an `elif` after a CUDA test, the code after
        # `if x.is_cuda: return`, and a helper that only a CPU branch (or a forward named for
        # the CPU) calls.
        Valid(
            """
            import torch
            class Masks(torch.nn.Module):
                def forward(self, mask: torch.Tensor, q: torch.Tensor, lt: torch.Tensor):
                    if mask.device.type in {"cuda", "mps"}:
                        keep = torch.where((mask < 0).any(), mask >= 0, mask > 0)
                    elif torch.any(mask < 0):
                        keep = mask >= 0
                    else:
                        keep = mask > 0
                    if q.is_cuda:
                        return keep, False
                    return keep, bool(torch.all(lt > 0).item())
            class Linear(torch.nn.Module):
                def _decode(self, scale: torch.Tensor):
                    return scale.to(device="cpu").tolist()
                def forward_cpu(self, x: torch.Tensor):
                    return x.tolist()
                def forward(self, x: torch.Tensor, scale: torch.Tensor):
                    if x.device.type == "cpu" and scale.device.type == "cpu":
                        return self._decode(scale)
                    return x
            """
        ),
        # Session 38 (triage38): a CPU hop for a backend without complex kernels, DirectML
        # (torch-directml's `privateuseone` devices) or MPS, tested through names bound to the
        # device tests, in a branch and in a conditional expression's arm (audio-separator's
        # band-split RoFormer).
        Valid(
            """
            import torch
            def _is_dml_device(device) -> bool:
                return device.type == "privateuseone"
            class BSRoformer(torch.nn.Module):
                def forward(self, audio: torch.Tensor):
                    x_is_mps = audio.device.type == "mps"
                    x_is_dml = _is_dml_device(audio.device)
                    window = torch.hann_window(1024, device=audio.device)
                    if x_is_mps or x_is_dml:
                        spec = torch.stft(audio.cpu(), 1024, window=window.cpu())
                    else:
                        spec = torch.stft(audio, 1024, window=window)
                    return torch.istft(spec, 1024, window=window.cpu() if x_is_dml else window)
            """
        ),
        # Code past an early return unless this step logs (it runs on logging steps only),
        # and a forward named for a reference implementation (kept for tests; `forward` runs
        # the fast path), with the helper only it calls.
        Valid(
            """
            import torch
            class Trainer:
                def train_step(self, batch):
                    loss = self.forward_backward_step(batch)
                    self.optimizers.step()
                    if not self.metrics_processor.should_log(self.step):
                        return
                    self.metrics_processor.log(self.step, loss.detach().item())
            class NGramEmbedding(torch.nn.Module):
                def embed_ids(self, ids: torch.Tensor):
                    uids, inverse = torch.unique(ids.reshape(-1), return_inverse=True)
                    return self.fetch_rows(uids)[inverse]
                def forward_reference(self, x: torch.Tensor):
                    return self.embed_ids(self.ngram_ids(x))
                def forward(self, x: torch.Tensor):
                    return self.fast_embed(x)
            """
        ),
        # A helper a forward calls only under a debugging guard (a dump switched on by an
        # environment variable)
        Valid(
            """
            import os
            import torch
            class HFModel(torch.nn.Module):
                def forward(self, x):
                    output = self.model(x)
                    dump_dir = os.environ.get("LOGIT_DUMP")
                    if dump_dir is not None:
                        self._maybe_dump_logits(dump_dir, output)
                    return output
                def _maybe_dump_logits(self, dump_dir, logits):
                    self.recs.append(logits.detach().float().cpu())
                    torch.save(self.recs, dump_dir)
            """
        ),
        # A helper a forward calls only under a diagnostic switch that is off unless an
        # environment variable is set at launch (`EXL3_TP_ROUTING_CHECK`, default "0"), also
        # through a local name; and a helper asked for the host copy of a tensor by a literal
        # "cpu" device argument.
        Valid(
            """
            import os
            import torch
            def get_for_device(params: dict, key: str, device) -> torch.Tensor:
                return params[key].to(device)
            _routing_check = os.environ.get("MOE_ROUTING_CHECK", "0") != "0"
            def _routing_check_compare(local_w, w):
                return float((local_w - w).abs().max().item())
            class SparseMLP(torch.nn.Module):
                def forward(self, x, params):
                    local_w = self.router(x)
                    w = self.broadcast(local_w)
                    check = _routing_check and self.replicated
                    if check:
                        _routing_check_compare(local_w, w)
                        self.mismatches += int((local_w != w).sum().item())
                    slots = get_for_device(params, "recurrent_slots", "cpu").tolist()
                    rows = get_for_device(params, "rows", device=torch.device("cpu")).tolist()
                    return self.experts(x, w), slots, rows
            """
        ),
        # A value that a type test says is no tensor (the `else` of `isinstance(x,
        # torch.Tensor)`), and a `view` of an object that takes a name: no tensor's does.
        Valid(
            """
            import torch
            class Quantizer(torch.nn.Module):
                def forward(self, x: torch.Tensor, scale: torch.Tensor, layout, ws: torch.Tensor):
                    if isinstance(scale, torch.Tensor):
                        s = scale.float().to(x.device)
                    else:
                        s = torch.full((1,), float(scale), device=x.device)
                    layout.view(ws, "unit_table").zero_()
                    return x * s
            """
        ),
        # A plan memoised by key with a narrower hit test (`cached is not None and cached[1] is
        # plan`), and a private helper that only reference implementations use.
        Valid(
            """
            import torch
            _PLAN_ROWS = {}
            def _plan_rows(plan, device):
                key = (id(plan), device)
                cached = _PLAN_ROWS.get(key)
                if cached is not None and cached[1] is plan:
                    return cached[0]
                rows = plan.unit_table.cpu().tolist()
                _PLAN_ROWS[key] = (rows, plan)
                return rows
            def attention_forward(q, plan):
                return _plan_rows(plan, q.device)
            def _lengths(cu: torch.Tensor):
                return cu.tolist()
            def paged_attention_reference(q, cu: torch.Tensor):
                return _lengths(cu)
            """
        ),
        # A number written into several elements by basic indexing is a fill, through a mask a
        # masked_fill; values already on the device, fill_ and index_fill_ do not sync either
        # (measured); a host tensor's element writes are host work; a row index into a tensor
        # whose number of dimensions is unknown may select many elements.
        Valid(
            """
            from dataclasses import dataclass
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
        # A data transform's `__call__` and a tokenizer's `decode` run in the data pipeline,
        # on host data: no per-step entry points.
        Valid(
            """
            import torch
            class TileTransform:
                def __call__(self, image: torch.Tensor, sizes: torch.Tensor):
                    best = sizes[torch.argmin(sizes.prod(-1))]
                    return image, tuple(best.tolist())

            class WordTokenizer:
                def decode(self, ids: torch.Tensor) -> str:
                    return " ".join(str(i) for i in ids.tolist())
            """
        ),
        # Model surgery: a function that rewrites a module's parameters (`W.weight.data = ...`)
        # changes the model once, before it runs, whatever its name says.
        Valid(
            """
            import torch
            def rotate_attention_output(layer, Q, device):
                W = layer.o_proj
                W_ = W.weight.data.to(device=device, dtype=torch.float64)
                W.weight.data = torch.matmul(Q.T, W_).to(device="cpu")
            """
        ),
        # A closure of a pipeline's per-request `__call__` that converts the outputs after the
        # denoising loop runs once per request (one that the loop calls runs per step).
        Valid(
            """
            import torch
            from diffusers import DiffusionPipeline
            class ToyPipeline(DiffusionPipeline):
                def __call__(self, latents, steps):
                    for t in self.scheduler.timesteps:
                        latents = self.unet(latents, t)

                    def to_numpy(x):
                        x = x.float() if x.dtype == torch.bfloat16 else x
                        return x.cpu().numpy()

                    return to_numpy(latents)
            """
        ),
        # `x is not None` is a Python bool, whatever `x` is: `int()` of it reads no tensor.
        Valid(
            """
            import torch
            class Attention(torch.nn.Module):
                def forward(self, q, topk_length: torch.Tensor | None = None):
                    has_topk_length = topk_length is not None
                    return self.kernel(q, has_topk_length=int(has_topk_length))
            """
        ),
        # A method memoised by hand (it returns what it keeps on `self` first, and keeps what
        # it computes there): its work runs once per object, not per forward.
        Valid(
            """
            import torch
            class Linear(torch.nn.Module):
                def _order(self):
                    cached = getattr(self, "order", None)
                    if cached is not None:
                        return cached
                    g_idx = torch.zeros(8, dtype=torch.long, device="cuda")
                    count = int((g_idx == 0).sum().item())
                    self.order = torch.arange(count, device=g_idx.device)
                    return self.order

                def forward(self, x):
                    return x[:, self._order()]
            """
        ),
        # The same writes into the host half of a buffer pair, copied once per step.
        Valid(
            """
            from dataclasses import dataclass
            import torch
            @dataclass
            class Params:
                allowed_token_ids: list[int] | None = None
            class InputBatch:
                def __init__(self, n, vocab, device):
                    self.allowed_cpu = torch.zeros(n, vocab, dtype=torch.bool, pin_memory=True)
                    self.allowed = torch.zeros(n, vocab, dtype=torch.bool, device=device)
                def prepare_inputs(self, row: int, p: Params, banned: list[int]):
                    if p.allowed_token_ids:
                        self.allowed_cpu[row, p.allowed_token_ids] = True
                    self.allowed_cpu[:, banned] = False
                    self.allowed.copy_(self.allowed_cpu, non_blocking=True)
            """
        ),
        # Session 37 (recall37): boolean masks that do not sync: a host mask made from a Python
        # list (its indices are found on the host), `torch.where(mask, a, b)` (same shape), a
        # number written through a mask (a `masked_fill`), and a mask read once at load time.
        Valid(
            """
            import torch
            class Model(torch.nn.Module):
                def __init__(self, table: torch.Tensor):
                    super().__init__()
                    self.kept = table[table > 0]
                def forward(self, x: torch.Tensor, keep: list[bool]):
                    m = torch.tensor(keep, dtype=torch.bool)
                    y = torch.where(x > 0, x, 0)
                    x[x < 0] = 0
                    return x[m], y
            """
        ),
        # The `else` of a test that takes the CUDA path: another backend's (or the CPU's)
        # fallback through host memory.
        Valid(
            """
            import torch
            class BitmaskProcessor:
                def __call__(self, logits: torch.Tensor, bitmask: torch.Tensor):
                    if logits.device.type in {"cpu", "cuda"}:
                        apply_bitmask(logits, bitmask.to(logits.device))
                    else:
                        cpu_logits = logits.cpu().float()
                        apply_bitmask(cpu_logits, bitmask)
                        logits.copy_(cpu_logits)
                    return logits
            """
        ),
        # Run-once code: an initializer, and a cache filled once.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def __init__(self, n, device):
                    super().__init__()
                    t = torch.arange(n, device=device)
                    self.size = int(t.sum().item())
            """
        ),
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    if self.n is None:
                        self.n = int(x.cuda().sum())
                    return x
            """
        ),
        # A function no hot path reaches.
        Valid(
            """
            import torch
            def report(x):
                return x.cuda().sum().item()
            """
        ),
        # Host tensors: a list tensor, a pinned copy made without blocking, a .cpu() result.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, lengths):
                    lens = torch.tensor(lengths)
                    return torch.arange(lens.max().item())
            """
        ),
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, device):
                    host = x.to(device).to('cpu', non_blocking=True)
                    return host.tolist()
            """
        ),
        # Reads of the rows of a loop: HTD201's.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, grid, device):
                    g = grid.to(device)
                    return [r.prod().item() for r in g]
            """
        ),
        # An index that is a mask for one caller of its helper and positions for another, and
        # the element of a helper's returned tuple that holds positions: no boolean mask.
        Valid(
            """
            import torch
            def gather(x, keep):
                return x[keep]
            class M(torch.nn.Module):
                def split(self, x):
                    return x.argsort(), x.sum()
                def forward(self, x, ids):
                    order, total = self.split(x)
                    return gather(x, ids != 3), gather(x, ids), x[order]
            """
        ),
        # A method named for the log it writes (`train_step_logs`, called every N steps), the
        # forward of a wrapper traced for export, an evaluator's `__call__` (once per
        # evaluation over a data set): no step runs them.
        Valid(
            """
            import torch
            class Trainer:
                def train_step_logs(self, loss_avg: torch.Tensor):
                    self.entries.append(("lm_loss", loss_avg.item()))
            class PredictorExport(torch.nn.Module):
                def forward(self, hidden, alphas, device):
                    h = hidden.to(device)
                    fire = alphas.to(device) > 0.5
                    return h[fire]
            class DistillationEvaluator:
                def __call__(self, model, queries, docs, device):
                    scores = model.similarity(queries.to(device), docs.to(device))
                    return scores.cpu()
            """
        ),
        # The reads HTD201 reports in a row loop (row_findings, row_deferrals): a row taken by
        # the loop's `enumerate` counter from another tensor through a name bound to it, a row
        # of a `range(len(x))` counter, and a read in a loop nested in the row loop that HTD201
        # reports for the outer loop: each reported once, by HTD201.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, ids: torch.Tensor, types: torch.Tensor):
                    out = []
                    for b, row_ids in enumerate(ids):
                        row_types = types[b]
                        out.append(row_types.tolist())
                    for i in range(len(ids)):
                        row = ids[i]
                        out.append(row.tolist())
                    return out
            class Table(torch.nn.Module):
                def forward(self, token_types, n: int, k: int):
                    types = token_types.cuda()
                    labels = []
                    for b in range(n):
                        example = types[b]
                        for i in range(k):
                            labels.append(example[:, 0].tolist()[i])
                    return labels
            """
        ),
        # An explicit synchronize, an assert, a log line (INFO: one the run asked for; a debug
        # line's arguments are evaluated also when it is dropped, see `invalid`) and a debugging
        # branch.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, device):
                    y = x.to(device) * 2
                    torch.cuda.synchronize()
                    assert (y >= 0).all()
                    logger.info('norm %s', y.norm().item())
                    if self.debug:
                        print(y.sum().item())
                    return y
            """
        ),
        # Only while tracing; a write through a mask; repeat_interleave with output_size=.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, counts, total, device):
                    y = x.to(device)
                    if torch.jit.is_tracing():
                        n = int(y.sum())
                    y[y < 0] = 0
                    c = counts.to(device)
                    return y.repeat_interleave(c, dim=0, output_size=total)
            """
        ),
        # The fallback for a torch older than 2.0 (MMOCR's SmoothL1Loss): never taken now.
        Valid(
            """
            import torch
            from mmengine.utils import digit_version
            class SmoothL1(torch.nn.Module):
                def forward(self, pred, gt, beta):
                    diff = torch.abs(pred.cuda() - gt)
                    if digit_version(torch.__version__) > digit_version("1.6.0"):
                        loss = torch.nn.functional.smooth_l1_loss(pred, gt)
                    else:
                        small = diff < beta
                        loss = torch.zeros_like(diff)
                        loss[small] = 0.5 * diff[small] ** 2 / beta
                    return loss
            """
        ),
        # Session 42 (mine42): the twins of the `alpha=` read: the product on the device
        # (adv-optm 1.2.13's fix), a learning rate and a literal as Python numbers.
        Valid(
            """
            import torch
            class Opt(torch.optim.Optimizer):
                def step_parameter(self, p, grad, lr: float, beta: float):
                    w = p.view(-1).float()
                    g = grad.view(-1).float()
                    proj = torch.dot(w, g) / torch.dot(w, w).add_(1e-30)
                    g = g.sub(w * proj).sub(w, alpha=lr).add(w, alpha=-0.5)
                    return g.addcmul_(w, w, value=beta * (1 - beta))
            """
        ),
        # A pipeline's per-request set-up, outside its loop of steps.
        Valid(
            """
            import torch
            class ImagePipeline:
                def __call__(self, prompt, steps, device):
                    sigmas = torch.linspace(1, 0, steps, device=device)
                    self.scheduler.set_timesteps(sigmas.tolist())
                    for t in self.scheduler.timesteps:
                        prompt = self.unet(prompt, t)
                    return prompt
            """
        ),
        # Python sizes and an unknown tensor that is not surely a tensor.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, n: int, device):
                    y = x.to(device)
                    return y.repeat(n, 1).view(y.shape[0], -1), torch.arange(n), x.item()
            """
        ),
        # Host tensors by name and by provenance: a `_cpu` copy read again, a numpy array,
        # the `.tolist()` of a `.cpu()` result.
        Valid(
            """
            import numpy as np
            class Backend:
                @classmethod
                def update_step_context(cls, ctx, lengths_cpu):
                    n = lengths_cpu.max().item()
                    m = np.asarray(ctx.sizes).max().item()
                    seqlens = ctx.seqlens_cpu.tolist()
                    return n, m, seqlens
            """
        ),
        # A forward argument that the model's input preparer builds on the host.
        Valid(
            """
            import torch
            class VLModel(torch.nn.Module):
                def forward(self, embeds, grid_thw: torch.Tensor = None):
                    sizes = (grid_thw.prod(-1) // 4).tolist()
                    return torch.split(embeds, sizes)
                def prepare_inputs_for_generation(self, embeds, items):
                    grid_thw = None
                    if items:
                        grid_thw = torch.stack([i.grid for i in items]).cpu()
                    return dict(embeds=embeds, grid_thw=grid_thw)
            """
        ),
        # A loop over inputs that converts each to numpy before it copies it to the device
        # (the read waits for no device work).
        Valid(
            """
            import torch
            def encode(conditions, device):
                out = []
                for c in conditions:
                    arr = c.frames.detach().cpu().numpy()
                    out.append(torch.from_numpy(resize(arr)).to(device))
                return out
            """
        ),
        # A loop over adapters that copies each one's weights (state looked up by name, not
        # data the loop streams); state moved to the host in place; a periodic report.
        Valid(
            """
            import torch
            class Layer(torch.nn.Module):
                def merge(self, names, device):
                    for name in names:
                        w = (self.weight + self.delta[name]).to(device)
                        self.saved[name] = w.to('cpu')
                def forward(self, x, ids: torch.Tensor):
                    self.counter = self.counter.cpu()
                    if self.should_report():
                        self.log(int(torch.sum(ids == -1).item()))
                    return x
            """
        ),
        # `.cpu()` of a module (moved once, its result not used as a tensor), and names that
        # configure or count steps, not run one.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    self.encoder.cpu()
                    return x
                def set_step(self, steps):
                    self.last = steps.max().item()
                def num_steps(self, steps):
                    return int(steps.sum().item())
            """
        ),
        # A training loop that reads the loss only every N steps and once after the loop; a
        # loop that does no device work (one read per module, not per step).
        Valid(
            """
            import torch
            def train(model, loader, optimizer):
                total = torch.zeros(())
                for step, batch in enumerate(loader):
                    loss = torch.nn.functional.mse_loss(model(batch), batch)
                    loss.backward()
                    optimizer.step()
                    total += loss.detach()
                    if step % 100 == 0:
                        last = float(loss.item())
                return total.item()
            def scales(modules):
                return [float(m.weight.detach().abs().mean().item()) for m in modules]
            """
        ),
        # The greedy selection fixed: the picked indices stay on the device and are copied
        # once after the loop; a loop that carries a host tensor (a histogram of host data)
        # reads it without a sync.
        Valid(
            """
            import torch
            def greedy_coreset(features: torch.Tensor, k: int) -> list[int]:
                features = features.cuda()
                min_dist = torch.full((features.shape[0],), float("inf"), device=features.device)
                idx = torch.randint(features.shape[0], (1,), device=features.device).squeeze()
                picked = []
                for _ in range(k):
                    dist = torch.linalg.norm(features - features[idx], dim=1)
                    min_dist = torch.minimum(min_dist, dist)
                    idx = torch.argmax(min_dist)
                    picked.append(idx)
                return torch.stack(picked).tolist()
            def histogram(batches: list[list[int]]) -> list[int]:
                hist = torch.zeros(10, dtype=torch.long)
                seen = []
                for batch in batches:
                    hist = hist + torch.bincount(torch.tensor(batch), minlength=10)
                    seen.append(int(hist.sum().item()))
                return seen
            """
        ),
        # A submodule named like a tensor method (`self.repeat = nn.Sequential(...)`).
        Valid(
            """
            import torch
            class Net(torch.nn.Module):
                def forward(self, x):
                    x = self.stem(x)
                    x = self.repeat(x)
                    return self.expand(x)
            """
        ),
        # Host tensors computed with torch functions (`torch.clamp` of a host tensor stays on
        # the host), read in a helper called from `forward`.
        Valid(
            """
            import torch
            def rand_box(size, lam):
                w = torch.tensor(size[1], dtype=torch.float32)
                cut = (w * lam).int()
                cx = torch.randint(0, size[1], (1,))
                x1 = torch.clamp(cx - cut // 2, 0, size[1])
                return x1.item()
            class Mixer(torch.nn.Module):
                def forward(self, x, lam):
                    start = rand_box(x.size(), lam)
                    return x[:, start:]
            """
        ),
        # An inner model's `forward` argument that the outer model passes on from its input
        # preparer, which builds it on the host.
        Valid(
            """
            import torch
            class Inner(torch.nn.Module):
                def forward(self, embeds, grid_thw: torch.Tensor = None):
                    return torch.split(embeds, (grid_thw.prod(-1) // 4).tolist())
            class Outer(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.model = Inner()
                def forward(self, embeds, grid_thw: torch.Tensor = None):
                    return self.model(embeds, grid_thw=grid_thw)
                def prepare_inputs_for_generation(self, embeds, items):
                    grid_thw = torch.stack([i.grid for i in items]).cpu()
                    return dict(embeds=embeds, grid_thw=grid_thw)
            """
        ),
        # Session 31 (mine31: torchrec 1.5.1's NDCG): numbers written through masks by an
        # unpacking assignment are `masked_fill`s too, element by element (INVALID twin:
        # tensors written so).
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, ranks: torch.Tensor, limit: int):
                    a, b = self.discounts(ranks)
                    (a[ranks <= 0], b[ranks <= 0]) = (0.0, 0.0)
                    a[ranks > limit], [b[ranks > limit]] = 0.0, [0.0]
                    return a, b
            """
        ),
        # Writes of one number through a mask are a `masked_fill` (no sync); a
        # `masked_scatter_` of many values does not sync either.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, ids: torch.Tensor, embeds: torch.Tensor, mm: torch.Tensor):
                    x = self.embed(ids)
                    fill = 0.5
                    x[ids == 0] = 0
                    x[ids < 0] = float('-inf')
                    x[ids > 9] = fill
                    x.masked_scatter_((ids == 7)[..., None], mm)
                    return x
            """
        ),
        # Python numbers from tensor metadata (`numel()`), a copy in the branch for host
        # tensors, and a dump of a step's values for debugging.
        Valid(
            """
            import torch
            def partition_start(item, rank, size):
                n = item.numel()
                return int(n / size * rank)
            class Experts(torch.nn.Module):
                def forward(self, tokens: torch.Tensor, counts: torch.Tensor):
                    start = partition_start(tokens, 0, 2)
                    use_cpu = tokens.device.type == 'cpu'
                    host_counts = counts.cpu() if use_cpu else counts
                    return tokens[start:], host_counts
                def dump_step_stats(self, x: torch.Tensor):
                    self.last_max = x.max().item()
            """
        ),
        # A meshgrid of host ranges is on the host.
        Valid(
            """
            import torch
            class Rope(torch.nn.Module):
                def forward(self, sizes):
                    axes = [torch.arange(s, dtype=torch.float32) for s in sizes]
                    grid = torch.stack(torch.meshgrid(*axes, indexing='ij'))
                    return torch.arange(8) + grid.view(-1).max().item()
            """
        ),
        # A helper called once every N steps (an eviction interval), not every step.
        Valid(
            """
            import torch
            class Table(torch.nn.Module):
                def forward(self, ids, device):
                    self.history = ids.to(device)
                    if self.it - self.last_eviction == self.eviction_interval:
                        self._coalesce()
                    return ids
                def _coalesce(self):
                    return torch.unique(self.history).tolist()
            """
        ),
        # Explicit waits that are right: before the host reads a copy to the host, in timing
        # code, for one event, in warm-up, before a staging buffer is rewritten, and waits with
        # no copy queued before them in their block.
        Valid(
            """
            import time
            import torch
            class Runner:
                def execute_model(self, batch, device):
                    ids = batch.ids.to(device, non_blocking=True)
                    host = self.model(ids).to('cpu', non_blocking=True)
                    torch.cuda.current_stream().synchronize()
                    return host.tolist()
                def step(self, batch, device):
                    start = time.perf_counter()
                    batch.ids.to(device, non_blocking=True)
                    torch.cuda.synchronize()
                    return time.perf_counter() - start
                def forward(self, x, device):
                    y = x.to(device, non_blocking=True)
                    self.copy_done.synchronize()
                    return y
                def warmup(self, x, device):
                    y = x.to(device, non_blocking=True)
                    torch.cuda.synchronize()
                    return y
                def prepare_inputs(self, ids):
                    self.gpu_ids.copy_(self.pinned_ids, non_blocking=True)
                    torch.cuda.synchronize()
                    self.pinned_ids.fill_(0)
                def sample(self, logits):
                    torch.cuda.synchronize()
                    return logits.argmax(-1)
            """
        ),
        # The same bound kept as a Python int (annotated so) is no tensor.
        Valid(
            """
            from typing import Optional
            import torch
            class GPT(torch.nn.Module):
                def forward(self, x: torch.Tensor, input_pos_maxp1: Optional[int] = None):
                    mask = self.mask_cache.to(x.device)
                    if input_pos_maxp1 is not None and input_pos_maxp1 > self.max_len:
                        raise ValueError(input_pos_maxp1)
                    return mask[..., :input_pos_maxp1]
            """
        ),
        # A parameter annotated as a tensor that its callers pass a shape for: an int.
        Valid(
            """
            import torch
            class Matcher(torch.nn.Module):
                def forward(self, keypoints: torch.Tensor):
                    batch, _, num, _ = keypoints.shape
                    return self._prune(keypoints, num)
                def _prune(self, keypoints: torch.Tensor, num_keypoints: torch.Tensor):
                    return torch.full((2, num_keypoints), -1, device=keypoints.device)
            """
        ),
        # A pipeline block named `...Step` prepares its latents once per request.
        Valid(
            """
            class FluxPrepareLatentsStep:
                def prepare_latents(self, latents, lengths):
                    return latents[:, : lengths.max().item()]
            """
        ),
        # Values computed from tensors whose names say host: arithmetic of host tensors stays
        # on the host; a data-sized call of a host tensor reads no device.
        Valid(
            """
            import torch
            class FlashMetadataBuilder:
                def build(self, common):
                    query_lens = common.query_start_loc_cpu[1:] - common.query_start_loc_cpu[:-1]
                    num_decodes = int((query_lens == 1).sum())
                    longest = common.seq_lens_cpu.max()
                    ids_cpu = common.ids_cpu
                    decode_rows = torch.nonzero(ids_cpu == 1)
                    return num_decodes, torch.arange(longest), decode_rows
            """
        ),
        # A loop that saves a checkpoint copies each value to the host for the file, once per
        # save; a top-level function named for attention that returns Python lists prepares
        # prompts on the host (no kernel).
        Valid(
            """
            import torch
            def save_lora_checkpoint(fabric, model, path):
                out = {}
                for name, param in model.state_dict().items():
                    if param.is_cpu:
                        param = param.to(fabric.device)
                    out[name] = param.cpu()
                torch.save(out, path)
            def _apply_attention_mask(batch: list[list[int]], mask) -> list[list[int]]:
                rows = [m.cpu().tolist() for m in mask]
                return [[t for t, k in zip(ids, row) if k] for ids, row in zip(batch, rows)]
            """
        ),
        # `float(not flag)` converts a Python bool (`not` always returns one): no tensor is
        # read, whatever the product it scales is.
        Valid(
            """
            import torch
            class CrossAttentionBlock(torch.nn.Module):
                def __init__(self, dim: int, no_ffn: bool = False):
                    super().__init__()
                    self.gate_ffwd = torch.nn.Parameter(torch.zeros(1))
                    self.ffn = torch.nn.Linear(dim, dim)
                    self.no_ffn = no_ffn
                def forward(self, x: torch.Tensor) -> torch.Tensor:
                    h = x + self.gate_ffwd.tanh() * self.ffn(x)
                    h = h + self.gate_ffwd.tanh() * self.ffn(h) * float(not self.no_ffn)
                    return h
            """
        ),
        # A loop that plots a model's predictions frame by frame: the host copies are what the
        # plot needs (its name says it shows values; nothing runs it per step).
        Valid(
            """
            import torch
            def visualize_reward_predictions(model, frames, device, plot):
                for i, frame in enumerate(frames):
                    reward = model(frame["features"].to(device))
                    plot(i, reward.cpu().numpy())
            """
        ),
        # numpy's `axis=` says nothing of a tensor; a mask over host data stays silent.
        Valid(
            """
            import numpy as np
            import torch
            class Sampler(torch.nn.Module):
                def forward(self, logits, scores: np.ndarray, k: int):
                    best = scores.argmax(axis=-1)
                    return logits.softmax(-1), best[best < k]
            """
        ),
        # A branch that ends by raising or warning runs when a check failed, not every step
        # (the reads there build the message); so does a branch for NaN or infinite values.
        Valid(
            """
            import logging
            import math
            import torch
            logger = logging.getLogger(__name__)
            class RewardLoss(torch.nn.Module):
                def forward(self, rewards, teacher, n_expected: int):
                    if rewards.shape[0] != n_expected:
                        missing = int(torch.isnan(teacher).sum().item())
                        raise ValueError(f"{missing} teacher logprobs are missing")
                    if len(teacher) != n_expected:
                        row = torch.isnan(rewards).all(dim=1).nonzero()[0][0]
                        logger.warning(f"no reward for row {row}")
                    if not math.isfinite(self.last_total):
                        self.bad_rows = int(torch.isnan(rewards).sum().item())
                    return rewards.mean()
            """
        ),
        # Right after a whole generation (``generate`` reads the host every step to stop), a
        # few cheap statements then the one copy of its output to the host: nothing is queued.
        Valid(
            """
            import torch
            class Trainer:
                def _generate(self, model, inputs, eos_ids, device):
                    with torch.no_grad():
                        out = model.generate(**inputs)
                    completion = out[:, inputs["input_ids"].size(1):]
                    is_eos = torch.isin(completion, torch.tensor(eos_ids, device=device))
                    first = is_eos.int().argmax(1)[:, None]
                    mask = (torch.arange(is_eos.size(1), device=device) <= first).int()
                    return [c[m].tolist() for c, m in zip(completion.cpu(), mask.bool().cpu())]
                def training_step(self, model, inputs):
                    return self._generate(model, inputs, [2], "cuda")
            """
        ),
        # Not loops of steps: a method's loop over parameters that runs no device work per
        # iteration, a trainer that reads the loss every N steps, a set-up method, and a
        # compiler pass over a `torch.fx` graph (once per compilation, whatever its name).
        Valid(
            """
            import torch
            import torch.nn.functional as F
            from torch.fx import GraphModule
            class Trainer:
                def norms(self):
                    return [p.detach().norm().item() for p in self.model.parameters()]
                def fit(self, loader):
                    for step, (x, y) in enumerate(loader):
                        loss = F.mse_loss(self.model(x), y)
                        loss.backward()
                        self.optimizer.step()
                        if step % 100 == 0:
                            self.losses.append(loss.item())
                def setup(self, loader, device):
                    for x, _ in loader:
                        x = x.to(device)
                        self.scale = max(self.scale, x.abs().max().item())
            def plan_offload_fwd(gm: GraphModule, budget: float) -> float:
                budgets = torch.tensor([budget], device=torch.device("cuda"))
                torch.distributed.all_reduce(budgets)
                return budgets[0].item()
            """
        ),
        # An in-place arithmetic update (`z += 1`) keeps a tensor where it was: here on the host
        # (xformers' test helper, session 16; the update used to make `z`'s place unknown).
        Valid(
            """
            import random
            import torch
            def create_attn_bias(r: random.Random, n: int, mx: int):
                y = torch.zeros(n, mx, dtype=torch.int32)
                y.flatten()[r.sample(range(n * mx), n)] = 1
                z = y.sum(1)
                z += 1
                return z.tolist()
            """
        ),
        # Session 18 (held out, axolotl and pyannote): a test Python evaluates only off CUDA
        # (`not flat.is_cuda and ...`), and what follows `if ... or batch_idx > 0: return`
        # (the first validation batch only, a plot every few epochs)
        Valid(
            """
            import torch
            from lightning import LightningModule
            class Router(torch.nn.Module):
                def forward(self, x: torch.Tensor, top_k_index: torch.Tensor):
                    flat = top_k_index.reshape(-1)
                    if not flat.is_cuda and int(flat.max()) >= self.num_experts:
                        raise ValueError("bad expert id")
                    return self.experts(x, flat)
            class Task(LightningModule):
                def validation_step(self, batch, batch_idx):
                    X, y = batch
                    y_pred = self.model(X)
                    self.log("loss", self.loss(y_pred, y))
                    if self.current_epoch == 0 or batch_idx > 0:
                        return
                    self.plot(X.cpu().numpy(), y.float().cpu().numpy())
            """
        ),
        # an environment's step handing the policy's action to a simulator (TorchRL's Procgen
        # and LIBERO wrappers): the simulator needs it on the host now
        Valid(
            """
            import torch
            class ProcgenWrapper:
                def _step(self, tensordict):
                    action = tensordict.get("action")
                    action_np = action.cpu().numpy().flatten()
                    obs, reward, done, info = self._env.step(action_np)
                    return torch.from_numpy(obs["rgb"]).to(self.device)
            """
        ),
        # Session 18's look-alikes (recall audit): rows of a mask built on the host
        # (`masks.cpu()`), a list of masks (not a tensor), a mask written through (a
        # `masked_fill`), and a patched forward assigned to a name that is no `forward`.
        Valid(
            """
            import torch
            class Reorder(torch.nn.Module):
                def forward(self, lengths: list[int]):
                    masks = torch.arange(8)[None, :] < torch.tensor(lengths)[:, None]
                    out = []
                    for h, m in zip(torch.randn(len(lengths), 8), masks):
                        out.append(h[m])
                    return out
            class Gather(torch.nn.Module):
                def forward(self, hidden, masks):
                    masks = [m for m in masks]
                    return [h[masks[i]] for i, h in enumerate(hidden)]
            class Fill(torch.nn.Module):
                def forward(self, x, mask):
                    mask = mask.bool()
                    for row, m in zip(x, mask):
                        row[m] = 0.0
                    return x
            def _apply():
                Model.extra_repr = __patch__Model_forward__
            def __patch__Model_forward__(self, hidden, masks):
                keep = masks.bool()
                return hidden[keep]
            """
        ),
        # A processor's batch (`return_tensors="pt"`) holds host tensors: a mask row of it
        # indexes on the host (trl's GOLD trainer re-tokenizing prompts for its teacher).
        Valid(
            """
            import torch
            class Gold:
                def compute_loss(self, model, inputs, texts):
                    processed = self.processor(text=texts, padding=True, return_tensors="pt")
                    ids = []
                    for row in range(len(texts)):
                        prompt_mask = processed["attention_mask"][row].bool()
                        ids.append(processed["input_ids"][row][prompt_mask].tolist())
                    return model(ids)
            """
        ),
        # A function named for the metrics it computes hands its values to a logger: a mask of
        # unknown place indexing there is left alone (verl's `compute_data_metrics`, on the
        # single controller's host batch).
        Valid(
            """
            import torch
            class Trainer:
                def step(self, batch):
                    self.logger.log(compute_data_metrics(batch))
            def compute_data_metrics(batch):
                lengths = batch["response_length"]
                keep = ~((lengths == 0).bool())
                return {"score": batch["scores"][keep].mean()}
            """
        ),
        # `.values` of a dict, not of a reduction: no tensor.
        Valid(
            """
            import torch
            class Pos(torch.nn.Module):
                def forward(self, table, ids):
                    return list(table.values())[0] + ids
            """
        ),
        # lerobot 0.4.4's fix: the step time in host floats, a tensor made from it per step;
        # a `while` loop counting host numbers.
        Valid(
            """
            import torch
            class FlowMatching(torch.nn.Module):
                def sample_actions(self, state, noise, num_steps):
                    device = state.device
                    dt = -1.0 / num_steps
                    x_t = noise
                    for step in range(num_steps):
                        time = 1.0 + step * dt
                        t = torch.full((x_t.shape[0],), time, device=device)
                        x_t = x_t + dt * self.denoise_step(x_t, t)
                    remaining = num_steps
                    while remaining > 0 and x_t.shape[0] > 1:
                        x_t = self.model(x_t)
                        remaining -= 1
                    return x_t
            """
        ),
        # A data collator builds batches on the host, in the data loader (diffusers' OmniGen
        # collator compares host mask sums).
        Valid(
            """
            import torch
            class OmniGenCollator:
                def __call__(self, features):
                    return [self.pad(mask) for mask in features["attention_mask"]]
                def pad(self, mask):
                    pad_l = mask.size(-1) - torch.sum(mask)
                    if pad_l > 0:
                        mask = torch.cat([torch.zeros(pad_l), mask])
                    return mask
            """
        ),
        # Session 26 (LLaMA-Factory's `MultiModalDataCollatorForSeq2Seq`): a collator named for
        # its task (Hugging Face's `DataCollatorForSeq2Seq` family) is a collator too.
        Valid(
            """
            import torch
            class MultiModalDataCollatorForSeq2Seq:
                def __call__(self, features):
                    return self.positions(features)
                def positions(self, features):
                    unpadded_length = int(features["attention_mask"][0].bool().sum().item())
                    return torch.arange(unpadded_length)
            """
        ),
        # Session 20 (recall20c): a device-wide wait in a function the loop of steps calls is
        # left alone when its name says warm-up, and a stream's wait with nothing queued before
        # it (transformers 5.4's io class waits on its compute stream before reading outputs).
        Valid(
            """
            import torch
            class Manager:
                def run_loop(self, processor):
                    while processor.has_pending_requests():
                        self._warmup_or_step(processor)
                        self._retrieve(processor)
                def _warmup_or_step(self, processor):
                    torch.cuda.synchronize()
                    self._generation_step(processor)
                def _retrieve(self, processor):
                    self.compute_stream.synchronize()
                    self._generation_step(processor)
                def _generation_step(self, processor):
                    processor.out.copy_(self.model(processor.ids).logits.argmax(-1))
            """
        ),
        # Session 38 (mine38): an assignment expression of host data in a test reads the host.
        Valid(
            """
            import numpy as np
            import torch
            class Block(torch.nn.Module):
                def forward(self, x, lengths: list[int]):
                    if (short := np.asarray(lengths) < 4).any():
                        raise ValueError(f"too short: {short}")
                    return x
            """
        ),
        # Session 40 (mine40): the same count of a numpy array's matches is a host number.
        Valid(
            """
            import numpy as np
            import torch
            def fused_loss_forward(logits, target, ignore_index=-100):
                total = (np.asarray(target) != ignore_index).sum()
                for start in range(0, logits.shape[0], 1024):
                    chunk = logits[start : start + 1024].float()
                    alpha = chunk.shape[0] / total if total > 0 else 0.0
                    logits[start : start + 1024] = chunk * alpha
                return logits
            """
        ),
        # Session 41 (misses41): the same count compared inline, or tested bare, of a numpy
        # array's matches: host numbers, as the bound form.
        Valid(
            """
            import numpy as np
            import torch
            def fused_loss_forward(logits, target, ignore_index=-100):
                ids = np.asarray(target)
                if (ids != ignore_index).sum() > 0:
                    logits = logits * 2
                kept = (ids != ignore_index).sum()
                if kept:
                    logits = logits + 1
                return logits
            """
        ),
        # Session 38 (mine38): a `while` loop that runs no model (a reader filling a queue)
        # makes nothing it calls hot (one that does: tests/test_recall_s38_mine.py).
        Valid(
            """
            import torch
            def normalise(frame):
                return frame.float() / 255.0 if torch.max(frame) > 1 else frame
            def load_frames(reader, queue):
                while True:
                    frame = reader.read()
                    if frame is None:
                        break
                    queue.put(normalise(frame))
            """
        ),
        # Session 21 (exllamav3 1.4.9's MLA attention): a lookup in a mapping named as a cache
        # stays a cache miss, and a `.tolist()` under a host-device test reads host memory
        Valid(
            """
            import torch
            class MLAttention(torch.nn.Module):
                def forward(self, x, params, seq_cache):
                    lens = seq_cache.get("host_lens")
                    if lens is None:
                        lens = seq_cache["host_lens"] = params["cache_seqlens"].cpu().tolist()
                    src = params.get("cache_seqlens")
                    if src.device.type == "cpu":
                        lens = src.tolist()
                    return self.attend(x, lens)
            """
        ),
        # Session 22 (deepspeed 0.13.5-0.14.5, the fixes of its per-step norm reads): the
        # norms stay tensors (stacked, summed, copied into a device buffer); the loss is
        # accumulated as a tensor; items of a list of unknown kind read with `.item()` alone
        # may be Python numbers
        Valid(
            """
            import torch
            class ZeroOptimizer:
                def step(self):
                    norms = []
                    for g in self.grads:
                        norms.append(g.data.double().norm(2))
                    total = torch.stack(norms).square().sum()
                    for i, t in enumerate(self.grads):
                        self.buf[i].copy_(t.data.float().norm(2) ** 2)
                    counts = [c.item() for c in self.counts]
                    return total, counts
            class Engine:
                def backward(self, loss):
                    mean_loss = loss.mean().detach()
                    self.losses = mean_loss if self.losses is None else self.losses + mean_loss
                    loss.backward()
            """
        ),
        # Session 21 (exllamav3 1.4.9's MLA lengths): the device read is the fallback for a
        # caller that supplies no host copy; the engine supplies one
        Valid(
            """
            import torch
            def host_lens(params, cache_seqlens):
                src = params.get("cache_seqlens_cpu")
                if isinstance(src, torch.Tensor) and src.device.type == "cpu":
                    return src.tolist()
                else:
                    return cache_seqlens.cpu().tolist()
            class MLAttention(torch.nn.Module):
                def forward(self, x, params):
                    return self.attend(x, host_lens(params, params["cache_seqlens"]))
            """
        ),
        # Session 23: a memo whose key names the object its hit test checks (`id(plan)`) keeps
        # one entry per object (the look-alike of the last-input cache among the INVALID ones);
        # the identity test only guards a reused id, and the read runs once per plan.
        Valid(
            """
            import torch
            _ROWS = {}
            def plan_rows(plan, device):
                key = (id(plan), device)
                entry = _ROWS.get(key)
                if entry is not None and entry["plan"] is plan:
                    return entry["rows"]
                rows = plan.table.to(device).max().item()
                _ROWS[key] = {"plan": plan, "rows": rows}
                return rows
            def attention_forward(self, q, plan):
                return plan_rows(plan, q.device)
            """
        ),
        # Session 23: the items a tuple annotation names as host data (a numpy array, Python
        # ints) are not tensors; an unpacking that does not match the annotation says nothing.
        Valid(
            """
            from typing import Tuple
            import numpy as np
            import torch
            def host_lengths(info: Tuple[np.ndarray, torch.Tensor]):
                lengths, _ = info
                return lengths.tolist()
            def mismatched(info: Tuple[torch.Tensor, torch.Tensor]):
                a, b, c = info
                return a.tolist()
            def forward(self, x, info):
                return host_lengths(info), mismatched(info)
            """
        ),
        # Session 24: a string looked up in a batch is a test of a dict's keys, whatever the
        # values are (uni2ts' Lightning steps over ``batch: dict[str, torch.Tensor]``).
        Valid(
            """
            import torch
            import lightning as L
            class Forecaster(L.LightningModule):
                def training_step(self, batch: dict[str, torch.Tensor], batch_idx: int):
                    loss = self.model(batch["target"])
                    size = batch["sample_id"].max() if "sample_id" in batch else None
                    if f"{self.prefix}_mask" not in batch:
                        loss = loss * 2
                    self.log("train/loss", loss, batch_size=size)
                    return loss
            """
        ),
        # Session 40 (triage40): a plain item of a moved batch may be any of its Python
        # containers (kraken's baselines: a dict of polylines per class): a membership test of
        # it is Python's, and `torch.tensor(bl)` of what a loop takes out of it is Python data.
        Valid(
            """
            import torch
            import lightning as L
            def resample(points):
                total = torch.norm(points[1:] - points[:-1], dim=-1).sum()
                if total < 1e-6:
                    return points[:1]
                return points
            class Segmenter(L.LightningModule):
                def validation_step(self, batch, batch_idx):
                    gt = batch["baselines"][0]
                    lines = []
                    for cls_idx in self.classes:
                        if cls_idx in gt:
                            for bl in gt[cls_idx]:
                                lines.append(resample(torch.tensor(bl, dtype=torch.float32)))
                    return lines
            """
        ),
        # Session 24: an epoch loop's own body, around its loop over batches, runs once per
        # epoch (TabPFN's fine-tuning: the epoch's loss summed across ranks and read once).
        Valid(
            """
            import torch
            import torch.distributed as dist
            class Finetuner:
                def fit(self, model, optimizer, scaler, loader):
                    for epoch in range(self.epochs):
                        epoch_loss_sum = 0.0
                        for batch in loader:
                            optimizer.zero_grad()
                            loss = model(batch)
                            scaler.scale(loss).backward()
                            scaler.step(optimizer)
                        loss_tensor = torch.tensor([epoch_loss_sum], device=self.device)
                        dist.all_reduce(loss_tensor)
                        epoch_loss_sum = float(loss_tensor[0].item())
            """
        ),
        # Session 38 (placement38, llama-cookbook's safety checker): a `__call__` that loads
        # its model on every call runs once per request at most, and the model stays on the
        # host (analysis/weight_loads.py)
        Valid(
            """
            import torch
            from transformers import AutoModelForSeq2SeqLM, AutoTokenizer
            class SafetyChecker:
                def __call__(self, text):
                    tokenizer = AutoTokenizer.from_pretrained("org/safety-t5")
                    model = AutoModelForSeq2SeqLM.from_pretrained("org/safety-t5")
                    ids = tokenizer(text, return_tensors="pt").input_ids
                    outputs = model.generate(ids, output_scores=True, return_dict_in_generate=True)
                    return outputs.scores[3][0, :2].softmax(dim=0)[0].item()
            """
        ),
        # Session 24: a host-in, host-out wrapper (a ControlNet annotator, an infill model):
        # its ``__call__`` makes the input from a numpy image and returns the result as one;
        # the copy is the request's output.
        Valid(
            """
            import numpy as np
            import torch
            class DepthDetector:
                def __call__(self, image: np.ndarray) -> np.ndarray:
                    x = torch.from_numpy(image).unsqueeze(0).to(self.device)
                    with torch.no_grad():
                        depth = self.model(x)
                    depth = depth.cpu().numpy().astype(np.uint8)
                    return depth
            """
        ),
        # Session 27 (precision27): the same wrapper split into helper methods (mineru's OCR
        # text detector): ``__call__`` reaches ``_build_preds`` through ``self.`` calls made
        # once per request, and the class makes its input from numpy: the maps copied for the
        # host post-processing are the request's output.
        Valid(
            """
            import numpy as np
            import torch
            class TextDetector:
                def _build_preds(self, outputs):
                    return {"maps": outputs["maps"].float().cpu().numpy()}
                def _run(self, batch):
                    inp = torch.from_numpy(np.stack(batch)).to(self.device)
                    return self._build_preds(self.net(inp))
                def __call__(self, img):
                    return self._run([img])
            """
        ),
        # Session 37 (precision37): any method of a host-in, host-out class, not only its
        # ``__call__`` (iopaint's infill models: ``InpaintModel.forward`` of a plain class
        # makes its input from numpy and hands OpenCV the result): the copy is the output.
        Valid(
            """
            import numpy as np
            import torch
            class InpaintModel:
                def forward(self, image, mask):
                    image = torch.from_numpy(image).unsqueeze(0).to(self.device)
                    mask = torch.from_numpy(mask).unsqueeze(0).to(self.device)
                    out = self.model(image, mask)
                    res = out[0].permute(1, 2, 0).detach().cpu().numpy()
                    return np.clip(res * 255, 0, 255).astype("uint8")
            """
        ),
        # Session 37 (precision37): a function that declares a numpy array as its result
        # (an agent's ``predict``, a SAM predictor, a codec's ``get_waveform``) hands it to
        # host code: the copy that becomes that array is its output, wherever it is called.
        Valid(
            """
            import numpy as np
            import torch
            class Agent:
                def step(self, obs: torch.Tensor) -> tuple[np.ndarray, float]:
                    with torch.no_grad():
                        action = self.policy(obs.to("cuda"))
                    return action.cpu().detach().numpy(), 0.0
            """
        ),
        # Session 38 (outputs38b): a copy of a tensor on an unknown device that the function
        # returns as host data (numpy, a PIL image), outside its loops, in a function not hot
        # by its name nor called in a loop of its module: a VAD's or matting model's result
        # for host code (whisper-s2t, carvekit), once per request.
        Valid(
            """
            import torch
            class FrameVAD(torch.nn.Module):
                def forward(self, audio):
                    probs = self.model(audio).softmax(dim=-1)[:, 1]
                    return probs.cpu().numpy()
            """
        ),
        # Session 34 (precision34, controlnet-aux 0.0.10's LeReS and MLSD annotators): a
        # host-in, host-out ``__call__`` (no torch module; it makes an image from host data)
        # runs once per request, like a pipeline's: a helper without loops that it calls
        # outside its loops runs the model once, and its copy to numpy is the request's output.
        Valid(
            """
            import numpy as np
            import torch
            from PIL import Image
            def estimate_depth(image, model):
                x = torch.from_numpy(image).unsqueeze(0).to("cuda")
                with torch.no_grad():
                    depth = model(x)
                return depth.squeeze().cpu().numpy()
            class LeresDetector:
                def __call__(self, input_image):
                    image = np.array(input_image, dtype=np.uint8)
                    depth = estimate_depth(image, self.model)
                    return Image.fromarray(depth)
            """
        ),
        # Session 24: ``if i == 0:`` in ``for i in range(n)`` runs on the first iteration
        # only (Whisper's decoding loop keeps the no-speech probabilities of the first step).
        Valid(
            """
            import torch
            from torch import Tensor
            class Inference:
                def logits(self, tokens: Tensor, audio_features: Tensor) -> Tensor:
                    return self.model.decoder(tokens, audio_features)
            class DecodingTask:
                def __init__(self, model):
                    self.inference = Inference(model)
                def _main_loop(self, audio_features: Tensor, tokens: Tensor):
                    no_speech_probs = None
                    for i in range(self.sample_len):
                        logits = self.inference.logits(tokens, audio_features)
                        if i == 0 and self.no_speech is not None:
                            probs_at_sot = logits[:, 0].float().softmax(dim=-1)
                            no_speech_probs = probs_at_sot[:, self.no_speech].tolist()
                        next_tokens = logits[:, -1].argmax(dim=-1, keepdim=True)
                        tokens = torch.cat([tokens, next_tokens], dim=-1)
                    return tokens, no_speech_probs
            """
        ),
        # Session 25 (docTR's recognition post-processors): a post-processor (a class named for
        # it, or with such a base, and no torch module) turns the model's raw output into words
        # or boxes on the host once per call: its copies outside loops are that output (twins in
        # tests/test_precision_fixes_s25.py: a module's own copy, a sampler's `__call__`).
        Valid(
            """
            import torch
            class RecognitionPostProcessor:
                def __init__(self, vocab: str) -> None:
                    self._embedding = list(vocab) + ["<eos>"]
            class MASTERPostProcessor(RecognitionPostProcessor):
                def __call__(self, logits: torch.Tensor) -> list[tuple[str, float]]:
                    out_idxs = logits.argmax(-1)
                    probs = logits.softmax(-1).max(dim=-1).values.min(dim=1).values.cpu()
                    words = [
                        "".join(self._embedding[i] for i in seq).split("<eos>")[0]
                        for seq in out_idxs.detach().cpu().numpy()
                    ]
                    return list(zip(words, probs.numpy().tolist()))
            """
        ),
        # Session 27 (misses27): TorchScript's arm of a device test is never taken when Python
        # runs the code: `is_scripting() or not x.is_cuda` holds only off CUDA (torchrec's
        # `_safe_tolist`)
        Valid(
            """
            import torch
            def _safe_tolist(tensor: torch.Tensor) -> list[int]:
                if torch.jit.is_scripting() or not tensor.is_cuda:
                    return tensor.tolist()
                return []
            class M(torch.nn.Module):
                def forward(self, x: torch.Tensor):
                    return _safe_tolist(x)
            """
        ),
        # Session 29 (chain29, megatron's unfused MoE sort): a device chosen between the GPU
        # and the host (`torch.device("cuda") if fused else "cpu"`) proves no placement, whatever
        # the attribute's name says.
        Valid(
            """
            import torch
            class Dispatcher:
                def __init__(self, fused: bool, n: int) -> None:
                    self.permute_idx_device = torch.device("cuda") if fused else "cpu"
                    self.idx = torch.arange(n, device=self.permute_idx_device)
                def forward_step(self, x: torch.Tensor) -> torch.Tensor:
                    return torch.cat([x[i] for i in self.idx.tolist()])
            """
        ),
        # Session 29 (chain29): the sampler escapes (`torch.compile` of it is called, maybe
        # elsewhere too): its `forward`'s callers are not all known, nor where `logits` is.
        Valid(
            """
            import torch
            import torch.nn as nn
            class MinTokens:
                def apply(self, logits: torch.Tensor, stops: dict[int, list[int]]) -> torch.Tensor:
                    for row, stop_ids in stops.items():
                        logits[row, stop_ids] = float("-inf")
                    return logits
            class Sampler(nn.Module):
                def __init__(self) -> None:
                    super().__init__()
                    self.min_tokens = MinTokens()
                def forward(self, logits: torch.Tensor, stops: dict[int, list[int]]):
                    return self.min_tokens.apply(logits, stops).argmax(-1)
            class Runner:
                def __init__(self) -> None:
                    self.lm_head = nn.Linear(64, 1000).cuda()
                    self.sampler = torch.compile(Sampler())
                def execute_model(self, hidden: torch.Tensor, stops: dict[int, list[int]]):
                    return self.sampler(self.lm_head(hidden), stops)
            """
        ),
        # Session 29 (chain29): every call of the sampler passes host logits (a CPU fallback).
        Valid(
            """
            import torch
            import torch.nn as nn
            class MinTokens:
                def apply(self, logits: torch.Tensor, stops: dict[int, list[int]]) -> torch.Tensor:
                    for row, stop_ids in stops.items():
                        logits[row, stop_ids] = float("-inf")
                    return logits
            class Sampler(nn.Module):
                def __init__(self) -> None:
                    super().__init__()
                    self.min_tokens = MinTokens()
                def forward(self, logits: torch.Tensor, stops: dict[int, list[int]]):
                    return self.min_tokens.apply(logits, stops).argmax(-1)
            class Runner:
                def __init__(self) -> None:
                    self.sampler = Sampler()
                def execute_model(self, n: int, stops: dict[int, list[int]]):
                    return self.sampler(torch.zeros(n, 1000), stops)
            """
        ),
        # Session 29 (chain29): samplers kept in a `ModuleList` are called by iterating it,
        # calls no assignment shows.
        Valid(
            """
            import torch
            import torch.nn as nn
            class MinTokens:
                def apply(self, logits: torch.Tensor, stops: dict[int, list[int]]) -> torch.Tensor:
                    for row, stop_ids in stops.items():
                        logits[row, stop_ids] = float("-inf")
                    return logits
            class Sampler(nn.Module):
                def __init__(self) -> None:
                    super().__init__()
                    self.min_tokens = MinTokens()
                def forward(self, logits: torch.Tensor, stops: dict[int, list[int]]):
                    return self.min_tokens.apply(logits, stops).argmax(-1)
            class Runner:
                def __init__(self) -> None:
                    self.lm_head = nn.Linear(64, 1000).cuda()
                    self.samplers = nn.ModuleList([Sampler()])
                def execute_model(self, hidden: torch.Tensor, stops: dict[int, list[int]]):
                    return [s(self.lm_head(hidden), stops) for s in self.samplers]
            """
        ),
        # Session 27 (misses27): unpacked from a parameter's items as a list of stop tokens is,
        # a tensor of stop positions (`dict[int, tuple[int, torch.Tensor]]`) may be a mask
        Valid(
            """
            import torch
            class Sampler:
                def forward(self, n: int, masks: dict[int, tuple[int, torch.Tensor]]):
                    logits = torch.zeros(n, 8, device="cuda")
                    for row, (min_toks, stop_mask) in masks.items():
                        logits[row, stop_mask] = float("-inf")
                    return logits
            """
        ),
        # Session 30 (precision30): a copy whose value the function then writes to a file
        # (whisperspeech's extraction scripts writing each batch's codes to a tar shard, an
        # F5-TTS benchmark saving each waveform): file I/O reads host memory, so the data must
        # reach the host; the copy is the output. A copy written only every N steps, or only
        # as text in a log line, stays reported (INVALID twin).
        Valid(
            """
            import numpy as np
            import torch
            import torchaudio
            def prepare_codes(model, loader, sink):
                for keys, audio in loader:
                    with torch.no_grad():
                        codes = model.encode_audio(audio.to("cuda")).cpu().numpy().astype(np.int16)
                    for key, code in zip(keys, codes):
                        sample = {"__key__": key}
                        sample["codes.npy"] = code
                        sink.write(sample)
            def synthesize(model, vocoder, loader, out_dir):
                for batch in loader:
                    mel = model(batch["text"].to("cuda"))
                    wave = vocoder.decode(mel).cpu()
                    wave = wave / 2
                    torchaudio.save(f"{out_dir}/{batch['id']}.wav", wave, 24000)
            """
        ),
        # Session 31 (triage31, AReaL's vision sequence-parallel patch): a forward defined
        # inside the function that installs it copies `grid_thw` to the host once and hands
        # the copy to module helpers; the helpers' reads of it are host reads. The argument is
        # read in the nested function that binds it, not in the installer around it (the
        # `.cpu()` itself is still reported, at medium confidence).
        Valid(
            """
            import torch
            def _patch_counts(grid_thw):
                return (grid_thw[:, 0] * grid_thw[:, 1] * grid_thw[:, 2]).tolist()
            def _local_inputs(pixels, grid_thw, first):
                counts = torch.tensor(_patch_counts(grid_thw), device=grid_thw.device)
                offsets = torch.cumsum(counts, dim=0)
                return pixels[offsets[first].item():]
            def apply_vision_patch(model_cls):
                original_forward = model_cls.forward
                def sharded_forward(self, hidden_states, grid_thw):
                    grid_thw_cpu = grid_thw.cpu()  # h2dlint: ignore[HTD202]
                    total = sum(_patch_counts(grid_thw_cpu))
                    local = _local_inputs(hidden_states, grid_thw_cpu, 0)
                    return original_forward(self, local, grid_thw), total
                model_cls.forward = sharded_forward
            """
        ),
        # Session 32 (precision32): the fields of a tokenizer's batch (`enc.input_ids`) are
        # host tensors as its items are, also when the function passes its own format
        # parameter on (`return_tensors=return_tensors` of `return_tensors: str = "pt"`: every
        # format a tokenizer returns is host data): labels made like them are read on the host
        # (lerobot's Wall-X `preprocesser_call`, run per policy forward)
        Valid(
            """
            import torch
            def preprocess(tokenizer, text, return_tensors: str = "pt"):
                enc = tokenizer(text, return_tensors=return_tensors, padding=True)
                labels = torch.full_like(enc.input_ids, -100)
                if (labels != -100).any().item():
                    enc["labels"] = labels
                return enc
            class Policy(torch.nn.Module):
                def forward(self, text):
                    batch = preprocess(self.tokenizer, text)
                    return self.model(**batch)
            """
        ),
        # Session 33 (triage33: d3rlpy's off-policy evaluators): a method annotated to return
        # the project's alias of a numpy array (`NDArray = npt.NDArray[Any]`, here or imported
        # from its types module) returns host data: `.tolist()` of it reads no device (INVALID
        # twin: the alias names `torch.Tensor`).
        Valid(
            """
            from typing import Any, Protocol
            import numpy as np
            import numpy.typing as npt
            NDArray = npt.NDArray[Any]
            class AlgoProtocol(Protocol):
                def predict_value(self, x: NDArray, action: NDArray) -> NDArray: ...
            class SoftOPCEvaluator:
                def __call__(self, algo: AlgoProtocol, dataset) -> float:
                    all_values = []
                    for episode in dataset.episodes:
                        for batch in episode.batches():
                            values = algo.predict_value(batch.observations, batch.actions)
                            all_values += values.reshape(-1).tolist()
                    return float(np.mean(all_values))
            """
        ),
        # Session 36 (triage36: CompVis DDIM/PLMS samplers, vendored by AudioSR and IOPaint): a
        # sampler's `sample()` hands its loop of steps to a method of its class; the schedule
        # it makes first (`alphas_cumprod.cpu()`) is set-up, once per request (INVALID twin: a
        # read in the delegate's loop of steps).
        Valid(
            """
            import numpy as np
            import torch
            class DDIMSampler:
                def __init__(self, model):
                    self.model = model
                def make_schedule(self, steps):
                    alphas_cumprod = self.model.alphas_cumprod
                    self.sqrt_alphas = torch.tensor(np.sqrt(alphas_cumprod.cpu()))
                def sample(self, steps, cond, shape):
                    self.make_schedule(steps)
                    return self.ddim_sampling(cond, shape, steps)
                def ddim_sampling(self, cond, shape, steps):
                    img = torch.randn(shape, device=self.model.device)
                    for i in range(steps):
                        img = self.p_sample_ddim(img, cond, i)
                    return img
                def p_sample_ddim(self, x, c, t):
                    return self.model.apply_model(x, t, c)
            """
        ),
        # Session 36 (triage36: GPT-SoVITS' VITS encoders): `g != None` of a tensor is Python's
        # identity answer (`Tensor.__ne__` returns NotImplemented for None), no device read.
        Valid(
            """
            import torch
            class PosteriorEncoder(torch.nn.Module):
                def forward(self, x, g=None):
                    if g != None:
                        g = g.detach()
                    return self.enc(x, g=g)
            """
        ),
        # Session 36 (triage36: resemble-enhance's enhancer): an early return unless this is a
        # step of the period, `or`-ed with another exit: what follows runs every 100th step.
        Valid(
            """
            import torch
            class Enhancer(torch.nn.Module):
                def _visualize(self, mel):
                    loop = self.loop
                    if loop is None or loop.global_step % 100 != 0:
                        return
                    self.plot(mel[0].cpu().numpy())
                def forward(self, x):
                    mel = self.net(x)
                    self._visualize(mel)
                    return mel
            """
        ),
        # Session 37 (triage37: imagen-pytorch's trainer): a bare remainder of a step counter
        # as an early exit (`if total_steps % self.checkpoint_every: return`) is true off the
        # period: the method called after it runs once every N updates (INVALID twin: the
        # remainder of a batch's size).
        Valid(
            """
            import torch
            class Trainer(torch.nn.Module):
                def save_to_checkpoint_folder(self):
                    total_steps = int(self.steps.sum().item())
                    torch.save(self.state_dict(), f"checkpoint.{total_steps}.pt")
                def train_step(self, batch):
                    self.optimizer.step()
                    self.num_updates += 1
                    if self.num_updates % self.checkpoint_every:
                        return
                    self.save_to_checkpoint_folder()
            """
        ),
        # Session 36 (triage36: icefall's ScaledAdam/ActivationBalancer copies in GPT-SoVITS): a
        # branch taken on one call in a hundred (`random.random() < 0.01`) is occasional, as a
        # modulo of the step is (INVALID twin: a coin flip taken every other call).
        Valid(
            """
            import random
            import torch
            class ActivationBalancer(torch.nn.Module):
                def forward(self, x):
                    if random.random() < 0.01:
                        self.max_seen = max(self.max_seen, x.abs().max().item())
                    return x * self.scale
            """
        ),
        # Session 36 (triage36: so-vits-svc-fork): a VITS-style `...Collate` class pads host
        # samples into a batch in the data loader, even as an `nn.Module`'s `forward`.
        Valid(
            """
            import torch
            class TextAudioCollate(torch.nn.Module):
                def forward(self, batch):
                    results = {}
                    for key in batch[0].keys():
                        results[key] = torch.stack([b[key] for b in batch]).cpu()
                    return results
            """
        ),
        # Session 43 (triage43b): a helper that answers with a Python bool (a length, a shape)
        # or reads the tensor itself is no tensor test of the caller: the look-alikes of
        # `if has_only_one_value(sizes):` below.
        Valid(
            """
            import torch
            from torch import nn
            def single(t):
                return len(t) == 1
            def flat(t):
                return t.ndim == 1
            class Experts(nn.Module):
                def forward(self, x):
                    sizes = torch.stack([x.sum(), x.mean()]).cuda()
                    if single(sizes) or flat(sizes):
                        x = x + 1
                    return x
            """
        ),
        # Session 43 (triage43b): an accelerate trainer's own step buffer (phenaki-pytorch
        # 0.5.0 cvivit_trainer.py:219): accelerate places the models it is handed, nothing
        # moves the trainer, so `self.steps` stays the host tensor `__init__` made.
        Valid(
            """
            import torch
            from torch import nn
            from accelerate import Accelerator
            class Trainer(nn.Module):
                def __init__(self, vae, lr):
                    super().__init__()
                    self.accelerator = Accelerator()
                    self.register_buffer("steps", torch.Tensor([0]))
                    self.vae = vae
                    self.optim = torch.optim.Adam(vae.parameters(), lr=lr)
                    self.vae, self.optim = self.accelerator.prepare(self.vae, self.optim)
                def train_step(self, batch):
                    steps = int(self.steps.item())
                    loss = self.vae(batch)
                    self.accelerator.backward(loss)
                    self.optim.step()
                    self.steps += 1
                    return steps
            """
        ),
        # Session 43 (mine43): pytorch-optimizer 4.x's LAMB keeps the norms of
        # `torch._foreach_norm` on the device (stacked, clamped, given back as tensors); its
        # D-Adaptation reads the initial gradient norm on the first step only.
        Valid(
            """
            import torch
            class Lamb(torch.optim.Optimizer):
                def step(self, closure=None):
                    for group in self.param_groups:
                        params = group["params"]
                        norms = torch.stack(torch._foreach_norm(params))
                        torch._foreach_mul_(params, norms.clamp(max=1.0).unbind())
            """
        ),
        Valid(
            """
            import torch
            class DAdapt(torch.optim.Optimizer):
                def step(self, closure=None):
                    group = self.param_groups[0]
                    if group["step"] == 0:
                        norms = torch.stack(torch._foreach_norm(group["params"]))
                        group["g0_norm"] = norms.norm().item()
                    group["step"] += 1
            """
        ),
        # Session 44 (fp202m44): a model's prediction mode copies its results to the host
        # (mmaction2's BMN.predict, mmagic's forward_inference: prediction_outputs), and a
        # policy's get_action hands the action back to a host environment (AgileRL:
        # policy_actions).
        Valid(
            """
            import torch
            from mmengine.model import BaseModel
            class Localizer(BaseModel):
                def forward(self, inputs, samples, mode="loss"):
                    if mode == "loss":
                        return self.loss(inputs, samples)
                    return self.predict(inputs, samples)
                def loss(self, inputs, samples):
                    return {"loss": self.head(inputs).mean()}
                def predict(self, inputs, samples):
                    start, end = self.head(inputs)
                    start_scores = start[0].cpu().numpy()
                    end_scores = end[0].cpu().numpy()
                    return self.post_process(start_scores, end_scores, samples)
            """
        ),
        Valid(
            """
            import torch
            class Editor(BaseModel):
                def forward_inference(self, inputs, samples=None):
                    feats = self.generator(inputs)
                    return DataSample(pred_img=feats.cpu())
            """
        ),
        Valid(
            """
            import torch
            class PPO:
                def get_action(self, obs):
                    with torch.no_grad():
                        action, log_prob = self.actor(torch.as_tensor(obs, device=self.device))
                    action_np = action.cpu().numpy()
                    return action_np, log_prob
                def train_step(self, env, obs):
                    action, log_prob = self.get_action(obs)
                    return env.step(action)
            """
        ),
        # ... and a tensor handed to JAX copied only when JAX has no GPU backend (skrl's
        # wrappers: cpu_backend_flags).
        Valid(
            """
            import jax
            from jax import dlpack as jax_dlpack
            _CPU = jax.devices()[0].device_kind.lower() == "cpu"
            def _torch2jax(tensor):
                return jax_dlpack.from_dlpack(tensor.cpu() if _CPU else tensor)
            class Wrapper:
                def step(self, actions):
                    return self.env.step(_torch2jax(actions))
            """
        ),
        # Session 45 (fp202m45): a multi-backend model's host runtime arm hands it numpy
        # (yolov5 models/common.py:530, runtime_backend_arms); an inferencer's results copied
        # for the user (mmocr kie_inferencer.py:281: request_end_classes); a helper named for a
        # host format (robomimic tensor_utils.py:315, mmagic stable_diffusion.py:335:
        # conversion_helpers).
        Valid(
            """
            import torch
            from torch import nn
            class DetectMultiBackend(nn.Module):
                def forward(self, im):
                    if self.pt:
                        y = self.model(im)
                    elif self.onnx:
                        im = im.cpu().numpy()
                        y = self.session.run(self.output_names, {"images": im})
                    else:
                        im = im.cpu().numpy()
                        y = self.tf_model(im)
                    return y
            """
        ),
        Valid(
            """
            import torch
            class KIEInferencer(BaseMMOCRInferencer):
                def __call__(self, inputs):
                    return self.postprocess(self.forward(inputs))
                def forward(self, inputs):
                    return self.model.test_step(inputs)
                def postprocess(self, preds):
                    return [self.pred2dict(pred) for pred in preds]
                def pred2dict(self, pred):
                    return {"scores": pred.scores.cpu().numpy().tolist()}
            """
        ),
        Valid(
            """
            import torch
            from torch import nn
            class Model(nn.Module):
                def forward(self, x):
                    return output_to_pil(self.net(x))
            def output_to_pil(image):
                image = image.permute(0, 2, 3, 1).to(torch.uint8).cpu().numpy()
                return [Image.fromarray(i) for i in image]
            """
        ),
        # Session 46 (fp202m46): an evaluation pass's results leave for host code: the
        # evaluation arm of a ``self.training`` test (stanza depparse/model.py:359, FunASR's
        # validation CER, paraformer/model.py:479) and a hand-written evaluation loop
        # (BigVGAN's PESQ input, train.py:337: evaluation_passes).
        Valid(
            """
            import torch
            import torch.nn.functional as F
            from torch import nn
            class Parser(nn.Module):
                def forward(self, word, head):
                    scores = self.scorer(word)
                    preds = []
                    if self.training:
                        loss = self.crit(scores, head)
                    else:
                        loss = 0
                        preds.append(F.log_softmax(scores, 2).detach().cpu().numpy())
                    return loss, preds
            """
        ),
        Valid(
            """
            import torch
            def validate(model, loader, device):
                scores = []
                for x, y in loader:
                    y_hat = torch.tanh(model(x.to(device)))
                    y_int = (y_hat[0] * 32767).short().cpu().numpy()
                    scores.append(pesq(16000, y.numpy(), y_int))
                return scores
            """
        ),
        # Session 47 (consist47): each batch's output collected on the host in an inference
        # loop over batches is the pass's result, one copy per batch behind a whole forward, as
        # Lightning's predict loop and sentence-transformers' encode keep it (FlagEmbedding's
        # reranker, decoder_only/base.py:452; DeepCTR's predict, basemodel.py:355:
        # batch_outputs).
        Valid(
            """
            import torch
            from torch.utils.data import DataLoader
            from tqdm import tqdm
            class Reranker:
                @torch.no_grad()
                def compute_score(self, dataset, device):
                    dataloader = DataLoader(dataset, batch_size=32)
                    all_scores = []
                    for inputs in tqdm(dataloader):
                        logits = self.model(**inputs.to(device)).logits
                        scores = logits[:, -1, self.yes_loc]
                        all_scores.extend(scores.cpu().float().tolist())
                    return all_scores
            """
        ),
        Valid(
            """
            import numpy as np
            import torch
            class Model(torch.nn.Module):
                def predict(self, x, batch_size=256):
                    model = self.eval()
                    loader = torch.utils.data.DataLoader(torch.from_numpy(x), batch_size=batch_size)
                    pred_ans = []
                    with torch.no_grad():
                        for _, x_test in enumerate(loader):
                            y_pred = model(x_test.to(self.device).float()).cpu().data.numpy()
                            pred_ans.append(y_pred)
                    return np.concatenate(pred_ans)
            """
        ),
        # Session 47 (fp202m47): an arm no call of the function takes, the tested parameter
        # settled by every call (torchmetrics utilities/data.py:103, ``to_onehot``'s
        # ``num_classes`` passed by its one caller; AReaL utils/data.py:443: settled_arms).
        Valid(
            """
            import torch
            from torch import nn
            def to_onehot(labels, num_classes=None):
                if num_classes is None:
                    num_classes = int(labels.max().item() + 1)
                return torch.zeros(labels.shape[0], num_classes, device=labels.device)
            class Loss(nn.Module):
                def forward(self, preds, target):
                    return (preds - to_onehot(target, max(2, preds.shape[1]))).abs().mean()
            """
        ),
        # Session 48 (fp202m48): an attribute the class only updates from itself, which its
        # base class starts as a number, proves no tensor (mmagic two_stage.py:307, the
        # discriminator step count set to ``0`` in one_stage.py: grounded_attributes).
        Valid(
            """
            from torch import nn
            class OneStageInpaintor(nn.Module):
                def __init__(self, train_cfg):
                    super().__init__()
                    self.train_cfg = train_cfg
                    self.disc_step_count = 0
            class TwoStageInpaintor(OneStageInpaintor):
                def train_step(self, data, optim_wrapper):
                    loss = self.generator(data).mean()
                    optim_wrapper.update_params(loss)
                    self.disc_step_count = (self.disc_step_count + 1) % self.train_cfg.disc_step
                    if self.disc_step_count != 0:
                        return dict(loss=loss)
                    return dict(loss=loss * 2)
            """
        ),
        # Session 48 (prov48): the look-alike of the conditional tensor: one arm a Python list,
        # so `valid` is not surely a tensor and `bool(valid.all())` may read a list.
        Valid(
            """
            import torch
            class BlockDiffusion(torch.nn.Module):
                def build(self, input_ids, attention_mask):
                    n = input_ids.shape[1]
                    valid = [True] * n if attention_mask is None else attention_mask.bool()
                    return input_ids, valid
                def attention_mask(self, length, valid):
                    if not bool(valid.all()):
                        return valid[:, None, :length]
                    return None
                def forward(self, input_ids, attention_mask=None):
                    ids, valid = self.build(input_ids, attention_mask)
                    return self.attention_mask(ids.shape[1], valid)
            """
        ),
        # Session 49 (fp202w49, optimum-executorch 1.1.0 `modeling.py:557`): a decoding loop
        # that feeds its model tensors it makes on the host each step (the position and the
        # next ids, no device named): an ExecuTorch program on the host, host logits.
        Valid(
            """
            import torch
            class Seq2Seq:
                def generate(self, input_ids, max_seq_len):
                    decoder_input_ids = torch.tensor([[0]], dtype=torch.long)
                    generated = []
                    for i in range(max_seq_len - 1):
                        cache_position = torch.tensor([i], dtype=torch.long)
                        logits = self.forward(input_ids, decoder_input_ids, cache_position)
                        next_token = torch.argmax(logits[:, -1, :], dim=-1).item()
                        generated.append(next_token)
                        decoder_input_ids = torch.tensor([[next_token]], dtype=torch.long)
                    return generated
            def run_pte(module, start, n, tokens):
                for i in range(n):
                    logits = module.run_method("decoder", (torch.tensor([start + i]), tokens))[0]
                    tokens.append(torch.argmax(logits[..., -1, :]).item())
                    print(model.tokenizer.decode(tokens[-1]))
            """
        ),
        # Session 49 (mine49): the look-alikes of a loss named as such: verl 0.7.1 keeps the
        # loss tensor in a metric record (no read), and a function that builds a loss is no
        # loss computation (it runs once, at set-up).
        Valid(
            """
            import torch
            def ppo_loss(config, log_prob, old_log_prob, advantages, mask):
                ratio = torch.exp(log_prob - old_log_prob)
                pg_loss = -(ratio * advantages * mask).sum() / mask.sum()
                metrics = {"actor/pg_loss": Metric(value=pg_loss, aggregation="token-mean")}
                return pg_loss, metrics
            def build_loss(weights: torch.Tensor):
                scale = float(weights.sum().item())
                return lambda logits, target: torch.nn.functional.cross_entropy(logits, target)
            """
        ),
        # Session 50 (mine50): the if/else look-alike of trl's chunked loss: both arms bind
        # the count from host data (a length list, `numel()`), so its test reads no tensor.
        Valid(
            """
            import torch
            def _chunked_loss(hidden: torch.Tensor, labels: torch.Tensor, lengths: list | None):
                if lengths is not None:
                    n_valid = sum(lengths)
                else:
                    n_valid = labels.numel()
                if n_valid == 0:
                    return hidden.sum() * 0.0
                return hidden.sum()
            """
        ),
        # Session 49 (triage49a): Megatron-Bridge's get_batch moves the loader's device keys
        # with `val.cuda(non_blocking=True)`, written for a host source, and keeps the host
        # keys with `val.cpu()`, a copy of nothing (analysis/host_company.py).
        Valid(
            """
            def get_batch(data_iterator, device_keys, host_keys):
                batch = next(data_iterator)
                out = {}
                for key, val in batch.items():
                    if key in device_keys:
                        out[key] = val.cuda(non_blocking=True)
                    elif key in host_keys:
                        out[key] = val.cpu()
                return out
            def forward_step(data_iterator, model):
                return model(get_batch(data_iterator, ("tokens",), ("lengths",)))
            """
        ),
        # Session 49 (triage49a): NeMo AutoModel's recipes hand the micro-batch counter to
        # `self._forward_backward_step(i, batch, ...)`: a helper that runs the forward too is
        # given the step's inputs, not a loss (analysis/backward_calls.py), so `i` stays an int.
        Valid(
            """
            class Recipe:
                def _run_train_optim_step(self, batches):
                    for i, batch in enumerate(batches):
                        self._forward_backward_step(i, batch)
                        if i == 0:
                            self.after_first_microbatch()
                def _forward_backward_step(self, i, batch):
                    loss = self.model(**batch)
                    loss.backward()
            """
        ),
        # Session 50 (triage50b): a `forward` annotated to return text (torchani's species to
        # symbols), a loss named for validation data (cornac's `_validation_loss`), a loop
        # counting epochs whose own body reads once per epoch (cornac's LightGCN: the tables
        # copied for numpy scoring), and the debugging arm of a conditional expression
        # (pypots' MOMENT weight check): none reads per training step.
        Valid(
            """
            import torch
            from torch import Tensor
            from tqdm import trange
            class ToSymbols(torch.nn.Module):
                def forward(self, species: Tensor) -> list[str]:
                    species = species[species != -1]
                    return [self.symbols[i] for i in species.tolist()]
            def _validation_loss(logits: Tensor, targets: Tensor) -> Tensor:
                keep = targets != -100
                return torch.nn.functional.cross_entropy(logits[keep], targets[keep])
            class Recommender:
                def fit(self, model, graph, loader, optimizer):
                    pbar = trange(self.num_epochs)
                    for _ in pbar:
                        for batch in loader:
                            loss = model.loss(batch)
                            loss.backward()
                            optimizer.step()
                        u_embs = model(graph)
                        self.U = u_embs.cpu().numpy()
            class Backbone(torch.nn.Module):
                def _check_weights(self):
                    flags = torch.stack([torch.isnan(p).any() for p in self.parameters()])
                    return flags.any().item()
                def forward(self, x):
                    bad = self._check_weights() if self.configs.debug else None
                    return self.encoder(x), bad
            """
        ),
        # Session 51 (mine51b): the look-alikes of the optional-mask example: the post-fix test
        # of the placeholder alone (a Python `None` test), a placeholder whose other binding is
        # host data, and the normaliser kept on the device.
        Valid(
            """
            import torch
            from torch import Tensor
            def exists(v):
                return v is not None
            class Attend(torch.nn.Module):
                def forward(self, sim, v, mask=None, lengths: list[int] | None = None):
                    row_is_entirely_masked = None
                    if exists(mask):
                        row_is_entirely_masked = ~mask.any(dim=-1)
                    out = sim.softmax(dim=-1) @ v
                    if exists(row_is_entirely_masked):
                        out = out.masked_fill(row_is_entirely_masked[..., None], 0.0)
                    longest = None
                    if lengths is not None:
                        longest = max(lengths)
                    if longest is not None and longest > 16:
                        out = out[:, :16]
                    return out
            class DetectionLoss:
                def _global_cls_norm(self, targets_cls: Tensor) -> Tensor:
                    return targets_cls.detach().float().sum().clamp_min(1.0)
                def __call__(self, predictions: Tensor, targets: Tensor) -> Tensor:
                    cls_norm = self._global_cls_norm(targets[..., 0])
                    return (predictions - targets).abs().sum() / cls_norm
            """
        ),
        # Session 51 (triage51b, neuracore 19.0.0 `distributed_trainer.py:298`): a local flag
        # bound to a periodic test gates its `if` body to one step in N, also as an operand of
        # an `and` (analysis/hot_guards.py, `periodic_flag`).
        Valid(
            """
            def train(model, loader, optimizer, log_freq, pbar, show):
                step = 0
                for batch in loader:
                    loss = model(batch).mean()
                    loss.backward()
                    optimizer.step()
                    is_log_step = log_freq > 0 and (step % log_freq == 0)
                    if show and is_log_step:
                        pbar.set_postfix({"loss": f"{loss.item():.4f}"})
                    step += 1
            """
        ),
        # Session 51 (fp51): a method whose every call sits under a periodic gate runs every N
        # steps, whatever its name says (magvit2's `valid_step`).
        Valid(
            """
            class Trainer:
                def valid_step(self, batch):
                    video = self.model(batch)
                    return video.cpu()
                def train(self, loader):
                    for step, batch in enumerate(loader):
                        loss = self.model(batch)
                        loss.backward()
                        if not (step % self.validate_every_step):
                            self.valid_step(batch)
            """
        ),
    )
    invalid = (
        # Session 51 (triage51a): `ptq` inside another word (VPTQ, a quantization format whose
        # layers run per forward) says no calibration.
        Invalid(
            """
            from torch import nn
            class VPTQLinear(nn.Module):
                def forward(self, x):
                    self.seen.append(x.detach().cpu())
                                     ^^^^^^^^^^^^^^^^
                    return self.linear(x)
            """,
            message_contains="`.cpu()` of `x.detach()`",
        ),
        # Session 51 (triage51a): a counter the body lowers, or one tested against a warm-up
        # length, runs its body on many forwards: still per step.
        Invalid(
            """
            import torch
            from torch import nn
            class Observer(nn.Module):
                def __init__(self, steps):
                    super().__init__()
                    self.lo = nn.Parameter(torch.tensor(0.0))
                    self.warmup = steps
                    self.counter = 0
                def forward(self, x):
                    if self.counter < self.warmup:
                        self.lo.data.fill_(min(self.lo.item(), x.min().item()))
                                                               ^^^^^^^^^^^^^^
                        self.counter += 1
                    return x - self.lo
            """,
            message_contains="`.item()` of `x.min()`",
        ),
        # Session 51 (fp51): a gradient accumulation window ends in every optimizer step.
        Invalid(
            """
            import torch
            class Trainer:
                def optimizer_step(self):
                    norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
                    self.last_norm = norm.item()
                                     ^^^^^^^^^^^
                    self.optimizer.step()
                def train(self, loader):
                    for step, batch in enumerate(loader):
                        loss = self.model(batch)
                        loss.backward()
                        if (step + 1) % self.grad_accum_steps == 0:
                            self.optimizer_step()
            """,
            message_contains="`.item()` of `norm`",
        ),
        # Session 51 (mine51a): a forward that dispatches through a local name bound to one of
        # the module's functions or a wrapper of one runs that function on every call
        # (torchtitan 0.2.2 `models/gpt_oss/model/moe.py:160`, fixed by 0.3.0).
        Invalid(
            """
            import torch
            from torch import nn
            def _run_grouped(x: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
                offsets = torch.cumsum(counts, dim=0)
                slack = x.shape[0] - int(offsets[-1])
                                     ^^^^^^^^^^^^^^^^
                return x[: x.shape[0] - slack]
            def _run_loop(x: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
                return x
            class Experts(nn.Module):
                def forward(self, x: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
                    run = padded(_run_grouped) if self.grouped else _run_loop
                    return run(x, counts)
            """,
            message_contains="`int()` of `offsets[-1]`",
        ),
        # Session 50 (triage50a): a type test that also lets a tensor in says nothing.
        Invalid(
            """
            from typing import Union
            import torch
            from torch import nn
            class Head(nn.Module):
                def forward(self, x: torch.Tensor, *, keep: Union[int, torch.Tensor] = 0):
                    if isinstance(keep, (int, torch.Tensor)):
                        if keep != 0:
                           ^^^^
                            x = x[:, -keep:, :]
                    else:
                        x = x.gather(1, keep.unsqueeze(-1).expand(-1, -1, x.size(-1)))
                    return self.proj(x)
            """,
            message_contains="`keep` as an `if` test",
        ),
        # Session 50 (triage50a): a training loss's totals are read per training batch.
        Invalid(
            """
            import torch
            def compute_policy_loss(model, loader, device):
                total = 0.0
                for batch in loader:
                    total += model(batch["input_ids"]).loss.detach()
                loss_tensor = torch.tensor(total, device=device)
                torch.distributed.all_reduce(loss_tensor)
                return loss_tensor.item()
                       ^^^^^^^^^^^^^^^^^^
            """,
            message_contains="computes a loss",
        ),
        # Session 49 (recall49): `torch.equal`/`.allclose` return a Python bool: a forward
        # comparing a tensor reads it on the host (nequip 0.19.1's torch-sim model).
        Invalid(
            """
            import torch
            class SimModel(torch.nn.Module):
                def forward(self, numbers: torch.Tensor, positions: torch.Tensor):
                    if not torch.equal(numbers, self.atomic_numbers):
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                        self.setup(numbers)
                    return self.net(positions)
            """,
            message_contains="`torch.equal()` of `numbers`",
        ),
        # Session 49 (recall49): an adaptive ODE solver's step-size control (torchdiffeq 0.2.5
        # `misc.py:88`, `:90`): the ratio is a tensor by its later `type_as` (the same value
        # reaches both), read by each test every step; and a `while` loop whose every
        # iteration takes a step (`self._adaptive_step(...)`) reads its tensor test per step.
        Invalid(
            """
            import torch
            def _optimal_step_size(last_step, error_ratio, safety, ifactor, dfactor, order):
                if error_ratio == 0:
                   ^^^^^^^^^^^
                    return last_step * ifactor
                error_ratio = error_ratio.type_as(last_step)
                return last_step * torch.min(ifactor, safety / error_ratio)
            """,
            message_contains="`error_ratio` as an `if` test",
        ),
        Invalid(
            """
            import torch
            class Solver:
                def _advance(self, next_t: torch.Tensor):
                    while next_t > self.rk_state.t1:
                          ^^^^^^^^^^^^^^^^^^^^^^^^^
                        self.rk_state = self._adaptive_step(self.rk_state)
                    return self.rk_state.y1
            """,
            message_contains="takes a step (`_adaptive_step()`)",
        ),
        # Session 49 (recall49): transformers' generation hooks run once per generated token;
        # a tokenizer's decode of the ids they get reads them on the host (jsonformer 0.12.0's
        # StringStoppingCriteria; lighteval's MultiTokenEOSCriteria, its parameters bare).
        Invalid(
            """
            import torch
            from transformers import StoppingCriteria
            class StringStoppingCriteria(StoppingCriteria):
                def __call__(self, input_ids: torch.LongTensor, _) -> bool:
                    last_token_id = input_ids[0][-1]
                    last = self.tokenizer.decode(last_token_id, skip_special_tokens=True)
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return '"' in last
            """,
            message_contains="decode of `last_token_id`",
        ),
        Invalid(
            """
            import transformers
            class MultiTokenEOSCriteria(transformers.StoppingCriteria):
                def __call__(self, input_ids, scores, **kwargs) -> bool:
                    lookback = input_ids[:, self.start:][:, -self.length:]
                    texts = self.tokenizer.batch_decode(lookback)
                            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return all(self.sequence in t for t in texts)
            """,
            message_contains="decode of `lookback`",
        ),
        # Session 49 (triage49b): the look-alike of the offload in `valid`: the same copy
        # under a size test with no `empty_cache()` after it.
        Invalid(
            """
            import torch
            from torch import nn
            class Head(nn.Module):
                def forward(self, z, x):
                    pae = self.pae(x)
                    if z.shape[-2] > 2000:
                        pae = pae.cpu()
                              ^^^^^^^^^
                    return pae
            """,
            message_contains="`.cpu()` of `pae`",
        ),
        # Session 49 (triage49a): the look-alike: a blocking `.cuda()` says nothing of where
        # `val` is (model code moves device tensors between GPUs that way), so `val.cpu()`
        # may still copy a device tensor.
        Invalid(
            """
            def get_batch(data_iterator, device_keys, host_keys):
                batch = next(data_iterator)
                out = {}
                for key, val in batch.items():
                    if key in device_keys:
                        out[key] = val.cuda()
                    elif key in host_keys:
                        out[key] = val.cpu()
                                   ^^^^^^^^^
                return out
            def forward_step(data_iterator, model):
                return model(get_batch(data_iterator, ("tokens",), ("lengths",)))
            """,
            message_contains="`.cpu()` of `val`",
        ),
        # Session 47 (consist47): the look-alikes of batch_outputs that stay reported: a
        # training loop's per-step copy, and an evaluation loop's per-batch `.item()` of a loss
        # summed into a float (FunASR 1.4.16 and torchtitan 0.3.0 moved such reads after the
        # loop).
        Invalid(
            """
            import torch
            def fit(model, optimizer, train_loader, device):
                outputs = []
                for x, y in train_loader:
                    out = model(x.to(device))
                    loss = torch.nn.functional.mse_loss(out, y.to(device))
                    loss.backward()
                    optimizer.step()
                    outputs.append(out.detach().cpu())
                                   ^^^^^^^^^^^^^^^^^^
                return outputs
            """,
            message_contains="`.cpu()` of `out.detach()`",
        ),
        Invalid(
            """
            import torch
            @torch.no_grad()
            def run_eval(model, val_loader, device):
                total = 0.0
                for x, y in val_loader:
                    loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
                    total += loss.item()
                             ^^^^^^^^^^^
                return total / len(val_loader)
            """,
            message_contains="`.item()` of `loss`",
        ),
        # Session 47 (misses47, flashinfer 0.7.2 `page.py:895`): a test of a list the
        # function builds asks whether there is work; `validate` in its name is no
        # debugging switch: one read-back per append to the paged KV cache.
        Invalid(
            """
            import torch
            def append_paged_kv_cache(scales, device):
                to_validate = []
                for value in scales:
                    if value.is_cuda:
                        to_validate.append(value)
                if to_validate:
                    return torch.stack(to_validate).cpu().tolist()
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """
        ),
        # Session 47 (misses47, lerobot 0.5.1 WallX `modeling_wall_x.py:1957`): a subclass
        # of a transformers model is an `nn.Module`; its output's losses are device tensors.
        Invalid(
            """
            import torch
            from transformers import Qwen2_5_VLForConditionalGeneration
            class ForAction(Qwen2_5_VLForConditionalGeneration):
                pass
            class Policy(torch.nn.Module):
                def __init__(self, path):
                    super().__init__()
                    self.model = ForAction.from_pretrained(path)
                def forward(self, batch):
                    outputs = self.model(**batch)
                    return outputs.flow_loss.item()
                           ^^^^^^^^^^^^^^^^^^^^^^^^
            """
        ),
        # Session 48 (hot48, pytorch-optimizer 3.10.1 `pcgrad.py:124`, `lora_rite.py:61`,
        # ElegantRL 0.3.6 `AgentTD3.py:46`): a method named for a backward pass runs once per
        # step; a local name for an attribute (`helper = self.helper`) calls its class's
        # methods from the optimizer's `step()`; a loop that hands its loss to a helper of the
        # class that backpropagates it is a training loop.
        Invalid(
            """
            import torch
            class PCGrad:
                def pc_backward(self, grads, has_grads):
                    shared = torch.stack(has_grads).prod(0).bool()
                    return torch.stack([g[~shared] for g in grads])
                                        ^^^^^^^^^^
            """
        ),
        Invalid(
            """
            import torch
            class Helper:
                def inverse_sqrt(self, tensor: torch.Tensor) -> torch.Tensor:
                    eigenvalues, vectors = torch.linalg.eigh(tensor)
                    return vectors * torch.max(eigenvalues).item()
                                     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            class Rite(torch.optim.Optimizer):
                def __init__(self, params):
                    super().__init__(params, {})
                    self.helper = Helper()
                def step(self, closure=None):
                    helper = self.helper
                    for group in self.param_groups:
                        for p in group["params"]:
                            p.add_(helper.inverse_sqrt(p.grad))
            """
        ),
        Invalid(
            """
            class Agent:
                def optimizer_update(self, optimizer, objective):
                    optimizer.zero_grad()
                    objective.backward()
                    optimizer.step()
                def update_net(self, buffer, optimizer):
                    total = 0.0
                    for _ in range(8):
                        obj_critic = self.get_obj_critic(buffer)
                        total += obj_critic.item()
                                 ^^^^^^^^^^^^^^^^^
                        self.optimizer_update(optimizer, obj_critic)
                    return total
            """
        ),
        # Session 46 (misses46, ltx-core 1.0 `utils.py:33`): the branch of an
        # `isinstance(sigma, torch.Tensor)` guard IS the tensor case, whatever the annotation
        # says: one `.item()` per Euler step.
        Invalid(
            """
            import torch
            def to_velocity(sample, sigma: float | torch.Tensor, denoised):
                if isinstance(sigma, torch.Tensor):
                    sigma = sigma.to(torch.float32).item()
                            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return (sample - denoised) / sigma
            class EulerDiffusionStep:
                def step(self, sample, denoised, sigmas: torch.Tensor, i: int):
                    return sample + to_velocity(sample, sigmas[i], denoised)
            """,
            message_contains="`.item()` of `sigma.to(torch.float32)`",
        ),
        # Session 46 (misses46, mmgp 3.8 `offload.py:2797`): the copies are queued by a nested
        # function called just before the wait, and the loader runs from a forward pre-hook
        # nested in a method (its `self` is the method's).
        Invalid(
            """
            import torch
            class Offload:
                def load_blocks(self, blocks):
                    def cpu_to_gpu(stream, params):
                        with torch.cuda.stream(stream):
                            for p in params:
                                p.data = p.to("cuda", non_blocking=True)
                    cpu_to_gpu(torch.cuda.current_stream(), blocks)
                    torch.cuda.synchronize()
                    ^^^^^^^^^^^^^^^^^^^^^^^^
                def hook(self, module):
                    def preload(mod, *args, **kwargs):
                        self.load_blocks(mod.blocks)
                    module.register_forward_pre_hook(preload)
            """,
            message_contains="in `cpu_to_gpu()`",
        ),
        # Session 46 (misses46, lerobot 0.5.1 WallX `forward`): a field of a module's output
        # read with `.item()` every training step.
        Invalid(
            """
            import torch
            class Inner(torch.nn.Module):
                def forward(self, x):
                    return x
            class Policy(torch.nn.Module):
                def __init__(self, path):
                    super().__init__()
                    self.model = Inner.from_pretrained(path)
                def forward(self, batch):
                    outputs = self.model(**batch)
                    return outputs.loss, outputs.flow_loss.item()
                                         ^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="if `outputs.flow_loss` is on the GPU",
        ),
        # Session 43 (truth43): the look-alike of the observer's stored input: a statistic of
        # the input copied every calibration forward (accumulate it on the device).
        Invalid(
            """
            import torch
            class SmoothQuantObserver(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.maxima = []
                def forward(self, input: torch.Tensor):
                    self.maxima.append(torch.max(input).to("cpu"))
                                       ^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return input
            """,
            message_contains="on a hot path",
        ),
        # Session 36 (mine36, nemo-automodel 0.5's `te_attention._detect_causal_mask`, run on
        # every attention call): the arguments of `logger.debug(...)` are evaluated also when
        # debug logging is off and the message is dropped, so their `.tolist()` syncs every call.
        Invalid(
            """
            import logging
            import torch
            logger = logging.getLogger(__name__)
            class CausalAttention(torch.nn.Module):
                def forward(self, q, k, v, mask):
                    rows = (mask > -1e4).sum(dim=-1)
                    logger.debug("visible keys per row: %s", rows.tolist())
                    #                                        ^^^^^^^^^^^^^
                    return torch.nn.functional.scaled_dot_product_attention(q, k, v, mask)
            """,
            message_contains="`.tolist()` of `rows`",
        ),
        # Session 36 (mine36, nemo-automodel 0.5's `clip_grad_norm` helper, every optimizer
        # step): `clip_grad_norm_` returns the total norm as a 0-d tensor on the gradients'
        # device, so reading it every step waits for the whole backward pass (MEDIUM).
        Invalid(
            """
            import torch
            def train(model, optimizer, loader, max_norm):
                norms = []
                for batch in loader:
                    model(batch).loss.backward()
                    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
                    optimizer.step()
                    norms.append(grad_norm.item())
                    #            ^^^^^^^^^^^^^^^^
                return norms
            """,
            message_contains="`.item()` of `grad_norm`",
        ),
        # Session 39 (triage39): the twin of the VALID benchmark driver: a top-level function
        # named for a forward (`encoder_forward`) is one, and its NaN check syncs every call.
        Invalid(
            """
            import torch
            def encoder_forward(bridge, tokens):
                out = bridge(tokens.to("cuda"))
                if torch.isnan(out).any():
                #  ^^^^^^^^^^^^^^^^^^^^^^
                    return None
                return out
            """,
            message_contains="`encoder_forward()` runs on every forward pass",
        ),
        # Session 42 (rebind42): the bare check, as ai2-olmo 0.6.0's trainer makes every step
        # (``if torch.isnan(ce_batch_loss): raise``): ``bool()`` of the bool tensor reads it.
        Invalid(
            """
            import torch
            def fit(model, optim, loader):
                for batch in loader:
                    loss = model(batch.cuda()).sum()
                    loss.backward()
                    optim.step()
                    if torch.isnan(loss):
                    #  ^^^^^^^^^^^^^^^^^
                        raise ValueError("nan loss encountered")
            """,
        ),
        # Session 36 (triage36): the VALID DDIM sampler's twin: a read in the loop of steps of
        # the method `sample()` hands its loop to runs every step.
        Invalid(
            """
            import torch
            class DDIMSampler:
                def sample(self, steps, cond, shape):
                    self.make_schedule(steps)
                    return self.ddim_sampling(cond, shape, steps)
                def make_schedule(self, steps):
                    self.steps = steps
                def ddim_sampling(self, cond, shape, steps):
                    img = torch.randn(shape, device="cuda")
                    for i in range(steps):
                        img = self.p_sample_ddim(img, cond, i)
                        if img.isnan().any():
            #              ^^^^^^^^^^^^^^^^^
                            break
                    return img
                def p_sample_ddim(self, x, c, t):
                    return self.model.apply_model(x, t, c)
            """
        ),
        # Session 39 (mine39): k-diffusion's samplers (and their copies) take the noise
        # schedule as a bare parameter, made by the caller on the model's device, and test an
        # element of it on every step the model runs (k-diffusion issue #108).
        Invalid(
            """
            from tqdm.auto import trange
            def sample_heun(model, x, sigmas, extra_args=None):
                s_in = x.new_ones([x.shape[0]])
                for i in trange(len(sigmas) - 1):
                    denoised = model(x, sigmas[i] * s_in, **extra_args)
                    d = (x - denoised) / sigmas[i]
                    if sigmas[i + 1] == 0:
            #          ^^^^^^^^^^^^^
                        x = denoised
                    else:
                        x = x + d * (sigmas[i + 1] - sigmas[i])
                return x
            """,
            message_contains="if `sigmas` is on the GPU",
        ),
        # Session 40 (mine40): k-diffusion's ancestral samplers test a value a helper computes
        # from two elements of the schedule (a tensor on the schedule's device) on every step.
        Invalid(
            """
            from tqdm.auto import trange
            def sample_dpm_2_ancestral(model, x, sigmas, eta=1.0):
                s_in = x.new_ones([x.shape[0]])
                for i in trange(len(sigmas) - 1):
                    denoised = model(x, sigmas[i] * s_in)
                    sigma_down, sigma_up = get_ancestral_step(sigmas[i], sigmas[i + 1], eta=eta)
                    d = (x - denoised) / sigmas[i]
                    if sigma_down == 0:
            #          ^^^^^^^^^^
                        x = x + d * (sigma_down - sigmas[i])
                    else:
                        x = x + d * (sigma_down - sigmas[i]) + sigma_up
                return x
            """,
            message_contains="if `sigma_down` is on the GPU",
        ),
        # Session 37 (triage37): the VALID checkpoint exit's twin: the remainder of a batch's
        # size is no period of steps; what follows runs on every uneven batch.
        Invalid(
            """
            import torch
            class Trainer(torch.nn.Module):
                def pad_batch(self, batch):
                    total_steps = int(self.steps.sum().item())
            #                         ^^^^^^^^^^^^^^^^^^^^^^^
                    return self.pad(batch, total_steps)
                def train_step(self, batch):
                    self.optimizer.step()
                    if batch.shape[0] % self.chunk_size:
                        return
                    self.pad_batch(batch)
            """
        ),
        # Session 38 (placement38): the VALID safety checker's twin: the model loaded once,
        # then run in a loop of steps whose every token is read on the host.
        Invalid(
            """
            import torch
            from transformers import AutoModelForCausalLM
            class Generator:
                def __call__(self, ids, steps):
                    model = AutoModelForCausalLM.from_pretrained("org/lm", device_map="cuda")
                    for _ in range(steps):
                        nxt = model(ids).logits[:, -1].argmax(-1)
                        if nxt.item() == self.eos:
            #              ^^^^^^^^^^
                            break
                        ids = torch.cat([ids, nxt[:, None]], dim=1)
                    return ids
            """
        ),
        # Session 36 (triage36): the VALID rare draw's twin: a coin flip taken on every other
        # call is no occasional branch.
        Invalid(
            """
            import random
            import torch
            class ActivationBalancer(torch.nn.Module):
                def forward(self, x):
                    if random.random() < 0.5:
                        self.max_seen = max(self.max_seen, x.abs().max().item())
            #                                              ^^^^^^^^^^^^^^^^^^^^
                    return x * self.scale
            """
        ),
        # Session 36 (recall36, whisper-timestamped 1.15.9 `transcribe.py:793`): a hook nested
        # in the function that registers it, through a lambda per attention block; and a
        # closure a factory returns, registered per layer: both run on every forward.
        Invalid(
            """
            import torch
            def transcribe(model, audio):
                weights = [[] for _ in model.decoder.blocks]
                def hook_attention(layer, ins, outs, index):
                    w = outs[-1][:, :, -1:, :]
                    weights[index].append(w.cpu())
                    #                     ^^^^^^^
                for j, block in enumerate(model.decoder.blocks):
                    block.cross_attn.register_forward_hook(
                        lambda layer, ins, outs, index=j: hook_attention(layer, ins, outs, index)
                    )
                return model.transcribe(audio), weights
            def capture(model, store):
                def make_hook(name):
                    def hook(module, args, output):
                        store[name] = output.detach().cpu()
                        #             ^^^^^^^^^^^^^^^^^^^^^
                    return hook
                for name, module in model.named_modules():
                    module.register_forward_hook(make_hook(name))
            """
        ),
        # Session 34 (precision34): the VALID annotator helper's twin: called in the
        # ``__call__``'s loop over scales, the helper runs per scale, and so does its copy.
        Invalid(
            """
            import numpy as np
            import torch
            from PIL import Image
            def estimate_depth(image, model):
                x = torch.from_numpy(image).unsqueeze(0).to("cuda")
                with torch.no_grad():
                    depth = model(x)
                return depth.squeeze().cpu().numpy()
                #      ^^^^^^^^^^^^^^^^^^^^^
            class LeresDetector:
                def __call__(self, input_image, scales):
                    image = np.array(input_image, dtype=np.uint8)
                    depths = [estimate_depth(image[::s, ::s], self.model) for s in scales]
                    return Image.fromarray(np.mean(depths, axis=0))
            """,
            message_contains="`.cpu()` of `depth.squeeze()`",
        ),
        # Session 37 (precision37): a generator annotated ``Iterator[np.ndarray]`` yields per
        # step of its loop, and a torch module's ``forward`` that returns numpy is still run by
        # its callers, maybe per step: both stay reported.
        Invalid(
            """
            from collections.abc import Iterator
            import numpy as np
            import torch
            class Streamer:
                def stream(self, chunks) -> Iterator[np.ndarray]:
                    for chunk in chunks:
                        wave = self.decoder(chunk.to("cuda"))
                        yield wave.cpu().numpy()
                        #     ^^^^^^^^^^
            """,
            message_contains="`.cpu()` of `wave`",
        ),
        # Session 38 (outputs38b): the twins of the valid FrameVAD stay reported: Python ids
        # (a sampler's `.tolist()`), a copy per item of a loop, a function named for a step,
        # a loss module's forward (per training step).
        Invalid(
            """
            import torch
            class Sampler(torch.nn.Module):
                def forward(self, logits):
                    ids = torch.argmax(logits, dim=-1)
                    return ids.cpu().numpy().tolist()
                    #      ^^^^^^^^^
            """,
            message_contains="`.cpu()` of `ids`",
        ),
        Invalid(
            """
            import torch
            class Streamer(torch.nn.Module):
                def forward(self, chunks):
                    outs = []
                    for chunk in chunks:
                        wave = self.model(chunk)
                        outs.append(wave.cpu().numpy())
                        #           ^^^^^^^^^^
                    return outs
            """,
            message_contains="`.cpu()` of `wave`",
        ),
        # Session 39 (calls39): a vocoder whose object is called per chunk in a streaming loop
        # (``self.vocoder(chunk)``): its copy runs per chunk. Its twin called once after a
        # pipeline's loop is left alone only with the project index (tests/test_once_outputs.py).
        Invalid(
            """
            import torch
            class Vocoder(torch.nn.Module):
                def forward(self, mel):
                    wave = self.net(mel)
                    return wave.cpu()
                    #      ^^^^^^^^^^
            class SpeechPipeline:
                def __init__(self, vocoder: Vocoder):
                    self.vocoder = vocoder
                def stream(self, text):
                    for chunk in self.acoustic(text).split(16):
                        yield self.vocoder(chunk)
            """,
            message_contains="`.cpu()` of `wave`",
        ),
        Invalid(
            """
            class Policy:
                def act_step(self, obs):
                    action = self.actor(obs).tanh()
                    return action.cpu().numpy()
                    #      ^^^^^^^^^^^^
            """,
            message_contains="`.cpu()` of `action`",
        ),
        Invalid(
            """
            import torch
            class AdversarialLoss(torch.nn.Module):
                def forward(self, wav):
                    pred = self.model(wav)
                    loss = self.disc(pred).mean()
                    return loss, pred.detach().cpu().numpy()
                    #            ^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="`.cpu()` of `pred.detach()`",
        ),
        # Session 33 (recall33b, rsl-rl 5.5.1's `EmpiricalNormalization.update`): a registered
        # buffer moves with its module (`.to(device)`), wherever `__init__` built it: its test
        # every call reads the device when the module is on the GPU (MEDIUM).
        Invalid(
            """
            import torch
            class Normalizer(torch.nn.Module):
                def __init__(self, until: int):
                    super().__init__()
                    self.until = until
                    self.register_buffer("count", torch.tensor(0))
                def forward(self, x):
                    if self.count >= self.until:
                    #  ^^^^^^^^^^
                        return x
                    self.count += x.shape[0]
                    return x * 2
            """,
            message_contains="`self.count` as an `if` test",
        ),
        # Session 34 (recall34, fla-core 0.5.0's `prepare_chunk_indices`): `triton.cdiv(a, b)`
        # is `(a + b - 1) // b`; of a tensor it is a tensor on that tensor's device, and its
        # `.tolist()` on a hot path reads the device lengths back on every call.
        Invalid(
            """
            import torch
            import triton
            def chunk_indices(cu_seqlens: torch.Tensor, chunk_size: int):
                lens = torch.diff(cu_seqlens)
                counts = triton.cdiv(lens, chunk_size).tolist()
                #        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return torch.cat([torch.arange(n) for n in counts]).to(cu_seqlens)
            class Chunked(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x, cu_seqlens, chunk_size):
                    return x[chunk_indices(cu_seqlens, chunk_size)]
            """,
            message_contains="`.tolist()`",
        ),
        # Session 33 (recall33b, ring-flash-attn 0.1.8's `get_half_index`): an autograd
        # `Function` saves only tensors with `save_for_backward`, so the `cu_seqlens` its
        # `forward` saves is a tensor, and so is the helper's parameter it is passed to.
        Invalid(
            """
            import torch
            def half_index(cu_seqlens):
                return torch.zeros((cu_seqlens[-1].item(),), dtype=torch.bool)
                #                   ^^^^^^^^^^^^^^^^^^^^^
            class ZigZag(torch.autograd.Function):
                @staticmethod
                def forward(ctx, q, cu_seqlens):
                    index = half_index(cu_seqlens)
                    ctx.save_for_backward(q, cu_seqlens)
                    return q[index]
                @staticmethod
                def backward(ctx, dout):
                    return dout, None
            """,
            message_contains="`.item()` of `cu_seqlens[-1]`",
        ),
        # Session 33 (precision33): a Ray actor declared with `num_gpus=1` has a GPU, so its
        # tensors may be on it and each step's `.item()` may wait. Its look-alike, a bare
        # `@ray.remote` (no GPU: `CUDA_VISIBLE_DEVICES=""`), needs the project index to see
        # every subclass and creation site: tests/test_precision_fixes_s33.py
        Invalid(
            """
            import ray
            import torch
            class BaseTrainer:
                def train_step(self, experiences):
                    rewards = torch.cat([e.reward for e in experiences])
                    return {"reward_mean": rewards.float().mean().item()}
                    #                      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            @ray.remote(num_gpus=1)
            class Trainer(BaseTrainer):
                def fit(self):
                    for batch in self.batches:
                        self.train_step(batch)
            """
        ),
        # Session 33 (recall33): Python calls `bool()` of the left operand of `and`/`or`
        # (and of `not`'s) outside a test too: the best-score check of a beam step
        Invalid(
            """
            import torch
            class Beam(torch.nn.Module):
                def __init__(self, device):
                    super().__init__()
                    self.best = torch.zeros(4, device=device)
                def forward(self, scores, done):
                    stop = (scores[0] <= self.best[0]) or all(done)
                    #       ^^^^^^^^^^^^^^^^^^^^^^^^^
                    return stop
            """,
            message_contains="as an `or` operand",
        ),
        # Session 33: the twin of the numpy alias above: the project's alias names a tensor,
        # whose `.tolist()` every batch is a sync if it is on the GPU (MEDIUM).
        Invalid(
            """
            from typing import Protocol
            import numpy as np
            import torch
            NDArray = torch.Tensor
            class AlgoProtocol(Protocol):
                def predict_value(self, x: NDArray, action: NDArray) -> NDArray: ...
            class SoftOPCEvaluator:
                def __call__(self, algo: AlgoProtocol, dataset) -> float:
                    all_values = []
                    for episode in dataset.episodes:
                        for batch in episode.batches():
                            values = algo.predict_value(batch.observations, batch.actions)
                            all_values += values.reshape(-1).tolist()
                            #             ^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return float(np.mean(all_values))
            """,
            message_contains="if `values` is on the GPU",
        ),
        # Session 32 (recall32: openrlhf 0.11.2's reward-model trainer): a loss module chosen
        # by branch (`PairWiseLoss()` or `LogExpLoss()`, both `nn.Module`s) returns a tensor
        # where its inputs are; its `.item()` every step is a sync (VALID twin: a host scorer).
        Invalid(
            """
            import torch
            from torch import nn
            class PairLoss(nn.Module):
                def forward(self, a, b):
                    return -torch.nn.functional.logsigmoid(a - b).mean()
            class LogExpLoss(nn.Module):
                def forward(self, a, b):
                    return torch.log(1 + torch.exp(b - a)).mean()
            class Trainer:
                def __init__(self, kind):
                    if kind == "sigmoid":
                        self.loss_fn = PairLoss()
                    else:
                        self.loss_fn = LogExpLoss()
                def fit(self, model, optimizer, batches):
                    for x, y in batches:
                        loss = self.loss_fn(model(x), model(y))
                        optimizer.step()
                        self.total += loss.item()
                        #             ^^^^^^^^^^^
            """
        ),
        # Session 32 (recall32): the VALID host-library hand-off's twin: a value the metric
        # computed on the device (not its input) copied for the library, every batch.
        Invalid(
            """
            import torch
            from torchmetrics import Metric
            def matched(cost: torch.Tensor):
                from scipy.optimize import linear_sum_assignment
                return linear_sum_assignment(cost.softmax(-1).cpu().numpy())
                #                            ^^^^^^^^^^^^^^^^^^^^^^
            class Matching(Metric):
                def update(self, preds: torch.Tensor, target: torch.Tensor):
                    self.pairs.append(matched(preds @ target.T))
            """,
            message_contains="called from `Matching.update()`",
        ),
        # Session 32 (recall32): the VALID CPU test's twin: the arm for CUDA runs on a GPU.
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x: torch.Tensor):
                    if x.device == torch.device("cuda"):
                        if not torch.all((x >= 0) * (x <= 1)):
                        #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                            x = x.sigmoid()
                    return x
            """
        ),
        # Session 31 (mine31: torchrec 1.5.1's segmented NE): a torchmetrics-style metric's
        # `update()` runs once per batch; `torch.unique` and boolean-mask indexing of the
        # batch's device tensors in it (or in a helper it calls) sync the host every batch.
        Invalid(
            """
            import torch
            from torchmetrics import Metric
            class SegmentedNE(Metric):
                def update(self, labels: torch.Tensor, keys: torch.Tensor):
                    for group in torch.unique(keys):
                        #        ^^^^^^^^^^^^^^^^^^
                        self.sums[group] += labels[keys == group].sum()
                        #                   ^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="runs once per batch",
        ),
        # Session 32 (precision32): the VALID tokenizer batch's twin: `enc.to("cuda")` moves a
        # `BatchEncoding`'s tensors in place, so its fields may be on the GPU after it
        Invalid(
            """
            import torch
            def preprocess(tokenizer, text, return_tensors: str = "pt"):
                enc = tokenizer(text, return_tensors=return_tensors, padding=True)
                enc.to("cuda")
                labels = torch.full_like(enc.input_ids, -100)
                if (labels != -100).any().item():
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    enc["labels"] = labels
                return enc
            class Policy(torch.nn.Module):
                def forward(self, text):
                    batch = preprocess(self.tokenizer, text)
                    return self.model(**batch)
            """,
        ),
        # Session 31 (mine31): the VALID unpacked mask fills' twin: tensors of values written
        # through masks by an unpacking assignment sync once per element written.
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, ranks: torch.Tensor, fill_a: torch.Tensor, fill_b: torch.Tensor):
                    a, b = self.discounts(ranks)
                    (a[ranks <= 0], b[ranks <= 0]) = (fill_a, fill_b)
                    #^^^^^^^^^^^^^
                    #               ^^^^^^^^^^^^^
                    return a, b
            """,
        ),
        # Session 31 (recall31): `max(loss, self.best)` of a device loss: Python compares the
        # 0-d tensor with the float and asks `bool()` of the result, a sync every forward.
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    loss = x.cuda().pow(2).mean()
                    self.best = max(loss, self.best)
            #                   ^^^^^^^^^^^^^^^^^^^^
                    return loss
            """
        ),
        # Session 30: the VALID eval driver's twin: a top-level attention function (an
        # `attention` word not after a driver's verb) runs per layer and forward pass
        Invalid(
            """
            import torch
            def _sink_attention(q, k, v, lengths):
                longest = lengths.max().item()
                #         ^^^^^^^^^^^^^^^^^^^^
                return torch.softmax(q @ k[:, :longest].transpose(-1, -2), dim=-1) @ v[:, :longest]
            """,
            message_contains="runs in every attention call",
        ),
        # Session 30 (recall30: botorch 0.9.5's elliptical slice sampler): a pair unpacked from
        # a helper whose every return is a pair of tensors (whatever its annotation says); the
        # test of an element of one is a sync per sampler step.
        Invalid(
            """
            import torch
            from torch import Tensor
            class Sampler:
                def step(self, nu: Tensor) -> Tensor:
                    theta, delta = self._active(nu)
                    if delta[0] == -1:
                       ^^^^^^^^
                        theta = torch.cat((theta[1:], theta[:1]))
                    return theta
                def _active(self, theta: Tensor) -> Tensor:
                    if len(theta) < 2:
                        empty = torch.tensor([], device=theta.device)
                        return empty, empty
                    d = (theta > 0).to(dtype=int).diff()
                    return theta, d
            """
        ),
        # Session 30 (recall30: OpenNMT-py 3.4.3's greedy search): `self.is_finished` is a
        # tensor in every assignment of its class (`topk_ids.eq(...)`, a method only tensors
        # have) and a mask (so is its view), so its `nonzero()` and a gather with it in a
        # per-step method are syncs. (The strategy's
        # `update_finished` is per step through the decoding loop of the translator that is
        # handed it: tests/test_recall_s30.py, through the project index.)
        Invalid(
            """
            import torch
            class GreedySearch:
                def advance(self, log_probs):
                    topk_ids, self.topk_scores = self._pick(log_probs)
                    self.is_finished = topk_ids.eq(self.eos)
                    self.alive_seq = torch.cat([self.alive_seq, topk_ids], -1)
                def step(self):
                    finished = self.is_finished.view(-1).nonzero()
                               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    self.alive_seq = self.alive_seq[~self.is_finished.view(-1)]
                                     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return finished
            """
        ),
        Invalid(
            """
            import torch
            from torchvision.utils import save_image
            def train(model, loader, opt, log):
                for step, batch in enumerate(loader):
                    images = model(batch.to("cuda"))
                    grid = images.detach().cpu()
                           ^^^^^^^^^^^^^^^^^^^^^
                    if step % 100 == 0:
                        save_image(grid, f"sample_{step}.png")
                    loss = images.mean()
                    loss.backward()
                    opt.step()
                    total = loss.detach().cpu()
                            ^^^^^^^^^^^^^^^^^^^
                    log.write(f"loss {total}")
            """
        ),
        # Session 41 (agilerl 2.50's DPO and SFT loops): the backward pass runs in a helper the
        # loop hands its loss to; each micro-batch's reads wait for it (2.58 reads them once).
        Invalid(
            """
            class DPO:
                def learn(self, batches, metrics):
                    for batch in batches:
                        loss, reward = self._dpo_loss(batch)
                        self._backward_pass(loss)
                        metrics["loss"] += loss.item()
                                           ^^^^^^^^^^^
                        metrics["reward"] += reward.mean().item()
                                             ^^^^^^^^^^^^^^^^^^^^
            """
        ),
        # Session 28 (held out: eole 0.4.0's generator): a loop over a range of decoding steps
        # whose own body runs the model is per step wherever it is, and a read of a device
        # tensor in it waits for the step the iteration queued.
        Invalid(
            """
            import torch
            class GeneratorLM:
                def _predict_batch_with_strategy(self, batch, decode_strategy):
                    src_len = batch["srclen"].to("cuda")
                    for step in range(decode_strategy.max_length):
                        position = step + max(src_len.tolist())
            #                                 ^^^^^^^^^^^^^^^^
                        log_probs = self._decode_and_generate(decode_strategy.current, position)
                        decode_strategy.advance(log_probs)
                        if decode_strategy.any_finished:
                            self.model.decoder.map_state(decode_strategy.select_indices)
            """,
            message_contains="a loop of steps whose every iteration runs a model",
        ),
        # Session 49 (fp202w49): the host-fed loop's twins: the step's inputs made with a
        # device, or moved there, and a loop whose model gets only what was moved before it.
        Invalid(
            """
            import torch
            class Seq2Seq:
                def generate(self, input_ids, max_seq_len):
                    ids = input_ids
                    for i in range(max_seq_len - 1):
                        pos = torch.tensor([i], device=ids.device)
                        logits = self.forward(ids, pos)
                        tok = torch.argmax(logits[:, -1, :], dim=-1).item()
            #                 ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                        ids = torch.tensor([[tok]]).to(ids.device)
                def greedy(self, ids, n):
                    for i in range(n):
                        logits = self.model(ids)
                        tok = logits[:, -1].argmax(-1).item()
            #                 ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                        ids = torch.cat([ids, logits[:, -1:].argmax(-1)], dim=-1)
            """,
            message_contains="a loop of steps whose every iteration runs a model",
        ),
        # Session 27 (precision27): a helper that ``__call__`` reaches only from its loop runs
        # once per generated token, not once per request: its copy stays a sync per step.
        Invalid(
            """
            import torch
            class Generator:
                def _next_token(self, ids):
                    return self.model(ids)[:, -1].argmax(-1).cpu().numpy()
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                def __call__(self, prompt):
                    ids = torch.from_numpy(prompt).to(self.device)
                    out = []
                    while len(out) < self.max_new_tokens:
                        out.append(self._next_token(ids))
                    return out
            """
        ),
        # Session 26 (heldout26): a loss summed from a dict of terms has no tensor evidence but
        # the ``.backward()`` called on it: its ``.item()`` every training step is a sync
        # (fairchem 2.18's ``self.last_loss = scalar_loss.item()``; 2.24 keeps it on the device).
        Invalid(
            """
            class Unit:
                def train_step(self, state, data):
                    loss_dict = self.compute_loss(self.model(data), data)
                    scalar_loss = sum(loss_dict.values())
                    scalar_loss.backward()
                    self.optimizer.step()
                    self.last_loss = scalar_loss.item()
                                     ^^^^^^^^^^^^^^^^^^
            """
        ),
        # Session 42 (rebind42): gradient accumulation rebinds the loss by arithmetic on itself
        # (gliner2 1.3.2's trainer): ``loss.backward()`` still proves it a tensor, and its
        # ``.item()`` every step is a sync (2.1.0 sums on the device, reads once per period).
        Invalid(
            """
            class Trainer:
                def train(self, loader):
                    tr_loss = 0.0
                    for batch in loader:
                        loss = self.model(batch)["total_loss"]
                        if self.accumulation_steps > 1:
                            loss = loss / self.accumulation_steps
                        loss.backward()
                        tr_loss += loss.item()
                                   ^^^^^^^^^^^
            """
        ),
        # Session 25 (unpack25): names unpacked from a helper whose every return is a display
        # of tensors made on the device are on the device, each by its position: the test of
        # one per step is a sync (it was missed), the read of the other a certain one.
        Invalid(
            """
            import torch
            class Decoder(torch.nn.Module):
                def _init_state(self, batch: int):
                    lengths = torch.zeros(batch, dtype=torch.long).cuda()
                    finished = torch.zeros(batch, dtype=torch.bool).cuda()
                    return lengths, finished
                def forward(self, x):
                    lengths, finished = self._init_state(x.shape[0])
                    for step in range(self.max_steps):
                        x = self.step(x)
                        lengths += 1
                        if finished.sum() == len(finished):
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                            break
                        n = lengths.max().item()
                            ^^^^^^^^^^^^^^^^^^^^
                    return x, n
            """
        ),
        # Session 25 (variants25s): a file whose only host read is `torch.where` of one
        # argument (`nonzero`) had no prefilter marker and was never checked.
        Invalid(
            """
            import torch
            class Router(torch.nn.Module):
                def forward(self, topk_ids: torch.Tensor, expert: int):
                    token_idx, _ = torch.where(topk_ids == expert)
                                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return token_idx
            """
        ),
        # Session 24 (held out: botorch 0.9's linear elliptical slice sampler, every step): the
        # `nonzero()` of the changes of a feasibility mask, `.diff()` of a tensor a method of the
        # class annotates; a tensor's method returns a tensor.
        Invalid(
            """
            import torch
            from torch import Tensor
            class Sampler:
                def _is_feasible(self, points: Tensor) -> Tensor:
                    return (self.A @ points <= self.b).all(dim=0)
                def step(self, samples):
                    delta = self._is_feasible(samples).to(dtype=int).diff()
                    return delta.nonzero()
                    #      ^^^^^^^^^^^^^^^
            """,
        ),
        # Session 23: a device counter updated in place (`self.ptr += 1`) stays on the device;
        # a host one (`torch.zeros(())`) stays on the host (a VALID twin in the tests).
        Invalid(
            """
            import torch
            class ReplayBuffer:
                def __init__(self, capacity):
                    self.ptr = torch.zeros((), dtype=torch.long, device="cuda")
                def training_step(self, batch):
                    slot = self.ptr.item()
            #              ^^^^^^^^^^^^^^^
                    self.ptr += 1
                    return slot
            """
        ),
        # Session 22 (heldout22): an implicit read in a validation step stalls the pass without
        # being its output: still reported.
        Invalid(
            """
            import torch
            from lightning import LightningModule
            class Codec(LightningModule):
                def validation_step(self, batch, batch_idx):
                    audio, lengths = batch
                    audio_hat = self(audio)
                    if torch.isnan(audio_hat).any():
            #          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                        raise ValueError("nan")
                    self.log("loss", self.loss(audio_hat, audio))
            """
        ),
        # Session 22 (heldout22): an engine's per-step `decode()` calls the model once, with no
        # loop of its own: all of it is hot; a chunked decode's loop still runs per chunk.
        Invalid(
            """
            import torch
            class Runner:
                def decode(self, batch):
                    logits = self.model(batch.input_ids)
                    return logits.argmax(-1).tolist()
            #              ^^^^^^^^^^^^^^^^^^^^^^^^^^
            class Codec:
                def decode(self, codes, chunk=2048):
                    out = []
                    for i in range(0, codes.shape[-1], chunk):
                        r = self.model.decode(codes[..., i:i + chunk])
                        if torch.isnan(r).any():
            #              ^^^^^^^^^^^^^^^^^^^^
                            r = torch.nan_to_num(r)
                        out.append(r)
                    return torch.cat(out, -1)
            """
        ),
        # Session 23 (precision23): an engine's per-step `sample()` that calls the model (not
        # a generation entry) is a step: still reported.
        Invalid(
            """
            import torch
            class Engine:
                def sample(self, batch):
                    logits = self.model(batch.input_ids)
                    return logits.argmax(-1).cpu()
            #              ^^^^^^^^^^^^^^^^^^^^^^^
            """
        ),
        # A value filled in when missing (`if amax is None: amax = x.abs().amax()`): the
        # default says the name holds a tensor (nvidia-modelopt 0.33's FP8 GEMM, per forward).
        Invalid(
            """
            import torch
            class Fp8Linear(torch.nn.Module):
                def forward(self, x):
                    amax = self.input_quantizer.amax
                    if amax is None:
                        amax = x.abs().amax()
                    if amax == 0:
                    #  ^^^^
                        return x
                    return x / amax
            """
        ),
        # Session 22 (recall22a, deepspeed 0.12.6-0.14.0): a norm read per tensor of a list
        # of unknown device that HTD201 does not report (its items are no rows of a tensor)
        # is this rule's; a typed tensor class (`torch.cuda.FloatTensor`, an accelerator's
        # `FloatTensor`) and `.double()` prove a tensor; an engine's `backward()` runs per step
        Invalid(
            """
            import torch
            def global_norm(input_tensors):
                return sum([t.data.float().norm(2).item() ** 2 for t in input_tensors])
                #           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            class ZeroOptimizer:
                def step(self):
                    total = global_norm(self.grads)
                    total_cuda = get_accelerator().FloatTensor([float(total)])
                    dist.all_reduce(total_cuda)
                    total = total_cuda[0].item()
                    #       ^^^^^^^^^^^^^^^^^^^^
                    scale = torch.cuda.FloatTensor([total])
                    dist.all_reduce(scale)
                    self.scale = scale.item()
                    #            ^^^^^^^^^^^^
            class Engine:
                def backward(self, loss):
                    self.losses += loss.mean().item()
                    #              ^^^^^^^^^^^^^^^^^^
                    loss.backward()
            """
        ),
        # Session 21 (recall21b): a custom operator's kernel runs on every call of the operator
        # (nvidia-modelopt 0.33's dynamic block fake-quant read `amax.item()` per forward); a
        # forward patched onto modules by a helper runs on every call, and so do the closures
        # of its factory that it calls (modelopt 0.37's AWQ-lite loss read once per alpha).
        Invalid(
            """
            import torch
            def _block_quant_impl(inputs: torch.Tensor, amax: torch.Tensor):
                return fake_quant_block(inputs, amax.item())
                #                               ^^^^^^^^^^^
            torch.library.impl("trt::block_quant", ["cpu", "cuda"])(_block_quant_impl)
            def awq_lite(model):
                def update_loss(self, out, out_actual, alpha):
                    self.loss[alpha] += (out - out_actual).float().pow(2).mean().item()
                    #                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                def forward(self, x):
                    out_actual = self._forward_no_awq(x)
                    for alpha in self.loss:
                        update_loss(self, self._forward_no_awq(x), out_actual, alpha)
                    return out_actual
                for module in model.modules():
                    bind_forward_method(module, forward, "_forward_no_awq")
            """
        ),
        # Session 21 (exllamav3 1.4.0's MLA attention): the entry made when it is missing from
        # a mapping the forward is given (the params its layers share) is made every forward
        Invalid(
            """
            import torch
            class MLAttention(torch.nn.Module):
                def forward(self, x, params):
                    cache_seqlens = params.get("cache_seqlens")
                    host_seqlens = params.get("_host_seqlens")
                    if host_seqlens is None:
                        host_seqlens = cache_seqlens.cpu().tolist()
                                       ^^^^^^^^^^^^^^^^^^^
                        params["_host_seqlens"] = host_seqlens
                    return self.attend(x, host_seqlens)
            """,
            message_contains="`.cpu()` of `cache_seqlens`",
        ),
        # Session 21's twin of the host-copy fallback: the test reads the synced tensor
        # itself, so on a GPU its `else` runs on every call
        Invalid(
            """
            import torch
            class MLAttention(torch.nn.Module):
                def forward(self, x, lens: torch.Tensor):
                    if lens.device.type == "cpu":
                        host = lens.tolist()
                    else:
                        host = lens.cpu().tolist()
                               ^^^^^^^^^^
                    return self.attend(x, host)
            """,
            message_contains="`.cpu()` of `lens`",
        ),
        # Session 21 (lead): the `else` of a test for another accelerator (`"xpu"`) runs on
        # CUDA on every call: no host-copy fallback (ipex-llm's MoE decode, labelled true)
        Invalid(
            """
            import torch
            class MoE(torch.nn.Module):
                def forward(self, x, topk_ids: torch.Tensor):
                    if x.device.type == "xpu":
                        return self.fused(x, topk_ids)
                    idxs = topk_ids.flatten().tolist()
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return [self.experts[i](x) for i in idxs]
            """,
        ),
        # Session 21 (exllamav3 0.0.20's MoE): a permuted one-hot mask is a tensor, and
        # `torch.where(mask)` is a `nonzero`: one sync per expert
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            class SparseMoE(torch.nn.Module):
                def forward(self, y, selected):
                    out = torch.zeros_like(y)
                    expert_mask = F.one_hot(selected, num_classes=self.n).permute(2, 1, 0)
                    for e in range(self.n):
                        idx, top_x = torch.where(expert_mask[e])
                                     ^^^^^^^^^^^^^^^^^^^^^^^^^^^
                        out.index_add_(0, top_x, self.experts[e](y[top_x]))
                    return out
            """,
            message_contains="`torch.where()` of `expert_mask[e]`",
        ),
        # Session 26 (misses26): outputs of a module unpacked into names are on the module's
        # device, as `self.rnn(x)[0]` is: torch's and libraries' modules by that rule, the
        # project's by what the returns of its `forward` give at each position.
        Invalid(
            """
            import torch
            class Encoder(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.proj = torch.nn.Linear(16, 16)
                    self.norm = torch.nn.LayerNorm(16)
                def forward(self, x):
                    return self.proj(x), self.norm(x)
            class Tagger(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.rnn = torch.nn.LSTM(16, 16)
                    self.encoder = Encoder()
                def forward(self, x):
                    out, (h, c) = self.rnn(x)
                    feats, normed = self.encoder(out)
                    if feats.isnan().any():
                       ^^^^^^^^^^^^^^^^^^^
                        return None
                    logits, _ = self.rnn(normed)
                    return logits.argmax(-1).tolist()
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="`logits.argmax(-1)` is on the device",
        ),
        # Session 21's twin: a module's output (no session run) is on the device
        Invalid(
            """
            import torch
            class Extractor(torch.nn.Module):
                def forward(self, feat):
                    out = self.model(feat)[0].flatten().tolist()
                          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return out
            """
        ),
        # Session 20 (ultralytics 8.4.100's Dice loss): bincount reads the maximum to size
        # its output, a sync even with minlength=
        Invalid(
            """
            import torch
            class SegLoss(torch.nn.Module):
                def forward(self, preds, masks):
                    valid = masks.reshape(-1) != 255
                    target = torch.where(valid, masks.reshape(-1), 0).long()
                    return torch.bincount(target, minlength=self.nc)
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="`bincount()` of `target`",
        ),
        # Session 19's twin: each step's token copied in the loop to stream its text
        Invalid(
            """
            import torch
            class Engine:
                def process_step(self, tokenizer, ids_per_layer):
                    for ids in ids_per_layer:
                        next_ids = self.model(ids).argmax(-1)
                        text = tokenizer.decode(next_ids.cpu())
                                                ^^^^^^^^^^^^^^
                        self.stream(text)
            """
        ),
        # Session 19's twin: the class sets the field from a tensor's reduction
        Invalid(
            """
            import torch
            def aux_loss(logits: torch.Tensor, num_experts: torch.Tensor = None):
                probs = logits.softmax(-1)
                return probs.reshape(-1, num_experts).mean(0)
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            class MoE(torch.nn.Module):
                def __init__(self, config):
                    super().__init__()
                    self.num_experts = config.num_local_experts
                def forward(self, x, counts):
                    self.num_experts = counts.max()
                    logits = self.gate(x)
                    return x, aux_loss(logits, self.num_experts)
            """
        ),
        # its twins: a value computed from the action, and an action kept for a history
        Invalid(
            """
            import torch
            class Env:
                def _step(self, tensordict):
                    action = tensordict.get("action")
                    probs = self.policy(action).softmax(-1).cpu().numpy()
                            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    obs, reward, done, info = self._env.step(probs)
                    self.history.append(action.cpu().numpy())
                                        ^^^^^^^^^^^^
                    return obs
            """
        ),
        # Session 18's twins: `x.is_cuda and ...` runs on CUDA, and a count of what is left
        # (`num_steps > 0`) is no counter of steps done
        Invalid(
            """
            import torch
            from lightning import LightningModule
            class Router(torch.nn.Module):
                def forward(self, x: torch.Tensor, top_k_index: torch.Tensor):
                    flat = top_k_index.reshape(-1)
                    if flat.is_cuda and int(flat.max()) >= self.num_experts:
                                        ^^^^^^^^^^^^^^^
                        raise ValueError("bad expert id")
                    return self.experts(x, flat)
            class Task(LightningModule):
                def training_step(self, batch, batch_idx):
                    X, y = batch
                    y_pred = self.model(X)
                    if self.num_steps > 0:
                        return y_pred
                    return y_pred.cpu().numpy()
                           ^^^^^^^^^^^^
            """
        ),
        # Session 17's twins: a value computed from the input (a model's argmax) handed to
        # numpy, the input copied to the host without leaving PyTorch, the input's numpy copy
        # given back to PyTorch (`pack_padded_sequence` of lengths the caller could keep on the
        # host), a round trip (scikit-learn's labels made on the device again), and a torch
        # module's forward handing its input (a model's output) to host code.
        Invalid(
            """
            import torch
            class Sampler(torch.nn.Module):
                def forward(self, logits: torch.Tensor):
                    ids = logits.argmax(dim=-1).cpu().numpy()
                          ^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return self.detokenize(ids)
            class Encoder(torch.nn.Module):
                def forward(self, lengths: torch.Tensor):
                    host = lengths.cpu()
                           ^^^^^^^^^^^^^
                    return self.pack(host)
            class Tacotron2Encoder(torch.nn.Module):
                def forward(self, x: torch.Tensor, input_lengths: torch.Tensor):
                    input_lengths = input_lengths.cpu().numpy()
                                    ^^^^^^^^^^^^^^^^^^^
                    x = torch.nn.utils.rnn.pack_padded_sequence(x, input_lengths)
                    return self.lstm(x)
            class HostSampler(torch.nn.Module):
                def forward(self, probs: torch.Tensor):
                    return self.sample_on_host(probs.cpu().numpy())
                                               ^^^^^^^^^^^
            class KMeansLabels(torch.nn.Module):
                def forward(self, input: torch.Tensor):
                    labels = self.kmeans.predict(input.detach().cpu().numpy())
                                                 ^^^^^^^^^^^^^^^^^^^^
                    return torch.tensor(labels, device=self.device).long()
            """
        ),
        # Session 16's twins: a replacement attention `forward(self, ...)` that its factory
        # returns (model patching: it runs on every call of the module it is bound to); a KV
        # cache dict whose end index the forward writes with `fill_` (so it is a tensor) and
        # reads with `.item()`; a loss averaged by a process group's `all_reduce` and read; an MoE
        # dispatcher's gathered indices, a tensor by their `masked_select`, and their mask.
        Invalid(
            """
            from typing import Optional
            import torch
            def get_attention_forward(cfg):
                def forward(self, hidden, position_ids: Optional[torch.LongTensor] = None):
                    n = max(hidden.shape[1], position_ids[:, -1].max().item()) + 1
                                             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return self.rotary(hidden, n)
                return forward
            class SelfAttention(torch.nn.Module):
                def forward(self, q, kv_cache, current_end):
                    end = kv_cache["end"].item() + current_end
                          ^^^^^^^^^^^^^^^^^^^^^^
                    kv_cache["end"].fill_(end)
                    return q
            class Trainer:
                def train_one_step(self, batch):
                    avg_loss = self.model(batch).mean().detach()
                    avg_loss = self.world_group.all_reduce(avg_loss, op=None)
                    batch.total_loss += avg_loss.item()
                                        ^^^^^^^^^^^^^^^
                    return batch
            class Dispatcher:
                def forward(self, hidden, max_ind):
                    global_indices = self.gather(max_ind)
                    mask = (global_indices >= self.lo) & (global_indices <= self.hi)
                    local_indices = global_indices.masked_select(mask)
                                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    local_map = mask.nonzero()[:, 0]
                                ^^^^^^^^^^^^^^
                    return local_indices, local_map
            """,
        ),
        # A mask handed to a helper: unpacked from what a method of the module returns, and
        # passed as an argument by every call of the helper that indexes with it (unsloth
        # 2026.10.4's block-diffusion loss gathered `hidden[masked]` every step).
        Invalid(
            """
            import torch
            class Objective:
                def sample_noise(self, clean):
                    masked = torch.rand(clean.shape, device="cuda") < 0.5
                    return torch.where(masked, 0, clean), masked
                def compute_loss(self, model, inputs):
                    clean = torch.zeros(4, 8, device="cuda")
                    noisy, masked = self.sample_noise(clean)
                    return self.loss_from_noise(model(noisy), clean, masked)
                def loss_from_noise(self, hidden, clean, masked):
                    logits = hidden[masked].float()
                             ^^^^^^^^^^^^^^
                    return logits.sum() + clean[masked].sum()
                                          ^^^^^^^^^^^^^
            """
        ),
        # A CUDA graph runner's replay closure, defined in `__init__`, stored on `self` (also
        # wrapped: `functools.wraps(m)(_call)`) and called by `__call__` on every call; and a
        # sampler's step objects, called through a list with a state object whose class each
        # step's `run` is annotated with: the calls run them per call, whichever they are.
        Invalid(
            """
            import functools
            from dataclasses import dataclass
            import torch
            class GraphRunner:
                def __init__(self, module, device):
                    self.device = device
                    def _call(x):
                        x = x.to(self.device, non_blocking=True)
                        torch.cuda.synchronize(self.device)
                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                        self.graph.replay()
                        return self.static_out
                    self._call_func = functools.wraps(module)(_call)
                def __call__(self, x):
                    return self._call_func(x)
            @dataclass
            class State:
                probs: torch.Tensor | None = None
            class Step:
                def run(self, state: State):
                    temp = torch.argmax(state.probs, dim=-1)
                    state.sampled = state.probs[0, temp].item()
                                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^
            class Sampler(torch.nn.Module):
                def __init__(self, steps):
                    super().__init__()
                    self.steps = steps
                def forward(self, logits):
                    state = State(probs=logits.softmax(-1))
                    for step in self.steps:
                        step.run(state)
                    return logits
            """,
        ),
        # The twin: the helper's caller passes the grid on the device.
        Invalid(
            """
            import torch
            from torch import nn
            class Vision(nn.Module):
                def window_lens(self, grid_thw):
                    lens = (grid_thw != 0).sum(-1)
                    return lens.tolist()
                           ^^^^^^^^^^^^^
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.visual = Vision()
                def prepare_inputs_for_generation(self, images, device):
                    grid_thw = torch.cat([image.grid for image in images]).to(device)
                    return self.visual.window_lens(grid_thw)
            """,
        ),
        # After the loop, a copy kept in a local for more work, and one after a model call that
        # queued work again (the VAE's decode), even though stored on the batch.
        Invalid(
            """
            import torch
            class DenoisingStage(torch.nn.Module):
                def forward(self, batch, timesteps):
                    latents = batch.latents
                    for t in timesteps:
                        latents = self.transformer(latents, t)
                    stats = latents.cpu()
                            ^^^^^^^^^^^^^
                    out = self.vae.decode(latents)
                    batch.decoded = out.cpu()
                                    ^^^^^^^^^
                    return stats
            """,
        ),
        # The same helpers when their switch is not named for debugging or their name does not
        # say so, and a tensor's copy to the host that is kept (assigned).
        Invalid(
            """
            import os
            import torch
            def _dump_args(prefix, x):
                if os.getenv("MODEL_FAST_PATH", "0") != "1" or x is None:
                    return
                return x.float().sum().item()
                       ^^^^^^^^^^^^^^^^^^^^^^
            def _stats(x):
                return x.abs().max().item()
                       ^^^^^^^^^^^^^^^^^^^^
            class Stage(torch.nn.Module):
                def forward(self, x):
                    _dump_args("in", x)
                    _stats(x)
                    out = self.vae(x)
                    self.last = out.cpu()
                                ^^^^^^^^^
                    return out
            """,
        ),
        # Per decoding step (a model's input preparation), per batch (a data loader's
        # iterator).
        Invalid(
            """
            import torch
            import torch.distributed as dist
            class Model(torch.nn.Module):
                def prepare_inputs_for_generation(self, input_ids, small: bool):
                    flag = torch.tensor(0 if small else 1, device=input_ids.device)
                    dist.all_reduce(flag)
                    self.microbatch = flag.item() == 0
                                      ^^^^^^^^^^^
                    return dict(input_ids=input_ids)
            class Loader:
                def __next__(self):
                    batch = next(self.it)
                    lens = torch.tensor(batch["lens"]).cuda()
                    lens = lens[lens != 0]
                           ^^^^^^^^^^^^^^^
                    return batch, lens
            """,
        ),
        # A number read from a tensor of unknown placement and added straight back into a
        # device tensor (megatron-core's pipeline schedules, per microbatch): a round trip.
        Invalid(
            """
            import torch
            def forward_backward_no_pipelining(forward_step, data, n):
                total_num_tokens = torch.zeros([], dtype=torch.int, device="cuda")
                for i in range(n):
                    loss, num_tokens = forward_step(data)
                    total_num_tokens += num_tokens.item()
                                        ^^^^^^^^^^^^^^^^^
                    loss.backward()
                return total_num_tokens
            def forward_backward_pipelining(forward_step, data, n):
                total_num_tokens = torch.tensor(0, dtype=torch.int).cuda()
                def forward_step_helper(i):
                    nonlocal total_num_tokens
                    loss, num_tokens = forward_step(data)
                    total_num_tokens = total_num_tokens + num_tokens.item() / n
                                                          ^^^^^^^^^^^^^^^^^
                    return loss
                for i in range(n):
                    forward_step_helper(i).backward()
                return total_num_tokens
            """,
        ),
        # A check of the input that raises is no period: what follows runs on every call (only
        # `if step % n != 0: return` of a counter of steps leaves the rest to every N-th step).
        Invalid(
            """
            import torch
            class Encoder(torch.nn.Module):
                def forward(self, features, mask, chunk: int):
                    if features.shape[-1] % chunk != 0:
                        raise ValueError("features must be a whole number of chunks")
                    valid = torch.arange(chunk, device=features.device) < mask.sum(-1, keepdim=True)
                    return features.flatten()[valid.flatten().nonzero().squeeze(-1)]
                                              ^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # The test of a branch that raises or warns runs every step: reported; so is a read in
        # a branch that only logs progress (its body goes on), and reads in the arms of
        # conditionals taken for non-empty input or for finite values.
        Invalid(
            """
            import logging
            import torch
            logger = logging.getLogger(__name__)
            class RewardLoss(torch.nn.Module):
                def forward(self, rewards, teacher):
                    missing = torch.isnan(teacher)
                    if missing.any():
                       ^^^^^^^^^^^^^
                        raise ValueError("teacher logprobs are missing")
                    if rewards.shape[0] > 8:
                        logger.warning("large batch")
                        total = rewards.sum().item()
                                ^^^^^^^^^^^^^^^^^^^^
                    if torch.isfinite(rewards).all():
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                        self.total = rewards.sum().item()
                                     ^^^^^^^^^^^^^^^^^^^^
                    return rewards.mean().item() if rewards.numel() > 0 else 0.0
                           ^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # A model call after the generation queues work again: the copy waits for it.
        Invalid(
            """
            import torch
            class Trainer:
                def _score(self, model, inputs):
                    with torch.no_grad():
                        out = model.generate(**inputs)
                    logits = model(out).logits
                    return logits.argmax(-1).cpu()
                           ^^^^^^^^^^^^^^^^^^^^^^^
                def training_step(self, model, inputs):
                    return self._score(model, inputs)
            """,
        ),
        # Session 30 (precision30): a mask of finite elements kept under a name (detectron2's
        # `find_top_rpn_proposals`, vendored by ControlNet annotators: `valid_mask =
        # torch.isfinite(boxes).all(dim=1) & torch.isfinite(scores)`; `if not
        # valid_mask.all():`): the test runs every call and is reported; the arm, which drops
        # rows with Inf/NaN boxes, runs only when training diverged. A mask mixed with another
        # test (`& (scores > t)`) holds in normal runs: its arm is reported (below).
        Invalid(
            """
            import torch
            class RPN(torch.nn.Module):
                def forward(self, boxes, scores, lvl):
                    valid_mask = torch.isfinite(boxes).all(dim=1) & torch.isfinite(scores)
                    if not valid_mask.all():
                           ^^^^^^^^^^^^^^^^
                        boxes = boxes[valid_mask]
                        scores = scores[valid_mask]
                        lvl = lvl[valid_mask]
                    return boxes, scores, lvl
            """,
        ),
        Invalid(
            """
            import torch
            class RPN(torch.nn.Module):
                def forward(self, boxes, scores, threshold: float):
                    keep = torch.isfinite(boxes).all(dim=1) & (scores > threshold)
                    if not keep.all():
                           ^^^^^^^^^^
                        boxes = boxes[keep]
                                ^^^^^^^^^^^
                    return boxes
            """,
        ),
        # A module hook runs on every forward of the module it is registered on (a denoiser's
        # pre-hook: every denoising step).
        Invalid(
            """
            import torch
            def _trim_hook(module, args, kwargs):
                image = kwargs.get("image_embeds")
                if image is not None and bool(torch.all(image == 0).item()):
                                              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    kwargs["image_embeds"] = image[:, :0]
                return args, kwargs
            def install(dit):
                dit.register_forward_pre_hook(_trim_hook, with_kwargs=True)
            """,
        ),
        # A helper of the module that returns `.item()` of its parameter, which every call
        # passes a device tensor (a reduction over ranks of a per-step count): the read is
        # reported in the helper, hot through its caller. (A helper of another module is
        # reported where it is called, with what the call passes.)
        Invalid(
            """
            import torch
            import torch.distributed._functional_collectives as funcol
            def _reduce(x, op, mesh):
                if mesh is None:
                    return x.item()
                           ^^^^^^^^
                return funcol.all_reduce(x, reduceOp=op, group=mesh).item()
            def dist_sum(x, mesh=None):
                return _reduce(x, "sum", mesh)
            class Trainer:
                def train_step(self, labels, mesh):
                    tokens = (labels != -100).sum().to(self.device)
                    return dist_sum(tokens, mesh)
            """,
        ),
        # The same loop outside saving code computes on each copied chunk every iteration; a
        # top-level attention helper that returns tensors is an attention backend's.
        Invalid(
            """
            import torch
            def chunked_loss(chunks, device):
                total = 0.0
                for chunk in chunks:
                    x = chunk.to(device)
                    total += x.sum().cpu()
                             ^^^^^^^^^^^^^
                return total
            def _prepare_attention(q, cu_seqlens: torch.Tensor) -> list[torch.Tensor]:
                return [cu_seqlens.cpu()]
                        ^^^^^^^^^^^^^^^^
            """,
        ),
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
        # Through a list of indices a class of the module declares (`list[int] | None`), or a
        # parameter annotated so: one blocking copy of the number per request.
        Invalid(
            """
            from dataclasses import dataclass
            import torch
            @dataclass
            class Params:
                allowed_token_ids: list[int] | None = None
            class InputBatch:
                def __init__(self, n, vocab, device):
                    self.allowed = torch.zeros(n, vocab, dtype=torch.bool, device=device)
                def prepare_inputs(self, row: int, p: Params, banned: list[int]):
                    if p.allowed_token_ids:
                        self.allowed[row, p.allowed_token_ids] = True
                    #   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    self.allowed[:, banned] = False
                #   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="through a list or tensor of indices",
        ),
        # Session 37 (recall37): LLaVA's per-sample syncs. The rows of a list built one tensor
        # per item are tensors; a name compared inside `torch.where(...)` is one, so its
        # `(ids == X).sum()` is a 0-d tensor, and testing it syncs; each sample's ids are
        # indexed with its row of a boolean mask (`dtype=torch.bool`).
        Invalid(
            """
            import torch
            IMAGE = -200
            class Model(torch.nn.Module):
                def forward(self, input_ids, attention_mask=None):
                    if attention_mask is None:
                        attention_mask = torch.ones_like(input_ids, dtype=torch.bool)
                    else:
                        attention_mask = attention_mask.bool()
                    input_ids = [ids[m] for ids, m in zip(input_ids, attention_mask)]
                    #            ^^^^^^
                    out = []
                    for cur in input_ids:
                        n = (cur == IMAGE).sum()
                        if n == 0:
                        #  ^
                            out.append(cur)
                            continue
                        out.append(torch.where(cur == IMAGE, 0, cur))
                    return out
            """
        ),
        # Session 27 (misses27): through a list a per-request loop unpacks from a parameter's
        # items (`dict[int, tuple[int, list[int]]]`: each request's stop tokens)
        Invalid(
            """
            import torch
            class Sampler:
                def forward(self, n: int, min_tokens: dict[int, tuple[int, list[int]]]):
                    logits = torch.zeros(n, 8, device="cuda")
                    for row, (min_toks, stop_ids) in min_tokens.items():
                        logits[row, stop_ids] = float("-inf")
                    #   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return logits
            """,
            message_contains="through a list or tensor of indices",
        ),
        # Session 29 (chain29): a choice between two GPUs is a GPU.
        Invalid(
            """
            import torch
            class Dispatcher:
                def __init__(self, first: bool, n: int) -> None:
                    self.permute_idx_device = torch.device("cuda:0") if first else "cuda:1"
                    self.idx = torch.arange(n, device=self.permute_idx_device)
                def forward_step(self, x: torch.Tensor) -> torch.Tensor:
                    return torch.cat([x[i] for i in self.idx.tolist()])
                    #                               ^^^^^^^^^^^^^^^^^
            """
        ),
        # Session 29 (chain29, servekit's seed miss): the tensor is a parameter of a method
        # called from an `nn.Module`'s `forward`, which runs through the module's object
        # (`self.sampler(logits, ...)`): the model's logits, known on the device only at the
        # caller's caller.
        Invalid(
            """
            import torch
            import torch.nn as nn
            class MinTokens:
                def apply(self, logits: torch.Tensor, stops: dict[int, list[int]]) -> torch.Tensor:
                    for row, stop_ids in stops.items():
                        logits[row, stop_ids] = float("-inf")
                    #   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return logits
            class Sampler(nn.Module):
                def __init__(self) -> None:
                    super().__init__()
                    self.min_tokens = MinTokens()
                def forward(self, logits: torch.Tensor, stops: dict[int, list[int]]):
                    return self.min_tokens.apply(logits, stops).argmax(-1)
            class Runner:
                def __init__(self) -> None:
                    self.lm_head = nn.Linear(64, 1000).cuda()
                    self.sampler = Sampler().cuda()
                def execute_model(self, hidden: torch.Tensor, stops: dict[int, list[int]]):
                    return self.sampler(self.lm_head(hidden), stops)
            """,
            message_contains="through a list or tensor of indices",
        ),
        # Many values written through a boolean mask: the mask becomes indices on the host.
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, ids: torch.Tensor, mm: torch.Tensor):
                    x = self.embed(ids)
                    is_mm = ids == 7
                    x[is_mm] = mm.to(x.dtype)
                    ^^^^^^^^^^^^^^^^^^^^^^^^^
                    return x
            """,
            message_contains="masked_scatter_",
        ),
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, device):
                    y = x.to(device)
                    return y.sum().item()
                           ^^^^^^^^^^^^^^
            """,
            message_contains="`.item()` of `y.sum()`",
        ),
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, device):
                    return self._count(x.to(device))
                def _count(self, y):
                    z = y * 2
                    return int(z.cuda().max())
                           ^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="called from `M.forward()`",
        ),
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, device):
                    y = x.to(device)
                    n = y.sum()
                    return torch.arange(n, device=device)
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="as a size",
        ),
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, device):
                    y = x.to(device)
                    return y[y > 0]
                           ^^^^^^^^
            """,
            message_contains="boolean mask",
        ),
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, device):
                    y = x.to(device)
                    return torch.nonzero(y)
                           ^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, hidden, counts, device):
                    c = counts.to(device)
                    return torch.repeat_interleave(hidden, c, dim=0)
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="output_size=",
        ),
        # Session 42 (mine42): a tensor given where PyTorch takes a Python number (`alpha=`,
        # `value=`) is read with `.item()` first; adv-optm 1.2's OrthoGrad, per parameter.
        Invalid(
            """
            import torch
            class Opt(torch.optim.Optimizer):
                def step_parameter(self, p, grad):
                    w = p.view(-1).float()
                    g = grad.view(-1).float()
                    proj = torch.dot(w, g) / torch.dot(w, w).add_(1e-30)
                    return g.sub(w, alpha=proj)
                           ^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="multiply by the tensor",
        ),
        # Session 43 (mine43): in-place arithmetic returns its receiver, a tensor
        # (pytorch-optimizer 3.10's OrthoGrad); the items of a `torch._foreach_norm` result are
        # tensors (its LAMB read each trust ratio per parameter).
        Invalid(
            """
            import torch
            class Opt(torch.optim.Optimizer):
                def step_parameter(self, p, grad):
                    w = p.view(-1)
                    g = grad.view(-1)
                    proj = torch.dot(w, g).div_(torch.dot(w, w).add_(1e-30))
                    return g.sub_(w, alpha=proj)
                           ^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="multiply by the tensor",
        ),
        Invalid(
            """
            import torch
            class Lamb(torch.optim.Optimizer):
                def step(self, closure=None):
                    for group in self.param_groups:
                        params = group["params"]
                        for p, wn in zip(params, torch._foreach_norm(params)):
                            p.mul_(wn.item())
                                   ^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            class DAdapt(torch.optim.Optimizer):
                def step(self, closure=None):
                    group = self.param_groups[0]
                    if group["step"] > 0:
                        norms = torch.stack(torch._foreach_norm(group["params"]))
                        group["g0_norm"] = norms.norm().item()
                                           ^^^^^^^^^^^^^^^^^^^
                    group["step"] += 1
            """,
        ),
        Invalid(
            """
            import torch
            class Sampler:
                def __call__(self, logits, device):
                    probs = logits.to(device).softmax(-1)
                    if (probs > 0.5).any():
                       ^^^^^^^^^^^^^^^^^^^
                        return None
                    return probs
            """,
            message_contains="`if` test",
        ),
        Invalid(
            """
            import torch
            def step(batch, device):
                ids = batch.to(device)
                first = ids.cpu()
                        ^^^^^^^^^
                second = ids.cpu()
                         ^^^^^^^^^
                return first, second
            """,
            message_contains="host copy of `ids` already exists",
        ),
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x: torch.Tensor, y: torch.Tensor):
                    return x.repeat(int(y.max()), 1)
                                    ^^^^^^^^^^^^
            """,
            message_contains="if `y` is on the GPU",
        ),
        # Unknown devices of values that are surely tensors, on paths hot by name: a
        # reduction read with `.item()`, a comparison read with `.tolist()`, a `.cpu()` copy
        # kept under a `_cpu` name, a `.cpu()` of a torch.cat of annotated tensors.
        Invalid(
            """
            class Backend:
                @classmethod
                def update_step_context(cls, ctx):
                    longest = ctx.q_seqlens.max().item()
                              ^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return longest
            """,
            message_contains="if `ctx.q_seqlens` is on the GPU",
        ),
        Invalid(
            """
            class Backend:
                def decode_step(self, ctx):
                    return all((ctx.q_seqlens == ctx.kv_seqlens).tolist())
                               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            class Backend:
                def prepare_step(self, ctx):
                    kv_seqlens_cpu = ctx.kv_seqlens.cpu()
                                     ^^^^^^^^^^^^^^^^^^^^
                    return kv_seqlens_cpu
            """,
            message_contains="`.cpu()` of `ctx.kv_seqlens`",
        ),
        Invalid(
            """
            import torch
            class Transformer(torch.nn.Module):
                def forward(self, txt_ids: torch.Tensor, img_ids: torch.Tensor):
                    if img_ids.ndim == 3:
                        img_ids = img_ids[0]
                    ids = torch.cat((txt_ids, img_ids), dim=0)
                    return self.pos_embed(ids.cpu())
                                          ^^^^^^^^^
            """,
            message_contains="if `ids` is on the GPU",
        ),
        # A top-level attention helper (attention backends run in every forward pass).
        Invalid(
            """
            def _prepare_flash_attn_varlen(seqlens_q, seqlens_k):
                return seqlens_q.max().item(), seqlens_k.max().item()
                       ^^^^^^^^^^^^^^^^^^^^^^
                                               ^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="attention call",
        ),
        # A pipeline's loop of steps: a reduction read with `.tolist()` every step.
        Invalid(
            """
            class ImagePipeline:
                def __call__(self, latents, mask, timesteps):
                    for t in timesteps:
                        latents = self.transformer(latents, t, lens=mask.sum(dim=1).tolist())
                                                                    ^^^^^^^^^^^^^^^^^^^^^^^^
                    return latents
            """,
        ),
        # A greedy selection loop (k-center coreset): every iteration computes the next index
        # on the device from the one the iteration before picked, and reads it on the host.
        Invalid(
            """
            import torch
            def greedy_coreset(features: torch.Tensor, k: int) -> list[int]:
                features = features.cuda()
                min_dist = torch.full((features.shape[0],), float("inf"), device=features.device)
                idx = torch.randint(features.shape[0], (1,), device=features.device).squeeze()
                picked = []
                for _ in range(k):
                    dist = torch.linalg.norm(features - features[idx], dim=1)
                    min_dist = torch.minimum(min_dist, dist)
                    idx = torch.argmax(min_dist)
                    picked.append(int(idx.item()))
                                      ^^^^^^^^^^
                return picked
            """,
            message_contains="from the one the iteration before computed",
        ),
        # A training loop: every iteration runs backward and an optimizer step, and reads
        # the loss on the host.
        Invalid(
            """
            import torch
            def fit(model, loader, optimizer):
                epoch_loss = 0.0
                for x, y in loader:
                    loss = torch.nn.functional.mse_loss(model(x), y)
                    loss.backward()
                    optimizer.step()
                    epoch_loss += float(loss.item())
                                        ^^^^^^^^^^^
                return epoch_loss
            """,
            message_contains="`loss.backward()`",
        ),
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, device):
                    y = x.to(device)
                    return y.unique(), y.masked_select(y > 0)
                           ^^^^^^^^^^
                                       ^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # A parameter annotated as a tensor compared in an `if` test and used as a slice
        # bound: a 0-d tensor read on the host in every forward.
        Invalid(
            """
            from typing import Optional
            import torch
            class GPT(torch.nn.Module):
                def forward(self, x: torch.Tensor, input_pos_maxp1: Optional[torch.Tensor]):
                    mask = self.mask_cache.to(x.device)
                    if input_pos_maxp1 > self.max_len:
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                        raise ValueError(input_pos_maxp1)
                    return mask[..., :input_pos_maxp1]
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="if `input_pos_maxp1` is on the GPU",
        ),
        # The context an engine builds for every step, by its class's name.
        Invalid(
            """
            import torch
            class StepContext:
                @classmethod
                def new(cls, inputs, device):
                    q_seqlens = inputs.seq_length
                    longest = q_seqlens.max().item()
                              ^^^^^^^^^^^^^^^^^^^^^^
                    return cls(torch.arange(longest, device=device))
            """,
            message_contains="builds the per-step state `StepContext`",
        ),
        # A side stream's copies waited for by the host every iteration of a loop of steps;
        # a device-wide wait right after the step's input copies.
        Invalid(
            """
            import torch
            class Agent:
                async def preprocess_loop(self, keys):
                    while True:
                        inputs = await self.queue.get()
                        with torch.cuda.stream(self.out_stream):
                            for k in keys:
                                inputs[k] = inputs[k].cuda(non_blocking=True)
                            self.out_stream.synchronize()
                            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                        self.ready.put_nowait(inputs)
            """,
            message_contains="Record an event",
        ),
        Invalid(
            """
            import torch
            class Runner:
                def execute_model(self, batch, device):
                    ids = batch.ids.to(device, non_blocking=True)
                    torch.cuda.synchronize()
                    ^^^^^^^^^^^^^^^^^^^^^^^^
                    return self.model(ids)
            """,
            message_contains="`batch.ids.to(device, non_blocking=True)`",
        ),
        # The `else` of a test that takes the CPU path runs on the GPU.
        Invalid(
            """
            import torch
            class Processor:
                def __call__(self, logits: torch.Tensor):
                    if logits.device.type == "cpu":
                        return logits
                    else:
                        return logits.cpu()
                               ^^^^^^^^^^^^
            """,
            message_contains="if `logits` is on the GPU",
        ),
        # A reduction bound to a name, then used as a size; a data-sized call of a tensor the
        # function is given; a read of what a torch function made (`bincount`).
        Invalid(
            """
            import torch
            class PrefillMetadataBuilder:
                def build(self, common):
                    lens = torch.diff(common.query_start_loc)
                    longest = lens.max()
                    return torch.arange(longest, device=lens.device)
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="if `lens` is on the GPU",
        ),
        Invalid(
            """
            import torch
            class VLModel(torch.nn.Module):
                def forward(self, input_ids: torch.Tensor, image_token_id: int):
                    starts = torch.nonzero(input_ids == image_token_id).squeeze(1)
                             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return starts
            """,
            message_contains="if `input_ids` is on the GPU",
        ),
        # Tensors unpacked from a function that returns several (`torch.topk`, `x.sort()`).
        Invalid(
            """
            import torch
            class DenseMoE(torch.nn.Module):
                def forward(self, hidden):
                    weights, ids = torch.topk(self.gate(hidden).softmax(-1), 2)
                    tokens, slots = torch.where(ids == 0)
                                    ^^^^^^^^^^^^^^^^^^^^^
                    return hidden[tokens] * weights[tokens, slots, None]
            """,
            message_contains="if `ids` is on the GPU",
        ),
        # The same helper called on every forward as well
        Invalid(
            """
            import os
            import torch
            class HFModel(torch.nn.Module):
                def forward(self, x):
                    output = self.model(x)
                    self._record_logits(output)
                    return output
                def _record_logits(self, logits):
                    self.recs.append(logits.detach().float().cpu())
                                     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # An early return on logging steps (`if self.should_log(step): return`, not negated):
        # what follows runs on every other step.
        Invalid(
            """
            import torch
            class Trainer:
                def train_step(self, batch):
                    loss = self.forward_backward_step(batch)
                    if self.should_log(self.step):
                        return
                    self.history.append(loss.detach().item())
                                        ^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # The `elif` of a CPU test, code after `if not x.is_cuda: return`, and after
        # `if not torch.is_tensor(x): return`, run on the GPU; so does a helper that a forward
        # calls besides a reference implementation.
        Invalid(
            """
            import torch
            class Masks(torch.nn.Module):
                def forward(self, mask: torch.Tensor, q: torch.Tensor, scale: torch.Tensor):
                    if mask.device.type == "cpu":
                        keep = mask > 0
                    elif torch.any(mask < 0):
                         ^^^^^^^^^^^^^^^^^^^
                        keep = mask >= 0
                    if not torch.is_tensor(scale):
                        return keep * scale
                    return keep * float(scale)
                                  ^^^^^^^^^^^^
            """,
            message_contains="if `mask` is on the GPU",
        ),
        Invalid(
            """
            import torch
            def _lengths(cu: torch.Tensor):
                return cu.tolist()
                       ^^^^^^^^^^^
            def paged_attention_reference(q, cu: torch.Tensor):
                return _lengths(cu)
            def paged_attention_forward(q, cu: torch.Tensor):
                return _lengths(cu)
            """,
            message_contains="`.tolist()` of `cu`",
        ),
        Invalid(
            """
            import torch
            class SparseMoE(torch.nn.Module):
                def forward(self, hidden, topk_ids):
                    counts = torch.bincount(topk_ids.flatten(), minlength=self.num_experts)
                    return hidden.split(counts.tolist())
                                        ^^^^^^^^^^^^^^^
            """,
            message_contains="`.tolist()` of `counts`",
        ),
        # A method called with `dim=` is a tensor's (numpy says `axis=`): its result indexed
        # through a boolean mask of itself, per step (a boolean mask turns into `nonzero`).
        Invalid(
            """
            import torch
            class Sampler(torch.nn.Module):
                def forward(self, logits, k: int):
                    ids = logits.argmax(dim=-1)
                    return ids[ids < k]
                           ^^^^^^^^^^^^
            """,
            message_contains="Indexing `ids` with a boolean mask",
        ),
        # The same helpers under a switch on by default (`"1"`), or under an opt-in switch
        # named for a feature, not a check, run on every step; a helper given the device (or
        # a source named `src_device="cpu"`) returns device memory.
        Invalid(
            """
            import os
            import torch
            def get_for_device(params: dict, key: str, device) -> torch.Tensor:
                return params[key].to(device)
            _routing_check = os.environ.get("MOE_ROUTING_CHECK", "1") != "0"
            _fast_path = os.environ.get("MOE_FAST_PATH", "0") != "0"
            def _routing_check_compare(local_w, w):
                return float((local_w - w).abs().max().item())
                             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            def _fast_counts(w):
                return w.sum(0).tolist()
                       ^^^^^^^^^^^^^^^^^
            class SparseMLP(torch.nn.Module):
                def forward(self, x, params):
                    local_w = self.router(x)
                    w = self.broadcast(local_w)
                    if _routing_check:
                        _routing_check_compare(local_w, w)
                    if _fast_path:
                        _fast_counts(w)
                    slots = get_for_device(params, "recurrent_slots", self.device).tolist()
                            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return self.experts(x, w), slots
            """,
        ),
        # Loops of steps in methods too: a validation loop that copies each batch to the
        # device and reads a token count (a counter made on the device and updated in place)
        # per batch; a trainer's loop that reads the loss after every backward pass.
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            class Validator:
                def validate(self, model, loader, device_type):
                    for inputs, labels in loader:
                        labels = labels.to(device_type)
                        logits = model(inputs.to(device_type))
                        valid = torch.tensor(0, dtype=torch.int64, device=device_type)
                        valid += (labels != -100).sum()
                        self.tokens.append(valid.item())
                                           ^^^^^^^^^^^^
            class Trainer:
                def fit(self, loader):
                    for x, y in loader:
                        loss = F.mse_loss(self.model(x), y)
                        loss.backward()
                        self.optimizer.step()
                        self.losses.append(loss.item())
                                           ^^^^^^^^^^^
            """,
        ),
        # `not` of a device tensor is its `bool()`, read on the host: reported as such.
        Invalid(
            """
            import torch
            class Gate(torch.nn.Module):
                def forward(self, x, h):
                    mask = (x > 0).cuda()
                    return h + float(not mask.any())
                               ^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # The same frame-by-frame loop in a function whose name does not say it shows values
        # (rewards scored for the caller) still syncs on every frame.
        Invalid(
            """
            import torch
            def score_reward_predictions(model, frames, device, out):
                for i, frame in enumerate(frames):
                    reward = model(frame["features"].to(device))
                    out.append(reward.cpu().numpy())
                               ^^^^^^^^^^^^
            """,
        ),
        # The same reads in a step and in a predictor's forward.
        Invalid(
            """
            import torch
            class Trainer:
                def train_step(self, loss_avg: torch.Tensor):
                    self.entries.append(("lm_loss", loss_avg.item()))
                                                    ^^^^^^^^^^^^^^^
            class Predictor(torch.nn.Module):
                def forward(self, hidden, alphas, device):
                    h = hidden.to(device)
                    fire = alphas.to(device) > 0.5
                    return h[fire]
                           ^^^^^^^
            """,
        ),
        # Look-alikes of HTD201's rows: items of a Python list taken by the counter are no
        # rows (HTD201 does not report that loop).
        Invalid(
            """
            import torch
            class Heads(torch.nn.Module):
                def forward(self, x, requests):
                    y = self.proj(x.cuda())
                    outs = [y[j] for j in range(3)]
                    done = []
                    for i, req in enumerate(requests):
                        done.append(outs[i].sum().item())
                                    ^^^^^^^^^^^^^^^^^^^^
                    return done
            """,
        ),
        # A read of a row in a loop HTD201 reports that HTD201 does not report itself: the
        # mask indexing that unpads each row before the `.tolist()` HTD201 reports
        # (transformers' minicpmv4_7 `get_rope_index`), and a mask row indexing another
        # tensor. Session 44: HTD202 leaves to HTD201 only the reads it reports.
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(
                    self, ids: torch.Tensor, types: torch.Tensor, mask: torch.Tensor, y
                ):
                    out = []
                    for b, row_ids in enumerate(ids):
                        row_types = types[b]
                        row_types = row_types[mask[b].bool()]
                                    ^^^^^^^^^^^^^^^^^^^^^^^^^
                        out.append(row_types.tolist())
                        keep = mask[b] > 0
                        out.append(y[keep])
                                   ^^^^^^^
                    return out
            """,
        ),
        # The same in-place update of a tensor made on the device: still on the device.
        Invalid(
            """
            import random
            import torch
            def create_attn_bias(r: random.Random, n: int, mx: int, device: torch.device):
                y = torch.zeros(n, mx, dtype=torch.int32, device=device)
                y.flatten()[r.sample(range(n * mx), n)] = 1
                z = y.sum(1)
                z += 1
                return z.tolist()
            #          ^^^^^^^^^^
            """,
            message_contains="`z` is on the device",
        ),
        # Session 18's recall audit: the rows of a mask taken by `zip` in a forward (xfuser's
        # and cache-dit's HunyuanVideo text reordering), a row of a mask taken by index, a
        # mask made with `.bool()` whose indexed tensor says nothing (MEDIUM on the mask), a
        # forward installed by assignment (`Model.forward = __patch__..._forward__`), and
        # `.values` of a reduction read with `.tolist()` (a rotary cache's bound check).
        Invalid(
            """
            import torch
            class Reorder(torch.nn.Module):
                def forward(self, hidden, masks):
                    masks = masks.cuda() > 0
                    out = []
                    for h, m in zip(hidden.cuda(), masks):
                        out.append(h[m])
            #                      ^^^^
                    for i in range(len(out)):
                        out[i] = hidden[i][masks[i]]
            #                    ^^^^^^^^^^^^^^^^^^^
                    return out
            """,
            message_contains="is on the device",
        ),
        Invalid(
            """
            import torch
            class Loss(torch.nn.Module):
                def forward(self, jsd, completion_mask):
                    mask = completion_mask.bool()
                    return jsd[mask].mean()
            #              ^^^^^^^^^
            """,
            message_contains="if `mask` is on the GPU",
        ),
        Invalid(
            """
            import functools
            import torch
            class Planner:
                def _apply(self):
                    Model.forward = __patch__Model_forward__
            @functools.wraps(Model.forward)
            def __patch__Model_forward__(self, hidden: torch.Tensor, masks: torch.Tensor):
                out = []
                for text, text_mask in zip(hidden, masks.bool()):
                    out.append(text[text_mask])
            #                  ^^^^^^^^^^^^^^^
                return out
            """,
            message_contains="installed as `Model.forward`",
        ),
        Invalid(
            """
            import torch
            class Rope(torch.nn.Module):
                def forward(self, position_ids: torch.Tensor):
                    max_vals = position_ids.max(dim=0).values.tolist()
            #                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return max_vals
            """,
        ),
        # Session 19 (lerobot 0.4.2's samplers): a `while` test is read before every
        # iteration; a loop whose body runs a model makes each iteration a step, in a method
        # not otherwise known to be hot.
        Invalid(
            """
            import torch
            class FlowMatching(torch.nn.Module):
                def sample_actions(self, state, noise, num_steps):
                    device = state.device
                    dt = torch.tensor(-1.0 / num_steps, dtype=torch.float32, device=device)
                    time = torch.tensor(1.0, dtype=torch.float32, device=device)
                    x_t = noise
                    while time >= -dt / 2:
            #             ^^^^^^^^^^^^^^^
                        x_t += dt * self.denoise_step(x_t, time.expand(x_t.shape[0]))
                        time += dt
                    return x_t
            """,
            message_contains="as a `while` test",
        ),
        # A value comparison of a tensor made on the device is a tensor test, in an `if` too.
        Invalid(
            """
            import torch
            class Decoder(torch.nn.Module):
                def forward(self, x):
                    budget = torch.zeros((), device="cuda")
                    budget += x.sum()
                    if budget > 10:
            #          ^^^^^^^^^^^
                        x = x / 2
                    return x
            """,
        ),
        # Session 38 (mine38; speculators 0.5.0's DFlash mask builder): a test written with an
        # assignment expression reads the value it binds.
        Invalid(
            """
            import torch
            class Block(torch.nn.Module):
                def forward(self, positions: torch.Tensor, total: int):
                    positions = positions.to(dtype=torch.long).contiguous()
                    if (oob := (positions < 0) | (positions >= total)).any():
            #          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                        raise ValueError(f"out of range: {positions[oob]}")
                    return positions
            """,
        ),
        # Session 40 (mine40; liger-kernel 0.5.0's fused linear cross-entropy): a count of
        # matches bound to a name, then compared on every chunk, reads its value as `.item()`.
        Invalid(
            """
            import torch
            def fused_loss_forward(logits, target, ignore_index=-100):
                total = (target != ignore_index).sum()
                for start in range(0, logits.shape[0], 1024):
                    chunk = logits[start : start + 1024].float()
                    alpha = chunk.shape[0] / total if total > 0 else 0.0
            #                                         ^^^^^
                    logits[start : start + 1024] = chunk * alpha
                return logits
            """,
        ),
        # Session 41 (misses41): the same count compared inline, or bound and tested bare,
        # is the same read.
        Invalid(
            """
            import torch
            def fused_loss_forward(logits, target, ignore_index=-100):
                if (target != ignore_index).sum() > 0:
            #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    logits = logits * 2
                kept = (target != ignore_index).sum()
                if kept:
            #      ^^^^
                    logits = logits + 1
                return logits
            """,
        ),
        # Session 23 (unsloth 2026.10.8's packing helpers): a cache of the last input (one
        # entry per device, hit only by the very tensor it was built from) spares the layers of
        # one step, but each step's new lengths miss it: the read after the lookup runs per step.
        Invalid(
            """
            import torch
            _INFO = {}
            def packed_info(lengths_host, device):
                entry = _INFO.get(device)
                if entry is not None and entry["lengths"] is lengths_host:
                    return entry["result"]
                lengths = lengths_host.to(device, torch.int32)
                max_len = int(lengths.max().item())
            #                 ^^^^^^^^^^^^^^^^^^^^
                _INFO[device] = {"lengths": lengths_host, "result": (lengths, max_len)}
                return lengths, max_len
            def attention_forward(self, q, lengths_host):
                return packed_info(lengths_host, q.device)
            """,
        ),
        # Session 23 (unsloth 2026.10.8): an item of a parameter annotated as a tuple of tensors
        # (by a constant index, or unpacked) is a tensor, as `x: torch.Tensor` is: reading it on
        # a hot path syncs if it is on the GPU (MEDIUM: where it is stays unknown).
        Invalid(
            """
            from typing import Optional, Tuple
            import torch
            def segment_lengths(seq_info: Tuple[torch.Tensor, torch.Tensor, int]):
                return tuple(seq_info[0].tolist())
            #                ^^^^^^^^^^^^^^^^^^^^
            def padding_of(seq_info: Optional[Tuple[torch.Tensor, torch.Tensor, int]], total: int):
                _, cu_seqlens, _ = seq_info
                return total - int(cu_seqlens[-1].item())
            #                      ^^^^^^^^^^^^^^^^^^^^^
            def attention_forward(self, q, seq_info):
                return segment_lengths(seq_info), padding_of(seq_info, q.shape[0])
            """,
        ),
        # Session 31 (triage31): the VALID vision patch's twin: the nested forward hands the
        # helper a copy it makes on the device, read in the nested function too.
        Invalid(
            """
            import torch
            def _patch_counts(grid_thw):
                return (grid_thw[:, 0] * grid_thw[:, 1] * grid_thw[:, 2]).tolist()
            #          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            def apply_vision_patch(model_cls):
                original_forward = model_cls.forward
                def sharded_forward(self, hidden_states, grid_thw):
                    grid_thw_dev = grid_thw.to("cuda")
                    total = sum(_patch_counts(grid_thw_dev))
                    return original_forward(self, hidden_states, grid_thw), total
                model_cls.forward = sharded_forward
            """,
        ),
        # Session 43 (triage43b): a helper that returns a tensor test of its argument, tested
        # by the caller (st-moe-pytorch 0.1.8 st_moe_pytorch.py:224, on the sizes every rank
        # all-gathers each forward): `not` of it is `bool()` of a device tensor.
        Invalid(
            """
            import torch
            from torch import nn
            def has_only_one_value(t):
                return (t == t[0]).all()
            class Experts(nn.Module):
                def forward(self, x):
                    sizes = torch.stack([x.sum(), x.mean()]).cuda()
                    var_seq_len = not has_only_one_value(sizes)
                    #                                    ^^^^^
                    return x, var_seq_len
            """
        ),
        # Session 43 (triage43b): the look-alike of the accelerate trainer's step buffer: this
        # trainer moves itself (`self.to(...)`, imagen-pytorch's way), buffers and all.
        Invalid(
            """
            import torch
            from torch import nn
            from accelerate import Accelerator
            class Trainer(nn.Module):
                def __init__(self, vae, lr):
                    super().__init__()
                    self.accelerator = Accelerator()
                    self.register_buffer("steps", torch.Tensor([0]))
                    self.vae = vae
                    self.optim = torch.optim.Adam(vae.parameters(), lr=lr)
                    self.vae, self.optim = self.accelerator.prepare(self.vae, self.optim)
                    self.to(self.accelerator.device)
                def train_step(self, batch):
                    steps = int(self.steps.item())
                    #           ^^^^^^^^^^^^^^^^^
                    loss = self.vae(batch)
                    self.accelerator.backward(loss)
                    self.optim.step()
                    self.steps += 1
                    return steps
            """
        ),
        # Session 44 (fp202m44): the look-alikes: a prediction method's read that is no output
        # (`.item()` of a device count), a `predict()` copy per item of a loop, and the values
        # a policy's get_action stores for the update besides the action.
        Invalid(
            """
            import torch
            class Localizer(BaseModel):
                def forward(self, inputs, samples, mode="loss"):
                    if mode == "loss":
                        return self.loss(inputs, samples)
                    return self.predict(inputs, samples)
                def loss(self, inputs, samples):
                    return {"loss": self.head(inputs).mean()}
                def predict(self, inputs, samples):
                    scores = self.head(inputs)
                    keep = int((scores > 0.5).sum().item())
                    #          ^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return scores[:keep]
            """
        ),
        Invalid(
            """
            import torch
            class PPO:
                def get_action(self, obs):
                    with torch.no_grad():
                        action, log_prob = self.actor(torch.as_tensor(obs, device=self.device))
                    log_prob_np = log_prob.cpu().numpy()
                    #             ^^^^^^^^^^^^^^
                    return action, log_prob_np
                def train_step(self, env, obs):
                    action, log_prob = self.get_action(obs)
                    return env.step(action)
            """
        ),
        # Session 45 (fp202m45): the look-alikes: the torch arm of a multi-backend model, a
        # safety checker (no inferencer: its callers decide; mmagic clip_wrapper.py:103, a read
        # labelled true for HTD201), a copy in a helper not named for a host format.
        Invalid(
            """
            import torch
            from torch import nn
            class DetectMultiBackend(nn.Module):
                def forward(self, im):
                    if self.pt:
                        y = self.model(im).cpu()
                        #   ^^^^^^^^^^^^^^^^^^^^
                    elif self.onnx:
                        y = self.session.run(self.output_names, {"images": im.cpu().numpy()})
                    return y
            """
        ),
        Invalid(
            """
            import torch
            class StableDiffusionSafetyChecker(PreTrainedModel):
                @torch.no_grad()
                def forward(self, clip_input, images):
                    embeds = self.visual_projection(self.vision_model(clip_input)[1])
                    worst = cosine_distance(embeds, self.concept_embeds).max().item()
                    #       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return images, worst > 0
            """
        ),
        Invalid(
            """
            import torch
            from torch import nn
            class Model(nn.Module):
                def forward(self, x):
                    return postprocess(self.net(x))
            def postprocess(image):
                image = image.permute(0, 2, 3, 1).to(torch.uint8).cpu().numpy()
                #       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return [Image.fromarray(i) for i in image]
            """
        ),
        # Session 46 (fp202m46): the look-alike: an evaluation loop's copy handed to the
        # project's own helper (gpt-sovits' spectrogram plot in ``evaluate``, labelled true).
        Invalid(
            """
            import torch
            def evaluate(model, loader, device):
                images = []
                for x in loader:
                    mel = torch.tanh(model(x.to(device)))
                    images.append(plot_spectrogram_to_numpy(mel[0].cpu().numpy()))
                    #                                       ^^^^^^^^^^^^
                return images
            """
        ),
        # Session 47 (fp202m47): the look-alike: a call leaves ``num_classes`` to its None
        # default, so the arm runs on that call's path.
        Invalid(
            """
            import torch
            from torch import nn
            def to_onehot(labels, num_classes=None):
                if num_classes is None:
                    num_classes = int(labels.max().item() + 1)
                    #                 ^^^^^^^^^^^^^^^^^^^
                return torch.zeros(labels.shape[0], num_classes, device=labels.device)
            class Loss(nn.Module):
                def forward(self, preds, target):
                    return (preds - to_onehot(target)).abs().mean()
            """
        ),
        # Session 48 (fp202m48): the look-alike: an update that makes a tensor whatever the
        # attribute held (``+ loss.detach()``) still proves one.
        Invalid(
            """
            from torch import nn
            class OneStageInpaintor(nn.Module):
                def __init__(self, train_cfg):
                    super().__init__()
                    self.total = 0
            class TwoStageInpaintor(OneStageInpaintor):
                def train_step(self, data, optim_wrapper):
                    loss = self.generator(data).mean()
                    optim_wrapper.update_params(loss)
                    self.total = self.total + loss.detach()
                    if self.total > 10:
                    #  ^^^^^^^^^^
                        return dict(loss=loss)
                    return dict(loss=loss * 2)
            """
        ),
        # Session 48 (prov48, unsloth 2026.10.4 `diffusion_block.py:190`): both arms of the
        # conditional are tensors, and the method `attention_mask` is called with it, though
        # locals of the same name are read in other methods.
        Invalid(
            """
            import torch
            class BlockDiffusion(torch.nn.Module):
                def build(self, input_ids, attention_mask):
                    ones = torch.ones_like(input_ids, dtype=torch.bool)
                    valid = ones if attention_mask is None else attention_mask.bool()
                    return input_ids, valid
                def attention_mask(self, length, valid):
                    if not bool(valid.all()):
                           ^^^^^^^^^^^^^^^^^
                        return valid[:, None, :length]
                    return None
                def forward(self, input_ids, attention_mask=None):
                    ids, valid = self.build(input_ids, attention_mask)
                    return self.attention_mask(ids.shape[1], valid)
            """,
            message_contains="`bool()` of `valid.all()`",
        ),
        # Session 49 (mine49, verl 0.7.0 `losses.py:131`): a function named for a loss
        # (`ppo_loss`, reached through a configured `loss_fn`, no caller the index follows)
        # runs once per training batch: its `.item()` for a metric waits every micro-batch.
        Invalid(
            """
            import torch
            def ppo_loss(config, log_prob, old_log_prob, advantages, mask):
                ratio = torch.exp(log_prob - old_log_prob)
                pg_loss = -(ratio * advantages * mask).sum() / mask.sum()
                metrics = {"actor/pg_loss": pg_loss.detach().item()}
                                            ^^^^^^^^^^^^^^^^^^^^^^^
                return pg_loss, metrics
            """,
            message_contains="computes a loss",
        ),
        # Session 50 (mine50, trl 1.10.0 `sft_trainer.py:190`, fixed by trl PR 6842): a name
        # rebound in both arms of an `if`/`else` from a tensor parameter; the `else` arm's read
        # of `labels` is the parameter, not the `if` arm's reshape (analysis/branch_bindings.py).
        Invalid(
            """
            import torch
            def _chunked_cross_entropy_loss(
                hidden_states: torch.Tensor, labels: torch.Tensor, shift_labels: torch.Tensor | None
            ):
                if shift_labels is not None:
                    labels = shift_labels.reshape(-1)
                else:
                    labels = labels[..., 1:].reshape(-1)
                valid = labels != -100
                n_valid_tensor = valid.sum()
                if n_valid_tensor == 0:
                   ^^^^^^^^^^^^^^
                    return hidden_states.sum() * 0.0
                return hidden_states.sum()
            """,
            message_contains="computes a loss",
        ),
        # Session 50 (triage50b): the look-alikes of the `valid` example: a `forward` returning
        # tensors, a loss named for training, an outer loop that counts steps (its body after
        # the micro-batches runs every step) and a plain conditional expression.
        Invalid(
            """
            import torch
            from torch import Tensor
            from tqdm import trange
            class ToIds(torch.nn.Module):
                def forward(self, species: Tensor) -> Tensor:
                    return species[species != -1]
                           ^^^^^^^^^^^^^^^^^^^^^^
            def _training_loss(logits: Tensor, targets: Tensor) -> Tensor:
                keep = targets != -100
                return torch.nn.functional.cross_entropy(logits[keep], targets)
                                                         ^^^^^^^^^^^^
            class Trainer:
                def fit(self, model, graph, loader, optimizer):
                    pbar = trange(self.num_steps)
                    for _ in pbar:
                        for batch in loader:
                            loss = model.loss(batch)
                            loss.backward()
                            optimizer.step()
                        u_embs = model(graph)
                        self.U = u_embs.cpu().numpy()
                                 ^^^^^^^^^^^^
            class Backbone(torch.nn.Module):
                def _check_weights(self):
                    flags = torch.stack([torch.isnan(p).any() for p in self.parameters()])
                    return flags.any().item()
                           ^^^^^^^^^^^^^^^^^^
                def forward(self, x):
                    bad = self._check_weights() if self.training else None
                    return self.encoder(x), bad
            """
        ),
        # Session 51 (mine51b, x-transformers 2.25.2 `attend.py:470`, fixed by its PR 355): an
        # optional mask starts as `None` and is bound to a tensor in one arm; its read as a
        # tensor (`.any()`) cannot be of the `None` (analysis/none_defaults.none_placeholder).
        Invalid(
            """
            import torch
            def exists(v):
                return v is not None
            class Attend(torch.nn.Module):
                def forward(self, sim, v, mask=None):
                    row_is_entirely_masked = None
                    if exists(mask):
                        row_is_entirely_masked = ~mask.any(dim=-1)
                    out = sim.softmax(dim=-1) @ v
                    if exists(row_is_entirely_masked) and row_is_entirely_masked.any():
                                                          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                        out = out.masked_fill(row_is_entirely_masked[..., None], 0.0)
                    return out
            """
        ),
        # Session 51 (mine51b, LibreYOLO 1.5.0 `yolo9/loss.py:580`, fixed by its PR 765): a
        # loss's normaliser clamped with `clamp_min`, a method numpy arrays lack.
        Invalid(
            """
            import torch
            from torch import Tensor
            class DetectionLoss:
                def _global_cls_norm(self, targets_cls: Tensor) -> float:
                    return float(targets_cls.detach().float().sum().clamp_min(1.0).item())
                                 ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                def __call__(self, predictions: Tensor, targets: Tensor) -> Tensor:
                    cls_norm = self._global_cls_norm(targets[..., 0])
                    return (predictions - targets).abs().sum() / cls_norm
            """
        ),
        # Session 51 (triage51b): the look-alikes of the periodic flag (valid above): the flag
        # in an `or`, or negated, holds on the other steps too.
        Invalid(
            """
            def train(model, loader, optimizer, log_freq, history, show):
                step = 0
                for batch in loader:
                    loss = model(batch).mean()
                    loss.backward()
                    optimizer.step()
                    is_log_step = log_freq > 0 and (step % log_freq == 0)
                    if show or is_log_step:
                        history.append(loss.item())
                                       ^^^^^^^^^^^
                    if not is_log_step:
                        history.append(loss.item())
                                       ^^^^^^^^^^^
                    step += 1
            """,
            message_contains="a loop whose every iteration runs device work",
        ),
    )

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        # Per function: the code of the tensors already copied to the host, in source order.
        self._host_copies: dict[cst.CSTNode, dict[str, str]] = {}
        # Per ``for`` loop: why each of its iterations is a step (device work in its body).
        self._loops: dict[cst.For, DeviceLoop] = {}
        self._while: cst.While | None = None  # the ``while`` loop whose test is judged

    # -- visits ----------------------------------------------------------------------------------
    def _maybe_hot(self) -> bool:
        """Cheap gate: the visited node's function may be hot (most code is not; the questions
        below about where tensors live cost more). A method's callers in other modules are
        asked last, by :meth:`_judge`."""
        return HotPaths.of(self.context).could_be_hot_at(self.context.ancestors, False)

    def visit_Call(self, node: cst.Call) -> None:
        if stream_wait(node) is not None:
            self._explicit_wait(node)
            return
        if not self._maybe_hot():
            return
        read = explicit_sync(node)
        if read is not None:
            tensor, what = read
            if what == "`.tolist()`" and row_reduction(tensor):
                return  # the one read HTD201's fix leaves in place of a read per row
            copy = what in ("`.cpu()`", '`.to("cpu")`')
            if copy and discarded_copy(self.context.ancestors, node):
                return  # ``vae.to("cpu")`` as a statement: a module offloaded in place
            if round_trip_read(Provenance.of(self.context), node):
                return  # a copy up read straight back: HTD303's finding, the more specific
            kind = "copy" if what in ("`.cpu()`", '`.to("cpu")`', "`.tolist()`") else "read"
            if kind == "read" and what != "`bool()`":
                provenance = Provenance.of(self.context)
                frame = provenance.current_frame()
                total = device_accumulator(provenance, node, self.context.ancestors, frame)
                if total is not None:
                    what = f"{what} of {{}} added into the device tensor `{total.value}`"
                    self._judge(node, tensor, what, "round-trip", explicit=node)
                    return
            self._judge(node, tensor, what + " of {}", kind, explicit=node)
            return
        provenance = Provenance.of(self.context)
        synced = synced_argument(provenance, node, provenance.current_frame())
        if synced is not None:
            tensor, helper = synced
            self._judge(node, tensor, f"`{helper}()` of {{}} (it returns a host read)", "read")
            return
        func = node.func
        qualified = provenance.qualify(func) or ""
        if reads := call_reads(node, qualified):
            explicit = node if reads[0].copy else None
            any(self._judge(node, r.tensor, r.what, r.kind, explicit=explicit) for r in reads)
            return
        # A method of a tensor (not a function of a module: ``torch.nonzero``; not a method or
        # submodule of the object itself: ``self.repeat(x)`` runs an ``nn.Sequential``).
        method = func.attr.value if isinstance(func, cst.Attribute) and not qualified else None
        if method is not None and own_member(provenance, node):
            return
        if (scalar := scalar_argument(node, qualified, method)) is not None:
            self._judge(node, scalar[1], f"{{}} as `{scalar[0]}=`", "scalar")
            return
        if qualified in SIZE_FACTORIES or method in SIZE_METHODS:
            args = positional(node)
            if any(isinstance(a.value, (cst.SimpleString, cst.ConcatenatedString)) for a in args):
                return  # ``layout.view(buf, "table")``: no tensor's view takes a string
            if qualified in FIRST_ARG_SIZE or method in ("new_zeros", "new_ones", "new_empty"):
                args = args[:1]
            for size in sizes_of(args):
                if self._judge(node, size, "{} as a size", "size", sizes=True):
                    return
            return
        if qualified in DATA_SIZED_FUNCTIONS or method in DATA_SIZED_METHODS:
            operand = operand_of(node, method)
            name = method or qualified.rpartition(".")[2]
            if operand is not None and keyword(node, "size") is None:
                self._judge(node, operand, f"`{name}()` of {{}}", "data-sized")
            return
        if qualified == "torch.where" and len(node.args) == 1:
            self._judge(node, node.args[0].value, "`torch.where()` of {}", "data-sized")
            return
        if qualified == "torch.repeat_interleave" or method == "repeat_interleave":
            repeats = repeats_of(node, method is not None)
            if repeats is not None and keyword(node, "output_size") is None:
                self._judge(
                    node, repeats, "`repeat_interleave()` with repeats {}", "repeat_interleave"
                )

    def _explicit_wait(self, node: cst.Call) -> None:
        """A stream's or the device's wait right after ``non_blocking`` copies to the device,
        per step (:func:`~h2dlint.analysis.explicit_waits.hot_wait_message`)."""
        message = hot_wait_message(self.context, node)
        if message is not None:
            self.report(node, message, confidence=Confidence.MEDIUM)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            for written, value in unpacked_pairs(target.target, node.value):
                # an element of an unpacking target is reported where it is written
                self._mask_write(node if written is target.target else written, written, value)
            self._element_write(node, target.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._mask_write(node, node.target, None)

    def _mask_write(
        self, node: cst.CSTNode, target: cst.BaseExpression, value: cst.BaseExpression | None
    ) -> None:
        """A write through a boolean mask (:func:`mask_write`), which syncs."""
        if not isinstance(target, cst.Subscript) or not self._maybe_hot():
            return
        provenance = Provenance.of(self.context)
        found = mask_write(provenance, target, value, provenance.current_frame())
        if found is not None:
            self._judge(node, found[0], found[1], "mask-write")

    def _element_write(
        self, node: cst.CSTNode, target: cst.BaseExpression, value: cst.BaseExpression
    ) -> None:
        """``x[i] = 0`` into one element of a device tensor, or ``x[idx] = 0`` through a list or
        tensor of indices: PyTorch copies the number from the host, blocking (measured; see
        :mod:`h2dlint.analysis.element_writes`)."""
        if not isinstance(target, cst.Subscript) or not self._maybe_hot():
            return
        provenance = Provenance.of(self.context)
        frame = provenance.current_frame()
        # Only a Python number written into a tensor proven on the device is reported
        # (:meth:`_judge`): asked before the indices, which can be attributes of objects whose
        # classes live in other modules (most subscript writes are into lists and dicts).
        if (
            not host_scalar(provenance, value, frame)
            or value_where(provenance, target.value, frame) is not Where.DEVICE
        ):
            return
        how = syncing_write(provenance, target, value, frame)
        if how is None:
            return
        if how == ONE_ELEMENT:
            what = "writing a Python number into one element of {}"
        else:
            what = "writing a Python number into {} through a list or tensor of indices"
        self._judge(node, target.value, what, "element-write")

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if written_to(self.context.ancestors, node) or not self._maybe_hot():
            return
        provenance = Provenance.of(self.context)
        frame = provenance.current_frame()
        for element in node.slice:
            index = element.slice
            if isinstance(index, cst.Index) and device_mask(provenance, index.value, frame):
                # The mask on the device, or the indexed value says nothing and the mask is
                # surely a tensor (``m = mask.bool()``, a row of one): judged on the mask.
                on_device = value_where(provenance, index.value, frame) is Where.DEVICE
                if on_device or (
                    not self._judge(node, node.value, "indexing {} with a boolean mask", "mask")
                    and mask_judged_alone(self.context, node, frame)
                ):
                    self._judge(node, index.value, "indexing with the boolean mask {}", "mask")
                return
            if isinstance(index, cst.Slice):
                for bound in (index.lower, index.upper):
                    if bound is not None and self._judge(
                        node, bound, "{} as a slice bound", "size", sizes=True
                    ):
                        return

    def visit_If(self, node: cst.If) -> None:
        # Judged with the ``if`` among the ancestors, as the calls in its test are: the test of
        # an ``elif`` is in the ``else`` of the ``if`` before it (``if x.device.type in
        # {"cuda", "mps"}: ... elif torch.any(x < 0):`` runs only off CUDA).
        ancestors = self.context.ancestors
        ancestors.append(node)
        try:
            self._test(node.test)
        finally:
            ancestors.pop()

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._test(node.test)

    def visit_While(self, node: cst.While) -> None:
        self._while = node  # its test is read before every iteration
        try:
            self._test(node.test, "a `while`")
        finally:
            self._while = None

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        self._bool_operand(node)  # ``flag = (score <= best) or done``: ``bool()`` of the left

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        self._bool_operand(node)  # ``stop = not (loss < best)``

    def _bool_operand(self, node: cst.CSTNode) -> None:
        found = bool_operand(node, self.context.ancestors)
        if found is None or not self._maybe_hot():
            return
        tensor = tested_tensor(Provenance.of(self.context), found[0])
        if tensor is not None:
            self._judge(tensor, tensor, "{} as " + found[1], "test")

    def _test(self, test: cst.BaseExpression, kind: str = "an `if`") -> None:
        if not self._maybe_hot():
            return
        tensor = tested_tensor(Provenance.of(self.context), test)
        if tensor is not None:
            self._judge(tensor, tensor, "{} as " + kind + " test", "test")

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
        if where.on_host or not_a_tensor_here(provenance, self.context.ancestors, tensor):
            return False
        root = None
        if where is Where.DEVICE:
            confidence = Confidence.HIGH
        else:
            root = unknown_device_root(self.context, tensor, frame, kind, explicit, sizes)
            root = root or schedule_root(provenance, self.context.ancestors, tensor, frame, kind)
            if root is None:
                return False
            confidence = Confidence.MEDIUM
        hot = HotPaths.of(self.context)
        # A ``while`` test runs on every iteration: in a per-request driver it is a step.
        looped = [] if self._while is None else [self._while]
        reason = hot.why_hot_at([*self.context.ancestors, *looped])
        # A loop of steps makes its body hot in any function that may run more than once,
        # a method too (``Trainer.fit``, ``Validator.validate``): not only in functions the
        # project could call from a step.
        steps: cst.For | None = None
        if reason is None and hot.could_be_hot_at(self.context.ancestors, False):
            found = self._loop_reason(frame, tensor, kind == "copy" and "tolist" not in what)
            if found is not None:
                reason, steps = found
        moved = kind == "copy" and "tolist" not in what  # an item moved to the host: HTD201's
        if reason is None or not runs_every_call(
            self.context, node, explicit, steps=steps, row_loops=moved, reason=reason
        ):
            return False
        if reported_row_read(self.context, node) is not None:
            return False  # a read HTD201 reports (or one it merges with it): reported once
        if reported_iteration_read(self.context, node, self._while):
            return False  # a ``while`` loop's read or a builtin walk HTD201 reports
        if kind == "copy" and prepared_host_input(function, self.context.ancestors):
            return False  # the input preparer's host copy that ``forward`` reads instead
        if after_generation(provenance, self.context.ancestors):
            return False  # ``ids = model.generate(...)`` just before: nothing left queued
        if (
            kind == "copy"
            and isinstance(explicit, cst.Call)
            and output_after_loop(provenance, self.context.ancestors, explicit)
        ):
            return False  # the loop's result handed on (or decoded to text) once, not per step
        role = kind == "copy" and copy_role(
            self.context, function, explicit, root is not None, reason.startswith("called ")
        )
        if role in ("output", "offload"):
            return False  # a metric's input, a host-in/out wrapper's result, ``hr = hr.cpu()``
        if (
            kind == "copy"
            and isinstance(explicit, cst.Call)
            and once_output(self.context, function, explicit, hot.hot_name)
        ):
            return False  # the output of a function its callers run once (the caller chain)
        if kind == "copy" and prediction_output(provenance.index, self.context.ancestors, function):
            return False  # a model's prediction mode (``predict()`` of a model with ``loss()``)
        if kind == "copy" and (
            action_copy(function, explicit)  # a policy's action for the rollout's host env
            or cpu_backend_arm(self.context.module, self.context.ancestors, node)  # _CPU flag
            or host_runtime_arm(self.context.ancestors, node)  # ``elif self.onnx: ...``
            or request_end_class(self.context.ancestors)  # an inferencer's output
            or (root is not None and conversion_helper(self.context.ancestors))  # to_numpy()
        ):
            return False  # hand-offs the host needs (each analysis's docstring says why)
        shown = self.shown(tensor, "the tensor")
        read = what.format(shown)
        read = read[0].upper() + read[1:]
        earlier = earlier_host_copy(
            self._host_copies, self.context.module, function, tensor, explicit
        )
        if root is not None:
            named = self.shown(root, "the tensor")
            message = (
                f"{read} syncs the host on a hot path ({reason}) if {named} is on the GPU; "
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
        if role == "returned" and confidence is Confidence.HIGH:
            confidence = Confidence.MEDIUM  # per step or once per request: the callers say
            message += RETURNED_NOTE.format(function.name.value)
        self.report(node, message, confidence=confidence)
        return True

    def _loop_reason(
        self, frame: Frame, tensor: cst.BaseExpression, whole_copy: bool
    ) -> tuple[str, cst.For | None] | None:
        """Why the read of ``tensor`` being visited runs per step in a function not known to,
        and the loop that makes it: a ``for`` loop around it (in its function) runs device
        work on every iteration that the read waits for. Not in code that saves or exports
        state: its loops copy values to the host for the file, once per save."""
        provenance = Provenance.of(self.context)
        if saving_code(self.context.path, self.context.ancestors) or showing_code(
            self.context.ancestors
        ):
            return None
        if self._while is not None and (why := model_while_reason(self._while)) is not None:
            return why, None
        for parent in reversed(self.context.ancestors):
            if isinstance(parent, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                return None
            if isinstance(parent, cst.For) and not first_iteration(self.context.ancestors, parent):
                loop = self._loops.get(parent)
                if loop is None:
                    loop = self._loops[parent] = device_loop(provenance, parent, frame)
                reason = loop.reason_for(tensor, self.context.module)
                reason = reason or model_steps_reason(parent, whole_copy)
                if reason := reason or schedule_reason(
                    provenance, self.context.ancestors, tensor, parent
                ):
                    return reason, parent
        return None
