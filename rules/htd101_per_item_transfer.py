from __future__ import annotations

import libcst as cst

from h2dlint.analysis.cache_swaps import host_to_device_blocks
from h2dlint.analysis.collecting_loops import collecting_for
from h2dlint.analysis.device_branches import off_cuda_branch
from h2dlint.analysis.filled_defaults import filled_values
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.loop_transfers import ITEM_CONVERTERS
from h2dlint.analysis.loops import (
    Comprehension,
    GatheringLoop,
    assigned_in_place,
    assignment_of,
    gathering_comprehension,
    gathering_for,
    gathering_while,
    mapped_comprehension,
    passed_parameters,
    under_type_dispatch,
)
from h2dlint.analysis.mover_calls import (
    hot_call,
    may_be_mover,
    repeats_here,
    shadowed,
    shared_mover_loops,
)
from h2dlint.analysis.once import RunOnce
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.pytest_tests import collected_module
from h2dlint.analysis.step_readbacks import step_readback
from h2dlint.analysis.whole_units import unsure_whole_units
from h2dlint.candidate_terms import called_as
from h2dlint.diagnostics import Confidence
from h2dlint.rule import ComprehensionVisits, Invalid, Rule, Valid, snippet

ADVICE = (
    "stack or concatenate them into one pinned buffer (`torch.stack(items, out=pinned)`) and "
    "copy it once with `non_blocking=True`, or pin the items when they are made"
)


# Said of a finding whose items are not proven on the host (MEDIUM): what would make it certain.
UNSURE = (
    " if the items are host tensors (where they are made is not known here; it is certain for "
    "tensors made from Python or numpy data, read from files or a data loader, or copied to the "
    "host)"
)


def items_on_host(loop: GatheringLoop, provenance: Provenance, frame: Frame) -> bool:
    """Whether the analysis proves the moved items on the host: the item (a host tensor made of
    it: ``torch.tensor(row)``, a Python list written into a device row), the collection's
    tensors, or the rows of a host tensor. Otherwise the copy is certain only if they are."""
    moved = loop.transfer.moved
    if provenance.where(moved, frame).on_host or provenance.is_host_data(moved, frame):
        return True
    call = loop.transfer.call
    if isinstance(call, cst.Call) and provenance.qualify(call.func) == "torch.tensor":
        return True  # ``torch.tensor(row, device=dev)``: a host tensor made of it, then copied
    if isinstance(moved, cst.Subscript) and provenance.sequence_where(moved.value, frame).on_host:
        return True  # ``host_tensors[i]`` of a list of host tensors
    iterable = loop.iterable
    while isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name):
        if iterable.func.value not in ("enumerate", "reversed", "list", "tuple", "sorted"):
            break
        if not iterable.args:
            break
        iterable = iterable.args[0].value
    return (
        provenance.where(iterable, frame).on_host
        or provenance.sequence_where(iterable, frame).on_host
    )


# Names an unpacking may bind for its comprehension to count as a few items (as a loop over a
# literal tuple or a small ``range``).
FEW_UNPACKED = 8


def unpacked_into_few_names(ancestors: list[cst.CSTNode], node: cst.CSTNode) -> bool:
    """Whether the comprehension ``node`` (or ``tuple(...)``/``list(...)`` of it) is the value
    of an assignment that unpacks it into at most :data:`FEW_UNPACKED` names, none starred
    (``pe, pooled = (t.to(dev) for t in embeds[prompt])``): the unpacking proves a count
    that small, and items of different roles."""
    assign = assignment_of(ancestors, node)
    return assign is not None and all(
        isinstance(t.target, (cst.Tuple, cst.List))
        and 0 < len(t.target.elements) <= FEW_UNPACKED
        and not any(isinstance(e, cst.StarredElement) for e in t.target.elements)
        for t in assign.targets
    )


class PerItemTransfer(ComprehensionVisits, Rule):
    """## What it does
    Flags a `for` or `while` loop or a comprehension whose only job is to copy each item of a
    collection to the device, one copy per item: `[t.to(device) for t in patches]`,
    `tuple(x.to(dev, non_blocking=True) for x in xs)`, `{i: im.cuda() for i, im in enumerate(ims)}`,
    `list(map(lambda t: t.to(dev), items))` (a `map` of a lambda is judged as its generator),
    `[torch.tensor(r).cuda() for r in rows]`, `[torch.tensor(r, device=dev) for r in rows]`, or
    a loop whose body only moves the item and stores
    it (`out.append(x.to(dev))`, `xs[i] = xs[i].to(dev)`, `item.feature = item.feature.to(dev)`,
    `dst[i].copy_(x)` into a device buffer (also at running offsets, `buf[start:end].copy_(row)`
    then `start = end`, when the rows are proven host tensors: a flat bucket of gradients is
    packed the same way on the device), an element of one written with a host tensor made
    of the item: `table[i, :len(b)] = torch.tensor(b)`, or with the item itself when it is a
    Python list (`table[i] = blocks` for `blocks` of `rows: list[list[int]]`), `x =
    queue.pop()` in a `while` loop).
    Rows of one array taken by the indices a mapping holds (`bitmask[row]` for each `row` of
    `rows.values()`) count as items too, and so do the blocks of a KV cache swapped one entry of
    a block mapping at a time (`dst_k[d].copy_(src_k[s])` for `s, d` of `src_to_dst.items()`; an
    event recorded per block is bookkeeping) when the copy runs from a host cache into a device
    cache: where the loop is, or in one call of its function that passes a host cache as the
    source and a device cache as the destination (the caches unpacked per layer, `src_k, src_v =
    src[i]`, or taken by a loop over the lists, from lists a method fills with `(key, value)`
    tuples). A host tensor made per item from data the item's size (`torch.tensor([1] *
    len(item))`, `torch.tensor(list(item.ids))`) moved to another tensor's device (`.to(mask)`
    of a `mask` the function indexes as `mask[0, 0]` or passes to `torch.cat`, or
    `.to(mask.device)`) is copied there, one copy per item. A part of the item bound to a name
    first (`feat = req.mm_feature`, then `feat.to(dev)`) is judged as the part itself. A guard that
    only keeps the items' tensors (`if isinstance(item.feature, torch.Tensor):` with no `else`,
    `if x is not None:`) is seen through. A loop inside a helper is flagged where it is, and a
    call of a function or method of the same module that moves the items of an argument that
    way is flagged too when the call repeats: in the body of a loop (over requests, batches) or
    in a hot function (`forward`, `__call__`, `step`, `*_step`). A call in such a loop of a
    one-item mover, a helper whose body only returns its argument moved to the device
    (`out.append(stage(x, dev))` of `def stage(t, d): return t.to(d, non_blocking=True)`),
    is a copy of that item as `x.to(dev)` is: the helper may be a method (`self.stager.stage(x)`)
    or imported from another module; one that aligns with another tensor's device
    (`t.to(ref.device)`) is left alone, as the loop form is.

    Confidence is HIGH where the analysis proves the items on the host (a host tensor made of
    each item, `torch.tensor(row)`; a list of such tensors; rows of a host tensor; a Python
    list written into a device row); elsewhere MEDIUM, and the message says what would make it
    certain: the items' placement is not known where they are made (a caller's data, a
    request's field), and the copy is a host-to-device one only if they are host tensors.

    Left alone, on purpose (the corpus showed each to be correct code or not batchable):

    - loops doing other work per item that runs the model or a step (a training loop moving
      a batch and running the model), reads the moved value again, or copies or allocates
      anything else on the device (what it appends may be made of what it moved already).
      A loop whose other work is host work on the item (opening, checking, converting it:
      `img = F.to_tensor(img)`, `t = torch.from_numpy(arr)`) and that appends each item's
      move to a list, in a statement every iteration runs, is flagged like a gathering loop
      (an inference pipeline's input loop; `analysis/collecting_loops.py`): the item is
      followed through what module functions make of it, not through what a method returns
      (`x = req.load()`, `h = self.encoder(img)`);
    - a mapping's values (`{k: v.to(dev) for k, v in batch.items()}`, `for k in batch:
      batch[k] = batch[k].to(dev)`): named fields such as `input_ids`, `attention_mask` and
      `pixel_values` differ in dtype and shape, so one copy cannot carry them without repacking;
    - a layer's parameters and a list collecting them (`[p.weight.to(dev) for p in
      group.projections]`, `biases = [s.bias for s in sources]`, anything of the items of
      `layers`): model state, on the device already or moved once;
    - a model call's outputs (a collection named `output` or `outputs`, what a callable
      attribute of `self` that is no method returns: `feats = self.vision_tower(images)`, its
      pieces, or a method whose every `return` is such a call): made where the model ran;
      not a callable named for host work (`self.image_processor`, `self.collate_fn`,
      `self.load_batch`); their pieces joined with `torch.cat`/`torch.stack` to anything
      (one device for all) and taken through a loop's item (`for i, f in enumerate(feats)`);
      a list of such outputs, or of tensors made like another tensor not
      proven on the host (`[self.layer(x) for _ in range(n)]`, `[x.new_zeros(4) for _ in
      heads]`, `[torch.zeros_like(h) for h in hs]`): each is made where the model or that
      tensor is;
    - a dict's named fields indexed by a list of keys (`fields[name]` of a dict made in the
      function, or `self.info[key][idx]` for `key` of `self.info_keys = list(info.keys())`),
      and a helper's parameter that every
      caller passes as a short display (`_allreduce([loss, count])`): few values of different
      kinds that one copy cannot carry;
    - at MEDIUM (items not proven on the host), a collection named as batches (`batches`,
      `processed_batches`, `micro_batches`), or items that a field annotation of the enclosing
      class names as objects of a batch class (`inputs: dict[str, list[BatchedData]]`, moved
      by their own `to`): each item is a whole batch that one step consumes,
      one copy per batch is the floor and batches differ in shape; and a local name bound to an
      element of a collection named as activations or outputs (`result =
      self._activations[-1]`): it holds what the collection holds; and code of a module
      pytest collects (`test_*.py`, `*_test.py`), run once per test;
    - loops over a model's parameters, buffers, modules or state dict, storage swaps
      (`p.data = p.data.to(dev)`) and an object's stored tensors moved in place
      (`self.freqs = [f.to(dev) for f in self.freqs]`): one-time relocations of state;
    - loops that dispatch on type (`isinstance` with branches doing different things, an
      `else` that recurses; also spelt as a default and an override, `new = arg` then
      `if isinstance(arg, torch.Tensor): new = arg.to(dev)`, storing `new`: the items that
      are no tensors are kept as they are), and comprehensions in their branches: generic
      movers of mixed containers;
    - code that runs once: `__init__`, `setup`, `_init_*` helpers, a private helper only they
      call, a run-once guard (`if self.x is None:`, or through a local name: `cached =
      self._cache`, `if cached is None:` ... `self._cache = cached`): the copies cost once,
      at setup;
    - copies to a different device per item (a multi-GPU scatter), to another tensor's device
      (`h.to(x.device)`, `first = norms[0].device`, also read by a closure from the function
      it is defined in; not a model's, `next(model.parameters())
      .device`, and in an input loop that does host work per item, below, not
      `self.model.device`: those items go to the model), or to an offload device; activations
      (`hidden_states`, `latents`, `logits`), lists of tensors made on a device, and the pieces
      of one tensor not proven on the host (`[h.to(dev) for h in out.split(1)]` of a model's
      output) already live on an accelerator, so their moves are not host-to-device copies;
    - few-byte values per item (`torch.tensor(i)` of a loop index, `torch.tensor([step])`,
      per-tensor reductions: `norms = list(torch._foreach_norm(grads))`, `[g.norm() for g in
      grads]`, a collection named as norms, `group_norms`): nothing worth batching, and
      reductions are made where their inputs live;
    - row segments of one buffer (`gpu[i, :n].copy_(cpu[i, :n])`): together they are a
      strided region, which one copy would stage as pageable memory, so copying row by row is
      the fix for that (HTD103), not a mistake;
    - copies to the host, dtype conversions, and loops over a literal tuple or a `range` of at
      most 8 (also through names and comprehensions: `inputs = [img, mask, labels]`, then
      `[torch.from_numpy(e) for e in inputs]`), or a comprehension unpacked into at most 8
      names (`pe, pooled = (t.to(dev) for t in embeds[prompt])`): the count is provably tiny;
    - branches that run only off CUDA (a CPU or other backend's fallback): the body of
      `if device.type != "cuda":`, the `else` of `if device.type == "cuda":` (not of
      `if device.type == "cuda" and packed:`, which runs on CUDA too), and the code after
      `if device.type == "cuda": return ...`; also the fallback of a cross-device gather for
      tensors not all on CUDA, `if not all(x.device.type == "cuda" for x in tensors):` (or
      through a flag, `all_cuda`, the function computes when its caller leaves it `None`),
      and a call of a helper whose per-item loop is only there; and copies to a literal
      device of another accelerator (`inp.to("mps")`, `torch.device("xpu")`).

    It also flags the other direction in a loop of model steps: each step's model output
    copied (blocking) into its own slot of a host buffer, `buf[:, idx:idx + 1].copy_(new_ids)`
    for `new_ids` of `self.draft_model.sample_from_state(...)` in `for idx in range(window)`
    (MEDIUM; `analysis/step_readbacks.py`): each copy waits for the step, where the outputs
    could stay on the device and be copied once after the loop. A loop over a collection (an
    evaluation pass writing each batch's outputs to the host) and a non-blocking copy are
    left alone.

    ## Why is this bad?
    Every copy pays a fixed launch cost, and a copy from pageable memory also synchronizes the
    host with the stream. Measured on an H200 (torch 2.11): copying 256 pinned items of 100 KB one
    by one took 2.3 ms of host time (2.3 ms on the GPU), one batched copy of the same bytes
    0.012 ms (0.47 ms on the GPU); 64 items: 0.61 ms against 0.012 ms. With pageable items the
    loop `[t.to(dev) for t in items]` over 64 items made 64 `Pageable -> Device` copies and 64
    syncs, and held the host for 46.5 ms behind a 40 ms kernel (6.4 ms when the GPU was idle).

    ## Example
    ```python
    patches = [crop(image, box) for box in boxes]
    batch = torch.stack([p.to(device) for p in patches])
    ```

    ## Use instead
    Gather the items on the host into one pinned buffer allocated once, then copy once:
    ```python
    pinned = torch.empty((max_patches, 3, 112, 112), pin_memory=True)  # at setup
    ...
    host = torch.stack(patches, out=pinned[: len(patches)])
    batch = host.to(device, non_blocking=True)
    ```
    Reuse the buffer only once the previous copy out of it has finished (record a CUDA event
    after the copy and synchronize on it before the next write). Better still, write the items
    into pinned memory when they are made, so that no gathering copy is needed.

    ## Fix safety
    No automatic fix: batching changes the shape and ownership of the moved tensors (one tensor
    and its views instead of independent tensors), and where the pinned buffer comes from is a
    design decision.
    """

    code = "HTD101"
    name = "per-item-transfer"
    message = "each item is copied to the device on its own; batch them into one copy"
    # `[`: a Python list written into a device row (`table[i] = row`) needs no call; the
    # candidates below (a subscript store in a loop over a name) decide.
    prefilter = (b".to(", b".cuda(", b".copy_(", b"tensor(", b"Tensor(", b"from_numpy(", b"[")
    candidates = (
        "loop .to|.cuda|.copy_ on loop",  # a copy of a loop item
        "loop .to|.cuda|.copy_ on .pop|.popleft|.get|.get_nowait|next",  # taken in a while loop
        f"loop {called_as(ITEM_CONVERTERS)} on loop",  # `buf[i] = torch.tensor(item)`
        "loop @subscript arg Store in Name|enumerate",  # `table[i] = row`, a Python list
        # `stage(x, dev)` of a project helper that only returns `x.to(dev)`: any name
        "loop * on loop",
        "map arg Lambda",  # `map(lambda t: t.to(dev), items)`: the generator it is
    )

    valid = (
        # Session 50 (fp101_50): the same alignment read by a closure from the function it is
        # defined in (agilerl's `padded()` nested in `_assemble`); and a collection named as
        # norms (`norms`, `group_norms`): one-value reductions, a few bytes each (nemo-automodel's
        # `_combine_norms`). The twins (a model's device; another collection) are in `invalid`.
        Valid(
            """
            import torch
            def assemble(rows, parts):
                device = rows.token_ids.device
                columns = list(zip(*parts))
                def padded(kind):
                    return torch.stack([part.to(device) for part in columns[kind]])
                return padded(0)
            def combine(group_norms: list[torch.Tensor], device):
                return torch.stack([n.to(device=device, dtype=torch.float64) for n in group_norms])
            """
        ),
        # Session 49 (fp1xx49): a local name bound to the device of a tensor field of the
        # structure the function works on (agilerl's `_assemble`, `device =
        # rows.token_ids.device`): the parts are aligned with that tensor, as `h.to(x.device)`
        # is. The twins, a model's and `self`'s submodule's device, are in `invalid`.
        Valid(
            """
            import torch
            def assemble(rows, parts):
                device = rows.token_ids.device
                columns = list(zip(*parts))
                return torch.stack([part.to(device) for part in columns[0]])
            """
        ),
        # Session 26's twins: `map` of a lambda judged as the generator it is: two names
        # unpacked, copies aligned to another tensor's device, a module's parameters, a named
        # function mapped (a mover call, judged as such elsewhere), copies to the host.
        Valid(
            """
            import torch
            class Block(torch.nn.Module):
                def forward(self, x, y, hs):
                    a, b = map(lambda t: t.to(self.device), (x, y))
                    c = list(map(lambda h: h.to(x.device), hs))
                    d = list(map(lambda h: h.cpu(), hs))
                    p = list(map(lambda q: q.to(self.device), self.parameters()))
                    e = list(map(str, hs))
                    return a, b, c, d, p, e
            """
        ),
        # Session 26 (heldout26): a numpy conversion of something other than the item (a
        # shared table, read once per item) is no per-item copy of the item's data.
        Valid(
            """
            import numpy as np
            import torch
            def upload(images, table):
                return [torch.from_numpy(np.asarray(table)).to("cuda") + i for i in images]
            """
        ),
        # Session 25 (variants25c): `as_tensor` passes a device tensor through: rows of a list
        # of tensors, or of an unannotated list, are not proven on the host
        Valid(
            """
            import torch
            def f(feats: list[torch.Tensor], rows, device):
                a = [torch.as_tensor(t, device=device) for t in feats]
                b = [torch.as_tensor(r, device=device) for r in rows]
                return a, b
            """
        ),
        # Session 25 (variants25c): look-alikes of a one-item mover called per item: called
        # once, a helper that does more than move (the encoder runs on each item), a helper
        # that moves to the host, and one that aligns with another tensor's device (torchrec's
        # `_fx_wrap_tensor_to_device_dtype(pos, kjt.values())`, as the loop form is left alone)
        Valid(
            """
            import torch
            def stage(t, device):
                return t.to(device, non_blocking=True)
            def encode(t, device, encoder):
                x = t.to(device)
                return encoder(x)
            def to_host(t):
                return t.to("cpu")
            def like(t, ref):
                return t.to(device=ref.device, dtype=ref.dtype)
            def f(features, device, encoder, values):
                one = stage(features[0], device)
                outs = [encode(x, device, encoder) for x in features]
                host = [to_host(x) for x in features]
                aligned = [like(p, values) for p in features]
                return one, outs, host, aligned
            """
        ),
        # Session 21 (lead): rows of a parameter annotated as a tensor, not proven on the host:
        # a model's input, on the device by the time the loss runs (espnet's targets); copying
        # its rows is a clone on the device, like moving the pieces of `x.split(1)`
        Valid(
            """
            import torch
            def att_loss(encoder_out: torch.Tensor, ys_pad: torch.Tensor):
                return [torch.tensor(ys, device=encoder_out.device) for ys in ys_pad]
            """
        ),
        # a flat bucket packed from tensors not proven on the host (gradients, on the device)
        Valid(
            """
            def flatten(grads, flat):
                offset = 0
                for g in grads:
                    flat[offset : offset + g.numel()].copy_(g.view(-1))
                    offset += g.numel()
            """
        ),
        # A comprehension unpacked into two names: two items of different roles.
        Valid(
            """
            def render(embeds, prompt, device):
                pe, pooled = (t.to(device) for t in embeds[prompt])
                neg_pe, neg_pooled = tuple(t.to(device) for t in embeds[""])
                return pe, pooled, neg_pe, neg_pooled
            """
        ),
        # Per-tensor norms of gradients (a reduction each, made where the gradients live),
        # gathered onto one device one by one: a few bytes each, between devices.
        Valid(
            """
            import torch
            def grad_norms(grads, device, p=2.0):
                norms = []
                if grads:
                    try:
                        norms = list(torch._foreach_norm(grads, p))
                    except RuntimeError:
                        norms = [torch.linalg.vector_norm(g, p) for g in grads]
                    norms = [n.to(device) for n in norms]
                slots = [None] * len(grads)
                for k, n in zip(range(len(grads)), norms):
                    slots[k] = n.to(device=device, dtype=torch.float32)
                return torch.stack(slots)
            """
        ),
        # A stored mapping's named fields, taken for each of its keys: fields of different
        # dtypes and shapes.
        Valid(
            """
            import torch
            class Buffer:
                def __init__(self, info, device):
                    self.device = device
                    self.info_keys = []
                    self.info = {}
                    if info is not None:
                        self.info_keys = list(info.keys())
                        for key, value in info.items():
                            self.info[key] = torch.empty((1000, *value.shape), dtype=value.dtype)
                def sample(self, idx):
                    batch = {}
                    for key in self.info_keys:
                        batch[key] = self.info[key][idx].to(self.device)
                    return batch
            """
        ),
        # A model's outputs: of a submodule (a callable attribute that is no method), of a
        # method that returns one's call, and pieces of one: made where the model ran.
        Valid(
            """
            import torch
            class Runner(torch.nn.Module):
                def __init__(self, tower, block_forward):
                    super().__init__()
                    self.vision_tower = tower
                    self.block_forward = block_forward
                def _forward_one_batch(self, block, x):
                    return self.block_forward(block, x)
                def embed(self, images, device):
                    feats = self.vision_tower(images)
                    return [f.to(device) for f in feats]
                def run(self, block, x, out_device):
                    outs = self._forward_one_batch(block, x)
                    return [o.to(out_device) for o in outs]
                def pieces(self, images, sizes, device):
                    embeds = self.vision_tower(images).split(sizes)
                    return [e.to(device) for e in embeds]
            """
        ),
        # A list of a model's outputs, or of tensors made like another tensor (`new_*`,
        # `*_like`): each item is made where the model or that tensor is; moving them aligns
        # devices (session 17: per-layer outputs and `x.new_zeros` buffers on the GPU).
        Valid(
            """
            import torch
            class Runner(torch.nn.Module):
                def __init__(self, layer):
                    super().__init__()
                    self.layer = layer
                def outputs(self, x, device):
                    outs = [self.layer(x) for _ in range(3)]
                    return [o.to(device) for o in outs]
                def scratch(self, x, heads, device):
                    bufs = [x.new_zeros(4) for _ in heads]
                    likes = [torch.zeros_like(h) for h in heads]
                    return [b.to(device) for b in bufs], [t.to(device) for t in likes]
                def pieces(self, hidden, device):
                    parts = []
                    for h in hidden.split(4):
                        parts.append(self.layer(h))
                    return [p.to(device) for p in parts]
            """
        ),
        # A row that is a tensor already on the device: a device-to-device write.
        Valid(
            """
            import torch
            class Table:
                def __init__(self, n, device):
                    self.table = torch.zeros(n, 16, dtype=torch.int32, device=device)
                def set_rows(self, rows: list[torch.Tensor]):
                    for i, row in enumerate(rows):
                        self.table[i] = row
            """
        ),
        # A Lightning module's step hook: Lightning moved the batch to the module's device
        # before the call; `.to(self.device)` of its items copies nothing.
        Valid(
            """
            import lightning.pytorch as pl
            class M(pl.LightningModule):
                def training_step(self, batch, batch_idx):
                    images = [img.to(self.device, non_blocking=True) for img in batch["images"]]
                    return self.loss(images)
            """
        ),
        # pieces of one tensor that is not shown on the host (a model's output): a gather
        # between devices
        Valid(
            """
            import torch
            def gather(model, x, device):
                hidden = model(x)
                return [h.to(device) for h in hidden.split(1)]
            """
        ),
        # Blocks copied between two device caches (copy-on-write of a block), and a swap
        # helper whose only call copies device to host: no host-to-device copy.
        Valid(
            """
            import torch
            class Blocks:
                def __init__(self):
                    self.gpu_k = torch.empty((512, 4096), device="cuda")
                    self.cpu_k = torch.empty((512, 4096), pin_memory=True)
                def _copy(self, src, dst, mapping):
                    for s, d in mapping.items():
                        dst[d].copy_(src[s])
                def copy_on_write(self, mapping):
                    self._copy(self.gpu_k, self.gpu_k, mapping)
                def swap_out(self, mapping):
                    self._copy(self.gpu_k, self.cpu_k, mapping)
            """
        ),
        # A host tensor per item moved with `.to(x)` of an `x` with no sign of being a tensor
        # (it may be a dtype), or to a host tensor's device; a number per item
        # (`torch.tensor(len(b))`): a few bytes.
        Valid(
            """
            import torch
            def lengths(boxes, kind, device):
                host = torch.zeros(4)
                a = [torch.tensor([1] * len(b)).to(kind) for b in boxes]
                c = [torch.tensor(list(b)).to(host.device) for b in boxes]
                n = [torch.tensor(len(b)).to(device) for b in boxes]
                return a, c, n
            """
        ),
        # `torch.as_tensor(x, device=dev)` of items of unknown placement passes a device tensor
        # through (no copy); a number per item (`torch.tensor(len(r), device=dev)`) is a few
        # bytes.
        Valid(
            """
            import torch
            def prepare(items, reqs, device):
                xs = [torch.as_tensor(x, device=device) for x in items]
                ns = [torch.tensor(len(r), device=device) for r in reqs]
                return xs, ns
            """
        ),
        # An alias of a part of a model's outputs (`h = out.hidden_states` for `out` of
        # `outputs`) is still an output, made on the device; an alias computed by a call is work.
        Valid(
            """
            import torch
            def gather(outputs, reqs, device):
                hs = []
                for out in outputs:
                    h = out.hidden_states
                    hs.append(h.to(device))
                xs = []
                for r in reqs:
                    x = r.load()
                    xs.append(x.to(device))
                return hs, xs
            """
        ),
        # a training loop: real work per item
        Valid(
            """
            import torch
            def train(model, loader, device):
                for x, y in loader:
                    x = x.to(device)
                    y = y.to(device)
                    loss = model(x).sub(y).pow(2).mean()
                    loss.backward()
            """
        ),
        # one-time setup: a model's parameters
        Valid(
            """
            def move(model, device):
                for p in model.parameters():
                    p.data = p.data.to(device)
            """
        ),
        # generic mover of a mixed container
        Valid(
            """
            import torch
            def move(batch, device):
                return {k: v.to(device) if isinstance(v, torch.Tensor) else v
                        for k, v in batch.items()}
            """
        ),
        # a generic mover dispatching on type, recursing into containers
        Valid(
            """
            import torch
            def move(items, device):
                out = []
                for item in items:
                    if isinstance(item, torch.Tensor):
                        out.append(item.to(device))
                    else:
                        out.append(move(item, device))
                return out
            """
        ),
        # Session 32 (precision32): the same dispatch spelt as a default and an override: the
        # item is kept as it is and replaced by its copy only when it is a tensor, so the list
        # holds an op's mixed arguments (tensors, ints, dtypes), which no single copy can carry
        # (ExecuTorch's FACTO calibration harness, `move_to_device`)
        Valid(
            """
            import torch
            def move_to_device(device, args):
                out = []
                for arg in args:
                    new = arg
                    if isinstance(arg, torch.Tensor):
                        new = arg.to(device=device)
                    out.append(new)
                return out
            """
        ),
        # code that runs once: an initializer, and a private helper only it calls
        Valid(
            """
            class Tables:
                def __init__(self, tables, device):
                    self.tables = [t.to(device) for t in tables]
                    self._init_masks(tables)
                def _init_masks(self, tables):
                    for t in tables:
                        self.masks.append(t.cuda(non_blocking=True))
            """
        ),
        # a gather between devices: to another tensor's device, or of tensors made there
        Valid(
            """
            def f(norms):
                first_device = norms[0].device
                return [n.to(first_device) for n in norms]
            """
        ),
        Valid(
            """
            import torch
            def f(n, device):
                parts = [torch.zeros(4, device='cuda') for _ in range(n)]
                return [p.to(device) for p in parts]
            """
        ),
        # one entry per metric or statistic: a handful of values of different shapes
        Valid(
            """
            import torch
            def f(metric_results, device):
                return [torch.tensor(m).to(device) for m in metric_results]
            """
        ),
        # few-byte constants per item: a loop index, a short display of numbers
        Valid(
            """
            import torch
            def f(n, device):
                return [torch.tensor(i).to(device) for i in range(n)]
            """
        ),
        Valid(
            """
            import torch
            def f(steps, device):
                return [torch.tensor([s]).cuda() for s in steps]
            """
        ),
        # a while loop doing real work per item
        Valid(
            """
            def f(queue, model, device):
                while queue:
                    x = queue.pop()
                    model(x.to(device))
            """
        ),
        # multi-GPU scatter: a different device per item
        Valid(
            """
            def scatter(chunks, devices):
                return [c.to(d) for c, d in zip(chunks, devices)]
            """
        ),
        Valid(
            """
            def scatter(x, n):
                out = []
                for i in range(n):
                    out.append(x.to(f'cuda:{i}'))
                return out
            """
        ),
        # copies to the host
        Valid(
            """
            def f(xs):
                return [x.cpu() for x in xs]
            """
        ),
        Valid(
            """
            def f(xs):
                return [x.to('cpu') for x in xs]
            """
        ),
        # dtype conversions
        Valid(
            """
            import torch
            def f(xs):
                return [x.to(torch.float16) for x in xs]
            """
        ),
        # a literal, tiny collection
        Valid(
            """
            def f(q, k, v, device):
                q, k, v = [t.to(device) for t in (q, k, v)]
            """
        ),
        Valid(
            """
            def f(xs, device):
                for i in range(2):
                    xs[i] = xs[i].to(device)
            """
        ),
        # fields of a model's output, and per-sample lists of its outputs (LLaVA's embeddings:
        # a submodule through a getter, `.detach()`, an image's features indexed from the
        # vision tower's): made where the model ran
        Valid(
            """
            import torch
            class Annotator(torch.nn.Module):
                def __call__(self, feat):
                    result = self.model(**feat, output_hidden_states=True)
                    return [v.to(self.device) for v in result["hidden_states"]]
            """
        ),
        Valid(
            """
            import torch
            class Llava(torch.nn.Module):
                def get_model(self):
                    return self.model
                def encode_images(self, images):
                    feats = self.get_model().vision_tower(images)
                    return self.get_model().mm_projector(feats)
                def merge(self, ids, images):
                    image_features = self.encode_images(images)
                    embeds = []
                    for i in range(len(ids)):
                        cur = image_features[i]
                        embeds.append(self.get_model().embed_tokens(ids[i]).detach())
                        embeds.append(cur)
                    embeds = [x.to(device=self.device) for x in embeds]
                    return torch.cat(embeds)
            """
        ),
        # the same with the image features a field of a submodule's output (mPLUG-Owl2's
        # `.last_hidden_state` of the vision model and of the visual abstractor)
        Valid(
            """
            import torch
            class Owl(torch.nn.Module):
                def encode_images(self, images):
                    feats = self.vision_model(images).last_hidden_state
                    return self.abstractor(encoder_hidden_states=feats).last_hidden_state
                def merge(self, ids, images):
                    image_features = self.encode_images(images)
                    embeds = []
                    for i in range(len(ids)):
                        embeds.append(self.embed_tokens(ids[i]))
                        embeds.append(image_features[i])
                    embeds = [x.to(device=self.device) for x in embeds]
                    return torch.cat(embeds)
            """
        ),
        # the same, through a name and a comprehension (an OCR model's three inputs)
        Valid(
            """
            import torch
            def f(img, mask, labels, device):
                inputs = [img, mask, labels]
                inp = [torch.from_numpy(e) for e in inputs]
                return [e.to(device) for e in inp]
            """
        ),
        # aligning tensors that already live on accelerators
        Valid(
            """
            def f(hs, x):
                return [h.to(x.device) for h in hs]
            """
        ),
        # one batched copy
        Valid(
            """
            import torch
            def f(xs, device):
                return torch.stack(xs).to(device, non_blocking=True)
            """
        ),
        # work in the element, not just a move
        Valid(
            """
            import torch
            def f(xs, device):
                return [torch.cat(x).to(device) for x in xs]
            """
        ),
        # row segments of one pinned buffer: the fix for a strided copy (HTD103), not batchable
        Valid(
            """
            import torch
            def f(cpu, gpu, n):
                for row in range(gpu.shape[0]):
                    gpu[row, :n].copy_(cpu[row, :n], non_blocking=True)
            """
        ),
        # copy_ into host memory
        Valid(
            """
            def f(xs, cpu_bufs):
                for i, x in enumerate(xs):
                    cpu_bufs[i].copy_(x)
            """
        ),
        # rows written into the host half of a buffer pair, then one copy of the whole table
        Valid(
            """
            import torch
            def f(rows, n):
                table = torch.zeros(n, 64, dtype=torch.int32, pin_memory=True)
                for i, blocks in enumerate(rows):
                    table[i, : len(blocks)] = torch.tensor(blocks, dtype=torch.int32)
                return table.to('cuda', non_blocking=True)
            """
        ),
        # a loop index made into a tensor: a few bytes per row
        Valid(
            """
            import torch
            def f(n):
                ids = torch.zeros(n, device='cuda')
                for i in range(n):
                    ids[i] = torch.tensor(i)
            """
        ),
        # a mapping's values written into a device table: named fields, not like items
        Valid(
            """
            import torch
            def f(fields):
                out = torch.zeros(8, 16, device='cuda')
                for k, v in fields.items():
                    out[k] = torch.as_tensor(v)
            """
        ),
        # the moved tensor does not depend on the loop: not a per-item copy
        Valid(
            """
            def f(x, n, device):
                return [x.to(device) for _ in range(n)]
            """
        ),
        # a helper that does more than the loop: its call sites are left alone
        Valid(
            """
            def move(xs, device):
                out = []
                for x in xs:
                    x = x.to(device)
                    out.append(x * 2)
                return out
            def step(xs, device):
                return move(xs, device)
            """
        ),
        # a mapping's named fields (ids, masks, pixels: different dtypes and shapes)
        Valid(
            """
            def f(inputs, device):
                return {k: v.to(device) for k, v in inputs.items()}
            """
        ),
        Valid(
            """
            def f(batch, device):
                for k in batch:
                    batch[k] = batch[k].to(device)
            """
        ),
        # Session 27 (precision27): the same fields taken by key through the mapping's
        # ``.items()`` (modelscope's models and pipelines: six forwards), the value unused
        Valid(
            """
            class Model:
                def forward(self, input):
                    for key, value in input.items():
                        input[key] = input[key].to(self._device)
                    return self.net(**input)
            """
        ),
        # an object's stored tensors moved in place: a one-time relocation
        Valid(
            """
            class Rope:
                def forward(self, ids):
                    self.freqs = [f.to(ids.device) for f in self.freqs]
                    self.freqs = [f.to(self.device) for f in self.freqs]
            """
        ),
        # swapping the storage of parameters or flat parameter groups
        Valid(
            """
            def reload(self, device):
                for buf in self.fp32_groups_flat:
                    buf.data = buf.data.to(device, non_blocking=True)
            """
        ),
        # Session 27: a collection mover whose tensor branch pins before the copy is no plain
        # per-item copy (its copies overlap), nor is one whose branch tests another name
        Valid(
            """
            import torch
            def host_to_device(o, device):
                if isinstance(o, torch.Tensor):
                    return o.pin_memory().to(device, non_blocking=True)
                return o
            def odd(o, device, flag):
                if torch.is_tensor(flag):
                    return o.to(device)
                return o
            def gather(items: list[torch.Tensor], device, flag):
                a = [host_to_device(t, device) for t in items]
                b = [odd(t, device, flag) for t in items]
                return a, b
            """
        ),
        # a branch of a type-dispatching mover
        Valid(
            """
            import torch
            def move(fields, device):
                out = {}
                for key, value in fields:
                    if isinstance(value, torch.Tensor):
                        out[key] = value.to(device)
                    elif isinstance(value, list):
                        out[key] = [v.to(device) for v in value]
                return out
            """
        ),
        # model activations: already on a device, moved between accelerators
        Valid(
            """
            def f(hidden_states, device):
                return [h.to(device) for h in hidden_states]
            """
        ),
        # the offload device is the host
        Valid(
            """
            def f(self, xs):
                return [x.to(self.offload_device) for x in xs]
            """
        ),
        Valid(
            """
            def f(xs, cpu_offload_device):
                return [x.to(cpu_offload_device) for x in xs]
            """
        ),
        # modules are moved one by one, and cannot be batched
        Valid(
            """
            def f(models, device):
                return [m.to(device) for m in models]
            """
        ),
        # items already on the device
        Valid(
            """
            import torch
            def f(n, device):
                x = torch.zeros(n, 4, device='cuda')
                return [row.to(device) for row in x]
            """
        ),
        # a branch taken only off CUDA (a CPU fallback; on a GPU the packed upload runs)
        Valid(
            """
            import torch
            def upload(tables, device):
                items = [torch.tensor(values) for values in tables]
                if device.type != "cuda":
                    return [t.to(device) for t in items]
                blob = torch.cat(items).pin_memory()
                return blob.to(device, non_blocking=True)
            """
        ),
        # ... and so is the code after a CUDA branch that returns
        Valid(
            """
            import torch
            def upload(tables, device, staging):
                items = [torch.tensor(values) for values in tables]
                if device.type == "cuda":
                    return torch.cat(items, out=staging).to(device, non_blocking=True)
                return [t.to(device) for t in items]
            """
        ),
        # Session 35 (precision35): the fallback of a cross-device gather for tensors not all
        # on CUDA (tensor_parallel's): with every shard on a GPU the other branch runs; also
        # through a flag the function computes when its caller leaves it out, and at a call of
        # such a helper
        Valid(
            """
            import torch
            def gather(tensors, destination=None, all_cuda=None):
                if all_cuda is None:
                    all_cuda = all(x.device.type == "cuda" for x in tensors)
                if destination is None:
                    destination = tensors[0].device
                if not all_cuda:
                    return torch.cat([x.to(destination, non_blocking=True) for x in tensors])
                return Gather.apply(destination, 0, *tensors)
            def forward(self, shards):
                return tuple(gather(shards, destination=s.device) for s in shards)
            """
        ),
        # Session 35 (precision35): copies to another accelerator named by a literal (Apple's
        # MPS, Intel's XPU): that backend's code, not a host-to-CUDA copy
        Valid(
            """
            import torch
            def run_on_mps(model, inputs):
                inputs_mps = tuple(inp.to("mps") for inp in inputs)
                return model.to("mps")(*inputs_mps)
            """
        ),
        # model state: each layer's parameter, or a list collecting the layers' parameters or
        # state (on the device already, or moved once), not per-request data
        Valid(
            """
            import torch
            def span(group, device):
                weights = [p.weight.detach().to(device) for p in group.projections]
                return torch.cat(weights)
            """
        ),
        Valid(
            """
            import torch
            def fused_bias(sources, device):
                biases = [source.bias for source in sources]
                return torch.cat([b.to(device) for b in biases])
            """
        ),
        Valid(
            """
            def fused_stats(layers, device):
                mats = [getattr(layer.orig_layer, "imatrix", None) for layer in layers]
                return [m.to(device) for m in mats]
            """
        ),
        # a model call's outputs, moved to a cache device: made where the model ran
        Valid(
            """
            class Runner:
                def run(self, block, batches, out_device):
                    outputs = []
                    for batch in batches:
                        raw = self._forward_one_batch(block, batch)
                        output = self.normalize(raw)
                        outputs.extend(t.to(out_device) for t in output)
                    return outputs
            """
        ),
        # a dict's named fields (sliced per window): different dtypes and shapes
        Valid(
            """
            def run(model_fn, kwargs, names, device, t0, t1):
                fields = {name: kwargs[name] for name in names}
                kwargs.update({name: fields[name][:, :, t0:t1].to(device) for name in names})
                return model_fn(**kwargs)
            """
        ),
        # a helper that every caller hands two values of different kinds
        Valid(
            """
            def _allreduce(data, device):
                return [d.to(device) for d in data]
            def stats(loss, count, device):
                return _allreduce([loss, count], device)
            """
        ),
        # A data loader's batch iterated item by item: a collated batch's items are its fields
        # (audio, lengths, labels), tensors of different shapes and dtypes that one copy cannot
        # carry (NeMo's speaker-label batch inference, session 16).
        Valid(
            """
            import torch
            def batch_inference(model, dataloader, device):
                for test_batch in dataloader:
                    test_batch = [x.to(device) for x in test_batch]
                    model(*test_batch)
            """
        ),
        # Session 20 (mergekit's batch packer): a copy into a buffer made on the device of the
        # loop's own collection packs items on their own device, no host-to-device copy
        # (twin in tests/test_precision_fixes_s20.py: a buffer on a named device).
        Valid(
            """
            import torch
            def pack(sources, dtype):
                shape = (len(sources), *sources[0].shape)
                tensor = torch.empty(shape, dtype=dtype, device=sources[0].device)
                for index, source in enumerate(sources):
                    tensor[index].copy_(source)
                return tensor
            """
        ),
        # Session 26 (python-doctr's `set_device_and_dtype`): a collection named as batches
        # holds whole batches, each the unit one forward consumes; one copy per batch is the
        # floor and batches differ in shape (twin: batches proven on the host stay reported).
        Valid(
            """
            def set_device_and_dtype(model, batches, device, dtype):
                model = model.to(device=device, dtype=dtype)
                return model, [batch.to(device=device, dtype=dtype) for batch in batches]
            """
        ),
        # Session 26 (torchrl's trajectory boundaries): a value memoised through a local name
        # (`cached = self._cache`, `if cached is None:` ... `self._cache = cached`) is
        # computed, and moved, once.
        Valid(
            """
            import torch
            def start_stop(end: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
                start = torch.nonzero(end)
                return start, start + 1
            class Storage:
                def boundaries(self):
                    boundaries = self._boundaries
                    if boundaries is None:
                        boundaries = start_stop(self.end)
                        boundaries = tuple(value.to(self.device) for value in boundaries)
                        self._boundaries = boundaries
                    return boundaries
            """
        ),
        # Session 26 (fairscale's offload forward): a local name bound to an element of a
        # collection named as activations holds activations, made where the model ran.
        Valid(
            """
            def forward(self, *inputs):
                self._activations = []
                for layer in self.model_slices:
                    inputs = layer(*inputs)
                    self._activations.append(inputs)
                result = self._activations[-1]
                result = tuple([r.cuda() for r in result])
                return result
            """
        ),
        # Session 29 (peritem29): loops that do other work per item as well as moving it are
        # judged by what happens to the moved value. Left alone: a loop that runs the model on
        # each moved batch (the copy per step is the floor), one that reads the moved value
        # again in the iteration, a number taken of each item (`n = len(item)`), a few items,
        # items made on the device, and a loop in `__init__` (runs once).
        Valid(
            """
            import torch
            class Runner:
                def __init__(self, paths, device):
                    self.cached = []
                    for p in paths:
                        t = torch.load(p)
                        self.cached.append(t.to(device))
                def train(self, loader, device):
                    kept = []
                    for batch in loader:
                        if batch is None:
                            continue
                        x = batch.to(device)
                        loss = self.model(x)
                        kept.append(x)
                    return kept
                def stage(self, images, device):
                    out = []
                    for img in images:
                        x = img.float()
                        y = x.to(device)
                        print(y.shape)
                        out.append(y)
                    return out
                def lengths(self, items, device):
                    out = []
                    for item in items:
                        n = len(item)
                        out.append(torch.tensor(n).to(device))
                    return out
                def views(self, a, b, c, device):
                    out = []
                    for v in (a, b, c):
                        if v is None:
                            continue
                        out.append(v.to(device))
                    return out
                def conditions(self, frames, device):
                    # moved, resized on the device, then cast: the last move is within the
                    # device (diffusers' LTX-2 conditioning frames)
                    out = []
                    for arr in frames:
                        pixels = torch.from_numpy(arr).to(device)
                        pixels = torch.nn.functional.interpolate(pixels, size=(64, 64))
                        cond = pixels / 127.5 - 1.0
                        out.append(cond.to(dtype=torch.bfloat16, device=device))
                    return out
                def drafts(self, ids, params, window, bs):
                    # each step's output kept on the device, the window copied once after
                    # the loop (exllamav3 1.6.5), and an evaluation pass writing each batch's
                    # outputs to the host (a collection, not steps)
                    host = torch.empty((bs, window), dtype=torch.long, pin_memory=True)
                    cols = []
                    for idx in range(window):
                        new_ids = self.draft_model.sample_from_state(ids, params)
                        cols.append(new_ids)
                        ids = new_ids
                    host[:bs, :window].copy_(torch.cat(cols, dim=1))
                    preds = torch.empty(100, 10)
                    for i, batch in enumerate(self.loader):
                        logits = self.model(batch)
                        preds[i].copy_(logits)
                    return host, preds
                def step(self, model, input_ids, input_pos):
                    # each decoding step's token lists (made on the device by the previous
                    # step) moved to the model's device: a comprehension's move to
                    # `model.device` aligns, as to another tensor's device (espnet's
                    # mini-omni generator)
                    input_ids = [input_id.to(model.device) for input_id in input_ids]
                    return model(input_ids, input_pos)
                def outputs(self, xs, device):
                    made = [torch.zeros(4, device=device) for _ in xs]
                    out = []
                    for m in made:
                        if m.sum() > 0:
                            m = m * 2
                        out.append(m.to(device))
                    return out
            """
        ),
        # Session 43 (triage43b): a list the class's forward hook fills with a layer's output
        # (vit-pytorch 1.26.11 recorder.py:56): the recordings were made where the model ran,
        # so moving each to the input's device copies nothing from the host.
        Valid(
            """
            import torch
            from torch import nn
            class Recorder(nn.Module):
                def __init__(self, vit, device=None):
                    super().__init__()
                    self.vit, self.device, self.recordings = vit, device, []
                def _hook(self, _, input, output):
                    self.recordings.append(output.clone().detach())
                def register(self):
                    for module in self.vit.modules():
                        module.register_forward_hook(self._hook)
                def record(self, attn):
                    recording = attn.clone().detach()
                    self.recordings.append(recording)
                def clear(self):
                    self.recordings.clear()
                def forward(self, img):
                    self.clear()
                    pred = self.vit(img)
                    target_device = self.device if self.device is not None else img.device
                    recordings = tuple(map(lambda t: t.to(target_device), self.recordings))
                    return pred, torch.stack(recordings, dim=1)
            """
        ),
        # Session 45 (fp1xx45, LLaVA's `prepare_inputs_labels_for_multimodal`): pieces of the
        # vision tower's output, each joined with `torch.cat` to another piece of it, taken
        # through the loop's own item: made where the model ran, as the output is.
        Valid(
            """
            import torch
            class Llava(torch.nn.Module):
                def embed(self, images, device):
                    feats = torch.split(self.vision(images), [1, 2])
                    merged = []
                    for idx, feat in enumerate(feats):
                        if feat.shape[0] > 1:
                            base = feat[0]
                            feat = feat[1:].flatten(0, 1)
                            feat = torch.cat((base, feat), dim=0)
                        else:
                            feat = torch.cat((feat[0], self.newline[None]), dim=0)
                        merged.append(feat)
                    return [x.to(device) for x in merged]
            """
        ),
        # Session 51 (triage51b, neuracore 19.0.0 `ml/core/ml_types.py:39`): the items of a
        # field annotated as objects of a batch class are whole batches, each moved by its own
        # `to` (analysis/batch_items.py).
        Valid(
            """
            from dataclasses import dataclass
            import torch
            @dataclass
            class BatchedData:
                frames: torch.Tensor
                def to(self, device):
                    return BatchedData(self.frames.to(device))
            @dataclass
            class TrainingSamples:
                inputs: dict[str, list[BatchedData]]
                def to(self, device):
                    return TrainingSamples(
                        inputs={k: [item.to(device) for item in v] for k, v in self.inputs.items()}
                    )
            """
        ),
    )
    invalid = (
        # Session 50 (fp101_50): the twins of the closure and the norms in `valid`: a closure
        # reading a model's device from its enclosing function; a collection of other items.
        Invalid(
            """
            import torch
            def assemble(model, parts):
                device = model.device
                columns = list(zip(*parts))
                def padded(kind):
                    return torch.stack([part.to(device) for part in columns[kind]])
                                        ^^^^^^^^^^^^^^^
                return padded(0)
            def combine(normals: list[torch.Tensor], device):
                return torch.stack([n.to(device=device, dtype=torch.float64) for n in normals])
                                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """
        ),
        # Session 49 (fp1xx49): the twins of the tensor field's device in `valid`: a
        # pipeline's submodule and the object's encoder, where host data is sent.
        Invalid(
            """
            import torch
            def assemble(pipe, parts):
                device = pipe.unet.device
                columns = list(zip(*parts))
                return torch.stack([part.to(device) for part in columns[0]])
                                    ^^^^^^^^^^^^^^^
            class Encoder:
                def assemble(self, parts):
                    device = self.encoder.device
                    columns = list(zip(*parts))
                    return torch.stack([part.to(device) for part in columns[0]])
                                        ^^^^^^^^^^^^^^^
            """
        ),
        # Session 27 (precision27): a list's items moved one by one through their positions
        # (not a mapping's fields by key): like images of a batch, one copy each
        Invalid(
            """
            class Model:
                def forward(self, images):
                    for i, image in enumerate(images):
                        images[i] = images[i].to(self._device)
                                    ^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return self.net(images)
            """
        ),
        # Session 26 (misses26): `map` of a lambda that moves its argument is the generator
        # `(t.to(dev) for t in items)`, one copy per item.
        Invalid(
            """
            import torch
            def upload(rows: list[list[int]], images, device):
                ids = list(map(lambda r: torch.tensor(r, device=device), rows))
                #                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                pixels = tuple(map(lambda im: im.to(device, non_blocking=True), images))
                #                             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return ids, pixels
            """
        ),
        # Session 26 (heldout26): an item converted to a numpy array first, then made a host
        # tensor and moved, one copy per image (an inference helper's upload of its inputs).
        Invalid(
            """
            import numpy as np
            import torch
            def upload(images):
                return torch.stack([torch.from_numpy(np.asarray(i)).to("cuda") for i in images])
                                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """
        ),
        # Session 25 (variants25c): `as_tensor` of each row of a parameter annotated as a list
        # of lists of numbers (a comprehension's item as a loop's): a Python list, so a host
        # tensor made and copied per row
        Invalid(
            """
            import torch
            def propose(draft_token_ids: list[list[int]], device):
                return [torch.as_tensor(d, device=device) for d in draft_token_ids]
                #       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """
        ),
        # Session 25 (variants25c): a one-item mover (a helper whose body only returns its
        # argument moved to the device) called per item is the same per-item copy; the helper
        # may be a method or imported from another module
        Invalid(
            """
            import torch
            def stage(t, device):
                return t.to(device, non_blocking=True)
            class Runner:
                def to_dev(self, t):
                    return t.cuda(non_blocking=True)
                def gather(self, features, device):
                    moved = []
                    for feat in features:
                        moved.append(stage(feat, device))
                        #            ^^^^^^^^^^^^^^^^^^^
                    return moved
                def gather_all(self, images):
                    return [self.to_dev(im) for im in images]
                    #       ^^^^^^^^^^^^^^^
            """
        ),
        # Session 27: a collection mover (its tensor branch returns `o.to(device)`, other
        # branches recurse into dicts and lists) called per item copies each item as a
        # one-item mover does (MEDIUM: where the items are is not known here)
        Invalid(
            """
            import torch
            def move_to_device(o, device):
                if isinstance(o, torch.Tensor):
                    return o.to(device, non_blocking=True)
                elif isinstance(o, dict):
                    return {k: move_to_device(v, device) for k, v in o.items()}
                return o
            def gather(items: list[torch.Tensor], device):
                return [move_to_device(t, device) for t in items]
                #       ^^^^^^^^^^^^^^^^^^^^^^^^^
            """
        ),
        # Session 21's twin: rows of a tensor made on the host from Python data
        Invalid(
            """
            import torch
            def att_loss(encoder_out: torch.Tensor, rows: list[list[int]]):
                ys_pad = torch.tensor(rows)
                return [torch.tensor(ys, device=encoder_out.device) for ys in ys_pad]
                #       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """
        ),
        # a field of a processor's output, and a list that also holds host tensors
        Invalid(
            """
            import torch
            class Pipeline(torch.nn.Module):
                def __call__(self, images, ids):
                    batch = self.image_processor(images)
                    pixels = [v.to(self.device) for v in batch["pixel_values"]]
                    #         ^^^^^^^^^^^^^^^^^
                    embeds = []
                    for i in range(len(ids)):
                        embeds.append(self.embed_tokens(ids[i]))
                        embeds.append(torch.tensor(ids[i]))
                    moved = [x.to(self.device) for x in embeds]
                    #        ^^^^^^^^^^^^^^^^^
                    return pixels, moved
            """
        ),
        # Made like a host tensor (`new_*` of a tensor built from Python data, `*_like` of a
        # numpy-made one): host items, each copied on its own.
        Invalid(
            """
            import torch
            def upload(rows, heads, device):
                ref = torch.tensor(rows)
                bufs = [ref.new_zeros(4) for _ in heads]
                return [b.to(device) for b in bufs]
                        ^^^^^^^^^^^^
            """
        ),
        # A starred unpacking proves no count.
        Invalid(
            """
            def render(crops, device):
                first, *rest = [t.to(device) for t in crops]
                                ^^^^^^^^^^^^
                return first, rest
            """
        ),
        # The `else` of a test that holds only on CUDA but not always there runs on CUDA too.
        Invalid(
            """
            import torch
            def upload(tables, device, staging, packed):
                items = [torch.tensor(values) for values in tables]
                if device.type == "cuda" and packed:
                    return torch.cat(items, out=staging).to(device, non_blocking=True)
                else:
                    return [t.to(device) for t in items]
                            ^^^^^^^^^^^^
            """
        ),
        # Session 35 (precision35): a flag that holds whenever the items are on CUDA chooses
        # the per-item branch there (`all(...)` of each item's test), and a flag the caller
        # passes without the function computing it is not known; a literal CUDA device is one
        Invalid(
            """
            import torch
            def gather(tensors, destination, all_cuda=None):
                if all_cuda is None:
                    all_cuda = all(x.device.type == "cuda" for x in tensors)
                if all_cuda:
                    return torch.cat([x.to(destination, non_blocking=True) for x in tensors])
                                      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return torch.cat(tensors).to(destination)
            def upload(tensors, device, all_cuda):
                if not all_cuda:
                    return torch.cat([x.to(device, non_blocking=True) for x in tensors])
                                      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return fused(tensors, device)
            def run_on_cuda(model, inputs):
                inputs_gpu = tuple(inp.to("cuda:0") for inp in inputs)
                                   ^^^^^^^^^^^^^^^^
                return model(*inputs_gpu)
            """
        ),
        # A Python list written into a row of a device tensor: PyTorch makes a host tensor of
        # it and copies it, one blocking copy per row.
        Invalid(
            """
            import torch
            class Table:
                def __init__(self, n, device):
                    self.table = torch.zeros(n, 16, dtype=torch.int32, device=device)
                def set_rows(self, padded_rows: list[list[int]]):
                    for i, blocks in enumerate(padded_rows):
                        self.table[i] = blocks
                        ^^^^^^^^^^^^^
            """,
        ),
        # pieces of a host tensor moved one by one: move it once, then split
        Invalid(
            """
            import numpy as np
            import torch
            def upload(arr: np.ndarray, device):
                rows = torch.from_numpy(arr)
                return [r.to(device) for r in rows.split(1)]
                        ^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            def f(patches, device):
                return [p.to(device) for p in patches]
                        ^^^^^^^^^^^^
            """,
            message_contains="`patches`",
        ),
        Invalid(
            """
            def f(images):
                return {i: im.cuda() for i, im in enumerate(images)}
                           ^^^^^^^^^
            """,
        ),
        Invalid(
            """
            def f(xs, dev):
                return tuple(x.to(dev, non_blocking=True) for x in xs)
                             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            def f(patches, device):
                return torch.stack([p.float().to(device) for p in patches])
                                    ^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            def f(xs, device):
                out = []
                for x in xs:
                    out.append(x.to(device))
                               ^^^^^^^^^^^^
                return out
            """,
        ),
        Invalid(
            """
            def f(xs, device):
                for i in range(len(xs)):
                    xs[i] = xs[i].to(device)
                            ^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            def f(crops, device):
                for i, crop in enumerate(crops):
                    crops[i] = crop.to(device, non_blocking=True)
                               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            def f(xs):
                dst = torch.empty(len(xs), 1024, device='cuda')
                for i, x in enumerate(xs):
                    dst[i].copy_(x, non_blocking=True)
                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return dst
            """,
        ),
        # host rows packed into one device buffer at running offsets: one copy per row
        Invalid(
            """
            import torch
            class Runner:
                def __init__(self, device):
                    self.buf = torch.empty(8192, dtype=torch.int64, device=device)
                def prepare(self, prompts):
                    rows = [torch.tensor(p) for p in prompts]
                    start = 0
                    for row in rows:
                        end = start + row.numel()
                        self.buf[start:end].copy_(row, non_blocking=True)
                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                        start = end
            """,
        ),
        # each request's block ids written into a row of a device table: one copy per request
        Invalid(
            """
            import torch
            class BlockTable:
                def __init__(self, n, device):
                    self.table = torch.zeros(n, 256, dtype=torch.int32, device=device)
                def add_rows(self, rows):
                    for i, blocks in enumerate(rows):
                        self.table[i, : len(blocks)] = torch.tensor(blocks, dtype=torch.int32)
                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # rows of one host array, at the indices a mapping holds
        Invalid(
            """
            import torch
            def f(bitmask, rows, n):
                dev = torch.zeros(n, 1024, dtype=torch.int32, device='cuda')
                for req_id, row in rows.items():
                    dev[row].copy_(torch.from_numpy(bitmask[row]), non_blocking=True)
                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return dev
            """,
        ),
        Invalid(
            """
            def f(xs, device):
                moved = []
                for x in xs:
                    y = x.to(device)
                        ^^^^^^^^^^^^
                    moved.append(y)
                return moved
            """,
        ),
        # a helper of the same module: the loop, and every call of it
        Invalid(
            """
            def to_device(xs, device):
                return [x.to(device) for x in xs]
                        ^^^^^^^^^^^^
            def step(model, xs, device):
                return model(to_device(xs, device))
                             ^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="`to_device(...)`",
        ),
        Invalid(
            """
            class Runner:
                def _move(self, items):
                    out = []
                    for item in items:
                        out.append(item.cuda(non_blocking=True))
                                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return out
                def step(self, items):
                    return self.model(self._move(items))
                                      ^^^^^^^^^^^^^^^^^
            """,
            message_contains="`self._move(...)`",
        ),
        Invalid(
            """
            def f(samples, device):
                return [s['pixel_values'].to(device) for s in samples]
                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # Session 32 (precision32): the VALID default-and-override's twin: the type filter
        # keeps only the tensors (nothing else is stored), so the list is of tensors alone
        Invalid(
            """
            import torch
            def move_to_device(device, args):
                out = []
                for arg in args:
                    if isinstance(arg, torch.Tensor):
                        new = arg.to(device=device)
                              ^^^^^^^^^^^^^^^^^^^^^
                        out.append(new)
                return out
            """,
        ),
        # keeping a collection's tensors is a filter, not a dispatch on type
        Invalid(
            """
            import torch
            def move(batch, device):
                return [v.to(device) for v in batch if isinstance(v, torch.Tensor)]
                        ^^^^^^^^^^^^
            """,
        ),
        # the multimodal shape: a helper moving each item's feature, called per request
        Invalid(
            """
            import torch
            def _move_items(items, device):
                for item in items:
                    if isinstance(item.feature, torch.Tensor):
                        item.feature = item.feature.to(device, non_blocking=True)
                                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            def embed(requests, device, encoder):
                out = []
                for req in requests:
                    _move_items(req.items, device)
                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    out.append(encoder(req.items))
                return out
            """,
            message_contains="`_move_items(...)`",
        ),
        Invalid(
            """
            import torch
            def _move_items(items, device):
                for item in items:
                    if isinstance(item.feature, torch.Tensor):
                        item.feature = item.feature.to(device, non_blocking=True)
                                       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # a list of the items' own tensors (not a layer's parameter or state): per-item copies
        Invalid(
            """
            def f(requests, device):
                feats = [req.pixel_values for req in requests]
                return [x.to(device) for x in feats]
                        ^^^^^^^^^^^^
            """,
        ),
        # a list of host crops taken in some order: items of a list, not a dict's fields
        Invalid(
            """
            def f(crops, order, device):
                return {i: crops[i].to(device, non_blocking=True) for i in order}
                           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # a parameter mapping's tensors for each of a list of keys (one dtype): one copy each
        Invalid(
            """
            import torch
            def pack(keys, data):
                return torch.cat([data[key].cuda().view(-1) for key in keys])
                                  ^^^^^^^^^^^^^^^^
            """,
        ),
        # Items that are not reductions (per-request crops), zipped with norms: copied one by one.
        Invalid(
            """
            import torch
            def f(crops, device):
                norms = [c.norm() for c in crops]
                out = []
                for c, n in zip(crops, norms):
                    out.append(c.to(device))
                               ^^^^^^^^^^^^
                return out
            """,
        ),
        # The tensors a reduction works on, not the reductions: one copy per item.
        Invalid(
            """
            import torch
            def f(grads, device):
                tensors = [g.detach().float() for g in grads]
                return [t.to(device) for t in tensors]
                        ^^^^^^^^^^^^
            """,
        ),
        # A list of keys that is no mapping's (a parameter): the same-dtype pack stays reported.
        Invalid(
            """
            import torch
            class Packer:
                def __init__(self, keys):
                    self.keys = keys
                def pack(self, data):
                    return torch.cat([data[key].cuda().view(-1) for key in self.keys])
                                      ^^^^^^^^^^^^^^^^
            """,
        ),
        # A processor's outputs (host data), and a method that builds host tensors: per-item
        # copies of host data.
        Invalid(
            """
            import torch
            class Runner:
                def __init__(self, processor):
                    self.image_processor = processor
                def _prepare(self, requests):
                    return [torch.tensor(r.token_ids) for r in requests]
                def step(self, images, requests, device):
                    pixels = self.image_processor(images)
                    a = [p.to(device) for p in pixels]
                         ^^^^^^^^^^^^
                    rows = self._prepare(requests)
                    b = [r.to(device) for r in rows]
                         ^^^^^^^^^^^^
                    batch = self.load_batch(requests)
                    c = [t.cuda(non_blocking=True) for t in batch]
                         ^^^^^^^^^^^^^^^^^^^^^^^^^
                    return a, b, c
            """,
        ),
        # Items of unknown placement (a caller's list): MEDIUM, saying what makes it certain.
        Invalid(
            """
            def f(crops, device):
                return [c.to(device, non_blocking=True) for c in crops]
                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="if the items are host tensors",
        ),
        # Pinned host tensors of a list, copied one by one into device slots: HIGH.
        Invalid(
            """
            import torch
            def f(n, device):
                host = [torch.rand(64, 64).pin_memory() for _ in range(n)]
                dev = [torch.empty_like(t, device=device) for t in host]
                for i in range(n):
                    dev[i].copy_(host[i], non_blocking=True)
                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return dev
            """,
            message_contains="sync per item):",
        ),
        # a converter of each item's data, then a copy
        Invalid(
            """
            import torch
            def f(rows):
                return [torch.tensor(r).cuda() for r in rows]
                        ^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # a while loop taking items off a queue
        Invalid(
            """
            def f(queue, device):
                out = []
                while queue:
                    x = queue.pop()
                    out.append(x.to(device))
                               ^^^^^^^^^^^^
                return out
            """,
        ),
        # a model's device is where host data goes, not another tensor's device
        Invalid(
            """
            def f(model, loader):
                model_device = next(model.parameters()).device
                return [batch['ids'].to(model_device) for batch in loader]
                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # an unnamed target of a non-blocking copy is a device
        Invalid(
            """
            def f(crops, d):
                return [c.to(d, non_blocking=True) for c in crops]
                        ^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # the comprehension's `x` is an item of `xs`, not the device tensor bound before
        Invalid(
            """
            import torch
            def f(xs, device):
                x = torch.zeros(4, device='cuda')
                return [x.to(device) for x in xs]
                        ^^^^^^^^^^^^
            """,
        ),
        # KV blocks swapped in one entry of the mapping at a time, from the pinned host cache
        # into the device cache (the caches are lists of (key, value) tuples that methods
        # build; `swap_in` passes them host first): one copy per block. `swap_out`, the other
        # direction, is no reason to stay silent; the event recorded per block is bookkeeping.
        Invalid(
            """
            import torch
            class CacheEngine:
                def __init__(self, n):
                    self.n = n
                    self.events = [torch.cuda.Event() for _ in range(n)]
                    self.gpu_cache = self.allocate_gpu_cache()
                    self.cpu_cache = self.allocate_cpu_cache()
                def allocate_gpu_cache(self):
                    gpu_cache = []
                    for _ in range(self.n):
                        k = torch.empty((512, 16, 128), device="cuda")
                        v = torch.empty((512, 16, 128), device="cuda")
                        gpu_cache.append((k, v))
                    return gpu_cache
                def allocate_cpu_cache(self):
                    cpu_cache = []
                    for _ in range(self.n):
                        k = torch.empty((512, 16, 128), pin_memory=True)
                        v = torch.empty((512, 16, 128), pin_memory=True)
                        cpu_cache.append((k, v))
                    return cpu_cache
                def _swap(self, src, dst, src_to_dst):
                    for i in range(self.n):
                        src_k, src_v = src[i]
                        dst_k, dst_v = dst[i]
                        for src_id, dst_id in src_to_dst.items():
                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                            dst_k[dst_id].copy_(src_k[src_id])
                            dst_v[dst_id].copy_(src_v[src_id])
                            event = self.events[i]
                            event.record()
                         ...^^^^^^^^^^^^^^
                def swap_in(self, src_to_dst):
                    self._swap(self.cpu_cache, self.gpu_cache, src_to_dst)
                def swap_out(self, src_to_dst):
                    self._swap(self.gpu_cache, self.cpu_cache, src_to_dst)
            """
        ),
        # The same with the caches' placements known where the loop is.
        Invalid(
            """
            import torch
            class Swapper:
                def __init__(self):
                    self.gpu_k = torch.empty((512, 4096), device="cuda")
                    self.cpu_k = torch.empty((512, 4096), pin_memory=True)
                    self.event = torch.cuda.Event()
                def swap_in(self, pairs):
                    for s, d in pairs:
                    ^^^^^^^^^^^^^^^^^^
                        self.gpu_k[d].copy_(self.cpu_k[s])
                        self.event.record()
                     ...^^^^^^^^^^^^^^^^^^^
            """
        ),
        # A host tensor made per item from a list the item's size (`[1] * len(item)`), moved
        # to the device of a tensor the function shows is one (indexed `mask[0, 0]`, passed to
        # `torch.cat`), or to `other.device`: one copy per item.
        Invalid(
            """
            import torch
            def combine(boxes, attention_mask, embeds):
                visual_mask = [torch.tensor([1] * len(b)).to(attention_mask) for b in boxes]
                #              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                pad = torch.zeros_like(attention_mask[0, 0])
                lists = [torch.tensor(list(b.ids)).to(embeds.device) for b in boxes]
                #        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return torch.cat([attention_mask, pad]), visual_mask, lists
            """
        ),
        # A host tensor made on the device per item (`torch.tensor(row, device=dev)`): the
        # same copy from the host as `torch.tensor(row).to(dev)`, one per item.
        Invalid(
            """
            import torch
            def prepare(reqs, device):
                ids = [torch.tensor(r.token_ids, device=device) for r in reqs]
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return ids
            """
        ),
        # A part of the item bound to a name first (`feat = req.mm_feature`), then moved:
        # the same per-item copy, also behind a filter on the alias.
        Invalid(
            """
            import torch
            def gather(reqs, device):
                feats = []
                for req in reqs:
                    feat = req.mm_feature
                    if feat is not None:
                        feats.append(feat.to(device, non_blocking=True))
                #                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                embeds = []
                for r in reqs:
                    e = r.embedding
                    e = e.to(device)
                #       ^^^^^^^^^^^^
                    embeds.append(e)
                return feats, embeds
            """
        ),
        # The items of a field of the batch (a list of images) are like items: still reported
        # (twin of the valid loop over the batch's fields).
        Invalid(
            """
            import torch
            def batch_inference(model, dataloader, device):
                for batch in dataloader:
                    images = [img.to(device) for img in batch["images"]]
                #             ^^^^^^^^^^^^^^
                    model(images)
            """
        ),
        # Batches proven on the host (a host tensor made of each row) stay reported, HIGH;
        # and a local name bound to an element of a collection that is not named as
        # activations (twins of the session-26 valid examples).
        Invalid(
            """
            import torch
            def upload(rows, crops, device):
                batches = [torch.tensor(r) for r in rows]
                a = [b.to(device) for b in batches]
                #    ^^^^^^^^^^^^
                result = crops[-1]
                c = [r.to(device) for r in result]
                #    ^^^^^^^^^^^^
                return a, c
            """
        ),
        # Session 29 (peritem29): an input loop that opens, checks or converts each item on
        # the host, then moves it on its own into a list (rfdetr's `predict`): the copies are
        # one per item whatever else the body does. The item is followed through the names
        # the body binds from it (`img = F.to_tensor(img)`, `t = torch.from_numpy(arr)`), also
        # through a name bound to the transfer and appended later; a model's device
        # (`self.model.device`) is where host data is sent, not another tensor's device.
        Invalid(
            """
            import numpy as np
            import torch
            import torchvision.transforms.functional as F
            class Detector:
                def predict(self, images):
                    sizes, batch = [], []
                    for img in images:
                        if not isinstance(img, torch.Tensor):
                            img = F.to_tensor(img)
                        if img.shape[0] != 3:
                            raise ValueError("channels")
                        img_tensor = img
                        sizes.append(img_tensor.shape[1:])
                        batch.append(img_tensor.to(self.model.device))
                        #            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return torch.stack(batch), sizes
                def encode(self, arrays, device):
                    out = []
                    for a in arrays:
                        arr = np.asarray(a, dtype=np.float32)
                        t = torch.from_numpy(arr)
                        moved = t.to(device)
                        #       ^^^^^^^^^^^^
                        out.append(moved)
                    return out
            """
        ),
        # Session 29 (peritem29): each draft step's sampled ids copied (blocking) into their
        # own column of a pinned host buffer (exllamav3 1.6.4's MTP drafting): one
        # device-to-host copy per step, each waiting for the step. MEDIUM: a model's output is
        # made on the device, which the analysis does not prove.
        Invalid(
            """
            import torch
            class Generator:
                def __init__(self, bs, n):
                    self.draft_ids_pinned = torch.empty((bs, n), dtype=torch.long, pin_memory=True)
                def draft(self, ids, params, window, bs):
                    for idx in range(window):
                        state = self.draft_model.forward(ids, params)
                        new_ids = self.draft_model.sample_from_state(state, params)
                        self.draft_ids_pinned[:bs, idx:idx + 1].copy_(new_ids)
                        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                        ids = new_ids
            """,
            message_contains="its own slot of a host buffer",
        ),
        # Session 43 (triage43b): the look-alike of the hook-filled list above: another method
        # appends what it loads from a file, so the items may be host tensors (MEDIUM).
        Invalid(
            """
            import torch
            from torch import nn
            class Recorder(nn.Module):
                def __init__(self, vit, device):
                    super().__init__()
                    self.vit, self.device, self.recordings = vit, device, []
                def _hook(self, _, input, output):
                    self.recordings.append(output.clone().detach())
                def register(self):
                    for module in self.vit.modules():
                        module.register_forward_hook(self._hook)
                def load(self, path):
                    self.recordings.append(torch.load(path))
                def clear(self):
                    self.recordings.clear()
                def forward(self, img):
                    self.clear()
                    pred = self.vit(img)
                    recordings = tuple(map(lambda t: t.to(self.device), self.recordings))
                    #                                ^^^^^^^^^^^^^^^^^
                    return pred, torch.stack(recordings, dim=1)
            """
        ),
        # Session 51 (triage51b): the look-alike of the batch-class items (valid above):
        # per-sample objects are items to batch.
        Invalid(
            """
            from dataclasses import dataclass
            import torch
            @dataclass
            class Sample:
                frames: torch.Tensor
                def to(self, device):
                    return Sample(self.frames.to(device))
            @dataclass
            class TrainingSamples:
                inputs: dict[str, list[Sample]]
                def to(self, device):
                    return TrainingSamples(
                        inputs={k: [item.to(device) for item in v] for k, v in self.inputs.items()}
                                    ^^^^^^^^^^^^^^^
                    )
            """,
            message_contains="each item of `v`",
        ),
    )

    def _report(self, loop: GatheringLoop, node: cst.CSTNode) -> None:
        shown = self.shown(loop.iterable, "the collection")
        provenance = Provenance.of(self.context)
        frame = provenance.current_frame()
        certain = items_on_host(loop, provenance, frame)
        if not certain and unsure_whole_units(loop.iterable, provenance, frame):
            return  # whole batches, or activations through a local name: nothing to stack
        if not certain and collected_module(self.context.file_name):
            return  # a pytest module's code: once per test
        self.report(
            node,
            f"each item of {shown} is copied to the device on its own (one copy per item, "
            f"and from pageable memory one sync per item){'' if certain else UNSURE}: {ADVICE}",
            confidence=Confidence.HIGH if certain else Confidence.MEDIUM,
        )

    def _runs_once(self) -> bool:
        """Whether the node being visited is in a function that runs once (``__init__``,
        ``setup``, a helper only they call) or under a run-once guard: a per-item transfer
        there costs once, at setup; or in a branch taken only off CUDA. Module-level code (a
        script's loop) is still judged."""
        ancestors = self.context.ancestors
        if not any(isinstance(node, cst.FunctionDef) for node in ancestors):
            return False
        # A branch taken only off CUDA (`if device.type != "cuda":`) is a CPU fallback: on a
        # GPU the other branch runs.
        provenance = Provenance.of(self.context)
        resolve = filled_values(provenance.bindings(provenance.current_frame()))
        return off_cuda_branch(ancestors, resolve) or RunOnce.of(self.context).code(ancestors)

    def on_comprehension(self, node: Comprehension) -> None:
        self._judge_comprehension(node, node)

    def _judge_comprehension(self, node: Comprehension, at: cst.CSTNode) -> None:
        """``node``, a comprehension (or the generator a ``map`` call ``at`` is)."""
        element = node.value if isinstance(node, cst.DictComp) else node.elt
        if not isinstance(element, cst.Call):
            return
        provenance = Provenance.of(self.context)
        loop = gathering_comprehension(node, provenance, provenance.current_frame())
        if loop is None or under_type_dispatch(self.context.ancestors):
            return
        if assigned_in_place(self.context.ancestors, at, loop.iterable) or self._runs_once():
            return
        if unpacked_into_few_names(self.context.ancestors, at):
            return
        self._report(loop, loop.transfer.call)

    def visit_For(self, node: cst.For) -> None:
        provenance = Provenance.of(self.context)
        frame = provenance.current_frame()
        loop = gathering_for(node, provenance, frame) or collecting_for(node, provenance, frame)
        blocks = None if loop is not None else host_to_device_blocks(node, provenance, frame)
        if loop is None and blocks is None:
            self._readback(node, provenance, frame)
            return
        if under_type_dispatch(self.context.ancestors):
            return
        if self._runs_once():
            return
        if loop is not None:
            self._report(loop, loop.transfer.call)
        elif blocks is not None:
            shown = self.shown(blocks.iterable, "the mapping")
            self.report(
                node,
                f"each entry of {shown} copies one block from a host cache into a device cache "
                "on its own (one copy per block, and from pageable memory one sync per block): "
                "gather the blocks' indices into one index tensor and copy them with one "
                "`index_copy_` per cache (or copy runs of contiguous blocks), from pinned memory "
                "with `non_blocking=True`",
                confidence=Confidence.HIGH,
            )

    def _readback(self, node: cst.For, provenance: Provenance, frame: Frame) -> None:
        """Each step's model output copied into its own slot of a host buffer
        (``step_readbacks``)."""
        found = step_readback(node, provenance, frame)
        if found is None or self._runs_once():
            return
        call, output = found
        shown = self.shown(output, "the step's output")
        self.report(
            call,
            f"each step copies the model's output {shown} into its own slot of a host buffer, "
            "a blocking device-to-host copy that waits for the step (if the output is a device "
            "tensor, as a model's output is): keep the outputs on the device (a list, or a "
            "device buffer) and copy them to the host once, after the loop",
            confidence=Confidence.MEDIUM,
        )

    def visit_While(self, node: cst.While) -> None:
        provenance = Provenance.of(self.context)
        loop = gathering_while(node, provenance, provenance.current_frame())
        if (
            loop is not None
            and not under_type_dispatch(self.context.ancestors)
            and not self._runs_once()
        ):
            self._report(loop, loop.transfer.call)

    # -- calls of a helper that moves the items of an argument ------------------------------
    def _callee(self, node: cst.Call) -> tuple[Provenance, cst.FunctionDef, str, bool] | None:
        """The function ``node`` may call, with the provenance of its module (this one, or
        another module of the project: a helper imported from ``utils``), how to show the
        call, and whether the call is bound (``self.m(...)``, ``obj.m(...)``)."""
        provenance = Provenance.of(self.context)
        func = node.func
        if isinstance(func, cst.Name):
            bound = False
        elif isinstance(func, cst.Attribute):
            # ``module.helper(...)`` passes no instance; ``self.m(...)`` or ``obj.m(...)`` does.
            bound = provenance.qualify(func) is None
        else:
            return None
        if not may_be_mover(provenance, func):
            return None
        found = provenance.callee(node, provenance.current_frame())
        if found is None:
            return None
        owner, function = found
        if bound and owner.index.owner.get(function) is None:
            return None  # ``obj.f(...)`` resolved to a plain function: not a method call
        # How to show the call: generated only now, for the few calls that resolve.
        if isinstance(func, cst.Name):
            shown = f"{func.value}(...)"
        else:
            code = self.context.module.code_for_node(func)
            shown = f"{code}(...)" if len(code) <= 40 else f"{func.attr.value}(...)"
        return owner, function, shown, bound

    def visit_Call(self, node: cst.Call) -> None:
        mapped = mapped_comprehension(node)
        if mapped is not None:  # `map(lambda t: t.to(dev), items)`: `(t.to(dev) for t in items)`
            self._judge_comprehension(mapped, node)
            return
        repeats = repeats_here(self.context, node) if node.args else False
        if repeats is False:
            return  # cheap tests first: most calls are not repeated movers
        callee = self._callee(node)
        if callee is None:
            return
        owner, function, shown, bound = callee
        loops = shared_mover_loops(self.context, owner, function)
        if not loops:
            return
        passed = sorted(set(loops) & passed_parameters(function, node, bound))
        if not passed or shadowed(self.context, node, function) or self._runs_once():
            return
        if repeats is None and not hot_call(self.context):
            return  # whether its function is hot: the costliest question, asked last
        self._report_call(loops[passed[0]], node, shown, owner, function)

    def _report_call(
        self,
        loop: GatheringLoop,
        node: cst.Call,
        shown: str,
        owner: Provenance,
        function: cst.FunctionDef,
    ) -> None:
        iterable = snippet(owner.context.module.code_for_node(loop.iterable), "")
        over = f" over {iterable}" if iterable else ""
        frame = owner.index.frame_of(function)
        certain = items_on_host(loop, owner, frame)
        if not certain and unsure_whole_units(loop.iterable, owner, frame):
            return
        if not certain and collected_module(self.context.file_name):
            return  # a pytest module's call, run once per test
        self.report(
            node,
            f"`{shown}` copies each item to the device on its own (its loop{over} makes one "
            f"copy per item){'' if certain else UNSURE}: {ADVICE}",
            confidence=Confidence.HIGH if certain else Confidence.MEDIUM,
        )
