from __future__ import annotations

import libcst as cst

from h2dlint.analysis.arguments import keyword
from h2dlint.analysis.copies import fresh_joins, non_blocking_h2d_source
from h2dlint.analysis.factories import RANDOM_FACTORIES, SHAPE_FACTORIES, factory_of
from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.targets import Target
from h2dlint.analysis.views import Layout, layout
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
    advanced indexing — even of a pinned buffer, whose result is a fresh pageable tensor), or a
    name, `self` attribute or same-module helper whose value is provably one of those.
    `torch.cat`/`torch.stack` results are reported by HTD104 instead, with a fix, factories of
    sizes made on the host only to be moved (`torch.zeros(n).to(dev, non_blocking=True)`) by
    HTD301, with a fix, and strided
    views (`buf[:, :n]`) by HTD103; a join written into a buffer with `out=` is judged by its
    buffer, here. The copy goes to a device when its
    target says so (`"cuda"`, `torch.device("cuda", 0)`, a name such as `device`) and also when
    the target is a name the analysis cannot place (`x.to(d, non_blocking=True)`): asking for a
    non-blocking copy says it goes to a device, unless the target is proven host memory or a
    dtype.

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
    prefilter = (b"non_blocking",)
    candidates = (".to|.cuda|.copy_(non_blocking=True)",)

    valid = (
        # factories of sizes made on the host and moved to a device: HTD301's, with its fix
        Valid(
            "import torch\n"
            "def f(n, device):\n"
            "    return torch.zeros(n).to(device, non_blocking=True)\n"
        ),
        Valid(
            "import torch as T\n"
            "def f(n, device):\n"
            "    return T.arange(n).to(device, non_blocking=True)\n"
        ),
        Valid(
            "from torch import zeros\ndef f(n):\n    return zeros(n, 4).cuda(non_blocking=True)\n"
        ),
        Valid(
            "import torch\n"
            "x = torch.tensor([1, 2], pin_memory=True)\n"
            "y = x.to('cuda', non_blocking=True)\n"
        ),
        Valid(
            "import torch\ny = torch.tensor([1, 2]).pin_memory().to('cuda', non_blocking=True)\n"
        ),
        Valid("import torch\ny = torch.tensor([1, 2]).to('cpu', non_blocking=True)\n"),
        Valid("import torch\ny = torch.tensor([1, 2]).to(device)\n"),
        Valid("import torch\ny = torch.tensor([1, 2]).to(torch.float16, non_blocking=True)\n"),
        Valid("import torch\ny = torch.zeros(4, device='cuda').to(dev, non_blocking=True)\n"),
        # torch.cat/stack then copy is HTD104's, which offers a fix
        Valid(
            "import torch\ndef f(xs, dev):\n    return torch.cat(xs).to(dev, non_blocking=True)\n"
        ),
        Valid(
            "import torch\n"
            "def f(xs, dev):\n"
            "    x = torch.stack(xs)\n"
            "    return x.to(dev, non_blocking=True)\n"
        ),
        Valid(
            "import torch\n"
            "def f(xs, buf):\n"
            "    out = torch.cat(xs, out=buf)\n"
            "    return out.to('cuda', non_blocking=True)\n"
        ),
        # a join into a pinned buffer
        Valid(
            "import torch\n"
            "def f(xs):\n"
            "    buf = torch.empty(1024, pin_memory=True)\n"
            "    return torch.cat(xs, out=buf).to('cuda', non_blocking=True)\n"
        ),
        # an offload device is the host
        Valid(
            "import torch\n"
            "def f(n, offload_device):\n"
            "    return torch.arange(n).to(offload_device, non_blocking=True)\n"
        ),
        # the comprehension's `x` is an item of `xs`, not the pageable tensor bound before
        Valid(
            "import torch\n"
            "def f(xs, dev):\n"
            "    x = torch.tensor([1, 2])\n"
            "    return [x.to(dev, non_blocking=True) for x in xs]\n"
        ),
        # numpy data that may be a view of a (pinned) tensor's memory
        Valid(
            "import torch\n"
            "def f(t):\n"
            "    return torch.as_tensor(t.numpy()).to('cuda', non_blocking=True)\n"
        ),
        Valid(
            "import torch\ndef f(batch, device):\n    return batch.to(device, non_blocking=True)\n"
        ),
        Valid(
            "import torch\n"
            "def f(pin):\n"
            "    x = torch.empty(8, pin_memory=pin)\n"
            "    return x.cuda(non_blocking=True)\n"
        ),
        Valid(
            "import torch\n"
            "def f(data):\n"
            "    x = torch.as_tensor(data)\n"
            "    return x.cuda(non_blocking=True)\n"
        ),
        Valid(
            "import torch\n"
            "def f(x, cpu_buf):\n"
            "    cpu_buf.copy_(torch.tensor([1, 2]), non_blocking=True)\n"
        ),
        Valid(
            "import torch\n"
            "def f(data):\n"
            "    x = torch.tensor(data)\n"
            "    x = x.pin_memory()\n"
            "    return x.to('cuda', non_blocking=True)\n"
        ),
        Valid(
            "import torch\n"
            "def f(data, c):\n"
            "    x = torch.tensor(data)\n"
            "    if c:\n"
            "        x = x.pin_memory()\n"
            "    return x.to('cuda', non_blocking=True)\n"
        ),
        Valid(
            "import torch\n"
            "class Batch:\n"
            "    def __init__(self, n):\n"
            "        self.ids = torch.zeros(n, dtype=torch.int64, pin_memory=True)\n"
            "    def upload(self, n):\n"
            "        return self.ids[:n].to('cuda', non_blocking=True)\n"
        ),
        Valid("def tensor(xs): ...\ny = tensor([a, b]).to('cuda', non_blocking=True)\n"),
        Valid("import torch\ny = torch.tensor([1]).to('cuda', non_blocking=False)\n"),
        # a strided view of pageable memory is HTD103's, which says to pin and copy by rows
        Valid(
            "import torch\n"
            "def f(n, gpu):\n"
            "    buf = torch.zeros(3, 64)\n"
            "    gpu[:, :n].copy_(buf[:, :n], non_blocking=True)\n"
        ),
        Valid(
            "import torch\n"
            "def f(x, dev):\n"
            "    host = torch.zeros(4)\n"
            "    host.copy_(x.to(dev), non_blocking=True)\n"
        ),
        # an unnamed target: blocking, a host tensor's device, no target, a dtype
        Valid("import torch\ndef f(ids, d):\n    return torch.tensor(ids).to(d)\n"),
        Valid(
            "import torch\n"
            "def f(n):\n"
            "    like = torch.empty(4)\n"
            "    return torch.arange(n).to(like, non_blocking=True)\n"
        ),
        Valid(
            "import torch\n"
            "def f(n):\n"
            "    return torch.arange(n).to(memory_format=torch.preserve_format, "
            "non_blocking=True)\n"
        ),
        Valid(
            "import torch\n"
            "def f(n, d):\n"
            "    return torch.arange(n).to(dtype=d, non_blocking=True)\n"
        ),
        # the fixed helper builds the ids on the device: the copy is a no-op
        Valid(
            "import torch\n"
            "def position_ids_in_meshgrid(patches, max_width, device):\n"
            "    positions = []\n"
            "    for patch in patches:\n"
            "        height, width = patch.shape[-2:]\n"
            "        rows = torch.arange(height, device=device)\n"
            "        cols = torch.arange(width, device=device)\n"
            "        positions.append((rows[:, None] * max_width + cols).flatten())\n"
            "    return torch.cat(positions)\n"
            "class Vision(torch.nn.Module):\n"
            "    def forward(self, patches, embeds, **kwargs):\n"
            "        ids = position_ids_in_meshgrid(patches, 16, embeds.device)\n"
            "        kwargs['ids'] = ids.unsqueeze(0).to(embeds.device, non_blocking=True)\n"
            "        return kwargs\n"
        ),
    )
    invalid = (
        Invalid("import torch\ny = torch.tensor([1, 2]).to('cuda', non_blocking=True)\n", 2, 5),
        # position ids computed on the host from pieces of a meshgrid, then copied
        Invalid(
            "import torch\n"
            "def position_ids(h, w, max_width, device):\n"
            "    mesh = torch.meshgrid(torch.arange(h), torch.arange(w), indexing='ij')\n"
            "    rows, cols = torch.stack(mesh, dim=-1).reshape(-1, 2).chunk(2, -1)\n"
            "    ids = rows * max_width + cols\n"
            "    return ids.to(device, non_blocking=True)\n",
            6,
            12,
        ),
        # the same ids built by a helper over a list of patches and copied by the caller: the
        # helper's return is known however deep the question that asks for it
        Invalid(
            "import torch\n"
            "def position_ids_in_meshgrid(patches, max_width):\n"
            "    positions = []\n"
            "    for patch in patches:\n"
            "        height, width = patch.shape[-2:]\n"
            "        mesh = torch.meshgrid(torch.arange(height), torch.arange(width))\n"
            "        rows, cols = torch.stack(mesh, dim=-1).reshape(-1, 2).chunk(2, -1)\n"
            "        ids = rows * max_width + cols\n"
            "        positions.append(ids[:, 0])\n"
            "    return torch.cat(positions)\n"
            "class Vision(torch.nn.Module):\n"
            "    def forward(self, patches, embeds, **kwargs):\n"
            "        position_ids = position_ids_in_meshgrid(patches, max_width=16)\n"
            "        kwargs['ids'] = position_ids[None].to(embeds.device, non_blocking=True)\n"
            "        return kwargs\n",
            14,
            25,
        ),
        # a join written into a pageable buffer with out=: HTD104 leaves joins with out= alone
        Invalid(
            "import torch\n"
            "def f(xs):\n"
            "    buf = torch.empty(1024)\n"
            "    out = torch.cat(xs, out=buf)\n"
            "    return out.to('cuda', non_blocking=True)\n",
            5,
            12,
            message_contains="`out` is not pinned",
        ),
        Invalid(
            "import torch\n"
            "def f(xs):\n"
            "    return torch.stack(xs, out=torch.zeros(4, 8)).cuda(non_blocking=True)\n",
            3,
            12,
        ),
        # a numpy array, converted without a copy: pageable
        Invalid(
            "import numpy as np\n"
            "import torch\n"
            "def f(a: np.ndarray):\n"
            "    return torch.as_tensor(a).to('cuda', non_blocking=True)\n",
            4,
            12,
        ),
        Invalid(
            "import torch\n"
            "def f(ids, device):\n"
            "    t = torch.tensor(ids, dtype=torch.int64)\n"
            "    return t.to(device, non_blocking=True)\n",
            4,
            12,
            message_contains="`t` is not pinned",
        ),
        # A factory of sizes moved to a target the analysis cannot name: HTD301 cannot say it
        # goes to a device, but `non_blocking=True` does.
        Invalid(
            "import torch as T\n"
            "def f(n, where):\n"
            "    return T.arange(n).to(where, non_blocking=True)\n",
            3,
            12,
        ),
        Invalid(
            "import torch\n"
            "import numpy as np\n"
            "def f(arr, gpu_buf):\n"
            "    gpu_buf.copy_(torch.from_numpy(arr), non_blocking=True)\n",
            4,
            5,
        ),
        Invalid(
            "import torch\n"
            "def f(n):\n"
            "    x = torch.arange(n)\n"
            "    return x.to(device=torch.device('cuda', 0), non_blocking=True)\n",
            4,
            12,
        ),
        Invalid(
            "import torch\n"
            "x = torch.zeros(16, pin_memory=False)\n"
            "y = x.to(self_device, non_blocking=True)\n",
            3,
            5,
        ),
        Invalid(
            "import torch\n"
            "def f(rows):\n"
            "    pos = torch.as_tensor([r[0] for r in rows])\n"
            "    return pos.to('cuda:1', non_blocking=True)\n",
            4,
            12,
        ),
        Invalid(
            "import torch\n"
            "def f(n, image_ids, counts, device):\n"
            "    index = torch.arange(n) + torch.repeat_interleave(image_ids, counts)\n"
            "    index = index.to(device, non_blocking=True)\n"
            "    return index\n",
            4,
            13,
        ),
        # advanced indexing of a pinned buffer makes a fresh, pageable tensor
        Invalid(
            "import torch\n"
            "class Batch:\n"
            "    def __init__(self, n):\n"
            "        self.ids = torch.zeros(n, dtype=torch.int64, pin_memory=True)\n"
            "    def gather(self, order):\n"
            "        picked = self.ids[torch.tensor(order)]\n"
            "        return picked.to('cuda', non_blocking=True)\n",
            7,
            16,
        ),
        Invalid(
            "import torch\n"
            "def host_ids(ids):\n"
            "    return torch.tensor(ids)\n"
            "def f(ids, dev):\n"
            "    return host_ids(ids).to(\n"
            "        dev,\n"
            "        non_blocking=True,\n"
            "    )\n",
            5,
            12,
        ),
        # a target the names do not reveal: `non_blocking=True` says it is a device
        Invalid(
            "import torch\n"
            "def f(ids, d):\n"
            "    t = torch.tensor(ids, dtype=torch.int64)\n"
            "    return t.to(d, non_blocking=True)\n",
            4,
            12,
        ),
        Invalid(
            "import torch\n"
            "class Uploader:\n"
            "    def upload(self, n, target):\n"
            "        return torch.arange(n).to(target, non_blocking=True)\n",
            4,
            16,
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        provenance = Provenance.of(self.context)
        frame = provenance.current_frame()
        source = non_blocking_h2d_source(provenance, node, frame)
        if source is None:
            return
        if fresh_joins(provenance, source, frame):
            return  # torch.cat/stack without out=, then copy: HTD104 reports it, with its fix
        factory = factory_of(source)
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
            code = self.context.module.code_for_node(source)
            shown = "the source" if len(code) > 40 or "\n" in code else f"`{code}`"
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
