from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from h2dlint.analysis.arguments import first_positional, keyword
from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import MAX_DEPTH, Provenance
from h2dlint.analysis.targets import Target
from h2dlint.analysis.torch_api import DTYPE_METHODS, JOINS
from h2dlint.context import SharedKey
from h2dlint.diagnostics import Confidence
from h2dlint.rule import Invalid, Rule, Valid
from h2dlint.walk import visit_read_only

# Shared per file with every rule, each under its own typed key.
_READS: SharedKey[dict[cst.CSTNode, dict[str, int]]] = SharedKey("reads per name")
_IN_PLACE: SharedKey[dict[cst.CSTNode, set[str]]] = SharedKey("names changed in place")

# Methods that only reshape, view, select or convert: no work that needs the device.
RESHAPES = DTYPE_METHODS | frozenset(
    {
        "view",
        "reshape",
        "flatten",
        "squeeze",
        "unsqueeze",
        "permute",
        "transpose",
        "t",
        "contiguous",
        "expand",
        "narrow",
        "select",
        "detach",
        "clone",
    }
)
# Builtins that read a tensor without changing it.
READING_BUILTINS = frozenset({"len", "isinstance", "print", "type", "id", "repr", "str"})
JOIN_NAMES = frozenset(name.rsplit(".", 1)[1] for name in JOINS)
DOWN_METHODS = frozenset({"cpu", "tolist", "item", "to"})
CONVERTERS = frozenset({"torch.tensor", "torch.as_tensor", "torch.asarray"})


@dataclass(frozen=True)
class _Up:
    """A copy to the device that a down copy reads back: the copy, and whether its source is
    proven host memory (else it is one of several per-item copies of unknown items)."""

    call: cst.Call
    proven: bool


class DeviceRoundTrip(Rule):
    """## What it does
    Flags a copy back to the host (`.cpu()`, `.to("cpu")`, `.tolist()`, `.item()`) of a tensor
    that was copied to the device from host memory in the same function with nothing but
    reshapes, views, indexing, dtype conversions and joins (`torch.cat`, `torch.stack`) between:
    `torch.tensor(ids).cuda().tolist()`, `y = x.to(device); ...; y.view(-1).cpu()`, and items
    moved one by one, joined on the device and copied back,
    `torch.cat([p.cuda() for p in parts]).cpu()`. Names are followed through their one reaching
    binding; a name changed in place anywhere in the function stops the trace.

    The up copy's source must be host memory by the provenance analysis (a tensor made on the
    host, Python or numpy data). Items of a per-item join are usually of unknown placement: that
    finding is of medium confidence and says so (if the items are already on the device, their
    `.cuda()` copies nothing and the copy back is needed).

    Left alone, and why:

    - any other operation between the copies (`sum`, `softmax`, a model call, a custom
      function): it may be the device work the copy is for;
    - a source the analysis does not prove on the host (it may be on the device already, where
      `.to(device)` is a no-op and the copy back is the only real copy);
    - a tensor changed in place in the function (`y.add_(1)`, `y[0] = ...`) or rebound between;
    - tensors made on the device (`torch.zeros(n, device="cuda").cpu()`): one copy only.

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
    candidates = (  # a read back, and a copy up (an operand may be indexed: `y[:8].cpu()`)
        "def .cpu|.tolist|.item|.to & def .cuda|.to",
        "def .cpu|.tolist|.item|.to & def .tensor|tensor|.as_tensor|as_tensor|.asarray|asarray"
        "(device=)",
    )

    valid = (
        # device work between the copies
        Valid(
            """
            import torch
            def f(ids):
                return torch.tensor(ids).cuda().sum().item()
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
    )
    invalid = (
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
        if func.attr.value == "to" and provenance.to_target(node, frame) is not Target.HOST:
            return
        if func.attr.value in ("cpu", "tolist", "item") and node.args:
            return
        names: list[str] = []
        ups = _trace(provenance, func.value, frame, set(), 0, names)
        if not ups:
            return
        first = ups[0]
        line = self.context.position(first.call).start.line
        here = self.context.position(node).start.line
        where = "" if line == here else f" (line {line})"
        shared = [n for n in names if _reads(provenance, frame, n) > 1]
        if shared and all(up.proven for up in ups):
            self.report(
                node,
                f"`{shared[0]}` holds a copy to the device{where} of host data, and this copies "
                "it straight back with nothing but reshapes, indexing or joins between: keep "
                "the host tensor (or data) and read it here instead",
            )
            return
        if all(up.proven for up in ups):
            self.report(
                node,
                f"a host tensor is copied to the device{where} and straight back with nothing "
                "but reshapes, indexing or joins between: do them on the host and drop both "
                "copies",
            )
            return
        self.report(
            node,
            f"items are copied to the device one by one{where}, joined there and copied "
            "straight back: join them on the host and drop the copies (certain if the items "
            "are host tensors; if they are on the device already, their copies are no-ops)",
            confidence=Confidence.MEDIUM,
        )


def _trace(
    provenance: Provenance,
    node: cst.BaseExpression,
    frame: Frame,
    seen: set[str],
    depth: int,
    names: list[str],
) -> list[_Up] | None:
    """The up copies that ``node`` is, through reshapes, indexing, joins and names; None when
    anything else is in the way."""
    if depth > MAX_DEPTH:
        return None
    if isinstance(node, cst.Subscript):
        if any(_has_call(element) for element in node.slice):
            return None
        return _trace(provenance, node.value, frame, seen, depth + 1, names)
    if isinstance(node, cst.Name):
        return _through_name(provenance, node, frame, seen, depth, names)
    if not isinstance(node, cst.Call):
        return None
    up = _up_copy(provenance, node, frame)
    if up is not None:
        return [up] if up.proven else None
    func = node.func
    if isinstance(func, cst.Attribute):
        method = func.attr.value
        if method in RESHAPES or (
            method == "to" and provenance.to_target(node, frame) is Target.DTYPE
        ):
            if any(_has_call(arg.value) for arg in node.args):
                return None
            return _trace(provenance, func.value, frame, seen, depth + 1, names)
    if provenance.qualify(func) in JOINS and keyword(node, "out") is None:
        return _join(provenance, node, frame, seen, depth, names)
    return None


def _through_name(
    provenance: Provenance,
    node: cst.Name,
    frame: Frame,
    seen: set[str],
    depth: int,
    names: list[str],
) -> list[_Up] | None:
    if node.value in seen:
        return None
    values = provenance.bindings(frame).reaching(node)
    if len(values) != 1 or values[0] is None:
        return None
    if node.value in _changed_in_place(provenance, frame):
        return None
    names.append(node.value)
    return _trace(provenance, values[0], frame, seen | {node.value}, depth + 1, names)


def _join(
    provenance: Provenance,
    node: cst.Call,
    frame: Frame,
    seen: set[str],
    depth: int,
    names: list[str],
) -> list[_Up] | None:
    items = first_positional(node)
    if isinstance(items, (cst.List, cst.Tuple)) and items.elements:
        found: list[_Up] = []
        for element in items.elements:
            if isinstance(element, cst.StarredElement):
                return None
            inner = _trace(provenance, element.value, frame, seen, depth + 1, names)
            if inner is None:
                return None
            found += inner
        return found
    if isinstance(items, (cst.ListComp, cst.GeneratorExp)) and items.for_in.inner_for_in is None:
        made = items.elt
        if not isinstance(made, cst.Call) or not _moves(provenance, made, frame):
            return None
        source = made.func.value  # type: ignore[attr-defined]
        if not _of_loop_item(source, items.for_in.target):
            return None
        where = provenance.where(source, frame)
        if where is Where.UNKNOWN and isinstance(source, cst.Name):  # the loop variable
            where = provenance.sequence_where(items.for_in.iter, frame)
        if where is Where.DEVICE:
            return None
        return [_Up(made, where.on_host)]
    return None


def _moves(provenance: Provenance, node: cst.Call, frame: Frame) -> bool:
    """``x.cuda()`` or ``x.to(<device>)``."""
    func = node.func
    if not isinstance(func, cst.Attribute):
        return False
    if func.attr.value == "cuda":
        return True
    return func.attr.value == "to" and provenance.to_target(node, frame) is Target.DEVICE


def _up_copy(provenance: Provenance, node: cst.Call, frame: Frame) -> _Up | None:
    """``node`` as a copy to the device, with whether its source is proven host memory."""
    if _moves(provenance, node, frame):
        source = node.func.value  # type: ignore[attr-defined]
        where = provenance.where(source, frame)
        return _Up(node, where.on_host or provenance.is_host_data(source, frame))
    if provenance.qualify(node.func) in CONVERTERS:
        device = keyword(node, "device")
        data = first_positional(node)
        if device is None or data is None:
            return None
        if provenance.device_target(device.value, frame, allocation=True) is not Target.DEVICE:
            return None
        return _Up(node, provenance.is_host_data(data, frame))
    return None


def _of_loop_item(node: cst.BaseExpression, target: cst.BaseExpression) -> bool:
    """``p``, ``p.x`` or ``p[k]`` of a comprehension's loop variable ``p``."""
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        node = node.value
    if not isinstance(node, cst.Name) or not isinstance(target, cst.Name):
        return False
    return node.value == target.value


def _has_call(node: cst.CSTNode) -> bool:
    found = False

    class _Calls(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> bool:
            nonlocal found
            found = True
            return False

    node.visit(_Calls())
    return found


class _InPlace(cst.CSTVisitor):
    """Names a function changes in place: ``x.add_()``, ``x[i] = ...``, ``x += ...``,
    ``out=x``."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def _root(self, node: cst.BaseExpression) -> None:
        while isinstance(node, (cst.Attribute, cst.Subscript)):
            node = node.value
        if isinstance(node, cst.Name):
            self.names.add(node.value)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method.endswith("_") and not method.endswith("__"):
                self._root(func.value)
        out = keyword(node, "out")
        if out is not None:
            self._root(out.value)
        # Passed to a function (``all_reduce(t)``, ``fill(buf)``): it may write the tensor.
        if isinstance(func, cst.Name) and func.value in READING_BUILTINS:
            return
        if isinstance(func, cst.Attribute) and func.attr.value in RESHAPES | JOIN_NAMES:
            return
        for arg in node.args:
            values = (
                [e.value for e in arg.value.elements]
                if isinstance(arg.value, (cst.List, cst.Tuple))
                else [arg.value]
            )
            for value in values:
                if isinstance(value, cst.Name):
                    self.names.add(value.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if isinstance(node.target, (cst.Subscript, cst.Attribute)):
            self._root(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._root(node.target)


class _Names(cst.CSTVisitor):
    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def visit_Name(self, node: cst.Name) -> None:
        self.counts[node.value] = self.counts.get(node.value, 0) + 1

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False


def _reads(provenance: Provenance, frame: Frame, name: str) -> int:
    """How often ``name`` is read in ``frame``'s function (its one binding not counted)."""
    memo = provenance.context.shared(_READS, dict)
    function = frame.function
    if function not in memo:
        collector = _Names()
        visit_read_only(function, collector)
        memo[function] = collector.counts
    return memo[function].get(name, 0) - 1


def _changed_in_place(provenance: Provenance, frame: Frame) -> set[str]:
    memo = provenance.context.shared(_IN_PLACE, dict)
    function = frame.function
    if function not in memo:
        collector = _InPlace()
        visit_read_only(function, collector)
        memo[function] = collector.names
    return memo[function]
