from __future__ import annotations

import libcst as cst

from h2dlint.analysis.host_pads import PAD_FACTORIES as _PAD_FACTORIES
from h2dlint.analysis.host_pads import host_pad
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.round_trips import (
    CONVERTERS,
    DOWN_METHODS,
    REDUCTIONS,
    RESHAPES,
    TORCH_REDUCTIONS,
    reads_of,
    round_trip_read,
)
from h2dlint.analysis.torch_api import HOST_DEVICE_PREFIXES, JOINS
from h2dlint.candidate_terms import called_as
from h2dlint.diagnostics import Confidence
from h2dlint.rule import Invalid, Rule, Valid

_CONVERTED = f"{called_as(CONVERTERS)}(device=)"
# targets.device_target: strings starting with HOST_DEVICE_PREFIXES, names by_name says host.
_HOST_WORDS = "text " + "|".join(sorted({*HOST_DEVICE_PREFIXES, "cpu", "host", "offload"}))
# What a read back's operand may be for trace_up_copies to find a copy up in it.
_TRACED = "|".join(
    [
        ".cuda|.to",
        called_as(CONVERTERS | JOINS | TORCH_REDUCTIONS),
        "|".join(f".{m}" for m in sorted(RESHAPES | REDUCTIONS)),
    ]
)


_PAD_MESSAGE = (
    "`{1}` is written into `{0}`, built on the host, and `{0}` is copied back to `{1}`'s "
    "device: a blocking copy to the host and one back (certain if `{1}` is on an accelerator); "
    "build `{0}` with `device={1}.device`"
)


class DeviceRoundTrip(Rule):
    """## What it does
    Flags a copy back to the host (`.cpu()`, `.to("cpu")`, `.tolist()`, `.item()`) of a tensor
    that was copied to the device from host memory in the same function with nothing but
    reshapes, views, indexing, dtype conversions, joins (`torch.cat`, `torch.stack`) and
    whole-value reductions (`x.max()`, `torch.sum(x)`, `.min`/`.amax`/`.amin`/`.any`/`.all`,
    without `dim`) between: `torch.tensor(ids).cuda().tolist()`, `y = x.to(device); ...;
    y.view(-1).cpu()`, items moved one by one, joined on the device and copied back,
    `torch.cat([p.cuda() for p in parts]).cpu()`, and the maximum of lengths the function has
    as a list read back from the device copy it built of them,
    `lens_t = torch.tensor(lens, device="cuda"); max_len = lens_t.max().item()` (the host
    had every value: `max(lens)` reads them in the pass the copy makes anyway, the device read
    waits for all queued work; serving engines' metadata builders were fixed so). Names are
    followed through their one reaching binding; a name changed in place (`y.add_(1)`, passed to
    a call that may write it) stops the trace where the change can reach the read: on an
    earlier line, or anywhere in a loop around both (a call after the read, outside any loop,
    does not).

    The other way round, a device tensor written into a pad the function built on the host
    and the pad moved back to that tensor's device (`x_pad = torch.zeros([...]);
    x_pad[:, :n] = x; x = x_pad.to(x.device)`: StyleTTS2-style encoders, fixed in kokoro 0.9
    with `device=x.device`) is reported on the move, at medium confidence (on the host the move
    is a no-op).

    The up copy's source must be host memory by the provenance analysis (a tensor made on the
    host, Python or numpy data). Items of a per-item join are usually of unknown placement: that
    finding is of medium confidence and says so (if the items are already on the device, their
    `.cuda()` copies nothing and the copy back is needed).

    Left alone, and why:

    - any other operation between the copies (`softmax`, `cumsum`, a reduction along a `dim`,
      a model call, a custom function): it may be the device work the copy is for;
    - a source the analysis does not prove on the host (it may be on the device already, where
      `.to(device)` is a no-op and the copy back is the only real copy);
    - a tensor changed in place in the function (`y.add_(1)`, `y[0] = ...`) or rebound between,
      passed to a call (`all_reduce(y)`), or whose memory is handed out (`y.data_ptr()` for a
      kernel, ctypes or another framework, which may write through it);
    - tensors made on the device (`torch.zeros(n, device="cuda").cpu()`): one copy only.

    Hot paths: the rule does not require one. Both copies are wasted wherever they run.

    On the 12 pinned corpus packages: 1 finding, read, correct (docs/needless-copies.md).

    ## Why is this bad?
    Both copies are wasted: the up copy from pageable memory blocks the host until the stream
    reaches it, and the copy back synchronizes the host with the device, waiting for everything
    queued before it. Reshaping, indexing and joining cost the same on the host. Measured on an
    H200 (torch 2.11, `benchmarks/device/needless_copies.py`), joining 1,000 pairs: behind a
    40 ms kernel the round trip held the host 40.6 ms (two synchronizing copies), the same
    work on the host 0.87 ms; on an idle GPU 0.79 against 0.60 ms.

    ## Example
    ```python
    lengths = torch.tensor(seq_lens).cuda()
    return lengths.view(-1, 2).tolist()

    merged = torch.cat([p.cuda() for p in parts]).cpu()
    ```

    ## Use instead
    ```python
    lengths = torch.tensor(seq_lens)
    return lengths.view(-1, 2).tolist()

    merged = torch.cat(parts)
    ```

    ## Fix safety
    No automatic fix: the device copy may be used elsewhere (a model call after the read), and
    the host result of `.cpu()` on a host tensor is the tensor itself, not a copy, so dropping
    the round trip can change aliasing.
    """

    code = "HTD303"
    name = "device-round-trip"
    message = "a host tensor is copied to the device and straight back"
    prefilter = (b".cpu(", b".tolist(", b".item(", b".to(")
    # A read back (anywhere: module-level code too) of what traces, through indexing and
    # names bound to it, to a copy up, a reshape or a join of copies up; and a copy up. A
    # `.to()` reads back only to a target that says host: a string ("cpu", "meta"), a name
    # or attribute that says cpu/host/offload (analysis/targets.py), all in this file's text,
    # or the `.device` of a tensor proven on the host.
    candidates = (
        f".cpu|.tolist|.item on {_TRACED} & .cuda|.to",
        f".cpu|.tolist|.item on {_TRACED} & {_CONVERTED}",
        f".to on {_TRACED} & .cuda|.to & {_HOST_WORDS}",
        f".to on {_TRACED} & {_CONVERTED} & {_HOST_WORDS}",
        # ``.to(old.device)`` of a host tensor ``old`` (a tokenizer's ids): the host by the
        # provenance of ``old``, no word in the file says so.
        f".to on {_TRACED} & .cuda|.to & text device",
        f".to on {_TRACED} & {_CONVERTED} & text device",
        # ``x_pad[...] = x`` into a host factory's pad, then ``x_pad.to(x.device)`` (host_pads)
        f".to & @subscript arg Store & {called_as(_PAD_FACTORIES)} & text device",
    )

    valid = (
        # device work between the copies
        Valid(
            """
            import torch
            def f(ids):
                return torch.tensor(ids).cuda().cumsum(0).tolist()
            """
        ),
        # Session 35 (recall35): passed to a call later in a loop around the read: the next
        # iteration reads what the call may have written
        Valid(
            """
            import torch
            def f(n, device, steps, fill):
                counts = torch.tensor([n, 0], device=device)
                for _ in range(steps):
                    total = counts.sum().item()
                    fill(counts, total)
            """
        ),
        # Session 35 (recall35): the maximum of values the device computed is a real read
        Valid(
            """
            import torch
            def f(model, ids):
                lens = model(torch.tensor(ids, device="cuda")).sum(-1)
                return torch.max(lens).item()
            """
        ),
        # the elementwise maximum of two tensors is no whole-value reduction
        Valid(
            """
            import torch
            def f(ids, other):
                return torch.max(torch.tensor(ids).cuda(), other).tolist()
            """
        ),
        Valid(
            """
            import torch
            def f(model, ids, device):
                return model(torch.tensor(ids).to(device)).cpu()
            """
        ),
        Valid(
            """
            import torch
            def f(ids, device):
                y = torch.tensor(ids).to(device)
                return y.softmax(-1).cpu()
            """
        ),
        # a source of unknown placement: maybe on the device, `.to(device)` a no-op
        Valid(
            """
            def f(x, device):
                return x.to(device).view(-1).cpu()
            """
        ),
        # Session 39 (mine39): the host pad's look-alikes: the pad built on the tensor's device
        # (kokoro 0.9), and a host pad filled from host data before its move
        Valid(
            """
            import torch
            def pad_on_device(x, n):
                x_pad = torch.zeros([x.shape[0], n], device=x.device)
                x_pad[:, :x.shape[-1]] = x
                return x_pad
            def pad_of_rows(x, rows, n):
                table = torch.zeros([len(rows), n])
                table[:, :2] = torch.tensor(rows)
                return table.to(x.device)
            """
        ),
        # made on the device: one copy
        Valid(
            """
            import torch
            def f(n):
                return torch.zeros(n, device='cuda').cpu()
            """
        ),
        # changed in place between the copies
        Valid(
            """
            import torch
            def f(ids):
                y = torch.tensor(ids).cuda()
                y.add_(1)
                return y.tolist()
            """
        ),
        # passed to a function that may write it: a collective, between the copies
        Valid(
            """
            import torch
            def f(n, device):
                size = torch.tensor([n], dtype=torch.long, device=device)
                torch.distributed.all_reduce(size)
                return int(size.item())
            """
        ),
        # its address handed to a kernel between the copies: the kernel may write it
        Valid(
            """
            import torch
            def f(n, device, launch):
                counts = torch.tensor([n, 0, 0], dtype=torch.int32, device=device)
                launch(make_ptr(counts.data_ptr()))
                return counts[1:].cpu().tolist()
            """
        ),
        # rebound to device work
        Valid(
            """
            import torch
            def f(model, ids):
                y = torch.tensor(ids).cuda()
                y = model(y)
                return y.cpu()
            """
        ),
        # items made on the device, joined and read back: one copy
        Valid(
            """
            import torch
            def f(n):
                parts = [torch.zeros(4, device='cuda') for _ in range(n)]
                return torch.cat([p.cuda() for p in parts]).cpu()
            """
        ),
        # per-item copies with work per item
        Valid(
            """
            import torch
            def f(parts, net):
                return torch.cat([net(p.cuda()) for p in parts]).cpu()
            """
        ),
        # joined on the device but not read back
        Valid(
            """
            import torch
            def f(parts):
                return torch.cat([p.cuda() for p in parts])
            """
        ),
        # a copy to a dtype, not the host
        Valid(
            """
            import torch
            def f(ids):
                return torch.tensor(ids).cuda().to(torch.float16)
            """
        ),
        # Session 33 (recall33): a helper that picks the host or the GPU by a flag that is not
        # about the GPU's presence names neither: the "copy up" may be to the host
        Valid(
            """
            import torch
            def pick(offload):
                return "cpu" if offload else "cuda"
            def f(ids, offload):
                return torch.tensor(ids).to(pick(offload)).tolist()
            """
        ),
        # the batch's field is set to the device copy before it is read: the second `.to()`
        # goes to the device, not back
        Valid(
            """
            import torch
            def f(tokenizer, texts, device):
                for text in texts:
                    enc = tokenizer(text, return_tensors="pt")
                    enc.input_ids = enc.input_ids.to(device)
                    ids = torch.tensor([1, 2]).to(device)
                    ids = ids.to(enc.input_ids.device)
            """
        ),
    )
    invalid = (
        # Session 35 (recall35): the maximum of lengths the host has as a list, read back from
        # the device copy built of them (WhisperLive's TensorRT decoder, per chunk); the copy
        # stays for the decoder, the read is the waste
        Invalid(
            """
            import torch
            def generate(session, ids):
                lens = torch.tensor([ids.shape[-1] for _ in range(ids.shape[0])],
                                    dtype=torch.int32, device='cuda')
                max_len = torch.max(lens).item()
                #         ^^^^^^^^^^^^^^^^^^^^^^
                return session.decode(ids, lens, max_len)
            """,
            message_contains="`lens` holds",
        ),
        Invalid(
            """
            import torch
            def f(seq_lens, device):
                seq_lens_t = torch.tensor(seq_lens, dtype=torch.int32).to(device)
                return seq_lens_t.sum().item()
                #      ^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # Session 33 (recall33): a helper of the project that returns the accelerator found
        # (`"cuda"`, `"npu"`, else `"cpu"`) names a device as a `device` parameter does
        Invalid(
            """
            import torch
            def get_device_type():
                if torch.cuda.is_available():
                    device = "cuda"
                else:
                    device = "cpu"
                return device
            def f(ids):
                return torch.tensor(ids).to(get_device_type()).tolist()
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # the processor's ids (host) read before the batch's field is set to a device copy:
        # new ids moved to the device and straight back to where the old ones are, per prompt
        Invalid(
            """
            import torch
            def f(processor, prompts, device):
                for text in prompts:
                    inputs = processor(text=[text], return_tensors="pt")
                    old_ids = inputs.input_ids
                    new_ids = torch.tensor([1, 2]).to(device)
                    new_ids = new_ids.to(old_ids.device)
                    #         ^^^^^^^^^^^^^^^^^^^^^^^^^^
                    inputs.input_ids = new_ids.to(device)
            """,
        ),
        Invalid(
            """
            import torch
            def f(parts):
                return torch.cat([p.cuda() for p in parts]).cpu()
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="if the items",
        ),
        Invalid(
            """
            import torch
            def f(parts, dev):
                return torch.stack([p.to(dev) for p in parts]).tolist()
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # Session 39 (mine39): kokoro 0.7's encoders pad a device activation in a host
        # `torch.zeros` and move the pad back to its device on every forward (0.9 fixed it).
        Invalid(
            """
            import torch
            class TextEncoder(torch.nn.Module):
                def forward(self, x, m):
                    x = self.lstm(x)
                    x_pad = torch.zeros([x.shape[0], x.shape[1], m.shape[-1]])
                    x_pad[:, :, :x.shape[-1]] = x
                    x = x_pad.to(x.device)
                    #   ^^^^^^^^^^^^^^^^^^
                    return x
            """,
            message_contains="build `x_pad` with `device=x.device`",
        ),
        Invalid(
            """
            import torch
            def f(ids):
                return torch.tensor(ids).cuda().tolist()
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            def f(ids, device):
                x = torch.tensor(ids)
                y = x.to(device)
                return y.view(-1, 2).tolist()
                #      ^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="line 4",
        ),
        Invalid(
            """
            import numpy as np
            import torch
            def f(arr: np.ndarray, device):
                y = torch.as_tensor(arr, device=device)
                return y[:8].cpu().numpy()
                #      ^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            def f(a, b, dev):
                x, y = torch.from_numpy(a), torch.from_numpy(b)
                both = torch.cat([x.to(dev), y.to(dev)])
                return both.to('cpu')
                #      ^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            def f(lens):
                return torch.tensor(lens).cuda()[0].item()
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            def f(n, device):
                host = torch.arange(n, pin_memory=True)
                up = host.cuda(non_blocking=True)
                flat = up.reshape(2, -1).t().contiguous()
                return flat.cpu()
                #      ^^^^^^^^^^
            """,
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in DOWN_METHODS:
            return
        provenance = Provenance.of(self.context)
        frame = provenance.current_frame()
        if (pad := host_pad(provenance, node, frame)) is not None:
            self.report(node, _PAD_MESSAGE.format(*pad), confidence=Confidence.MEDIUM)
            return
        names: list[str] = []
        ups = round_trip_read(provenance, node, frame, names)
        if not ups:
            return
        first = ups[0]
        line = self.context.position(first.call).start.line
        here = self.context.position(node).start.line
        where = "" if line == here else f" (line {line})"
        shared = [n for n in names if reads_of(provenance, frame, n) > 1]
        if shared and all(up.proven for up in ups):
            self.report(
                node,
                f"`{shared[0]}` holds a copy to the device{where} of host data, and this copies "
                "it straight back with nothing but reshapes, indexing, joins or whole "
                "reductions between: keep the host tensor (or data) and read it (`max(lens)` "
                "for a maximum) here instead",
            )
            return
        if all(up.proven for up in ups):
            self.report(
                node,
                f"a host tensor is copied to the device{where} and straight back with nothing "
                "but reshapes, indexing, joins or whole reductions between: do them on the host "
                "and drop both copies",
            )
            return
        self.report(
            node,
            f"items are copied to the device one by one{where}, joined there and copied "
            "straight back: join them on the host and drop the copies (certain if the items "
            "are host tensors; if they are on the device already, their copies are no-ops)",
            confidence=Confidence.MEDIUM,
        )
