from __future__ import annotations

from typing import Any

import libcst as cst

from h2dlint.analysis.builtin_walks import WALKING_BUILTINS
from h2dlint.analysis.device_branches import off_cuda_branch
from h2dlint.analysis.host_runtimes import host_runtime_module
from h2dlint.analysis.hot_guards import name_values
from h2dlint.analysis.iteration_reads import COUNTED, walk_read, while_read
from h2dlint.analysis.iteration_reads import DEVICE as ITERATION_DEVICE
from h2dlint.analysis.keyed_outputs import keyed_lookup
from h2dlint.analysis.module_outputs import copies_each_output, walked_module_output
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.row_findings import DEVICE, HOT, RowFinding, loop_rows
from h2dlint.analysis.row_reductions import RowReduction, list_row_reduction, tensor_row_reduction
from h2dlint.analysis.row_shapes import SIZE_METHODS
from h2dlint.analysis.row_waits import waiting_value
from h2dlint.analysis.sync_basics import SYNC_BUILTINS, RowLoop, Walk
from h2dlint.analysis.syncs import row_loop
from h2dlint.analysis.tensor_kinds import is_tensor
from h2dlint.analysis.tensor_type_arms import in_non_tensor_arm
from h2dlint.analysis.unproven_rows import unproven_rows_on_host
from h2dlint.analysis.value_syncs import TEST_METHODS
from h2dlint.diagnostics import Confidence, FixSafety
from h2dlint.rule import ComprehensionVisits, Invalid, Rule, Valid, snippet
from h2dlint.walk import holds

ATOMS = (cst.Name, cst.Attribute, cst.Subscript, cst.Call)
# The methods that make a tensor an `if` or `while` test (see syncs.tensor_test).
_ROW_LOOPS = (
    "While|Name|Attribute|Subscript|enumerate|range|zip|.unbind|.tolist"
    "|.split|.chunk|.tensor_split|.split_with_sizes|.values|.items|sorted|reversed"
)
_TESTS = "|".join(f".{name}" for name in sorted(TEST_METHODS))


class SyncPerRow(ComprehensionVisits, Rule):
    """## What it does
    Flags a Python loop or comprehension that reads a tensor on the host once per row:
    `.item()`, `.tolist()`, `int()`, `float()` or `bool()` of each row, a blocking copy of it to
    the host (`.cpu()`, `.to("cpu")`, or a write of the row into an element of a host tensor or
    numpy array: `order[i, j] = yhat[k]`), a tensor of it as an `if` test (`if (x[i] > 0).any():`),
    an op whose output size depends on the row's values in a walk of the rows themselves
    (`for mask in masks: y, x = torch.where(mask != 0)`, one argument: `nonzero`; `.nonzero()`,
    `torch.unique`, `masked_select`, `argwhere`; an index walk, `for e in range(n_experts):
    torch.where(expert_mask[e])`, picks groups with their own work and is left to HTD202),
    or a row used as a slice bound or a size (`ids[:l]`, `x[start:end]`, `torch.arange(n)`,
    `range(n)`: Python reads the 0-d tensor's `__index__`),
    whether the loop iterates the tensor itself (`for r in t`, `enumerate(t)`, one argument of
    `zip(...)`, `t.unbind(0)` or a name bound to it), the items of a Python list of tensors each
    proven on the device (`counts = [torch.zeros(1, device=d) for _ in range(world)]`, filled
    by `all_gather`, then `[c.item() for c in counts]`), its pieces (`t.split(n)`,
    `torch.chunk(t, k)`, `t.tensor_split(idx)`, `t.unbind(1)`, also through a name bound to
    them: one sync per piece, and no per-row fix) or indexes it
    (`for i in range(len(t))` with `t[i].item()`) by a position the loop's items give
    (`for req in reqs: logprobs[req.idx].item()`, `[scores[i].item() for i in ids.tolist()]`,
    one read per item whatever the items are) or by a counter the body adds 1 to (`yhat[idx]`,
    `idx += 1`), also through a local name bound to the row
    (`g = torch.as_tensor(row, dtype=torch.long)`, which stays on the row's device). The rows
    of an object that wraps one tensor count too (a class that stores a tensor parameter in an
    attribute, moves itself with `.cpu()`/`.to()`, and slices that attribute in `__getitem__` and
    its properties, or yields its rows from `__iter__`: ultralytics' `Boxes`, detectron2's):
    `for d in boxes: int(d.cls)` reads one scalar of the wrapped tensor per box (MEDIUM unless
    the objects were made in the function of a tensor whose placement is known; a wrapper's
    `.cpu()` copy walks host rows). Also flags
    a `while` loop that reads a device tensor on every iteration (`while not done.all():`,
    `while x[i].item() > 0:`), and the `.tolist()` round trip that multiplies or sums each row in
    Python (`[math.prod(r) for r in grid.cpu().tolist()]`, `[t * h * w for t, h, w in
    grid.tolist()]`) where one vectorised op does it. A row used as a truth value calls
    `Tensor.__bool__`, a sync each: `if y[i]:`, `if not y[i]:`, `if ok and y[i]:`, `x if y[i]
    else z`, `[i for i in range(n) if keep[i]]`, `flag = y[i] and z`, `not y[i]` (and a row's
    comparison there: `flag = y[i] > 0 or z`), reported where `y` is proven on a device or
    surely a tensor on a hot path (a Python list's, a numpy array's or a `.tolist()`'s rows are
    truth values too; not in an `assert`). Also a builtin that walks a tensor and
    tests each element on the host, `max(t)`, `min(t)`, `sorted(t)`, `any(t)`, `all(t)` (one
    sync per element; `t.max()` is one kernel): where `t` is proven on a device, and with MEDIUM
    confidence where it is surely a tensor of unknown device on a hot path. Not `max(a, b)`,
    builtins of Python values or host tensors, `sum(t)` (it adds on the device), nor checks in
    `assert` and `raise`.

    Where the analysis proves the tensor is on a device, the finding says it syncs once per row
    (MEDIUM, naming the call, where the rows are those of what a submodule's call returned,
    `edges = self.network(x)`: a module may return a tuple or list of tensors, whose items a
    loop copies whole; not reported where a comprehension only copies each of them to the host,
    `[e.detach().cpu().numpy() for e in edges]`: nothing is queued between the copies, so only
    the first waits).
    Where it proves the tensor is on the host (no sync there), or names say so (`cpu_ids`, a
    `..._cpu` reference function, not one named for moving to the host: `outputs_to_host`), or
    it is numpy data, the rule is silent. Where the device is unknown, it reports only what is
    surely a tensor walked row by row (a parameter annotated as one `torch.Tensor`, or `for i in
    range(t.shape[0])` reading `t[i]`), as per-row Python overhead with MEDIUM confidence (the
    sync is certain only when the tensor is on a device: serving engines that sample on the CPU
    walk host rows this way); and, with MEDIUM confidence, a loop on a hot path (see below)
    whose rows are surely tensors (a row goes into a `torch.*` call or `.cpu()`, or is read
    with `.item()`/`.tolist()` itself, `cu_seqlens[i].item()`, which only arrays have): the message
    says which tensor would have to be on the GPU. Whole items copied to the host (`[t.cpu() for
    t in xs]`) count only when `xs` is a parameter annotated as a sequence of tensors (`outputs:
    list[torch.Tensor]`): items of unknown kind are often offloaded by design. Such a
    parameter's items are read one by one (MEDIUM) where the loop walks it itself (`for g in
    grads`, `enumerate(grads)`, `range(len(grads))`; not as one of `zip`'s arguments) and reads
    an item through tensor operations only (`d: torch.Tensor = torch.dot(g_i, g)` then `if d <
    0:`, `(losses[i] / w[i]).item()`; not through a call of an unknown function, whose result
    may be anything). Where the read is of a value the body computed from the row in earlier
    statements (`keep = ~near_edge(box, row)`, `if not torch.all(keep):`), the message names
    that value, which is what waits. The items of a
    sequence whose item's device the function reads (`device = preds[0][0].device`) are
    tensors, also walked through a comprehension that flattens it (`[b.tolist() for bs in
    preds for b in bs]`: one read per item). A `range(0, n,
    chunk)` loop (a step that is no literal) walks chunks, not rows. A `while` loop is reported
    when the tensor it reads is proven to be on a device; where the device is unknown, with
    MEDIUM confidence, when it walks the rows of a tensor by a counter (`while n < k and
    draft[n].item() == target[n].item(): n += 1`) or reads a tensor on a hot path. Rows are
    surely tensors when the tensor is a parameter or a dataclass field annotated as one (or a
    bare parameter of a `@torch.jit.script` function, which TorchScript types `Tensor`), a
    `torch.*` result, what a function or module of the project returns by its annotation
    (`sampled, _ = self.sampler(logits)` with `forward(...) -> tuple[torch.Tensor, ...]`), a
    row of such a tensor (`for seq in t`, then `for length in seq[seq > 0]`), or a name bound
    only to such values; then an `enumerate` counter that
    indexes them counts as a row loop too. Rows of host tensors (`torch.tensor(list)`
    without `device=`, `.cpu()` results, `.to("cpu", non_blocking=True)` results, numpy arrays)
    are never reported. A `while` loop that drains a Python collection (`while xs: x =
    xs.pop()`) is a for-each loop over its items: only reads of the item taken count. Not
    reported either: the host copy of what a module or helper returns for each row or
    chunk (`out = module(chunk)`, `outs.append(out.cpu())`: the work's output leaving, as
    chunked calibration offloads it), nor a loop over objects read for a field no tensor has
    (`for hyp in nbest_hyps: hyp.yseq.tolist()`: beam hypotheses, requests). Not flagged: a
    single read after the loop, one `.tolist()` followed by a Python loop that does other work
    per row, loops over Python lists, reads in a branch taken once every N iterations (`if
    step % 100 == 0`), and reads of a row's shape only. Where the rows are not proven on a
    device (MEDIUM), also not: code in a folder of a runtime that runs the model on the host
    (`openvino/`, `coreml/`, `cortex_m/`) or of data loading (`datasets/`, `preprocessors/`,
    `data_module/`, outside a torch module's class), a text tokenizer's `decode` (a class named
    `...Tokenizer` that is no torch module), a plain augmentation class's method taking the batch
    type of a dataset module (the loader's batch augmentor), a row read through `.numpy()` with
    no move before it (`.numpy()` raises on a device tensor), and a read in an `except
    Exception:` handler (the error path).

    A function is on a *hot path* when it runs per step or per request: `forward` or
    `__call__` of a class, a step-like entry point by name (`step`, `training_step`,
    `execute_model`, `prepare_inputs`, `schedule`, `sample`, `decode`, `handle`...), or a
    function the same module calls from one (`self.method(...)`, a module function), but never
    run-once code (`__init__`, setup, loaders, memoised functions). Configure it with
    `[tool.h2dlint.analysis] hot-functions = [...]` and `cold-functions = [...]` (names,
    `Class.method`, globs).

    The finding is placed at the read that waits (`t[i].item()`, the `if` test, the `while`
    test), not at the loop, so an annotation points at the sync; a `for` loop or comprehension
    gets one finding per distinct read (`cu[i].item()` and `cu[i + 1].item()` are two lines to
    change; `int(t[i].item())` is one read, and the same read of the same tensor twice on one
    line is one finding). A `# noqa: HTD201` on the loop's first line covers all of them.

    ## Why is this bad?
    Each `.item()`, `.tolist()`, `int(t)` or `float(t)` of a CUDA tensor copies to the host and
    waits for the stream: a loop over rows pays one synchronisation per row, and behind queued
    work each of them waits for all of it. Measured on an H200 (torch 2.11), reading the product
    of each row of a `[64, 3]` grid with `.item()` took 1.73 ms against 0.05 ms for one
    `torch.prod(grid, dim=-1).tolist()` (16 rows: 0.46 ms against 0.04 ms). Iterating a device
    tensor directly yields 0-d device tensors, and every one used as a Python number syncs.

    The `.tolist()` round trip (`.cpu()` in front changes nothing: `.tolist()` of a device
    tensor copies too) is one transfer followed by a Python loop per row; the vectorised op
    computes all rows at once and transfers only the result.

    ## Example
    ```python
    tokens = [int(torch.prod(row).item()) for row in grid_thw]
    sizes = [math.prod(row) for row in grid_thw.cpu().tolist()]
    ```

    ## Use instead
    ```python
    tokens = torch.prod(grid_thw, dim=-1).tolist()
    sizes = grid_thw.prod(dim=-1).tolist()
    ```
    Where a loop does other work per row, convert once before it (`rows = t.tolist()`) and
    loop over the Python list.

    ## Fix safety
    The fix is unsafe. It rewrites a list comprehension that reduces each row of a tensor to its
    product or sum (`int(torch.prod(r).item())`, `r.sum().item()`, `math.prod(r)`, `sum(r)`,
    `functools.reduce(operator.mul, r)`, `t * h * w` over the unpacked row) into
    `t.prod(dim=-1).tolist()` (or `torch.prod(t, dim=-1).tolist()`, as the code spelled it).
    For the 2-D integer tensors this is written for (image grids, shapes, lengths) the values
    and their Python types are the same, but:

    - for a floating tensor the product or sum is computed in the tensor's dtype on the device,
      not in Python floats, and in another order: results can differ in the last bits, and an
      `int(...)` around each row's value (truncation) is dropped;
    - `torch.prod`/`sum` of `int64` wrap around where Python integers do not overflow;
    - the tensor must be 2-D: for other shapes `dim=-1` reduces something else, and rows of
      the wrong length no longer raise on unpacking.

    Loops with other work per row, and `for` statements, are reported without a fix.
    """

    code = "HTD201"
    name = "sync-per-row"
    message = "a tensor is read on the host once per row (a device sync each) in a Python loop"
    fix_safety = FixSafety.UNSAFE
    fix_message = "reduce all rows in one vectorised op and transfer once"
    # Plain markers: `int(` also occurs in `print(`, but the ast candidates below decide; a
    # finer byte pattern per builtin cost more to scan than it saved.
    prefilter = (
        b".item(",
        b".tolist(",
        b".cpu(",
        b".to(",
        *(f".{name}(".encode() for name in sorted(TEST_METHODS)),
        *(f"{name}(".encode() for name in sorted(SYNC_BUILTINS)),
        *(f"{name}(".encode() for name in sorted(WALKING_BUILTINS)),
        # a row as a size (`torch.arange(h)`, `range(n)`, `x.repeat(n, 1)`): rotary positions
        # built from each row of a grid have no other marker
        b"range(",
        b"] *",  # a row as a repeat count of a list (`[i] * seq_len`)
        *(f"{name}(".encode() for name in ("zeros", "ones", "empty", "full", "rand")),
        *(f".{name}(".encode() for name in sorted(SIZE_METHODS)),
        b"while ",  # a comparison tested in a `while` loop (`if nxt == eos: break`)
    )
    # A sync in a loop: of a loop variable (a row), of a local name bound to a row in the loop
    # body (which no pattern can follow), or in a `while` loop; or a loop over `.tolist()`.
    # Rows are walked only by loops over what row_loop and counter_loop take (a name, an
    # attribute, a subscript, `enumerate`, `range`, `.unbind()`, `.tolist()`).
    # A `.to()` reads back only as `.to("cpu")` or `.to(device="cpu")` (host_copy).
    candidates = (
        f"loop .item|.tolist|.cpu|{_TESTS}|{'|'.join(sorted(SYNC_BUILTINS))} in {_ROW_LOOPS}",
        f"loop .to arg Literal in {_ROW_LOOPS}",
        f"loop .to(device=) in {_ROW_LOOPS}",
        "iter .tolist",
        # a row as a slice bound (`ids[:l]`) or a size (`torch.arange(n)`, `range(n)`)
        f"loop @subscript arg Slice in {_ROW_LOOPS}",
        # a row written into a host tensor's element (`order[i, j] = yhat[idx]`)
        f"loop @subscript arg Store in {_ROW_LOOPS}",
        f"loop .arange|.zeros|.ones|.empty|.rand|.randn|.full|range in {_ROW_LOOPS}",
        f"loop {'|'.join('.' + m for m in sorted(SIZE_METHODS))} in {_ROW_LOOPS}",
        # a row as a repeat count in an argument (`indices.extend([i] * seq_len)`)
        f"loop * arg BinOp in {_ROW_LOOPS}",
        # a builtin that walks a tensor and tests each element (`max(t)`, `any(t)`)
        f"{'|'.join(sorted(WALKING_BUILTINS))} arg Name|Attribute|Subscript|Call",
        # a comparison as an `if` test on every iteration of a `while` loop
        "loop @if arg Compare in While",
    )

    valid = (
        # Session 51 (lead): the same membership test of a list's row, or of a host copy's.
        Valid(
            """
            import torch
            def pick(rows: torch.Tensor, tok: int):
                rows = rows.tolist()
                out = []
                for i in range(len(rows)):
                    if tok in rows[i]:
                        out.append(i)
                return out
            """
        ),
        # Session 51 (wrap51): the wrapper moved to the host once before the loop (the fix of
        # ultralytics PR 25230), one made of a numpy array, and a numpy-only holder with no
        # device methods (supervision's `Detections`): host rows.
        Valid(
            """
            import numpy as np
            import torch
            class Boxes:
                def __init__(self, data: torch.Tensor | np.ndarray) -> None:
                    self.data = data
                def cpu(self):
                    return Boxes(self.data.cpu())
                def __getitem__(self, idx):
                    return Boxes(self.data[idx])
                @property
                def cls(self):
                    return self.data[:, -1]
            class Results:
                def __init__(self, boxes: torch.Tensor):
                    self.boxes = Boxes(boxes)
                def plot(self, names):
                    pred_boxes = self.boxes.cpu()
                    for d in reversed(pred_boxes):
                        print(names[int(d.cls)])
            def host(rows: np.ndarray):
                return [int(d.cls) for d in Boxes(rows)] + [int(d.cls) for d in Boxes(rows).cpu()]
            def numbered(rows: np.ndarray):
                boxes = Boxes(rows)
                return [int(d.cls) for d in boxes]
            """
        ),
        Valid(
            """
            import numpy as np
            class Detections:
                def __init__(self, xyxy: np.ndarray, class_id: np.ndarray) -> None:
                    self.xyxy = xyxy
                    self.class_id = class_id
                def __getitem__(self, idx):
                    return Detections(self.xyxy[idx], self.class_id[idx])
                @property
                def x1(self):
                    return self.xyxy[:, 0]
            def lefts(detections: Detections):
                return [int(d.x1) for d in detections]
            """
        ),
        # Session 51 (mine51a): `zip(..., strict=True)` pairs the same rows as `zip(...)`: rows
        # of host copies (trl 1.0.0 `grpo_trainer.py:1375`, after upstream's PR 5218) are
        # Python-side work, no sync per row.
        Valid(
            """
            import torch
            class Trainer:
                def _generate(self, model, inputs):
                    ids = model.generate(**inputs)
                    mask = ids != 0
                    return [c[m].tolist() for c, m in zip(ids.cpu(), mask.cpu(), strict=True)]
                def training_step(self, batch):
                    return self._generate(self.model, batch)
            """
        ),
        # Session 50 (triage50a): past `if x.device != torch.device("cpu"): x = x.to("cpu")` the
        # name is on the host on both paths (SkyRL 0.3.0 `workers/worker.py:1078`).
        Valid(
            """
            import torch
            class Worker:
                def forward(self, data):
                    output = torch.cat([self.model(mb) for mb in data])
                    if output.device is not None and output.device != torch.device("cpu"):
                        output = output.to("cpu")
                    return [{"logprobs": output[i].tolist()} for i in range(output.shape[0])]
            """
        ),
        # Session 50 (triage50a): identity tests and comparisons of a row's device or sizes are
        # Python bools (OLMo-core 3.0.0 `nn/moe/v2/te/cpu_offload.py:240`).
        Valid(
            """
            import torch
            class Handler:
                def reload(self, bank, entries):
                    for i, (dev, backup) in enumerate(entries):
                        need_new = (
                            (i >= len(bank))
                            or (bank[i] is None)
                            or (bank[i].device != dev)
                            or (tuple(bank[i].size()) != tuple(backup.size()))
                        )
                        if need_new:
                            bank[i] = torch.empty(backup.size(), device=dev)
                        bank[i].copy_(backup, non_blocking=True)
                def forward(self, bank, entries):
                    self.reload(bank, entries)
            """
        ),
        # Session 50 (recall50b): a `while` loop of host bookkeeping around a helper named for
        # no step is no loop of steps; a sampler's helper returning a Python number in one arm
        # is no tensor (INVALID twins: torchode's solver, transfusion's sampler).
        Valid(
            """
            import torch
            class Adjoint(torch.nn.Module):
                def solve(self, problem, term=None, dt0=None):
                    t_eval = problem.t_eval
                    y, t = problem.y0, problem.t_start
                    while True:
                        y, t = self.step_method.advance_bookkeeping(term, y, t, dt0)
                        passed = (t[:, None] - t_eval >= 0.0)
                        if passed.any():
                            y = y * 2
                        if done:
                            break
                    return y
            """
        ),
        Valid(
            """
            import torch
            def sample_token(logits, temperature=1.0):
                if temperature == 0.0:
                    return int(logits.argmax())
                return torch.multinomial((logits / temperature).softmax(dim=-1), 1)
            class Transfusion(torch.nn.Module):
                def sample_one(self, seq, max_length=2048):
                    while seq.shape[-1] <= max_length:
                        sampled = sample_token(self.forward(seq)[0][-1])
                        seq = torch.cat((seq, torch.tensor([[sampled]])), dim=-1)
                        if sampled == self.eos_id:
                            break
                    return seq
            """
        ),
        # Session 49 (recall49): the look-alike of the `torch.equal` loop in `invalid`: values
        # of unknown kind compared (a list of floats compares on the host).
        Valid(
            """
            import torch
            def _grid_search_step(history, total_steps: int):
                idx = 0
                while idx < total_steps:
                    if torch.equal(history[-1], history[-2]):
                        break
                    idx += 1
                return history
            """
        ),
        # Session 49 (fp1xx49): a field of a `@dataclass(kw_only=True)` that every
        # construction fills with a host tensor (fish-speech's `EncodedMessage.tokens`, built
        # by `encode()` from `torch.tensor` of token lists): host rows (provenance/fields,
        # which took no `kw_only` dataclass before). The twin, built on the device, is in
        # `invalid`.
        Valid(
            """
            from dataclasses import dataclass
            import torch
            @dataclass(kw_only=True)
            class Encoded:
                tokens: torch.Tensor
                labels: torch.Tensor
            class Sequence:
                def encode(self, tokenizer, parts) -> Encoded:
                    all_tokens = [torch.tensor(tokenizer.encode(p)) for p in parts]
                    tokens = torch.cat(all_tokens, dim=0)
                    return Encoded(tokens=tokens, labels=tokens.clone())
                def visualize(self, tokenizer, parts):
                    encoded = self.encode(tokenizer, parts)
                    for tok in encoded.tokens:
                        print(tokenizer.decode([int(tok.item())]))
            """
        ),
        # Session 49 (fp1xx49): rows of a dict parameter's field that every call fills with a
        # default-collated DataLoader batch (fastvideo's preprocessing pipelines: the frames of
        # `valid_data["pixel_values"]` turned into images one by one): host rows
        # (passed_fields). The twin, a field filled with a model's output, is in `invalid`.
        Valid(
            """
            import numpy as np
            import torch
            from PIL import Image
            from torch.utils.data import DataLoader
            class Pipeline:
                def features(self, valid_data):
                    first_frame = valid_data["pixel_values"][:, :, 0].permute(0, 2, 3, 1)
                    return [Image.fromarray(f.cpu().numpy().astype(np.uint8)) for f in first_frame]
                def forward(self, dataset, workers):
                    loader = DataLoader(dataset, batch_size=8, num_workers=workers)
                    for data in loader:
                        keep = [i for i, p in enumerate(data["pixel_values"]) if p.any()]
                        valid_data = {
                            "pixel_values": torch.stack([data["pixel_values"][i] for i in keep]),
                            "text": [data["text"][i] for i in keep],
                        }
                        latents = self.vae.encode(valid_data["pixel_values"].to("cuda"))
                        self.save(latents, self.features(valid_data))
            """
        ),
        # Session 49 (triage49b): the rows of a field a dataclass declares `np.ndarray`
        # (alphafold3-pytorch's `Biomolecule.restype`, walked per residue by `to_mmcif`).
        Valid(
            """
            import dataclasses
            import numpy as np
            import torch
            @dataclasses.dataclass
            class Structure:
                restype: np.ndarray
            def describe(s: Structure, order):
                restype = s.restype
                unique_restype = restype[order]
                names = []
                for i in range(unique_restype.shape[0]):
                    if unique_restype[i] == 32:
                        names.append(i)
                return names
            """
        ),
        # Session 48 (peritem48): a read in the arm of a tensor type test that runs only for
        # a number (fastvideo's LTX-2 denoising step: `float(sigma)` in the `else` of
        # `isinstance(sigma, torch.Tensor)`), as a conditional expression and as a statement.
        Valid(
            """
            import torch
            def denoise(latents, steps):
                sigmas = torch.linspace(1.0, 0.0, steps + 1, device=latents.device)
                for i in range(steps):
                    sigma = sigmas[i]
                    s = sigma.float() if isinstance(sigma, torch.Tensor) else float(sigma)
                    if not torch.is_tensor(sigma):
                        s = s + float(sigma)
                    latents = latents * s
                return latents
            """
        ),
        # Session 45 (miss45): the twins of the items of a sequence of tensors in `invalid`:
        # a `zip` of two lists read through an unknown function (amd-quark's blockwise tuning,
        # `loss_func(out, target)`: its result may be anything, and the `.cpu()` beside it is
        # HTD202's), an object's method of each item, whole items copied (offloading), and a
        # `list[int]` parameter's items scaled and compared.
        Valid(
            """
            from typing import List
            import torch
            def tune(outs: List[torch.Tensor], targets: List[torch.Tensor], loss_func, kept):
                for out, target in zip(outs, targets):
                    loss = loss_func(out, target)
                    kept.append(loss.item())
            def score(grads: List[torch.Tensor], scorer, kept):
                for g in grads:
                    s = scorer.score(g)
                    if s > 0:
                        kept.append(g.cpu())
            def scaled(lengths: list[int], ratio: float):
                for n in lengths:
                    m = n * ratio
                    if m > 8:
                        return m
            """
        ),
        # Session 47 (fp1xx47): a method the module's `Dataset` calls per sample from its
        # `__getitem__` (fairseq's `NoisingDataset` and its noiser): the loader's host data
        # (sample_transforms). The twin, a torch module the dataset calls, is in `invalid`.
        Valid(
            """
            import torch
            class WordDropout:
                def noising(self, x, lengths):
                    return [x[: lengths[i], i].tolist() for i in range(lengths.size(0))]
            class NoisingDataset(torch.utils.data.Dataset):
                def __init__(self, src, noiser):
                    self.src = src
                    self.noiser = noiser
                def __getitem__(self, index):
                    tokens = self.src[index]
                    lengths = torch.LongTensor([len(tokens)])
                    return self.noiser.noising(tokens.unsqueeze(1), lengths)
            """
        ),
        # Session 47 (fp1xx47): rows of a parameter that every call of the function passes on
        # the host, a `.cpu()` copy or a buffer named for the CPU (kestrel's
        # `render_tokens_from_packed`): host rows (host_callers). The twin, a call passing a
        # tensor of unknown place, is in `invalid`.
        Valid(
            """
            from torch import Tensor
            def render(ids: list[int], coord_values: Tensor):
                return [float(coord_values[i, 0].item()) for i in range(len(ids))]
            def finish(slot, ids, n):
                slot.done_event.synchronize()
                return render(ids, slot.coord_cpu[:n])
            def finish_sync(ids, coord_out):
                return render(ids, coord_out.cpu())
            """
        ),
        # Session 46 (fp1xx46): a module in numpy that imports no torch and calls no tensor
        # method (modelscope's COCO metric over mmdet-style results): host arrays (numpy_modules).
        Valid(
            """
            import numpy as np
            def proposals_to_json(img_ids, results):
                json_results = []
                for idx in range(len(img_ids)):
                    bboxes = results[idx]
                    for i in range(bboxes.shape[0]):
                        json_results.append(dict(image_id=img_ids[idx], score=float(bboxes[i][4])))
                return json_results
            """
        ),
        # Session 44 (triage44): a dict of named outputs looked up by key after a membership
        # test (SchNetPack's calculator): each name's whole tensor copied once (keyed_outputs).
        Valid(
            """
            import torch
            from torch import nn
            class Calculator:
                def __init__(self, model: nn.Module, property_units, device="cuda"):
                    self.device = torch.device(device)
                    self.property_units = property_units
                    self.model = model.eval()
                    self.model.to(device=self.device)
                def calculate(self, inputs):
                    property_keys = list(self.property_units.keys())
                    model_results = self.model(inputs)
                    results = {}
                    for prop in property_keys:
                        if prop in model_results:
                            results[prop] = model_results[prop].detach().cpu().numpy()
                    return results
            """
        ),
        # Session 44 (rows44): the twins of the declared tensors in `invalid`: a field declared
        # as a list of ints, a parameter annotated as one, scaled and compared in an `if`.
        Valid(
            """
            from typing import NamedTuple
            import torch
            class Packed(NamedTuple):
                cu_seqlens: list[int]
                batch_size: int
            def scatter(flat: torch.Tensor, packed: Packed, lengths: list[int], ratio: float):
                cu = packed.cu_seqlens
                src = []
                for b in range(packed.batch_size):
                    if 8 >= lengths[b] * ratio:
                        continue
                    src.append(torch.arange(int(cu[b]), int(cu[b]) + 4, device=flat.device))
                return src
            """
        ),
        # Session 43 (truth43): rows of a `.tolist()`, a list or a numpy array as truth values.
        Valid(
            """
            import numpy as np
            import torch
            def pick(x, n, flags: list[bool]):
                keep = (x.cuda() > 0).tolist()
                mask = np.ones(n, dtype=bool)
                return [i for i in range(n) if keep[i] and flags[i] and mask[i]]
            """
        ),
        # Session 37 (triage37): the twin of the greedy decoder in `invalid`: a Python counter
        # compared in the `while` loop that runs the model is no tensor read.
        Valid(
            """
            import torch
            def greedy(model, ids, eos, max_new):
                step = 0
                while True:
                    ids = torch.cat([ids, model(ids)[:, -1:]], dim=-1)
                    step += 1
                    if step == max_new:
                        break
                return ids
            """
        ),
        # Session 36 (recall36): the twins of the flattened hypotheses in `invalid`: nothing
        # says the items are tensors (they may be lists of ints); a per-row read in an
        # `assert` (a check, or its message, built only when it fails); the indices
        # `torch.where` finds in a host tensor are on the host.
        Valid(
            """
            import torch
            def forward(predictions, logprobs):
                flat = [best.tolist() for bests in predictions for best in bests]
                assert len(flat) > 0, [v.item() for v in logprobs]
                tokens = torch.tensor(flat[0]).int()
                ends = torch.where(tokens.ge(5))[0]
                return [e.item() for e in ends]
            """
        ),
        # Session 36 (recall36, petals 2.2.0's `sequential_backward`): the device of the
        # given gradients is read, but the name is rebound to their host copies before the
        # loop copies them again.
        Valid(
            """
            import torch
            def backward(grad_outputs, send):
                device = grad_outputs[0].device
                grad_outputs = [g.cpu() for g in grad_outputs]
                for attempt in range(3):
                    send([g.cpu() for g in grad_outputs])
                return device
            """
        ),
        # Session 39 (triage39, TransformerLens' coordinate patch): the items of a list made
        # from a display of three vectors: three reads, however large the data, as a loop
        # over the display itself.
        Valid(
            """
            import torch
            def check(reconstruction, inside, outside, device):
                vectors = (reconstruction, inside, outside)
                local = [v.float().to(device) for v in vectors]
                if not all(bool(torch.isfinite(v).all()) for v in local):
                    raise ValueError("non-finite")
                return local
            """
        ),
        # Session 39 (triage39, SwissArmyTransformer's model-parallel merge): a layer's weight
        # shards gathered on the device and copied to the host one by one to be merged (a
        # checkpoint's or a merge's copies: whole weights, by design; a list of other device
        # tensors read item by item, `gather_counts` in INVALID, is still reported).
        Valid(
            """
            import torch
            def merge_rank0(sub_module, full, device):
                new_weights = [w.to(device) for w in sub_module.partition()]
                torch.distributed.gather(full.weight.data, gather_list=new_weights, dst=0)
                full.merge([torch.clone(x.cpu()).detach() for x in new_weights])
            """
        ),
        # Session 41 (gloo41, detectron2's `comm.all_gather`, copied into yolox and effdet):
        # the buffer goes to `torch.device("cpu" if backend == "gloo" else "cuda")`, the
        # default group a gloo one: the size list made with `device=tensor.device` of that
        # buffer is where the choice put it, not on the device by its name (the same list of a
        # `torch.device("cuda")` buffer is in INVALID); and a list gathered on a gloo group
        # holds host tensors (gloo gathers take CPU tensors only; NCCL's twin in INVALID).
        Valid(
            """
            import torch
            import torch.distributed as dist
            def _serialize(data, group):
                device = torch.device("cpu" if dist.get_backend(group) == "gloo" else "cuda")
                return torch.ByteTensor(torch.ByteStorage.from_buffer(data)).to(device=device)
            def _sizes(tensor, group, world):
                sizes = [torch.zeros(1, device=tensor.device) for _ in range(world)]
                dist.all_gather(sizes, tensor.new_tensor([tensor.numel()]), group=group)
                return [int(s.item()) for s in sizes]
            def all_gather(data, group, world):
                return _sizes(_serialize(data, group), group, world)
            """
        ),
        Valid(
            """
            import torch
            import torch.distributed as dist
            class Coordinator:
                def __init__(self, ranks):
                    self.cpu_group = dist.new_group(ranks, backend="gloo")
                def gather_counts(self, local, world):
                    counts = [torch.zeros(1, device=local.device) for _ in range(world)]
                    dist.all_gather(counts, local, group=self.cpu_group)
                    return [c.item() for c in counts]
            """
        ),
        # Session 35 (recall35): the negated bounds of host ints, read once with `.tolist()`
        Valid(
            """
            import torch
            def pool(hidden, mask, device):
                lengths = mask.to(device).sum(dim=-1).tolist()
                return torch.stack([hidden[i, -n:, :].mean(0) for i, n in enumerate(lengths)])
            """
        ),
        # Session 33 (recall33b): the twin of the scripted helper in `invalid`, not scripted:
        # its bare parameters may be numpy arrays (which have `.item()` too), read for free.
        Valid(
            """
            import torch
            def half_lse(lse, cu_seqlens):
                for i in range(len(cu_seqlens) - 1):
                    seqlen = (cu_seqlens[i + 1] - cu_seqlens[i]).item()
                    lse[i, :seqlen] = 0
                return lse
            """
        ),
        # Session 31 (recall31): `max()` of two values compares them in Python; of rows of a
        # `.tolist()` read once before the loop, they are Python floats: no read per row.
        Valid(
            """
            import torch
            def best_per_row(scores: torch.Tensor, best: list[float]):
                rows = scores.cuda().tolist()
                for i in range(len(best)):
                    best[i] = max(rows[i], best[i])
                return best
            """
        ),
        # Session 31 (recall31): an attribute unpacked from an own method whose returns are
        # moved to the host: its rows are host rows, however often `max()` compares them.
        Valid(
            """
            import torch
            class Beam:
                def _pick(self, log_probs):
                    scores, ids = torch.topk(log_probs, 2, dim=-1)
                    return scores.cpu(), ids.cpu()
                def step(self, log_probs, best):
                    self.scores, self.ids = self._pick(log_probs)
                    for j in range(self.scores.shape[1]):
                        best[j] = max(self.scores[0, j], best[j])
            """
        ),
        # Session 29 (precision29, fairseq's vq-wav2vec featuriser): each chunk's codes are
        # copied to the host in every arm of an `if`/`else` (one inside a `with` block), so
        # the unpacked codes of unknown place bound before no longer reach the join; its rows
        # are host rows.
        Valid(
            """
            import torch
            class Writer:
                def __call__(self, samples):
                    for wav in samples:
                        chunks = []
                        for x in wav.cuda().chunk(4, dim=-1):
                            _, codes = self.model.quantize(x)
                            if self.per_frame:
                                with torch.no_grad():
                                    codes = codes.squeeze(0).cpu()
                            else:
                                codes = codes.flatten(1).cpu()
                            chunks.append(codes)
                        codes = torch.cat(chunks)
                        yield " ".join(str(row.tolist()) for row in codes)
            """
        ),
        # Session 29 (precision29): every arm of the `if` makes a host tensor of the input or
        # raises, so the parameter of unknown kind never reaches the rows read.
        Valid(
            """
            import numpy as np
            import torch
            def score_rows(scores):
                if isinstance(scores, np.ndarray):
                    scores = torch.from_numpy(scores)
                elif isinstance(scores, list):
                    scores = torch.tensor(scores)
                else:
                    raise TypeError(type(scores))
                return [scores[i].item() for i in range(scores.shape[0])]
            """
        ),
        # Session 29 (precision29, exllamav2's dynamic generator): a method returns `None` or
        # its host buffer; the `None` never reaches the rows read, which are host rows.
        Valid(
            """
            import torch
            class Generator:
                def __init__(self, n):
                    self.draft_ids = torch.empty((8, n), dtype=torch.long)
                def draft(self, batch):
                    if not batch:
                        return None
                    self.draft_ids.copy_(self.model(batch).argmax(-1))
                    return self.draft_ids
                def step(self, batch, logits):
                    self.accept(logits, self.draft(batch))
                def accept(self, logits, drafts):
                    for i in range(logits.shape[1]):
                        if drafts is not None and drafts[0, i].item() != 0:
                            break
            """
        ),
        # Session 28 (eole 0.6.4's mask tests): a mask builder whose device follows its
        # argument (`device=pad_mask.device`), called with a host tensor, returns host rows,
        # though its other callers (the model) pass device tensors
        Valid(
            """
            import torch
            def causal_mask(pad_mask):
                idx = torch.arange(pad_mask.shape[-1], device=pad_mask.device)
                return idx[:, None] >= idx[None, :]
            def attention_bias(scores, pad_mask):
                return scores.masked_fill(~causal_mask(pad_mask), float("-inf"))
            def host_mask(n):
                return causal_mask(torch.zeros(1, n, dtype=torch.bool))
            def window_sizes(n):
                mask = host_mask(n)
                return [mask[q].nonzero().view(-1).tolist() for q in range(n)]
            """
        ),
        # Session 27 (precision27): a numpy array reshaped (or cast, copied) by its own method
        # is still a numpy array: its rows are host data (modelscope's SCRFD key points).
        Valid(
            """
            import numpy as np
            def parse(values):
                kps = np.array(values[4:19], dtype=np.float32).reshape((5, 3))
                for li in range(kps.shape[0]):
                    if (kps[li, :] == -1).all():
                        kps[li][2] = 0.0
                return kps
            """
        ),
        # Session 26 (heldout26): the same helper where the caller passes a list of ints
        # (annotated so), or where one call passes a value of unknown kind: no tensor proven.
        Valid(
            """
            import torch
            from torch import nn
            class Host(nn.Module):
                def unpack(self, q, lengths):
                    out = []
                    for i, n in enumerate(lengths):
                        out.extend([i] * n)
                    return out
                def forward(self, q: torch.Tensor, lengths: list[int]) -> torch.Tensor:
                    return self.unpack(q, lengths)
            class Mixed(nn.Module):
                def unpack2(self, q, lengths):
                    out = []
                    for i, n in enumerate(lengths):
                        out.extend([i] * n)
                    return out
                def forward(self, q: torch.Tensor, lengths: torch.Tensor, other) -> torch.Tensor:
                    return self.unpack2(q, lengths) + self.unpack2(q, other)
            """
        ),
        # Session 25 (variants25s): a request's state kept in a dict annotated with its class
        # (`self.states: dict[str, State]`); the class holds a `.cpu()` copy, so its rows are
        # host rows (the earlier triage's false alarms on serving code).
        Valid(
            """
            import torch
            class State:
                def __init__(self, grid_thw):
                    self.grid = grid_thw.cpu()
            class Runner:
                def __init__(self):
                    self.states: dict[str, State] = {}
                def execute_model(self, rid):
                    st = self.states[rid]
                    return [int(torch.prod(st.grid[i]).item()) for i in range(st.grid.shape[0])]
            """
        ),
        # Session 25: the items of a list read bare with `.item()` may be 0-d tensors kept on
        # the host on purpose (an optimizer's step counts, `torch.tensor(0.0)`): only a row
        # reduced first (`row.prod().item()`) says the loop walks a tensor's rows.
        Valid(
            """
            import torch
            class RowAdagrad(torch.optim.Optimizer):
                def step(self, closure=None):
                    for group in self.param_groups:
                        ps = [p for p in group["params"] if p.grad is not None]
                        steps = [self.state[p]["step"] for p in ps]
                        for param, step_t in zip(ps, steps):
                            step_t += 1
                            param.add_(param.grad, alpha=-0.01 / step_t.item())
            """
        ),
        # Session 25: the same sizes from a grid built on the host from Python lists, or from
        # its `.tolist()` rows and a list of ints.
        Valid(
            """
            import torch
            class VisionRope(torch.nn.Module):
                def forward(self, x: torch.Tensor, sizes: list[tuple[int, int, int]]):
                    grid = torch.tensor(sizes, dtype=torch.long)
                    out = []
                    for t, h, w in grid:
                        out.append(torch.arange(h).repeat(t))
                    for t, h, w in grid.tolist():
                        out.append(x[:1].repeat(t * h * w, 1))
                    for n in [s[1] for s in sizes]:
                        out.append(x.new_zeros(n, 4))
                    return out
            """
        ),
        # Session 25: the same in-place copy into a host buffer: host rows.
        Valid(
            """
            import torch
            class Runner:
                def __init__(self, n):
                    self.qsl_cpu = torch.zeros(n, dtype=torch.int32)
                def _last_tokens(self, offsets, n):
                    qsl = self.qsl_cpu[: n + 1].copy_(offsets)
                    return [qsl[i + 1].item() - 1 for i in range(n)]
            """
        ),
        # Session 25: the same loop in warm-up code runs once; a loop that drains a list.
        Valid(
            """
            import torch
            def warmup(model, input_ids: torch.Tensor, eos: int):
                done = torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)
                while not done.all():
                    nxt = model(input_ids)[:, -1].argmax(-1)
                    done |= nxt == eos
            def drain(queue):
                total = torch.zeros(())
                while queue:
                    total += queue.pop().sum()
                return total
            """
        ),
        # Session 25: a check in an `assert` (graph capture, tests, validation) is no per-row
        # work: `python -O` drops it, and HTD202 leaves asserts alone too.
        Valid(
            """
            import torch
            def check_outputs(out: torch.Tensor):
                for i in range(out.shape[0]):
                    assert out[i].isfinite().all().item()
            """
        ),
        # Session 39 (reads39): a comprehension that only copies each output of a submodule's
        # call to the host (a HED network's side outputs, tensors of their own sizes) queues
        # nothing between its copies: only the first waits for the call. Its twin that
        # computes on each output before reading it is in `invalid`.
        Valid(
            """
            import numpy as np
            import torch
            class Hed:
                def __init__(self):
                    self.network = torch.nn.Conv2d(3, 1, 1)
                def run(self, image):
                    x = torch.from_numpy(image).float().to("cuda")
                    edges = self.network(x)
                    return [e.detach().cpu().numpy().astype(np.float32)[0, 0] for e in edges]
            """
        ),
        # Session 23: every mask reduced at once, and `torch.where` of three arguments (an
        # elementwise choice of a fixed size) per row.
        Valid(
            """
            import torch
            def masks_to_boxes(masks: torch.Tensor) -> torch.Tensor:
                rows = torch.any(masks.bool(), dim=2)
                cols = torch.any(masks.bool(), dim=1)
                return torch.stack([cols.float().argmax(1), rows.float().argmax(1)], dim=1)
            def pick(scores: torch.Tensor, classes: torch.Tensor):
                out = []
                for row in scores:
                    out.append(torch.where(row > 0, row, classes))
                return out
            """
        ),
        Valid(
            """
            import torch
            def padding_mask(seqlens: list[int], max_len: int):
                rows = [[False] * n + [True] * (max_len - n) for n in seqlens]
                positions = torch.arange(max_len, device="cuda")
                return positions[None, :] >= torch.tensor(seqlens, device="cuda")[:, None]
            """
        ),
        # Session 19: the `else` of a type test says the rows are a list's, not a tensor's
        Valid(
            """
            import torch
            def add_lora(x: torch.Tensor, result: torch.Tensor, im_mask: torch.Tensor = None):
                x = x.to(result.dtype)
                if isinstance(im_mask, torch.Tensor) or len(im_mask) == 0:
                    return result
                else:
                    for start, end in im_mask:
                        result[:, start:end, :] += x[:, start:end, :]
                    return result
            """
        ),
        # A branch that runs only with an off-by-default diagnostic variable set (a NaN probe):
        # its rows are read while someone debugs, not per step. A switch named for a feature
        # (`USE_FAST`) or `or`-ed with another test still counts (INVALID twin).
        Valid(
            """
            import os
            import torch
            _NAN_DEBUG = os.environ.get("BAILING_NAN_DEBUG", "0") == "1"
            class Model(torch.nn.Module):
                def forward(self, h: torch.Tensor, rank: int):
                    h = self.norm(h)
                    if _NAN_DEBUG and rank == 0:
                        for i in range(h.shape[0]):
                            if torch.isnan(h[i]).any().item():
                                print(i)
                    return h
            """
        ),
        # Rows of tensors derived on the host from one copy of the counts (`torch.clamp_min` and
        # `torch.cumsum` of a host tensor stay on the host): one sync before the loop, none in it.
        Valid(
            """
            import torch
            class MoeBlock(torch.nn.Module):
                def forward(self, tokens, counts):
                    counts_cpu = counts.to(device="cpu", dtype=torch.int64)
                    total = torch.clamp_min(counts_cpu, 8)
                    offsets = torch.cumsum(total, dim=0) - total
                    for e in range(counts.shape[0]):
                        start = int(offsets[e])
                        tokens[start:start + 8] = 0
                    return tokens
            """
        ),
        # Items read for a field no tensor has (`hyp.yseq`): the loop walks objects (beam
        # hypotheses a search module returns), not the rows of a tensor.
        Valid(
            """
            import torch
            class BeamSearch(torch.nn.Module):
                def forward(self, x):
                    return self.search(x)
            class Asr(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.beam_search = BeamSearch()
                def inference(self, speech: torch.Tensor, device):
                    encoder_out = self.encoder(speech.to(device))
                    nbest_hyps = self.beam_search(x=encoder_out[0])
                    results = []
                    for hyp in nbest_hyps:
                        results.append(hyp.yseq[1:-1].tolist())
                    return results
            """
        ),
        # Slice bounds from Python ints: a list, `.tolist()` rows, a host copy, sizes.
        Valid(
            """
            import torch
            def pieces(x, lengths: list[int], lens, device):
                y = x.to(device)
                a = [y[:n] for n in lengths]
                b = [y[:n] for n in lens.tolist()]
                c = [y[:n] for n in lens.cpu()]
                d = [r[: r.shape[0] // 2] for r in y]
                return a, b, c, d
            class ImageProcessor:
                def crop(self, images: torch.Tensor, heights: torch.Tensor):
                    return [image[:h] for image, h in zip(images, heights)]
            """
        ),
        # Pieces accumulated on the device and read once; a string's pieces; a host tensor's.
        Valid(
            """
            import torch
            def loss(ref, out, n, device, line: str):
                total = torch.zeros((), device=device)
                for a, b in zip(torch.split(ref.to(device), n), torch.split(out.to(device), n)):
                    total += (a - b).pow(2).sum()
                widths = [int(part) for part in line.split(",")]
                counts = [c.sum().item() for c in torch.ones(8).chunk(4)]
                return total.item(), widths, counts
            """
        ),
        # Builtins that walk Python values, a host tensor, or compare two values once; a check.
        Valid(
            """
            import torch
            from torch import max as tmax
            class Layer(torch.nn.Module):
                def forward(self, x, lens: list[int], offsets: torch.Tensor):
                    longest = max(lens)
                    host = torch.tensor(lens)
                    widest = max(host)
                    n = max(x.shape[1], longest)
                    assert max(offsets) < n
                    top = tmax(offsets)
                    return x[:, : max(l for l in lens)], widest, top
            """
        ),
        # `.item()` of each element by a counter where the values may be anything: in a
        # function not known to run per step, in a reference implementation (`ref` beside
        # `impl`), and on a hot path where the name says numpy.
        Valid(
            """
            import torch
            def widest(cu_seqlens):
                return max(cu_seqlens[i + 1].item() - cu_seqlens[i].item() for i in range(3))
            def attention_varlen_forward_ref_impl(q, cu_seqlens):
                for i in range(len(cu_seqlens) - 1):
                    q[cu_seqlens[i].item()] = 0
                return q
            class Sampler(torch.nn.Module):
                def forward(self, logits, lens_np):
                    total = 0
                    for i in range(len(lens_np)):
                        total += lens_np[i].item()
                    return logits[:total]
            """
        ),
        # A `while` loop that counts through a Python list, and one through a tensor's rows
        # in a function not known to run per step whose tensor may be anything.
        Valid(
            """
            import torch
            def accepted(draft: list[int], target: list[int], k: int) -> int:
                n = 0
                while n < k and draft[n] == target[n]:
                    n += 1
                return n
            def scan(values, k):
                n = 0
                while n < k and values[n].item() > 0:
                    n += 1
                return n
            """
        ),
        # The same loop in a class that is no Lightning module: where the batch is, and what
        # its labels are, is unknown.
        Valid(
            """
            class Trainer:
                def training_step(self, batch, batch_idx):
                    losses = []
                    for latent, label in zip(batch["latents"], batch["labels"]):
                        losses.append(self.loss(latent, self.table[int(label)]))
                    return sum(losses)
            """
        ),
        # The element the annotation says is a list of Python numbers.
        Valid(
            """
            import torch
            class Sampler(torch.nn.Module):
                def forward(self, logits: torch.Tensor) -> tuple[list[int], torch.Tensor]:
                    return logits.argmax(-1).tolist(), logits.softmax(-1)
            class Runner:
                def __init__(self):
                    self.sampler = Sampler()
                def execute_model(self, logits, n):
                    sampled, _ = self.sampler(logits)
                    return [int(sampled[i]) for i in range(n)]
            """
        ),
        # Rows of a `torch.*` result by a counter, outside any hot path.
        Valid(
            """
            import torch
            def dump(logits: torch.Tensor, names: list[str]):
                logprobs = torch.log_softmax(logits, dim=-1)
                return {name: logprobs[i].cpu() for i, name in enumerate(names)}
            """
        ),
        # Whole items of unknown kind copied to the host (often offloading, by design); a list
        # of tensors copied outside any hot path.
        Valid(
            """
            import torch
            class Runner:
                def execute_model(self, saved):
                    return [t.cpu() for t in saved]
            def outputs_to_host(outputs: list[torch.Tensor]):
                return [o.cpu() for o in outputs]
            """
        ),
        # The tensor is proven to be on the host: no sync.
        Valid(
            """
            import torch
            def f(rows):
                grid = torch.tensor(rows)
                return [int(torch.prod(r).item()) for r in grid]
            """
        ),
        Valid(
            """
            import torch
            def f(grid: torch.Tensor):
                host = grid.cpu()
                return [r.prod().item() for r in host]
            """
        ),
        # One sync after the loop.
        Valid(
            """
            import torch
            def f(losses: torch.Tensor, n):
                total = losses.new_zeros(())
                for i in range(n):
                    total += losses[i]
                return total.item()
            """
        ),
        # One .tolist(), then a loop that does other work per row: not one vectorised op.
        Valid(
            """
            import torch
            def f(grid_thw: torch.Tensor, m):
                out = []
                for t, h, w in grid_thw.tolist():
                    out.append(torch.arange(t * h * w).view(t, h // m, w // m))
                return out
            """
        ),
        Valid(
            """
            import torch
            def f(grid_thw: torch.Tensor):
                return [(h // 2, w // 2) for t, h, w in grid_thw.tolist()]
            """
        ),
        # Session 29 (chain29, variant c21): the same dataclass made from host tensors
        # (`torch.tensor` and `torch.as_tensor` of annotated lists of ints): host rows.
        Valid(
            """
            from dataclasses import dataclass
            import torch
            @dataclass
            class Grids:
                thw: torch.Tensor
                vids: torch.Tensor
                scale: float = 1.0
            def collect(grids: list[list[int]], vids: list[list[int]]) -> Grids:
                return Grids(torch.tensor(grids), torch.as_tensor(vids, dtype=torch.long))
            class Positions:
                def prepare_inputs(self, grids: list[list[int]], vids: list[list[int]]):
                    mm = collect(grids, vids)
                    pos = []
                    for t, h, w in mm.thw:
                        pos.append(torch.arange(int(t * h * w)))
                    for i in range(len(mm.vids)):
                        pos.append(torch.arange(int(mm.vids[i].prod().item())))
                    return pos
            """
        ),
        # A loop over a Python list, and over batches: not rows of one tensor.
        Valid(
            """
            import torch
            def f(losses):
                return [l.item() for l in losses]
            """
        ),
        Valid(
            """
            import torch
            def train(model, loader, opt):
                for step, (x, y) in enumerate(loader):
                    loss = model(x, y)
                    loss.backward()
                    print(loss.item())
            """
        ),
        # Logging once every 100 rows.
        Valid(
            """
            import torch
            def f(values: torch.Tensor):
                for i in range(values.shape[0]):
                    if i % 100 == 0:
                        print(values[i].item())
            """
        ),
        # Only the rows' shapes are read.
        Valid(
            """
            import torch
            def f(xs: torch.Tensor):
                return [int(x.shape[0]) + len(x) for x in xs]
            """
        ),
        # int() of Python numbers from the index, not of the tensor.
        Valid(
            """
            import torch
            def f(t: torch.Tensor, n):
                return [int(i * 2) for i in range(n)]
            """
        ),
        # The counter of `enumerate` indexing host tensors or Python lists, or only writing.
        Valid(
            """
            import torch
            class Runner:
                def __init__(self, n):
                    self.lens_cpu = torch.zeros(n, dtype=torch.int32)
                    self.lens = torch.zeros(n, dtype=torch.int32, device="cuda")
                def update(self, reqs, counts):
                    for i, req in enumerate(reqs):
                        req.num_computed = self.lens_cpu[i].item() + int(counts[i])
                        self.lens[i].fill_(len(req.tokens))
            """
        ),
        # Session 41 (lead, SheepRL's test episodes): a `while` loop's copy handed to an
        # environment's `step` is the simulator's input, needed on the host every step, not
        # loop state that could stay on the device (the copy kept instead stays reported:
        # tests/test_precision_fixes_s41_triage.py).
        Valid(
            """
            import torch
            def evaluate(policy, env):
                obs, done = env.reset(), False
                while not done:
                    action = torch.tanh(torch.as_tensor(obs, device="cuda"))
                    obs, reward, done, info = env.step(action.cpu().numpy().reshape(-1))
            """
        ),
        # Session 41 (misses41): the twin of the reading-order pairs in `invalid`: a device row
        # written into a device tensor (a copy on the device) or into a list (a reference).
        Valid(
            """
            import torch
            def pairs(logits, n: int):
                yhat = torch.sigmoid(logits.cuda())
                order = torch.zeros((n, n), device="cuda")
                rows = [None] * (n * n)
                idx = 0
                for i in range(n):
                    for j in range(n):
                        order[i, j] = yhat[idx]
                        rows[idx] = yhat[idx]
                        idx += 1
                return order, rows
            """
        ),
        # Ranges sliced by the items' positions (a tiled encode's tiles): a chunk of work per
        # item, not a row; the copy of each tile's output is HTD202's (diffsynth's ACE-Step VAE).
        Valid(
            """
            import torch
            class VAE(torch.nn.Module):
                def tiled_encode(self, x: torch.Tensor, tiles: list[tuple[int, int]]):
                    values = torch.zeros(x.shape, device="cpu")
                    for start, end in tiles:
                        tile = x[:, :, start:end]
                        values[:, :, start:end] += self.encoder(tile).to("cpu")
                    return values
            """
        ),
        # Positions the items give, indexing a host copy made once before the loop, or a
        # Python list: one transfer, then host reads.
        Valid(
            """
            import torch
            def gather(logprobs, reqs):
                logprobs = logprobs.cuda()
                host = logprobs.cpu()
                picked = [host[req.idx].item() for req in reqs]
                names = [req.name for req in reqs]
                for req in reqs:
                    req.logprob = host[req.idx, req.token_id].item()
                    req.label = names[req.idx]
                return picked
            """
        ),
        # A numpy array, and a tensor of unknown kind.
        Valid(
            """
            import numpy as np
            def f(n):
                a = np.arange(n)
                return [a[i].item() for i in range(n)]
            """
        ),
        # Session 40 (reads40): arithmetic of two numpy arrays is a numpy array (a test's batch of
        # signals scaled by numpy gains), so its rows are host data (INVALID twin: a tensor).
        Valid(
            """
            import numpy as np
            def loudness(meter):
                array = np.random.randn(16, 2, 16000)
                gains = np.random.rand(array.shape[0])[:, None, None]
                array = array * gains
                return [meter.loudness(array[i].T).item() for i in range(array.shape[0])]
            """
        ),
        # The same batch normalised in place (`array /= peak`): numpy updates it in place, so
        # it stays a numpy array (INVALID twin: a tensor parameter normalised so).
        Valid(
            """
            import numpy as np
            def loudness(meter):
                array = np.random.randn(16, 2, 16000)
                array /= np.abs(array).max()
                return [meter.loudness(array[i].T).item() for i in range(array.shape[0])]
            """
        ),
        # Session 38 (triage38): `np` brought in by a star import is numpy by convention
        # (voicefixer's `from .pytorch_util import *`): a loop over a numpy sum's rows.
        Valid(
            """
            from .pytorch_util import *
            import torch
            class Fixer(torch.nn.Module):
                def energy(self, stft, threshold):
                    e = np.sum(stft, axis=1)
                    total = e[-1]
                    for i in range(e.shape[0]):
                        if e[i] < total * threshold:
                            continue
                        break
                    return i
            """
        ),
        Valid(
            """
            def f(grid):
                return [int(r.prod().item()) for r in grid]
            """
        ),
        # A .tolist() of something that may be a numpy array: `.prod(dim=-1)` would not run.
        Valid(
            """
            import math
            import torch
            def f(shapes):
                return [math.prod(s) for s in shapes.tolist()]
            """
        ),
        # Annotated as a container of tensors, or a union with a list: not one tensor.
        Valid(
            """
            from typing import Iterable
            import torch
            def load(weights: Iterable[tuple[str, torch.Tensor]]):
                for name, w in weights:
                    print(name, int(w.shape[0]), float(w))
            """
        ),
        Valid(
            """
            from collections.abc import Sequence
            import torch
            def f(cu_seqlens: torch.Tensor | Sequence[int]):
                return [int(v) for v in cu_seqlens]
            """
        ),
        # A CPU reference implementation, numpy arrays.
        Valid(
            """
            import torch
            def fill_indices_cpu(write_offsets: torch.Tensor, n: int):
                return [write_offsets[e].item() for e in range(n)]
            """
        ),
        Valid(
            """
            import numpy as np
            import torch
            def f(doc_ids: np.ndarray):
                return [doc_ids[i].tolist() for i in range(doc_ids.shape[0])]
            """
        ),
        Valid(
            """
            import numpy as np
            import numpy.typing as npt
            import torch
            def f(a: npt.NDArray[np.int64]):
                return [int(a[i]) for i in range(a.shape[0])]
            """
        ),
        # A join of host tensors is on the host.
        Valid(
            """
            import torch
            def f(xs):
                parts = [torch.tensor(x) for x in xs]
                t = torch.cat(parts)
                return [r.item() for r in t]
            """
        ),
        Valid(
            """
            import torch
            def f(features):
                atom_to_token = features['atom_to_token'].cpu().numpy()
                for atom in range(atom_to_token.shape[0]):
                    print(int(atom_to_token[atom]))
            """
        ),
        # Rows of host tensors: a pinned copy made without blocking, a list tensor, `.cpu()`.
        Valid(
            """
            import torch
            def f(lens, device):
                gpu = lens.to(device)
                host = gpu.to('cpu', non_blocking=True)
                return [host[i].item() for i in range(len(host))]
            """
        ),
        Valid(
            """
            import torch
            def f(rows):
                grid = torch.tensor(rows)
                out = []
                for i in range(grid.shape[0]):
                    g = torch.as_tensor(grid[i], dtype=torch.long)
                    out.append(int(torch.prod(g).item()))
                return out
            """
        ),
        Valid(
            """
            import torch
            def f(logits, device):
                host = logits.to(device).cpu()
                return [host[i].numpy() for i in range(host.shape[0])]
            """
        ),
        # A comparison of Python numbers as an `if` test, and a test of a host tensor.
        Valid(
            """
            import torch
            def f(lengths, n):
                out = []
                for i in range(n):
                    if lengths[i] > 0:
                        out.append(i)
                return out
            """
        ),
        Valid(
            """
            import torch
            def f(rows):
                x = torch.tensor(rows)
                for i in range(len(x)):
                    if (x[i] > 0).any():
                        print(i)
            """
        ),
        # A while loop that drains a Python list of adapter names (a for-each loop over it):
        # the weight copied to the host in its body is per adapter, not per row of a tensor,
        # and re-quantising needs it on the host.
        Valid(
            """
            import torch
            class Linear4bit(torch.nn.Module):
                def unmerge(self):
                    while len(self.merged_adapters) > 0:
                        active_adapter = self.merged_adapters.pop()
                        delta = self.get_delta_weight(active_adapter)
                        w_data = self.weight.to(delta.device) - delta
                        self.weight = self.quantize(w_data.to("cpu")).to(delta.device)
                def forward(self, x):
                    if self.disable_adapters:
                        self.unmerge()
                    return x
            """
        ),
        # Chunked work whose output is offloaded: each chunk's module output copied to the
        # host (memory-bounded calibration); the per-chunk call is the work.
        Valid(
            """
            import torch
            class Quantizer:
                def _module_forward(self, x: torch.Tensor, module, kwargs):
                    outputs = []
                    for x_partial in torch.split(x, self.n_parallel_calib_samples):
                        partial_output = module(x_partial, **kwargs)
                        if isinstance(partial_output, tuple):
                            partial_output = partial_output[0]
                        outputs.append(partial_output.cpu())
                    return torch.cat(outputs, dim=0)
            """
        ),
        # A while loop over a host tensor, and one that syncs only every 100 iterations.
        Valid(
            """
            import torch
            def f(values):
                x = torch.tensor(values)
                i = 0
                while x[i].item() > 0:
                    i += 1
                return i
            """
        ),
        # A host tensor rebound in the loop from itself (`row = new_row.clamp(0, n)` of a
        # `torch.zeros` without a device), compared with a Python number: host work.
        Valid(
            """
            import torch
            class Sampler:
                def step(self, num_blocks, steps):
                    num_iterations = len(steps) + 1
                    pre_row = torch.zeros(num_blocks, dtype=torch.long)
                    while not torch.all(pre_row >= (num_iterations - 1)):
                        new_row = torch.zeros(num_blocks, dtype=torch.long)
                        for i in range(num_blocks):
                            new_row[i] = pre_row[i] + 1
                        new_row = new_row.clamp(0, num_iterations)
                        pre_row = new_row
                    return pre_row
            """
        ),
        Valid(
            """
            import torch
            def f(n, device):
                x = torch.zeros(n, device=device)
                step = 0
                while step < n:
                    step += 1
                    if step % 100 == 0:
                        print(x.sum().item())
            """
        ),
        # A chunked loop (`range` with a step that is no literal): one read per chunk of rows,
        # the usual bound on memory, not one per row.
        Valid(
            """
            import torch
            def f(x: torch.Tensor, chunk: int):
                out = []
                for start in range(0, x.shape[0], chunk):
                    out.append(x[start:start + chunk].cpu())
                return out
            """
        ),
        # Unknown rows on a cold path (an initializer): no MEDIUM guess there.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def __init__(self, grid_thw):
                    super().__init__()
                    self.sizes = [int(torch.prod(r).item()) for r in grid_thw]
            """
        ),
        # The sync reads the inner loop's rows: the inner loop is reported, not the outer one.
        Valid(
            """
            import torch
            def f(x: torch.Tensor, n):
                for b in range(n):
                    for v in [1, 2]:
                        print(int(v))
            """
        ),
        # An entry of a mapping keyed by the row (an optimizer's `state = self.state[p]`) read by
        # a string key: no tensor is indexed by a string, so `state["step"]` is a Python value
        # kept per parameter, no row (coqui's RAdam, session 16).
        Valid(
            """
            import torch
            class RAdam(torch.optim.Optimizer):
                def step(self, closure=None):
                    for group in self.param_groups:
                        for p in group["params"]:
                            grad = p.grad.data.float()
                            state = self.state[p]
                            if len(state) == 0:
                                state["step"] = 0
                                state["exp_avg"] = torch.zeros_like(grad)
                            state["step"] += 1
                            buffered = group["buffer"][int(state["step"] % 10)]
            """
        ),
        # In a module named for a dataset (`*_dataset.py`), rows whose device is not proven
        # are a sample's host data: see tests/test_precision_fixes_s16.py (a path, which an
        # example cannot give); rows proven on the device are still reported there.
        # Session 18 (held out, torchrl's prioritized sampler): a `while` loop in the branch
        # for a tree that is not on CUDA, told by a name bound to the device test
        Valid(
            """
            import torch
            class Sampler:
                def sample(self, storage, batch_size):
                    tree_device = self.device
                    is_cuda = tree_device.type == "cuda"
                    index = self.tree.scan(batch_size)
                    weight = torch.as_tensor(self.tree[index], device=tree_device)
                    if not is_cuda:
                        zero_weight = weight == 0
                        while zero_weight.any():
                            index = torch.where(zero_weight, index - 1, index)
                            zero_weight = torch.as_tensor(self.tree[index]) == 0
                    return index
            """
        ),
        # Session 20 (unsloth-zoo's mlx/compile.py): a module that imports another array
        # framework and not torch computes on that framework's arrays (twin in
        # tests/test_precision_fixes_s20.py: the same module importing torch too).
        Valid(
            """
            import mlx.core as mx
            def pack_visual_state(visual_pos_masks, embeds):
                if embeds is None or isinstance(embeds, mx.array):
                    return embeds, None
                counts = [
                    int(visual_pos_masks[row].sum().item())
                    for row in range(visual_pos_masks.shape[0])
                ]
                return counts
            """
        ),
        # Session 25 (rf-detr's Hungarian assignment): rows moved to the host in a branch that
        # runs only off CUDA (`if not x.is_cuda:`, MPS or XLA feeding a SciPy solver) are another
        # backend's path, as HTD202's are; the same copy without the test stays reported
        # (tests/test_precision_fixes_s25.py).
        Valid(
            """
            import torch
            from torch import nn
            def assign(costs: list[torch.Tensor], sizes: list[int]):
                if not costs[0].is_cuda:
                    costs = [c.cpu() for c in costs]
                return [solve(c, sizes) for c in costs]
            class Matcher(nn.Module):
                def forward(self, costs: list[torch.Tensor], sizes: list[int]):
                    return assign(costs, sizes)
            """
        ),
        # Session 26 (flair's sequence tagger): lengths the function hands to
        # `pack_padded_sequence` are on the host (PyTorch takes no CUDA lengths), and so is a
        # helper's parameter every call passes them as: its rows sync nothing (twins in
        # tests/test_precision_fixes_s26.py: lengths rebound to a device copy stay reported).
        Valid(
            """
            import torch
            from torch.nn.utils.rnn import pack_padded_sequence
            class Tagger(torch.nn.Module):
                def forward(self, sentence_tensor, lengths):
                    if self.use_rnn:
                        packed = pack_padded_sequence(sentence_tensor, lengths, batch_first=True)
                        sentence_tensor = self.rnn(packed)
                    features = self.linear(sentence_tensor)
                    return self._get_scores_from_features(features, lengths)
                @staticmethod
                def _get_scores_from_features(features: torch.Tensor, lengths: torch.Tensor):
                    out = []
                    for feat, length in zip(features, lengths):
                        out.append(feat[:length])
                    return torch.cat(out)
            def pack(features, lengths: torch.Tensor):
                return pack_padded_sequence(features, lengths.cpu())
            """
        ),
        # Session 26 (mmdet's SCNet head): the distinct values of a host copy are a host
        # tensor (`torch.unique`, `.unique()`, `nonzero` compute where their input is).
        Valid(
            """
            import torch
            from torch import nn
            class Head(nn.Module):
                def forward(self, roi_feats: torch.Tensor, rois: torch.Tensor, ctx: torch.Tensor):
                    img_inds = torch.unique(rois[:, 0].detach().cpu(), sorted=True).long()
                    fused_feats = torch.zeros_like(roi_feats)
                    for img_id in img_inds:
                        inds = rois[:, 0] == img_id.item()
                        fused_feats[inds] = roi_feats[inds] + ctx[img_id]
                    return fused_feats
            """
        ),
        # Session 38 (placement38, diffusers' SkyReels-V2 diffusion-forcing schedule): a list of
        # host masks rebound to one of its items in a branch (`masks = masks[0]`) still holds
        # host tensors, and so does the stack of it the caller reads per frame.
        Valid(
            """
            import torch
            class Pipe:
                def schedule(self, n, shrink):
                    masks = []
                    prev = torch.zeros(n, dtype=torch.long)
                    for _ in range(n):
                        row = (prev + 1).clamp(0, n)
                        masks.append(row != prev)
                        prev = row
                    if shrink:
                        masks = masks[0]
                    return torch.stack(masks, dim=0)
                def __call__(self, latents, n, shrink):
                    update = self.schedule(n, shrink)
                    for i in range(n):
                        latents = self.unet(latents)
                        row = update[i]
                        for idx in range(n):
                            if row[idx].item():
                                latents = self.step(latents, idx)
                    return latents
            """
        ),
        # The items of a list of device tensors, read for their metadata only; and of a list of
        # host copies (INVALID twin: the items on the device, read with `.item()`).
        Valid(
            """
            import torch
            def sizes(batch, device):
                outs = [t.to(device) for t in batch]
                lengths = [o.shape[0] for o in outs]
                host = [t.cpu() for t in batch]
                return lengths, [h.item() for h in host]
            """
        ),
        # Rows of a host tensor through a name bound to `unbind` (INVALID twin: on the device).
        Valid(
            """
            import torch
            def lengths(masks, device):
                rows = masks.cpu().unbind(0)
                return [int(r.sum()) for r in rows]
            """
        ),
        # Session 33 (sb3-contrib's maskable evaluate_policy): an evaluation loop counted in
        # numpy arrays: `(counts < targets).any()` is numpy's reduction of numpy's comparison,
        # a host read however often the body runs the model (INVALID twin: compared with a
        # tensor, numpy defers to `torch.Tensor`'s operator and the test is a tensor's).
        Valid(
            """
            import numpy as np
            import torch
            def evaluate(model, env, n_envs: int, n_episodes: int):
                counts = np.zeros(n_envs, dtype="int")
                targets = np.array([(n_episodes + i) // n_envs for i in range(n_envs)])
                obs = env.reset()
                while (counts < targets).any():
                    actions, _ = model.predict(obs)
                    obs, rewards, dones, infos = env.step(actions)
                    for i in range(n_envs):
                        if dones[i]:
                            counts[i] += 1
                return counts
            """
        ),
        # Session 34 (precision34b, d3rlpy's `EpisodeGenerator`): an attribute whose every
        # assignment in its class is a numpy array (a parameter annotated as one, or
        # `np.reshape` of it) is numpy data; its rows are read on the host (INVALID twin: the
        # parameter annotated `torch.Tensor`).
        Valid(
            """
            import numpy as np
            class EpisodeGenerator:
                def __init__(self, rewards: np.ndarray, terminals: np.ndarray):
                    if terminals.ndim > 1:
                        terminals = np.reshape(terminals, [-1])
                    self._rewards = rewards
                    self._terminals = terminals
                def __call__(self):
                    episodes, start = [], 0
                    for i in range(self._terminals.shape[0]):
                        if self._terminals[i]:
                            episodes.append((self._rewards[start:i], bool(self._terminals[i])))
                            start = i + 1
                    return episodes
            """
        ),
        # Session 34 (triage34, WhisperLive 0.10.0's word timestamps): a name the loop binds
        # to a numpy array built from the row is host data: `.nonzero()` and `np.median` of it
        # are numpy's (INVALID twin below: the durations computed by torch from the row).
        Valid(
            """
            import numpy as np
            import torch
            class Aligner:
                def forward(self, tokens, features):
                    alignments = self.find_alignment(tokens, features)
                    for alignment in alignments:
                        durations = np.array([word["end"] - word["start"] for word in alignment])
                        durations = durations[durations.nonzero()]
                        median = float(np.median(durations)) if len(durations) else 0.0
                        print(median)
            """
        ),
        # Session 44 (fp201m44): a text tokenizer's decode walks the ids handed to it, host
        # ids (exllamav2's ExLlamaV2Tokenizer.decode; tokenizer_decodes). Its twin in a
        # generator's decode is reported (tests/test_medium_fp201m44.py).
        Valid(
            """
            import torch
            class ExLlamaV2Tokenizer:
                def decode(self, ids: torch.Tensor):
                    ids /= ids.abs().max()
                    return [self.sp.decode(ids[i].tolist()) for i in range(ids.shape[0])]
            """
        ),
        # Session 44 (fp201m44): `.numpy()` raises on a device tensor, so a row read through it
        # is a host row (yolox's COCO evaluator; numpy_rows). `.cpu().numpy()` stays reported.
        Valid(
            """
            import torch
            def boxes(array: torch.Tensor):
                array /= array.abs().max()
                return [array[i].numpy().tolist() for i in range(array.shape[0])]
            """
        ),
        # Session 44 (fp201m44): a plain augmentation class whose method takes a dataset
        # module's batch type runs in the loader's collate, on host batches (NeMo's SSL noise
        # augmentors; batch_augmentors).
        Valid(
            """
            import torch
            from nemo.collections.asr.data.ssl_dataset import AudioNoiseBatch
            class SpeakerNoiseAugmentation:
                def __call__(self, batch: AudioNoiseBatch):
                    lengths: torch.Tensor = batch.audio_len
                    lengths /= lengths.max()
                    for i in range(lengths.shape[0]):
                        batch.noise[i, : int(lengths[i] * self.rate)] = 0
                    return batch
            """
        ),
        # Session 44 (fp201m44): a read in `except Exception:` runs when the step failed
        # (funasr's LLM-ASR fallback length; error_handlers).
        Valid(
            """
            import torch
            def fill(out: torch.Tensor, lens: torch.Tensor):
                out /= out.abs().max()
                for i in range(lens.shape[0]):
                    try:
                        out[i, :4] = 0
                    except Exception:
                        out[i, : lens[i].item()] = 0
            """
        ),
        # Session 44 (lead): a function that adds a host tensor of a list to the lengths
        # works only on host lengths (Transformer Engine's `pad_thd_sequences_for_cp`;
        # host_company). Without that sum, or with `device=`, the rows are reported
        # (tests/test_host_company.py).
        Valid(
            """
            import torch
            def pad(cu_seqlens: torch.Tensor, factor: int):
                seqlens = cu_seqlens[1:] - cu_seqlens[:-1]
                pads = [(factor - l.item() % factor) % factor for l in seqlens]
                return seqlens + torch.tensor(pads, dtype=seqlens.dtype)
            """
        ),
        # Session 50 (triage50b): a device read through a string key
        # (`self.param_groups[0]["params"][0].device`) says the groups are dicts that hold
        # tensors: an optimizer's hyperparameters per group are Python values (super-gradients'
        # Lamb), not tensor rows.
        Valid(
            """
            import torch
            from torch.optim import Optimizer
            class Lamb(Optimizer):
                @torch.no_grad()
                def step(self, closure=None):
                    device = self.param_groups[0]["params"][0].device
                    one_tensor = torch.tensor(1.0, device=device)
                    for group in self.param_groups:
                        for p in group["params"]:
                            update = p.grad.clone()
                            weight_decay = group["weight_decay"]
                            if weight_decay != 0:
                                update.add_(p, alpha=weight_decay)
                                g_norm = update.norm(2.0)
                                trust_ratio = torch.where(g_norm > 0, g_norm, one_tensor)
                                if group["trust_clip"]:
                                    trust_ratio = torch.minimum(trust_ratio, one_tensor)
                                update.mul_(trust_ratio)
                            p.add_(update, alpha=-group["lr"])
            """
        ),
        # Session 51 (fp51): `torch.bucketize`/`torch.searchsorted` run only with both tensors
        # on one device: host draws bucketed against a buffer's ends give host buckets
        # (RLinf's replay buffer).
        Valid(
            """
            import torch
            class ReplayBuffer:
                def sample(self, num, total, ends):
                    ids = torch.randint(0, total, (num,))
                    buckets = torch.bucketize(ids, ends, right=True)
                    picked = []
                    for i in range(num):
                        picked.append(int(buckets[i]))
                    return picked
            """
        ),
    )
    invalid = (
        # Session 51 (lead): a membership test of a device row written in the `if` itself.
        Invalid(
            """
            import torch
            def pick(rows: torch.Tensor, tok: int):
                rows = rows.cuda()
                out = []
                for i in range(rows.shape[0]):
                    if tok in rows[i]:
                       ^^^^^^^^^^^^^^
                        out.append(i)
                return out
            """,
            message_contains="each row of `rows`",
        ),
        # Session 51 (wrap51): a loop over a tensor wrapper object (ultralytics `Boxes`: its
        # `__getitem__` and properties slice `self.data`) reads a device scalar per box
        # (ultralytics 8.4.96 `Results.plot`, PR 25230); placement unknown: MEDIUM.
        Invalid(
            """
            import numpy as np
            import torch
            class Boxes:
                def __init__(self, data: torch.Tensor | np.ndarray) -> None:
                    self.data = data
                def cpu(self):
                    return Boxes(self.data.cpu())
                def __getitem__(self, idx):
                    return self.__class__(self.data[idx])
                @property
                def cls(self):
                    return self.data[:, -1]
            class Results:
                def __init__(self, boxes: torch.Tensor):
                    self.boxes = Boxes(boxes)
                def plot(self, names):
                    for d in reversed(self.boxes):
                        print(names[int(d.cls)])
                                    ^^^^^^^^^^
            """,
            message_contains="`int()` on each row of `self.boxes`",
        ),
        # Made here of a device tensor: the rows are the device's.
        Invalid(
            """
            import numpy as np
            import torch
            class Boxes:
                def __init__(self, data: torch.Tensor | np.ndarray) -> None:
                    self.data = data
                def cpu(self):
                    return Boxes(self.data.cpu())
                def __getitem__(self, idx):
                    return Boxes(self.data[idx])
                @property
                def conf(self):
                    return self.data[:, -2]
            def confidences(pred: torch.Tensor):
                boxes = Boxes(pred.cuda())
                return [d.conf.item() for d in boxes]
                        ^^^^^^^^^^^^^
            """,
            message_contains="which is on the device",
        ),
        # Session 51 (fp51): a Python number looked up says nothing of the boundaries' device.
        Invalid(
            """
            import torch
            class ReplayBuffer:
                def sample(self, num, total, ends):
                    buckets = torch.bucketize(total, ends)
                    picked = []
                    for i in range(num):
                        picked.append(int(buckets[i]))
                                      ^^^^^^^^^^^^^^^
                    return picked
            """,
            message_contains="`int()` on each row of `buckets`",
        ),
        # Session 50 (triage50a): a device test whose body keeps the name on the device, and an
        # `or` that may return a row's comparison, still leave a tensor.
        Invalid(
            """
            import torch
            class Worker:
                def forward(self, data):
                    output = torch.cat([self.model(mb) for mb in data])
                    if output.device != torch.device("cpu"):
                        output = output.float()
                    return [{"logprobs": output[i].tolist()} for i in range(output.shape[0])]
                                         ^^^^^^^^^^^^^^^^^^
            """,
            message_contains="`.tolist()` on each row of `output`",
        ),
        Invalid(
            """
            import torch
            class Handler:
                def reload(self, bank, entries):
                    for i, (dev, backup) in enumerate(entries):
                        need_new = (bank[i] is None) or (bank[i].device != dev) or (bank[i] == 0)
                        if need_new:
                           ^^^^^^^^
                            bank[i] = torch.empty(backup.size(), device=dev)
                        bank[i].copy_(backup, non_blocking=True)
                def forward(self, bank, entries):
                    self.reload(bank, entries)
            """,
            message_contains="(`need_new`)",
        ),
        # Session 49 (recall49): `torch.equal` returns a Python bool, read on every iteration
        # of a `while` loop (llmcompressor 0.13.0 `mse_quant.py:188`, the grid search's early
        # stop; 0.14 tests an improvement count kept on the device).
        Invalid(
            """
            import torch
            def _grid_search_step(best_error: torch.Tensor, total_steps: int, patience: int):
                idx, stale = 0, 0
                while idx < total_steps:
                    prev_best = best_error.clone()
                    best_error = torch.minimum(best_error, best_error * 0.9)
                    if torch.equal(prev_best, best_error):
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                        stale += 1
                        if stale >= patience:
                            break
                    idx += 1
                return best_error
            """,
            message_contains="`torch.equal()` of `prev_best`",
        ),
        # Session 49 (triage49b): the twin of the numpy field in `valid`: a field declared
        # `torch.Tensor` keeps its rows reported.
        Invalid(
            """
            import dataclasses
            import numpy as np
            import torch
            @dataclasses.dataclass
            class Structure:
                restype: torch.Tensor
            def describe(s: Structure, order):
                restype = s.restype
                unique_restype = restype[order]
                names = []
                for i in range(unique_restype.shape[0]):
                    if unique_restype[i] == 32:
                       ^^^^^^^^^^^^^^^^^^^^^^^
                        names.append(i)
                return names
            """,
            message_contains="on each row of `unique_restype`",
        ),
        # Session 48 (peritem48): the twins of the tensor type arms in `valid`: the read in
        # the arm taken for a tensor, and a number arm that reads another (device) value.
        Invalid(
            """
            import torch
            def denoise(latents, steps, scale):
                sigmas = torch.linspace(1.0, 0.0, steps + 1, device=latents.device)
                for i in range(steps):
                    sigma = sigmas[i]
                    s = float(sigma) if isinstance(sigma, torch.Tensor) else sigma
                        ^^^^^^^^^^^^
                    t = scale if isinstance(scale, torch.Tensor) else float(sigmas[i + 1])
                                                                      ^^^^^^^^^^^^^^^^^^^^
                    latents = latents * s * t
                return latents
            """
        ),
        # Session 49 (fp1xx49): the twin of the `kw_only` dataclass in `valid`: the field is
        # built on the device, so its rows are device rows (HIGH, MEDIUM before the change).
        Invalid(
            """
            from dataclasses import dataclass
            import torch
            @dataclass(kw_only=True)
            class Encoded:
                tokens: torch.Tensor
                labels: torch.Tensor
            class Sequence:
                def encode(self, tokenizer, parts) -> Encoded:
                    all_tokens = [torch.tensor(tokenizer.encode(p)) for p in parts]
                    tokens = torch.cat(all_tokens, dim=0).cuda()
                    return Encoded(tokens=tokens, labels=tokens.clone())
                def visualize(self, tokenizer, parts):
                    encoded = self.encode(tokenizer, parts)
                    for tok in encoded.tokens:
                        print(tokenizer.decode([int(tok.item())]))
                                                    ^^^^^^^^^^
            """
        ),
        # Session 49 (fp1xx49): the twin of the loader's batch in `valid`: the field is a
        # model's output, which lives on the device.
        Invalid(
            """
            import numpy as np
            import torch
            from PIL import Image
            from torch.utils.data import DataLoader
            class Pipeline:
                def features(self, valid_data):
                    first_frame = valid_data["pixel_values"][:, :, 0].permute(0, 2, 3, 1)
                    return [Image.fromarray(f.cpu().numpy().astype(np.uint8)) for f in first_frame]
                                            ^^^^^^^
                def forward(self, dataset, workers):
                    loader = DataLoader(dataset, batch_size=8, num_workers=workers)
                    for data in loader:
                        valid_data = {
                            "pixel_values": self.vae.decode(data["latents"]),
                            "text": data["text"],
                        }
                        latents = self.vae.encode(valid_data["pixel_values"].to("cuda"))
                        self.save(latents, self.features(valid_data))
            """
        ),
        # Session 47 (fp1xx47): the twin of the dataset's noiser in `valid`: a torch module,
        # which runs on the device whoever calls it.
        Invalid(
            """
            import torch
            class WordDropout(torch.nn.Module):
                def noising(self, x, lengths):
                    return [x[: lengths[i], i].tolist() for i in range(lengths.size(0))]
                            ^^^^^^^^^^^^^^^^^^
            class NoisingDataset(torch.utils.data.Dataset):
                def __init__(self, src, noiser):
                    self.src = src
                    self.noiser = noiser
                def __getitem__(self, index):
                    tokens = self.src[index]
                    lengths = torch.LongTensor([len(tokens)])
                    return self.noiser.noising(tokens.unsqueeze(1), lengths)
            """
        ),
        # Session 47 (fp1xx47): the twin of the host callers in `valid`: one call passes a
        # tensor whose place nothing says, so the rows may be on the device.
        Invalid(
            """
            from torch import Tensor
            def render(ids: list[int], coord_values: Tensor):
                return [float(coord_values[i, 0].item()) for i in range(len(ids))]
                              ^^^^^^^^^^^^^^^^^^^^^^^^^
            def finish(slot, ids, n):
                return render(ids, slot.coord[:n])
            def finish_sync(ids, coord_out):
                return render(ids, coord_out.cpu())
            """
        ),
        # Session 45 (miss45, pytorch-optimizer 3.10.1 `pcgrad.py:113`, `rotograd.py:304`): the
        # items of a parameter annotated as a sequence of tensors, walked by the loop itself
        # and read through tensor operations only: a dot product compared per pair of
        # gradients (bound by an annotated assignment), a scaled loss read per task.
        Invalid(
            """
            from typing import List, Sequence
            import torch
            def project(grads: List[torch.Tensor]):
                out = list(grads)
                for i, g_i in enumerate(out):
                    for g_j in grads:
                        g_i_g_j: torch.Tensor = torch.dot(g_i, g_j)
                        if g_i_g_j < 0:
                           ^^^^^^^^^^^
                            out[i] = g_i - g_i_g_j * g_j / (g_j.norm() ** 2)
                return out
            def record(losses: Sequence[torch.Tensor], weights, kept):
                for i in range(len(losses)):
                    loss = losses[i] / weights[i]
                    kept[i] = loss.item()
                              ^^^^^^^^^^^
            """,
            message_contains="`.item()` of `loss` on each item of `losses`",
        ),
        # Session 46 (fp1xx46): the numpy module's look-alike: a module that also imports
        # torch may be handed a tensor's rows (MEDIUM), as one with no numpy import may.
        Invalid(
            """
            import numpy as np
            import torch
            def proposals_to_json(img_ids, results):
                json_results = []
                for idx in range(len(img_ids)):
                    bboxes = results[idx]
                    for i in range(bboxes.shape[0]):
                        json_results.append(dict(image_id=img_ids[idx], score=float(bboxes[i][4])))
                                                                              ^^^^^^^^^^^^^^^^^^^
                return json_results
            """,
            message_contains="`float()` on each row of `bboxes`",
        ),
        # Session 44 (triage44): the named outputs' look-alike: a membership test in another
        # container says nothing of the indexed tensor, whose rows are read one by one.
        Invalid(
            """
            import torch
            def calculate(x, keys, wanted):
                scores = x.cuda().softmax(-1)
                results = {}
                for k in keys:
                    if k in wanted:
                        results[k] = scores[k].cpu()
                                     ^^^^^^^^^^^^^^^
                return results
            """,
            message_contains="on each row of `scores`",
        ),
        # Session 44 (rows44, agilerl 2.50 `llm_packing.py:240`): the rows of a field a class
        # declares as a tensor, read through a local name, are rows of a tensor.
        Invalid(
            """
            from typing import NamedTuple
            import torch
            class Packed(NamedTuple):
                cu_seqlens: torch.Tensor
                batch_size: int
            def scatter(flat: torch.Tensor, packed: Packed):
                cu = packed.cu_seqlens
                src = []
                for b in range(packed.batch_size):
                    offset = int(cu[b])
                             ^^^^^^^^^^
                    src.append(torch.arange(offset, offset + 4, device=flat.device))
                return src
            """,
            message_contains="`int()` on each row of `cu`",
        ),
        # Session 44 (rows44, Transformer Engine 2.18 `context_parallel.py:5322`): a slice of an
        # annotated tensor and arithmetic of one, zipped in a closure, bound `torch.arange`.
        Invalid(
            """
            import torch
            def split(cu: torch.Tensor, rank: int, device):
                sizes = (cu[1:] - cu[:-1]) // 4
                def process(val):
                    out = []
                    for size, start in zip(sizes, cu[:-1]):
                        out.append(torch.arange(start + rank * size, start + size, device=device))
                                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return out
                return process
            """,
            message_contains="a row as a size on each row of `sizes`",
        ),
        # Session 44 (rows44, NeMo 2.7.3 `ssl_modules/masking.py:105`): a row scaled by
        # arithmetic and compared in an `if` is a 0-d tensor asked for `bool()`.
        Invalid(
            """
            import torch
            def mask(feats: torch.Tensor, lengths: torch.Tensor, block: int, ratio: float):
                out = []
                for i in range(feats.size(0)):
                    if block >= lengths[i] * ratio:
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^
                        out.append(i)
                return out
            """,
            message_contains="a tensor as an `if` test on each row of `lengths`",
        ),
        # Session 43 (truth43): a device row as a truth value, `Tensor.__bool__` per row.
        Invalid(
            """
            import torch
            def pick(x, n):
                keep = x.cuda() > 0
                out = []
                for i in range(n):
                    out.append(1 if keep[i] else 0)
                                    ^^^^^^^
                return out
            """,
            message_contains="a row as a truth value",
        ),
        # Session 36 (recall36, OpenNMT-py 3.5.1 `translator.py:624`): a comprehension that
        # flattens a list of lists of hypotheses reads each one with `.tolist()`; the items
        # are tensors (the function builds on their device), and the helper a base class of
        # the module defines runs on every call of the subclass's hot `_align_forward`.
        Invalid(
            """
            import torch
            class Inference:
                def _pad_predictions(self, predictions, pad):
                    device = predictions[0][0].device
                    flat = [best.tolist() for bests in predictions for best in bests]
                            ^^^^^^^^^^^^^
                    width = max(len(f) for f in flat)
                    rows = [f + [pad] * (width - len(f)) for f in flat]
                    return torch.tensor(rows, device=device)
            class Translator(Inference):
                def _align_forward(self, batch, predictions):
                    return self._pad_predictions(predictions, pad=0)
            """
        ),
        # Session 39 (reads39): the twin of the HED side outputs in `valid`: each output is
        # computed on (a threshold, a sum) before its read, so every read waits (MEDIUM: the
        # call may return one tensor or several).
        Invalid(
            """
            import torch
            class Hed:
                def __init__(self):
                    self.network = torch.nn.Conv2d(3, 1, 1)
                def run(self, image):
                    x = torch.from_numpy(image).float().to("cuda")
                    edges = self.network(x)
                    return [(e > 0.5).sum().item() for e in edges]
                            ^^^^^^^^^^^^^^^^^^^^^^
            """
        ),
        # Session 34 (precision34b): the twin of the numpy `EpisodeGenerator` in `valid`, its
        # terminals a tensor: each row is read on the host (MEDIUM: the device is unknown), twice:
        # as the `if`'s truth value and by `bool()` (session 43: each distinct read reported).
        Invalid(
            """
            import torch
            class EpisodeGenerator:
                def __init__(self, rewards, terminals: torch.Tensor):
                    if terminals.ndim > 1:
                        terminals = terminals.reshape(-1)
                    self._rewards = rewards
                    self._terminals = terminals
                def __call__(self):
                    episodes, start = [], 0
                    for i in range(self._terminals.shape[0]):
                        if self._terminals[i]:
                           ^^^^^^^^^^^^^^^^^^
                            episodes.append((self._rewards[start:i], bool(self._terminals[i])))
                                                                     ^^^^^^^^^^^^^^^^^^^^^^^^
                            start = i + 1
                    return episodes
            """,
            message_contains="`bool()` on each row of `self._terminals`",
        ),
        # Session 34 (triage34): the twin of WhisperLive's numpy durations above, computed
        # with `torch.diff` of the row: a tensor wherever the row is (MEDIUM). Each distinct
        # read of the loop is reported (session 43): the `.nonzero()` and the `float()`.
        Invalid(
            """
            import torch
            class Aligner:
                def forward(self, tokens, features):
                    alignments = self.find_alignment(tokens, features)
                    for alignment in alignments:
                        durations = torch.diff(alignment)
                        durations = durations[durations.nonzero()]
                                              ^^^^^^^^^^^^^^^^^^^
                        median = float(durations.median()) if len(durations) else 0.0
                                 ^^^^^^^^^^^^^^^^^^^^^^^^^
                        print(median)
            """,
            message_contains="`.nonzero()` of `durations` on each row of `alignments`",
        ),
        # Session 38 (placement38): the twin of the SkyReels schedule in `valid`, its masks made
        # from a device tensor: the item a branch rebinds the list to is on the device too.
        Invalid(
            """
            import torch
            class Pipe:
                def schedule(self, n, shrink):
                    masks = []
                    prev = torch.zeros(n, dtype=torch.long, device="cuda")
                    for _ in range(n):
                        row = (prev + 1).clamp(0, n)
                        masks.append(row != prev)
                        prev = row
                    if shrink:
                        masks = masks[0]
                    return torch.stack(masks, dim=0)
                def __call__(self, latents, n, shrink):
                    update = self.schedule(n, shrink)
                    for i in range(n):
                        latents = self.unet(latents)
                        row = update[i]
                        for idx in range(n):
                            if row[idx].item():
                               ^^^^^^^^^^^^^^^
                                latents = self.step(latents, idx)
                    return latents
            """
        ),
        # Session 33 (recall33b, ring-flash-attn 0.1.8's `get_half_lse`): TorchScript types a
        # bare parameter of a `@torch.jit.script` function as a `Tensor`, so the rows of
        # `cu_seqlens` are 0-d tensors, read one by one (MEDIUM: its device is unknown).
        Invalid(
            """
            import torch
            @torch.jit.script
            def half_lse(lse, cu_seqlens):
                for i in range(len(cu_seqlens) - 1):
                    seqlen = (cu_seqlens[i + 1] - cu_seqlens[i]).item()
                             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    lse[i, :seqlen] = 0
                return lse
            """,
            message_contains="`.item()` on each row of `cu_seqlens`",
        ),
        # Session 33: the twin of the numpy evaluation loop above, its targets a tensor: the
        # comparison is a tensor wherever `targets` is (MEDIUM).
        Invalid(
            """
            import numpy as np
            import torch
            def evaluate(model, env, n_envs: int, targets: torch.Tensor):
                counts = np.zeros(n_envs, dtype="int")
                obs = env.reset()
                while (counts < targets).any():
                      ^^^^^^^^^^^^^^^^^^^^^^^^
                    actions, _ = model.predict(obs)
                    obs, rewards, dones, infos = env.step(actions)
                    for i in range(n_envs):
                        if dones[i]:
                            counts[i] += 1
                return counts
            """,
            message_contains="on every iteration of a `while` loop on a hot path",
        ),
        # Session 31 (recall31, OpenNMT-py 3.4.3's beam search): `max(s, best[b])` of a row
        # compares a 0-d tensor with a float in Python, one `bool()` (a sync) per finished
        # hypothesis; the scores are unpacked from an own method's returned pair, made on the
        # input's device (MEDIUM: where the input is stays unknown).
        Invalid(
            """
            import torch
            class Beam:
                def initialize(self, device):
                    self.topk_scores = torch.empty((4, 2), device=device)
                def _pick(self, log_probs):
                    topk_scores, topk_ids = torch.topk(log_probs, 2, dim=-1)
                    return topk_scores, topk_ids
                def step(self, log_probs, best, finished):
                    self.topk_scores, self.topk_ids = self._pick(log_probs)
                    for j in [k for k, fin in enumerate(finished) if fin]:
                        s = self.topk_scores[0, j] / 2
                        best[j] = max(s, best[j])
            """,
            line=12,
            column=23,
            message_contains="`max()` of a row",
        ),
        # Session 29 (precision29): the valid featuriser's twin whose `elif` may leave the
        # unpacked codes (of unknown place) as they were: MEDIUM.
        Invalid(
            """
            import torch
            class Writer:
                def __call__(self, samples):
                    for wav in samples:
                        chunks = []
                        for x in wav.cuda().chunk(4, dim=-1):
                            _, codes = self.model.quantize(x)
                            if self.per_frame:
                                with torch.no_grad():
                                    codes = codes.squeeze(0).cpu()
                            elif self.flat:
                                codes = codes.flatten(1).cpu()
                            chunks.append(codes)
                        codes = torch.cat(chunks)
                        yield " ".join(str(row.tolist()) for row in codes)
                                           ^^^^^^^^^^^^
            """
        ),
        # Session 29 (precision29): the valid `score_rows`'s twin whose last arm only logs, so
        # the parameter (of unknown place) may reach the rows: per-row overhead, MEDIUM.
        Invalid(
            """
            import numpy as np
            import torch
            def score_rows(scores):
                if isinstance(scores, np.ndarray):
                    scores = torch.from_numpy(scores)
                elif isinstance(scores, list):
                    scores = torch.tensor(scores)
                else:
                    log(type(scores))
                return [scores[i].item() for i in range(scores.shape[0])]
                        ^^^^^^^^^^^^^^^^
            """
        ),
        # Session 29 (precision29): the valid draft buffer's twin on the device: the method
        # returns `None` or the device buffer, so its rows are device rows (HIGH).
        Invalid(
            """
            import torch
            class Generator:
                def __init__(self, n):
                    self.draft_ids = torch.empty((8, n), dtype=torch.long, device="cuda")
                def draft(self, batch):
                    if not batch:
                        return None
                    self.draft_ids.copy_(self.model(batch).argmax(-1))
                    return self.draft_ids
                def step(self, batch, logits):
                    self.accept(logits, self.draft(batch))
                def accept(self, logits, drafts):
                    for i in range(logits.shape[1]):
                        if drafts is not None and drafts[0, i].item() != 0:
                                                  ^^^^^^^^^^^^^^^^^^^
                            break
            """
        ),
        # Session 29 (chain29): a dataclass's field no method assigns is what its
        # constructions pass (here a tensor made on the device by a collector).
        Invalid(
            """
            from dataclasses import dataclass
            import torch
            @dataclass
            class Grids:
                thw: torch.Tensor
                scale: float = 1.0
            def collect(grids: list[list[int]]) -> Grids:
                return Grids(torch.zeros(len(grids), 3, dtype=torch.long, device="cuda"))
            class Positions:
                def prepare_inputs(self, grids: list[list[int]]) -> list[torch.Tensor]:
                    mm = collect(grids)
                    pos = []
                    for t, h, w in mm.thw:
                        pos.append(torch.arange(int(t * h * w)))
                                                ^^^^^^^^^^^^^^
                    return pos
            """
        ),
        # Session 26 (heldout26): a helper's bare parameter that every call passes a tensor
        # for (its caller's annotated parameter): its rows are tensors, and a row used as a
        # repeat count or a size reads the device (surya's unpack_qkv_with_mask).
        Invalid(
            """
            import torch
            from torch import nn
            class Attn(nn.Module):
                def unpack(self, q, cu_seqlens):
                    seq_lengths = cu_seqlens[1:] - cu_seqlens[:-1]
                    batch_indices = []
                    for i, seq_len in enumerate(seq_lengths):
                        batch_indices.extend([i] * seq_len)
                                             ^^^^^^^^^^^^^
                    return batch_indices
                def forward(self, q: torch.Tensor, cu_seqlens: torch.Tensor) -> torch.Tensor:
                    return self.unpack(q, cu_seqlens)
            """
        ),
        # Session 25 (variants25s): a request's state reached through a dict annotated with
        # its class; the state holds the grid on the device, so each row's product syncs.
        Invalid(
            """
            class CachedRequest:
                def __init__(self, grid_thw, device):
                    self.mm_grid = grid_thw.to(device)
            class Runner:
                def __init__(self):
                    self.requests: dict[str, CachedRequest] = {}
                def _update_states(self):
                    sizes = []
                    for req in self.requests.values():
                        for g in req.mm_grid:
                            sizes.append(int(g.prod()))
                                         ^^^^^^^^^^^^^
                    return sizes
            """
        ),
        # Session 25: the result of an in-place copy into a device buffer is the buffer
        # (`copy_` returns its receiver), so its rows are device rows.
        Invalid(
            """
            import torch
            class Runner:
                def __init__(self, n, device):
                    self.qsl_gpu = torch.zeros(n, dtype=torch.int32, device=device)
                def _last_tokens(self, offsets, n):
                    qsl = self.qsl_gpu[: n + 1].copy_(offsets, non_blocking=True)
                    return [qsl[i + 1].item() - 1 for i in range(n)]
                            ^^^^^^^^^^^^^^^^^
            """,
            message_contains="which is on the device",
        ),
        # Session 37 (triage37: imaginAIry's vendored RIFE interpolator, `if ssim > 0.996:`
        # per frame): a comparison of a tensor as an `if` test in a `while` loop whose body
        # runs the model, `if nxt == eos: break` of a greedy decoder (VALID twin: a Python
        # counter compared).
        Invalid(
            """
            import torch
            def greedy(model, ids, eos):
                while True:
                    logits = model(ids)
                    nxt = torch.argmax(logits[:, -1], dim=-1)
                    ids = torch.cat([ids, nxt[:, None]], dim=-1)
                    if nxt == eos:
                       ^^^^^^^^^^
                        break
                return ids
            """,
            message_contains="a comparison as an `if` test of `nxt` on every iteration",
        ),
        # Session 25: a generation loop in a plain function: the `while` body runs the model,
        # so its test reads the done mask once per step, whatever the function is called.
        Invalid(
            """
            import torch
            def greedy_generate(model, input_ids: torch.Tensor, eos: int):
                done = torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)
                while not done.all():
                          ^^^^^^^^^^
                    nxt = model(input_ids)[:, -1].argmax(-1)
                    done |= nxt == eos
                    input_ids = torch.cat([input_ids, nxt[:, None]], dim=-1)
                return input_ids
            """,
            message_contains="its body runs the model on every iteration",
        ),
        # Session 50 (recall50b, torchode 1.0.1 `adjoints.py:224`): an adaptive solver's
        # `while True:` loop whose body takes a step (`step_method.step(...)`) reads which
        # evaluation points the step passed once per step (VALID twin: a loop of host
        # bookkeeping that takes no step).
        Invalid(
            """
            import torch
            class Adjoint(torch.nn.Module):
                def solve(self, problem, term=None, dt0=None):
                    t_eval = problem.t_eval
                    y, t = problem.y0, problem.t_start
                    while True:
                        y, t = self.step_method.step(term, y, t, dt0)
                        passed = (t[:, None] - t_eval >= 0.0)
                        if passed.any():
                           ^^^^^^^^^^^^
                            y = y * 2
                        if done:
                            break
                    return y
            """,
            message_contains="its body takes a step (`step()`) on every iteration",
        ),
        # Session 50 (recall50b, transfusion-pytorch 0.20.0 `transfusion.py:2039`): a sampling
        # loop that calls `self.forward(...)` reads the token an unannotated helper sampled
        # (every return of it a tensor) once per decoded token.
        Invalid(
            """
            import torch
            def sample_token(logits, temperature=1.0):
                if temperature == 0.0:
                    return logits.argmax(dim=-1, keepdim=True)
                return torch.multinomial((logits / temperature).softmax(dim=-1), 1)
            class Transfusion(torch.nn.Module):
                def sample_one(self, seq, max_length=2048):
                    while seq.shape[-1] <= max_length:
                        sampled = sample_token(self.forward(seq)[0][-1])
                        seq = torch.cat((seq, sampled), dim=-1)
                        if sampled.item() == self.eos_id:
                           ^^^^^^^^^^^^^^
                            break
                    return seq
            """,
            message_contains="its body runs the model on every iteration",
        ),
        # Session 50 (recall50b, alphafold3-pytorch 0.8.3 `alphafold3.py:5448`): a row read
        # through `.detach()`, a method numpy arrays and Python values lack, is a tensor's row.
        Invalid(
            """
            import torch
            class Alphafold3(torch.nn.Module):
                def forward(self, molecule_ids, asym_id):
                    chains = []
                    for res_idx in range(molecule_ids.shape[0]):
                        chains.append(str(asym_id[res_idx].detach().cpu().item()))
                                          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return chains
            """,
            message_contains="on each row of `asym_id`",
        ),
        # Session 25: a row's elements unpacked and used as sizes (`torch.arange(h)`,
        # `.repeat(t)`): rotary positions built per image of a grid; the file has no other
        # marker of a host read, so the byte prefilter must know sizes too.
        Invalid(
            """
            import torch
            class VisionRope(torch.nn.Module):
                def forward(self, grid_thw: torch.Tensor):
                    pos = []
                    for g in grid_thw:
                        t, h, w = g[0], g[1], g[2]
                        pos.append(torch.arange(h).repeat(t))
                                   ^^^^^^^^^^^^^^^^^^^^^^^^^
                    return torch.cat(pos)
            """,
            message_contains="a row as a size",
        ),
        # Session 25: a row element as the size a tensor method takes (`x.repeat(n, 1)`,
        # `x.new_zeros(n, d)`): Python reads the 0-d tensor's `__index__`.
        Invalid(
            """
            import torch
            class Frames(torch.nn.Module):
                def forward(self, x: torch.Tensor, grid_thw: torch.Tensor):
                    frames = []
                    for i in range(len(grid_thw)):
                        frames.append(x[:1].repeat(grid_thw[i, 0], 1))
                                      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return torch.cat(frames)
            """,
            message_contains="a row as a size",
        ),
        # Session 25: a row of an unannotated `forward` argument reduced and read with
        # `.item()` (only arrays have both): the grid's rows, one sync each on a hot path.
        Invalid(
            """
            import torch
            class PatchMerger(torch.nn.Module):
                def forward(self, x, grid_thw):
                    out = []
                    for row in grid_thw:
                        n = row.prod().item()
                            ^^^^^^^^^^^^^^^^^
                        out.append(x[:n].mean(0))
                    return torch.stack(out)
            """,
            message_contains="on a hot path",
        ),
        # Session 23 (held out: torchvision's `masks_to_boxes` before 0.27): an op whose output
        # size depends on each row's values (`torch.where` of one argument is `nonzero`) makes
        # the host wait for every row.
        Invalid(
            """
            import torch
            def masks_to_boxes(masks: torch.Tensor) -> torch.Tensor:
                boxes = torch.zeros((masks.shape[0], 4), device=masks.device)
                for i, mask in enumerate(masks):
                    y, x = torch.where(mask != 0)
                           ^^^^^^^^^^^^^^^^^^^^^^
                    boxes[i, 0] = torch.min(x)
                return boxes
            """,
            message_contains="`torch.where(...)` of one argument",
        ),
        # Session 22 (heldout22): a diffusion sampler's forward runs a whole trajectory once per
        # request, and its loop runs per step: `.item()` of each sigma is one sync per step
        # (StyleTTS 2's VSampler).
        Invalid(
            """
            import math
            import torch
            class VSampler(Sampler):
                def forward(self, noise: torch.Tensor, fn, sigmas: torch.Tensor, num_steps: int):
                    x = noise
                    for i in range(num_steps - 1):
                        x = fn(x, sigma=sigmas[i]) * math.cos(sigmas[i + 1].item())
                                                              ^^^^^^^^^^^^^^^^^^^^
                    return x
            """
        ),
        # Session 19's twin: no type test, so the annotation says a tensor's rows (the `.to(`
        # line gives the byte prefilter a marker: a file whose only row reads are slice bounds
        # has none and is not parsed, a known gap of the prefilter)
        Invalid(
            """
            import torch
            def add_lora(x: torch.Tensor, result: torch.Tensor, im_mask: torch.Tensor = None):
                x = x.to(result.dtype)
                if len(im_mask) == 0:
                    return result
                for start, end in im_mask:
                    result[:, start:end, :] += x[:, start:end, :]
                    ^^^^^^^^^^^^^^^^^^^^^^^
                return result
            """,
            message_contains="per-row Python overhead",
        ),
        # Session 40 (reads40): the VALID numpy batch's twin: scaled by a tensor, the batch is a
        # tensor (numpy defers to the tensor's operator), of unknown device.
        Invalid(
            """
            import numpy as np
            import torch
            def loudness(meter, gains: torch.Tensor):
                array = np.random.randn(16, 2, 16000)
                array = array * gains
                return [meter.loudness(array[i].T).item() for i in range(array.shape[0])]
                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="per-row Python overhead",
        ),
        Invalid(
            """
            import torch
            def loudness(meter, array: torch.Tensor):
                array /= array.abs().max()
                return [meter.loudness(array[i].T).item() for i in range(array.shape[0])]
                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="per-row Python overhead",
        ),
        # Session 18's twin: the same loop outside the branch
        Invalid(
            """
            import torch
            class Sampler:
                def sample(self, storage, batch_size):
                    tree_device = self.device
                    is_cuda = tree_device.type == "cuda"
                    index = self.tree.scan(batch_size)
                    weight = torch.as_tensor(self.tree[index], device=tree_device)
                    zero_weight = weight == 0
                    while zero_weight.any():
                          ^^^^^^^^^^^^^^^^^
                        index = torch.where(zero_weight, index - 1, index)
                        zero_weight = torch.as_tensor(self.tree[index]) == 0
                    return index
            """
        ),
        Invalid(
            """
            import os
            import torch
            _NAN_DEBUG = os.environ.get("BAILING_NAN_DEBUG", "0") == "1"
            USE_FAST = os.environ.get("USE_FAST", "0") == "1"
            class Model(torch.nn.Module):
                def forward(self, h: torch.Tensor, rank: int):
                    h = self.norm(h)
                    if USE_FAST:
                        for i in range(h.shape[0]):
                            if torch.isnan(h[i]).any().item():
                               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                                print(i)
                    if _NAN_DEBUG or rank == 0:
                        for i in range(h.shape[0]):
                            if torch.isnan(h[i]).any().item():
                               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                                print(i)
                    return h
            """
        ),
        # A row read through an attribute every tensor has (`.data`, `.T`) is still a row.
        Invalid(
            """
            import torch
            def f(x: torch.Tensor, device):
                y = x.to(device)
                return [r.data.sum().item() for r in y]
                        ^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # A field of what a torch op returns for the row (`torch.topk(row).values`) is still
        # computed from the row: only the loop's own items are read as objects.
        Invalid(
            """
            import torch
            def f(x: torch.Tensor, device, k: int):
                y = x.to(device)
                out = []
                for i in range(y.size(0)):
                    top = torch.topk(y[i], k=k)
                    out.append(top.values.cpu())
                               ^^^^^^^^^^^^^^^^
                return out
            """,
        ),
        # The same offsets computed on the device: one sync per expert.
        Invalid(
            """
            import torch
            class MoeBlock(torch.nn.Module):
                def forward(self, tokens, counts):
                    total = torch.clamp_min(counts.cuda(), 8)
                    offsets = torch.cumsum(total, dim=0) - total
                    for e in range(counts.shape[0]):
                        start = int(offsets[e])
                                ^^^^^^^^^^^^^^^
                        tokens[start:start + 8] = 0
                    return tokens
            """
        ),
        # The counter of `enumerate` indexing another tensor (a 3-D rope index's token types per
        # sequence, masked first), and per request into a device buffer.
        Invalid(
            """
            import itertools
            import torch
            def rope_index(input_ids: torch.Tensor, token_types: torch.Tensor, mask):
                groups = []
                for b, ids in enumerate(input_ids):
                    types = token_types[b]
                    if mask is not None:
                        types = types[mask[b].bool()]
                    groups.append(list(itertools.groupby(types.tolist())))
                                                         ^^^^^^^^^^^^^^
                return groups
            """,
            message_contains="on each row of `token_types`",
        ),
        # Session 41 (misses41, kraken 7.1.1's reading-order validation): a device row written
        # into a host tensor's element, indexed by a counter the body adds 1 to: a blocking
        # device-to-host copy per pair.
        Invalid(
            """
            import torch
            def pairs(logits, n: int):
                yhat = torch.sigmoid(logits.cuda())
                order = torch.zeros((n, n))
                idx = 0
                for i in range(n):
                    for j in range(n):
                        if i != j:
                            order[i, j] = yhat[idx]
                                          ^^^^^^^^^
                            idx += 1
                return order
            """,
            message_contains="a write into a host tensor or array on each row of `yhat`",
        ),
        Invalid(
            """
            import torch
            class Runner:
                def __init__(self, n):
                    self.lens = torch.zeros(n, dtype=torch.int32, device="cuda")
                def update(self, reqs):
                    for i, req in enumerate(reqs):
                        req.num_computed = self.lens[i].item()
                                           ^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="which is on the device",
        ),
        # Rows picked by positions the items give (a request's index in the batch, the
        # Python rows of a `.tolist()`): one device sync per item.
        Invalid(
            """
            import torch
            def gather(logits, reqs, ids):
                logprobs = logits.cuda().log_softmax(dim=-1)
                for req in reqs:
                    req.logprob = logprobs[req.idx, req.token_id].item()
                                  ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return [logprobs[i].max().item() for i in ids.tolist()]
                        ^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="which is on the device",
        ),
        # Each tensor of a list the function is given, as tensors, copied to the host on its
        # own per step (one `.cpu()` of the stacked outputs would read them all at once); a
        # function named for moving them to the host is not a CPU implementation.
        Invalid(
            """
            import torch
            class PoolingRunner:
                def execute_model(self, batch):
                    return self._outputs_to_host(self.pooler(batch))
                def _outputs_to_host(self, outputs: list[torch.Tensor]):
                    return [o.cpu() for o in outputs]
                            ^^^^^^^
            """,
            message_contains="on a hot path",
        ),
        # Pieces of a device tensor (`split`, `chunk`, `tensor_split`, as methods or torch
        # functions, also through a name bound to them): one sync per piece (gptqmodel's chunked
        # loss `total += diff.pow(2).sum().item()`, which 7.7 accumulated on the device).
        Invalid(
            """
            import torch
            def f(ids, lens, device):
                out = ids.to(device)
                return [piece.tolist() for piece in out.split(lens)]
                        ^^^^^^^^^^^^^^
            """,
            message_contains="on each piece of `out`",
        ),
        Invalid(
            """
            import torch
            def loss(ref, out, n, device):
                refs = torch.split(ref.to(device), n)
                outs = torch.split(out.to(device), n)
                total = 0.0
                for a, b in zip(refs, outs):
                    total += (a - b).pow(2).sum().item()
                             ^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return total
            """,
            message_contains="one device sync per piece",
        ),
        # The items of a Python list of device tensors (an all_gather's outputs, per-request
        # results moved to the device): one sync per item, as per row; stacked on the device,
        # one copy reads them all (no fix: a list has no `.sum(dim=-1)`).
        Invalid(
            """
            import torch
            import torch.distributed as dist
            def gather_counts(local, world, device):
                counts = [torch.zeros(1, dtype=torch.long, device=device) for _ in range(world)]
                dist.all_gather(counts, local)
                return [c.item() for c in counts]
                        ^^^^^^^^
            """,
            message_contains="on each item of `counts`, each on the device",
        ),
        Invalid(
            """
            import torch
            import torch.distributed as dist
            def _serialize(data):
                device = torch.device("cuda")
                return torch.ByteTensor(torch.ByteStorage.from_buffer(data)).to(device=device)
            def _sizes(tensor, group, world):
                sizes = [torch.zeros(1, device=tensor.device) for _ in range(world)]
                dist.all_gather(sizes, tensor.new_tensor([tensor.numel()]), group=group)
                return [int(s.item()) for s in sizes]
                            ^^^^^^^^
            def all_gather(data, group, world):
                return _sizes(_serialize(data), group, world)
            """,
            message_contains="on each item of `sizes`, each on the device",
        ),
        Invalid(
            """
            import torch
            import torch.distributed as dist
            class Coordinator:
                def __init__(self, ranks):
                    self.device_group = dist.new_group(ranks, backend="nccl")
                def gather_counts(self, local, world):
                    counts = [
                        torch.zeros(1, dtype=torch.long, device=torch.cuda.current_device())
                        for _ in range(world)
                    ]
                    dist.all_gather(counts, local, group=self.device_group)
                    return [c.item() for c in counts]
                            ^^^^^^^^
            """,
            message_contains="on each item of `counts`, each on the device",
        ),
        # Rows through a name bound to `unbind` (dim 0): a walk of the rows, as `for r in t`;
        # another dimension cuts pieces, one sync each too.
        Invalid(
            """
            import torch
            def lengths(masks, device):
                rows = masks.to(device).unbind(0)
                return [int(r.sum()) for r in rows]
                        ^^^^^^^^^^^^
            """,
            message_contains="on each row of `masks.to(device)`",
        ),
        Invalid(
            """
            import torch
            def lengths(masks, device):
                return [int(c.sum()) for c in torch.unbind(masks.to(device), 1)]
                        ^^^^^^^^^^^^
            """,
            message_contains="on each piece of `masks.to(device)`",
        ),
        # Session 35 (recall35): a negated row as a slice bound (LLM2Vec's mean pooling of
        # left-padded sequences, `h[i, -length:, :]` per device length): `-length` is a 0-d
        # tensor too, read by `__index__`
        Invalid(
            """
            import torch
            def pool(hidden, mask, device):
                lengths = mask.to(device).sum(dim=-1)
                return torch.stack([hidden[i, -n:, :].mean(0) for i, n in enumerate(lengths)])
                                    ^^^^^^^^^^^^^^^^^
            """,
            message_contains="a row as a slice bound",
        ),
        # Session 51 (mine51a): the bounds of a `slice(...)` object are a slice's too (ms-swift
        # 4.4.2 `megatron/trainers/trainer.py:85`, removed by upstream's PR 9795).
        Invalid(
            """
            import torch
            def channel_loss(losses: torch.Tensor, cu_seqlens: torch.Tensor):
                out = []
                for i in range(cu_seqlens.shape[0] - 1):
                    s = slice(cu_seqlens[i], cu_seqlens[i + 1])
                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    out.append(losses[0, s].sum())
                return out
            """,
            message_contains="a row as a slice bound",
        ),
        # A row used as a slice bound or a size: Python reads the 0-d tensor (`__index__`), one
        # sync per row (lmdeploy's rotary-embedding fallback `[ids[:l] for ids, l in
        # zip(position_ids, seq_length)]`, removed in 0.6; per-segment `x[s:e]` of offsets).
        Invalid(
            """
            import torch
            def segments(x, offsets, device):
                off = offsets.to(device)
                out = []
                for start, end in zip(off[:-1], off[1:]):
                    out.append(x[start:end])
                               ^^^^^^^^^^^^
                return out
            """,
            message_contains="a row as a slice bound",
        ),
        Invalid(
            """
            import torch
            def ranges(lens, device):
                lens = lens.to(device)
                return [torch.arange(n, device=device) for n in lens]
                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="a row as a size",
        ),
        # A display repeated a row's number of times asks the row for ``__index__``
        # (transformer-engine 2.18's padding mask, one read per sequence).
        Invalid(
            """
            import torch
            def padding_mask(cu_seqlens: torch.Tensor, batch_size: int, max_len: int):
                seqlens = (cu_seqlens[1:] - cu_seqlens[:-1]).to("cuda")
                rows = []
                for i in range(batch_size):
                    rows.append([False] * seqlens[i] + [True] * (max_len - seqlens[i]))
                                ^^^^^^^^^^^^^^^^^^^^
                return torch.tensor(rows, device="cuda")
            """,
            message_contains="a row as a repeat count",
        ),
        # Index loops over a device tensor.
        Invalid(
            """
            import torch
            def f(ids, device):
                t = ids.to(device)
                return [t[i].tolist() for i in range(len(t))]
                        ^^^^^^^^^^^^^
            """,
            message_contains="which is on the device",
        ),
        Invalid(
            """
            import torch
            def f(ids, device):
                t = ids.to(device)
                out = []
                for i in range(t.shape[0]):
                    out.append(int(t[i]))
                               ^^^^^^^^^
                return out
            """,
        ),
        Invalid(
            """
            import torch
            def f(x, device):
                logits = x.to(device) * 2
                return [logits[i].cpu().numpy() for i in range(logits.shape[0])]
                        ^^^^^^^^^^^^^^^
            """,
            message_contains="`.cpu()`",
        ),
        Invalid(
            """
            import torch
            def f(n, device):
                x = torch.randn(n, 4, device=device)
                for i in range(n):
                    if (x[i] > 0).any():
                       ^^^^^^^^^^^^^^^^
                        print(i)
            """,
            message_contains="`if` test",
        ),
        # A row bound to a local name: `torch.as_tensor` keeps the row's device.
        Invalid(
            """
            import torch
            def f(grid_thw, device):
                grid = grid_thw.to(device)
                out = []
                for t_row in grid:
                    g = torch.as_tensor(t_row, dtype=torch.long)
                    out.append(int(torch.prod(g).item()))
                                   ^^^^^^^^^^^^^^^^^^^^
                return out
            """,
            message_contains="one device sync per row",
        ),
        # While loops that read a device tensor on every iteration.
        Invalid(
            """
            import torch
            def f(n, device):
                x = torch.randn(n, device=device)
                i = 0
                while x[i].item() > 0:
                      ^^^^^^^^^^^
                    i += 1
                return i
            """,
            message_contains="every iteration of a `while` loop",
        ),
        # The chunks themselves copied to the host one by one: one copy of the whole does it.
        Invalid(
            """
            import torch
            def offload(x: torch.Tensor, n: int):
                outputs = []
                for x_partial in torch.split(x, n):
                    y = x_partial.float()
                    outputs.append(y.cpu())
                                   ^^^^^^^
                return outputs
            """,
        ),
        # A drained queue whose items are read: each item taken is read on the host.
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, pending: list[torch.Tensor]):
                    total = 0.0
                    while pending:
                        x = pending.pop()
                        total += x.sum().item()
                                 ^^^^^^^^^^^^^^
                    return total
            """,
            message_contains="on every iteration of a `while` loop on a hot path",
        ),
        # A loop that pops but whose test reads a device tensor: still one sync per iteration.
        Invalid(
            """
            import torch
            def f(queue, n, device):
                x = torch.randn(n, device=device)
                i = 0
                while x[i].item() > 0:
                      ^^^^^^^^^^^
                    item = queue.pop()
                    i += len(item)
                return i
            """,
        ),
        # The same loop over a device tensor: one sync per iteration.
        Invalid(
            """
            import torch
            class Sampler:
                def step(self, num_blocks, steps, device):
                    num_iterations = len(steps) + 1
                    pre_row = torch.zeros(num_blocks, dtype=torch.long, device=device)
                    while not torch.all(pre_row >= (num_iterations - 1)):
                              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                        new_row = (pre_row + 1).clamp(0, num_iterations)
                        pre_row = new_row
                    return pre_row
            """,
        ),
        Invalid(
            """
            import torch
            def f(n, device):
                done = torch.zeros(n, dtype=torch.bool, device=device)
                while not done.all():
                          ^^^^^^^^^^
                    done = torch.rand(n, device=device) > 0.5
                return done
            """,
        ),
        # Rows of an unknown tensor on a hot path: MEDIUM.
        Invalid(
            """
            import torch
            class Vision(torch.nn.Module):
                def forward(self, x, grid_thw):
                    sizes = [int(torch.prod(r).item()) for r in grid_thw]
                                 ^^^^^^^^^^^^^^^^^^^^
                    return x.split(sizes)
            """,
            message_contains="if `grid_thw` is on the GPU",
        ),
        # A join of device tensors (through the name of their list) is on the device.
        Invalid(
            """
            import torch
            def f(xs):
                parts = [x.cuda() for x in xs]
                t = torch.cat(parts)
                return [r.item() for r in t]
                        ^^^^^^^^
            """,
            message_contains="which is on the device",
        ),
        Invalid(
            """
            import torch
            def f(rows, device):
                grid = torch.tensor(rows, device=device)
                return [int(torch.prod(r).item()) for r in grid]
                            ^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def f(rows, device):
                grid = torch.tensor(rows, device=device)
                return torch.prod(grid, dim=-1).tolist()
            """,
            message_contains="one device sync per row",
        ),
        Invalid(
            """
            import torch
            def f(grid_thw: torch.Tensor):
                return [r.prod().item() for r in grid_thw]
                        ^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def f(grid_thw: torch.Tensor):
                return grid_thw.prod(dim=-1).tolist()
            """,
            message_contains="per-row Python overhead",
        ),
        Invalid(
            """
            import math
            import torch
            def f(grid: torch.Tensor):
                return [math.prod(r) for r in grid.cpu().tolist()]
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import math
            import torch
            def f(grid: torch.Tensor):
                return grid.prod(dim=-1).tolist()
            """,
        ),
        Invalid(
            """
            import torch
            def f(grid_thw: torch.Tensor):
                return [t * h * w for t, h, w in grid_thw.tolist()]
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def f(grid_thw: torch.Tensor):
                return grid_thw.prod(dim=-1).tolist()
            """,
        ),
        Invalid(
            """
            import torch
            def f(lengths, device):
                lens = lengths.to(device)
                out = []
                for i in range(lens.shape[0]):
                    out.append(lens[i].item() * 2)
                               ^^^^^^^^^^^^^^
                return out
            """,
            message_contains="`lens`",
        ),
        Invalid(
            """
            import torch
            def f(x: torch.Tensor):
                for i, v in enumerate(x):
                    if float(v) > 0.5:
                       ^^^^^^^^
                        return i
            """,
        ),
        Invalid(
            """
            import torch
            from functools import reduce
            import operator
            def f(sizes: torch.Tensor):
                return [reduce(operator.mul, s) for s in sizes.tolist()]
                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            from functools import reduce
            import operator
            def f(sizes: torch.Tensor):
                return sizes.prod(dim=-1).tolist()
            """,
        ),
        Invalid(
            """
            import torch
            def f(ids: torch.LongTensor, tok):
                return [tok.decode(ids[b].tolist()) for b in range(ids.size(0))]
                                   ^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            def f(scores: torch.Tensor):
                return {k: v.sum().item() for k, v in enumerate(scores)}
                           ^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            def panoptic(pred_labels, label_ids_to_fuse):
                for k in range(pred_labels.shape[0]):
                    pred_class = pred_labels[k].item()
                                 ^^^^^^^^^^^^^^^^^^^^^
                    if pred_class in label_ids_to_fuse:
                        print(k)
            """,
            message_contains="per-row Python overhead",
        ),
        Invalid(
            """
            import torch
            def embed(input_ids, past):
                codebook_idx = torch.arange(input_ids.shape[1], device=input_ids.device) + past
                out = []
                for position_idx in codebook_idx:
                    position_idx = position_idx.item()
                                   ^^^^^^^^^^^^^^^^^^^
                    out.append(position_idx)
                return out
            """,
            message_contains="which is on the device",
        ),
        Invalid(
            """
            import torch
            def f(t):
                x = t.cuda()
                return [r.sum().item() for r in x if r.numel()]
                        ^^^^^^^^^^^^^^
            """,
            message_contains="one device sync per row",
        ),
        # Rows of tensors the code declares as tensors, read per row on a hot path (a
        # sampler's `__call__` reaches both helpers): a field of a dataclass annotated as a
        # tensor, and a `torch.*` result indexed by an `enumerate` counter.
        Invalid(
            """
            from dataclasses import dataclass
            import torch
            @dataclass
            class Metadata:
                bad_words: torch.Tensor
            class Sampler:
                def apply_bad_words(self, logits: torch.Tensor, meta: Metadata):
                    for i in range(logits.shape[0]):
                        if (meta.bad_words[i] > 0).any():
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                            logits[i].fill_(0.0)
                    return logits
                def keep_logprobs(self, logits: torch.Tensor, req_ids: list[str]):
                    logprobs = torch.log_softmax(logits, dim=-1)
                    for i, req_id in enumerate(req_ids):
                        self.kept[req_id] = logprobs[i].cpu()
                                            ^^^^^^^^^^^^^^^^^
                def __call__(self, logits, meta, req_ids):
                    self.keep_logprobs(logits, req_ids)
                    return self.apply_bad_words(logits, meta)
            """,
            message_contains="on a hot path (called from `Sampler.__call__()`)",
        ),
        # What a module of the project returns, by its `forward`'s annotation: the sampled
        # tokens are a tensor, read row by row in a runner's step.
        Invalid(
            """
            import torch
            class Sampler(torch.nn.Module):
                def forward(self, logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
                    return logits.argmax(-1), logits.softmax(-1)
            class Runner:
                def __init__(self):
                    self.sampler = Sampler()
                def execute_model(self, logits, n):
                    sampled, _ = self.sampler(logits)
                    return [int(sampled[i].item()) for i in range(n)]
                                ^^^^^^^^^^^^^^^^^
            """,
            message_contains="on a hot path",
        ),
        # A Lightning module's step hook: Lightning moved the batch to the device before the
        # call, so each label of the zip is a device tensor read on the host.
        Invalid(
            """
            import lightning.pytorch as pl
            class Diffusion(pl.LightningModule):
                def training_step(self, batch, batch_idx):
                    losses = []
                    for latent, label in zip(batch["latents"], batch["labels"]):
                        losses.append(self.loss(latent, self.table[int(label)]))
                                                                   ^^^^^^^^^^
                    return sum(losses)
            """,
            message_contains="which is on the device",
        ),
        # The rows of a row of a tensor are tensors too (a patcher's forward splitting each
        # sequence's patch lengths).
        Invalid(
            """
            import torch
            class Patcher(torch.nn.Module):
                def forward(self, patch_lengths: torch.Tensor, max_len: int):
                    out = []
                    for seq in patch_lengths:
                        for length in seq[seq > 0]:
                            out.append(divmod(length.item(), max_len))
                                              ^^^^^^^^^^^^^
                    return out
            """,
            message_contains="on each row of `seq[seq > 0]`, on a hot path",
        ),
        # A `while` loop walking a tensor's rows by a counter: one sync per row.
        Invalid(
            """
            import torch
            def num_accepted(draft: torch.Tensor, target: torch.Tensor, k: int) -> int:
                n = 0
                while n < k and draft[n].item() == target[n].item():
                                ^^^^^^^^^^^^^^^
                    n += 1
                return n
            """,
            message_contains="one row per iteration of a `while` loop",
        ),
        # An optimizer's loop over its parameters still reports a row of the parameter read
        # on the host (twin of the valid `state["step"]` look-alike).
        Invalid(
            """
            import torch
            class RAdam(torch.optim.Optimizer):
                def step(self, closure=None):
                    for group in self.param_groups:
                        for p in group["params"]:
                            grad = p.grad.data.float()
                            state = self.state[p]
                            if len(state) == 0:
                                state["exp_avg"] = torch.zeros_like(grad)
                            scale = int(grad.abs().max())
                                    ^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains='on each row of `group["params"]`',
        ),
        # `.item()` of each element read by a counter, on a hot path: only arrays have
        # `.item()`, so the elements are tensors (or numpy scalars) whatever the parameter
        # is; here they sync once per sequence if the lengths are on the GPU (flash-attn's
        # AMD backend, `set_varlen_params`, run by every varlen attention call through a
        # local instance of its metadata class; 2.8 takes the maximum from the caller).
        Invalid(
            """
            import torch
            class MetaData:
                max_seqlens_q = 0
                def set_varlen_params(self, cu_seqlens_q):
                    for i in range(len(cu_seqlens_q) - 1):
                        n = cu_seqlens_q[i + 1].item() - cu_seqlens_q[i].item()
                            ^^^^^^^^^^^^^^^^^^^^^^^^^^
                        self.max_seqlens_q = max(n, self.max_seqlens_q)
            def varlen_fwd(q, cu_seqlens_q):
                metadata = MetaData()
                metadata.set_varlen_params(cu_seqlens_q)
                return q
            class Attention(torch.nn.Module):
                def forward(self, q, cu_seqlens_q):
                    return varlen_fwd(q, cu_seqlens_q)
            """,
            message_contains="on a hot path (called from `varlen_fwd()`)",
        ),
        # A builtin that walks a tensor and tests each element on the host: `max()` compares
        # 0-d device tensors pairwise, one sync per element (flash-linear-attention's YOCO
        # layer took `max(seqlen_offset)` every forward until 0.6).
        Invalid(
            """
            import torch
            def widest(lens, device):
                offsets = lens.to(device)
                return max(offsets)
                       ^^^^^^^^^^^^
            class Layer(torch.nn.Module):
                def forward(self, x, offsets: torch.Tensor):
                    if any(offsets):
                       ^^^^^^^^^^^^
                        return x[:, : max(offsets)]
                                      ^^^^^^^^^^^^
                    return x
            """,
            message_contains="tests each on the host",
        ),
        # What the module's own forward returns (`self(features)`, also through a deep copy)
        # is on its device: walking each row's mask back with `.item()` syncs per token
        # (sentence-transformers' `encode` for token embeddings, fixed in 6.x).
        Invalid(
            """
            import copy
            import torch
            class Encoder(torch.nn.Module):
                def encode(self, features, hpu: bool):
                    out = self(features)
                    if hpu:
                        out = copy.deepcopy(out)
                    kept = []
                    for emb, mask in zip(out["token_embeddings"], out["attention_mask"]):
                        last = len(mask) - 1
                        while last > 0 and mask[last].item() == 0:
                                           ^^^^^^^^^^^^^^^^^
                            last -= 1
                        kept.append(emb[: last + 1])
                    return kept
            """,
            message_contains="which is on the device, on every iteration of a `while` loop",
        ),
        # Session 50 (triage50b): the look-alike: a device read of an item of an item
        # (`self.param_groups[0][0].device`) still makes the rows tensors.
        Invalid(
            """
            import torch
            from torch.optim import Optimizer
            class Lamb(Optimizer):
                @torch.no_grad()
                def step(self, closure=None):
                    device = self.param_groups[0][0].device
                    one_tensor = torch.tensor(1.0, device=device)
                    for group in self.param_groups:
                        for p in group["params"]:
                            update = p.grad.clone()
                            weight_decay = group["weight_decay"]
                            if weight_decay != 0:
                               ^^^^^^^^^^^^^^^^^
                                update.add_(p, alpha=weight_decay)
                                g_norm = update.norm(2.0)
                                trust_ratio = torch.where(g_norm > 0, g_norm, one_tensor)
                                if group["trust_clip"]:
                                    trust_ratio = torch.minimum(trust_ratio, one_tensor)
                                update.mul_(trust_ratio)
                            p.add_(update, alpha=-group["lr"])
            """
        ),
    )

    # -- for statements ---------------------------------------------------------------------------
    def visit_For(self, node: cst.For) -> None:
        # The loop's rows, the arguments of the ``zip`` it iterates, or the rows its
        # ``enumerate`` counter indexes (``for i, item in enumerate(xs)`` reading ``other[i]``);
        # a statement loop over ``.tolist()`` rows is one transfer, then Python work.
        for finding in loop_rows(self.context, node).findings:
            self._report_rows(node, finding, None)

    # -- builtins that walk a tensor -------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        found = walk_read(self.context, node)  # (analysis/iteration_reads.py)
        if found is None:
            return
        walk = found.walk
        shown = self.shown(walk.tensor, "the tensor")
        method = f".{walk.method}().values" if walk.builtin == "sorted" else f".{walk.method}()"
        advice = f"use `{method}` of the tensor (one kernel) and read the result once"
        if found.device:
            self.report(
                node,
                f"`{walk.builtin}()` of {shown}, which is on the device, walks it element by "
                f"element and tests each on the host: one device sync per element; {advice}",
            )
            return
        self.report(
            node,
            f"`{walk.builtin}()` of {shown} walks it element by element and tests each on the "
            f"host, on a hot path ({found.reason}): one device sync per element if {shown} is on "
            f"the GPU; {advice}",
            confidence=Confidence.MEDIUM,
        )

    def report(
        self,
        node: cst.CSTNode,
        message: str | None = None,
        **options: Any,
    ) -> None:
        """Reports sit at the read that waits: where loops nest, the outer loop's first read
        may be the inner loop's too (``for b in x: for i in range(n): b[i].item()``); the read
        is reported once, for the outer loop (visited first)."""
        if any(report.node is node for report in self._reports):
            return
        if options.get("confidence") is Confidence.MEDIUM and host_runtime_module(
            self.context.path
        ):
            return  # OpenVINO's, Core ML's host tensors: rows not proven on a device
        super().report(node, message, **options)

    # -- while loops ------------------------------------------------------------------------------
    def visit_While(self, node: cst.While) -> None:
        found = while_read(self.context, node)  # (analysis/iteration_reads.py)
        if found is None:
            return
        sync = found.sync
        shown = self.shown(sync.tensor, "the tensor")
        if found.kind == ITERATION_DEVICE:
            self.report(
                sync.node,
                f"{sync.what} of {shown}, which is on the device, on every iteration of a "
                "`while` loop: one device sync per iteration; keep the loop's state on the "
                "device, or test it once every N iterations",
                enclosing=node,
            )
        elif found.kind == COUNTED:
            self.report(
                sync.node,
                f"per-row Python overhead: {sync.what} of {shown}, one row per iteration "
                "of a `while` loop (one device sync per row when it is on a device); "
                "compare the rows on the whole tensor and copy the result once",
                confidence=Confidence.MEDIUM,
                enclosing=node,
            )
        else:
            self.report(
                sync.node,
                f"{sync.what} of {shown} on every iteration of a `while` loop on a hot path "
                f"({found.reason}): one device sync per iteration if {shown} is on the GPU; keep "
                "the loop's state on the device, or read the values once before the loop",
                confidence=Confidence.MEDIUM,
                enclosing=node,
            )

    # -- comprehensions ---------------------------------------------------------------------------
    def on_comprehension(self, node: cst.BaseComp | cst.DictComp) -> None:
        for_in = node.for_in
        simple = isinstance(node, cst.ListComp) and not for_in.ifs and for_in.inner_for_in is None
        loop = row_loop(for_in.iter, for_in.target)
        if (
            loop is not None
            and loop.walk is Walk.LIST
            and simple
            and isinstance(node, cst.ListComp)
            and self._list_round_trip(node, loop)
        ):
            return
        # Otherwise a `.tolist()` walk's Python rows may index other tensors (`[logprobs[i]
        # .item() for i in ids.tolist()]`): one read of those per row (row_findings._walks).
        findings = loop_rows(self.context, node).findings
        if not findings:
            return
        finding = findings[0]
        fixed = None
        if (
            simple
            and len(findings) == 1  # the fix rewrites the element: it must be the one read
            and isinstance(node, cst.ListComp)
            and isinstance(for_in.target, cst.Name)
            and finding.own_walk
            and finding.kind != HOT
            and not finding.loop.pieces
            and not finding.loop.items
        ):
            fixed = self._fixed_rows(node, finding.loop, for_in.target.value)
        for each in findings:  # each distinct read; the fix (one per loop) with the first
            self._report_rows(node, each, fixed if each is finding else None)

    # -- reporting --------------------------------------------------------------------------------
    def _report_rows(
        self, node: cst.CSTNode, finding: RowFinding, fixed: cst.BaseExpression | None
    ) -> None:
        """Report one of the loop's row syncs that HTD201 accepts (:mod:`row_findings`), at
        the read."""
        sync = finding.sync
        row = "piece" if finding.loop.pieces else "item" if finding.loop.items else "row"
        ancestors = list(self.context.ancestors)
        if not ancestors or ancestors[-1] is not node:
            ancestors.append(node)
        if any(isinstance(a, (cst.Assert, cst.Raise)) for a in ancestors):
            return  # a check or its error message, as for the builtins' walks below
        if in_non_tensor_arm(node, sync.call):
            return  # `x.float() if isinstance(x, Tensor) else float(x)`: never a tensor's read
        provenance = Provenance.of(self.context)
        if off_cuda_branch(ancestors, name_values(provenance)):
            return  # ``if not x.is_cuda: xs = [x.cpu() for x in xs]``: another backend's path
        if finding.kind != DEVICE and unproven_rows_on_host(
            self.context, provenance, ancestors, node, finding
        ):
            return  # host rows by where or how they are read (:mod:`unproven_rows`)
        if isinstance(node, cst.For) and keyed_lookup(node, sync.tensor, sync.call):
            return  # ``if key in outputs: outputs[key].cpu()``: a dict's named outputs
        shown = self.shown(sync.tensor, "the tensor")
        what, waits = sync.what, shown
        waiting = waiting_value(sync.call, finding.loop)
        if waiting is not None:
            # A value computed from the row in earlier statements: name it, it is what waits.
            waits = self.shown(waiting, "the value read")
            read = self.shown(sync.call, "the read")
            what = f"{what} of {waits}" if what.startswith("`") else f"{what} ({read})"
        if finding.kind == HOT:
            # No fix: the rows may come from a sequence of tensors, which
            # `torch.prod(..., dim=-1)` does not take.
            self.report(
                sync.call,
                f"{what} on each {row} of {shown}, on a hot path ({finding.reason}): one "
                f"device sync per {row} if {waits} is on the GPU; compute on the whole tensor "
                "and copy the result once",
                confidence=Confidence.MEDIUM,
                enclosing=node,
            )
            return
        if finding.kind == DEVICE and finding.loop.items:
            message = (
                f"{what} on each item of {shown}, each on the device: one device sync "
                "per item; stack or concatenate the items on the device and copy the result "
                "once"
            )
            confidence = Confidence.HIGH
        elif finding.kind == DEVICE:
            message = (
                f"{what} on each {row} of {shown}, which is on the device: one device "
                f"sync per {row}; compute on the whole tensor and copy the result once"
            )
            confidence = Confidence.HIGH
            frame = provenance.current_frame()
            called = walked_module_output(provenance, finding.loop.tensor, frame)
            if row == "row" and called is not None and copies_each_output(node):
                return  # each output copied, nothing queued between: only the first waits
            if row == "row" and called is not None:
                # A module may return a tuple of tensors: then the loop walks whole tensors.
                confidence = Confidence.MEDIUM
                module = self.context.module.code_for_node(called.func)
                message += (
                    f" (certain if `{module}(...)` returns one tensor, not a tuple or list of "
                    "tensors)"
                )
        else:
            # The sync itself is inferred where the device is unknown (the rows may be a host
            # tensor's, as a serving engine's CPU-side sampling keeps them): MEDIUM.
            message = (
                f"per-{row} Python overhead: {what} on each {row} of {shown} (one device "
                f"sync per {row} when {'it' if waits == shown else waits} is on a device); "
                "compute on the whole tensor "
                "and copy the result once"
            )
            confidence = Confidence.MEDIUM
        replacements = [(node, fixed)] if fixed is not None else []
        self.report(
            sync.call, message, replacements=replacements, confidence=confidence, enclosing=node
        )

    def _fixed_rows(self, node: cst.ListComp, loop: RowLoop, row: str) -> cst.BaseExpression | None:
        """``[int(torch.prod(r).item()) for r in t]`` -> ``torch.prod(t, dim=-1).tolist()``."""
        if loop.walk is not Walk.ROWS or not isinstance(loop.tensor, ATOMS):
            return None
        if not holds(node.for_in.iter, loop.tensor):
            return None  # rows reached through a name (`rows = x.unbind(0)`): x stays as is
        provenance = Provenance.of(self.context)
        reduction = tensor_row_reduction(provenance, node.elt, row)
        if reduction is None:
            return None
        return _vectorised(self.context.module, loop.tensor, reduction)

    def _list_round_trip(self, node: cst.ListComp, loop: RowLoop) -> bool:
        tensor = loop.tensor
        if tensor is None:
            return False
        provenance = Provenance.of(self.context)
        frame = provenance.current_frame()
        reduction = list_row_reduction(provenance, node.elt, node.for_in.target, frame)
        if reduction is None:
            return False
        if provenance.where(tensor, frame).on_host:
            return False  # already on the host: no transfer to save
        if not loop.via_tensor_method and not is_tensor(provenance, tensor, frame):
            return False  # may be a numpy array (`.prod(dim=...)` is no numpy call) or a list
        module = self.context.module
        shown = snippet(f"{module.code_for_node(tensor)}.tolist()", "the tensor")
        replacements: list[tuple[cst.CSTNode, cst.CSTNode]] = []
        suggestion = f"`.{reduction.op}(dim=-1).tolist()`"
        if isinstance(tensor, ATOMS) and not reduction.numpy:
            fixed = _vectorised(module, tensor, reduction)
            replacements.append((node, fixed))
            suggestion = self.shown(fixed, "the tensor")
        self.report(
            node,
            f"per-row Python loop over {shown}: {suggestion} computes every row in "
            "one vectorised op and transfers only the result",
            replacements=replacements,
        )
        return True


def _vectorised(
    module: cst.Module, tensor: cst.BaseExpression, reduction: RowReduction
) -> cst.BaseExpression:
    code = module.code_for_node(tensor)
    if reduction.torch_func is not None:
        func = module.code_for_node(reduction.torch_func)
        return cst.parse_expression(f"{func}({code}, dim=-1).tolist()")
    return cst.parse_expression(f"{code}.{reduction.op}(dim=-1).tolist()")
