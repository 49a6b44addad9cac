from __future__ import annotations

import libcst as cst

from h2dlint.analysis.aliases import ways_in
from h2dlint.analysis.arguments import first_positional, host_named, keyword, positional
from h2dlint.analysis.facts import Fact, Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.host_waits import read_on_host, statement_place, synchronized_next
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.races import FunctionScan, pending_reuses, scan_function
from h2dlint.analysis.targets import Target
from h2dlint.analysis.writes import (
    FunctionWrites,
    buffer_roots,
    shared_function_writes,
    written_by_other_methods,
)
from h2dlint.context import SharedKey
from h2dlint.diagnostics import FixSafety
from h2dlint.fix_format import replace_fitted
from h2dlint.rule import Invalid, Rule, Valid

# Shared per file with every rule, each under its own typed key.
_RACE_SCAN: SharedKey[FunctionScan] = SharedKey("race scan of a function")


def _is_false(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "False"


def _with_non_blocking(call: cst.Call) -> cst.Call:
    """``call`` with ``non_blocking=True``: an existing ``non_blocking=False`` turned to True,
    else the keyword appended, keeping the call's layout (one line or one argument a line)."""
    args = list(call.args)
    for i, arg in enumerate(args):
        if arg.keyword is not None and arg.keyword.value == "non_blocking":
            args[i] = arg.with_changes(value=cst.Name("True"))
            return call.with_changes(args=args)
    new = cst.Arg(
        keyword=cst.Name("non_blocking"),
        value=cst.Name("True"),
        equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
        ),
    )
    if not args:
        return call.with_changes(args=[new])
    last = args[-1]
    if isinstance(last.comma, cst.Comma):
        # A trailing comma: the new argument goes after it, laid out like the first one.
        before = call.whitespace_before_args
        spacing = (
            before if isinstance(before, cst.ParenthesizedWhitespace) else cst.SimpleWhitespace(" ")
        )
        args[-1] = last.with_changes(comma=last.comma.with_changes(whitespace_after=spacing))
        new = new.with_changes(comma=last.comma)
    else:
        args[-1] = last.with_changes(
            comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")),
            whitespace_after_arg=cst.SimpleWhitespace(""),
        )
        new = new.with_changes(whitespace_after_arg=last.whitespace_after_arg)
    return call.with_changes(args=[*args, new])


class BlockingCopyFromPinned(Rule):
    """## What it does
    Flags a host-to-device copy without `non_blocking=True` (`x.to(device)`, `x.cuda()`,
    `dst.copy_(x)`, or any of them with `non_blocking=False`) whose source `x` is provably pinned
    and contiguous: allocated with `pin_memory=True` (or `pin_memory=flag`: pinned when enabled),
    made by `.pin_memory()`, a contiguous view of such a buffer, or `self.buf` set to one in
    `__init__`. Not flagged: a copy whose result is read on the host at once (`.item()`,
    `.tolist()`), one whose next statement waits for the device anyway (`synchronize()`,
    `.item()`, `.tolist()`), and one from a buffer that the same function writes again after the
    copy, or in a loop around it (there the blocking copy is what keeps the code correct).

    Confidence: always HIGH: the source is proven pinned and contiguous. The rule does not ask
    whether the code is hot; a blocking copy from a pinned buffer wastes the buffer wherever it
    runs.

    ## Why is this bad?
    Pinned memory exists so that a copy can run asynchronously, overlapped with host work. A
    blocking copy gives that up: the host waits until the stream has run everything queued
    before the copy, then the copy itself, and torch's sync debug mode reports a synchronization.
    Measured on an H200 (torch 2.11), a blocking `.to(device)` of a pinned 16 MiB tensor behind
    a 40 ms kernel held the host for 40.3 ms; the same copy with `non_blocking=True` returned in
    0.1 ms (`.cuda(non_blocking=True)`: 0.05 ms), both recorded as `Pinned -> Device`.

    ## Example
    ```python
    self.staging = torch.empty(n, dtype=torch.float16, pin_memory=True)
    ...
    weights = self.staging.to(device)
    ```

    ## Use instead
    ```python
    weights = self.staging.to(device, non_blocking=True)
    ```
    The copy is ordered on the current stream, so kernels launched after it see the data; only
    the host must not write the pinned buffer until the copy has run (record an event after the
    copy and wait on it before the next write).

    ## Fix safety
    The fix adds `non_blocking=True` (or turns `non_blocking=False` into True). It is unsafe:
    after it, the host goes on while the copy is pending, so a later host write to the pinned
    buffer (in the next call, another thread) can reach it before the copy has read it and
    corrupt what the device receives. The finding is still reported, but no fix is offered, and
    the message says why, where the host may write the buffer:

    - it is written on the host in the same function (before the copy: the next call's write
      races it) or, for `self.buf`, in another method than `__init__`;
    - it has an alias, in the same function or, for `self.buf`, anywhere in the class: a view or
      another name of it bound to a name or an attribute (`self.np_view = self.buf.numpy()`,
      `self.view = self.buf[:]`, `v = self.buf[:n]`, `for row in buf:`), whether or not a write
      through it is seen (`self.np_view[:] = arr` writes the buffer without naming it);
    - it is passed to a call that is not known to only read it (`fill(buf, x)`,
      `np.asarray(buf)`, `keep.append(buf)`; `len(buf)`, `torch.cat([buf, x])`,
      `gpu.copy_(buf)` and other reading torch functions are fine), returned, stored in a
      container, or used in a nested function.

    - HTD402 (pinned-buffer-reused-before-copy-ends) would flag a host write of the buffer once
      the copy is asynchronous: later in the function, in the next iteration of a loop, or in
      the next call of the method. The fix must not create the race that rule reports.

    There the copy needs an event recorded after it that the next write waits on, or a second
    buffer. Where the function writes the buffer (by its name or through an alias) after the
    copy, the rule reports nothing: the blocking copy is needed there. What the rule cannot see
    is code outside the class that writes `obj.buf` directly.
    """

    code = "HTD105"
    name = "blocking-copy-from-pinned"
    message = "blocking host-to-device copy from pinned memory"
    fix_safety = FixSafety.UNSAFE
    fix_message = "Add `non_blocking=True`"
    # The source must be provably pinned, but the proof may come from another module of the
    # project (a module-level pinned buffer imported from a pool module, a helper or class of
    # another module that allocates with ``pin_memory=True``): a file that never says
    # ``pin_memory`` itself can hold one, so a copy call in a function makes the file a
    # candidate (at module level, only where the file says ``pin_memory``).
    prefilter = (b"pin_memory", b".to", b".cuda", b"copy_")
    candidates = (".to|.cuda|.copy_ & text pin_memory", "def .to|.cuda|.copy_")

    valid = (
        # Session 27 (misses27): items of a list of pinned pools indexed by a tensor (a gather:
        # a fresh pageable tensor), or of a list whose items are not all pinned
        Valid(
            """
            import torch
            def pool(n):
                return torch.zeros(n, 8, pin_memory=True)
            class Handler:
                def __init__(self, n: int, layers: int) -> None:
                    self.host_caches = [pool(n) for _ in range(layers)]
                    self.mixed = [pool(n), torch.zeros(n, 8)]
                def swap_in(self, src: torch.Tensor, i: int, device) -> None:
                    for host in self.host_caches:
                        host[src].to(device)
                    for host in self.mixed:
                        host[i].to(device)
            """
        ),
        Valid(
            """
            import torch
            def f(device):
                x = torch.zeros(8, pin_memory=True)
                return x.to(device, non_blocking=True)
            """
        ),
        # Session 27 (misses27): a file that never says pin_memory is checked (a pinned buffer
        # may come from another module), but a tensor it cannot place stays unknown
        Valid(
            """
            import torch
            from pool import scratch
            def upload(values, device):
                scratch[: len(values)].copy_(torch.as_tensor(values))
                return values.to(device), scratch[: len(values)].to(device)
            """
        ),
        # to the host, a dtype conversion, a pinned-to-pinned host copy
        Valid(
            """
            import torch
            x = torch.zeros(8, pin_memory=True)
            y = x.to('cpu')
            """
        ),
        Valid(
            """
            import torch
            x = torch.zeros(8, pin_memory=True)
            y = x.to(torch.float16)
            """
        ),
        Valid(
            """
            import torch
            def f():
                a = torch.zeros(8, pin_memory=True)
                b = torch.empty(8, pin_memory=True)
                b.copy_(a)
            """
        ),
        Valid(
            """
            import torch
            def f(cpu_param):
                a = torch.zeros(8, pin_memory=True)
                cpu_param.copy_(a)
            """
        ),
        # pageable or unknown sources
        Valid(
            """
            import torch
            y = torch.zeros(8).to('cuda')
            """
        ),
        Valid(
            """
            import torch
            def f(x, device):
                return x.to(device)
            """
        ),
        # the classic reuse: the buffer is overwritten right after the copy
        Valid(
            """
            import torch
            def f(x, z, dev):
                buf = torch.empty(8, pin_memory=True)
                buf.copy_(x)
                y = buf.to(dev)
                buf.copy_(z)
                return y
            """
        ),
        Valid(
            """
            import torch
            def f(chunks, dev):
                buf = torch.empty(1024, pin_memory=True)
                out = []
                for chunk in chunks:
                    out.append(buf[: len(chunk)].to(dev))
                    buf[: len(chunk)] = chunk
                return out
            """
        ),
        Valid(
            """
            import torch
            class Stager:
                def __init__(self, n):
                    self.buf = torch.empty(n, pin_memory=True)
                def send(self, xs, dev):
                    outs = []
                    for x in xs:
                        self.buf[: x.numel()].copy_(x)
                        outs.append(self.buf[: x.numel()].cuda(dev))
                    return outs
            """
        ),
        # a host sync follows anyway, or the result is read on the host
        Valid(
            """
            import torch
            def f(dev):
                x = torch.zeros(8, pin_memory=True)
                y = x.to(dev)
                torch.cuda.synchronize()
                return y
            """
        ),
        Valid(
            """
            import torch
            def f(dev):
                x = torch.zeros(8, pin_memory=True)
                return x.to(dev).sum().item()
            """
        ),
        # a strided view of pinned memory is staged anyway (HTD103's business when async)
        Valid(
            """
            import torch
            def f(n, dev):
                x = torch.zeros(3, 64, pin_memory=True)
                return x[:, :n].to(dev)
            """
        ),
        # written through an alias after the copy: the blocking copy keeps this correct
        Valid(
            """
            import torch
            def f(x, dev):
                buf = torch.empty(64, pin_memory=True)
                v = buf[:8]
                y = buf.to(dev)
                v.copy_(x)
                return y
            """
        ),
        Valid(
            """
            import torch
            class Stager:
                def __init__(self, n):
                    self.buf = torch.empty(n, pin_memory=True)
                    self.np_view = self.buf.numpy()
                def send(self, arr, device):
                    y = self.buf.to(device)
                    self.np_view[:] = arr
                    return y
            """
        ),
        # non_blocking given by a variable, or positionally
        Valid(
            """
            import torch
            def f(dev, nb):
                x = torch.zeros(8, pin_memory=True)
                return x.to(dev, non_blocking=nb)
            """
        ),
        Valid(
            """
            import torch
            def f(gpu):
                x = torch.zeros(8, pin_memory=True)
                gpu.copy_(x, True)
            """
        ),
        # a dtype conversion on the way
        Valid(
            """
            import torch
            def f(dev):
                x = torch.zeros(8, pin_memory=True)
                return x.to(dev, torch.float16)
            """
        ),
    )
    invalid = (
        # Session 27 (misses27): an item of a list of pinned pools (one per layer, a helper
        # allocating each), reached through a zip, indexed by a number its annotation says
        Invalid(
            """
            import torch
            def pool(n, shape):
                return torch.zeros((n, *shape), pin_memory=True)
            class Handler:
                def __init__(self, gpu_caches: list[torch.Tensor], n: int) -> None:
                    self.gpu_caches = gpu_caches
                    self.host_caches = [pool(n, c.shape[1:]) for c in gpu_caches]
                def swap_in(self, src: list[int], dst: list[int]) -> None:
                    for gpu, host in zip(self.gpu_caches, self.host_caches):
                        gpu[dst[0]] = host[src[0]].to(gpu.device)
                #                     ^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """
        ),
        # the copy grows past the line length: its arguments go on a line of their own
        Invalid(
            """
            import torch
            def f(device):
                staging_positions = torch.zeros(8, dtype=torch.int64, pin_memory=True)
                positions = staging_positions.to(device=device, memory_format=torch.preserve_format)
                #           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def f(device):
                staging_positions = torch.zeros(8, dtype=torch.int64, pin_memory=True)
                positions = staging_positions.to(
                    device=device, memory_format=torch.preserve_format, non_blocking=True
                )
            """,
        ),
        Invalid(
            """
            import torch
            def f(device):
                x = torch.zeros(8, pin_memory=True)
                return x.to(device)
                #      ^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def f(device):
                x = torch.zeros(8, pin_memory=True)
                return x.to(device, non_blocking=True)
            """,
            message_contains="`x`",
        ),
        Invalid(
            """
            import torch
            def f(data):
                x = torch.tensor(data).pin_memory()
                return x.cuda()
                #      ^^^^^^^^
            """,
            expected_fix="""
            import torch
            def f(data):
                x = torch.tensor(data).pin_memory()
                return x.cuda(non_blocking=True)
            """,
        ),
        Invalid(
            """
            import torch
            def f(gpu):
                x = torch.zeros(8, pin_memory=True)
                gpu.copy_(x)
                ^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def f(gpu):
                x = torch.zeros(8, pin_memory=True)
                gpu.copy_(x, non_blocking=True)
            """,
        ),
        Invalid(
            """
            import torch
            def f(device):
                x = torch.zeros(8, pin_memory=True)
                return x.to(device=device, non_blocking=False)
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def f(device):
                x = torch.zeros(8, pin_memory=True)
                return x.to(device=device, non_blocking=True)
            """,
        ),
        # pinned when enabled, allocated once in __init__
        Invalid(
            """
            import torch
            class Pool:
                def __init__(self, n, device):
                    self.device = device
                    self.host = torch.empty(n, pin_memory=device.type == 'cuda')
                def load(self, start, end):
                    return self.host[start:end].to(self.device)
                    #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            class Pool:
                def __init__(self, n, device):
                    self.device = device
                    self.host = torch.empty(n, pin_memory=device.type == 'cuda')
                def load(self, start, end):
                    return self.host[start:end].to(self.device, non_blocking=True)
            """,
            message_contains="pinned when pinning is enabled",
        ),
        # one argument a line, with a trailing comma
        Invalid(
            """
            import torch
            def f(dev):
                x = torch.zeros(8, pin_memory=True)
                return x.to(
                #      ^^^^^
                    dev,
                )
             ...^
            """,
            expected_fix="""
            import torch
            def f(dev):
                x = torch.zeros(8, pin_memory=True)
                return x.to(
                    dev,
                    non_blocking=True,
                )
            """,
        ),
        # written before the copy: reported, but the fix would race the next write
        Invalid(
            """
            import torch
            buf = torch.empty(64, pin_memory=True)
            buf.copy_(torch.ones(64))
            y = buf.to('cuda')
            #   ^^^^^^^^^^^^^^
            """,
            message_contains="needs an event",
        ),
        Invalid(
            """
            import torch
            class Staging:
                def __init__(self, n):
                    self.buf = torch.empty(n, pin_memory=True)
                def fill(self, x):
                    self.buf[: x.numel()] = x
                def send(self, n, device):
                    return self.buf[:n].to(device)
                    #      ^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="rewritten on the host",
        ),
        # written through a numpy view: the fix would race `self.np_view[:] = arr`
        Invalid(
            """
            import torch
            class Stager:
                def __init__(self, n):
                    self.buf = torch.empty(n, pin_memory=True)
                    self.np_view = self.buf.numpy()
                def send(self, arr, device):
                    self.np_view[:] = arr
                    return self.buf.to(device)
                    #      ^^^^^^^^^^^^^^^^^^^
            """,
            message_contains=(
                "no fix offered: the buffer is rewritten on the host (through `self.np_view`)"
            ),
        ),
        # a view kept in an attribute, written by another method
        Invalid(
            """
            import torch
            class Stager:
                def __init__(self, n):
                    self.buf = torch.empty(n, pin_memory=True)
                    self.view = self.buf[:]
                def fill(self, x):
                    self.view.copy_(x)
                def send(self, device):
                    return self.buf.to(device)
                    #      ^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="(through `self.view`)",
        ),
        # a slice bound to a name and written through it
        Invalid(
            """
            import torch
            class Stager:
                def __init__(self, n):
                    self.buf = torch.empty(n, pin_memory=True)
                def send(self, x, n, device):
                    v = self.buf[:n]
                    v.copy_(x)
                    return self.buf.to(device)
                    #      ^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="(through `v`)",
        ),
        # an alias with no write in sight: whoever holds it may write the buffer
        Invalid(
            """
            import torch
            class Stager:
                def __init__(self, n):
                    self.buf = torch.empty(n, pin_memory=True)
                    self.np_view = self.buf.numpy()
                def send(self, device):
                    return self.buf.to(device)
                    #      ^^^^^^^^^^^^^^^^^^^
            """,
            message_contains=(
                "no fix offered: the buffer is also reachable as `self.np_view` "
                "(`self.buf.numpy()`)"
            ),
        ),
        # passed to a function that may write it
        Invalid(
            """
            import torch
            def f(x, device):
                buf = torch.empty(64, pin_memory=True)
                fill(buf, x)
                return buf.to(device)
                #      ^^^^^^^^^^^^^^
            """,
            message_contains="no fix offered: the buffer is passed to `fill()`",
        ),
        # read by known read-only calls only: the fix stands
        Invalid(
            """
            import torch
            def f(x, device):
                buf = torch.empty(64, pin_memory=True)
                both = torch.cat([buf, x])
                print(len(buf), buf.shape)
                return buf.to(device), both
                #      ^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def f(x, device):
                buf = torch.empty(64, pin_memory=True)
                both = torch.cat([buf, x])
                print(len(buf), buf.shape)
                return buf.to(device, non_blocking=True), both
            """,
        ),
        Invalid(
            """
            import torch
            def f(rank):
                table = torch.arange(1, 65, device='cpu', pin_memory=True)
                return table.to(torch.device('cuda', rank))  # blocks
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def f(rank):
                table = torch.arange(1, 65, device='cpu', pin_memory=True)
                return table.to(torch.device('cuda', rank), non_blocking=True)  # blocks
            """,
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute):
            return
        method = func.attr.value
        if method not in ("to", "cuda", "copy_"):
            return
        non_blocking = keyword(node, "non_blocking")
        if non_blocking is not None and not _is_false(non_blocking.value):
            return
        if any(arg.star for arg in node.args):
            return
        args = positional(node)
        # Cheap syntactic conditions first.
        if method == "copy_":
            source = first_positional(node)
            if source is None or len(args) != 1 or host_named(func.value):
                return
        elif method == "cuda":
            source = func.value
            if len(args) > 1:
                return  # ``x.cuda(device, non_blocking)``
        else:
            source = func.value
            if len(args) > 1 or keyword(node, "dtype") is not None:
                return  # a dtype conversion too, or ``non_blocking`` given positionally
        # The source is rarely provably pinned: ask that first, the target only then.
        provenance = Provenance.of(self.context)
        frame = provenance.current_frame()
        fact = provenance.fact(source, frame)
        if not fact.where.pinned or fact.contiguous is not True:
            return
        if method == "copy_":
            if provenance.where(func.value, frame) not in (Where.DEVICE, Where.UNKNOWN):
                return  # the destination is host memory: not a host-to-device copy
        elif method == "to" and provenance.to_target(node, frame) is not Target.DEVICE:
            return
        if read_on_host(self.context.ancestors, node) or synchronized_next(self.context, node):
            return
        place = statement_place(self.context, node)
        if place is None:
            return
        roots = buffer_roots(provenance, source, frame)
        ways = ways_in(provenance, frame, roots)
        # The buffer under every name this function may write it by: its own, and its aliases.
        names = roots | ways.aliases_in(frame)
        writes = self._writes(frame.function)
        if writes.written_after(place[0], place[1], names):
            return  # the blocking copy is what lets the host rewrite the buffer
        shown = self.shown(source, "the source")
        message = (
            f"blocking host-to-device copy from {shown}, which is {self._pinned(fact)}: the "
            "host waits for the copy and for everything queued before it on the stream"
        )
        written = {w.root for w in writes.writes if w.root in names}
        written |= written_by_other_methods(self.context, provenance, names, frame)
        if written:
            through = ""
            if not written & roots:
                alias = sorted(written)[0]
                through = f" (through `{alias}`)"
            self.report(
                node,
                message + f"; no fix offered: the buffer is rewritten on the host{through}, so "
                "an asynchronous copy needs an event that the next write waits on",
            )
        elif ways.ways:
            self.report(
                node,
                message + f"; no fix offered: the buffer {ways.ways[0].reason}, so the host "
                "may write it while an asynchronous copy is still reading it",
            )
        elif self._would_race(node, frame):
            self.report(
                node,
                message + "; no fix offered: the buffer is written again while an "
                "asynchronous copy could still read it (HTD402)",
            )
        else:
            self.report(
                node,
                message + "; pass `non_blocking=True`",
                replacements=[replace_fitted(self.context, node, _with_non_blocking(node))],
            )

    def _would_race(self, node: cst.Call, frame: Frame) -> bool:
        """Whether HTD402 would flag a write once this copy is made asynchronous: the fix
        must not create the race that rule reports."""
        provenance = Provenance.of(self.context)
        scan = self.context.shared(
            _RACE_SCAN, lambda: scan_function(frame, self.context.imports), frame.function
        )
        found = pending_reuses(provenance, frame, scan, node)
        return found is not None and bool(found[1])

    @staticmethod
    def _pinned(fact: Fact) -> str:
        if fact.where is Where.MAYBE_PINNED:
            return "pinned when pinning is enabled"
        return "pinned"

    def _writes(self, function: cst.FunctionDef | cst.Module) -> FunctionWrites:
        return shared_function_writes(self.context, function)
