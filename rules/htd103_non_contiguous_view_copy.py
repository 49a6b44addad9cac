from __future__ import annotations

import libcst as cst

from h2dlint.analysis.arguments import host_named
from h2dlint.analysis.bindings import used_names
from h2dlint.analysis.copies import non_blocking_h2d_source, permutation_staged
from h2dlint.analysis.facts import Fact, Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.registered_pins import registered_view
from h2dlint.analysis.targets import device_named
from h2dlint.analysis.views import Layout, layout, row_slices
from h2dlint.analysis.writes import (
    FunctionWrites,
    buffer_roots,
    shared_function_writes,
)
from h2dlint.diagnostics import Confidence, FixSafety
from h2dlint.fix_format import ancestors, block_indent, fit_statement
from h2dlint.rule import Invalid, Rule, Valid

LOOP_VARIABLE = "_row"


REGISTERED = "memory pinned in place by `cudaHostRegister`"


def _pinned_words(fact: Fact, registered: bool = False) -> str:
    if registered:
        return REGISTERED
    if fact.where is Where.MAYBE_PINNED:
        return "memory that is pinned when pinning is enabled"
    if fact.where is Where.PINNED:
        return "pinned memory"
    if fact.where is Where.PAGEABLE:
        return "pageable memory"
    return "host memory"


def _text(node: cst.BaseExpression | None) -> str:
    return "" if node is None else "".join(cst.Module([]).code_for_node(node).split())


class NonContiguousViewCopy(Rule):
    """## What it does
    Flags a copy with `non_blocking=True` to the device whose source is a non-contiguous view of
    host memory: `dst.copy_(buf[:, :n], non_blocking=True)`, `buf[..., a:b].to(device,
    non_blocking=True)`, `buf[::2].cuda(non_blocking=True)`, `buf.narrow(1, 0, n)`, where `buf` is
    host memory, pinned (`pin_memory=True`, or `pin_memory=flag`, pinned when enabled) or not,
    also as `self.buf` set in `__init__`. Pinned or not, the copy is never asynchronous. When
    nothing in the file places the buffer, a `[:, a:b]` (or `[:m, a:b]`) view of one whose name
    says host memory (`self.positions.cpu`, the CPU half of a buffer pair made in another
    module) copied into one whose name says device memory is reported with MEDIUM confidence.
    A transposed view (`buf.T`, `.t()`, `.transpose`, `.permute`) of memory that is not proven
    pageable is flagged in `dst.copy_(buf.T, non_blocking=True)`, not in
    `buf.T.to(device, non_blocking=True)`: `.to` keeps the strides of a dense tensor, so that
    copy is a plain DMA.

    Left alone: contiguous views (`buf[:n]` of a contiguous buffer, `buf[i]`, `buf[i, :n]`, so
    also the row-by-row copy that fixes this), views of tensors of unknown placement whose names
    say nothing, and copies to the host or into host memory.

    Hot paths: the rule does not require one. A strided non-blocking copy blocks the host
    wherever it runs, so code that runs once is reported too (a one-off copy costs once).

    ## Why is this bad?
    CUDA copies asynchronously only from pinned memory that is one dense block. PyTorch gathers a
    strided view into a contiguous temporary first, and that temporary is ordinary pageable
    memory: the pinning is lost, the profiler records `Memcpy HtoD (Pageable -> Device)`, and
    `non_blocking=True` stops meaning anything. Measured on an H200 (torch 2.11), a sliced view
    `cpu[:, :n]` of a pinned buffer behaved exactly like pageable memory: from 4 MiB up the host
    blocked behind a busy stream (40.5 ms behind a 40 ms kernel at 4 MiB, 42.3 ms at 16 MiB,
    against 0.16 ms for a contiguous pinned copy). Below that it does not block but is still
    staged: 3 rows of 40,000 int64 copied as `gpu[:, :n].copy_(cpu[:, :n], non_blocking=True)`
    took 0.44 ms of host time behind the busy stream, the same rows copied one at a time
    0.21 ms, each a `Pinned -> Device` copy.

    ## Example
    ```python
    positions_cpu = torch.zeros(3, max_tokens, dtype=torch.int64, pin_memory=True)
    positions_gpu = torch.zeros(3, max_tokens, dtype=torch.int64, device="cuda")
    ...
    positions_gpu[:, :n].copy_(positions_cpu[:, :n], non_blocking=True)
    ```

    ## Use instead
    Copy contiguous pieces: each row of `buf[:, :n]` is one dense block of pinned memory.
    ```python
    for _row in range(positions_gpu.shape[0]):
        positions_gpu[_row, :n].copy_(positions_cpu[_row, :n], non_blocking=True)
    ```
    Or lay the buffer out so that the part you copy is contiguous (`buf[:n]` of a
    `(max_tokens, 3)` buffer), or copy the whole buffer when it is small. A buffer in pageable
    memory must be pinned as well (allocated once with `pin_memory=True`): its rows are
    pageable too. Memory page-locked in place by `cudaHostRegister(t.data_ptr(), ...)` is
    pinned: the message says so, and its rows are copied as a pinned buffer's.

    ## Fix safety
    For the common form `dst[:, a:b].copy_(src[:, a:b], non_blocking=True)` standing alone as a
    statement, of memory not proven pageable (rows of pageable memory are staged just the same:
    there the buffer must be pinned first, and no fix is offered), the fix copies row by row:
    the same elements, in the same stream order, each row a contiguous block. It is unsafe: the
    staged copy read the source on the host during the call, so the old code could overwrite
    `src` at once; the row copies read it when the stream reaches them, so a host write to `src`
    before then corrupts the copy, the hazard of every truly asynchronous copy. No fix is
    offered where `src` is written later in the same function or loop. The loop runs over the
    destination's rows, so that a source broadcast over the rows fails loudly instead of filling
    only one. Other forms are reported without a fix.
    """

    code = "HTD103"
    name = "non-contiguous-view-copy"
    message = "`non_blocking=True` copy from a non-contiguous view of host memory is staged"
    fix_safety = FixSafety.UNSAFE
    fix_message = "Copy one contiguous row at a time"
    prefilter = (b"non_blocking",)
    candidates = (".to|.cuda|.copy_(non_blocking=)",)

    valid = (
        # a contiguous slice of the leading dimension stays one pinned block
        Valid(
            """
            import torch
            def f(n, device):
                buf = torch.zeros(4, 8, pin_memory=True)
                return buf[:n].to(device, non_blocking=True)
            """
        ),
        Valid(
            """
            import torch
            def f(n, gpu):
                buf = torch.zeros(4, 8, pin_memory=True)
                gpu[1, :n].copy_(buf[1, :n], non_blocking=True)
            """
        ),
        # .to keeps the strides of a whole-tensor transpose: a plain DMA from pinned memory
        Valid(
            """
            import torch
            def f(device):
                a = torch.zeros(4, 8, pin_memory=True)
                return a.T.to(device, non_blocking=True)
            """
        ),
        Valid(
            """
            import torch
            def f():
                a = torch.zeros(2, 3, 4, pin_memory=True)
                return a.permute(2, 0, 1).cuda(non_blocking=True)
            """
        ),
        # placement unknown, and no name says host memory
        Valid(
            """
            import torch
            def f(buf, n, gpu):
                gpu[:, :n].copy_(buf[:, :n], non_blocking=True)
            """
        ),
        # the fix's shape: one contiguous row segment at a time, also of a buffer pair made
        # in another module
        Valid(
            """
            import torch
            def f(n, device):
                cpu = torch.zeros(3, 64, dtype=torch.int64, pin_memory=True)
                gpu = torch.zeros(3, 64, dtype=torch.int64, device=device)
                for r in range(gpu.shape[0]):
                    gpu[r, :n].copy_(cpu[r, :n], non_blocking=True)
            """
        ),
        Valid(
            """
            class Runner:
                def prepare(self, n):
                    pos = self.positions
                    for r in range(pos.gpu.shape[0]):
                        pos.gpu[r, :n].copy_(pos.cpu[r, :n], non_blocking=True)
            """
        ),
        # leading rows only: one dense block
        Valid(
            """
            class BlockTable:
                def commit(self, num_reqs):
                    self.table.gpu[:num_reqs].copy_(self.table.cpu[:num_reqs], non_blocking=True)
            """
        ),
        # a host-named buffer copied into a destination nothing says is on a device
        Valid(
            """
            class Runner:
                def prepare(self, n, out):
                    out[:, :n].copy_(self.positions.cpu[:, :n], non_blocking=True)
            """
        ),
        # contiguous views of a host buffer: a leading slice, a row, a row segment
        Valid(
            """
            import torch
            def f(n, i, device):
                buf = torch.zeros(4, 8)
                a = buf[:n].to(device, non_blocking=True)
                b = buf[i].to(device, non_blocking=True)
                return buf[i, :n].to(device, non_blocking=True)
            """
        ),
        # a blocking copy, to the host, or into a host buffer
        Valid(
            """
            import torch
            def f(n, gpu):
                buf = torch.zeros(4, 8, pin_memory=True)
                gpu[:, :n].copy_(buf[:, :n])
            """
        ),
        Valid(
            """
            import torch
            def f(n):
                buf = torch.zeros(4, 8, pin_memory=True)
                return buf[:, :n].to('cpu', non_blocking=True)
            """
        ),
        Valid(
            """
            import torch
            def f(n, cpu_out):
                buf = torch.zeros(4, 8, pin_memory=True)
                cpu_out[:, :n].copy_(buf[:, :n], non_blocking=True)
            """
        ),
        # made contiguous first: a fresh pageable tensor, HTD102's business
        Valid(
            """
            import torch
            def f(n, device):
                buf = torch.zeros(4, 8, pin_memory=True)
                return buf[:, :n].contiguous().to(device, non_blocking=True)
            """
        ),
        # a dtype conversion, not a copy to the device
        Valid(
            """
            import torch
            def f(n):
                buf = torch.zeros(4, 8, pin_memory=True)
                return buf[:, :n].to(torch.float16, non_blocking=True)
            """
        ),
        # transposed on both sides alike: the copy keeps the strides
        Valid(
            """
            import torch
            def f(device):
                a = torch.zeros(4, 8, pin_memory=True)
                g = torch.empty(8, 4, device=device)
                g.T.copy_(a, non_blocking=True)
            """
        ),
        # as_strided / expand: layout unknown
        Valid(
            """
            import torch
            def f(device):
                a = torch.zeros(1, 8, pin_memory=True)
                return a.expand(4, 8).to(device, non_blocking=True)
            """
        ),
    )
    invalid = (
        # Session 43 (truth43): memory `cudaHostRegister` page-locks in place is pinned; a
        # strided view of it is still staged, and the message says pinned, not pageable.
        Invalid(
            """
            import torch
            def f(dev):
                obs = torch.zeros(64, 8)
                torch.cuda.cudart().cudaHostRegister(obs.data_ptr(), obs.numel() * 4, 0)
                return obs[:, ::2].to(dev, non_blocking=True)
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="memory pinned in place by `cudaHostRegister`",
        ),
        # Session 25 (variants25c): named buffers kept in a dict display on `self`: the entry
        # read by a string key is the pinned buffer it names
        Invalid(
            """
            import torch
            class IOBuffers:
                def __init__(self, n, device):
                    self.host = {"pos": torch.zeros(3, n + 1, pin_memory=True)}
                    self.dev = {"pos": torch.zeros(3, n + 1, device=device)}
                def commit(self, n):
                    self.dev["pos"][:, :n].copy_(self.host["pos"][:, :n], non_blocking=True)
                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """
        ),
        Invalid(
            """
            import torch
            def f(n, device):
                cpu = torch.zeros(3, 64, dtype=torch.int64, pin_memory=True)
                gpu = torch.zeros(3, 64, dtype=torch.int64, device=device)
                gpu[:, :n].copy_(cpu[:, :n], non_blocking=True)
                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                return gpu
            """,
            expected_fix="""
            import torch
            def f(n, device):
                cpu = torch.zeros(3, 64, dtype=torch.int64, pin_memory=True)
                gpu = torch.zeros(3, 64, dtype=torch.int64, device=device)
                for _row in range(gpu.shape[0]):
                    gpu[_row, :n].copy_(cpu[_row, :n], non_blocking=True)
                return gpu
            """,
            message_contains="`cpu[:, :n]`",
        ),
        # the real-world shape: buffers made once in __init__, pinned when enabled
        Invalid(
            """
            import torch
            class Positions:
                def __init__(self, device, max_tokens):
                    pin = device.type == 'cuda'
                    self.cpu = torch.zeros(3, max_tokens, dtype=torch.int64, pin_memory=pin)
                    self.gpu = torch.zeros(3, max_tokens, dtype=torch.int64, device=device)

                def copy_to_gpu(self, n):
                    # positions of the scheduled tokens
                    self.gpu[:, :n].copy_(self.cpu[:, :n], non_blocking=True)  # async?
                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    return self.gpu[:, :n]
            """,
            expected_fix="""
            import torch
            class Positions:
                def __init__(self, device, max_tokens):
                    pin = device.type == 'cuda'
                    self.cpu = torch.zeros(3, max_tokens, dtype=torch.int64, pin_memory=pin)
                    self.gpu = torch.zeros(3, max_tokens, dtype=torch.int64, device=device)

                def copy_to_gpu(self, n):
                    # positions of the scheduled tokens
                    for _row in range(self.gpu.shape[0]):
                        self.gpu[_row, :n].copy_(self.cpu[_row, :n], non_blocking=True)  # async?
                    return self.gpu[:, :n]
            """,
            message_contains="pinned when pinning is enabled",
        ),
        # the row copy grows past the line length: its arguments go on a line of their own
        Invalid(
            """
            import torch
            def f(count, device):
                cpu_positions = torch.zeros(3, 64, dtype=torch.int64, pin_memory=True)
                gpu_positions = torch.zeros(3, 64, dtype=torch.int64, device=device)
                gpu_positions[:, :count].copy_(cpu_positions[:, :count], non_blocking=True)  # all
                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def f(count, device):
                cpu_positions = torch.zeros(3, 64, dtype=torch.int64, pin_memory=True)
                gpu_positions = torch.zeros(3, 64, dtype=torch.int64, device=device)
                for _row in range(gpu_positions.shape[0]):
                    gpu_positions[_row, :count].copy_(
                        cpu_positions[_row, :count], non_blocking=True
                    )  # all
            """,
        ),
        # the loop variable does not clash with a name of the function
        Invalid(
            """
            import torch
            def f(start, end, dev, _row):
                src = torch.empty(3, 64, pin_memory=True)
                dst = torch.empty(3, 64, device=dev)
                dst[:, start:end].copy_(src[:, start:end], non_blocking=True)
                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            import torch
            def f(start, end, dev, _row):
                src = torch.empty(3, 64, pin_memory=True)
                dst = torch.empty(3, 64, device=dev)
                for _row1 in range(dst.shape[0]):
                    dst[_row1, start:end].copy_(src[_row1, start:end], non_blocking=True)
            """,
        ),
        # .to of a strided view: flagged, no fix
        Invalid(
            """
            import torch
            def f(a, b, device):
                buf = torch.empty(4, 1024, pin_memory=True)
                return buf[..., a:b].to(device, non_blocking=True)
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="`buf[..., a:b]`",
        ),
        Invalid(
            """
            import torch
            def f():
                buf = torch.empty(1024, pin_memory=True)
                return buf[::2].cuda(non_blocking=True)
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            def f(n, device):
                buf = torch.empty(4, 1024).pin_memory()
                view = buf.narrow(1, 0, n)
                return view.to(device=device, non_blocking=True)
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # copy_ of a transpose into a differently laid-out destination
        Invalid(
            """
            import torch
            def f(device):
                a = torch.zeros(4, 8, pin_memory=True)
                g = torch.empty(8, 4, device=device)
                g.copy_(a.T, non_blocking=True)
                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="transposed",
        ),
        # a column of a pinned buffer
        Invalid(
            """
            import torch
            class Cache:
                def __init__(self):
                    self.table = torch.zeros(64, 16, dtype=torch.int32, pin_memory=True)
                def lengths(self, gpu_out):
                    gpu_out.copy_(self.table[:, 3], non_blocking=True)
                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # the source is rewritten right after: no fix (row copies would read the new data)
        Invalid(
            """
            import torch
            def f(chunks, gpu):
                cpu = torch.zeros(3, 64, pin_memory=True)
                for n, chunk in chunks:
                    cpu[:, :n] = chunk
                    gpu[:, :n].copy_(cpu[:, :n], non_blocking=True)
                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        # a strided view of pageable memory: row by row alone would not help, no fix
        Invalid(
            """
            import torch
            def f(n, gpu):
                buf = torch.zeros(4, 8)
                gpu[:, :n].copy_(buf[:, :n], non_blocking=True)
                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="pin the buffer",
        ),
        Invalid(
            """
            import torch
            def f(rows, n, dev):
                x = torch.tensor(rows)
                return x[:, :n].to(dev, non_blocking=True)
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="pageable memory",
        ),
        # the CPU half of a buffer pair made in another module: host by its name
        Invalid(
            """
            class Runner:
                def prepare(self, n):
                    self.pos.gpu[:, :n].copy_(self.pos.cpu[:, :n], non_blocking=True)
                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            expected_fix="""
            class Runner:
                def prepare(self, n):
                    for _row in range(self.pos.gpu.shape[0]):
                        self.pos.gpu[_row, :n].copy_(self.pos.cpu[_row, :n], non_blocking=True)
            """,
            message_contains="certain once `self.pos.cpu` is proven host memory",
        ),
        # some leading rows and the used columns: as strided; no fix (the loop would need the
        # rows' bounds)
        Invalid(
            """
            class BlockTable:
                def commit(self, r, w):
                    self.table.gpu[:r, :w].copy_(self.table.cpu[:r, :w], non_blocking=True)
                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
            message_contains="certain once `self.table.cpu` is proven host memory",
        ),
        # not a statement of its own: flagged, no fix
        Invalid(
            """
            import torch
            def f(n, gpu):
                cpu = torch.zeros(3, 64, pin_memory=True)
                return gpu[:, :n].copy_(cpu[:, :n], non_blocking=True)
                #      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        provenance = Provenance.of(self.context)
        frame = provenance.current_frame()
        source = non_blocking_h2d_source(provenance, node, frame)
        if source is None:
            return
        fact = provenance.fact(source, frame)
        shown = self.shown(source, "the source")
        if not fact.known:
            self._report_host_by_name(node, source, shown, provenance, frame)
            return
        if not fact.where.on_host or fact.contiguous is not False:
            return
        kind = layout(provenance, source, frame)
        # Memory ``cudaHostRegister`` page-locks in place is pinned, not pageable (session 43).
        registered = fact.where is Where.PAGEABLE and registered_view(self.context, source, frame)
        if kind is Layout.STRIDED:
            self._report_strided(node, source, fact, shown, provenance, frame, registered)
        elif (
            kind is Layout.PERMUTED
            and (fact.where is not Where.PAGEABLE or registered)  # a pageable one is HTD102's
            and permutation_staged(provenance, node, frame)
        ):
            self.report(
                node,
                f"`non_blocking=True` copy from {shown}, a transposed view of "
                f"{_pinned_words(fact, registered)}, into a destination laid out differently: "
                "PyTorch gathers it into pageable memory first, so the copy is staged and, from "
                "a few MiB up, blocks the host",
            )

    def _report_strided(
        self,
        node: cst.Call,
        source: cst.BaseExpression,
        fact: Fact,
        shown: str,
        provenance: Provenance,
        frame: Frame,
        registered: bool = False,
    ) -> None:
        words = _pinned_words(fact, registered)
        message = (
            f"`non_blocking=True` copy from {shown}, a strided view of {words}: "
            "PyTorch gathers it into pageable memory first, so the copy is staged and, from a "
            "few MiB up, blocks the host"
        )
        if fact.where is Where.PAGEABLE and not registered:
            # Row by row would still copy pageable rows: the buffer must be pinned first.
            self.report(node, f"{message}; pin the buffer and copy it one contiguous row at a time")
            return
        fix = self._row_by_row(node, source, provenance, frame)
        if fix is None:
            self.report(node, message)
        else:
            self.report(node, message, replacements=[fix])

    def _report_host_by_name(
        self,
        node: cst.Call,
        source: cst.BaseExpression,
        shown: str,
        provenance: Provenance,
        frame: Frame,
    ) -> None:
        """``gpu[:, :n].copy_(buf.cpu[:, :n], non_blocking=True)`` where nothing in the file
        places ``buf.cpu`` (a buffer pair made in another module): its name says host memory,
        ``[:, a:b]`` a strided view of it, the destination's name a device. Reported with
        MEDIUM confidence, with the fix: copying row by row is right for pinned memory and
        changes nothing for pageable memory."""
        inner = row_slices(source, any_rows=True)
        if inner is None or (inner.lower is None and inner.upper is None):
            return
        assert isinstance(source, cst.Subscript)
        buffer = source.value
        if not host_named(buffer) or provenance.where(buffer, frame) is not Where.UNKNOWN:
            return
        func = node.func
        assert isinstance(func, cst.Attribute)
        if func.attr.value == "copy_" and not (
            provenance.where(func.value, frame) is Where.DEVICE or device_named(func.value)
        ):
            return
        named = self.shown(buffer, "the source")
        message = (
            f"`non_blocking=True` copy from {shown}, a strided view of what its name says is "
            "host memory: PyTorch gathers it into pageable memory first, so the copy is staged "
            f"and, from a few MiB up, blocks the host (certain once {named} is proven host "
            "memory: allocate it in this module or list it in `pinned-attributes`)"
        )
        fix = self._row_by_row(node, source, provenance, frame)
        self.report(
            node,
            message,
            replacements=[fix] if fix is not None else [],
            confidence=Confidence.MEDIUM,
        )

    # -- the fix ---------------------------------------------------------------------------
    def _row_by_row(
        self,
        node: cst.Call,
        source: cst.BaseExpression,
        provenance: Provenance,
        frame: Frame,
    ) -> tuple[cst.CSTNode, cst.CSTNode] | None:
        """``dst[:, a:b].copy_(src[:, a:b], non_blocking=True)`` alone on its line becomes a loop
        copying ``dst[_row, a:b]`` from ``src[_row, a:b]``."""
        func = node.func
        assert isinstance(func, cst.Attribute)
        statement = self.context.current_statement()
        if not (
            func.attr.value == "copy_"
            and isinstance(statement, cst.SimpleStatementLine)
            and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Expr)
            and statement.body[0].value is node
            and len(node.args) == 2
            and node.args[0].keyword is None
            and not node.args[0].star
        ):
            return None
        dst = func.value
        dst_inner, src_inner = row_slices(dst), row_slices(source)
        if dst_inner is None or src_inner is None:
            return None
        if (_text(dst_inner.lower), _text(dst_inner.upper)) != (
            _text(src_inner.lower),
            _text(src_inner.upper),
        ):
            return None
        assert isinstance(dst, cst.Subscript) and isinstance(source, cst.Subscript)
        writes = self._writes(frame)
        roots = buffer_roots(provenance, source, frame)
        if writes.written_after(statement, 1, roots):
            return None
        if any(provenance.bindings(f).of("range") for f in (frame, Frame(self.context.module))):
            return None  # ``range`` is rebound here
        variable = self._loop_variable(frame)

        def by_row(view: cst.Subscript) -> cst.Subscript:
            lead = view.slice[0]
            row = cst.SubscriptElement(cst.Index(cst.Name(variable)), comma=lead.comma)
            return view.with_changes(slice=[row, view.slice[1]])

        call = node.with_changes(
            func=func.with_changes(value=by_row(dst)),
            args=[node.args[0].with_changes(value=by_row(source)), node.args[1]],
        )
        rows = cst.Subscript(
            value=cst.Attribute(value=dst.value, attr=cst.Name("shape")),
            slice=[cst.SubscriptElement(cst.Index(cst.Integer("0")))],
        )
        copy = cst.SimpleStatementLine(
            body=[statement.body[0].with_changes(value=call)],
            trailing_whitespace=statement.trailing_whitespace,
        )
        # One level deeper, and longer by the loop variable: wrapped if it grows too long.
        module = self.context.module
        indent = block_indent(self.context, ancestors(self.context, statement))
        copy = fit_statement(self.context, copy, indent + module.default_indent, [call], statement)
        loop = cst.For(
            target=cst.Name(variable),
            iter=cst.Call(func=cst.Name("range"), args=[cst.Arg(rows)]),
            body=cst.IndentedBlock(body=[copy]),
            leading_lines=statement.leading_lines,
        )
        return statement, loop

    def _writes(self, frame: Frame) -> FunctionWrites:
        return shared_function_writes(self.context, frame.function)

    def _loop_variable(self, frame: Frame) -> str:
        """A loop variable that no name of the function (or module) uses."""
        used = used_names(self.context, frame.function)
        variable, suffix = LOOP_VARIABLE, 0
        while variable in used:
            suffix += 1
            variable = f"{LOOP_VARIABLE}{suffix}"
        return variable
