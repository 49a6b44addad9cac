from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from h2dlint.analysis.arguments import first_positional, keyword
from h2dlint.analysis.factories import (
    RANDOM_FACTORIES,
    SHAPE_FACTORIES,
    factory_of,
)
from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.loop_iterables import tiny_iterable
from h2dlint.analysis.once import RunOnce
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.targets import Target
from h2dlint.analysis.torch_api import (
    CONVERTERS,
    DTYPE_METHODS,
    DTYPE_NAMES,
    FRESH_FACTORIES,
    HOST_WRAPPERS,
    JOINS,
    SAME_DEVICE_FUNCTIONS,
)
from h2dlint.context import SharedKey
from h2dlint.rule import Invalid, Rule, Valid

# Shared per file with every rule, each under its own typed key.
_LOOPS: SharedKey[dict[cst.CSTNode, _Loop]] = SharedKey("loop summaries")

COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
# Calls that compute the same value from the same inputs, with no effect: an invariant copy may
# contain them. Random factories draw new numbers each time, so they are left out.
PURE_TORCH = (
    (FRESH_FACTORIES - RANDOM_FACTORIES)
    | CONVERTERS
    | HOST_WRAPPERS
    | JOINS
    | SAME_DEVICE_FUNCTIONS
    | DTYPE_NAMES
    | frozenset({"torch.device", "torch.Size"})
)
PURE_BUILTINS = frozenset(
    {"len", "int", "float", "bool", "list", "tuple", "range", "min", "max", "abs", "round", "sum"}
)
PURE_METHODS = DTYPE_METHODS | frozenset(
    {
        "size",
        "dim",
        "numel",
        "view",
        "reshape",
        "to",
        "cuda",
        "contiguous",
        "unsqueeze",
        "squeeze",
        "t",
        "transpose",
        "permute",
        "expand",
        "clone",
        "detach",
        "flatten",
    }
)
# Methods that change their object in place (besides torch's ``*_`` methods).
MUTATING_METHODS = frozenset(
    {
        "append",
        "extend",
        "insert",
        "pop",
        "remove",
        "clear",
        "update",
        "setdefault",
        "popitem",
        "sort",
        "reverse",
        "add",
        "discard",
        "put",
    }
)
STORING_METHODS = frozenset({"append", "extend", "insert", "add", "put", "setdefault"})


class LoopInvariantCopy(Rule):
    """## What it does
    Flags a copy to the device inside a `for` or `while` loop of a tensor that the loop does not
    change: `x.to(device)`, `x.cuda()`, `torch.tensor(data, device=...)` and
    `torch.as_tensor(data, device=...)` where the copied expression (and its target) depends on
    nothing the loop assigns: not the loop variable, no name the body rebinds (`=`, `+=`,
    `for`, `with ... as`, `:=`), no attribute or item the body writes (`self.x = ...`,
    `x[i] = ...`), nothing changed in place (`x.add_(...)`, `x.copy_(...)`, `out=x`,
    `xs.append(...)`, a method of the class that assigns the attribute), and no call but pure
    ones (torch factories and conversions, `len`, `int`, shape methods). The source must be
    host memory by the provenance analysis (a tensor made on the host, Python or numpy data): a
    move of a tensor already on the device copies nothing. The finding names the outermost loop
    the copy can leave.

    Left alone, and why:

    - copies that depend on the loop variable or on anything the body changes (a name rebound,
      an attribute written, a buffer filled in place), and copies with calls that may return
      something else each time (`f(x).to(dev)`, random factories);
    - copies whose source the analysis does not prove on the host (it may already be on the
      device, where `.to(device)` is a no-op);
    - copies under a test of something the loop changes (`if i == 0:`), or on a path that
      leaves the loop (`return x.to(dev)`, a branch ending in `break`): they run once;
    - copies whose result is stored per iteration (`out.append(x.to(dev))`, `outs[i] = ...`)
      or changed in place later in the body: each iteration needs its own tensor;
    - copies in comprehensions (each element is its own tensor), loops over at most 8 literal
      items, and code that runs once (setup, initializers, tests);
    - host factories moved to the device (`torch.zeros(n).cuda()`): HTD301 flags those, and its
      fix removes the copy altogether.

    On the 12 pinned corpus packages: 7 findings, all read, all correct
    (docs/needless-copies.md).

    ## Why is this bad?
    The copy is paid on every iteration although it copies the same bytes: a launch, a device
    allocation, and, from pageable memory, a blocking copy that waits for the stream to drain,
    which in a denoising or decoding loop stalls the host once per step. Measured on an H200
    (torch 2.11, `benchmarks/device/needless_copies.py`), a 50-step loop copying the same
    pageable tensor every step: 4 MiB took 23.5 ms of host time against 2.1 ms with the copy
    before the loop, 4 KiB 2.09 against 1.21 ms; 50 synchronizing copies against one. From
    pinned memory with `non_blocking=True` the host is free, but the GPU still spent 4.97 ms
    against 1.89 ms on the 4 MiB loop.

    ## Example
    ```python
    epsilon = torch.tensor(1e-5)
    for i in range(num_inputs):
        h = proj[i](x)
        scale = torch.sqrt(torch.maximum(h.pow(2).mean(), epsilon.to(x.device)))
    ```

    ## Use instead
    ```python
    epsilon = torch.tensor(1e-5, device=x.device)  # or clamp(min=1e-5): no tensor at all
    for i in range(num_inputs):
        h = proj[i](x)
        scale = torch.sqrt(torch.maximum(h.pow(2).mean(), epsilon))
    ```

    ## Fix safety
    No automatic fix: hoisting changes when the copy happens (before the loop, also when the
    loop runs zero times) and makes every iteration share one device tensor, which is only
    correct if nothing writes to it; naming the hoisted tensor is a choice for the author.
    """

    code = "HTD302"
    name = "loop-invariant-copy"
    message = "a tensor that the loop does not change is copied to the device on every iteration"
    prefilter = (b".to(", b".cuda(", b"device=")
    candidates = (
        "loop .to|.cuda",
        "loop .tensor|tensor|.as_tensor|as_tensor|.asarray|asarray(device=)",
    )

    valid = (
        # to the device of a tensor the loop makes: it may differ per iteration
        Valid(
            """
            import torch
            def f(xs, proj):
                eps = torch.tensor(1e-5)
                for i in range(1, len(xs)):
                    h = proj[i](xs[i])
                    m = torch.maximum(h, eps.to(h.device))
            """
        ),
        # depends on the loop variable
        Valid(
            """
            import torch
            def f(xs, device):
                for x in xs:
                    y = torch.tensor(x).to(device)
            """
        ),
        # a name the body rebinds
        Valid(
            """
            import torch
            def f(n, device):
                mask = torch.zeros(4)
                for i in range(n):
                    m = mask.to(device)
                    mask = mask + 1
            """
        ),
        # a buffer filled in place per iteration
        Valid(
            """
            import torch
            def f(rows, device):
                buf = torch.empty(1024)
                for row in rows:
                    buf.copy_(row)
                    y = buf.to(device, non_blocking=True)
            """
        ),
        Valid(
            """
            import torch
            def f(rows, device):
                buf = torch.empty(8, 1024)
                for i, row in enumerate(rows):
                    buf[0] = row
                    y = buf.to(device)
            """
        ),
        # an attribute that a method called in the body assigns
        Valid(
            """
            import torch
            class Sampler:
                def _refresh(self):
                    self.table = torch.rand(8)
                def step(self, n, device):
                    for i in range(n):
                        self._refresh()
                        t = self.table.to(device)
            """
        ),
        # already on the device: `.to(device)` copies nothing
        Valid(
            """
            import torch
            def f(n, device):
                cond = torch.zeros(4, device='cuda')
                for i in range(n):
                    c = cond.to(device)
            """
        ),
        # source of unknown placement
        Valid(
            """
            def f(cond, n, device):
                for i in range(n):
                    c = cond.to(device)
            """
        ),
        # runs once: under a test of the loop variable, or on the way out of the loop
        Valid(
            """
            import torch
            def f(n, device):
                eps = torch.tensor(1e-5)
                for i in range(n):
                    if i == 0:
                        e = eps.to(device)
            """
        ),
        Valid(
            """
            import torch
            def f(xs, device):
                eps = torch.tensor(1e-5)
                for x in xs:
                    if x is None:
                        return eps.to(device)
            """
        ),
        # a flag the loop changes: maybe once
        Valid(
            """
            import torch
            def f(xs, device):
                eps = torch.tensor(1e-5)
                first = True
                for x in xs:
                    if first:
                        e = eps.to(device)
                        first = False
            """
        ),
        # one tensor per iteration, kept
        Valid(
            """
            import torch
            def f(n, device):
                init = torch.zeros(4)
                states = []
                for i in range(n):
                    states.append(init.to(device))
            """
        ),
        # changed in place after the copy: each iteration needs a fresh one
        Valid(
            """
            import torch
            def f(n, device):
                init = torch.zeros(4)
                for i in range(n):
                    acc = init.to(device)
                    acc.add_(i)
            """
        ),
        # a fresh buffer per iteration, which a function may write (an overflow flag)
        Valid(
            """
            import torch
            def f(groups, apply):
                for params in groups:
                    flag = torch.tensor([0], dtype=torch.int, device='cuda')
                    apply(params, flag)
            """
        ),
        # an empty tensor: no bytes to copy
        Valid(
            """
            import torch
            def f(rows, device):
                for row in rows:
                    picked = row if len(row) else torch.tensor([], device=device)
            """
        ),
        # a call that may return something else each time, a random draw
        Valid(
            """
            import torch
            def f(n, device, sample):
                for i in range(n):
                    x = sample().to(device)
            """
        ),
        Valid(
            """
            import torch
            def f(n, device):
                for i in range(n):
                    noise = torch.randn(4).to(device)
            """
        ),
        # a host factory: HTD301's finding
        Valid(
            """
            import torch
            def f(n, k, device):
                for i in range(n):
                    m = torch.ones(k).to(device)
            """
        ),
        # a comprehension, a tiny literal loop, setup code
        Valid(
            """
            import torch
            def f(n, device):
                eps = torch.tensor(1e-5)
                return [eps.to(device) for _ in range(n)]
            """
        ),
        Valid(
            """
            import torch
            def f(device):
                eps = torch.tensor(1e-5)
                for i in range(2):
                    e = eps.to(device)
            """
        ),
        Valid(
            """
            import torch
            class M:
                def __init__(self, n, device):
                    eps = torch.tensor(1e-5)
                    for i in range(n):
                        e = eps.to(device)
            """
        ),
        # a copy to a device that depends on the loop
        Valid(
            """
            import torch
            def scatter(devices):
                table = torch.arange(8)
                for d in devices:
                    t = table.to(d)
            """
        ),
    )
    invalid = (
        Invalid(
            """
            import torch
            def f(xs, proj):
                target = xs[0].pow(2).mean()
                eps = torch.tensor(1e-5)
                for i in range(1, len(xs)):
                    h = proj[i](xs[i])
                    m = torch.maximum(h, eps.to(target.device))
                    #                    ^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
        Invalid(
            """
            import torch
            def f(xs, proj, out):
                eps = torch.tensor(1e-5)
                target = out.device
                for i in range(1, len(xs)):
                    h = proj[i](xs[i])
                    m = torch.maximum(h, eps.to(target))
                    #                    ^^^^^^^^^^^^^^
            """,
            message_contains="line 5",
        ),
        # the copy of a mask made before a denoising loop
        Invalid(
            """
            import torch
            def denoise(unet, latents, timesteps, mask_list, device):
                mask = torch.tensor(mask_list)
                for t in timesteps:
                    latents = unet(latents, t, mask.to(device))
                    #                          ^^^^^^^^^^^^^^^
                return latents
            """,
        ),
        # Python data converted on the device in every iteration
        Invalid(
            """
            import torch
            def decode(model, tokens, steps, bad_words, device):
                banned = list(bad_words)
                while steps > 0:
                    logits = model(tokens)
                    logits[:, torch.tensor(banned, device=device)] = -1e9
                    #         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                    steps -= 1
            """,
        ),
        # a pinned staging of constants inside a loop over a batch's fields, behind a filter
        Invalid(
            "import torch\n"
            "def f(batch, rank, size):\n"
            "    for key, val in batch.items():\n"
            "        if val is not None:\n"
            "            index = torch.tensor([rank, 2 * size - rank - 1], device='cpu', "
            "pin_memory=True).cuda(non_blocking=True)\n"
            "            batch[key] = val.index_select(1, index)\n",
            5,
            21,
        ),
        # nested loops: it can leave both; the message names the outer one
        Invalid(
            """
            import torch
            def f(model, xs, n, device):
                scale = torch.tensor([0.5, 2.0])
                for epoch in range(n):
                    for x in xs:
                        model(x, scale.cuda())
                        #        ^^^^^^^^^^^^
            """,
            message_contains="line 4",
        ),
        # depends on the outer loop only: it can leave the inner one
        Invalid(
            """
            import torch
            def f(model, tables, xs, device):
                for table in tables:
                    host = torch.tensor(table)
                    for x in xs:
                        model(x, host.to(device))
                        #        ^^^^^^^^^^^^^^^
            """,
            message_contains="line 5",
        ),
        # a step method of a class: an attribute nothing in the loop writes
        Invalid(
            """
            import torch
            class Pipe:
                def __init__(self):
                    self.weights = torch.ones(8)
                def run(self, latents, steps, device):
                    for t in steps:
                        latents = self.unet(latents, t) * self.weights.to(device)
                        #                                 ^^^^^^^^^^^^^^^^^^^^^^^
                    return latents
            """,
        ),
        # a numpy array
        Invalid(
            """
            import numpy as np
            import torch
            def f(model, x, n, device):
                table = np.arange(16)
                for i in range(n):
                    x = model(x, torch.as_tensor(table, device=device))
                    #            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
            """,
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        name = (
            func.attr.value
            if isinstance(func, cst.Attribute)
            else func.value
            if isinstance(func, cst.Name)
            else None
        )
        if name not in ("to", "cuda", "tensor", "as_tensor", "asarray"):
            return
        loops = self._loops()
        if not loops:
            return
        provenance = Provenance.of(self.context)
        frame = provenance.current_frame()
        copied = self._copied(node, name, provenance, frame)
        if copied is None:
            return
        source, host = copied
        if not host:
            return
        if RunOnce.of(self.context).code(self.context.ancestors):
            return
        reads = _Reads(provenance, frame)
        reads.scan(node)
        if not reads.pure:
            return
        statement = self.context.current_statement()
        left: cst.For | cst.While | None = None
        for loop, path in loops:
            summary = self._summary(loop, provenance, frame)
            if reads.depends_on(summary) or not self._every_iteration(path, summary):
                break
            if self._result_kept(node, statement, summary):
                break
            left = loop
        if left is None:
            return
        line = self.context.position(left).start.line
        shown = self.shown(source, "a host tensor")
        self.report(
            node,
            f"{shown} does not change in the loop at line {line} but is copied to the device "
            "on every iteration: copy it once, before the loop",
        )

    # -- the copy ------------------------------------------------------------------------------
    def _copied(
        self, node: cst.Call, name: str, provenance: Provenance, frame: Frame
    ) -> tuple[cst.BaseExpression, bool] | None:
        """The copied expression, and whether it is proven host memory or host data."""
        func = node.func
        if name in ("to", "cuda"):
            assert isinstance(func, cst.Attribute)
            if name == "to" and provenance.to_target(node, frame) is not Target.DEVICE:
                return None
            source = func.value
            factory = factory_of(source)
            if factory is not None and provenance.qualify(factory.func) in (
                SHAPE_FACTORIES | RANDOM_FACTORIES
            ):
                return None  # HTD301's finding
            where = provenance.where(source, frame)
            if where is Where.DEVICE:
                return None
            return source, where.on_host or provenance.is_host_data(source, frame)
        if provenance.qualify(func) not in ("torch.tensor", "torch.as_tensor", "torch.asarray"):
            return None
        device = keyword(node, "device")
        data = first_positional(node)
        if device is None or data is None or keyword(node, "pin_memory") is not None:
            return None
        if provenance.device_target(device.value, frame, allocation=True) is not Target.DEVICE:
            return None
        if isinstance(data, (cst.List, cst.Tuple)) and not data.elements:
            return None  # empty: nothing is copied
        host = provenance.is_host_data(data, frame) or provenance.where(data, frame).on_host
        return data, host

    # -- the loops around it -----------------------------------------------------------------
    def _loops(self) -> list[tuple[cst.For | cst.While, list[cst.CSTNode]]]:
        """The loops of the function whose body holds the node being visited, innermost first,
        each with the nodes from its body down to the node."""
        ancestors = self.context.ancestors
        found: list[tuple[cst.For | cst.While, list[cst.CSTNode]]] = []
        for i in range(len(ancestors) - 1, -1, -1):
            node = ancestors[i]
            if isinstance(node, COMPREHENSIONS):
                return []  # each element is its own tensor
            if isinstance(node, SCOPES):
                break
            if isinstance(node, (cst.For, cst.While)):
                if i + 1 >= len(ancestors) or ancestors[i + 1] is not node.body:
                    continue  # the iterable, the test, the else clause
                if isinstance(node, cst.For) and tiny_iterable(node.iter):
                    break
                found.append((node, list(ancestors[i + 1 :])))
        return found

    def _summary(self, loop: cst.For | cst.While, provenance: Provenance, frame: Frame) -> _Loop:
        summaries = self.context.shared(_LOOPS, dict)
        if loop not in summaries:
            collector = _LoopWrites(provenance, frame)
            if isinstance(loop, cst.For):
                collector.bind_target(loop.target)
            loop.body.visit(collector)
            summaries[loop] = collector.summary
        return summaries[loop]

    def _every_iteration(self, path: list[cst.CSTNode], summary: _Loop) -> bool:
        """Whether the copy runs on every iteration: no test of what the loop changes on the
        way to it, and no branch that leaves the loop (``return``, ``break``, ``raise``)."""
        for i, node in enumerate(path):
            if isinstance(node, (cst.If, cst.IfExp, cst.While)) and _picks_iterations(node.test):
                reads = _Reads(None, None)
                reads.scan(node.test)
                if reads.depends_on(summary):
                    return False
            if isinstance(node, (cst.Return, cst.Raise)):
                return False
            if (
                isinstance(node, (cst.IndentedBlock, cst.SimpleStatementSuite))
                and i > 0
                and any(_leaves(s) for s in node.body)
            ):
                return False
        return True

    def _result_kept(self, node: cst.Call, statement: cst.CSTNode | None, summary: _Loop) -> bool:
        """Whether each iteration keeps or changes its own copy: stored in a container or an
        attribute, or bound to a name the loop changes in place."""
        parent = self.context.ancestors[-1] if self.context.ancestors else None
        grand = self.context.ancestors[-2] if len(self.context.ancestors) > 1 else None
        if (
            isinstance(parent, cst.Arg)
            and isinstance(grand, cst.Call)
            and isinstance(grand.func, cst.Attribute)
            and grand.func.attr.value in STORING_METHODS
        ):
            return True
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, (cst.Assign, cst.AnnAssign)) and small.value is node:
                    targets = (
                        [t.target for t in small.targets]
                        if isinstance(small, cst.Assign)
                        else [small.target]
                    )
                    for target in targets:
                        if not isinstance(target, cst.Name):
                            return True
                        if target.value in summary.changed_names | summary.passed_to_functions:
                            return True
                if isinstance(small, cst.Expr) and isinstance(small.value, (cst.Yield,)):
                    return True
        return False


def _picks_iterations(test: cst.BaseExpression) -> bool:
    """Whether a test may pick out one iteration or a few (``i == 0``, ``first``,
    ``not done``), rather than filter items (``x is not None``, ``isinstance(x, T)``,
    ``n > 0``)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _picks_iterations(test.expression)
    if isinstance(test, cst.BooleanOperation):
        return _picks_iterations(test.left) or _picks_iterations(test.right)
    if isinstance(test, (cst.Name, cst.Attribute, cst.Subscript)):
        return True  # a flag
    if isinstance(test, cst.Comparison):
        return any(isinstance(c.operator, cst.Equal) for c in test.comparisons)
    return False


def _leaves(statement: cst.CSTNode) -> bool:
    if isinstance(statement, cst.SimpleStatementLine):
        return any(isinstance(s, (cst.Break, cst.Return, cst.Raise)) for s in statement.body)
    return False


@dataclass
class _Loop:
    """What a loop's body changes."""

    bound: set[str] = field(default_factory=set)
    written: set[str] = field(default_factory=set)
    # Names whose object the body changes in place (``x.add_()``, ``x[i] = ...``).
    changed_names: set[str] = field(default_factory=set)
    # Names passed to a plain function (``apply(fn, buf)``): it may write them, as an output.
    passed_to_functions: set[str] = field(default_factory=set)


def chain(node: cst.BaseExpression) -> str | None:
    """``a``, ``a.b.c``; a subscript stands for its container (``a.b[i]`` is ``a.b``)."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = chain(node.value)
        return f"{base}.{node.attr.value}" if base is not None else None
    if isinstance(node, cst.Subscript):
        return chain(node.value)
    return None


def _plain_chain(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` made of names and attributes only."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = _plain_chain(node.value)
        return f"{base}.{node.attr.value}" if base is not None else None
    return None


def _overlap(a: str, b: str) -> bool:
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


class _LoopWrites(cst.CSTVisitor):
    """The names a loop body binds and the objects it writes (see :class:`_Loop`)."""

    def __init__(self, provenance: Provenance, frame: Frame) -> None:
        self.provenance = provenance
        self.frame = frame
        self.summary = _Loop()

    def bind_target(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.summary.bound.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self.bind_target(element.value)
        elif isinstance(target, cst.StarredElement):
            self.bind_target(target.value)
        else:
            self._write(target)

    def _write(self, target: cst.BaseExpression) -> None:
        written = chain(target)
        if written is not None:
            self.summary.written.add(written)
            self.summary.changed_names.add(written.split(".", 1)[0])

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.summary.bound.add(node.name.value)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.summary.bound.add(node.name.value)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self.bind_target(target.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.bind_target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.bind_target(node.target)
        if not isinstance(node.target, cst.Name):
            return
        # ``x += y`` on a tensor or list changes the object in place, too.
        self.summary.changed_names.add(node.target.value)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.bind_target(node.target)

    def visit_For(self, node: cst.For) -> None:
        self.bind_target(node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self.bind_target(node.asname.name)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self.bind_target(node.name.name)

    def visit_Del(self, node: cst.Del) -> None:
        self.bind_target(node.target)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        name = node.asname.name if node.asname is not None else node.name
        if isinstance(name, cst.Name):
            self.summary.bound.add(name.value)
        elif isinstance(name, cst.Attribute):
            root = chain(name)
            if root is not None:
                self.summary.bound.add(root.split(".", 1)[0])

    def visit_Global(self, node: cst.Global) -> None:
        self.summary.bound.update(n.name.value for n in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.summary.bound.update(n.name.value for n in node.names)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "out":
                self._write(arg.value)
        if isinstance(func, cst.Name) and func.value not in PURE_BUILTINS:
            self.summary.passed_to_functions.update(
                arg.value.value for arg in node.args if isinstance(arg.value, cst.Name)
            )
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if (method.endswith("_") and not method.endswith("__")) or method in (MUTATING_METHODS):
                self._write(func.value)
            self._method_writes(func)
        name = func.attr.value if isinstance(func, cst.Attribute) else None
        if isinstance(func, cst.Name):
            name = func.value
        if name is not None and name.endswith("_") and not name.endswith("__"):
            first = first_positional(node)
            if first is not None and not isinstance(func, cst.Attribute):
                self._write(first)  # ``zeros_(w)``
            elif first is not None and self.provenance.qualify(func) is not None:
                self._write(first)  # ``torch.nn.init.zeros_(w)``

    def _method_writes(self, func: cst.Attribute) -> None:
        """``self.m(...)`` of a method of the class: what it assigns to ``self``'s attributes,
        and what it changes in place."""
        frame = self.frame
        if (
            frame.cls is None
            or not isinstance(func.value, cst.Name)
            or func.value.value != frame.self_name
        ):
            return
        method = self.provenance.index.methods.get(frame.cls, {}).get(func.attr.value)
        if method is None:
            return
        inner = _LoopWrites(self.provenance, self.provenance.index.frame_of(method))
        method.body.visit(inner)
        self_name = frame.self_name
        for written in inner.summary.written:
            if written.split(".", 1)[0] == inner.frame.self_name:
                self.summary.written.add(self_name + written[len(inner.frame.self_name) :])


class _Reads(cst.CSTVisitor):
    """The names and attribute chains an expression reads, and whether its calls are pure."""

    def __init__(self, provenance: Provenance | None, frame: Frame | None) -> None:
        self.provenance = provenance
        self.frame = frame
        self.names: set[str] = set()
        self.chains: set[str] = set()
        self.pure = True
        self._root: cst.CSTNode | None = None

    def scan(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.Call) and self._root is None:
            self._root = node
            if isinstance(node.func, cst.Attribute):
                node.func.value.visit(self)
            for arg in node.args:
                arg.value.visit(self)
            return
        node.visit(self)

    def depends_on(self, summary: _Loop) -> bool:
        if self.names & summary.bound:
            return True
        return any(_overlap(r, w) for r in self.chains for w in summary.written)

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)
        self.chains.add(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        found = _plain_chain(node)
        if found is None:
            return True  # ``f(x).attr``, ``x[i].attr``: read what it is made of
        self.chains.add(found)
        self.names.add(found.split(".", 1)[0])
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)
        return False  # a keyword's name is not a read

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        self.pure = False
        return False

    def visit_Call(self, node: cst.Call) -> None:
        if node is self._root or self.provenance is None:
            return
        if not self._pure(node):
            self.pure = False

    def _pure(self, node: cst.Call) -> bool:
        assert self.provenance is not None and self.frame is not None
        func = node.func
        qualified = self.provenance.qualify(func)
        if qualified is not None:
            return qualified in PURE_TORCH or qualified.startswith("math.")
        if isinstance(func, cst.Name):
            return func.value in PURE_BUILTINS and not self.provenance.bindings(self.frame).of(
                func.value
            )
        if isinstance(func, cst.Attribute):
            return func.attr.value in PURE_METHODS
        return False
