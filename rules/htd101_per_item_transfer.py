from __future__ import annotations

import libcst as cst

from h2dlint.analysis.loops import (
    Comprehension,
    GatheringLoop,
    Movers,
    assigned_in_place,
    find_movers,
    gathering_comprehension,
    gathering_for,
    under_type_dispatch,
)
from h2dlint.analysis.provenance import Provenance
from h2dlint.rule import ComprehensionVisits, Invalid, Rule, Valid

ADVICE = (
    "stack or concatenate them into one pinned buffer (`torch.stack(items, out=pinned)`) and "
    "copy it once with `non_blocking=True`, or pin the items when they are made"
)


class PerItemTransfer(ComprehensionVisits, Rule):
    """## What it does
    Flags a `for` loop or a comprehension whose only job is to copy each item of a collection to
    the device, one copy per item: `[t.to(device) for t in patches]`,
    `tuple(x.to(dev, non_blocking=True) for x in xs)`, `{i: im.cuda() for i, im in enumerate(ims)}`,
    or a loop whose body only moves the item and stores it (`out.append(x.to(dev))`,
    `xs[i] = xs[i].to(dev)`, `dst[i].copy_(x)` into a device buffer). A call to a function or
    method of the same module whose body is such a loop is flagged too, at the call.

    Left alone, on purpose (the corpus showed each to be correct code or not batchable):

    - loops doing other work per item (a training loop moving a batch and running the model);
    - a mapping's values (`{k: v.to(dev) for k, v in batch.items()}`, `for k in batch:
      batch[k] = batch[k].to(dev)`): named fields such as `input_ids`, `attention_mask` and
      `pixel_values` differ in dtype and shape, so one copy cannot carry them without repacking;
    - loops over a model's parameters, buffers, modules or state dict, storage swaps
      (`p.data = p.data.to(dev)`) and an object's stored tensors moved in place
      (`self.freqs = [f.to(dev) for f in self.freqs]`): one-time relocations of state;
    - loops that dispatch on type (`isinstance`), and comprehensions in their branches: generic
      movers of mixed containers;
    - copies to a different device per item (a multi-GPU scatter), to another tensor's device
      (`h.to(x.device)`), or to an offload device; activations (`hidden_states`, `latents`,
      `logits`) already live on an accelerator, so their moves are not host-to-device copies;
    - row segments of one buffer (`gpu[i, :n].copy_(cpu[i, :n])`): together they are a
      strided region, which one copy would stage as pageable memory, so copying row by row is
      the fix for that (HTD103), not a mistake;
    - copies to the host, dtype conversions, and loops over a literal tuple or a `range` of at
      most 8: the count is provably tiny.

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
    prefilter = (b".to(", b".cuda(", b".copy_(")
    candidates = ("loop .to|.cuda|.copy_ on loop",)  # a copy of a loop item

    valid = (
        # a training loop: real work per item
        Valid(
            "import torch\n"
            "def train(model, loader, device):\n"
            "    for x, y in loader:\n"
            "        x = x.to(device)\n"
            "        y = y.to(device)\n"
            "        loss = model(x).sub(y).pow(2).mean()\n"
            "        loss.backward()\n"
        ),
        # one-time setup: a model's parameters
        Valid(
            "def move(model, device):\n"
            "    for p in model.parameters():\n"
            "        p.data = p.data.to(device)\n"
        ),
        # generic mover of a mixed container
        Valid(
            "import torch\n"
            "def move(batch, device):\n"
            "    return {k: v.to(device) if isinstance(v, torch.Tensor) else v\n"
            "            for k, v in batch.items()}\n"
        ),
        Valid(
            "import torch\n"
            "def move(batch, device):\n"
            "    return [v.to(device) for v in batch if isinstance(v, torch.Tensor)]\n"
        ),
        # multi-GPU scatter: a different device per item
        Valid(
            "def scatter(chunks, devices):\n    return [c.to(d) for c, d in zip(chunks, devices)]\n"
        ),
        Valid(
            "def scatter(x, n):\n"
            "    out = []\n"
            "    for i in range(n):\n"
            "        out.append(x.to(f'cuda:{i}'))\n"
            "    return out\n"
        ),
        # copies to the host
        Valid("def f(xs):\n    return [x.cpu() for x in xs]\n"),
        Valid("def f(xs):\n    return [x.to('cpu') for x in xs]\n"),
        # dtype conversions
        Valid("import torch\ndef f(xs):\n    return [x.to(torch.float16) for x in xs]\n"),
        # a literal, tiny collection
        Valid("def f(q, k, v, device):\n    q, k, v = [t.to(device) for t in (q, k, v)]\n"),
        Valid("def f(xs, device):\n    for i in range(2):\n        xs[i] = xs[i].to(device)\n"),
        # aligning tensors that already live on accelerators
        Valid("def f(hs, x):\n    return [h.to(x.device) for h in hs]\n"),
        # one batched copy
        Valid(
            "import torch\n"
            "def f(xs, device):\n"
            "    return torch.stack(xs).to(device, non_blocking=True)\n"
        ),
        # work in the element, not just a move
        Valid(
            "import torch\ndef f(xs, device):\n    return [torch.cat(x).to(device) for x in xs]\n"
        ),
        # row segments of one pinned buffer: the fix for a strided copy (HTD103), not batchable
        Valid(
            "import torch\n"
            "def f(cpu, gpu, n):\n"
            "    for row in range(gpu.shape[0]):\n"
            "        gpu[row, :n].copy_(cpu[row, :n], non_blocking=True)\n"
        ),
        # copy_ into host memory
        Valid(
            "def f(xs, cpu_bufs):\n    for i, x in enumerate(xs):\n        cpu_bufs[i].copy_(x)\n"
        ),
        # the moved tensor does not depend on the loop: not a per-item copy
        Valid("def f(x, n, device):\n    return [x.to(device) for _ in range(n)]\n"),
        # a helper that does more than the loop: its call sites are left alone
        Valid(
            "def move(xs, device):\n"
            "    out = []\n"
            "    for x in xs:\n"
            "        x = x.to(device)\n"
            "        out.append(x * 2)\n"
            "    return out\n"
            "def step(xs, device):\n"
            "    return move(xs, device)\n"
        ),
        # a mapping's named fields (ids, masks, pixels: different dtypes and shapes)
        Valid("def f(inputs, device):\n    return {k: v.to(device) for k, v in inputs.items()}\n"),
        Valid(
            "def f(batch, device):\n    for k in batch:\n        batch[k] = batch[k].to(device)\n"
        ),
        # an object's stored tensors moved in place: a one-time relocation
        Valid(
            "class Rope:\n"
            "    def forward(self, ids):\n"
            "        self.freqs = [f.to(ids.device) for f in self.freqs]\n"
            "        self.freqs = [f.to(self.device) for f in self.freqs]\n"
        ),
        # swapping the storage of parameters or flat parameter groups
        Valid(
            "def reload(self, device):\n"
            "    for buf in self.fp32_groups_flat:\n"
            "        buf.data = buf.data.to(device, non_blocking=True)\n"
        ),
        # a branch of a type-dispatching mover
        Valid(
            "import torch\n"
            "def move(fields, device):\n"
            "    out = {}\n"
            "    for key, value in fields:\n"
            "        if isinstance(value, torch.Tensor):\n"
            "            out[key] = value.to(device)\n"
            "        elif isinstance(value, list):\n"
            "            out[key] = [v.to(device) for v in value]\n"
            "    return out\n"
        ),
        # model activations: already on a device, moved between accelerators
        Valid("def f(hidden_states, device):\n    return [h.to(device) for h in hidden_states]\n"),
        # the offload device is the host
        Valid("def f(self, xs):\n    return [x.to(self.offload_device) for x in xs]\n"),
        Valid(
            "def f(xs, cpu_offload_device):\n    return [x.to(cpu_offload_device) for x in xs]\n"
        ),
        # modules are moved one by one, and cannot be batched
        Valid("def f(models, device):\n    return [m.to(device) for m in models]\n"),
        # items already on the device
        Valid(
            "import torch\n"
            "def f(n, device):\n"
            "    x = torch.zeros(n, 4, device='cuda')\n"
            "    return [row.to(device) for row in x]\n"
        ),
    )
    invalid = (
        Invalid(
            "def f(patches, device):\n    return [p.to(device) for p in patches]\n",
            2,
            13,
            message_contains="`patches`",
        ),
        Invalid(
            "def f(images):\n    return {i: im.cuda() for i, im in enumerate(images)}\n",
            2,
            16,
        ),
        Invalid(
            "def f(xs, dev):\n    return tuple(x.to(dev, non_blocking=True) for x in xs)\n",
            2,
            18,
        ),
        Invalid(
            "import torch\n"
            "def f(patches, device):\n"
            "    return torch.stack([p.float().to(device) for p in patches])\n",
            3,
            25,
        ),
        Invalid(
            "def f(xs, device):\n"
            "    out = []\n"
            "    for x in xs:\n"
            "        out.append(x.to(device))\n"
            "    return out\n",
            4,
            20,
        ),
        Invalid(
            "def f(xs, device):\n    for i in range(len(xs)):\n        xs[i] = xs[i].to(device)\n",
            3,
            17,
        ),
        Invalid(
            "def f(crops, device):\n"
            "    for i, crop in enumerate(crops):\n"
            "        crops[i] = crop.to(device, non_blocking=True)\n",
            3,
            20,
        ),
        Invalid(
            "import torch\n"
            "def f(xs):\n"
            "    dst = torch.empty(len(xs), 1024, device='cuda')\n"
            "    for i, x in enumerate(xs):\n"
            "        dst[i].copy_(x, non_blocking=True)\n"
            "    return dst\n",
            5,
            9,
        ),
        Invalid(
            "def f(xs, device):\n"
            "    moved = []\n"
            "    for x in xs:\n"
            "        y = x.to(device)\n"
            "        moved.append(y)\n"
            "    return moved\n",
            4,
            13,
        ),
        # a helper of the same module: the loop, and every call of it
        Invalid(
            "def to_device(xs, device):\n"
            "    return [x.to(device) for x in xs]\n"
            "def step(model, xs, device):\n"
            "    return model(to_device(xs, device))\n",
            4,
            18,
            message_contains="`to_device(...)`",
        ),
        Invalid(
            "class Runner:\n"
            "    def _move(self, items):\n"
            "        out = []\n"
            "        for item in items:\n"
            "            out.append(item.cuda(non_blocking=True))\n"
            "        return out\n"
            "    def step(self, items):\n"
            "        return self.model(self._move(items))\n",
            8,
            27,
            message_contains="`self._move(...)`",
        ),
        Invalid(
            "def f(samples, device):\n    return [s['pixel_values'].to(device) for s in samples]\n",
            2,
            13,
        ),
        # the comprehension's `x` is an item of `xs`, not the device tensor bound before
        Invalid(
            "import torch\n"
            "def f(xs, device):\n"
            "    x = torch.zeros(4, device='cuda')\n"
            "    return [x.to(device) for x in xs]\n",
            4,
            13,
        ),
    )

    def _report(self, loop: GatheringLoop, node: cst.CSTNode) -> None:
        code = self.context.module.code_for_node(loop.iterable)
        shown = "the collection" if len(code) > 40 or "\n" in code else f"`{code}`"
        self.report(
            node,
            f"each item of {shown} is copied to the device on its own (one copy per item, "
            f"and from pageable memory one sync per item): {ADVICE}",
        )

    def on_comprehension(self, node: Comprehension) -> None:
        element = node.value if isinstance(node, cst.DictComp) else node.elt
        if not isinstance(element, cst.Call):
            return
        provenance = Provenance.of(self.context)
        loop = gathering_comprehension(node, provenance, provenance.current_frame())
        if loop is None or under_type_dispatch(self.context.ancestors):
            return
        if assigned_in_place(self.context.ancestors, node, loop.iterable):
            return
        self._report(loop, loop.transfer.call)

    def visit_For(self, node: cst.For) -> None:
        provenance = Provenance.of(self.context)
        loop = gathering_for(node, provenance, provenance.current_frame())
        if loop is not None and not under_type_dispatch(self.context.ancestors):
            self._report(loop, loop.transfer.call)

    # -- calls of a helper whose body is such a loop ------------------------------------------
    def _movers(self) -> Movers:
        return self.context.shared(
            "htd101.movers", lambda: find_movers(Provenance.of(self.context), self.context.module)
        )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Name):
            loop = self._movers().functions.get(func.value)
            if loop is None:
                return
            provenance = Provenance.of(self.context)
            frame = provenance.current_frame()
            if provenance.bindings(frame).of(func.value):
                return  # a local of the same name
            if isinstance(frame.function, cst.FunctionDef) and frame.function.name is func:
                return
            self._report_call(loop, node, f"{func.value}(...)")
        elif (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value in ("self", "cls")
        ):
            movers = self._movers()
            if not movers.methods:
                return
            frame = Provenance.of(self.context).current_frame()
            if frame.cls is None or func.value.value != frame.self_name:
                return
            loop = movers.methods.get(frame.cls, {}).get(func.attr.value)
            if loop is not None:
                self._report_call(loop, node, f"{func.value.value}.{func.attr.value}(...)")

    def _report_call(self, loop: GatheringLoop, node: cst.Call, shown: str) -> None:
        code = self.context.module.code_for_node(loop.iterable)
        over = "" if len(code) > 40 or "\n" in code else f" over `{code}`"
        self.report(
            node,
            f"`{shown}` copies each item to the device on its own (its loop{over} makes one "
            f"copy per item): {ADVICE}",
        )
