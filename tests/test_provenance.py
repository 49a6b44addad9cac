"""The provenance analysis, probed expression by expression.

Each case is a module in which ``probe(EXPR)`` marks the expression whose fact is asked for.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import libcst as cst
import pytest

from h2dlint.analysis.facts import Fact, Where
from h2dlint.analysis.frames import Frame, method_frame
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.targets import Target
from h2dlint.context import FileContext
from h2dlint.engine import EnabledRule, check_text
from h2dlint.rule import Rule

P, PIN, MAYBE, HOST, DEV, UNK = (
    Where.PAGEABLE,
    Where.PINNED,
    Where.MAYBE_PINNED,
    Where.HOST,
    Where.DEVICE,
    Where.UNKNOWN,
)


class Probe(Rule):
    """## What it does
    Test rule recording the provenance of `probe(...)` arguments."""

    code = "HTD980"
    name = "probe"
    message = "probe"
    facts: ClassVar[list[Fact]] = []
    targets: ClassVar[list[Target]] = []

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value in ("probe", "target"):
            provenance = Provenance.of(self.context)
            frame = provenance.current_frame()
            if node.func.value == "probe":
                type(self).facts.append(provenance.fact(node.args[0].value, frame))
            else:
                type(self).targets.append(provenance.device_target(node.args[0].value, frame))


HEADER = "import torch\nimport numpy as np\nimport numpy\nfrom typing import Optional\n"


def fact_of(code: str, options: tuple[tuple[str, tuple[str, ...]], ...] = ()) -> Fact:
    Probe.facts = []
    findings = check_text(HEADER + code, "m.py", (EnabledRule(Probe),), options)
    assert findings == [], findings
    assert Probe.facts, "no probe(...) in the case"
    return Probe.facts[-1]


def target_of(code: str) -> Target:
    Probe.targets = []
    check_text("import torch\n" + code, "m.py", (EnabledRule(Probe),))
    return Probe.targets[-1]


@pytest.mark.parametrize(
    ("code", "where"),
    [
        # a sampler's normalisations keep the logits' device (and a host tensor's place)
        ("def f(x):\n    probe(torch.log_softmax(x.cuda(), dim=-1))", DEV),
        ("def f(x):\n    probe(torch.nn.functional.softmax(x.cuda(), dim=-1))", DEV),
        ("def f(x):\n    probe(x.cuda().log_softmax(-1))", DEV),
        ("def f(x):\n    probe(torch.logsumexp(x.cuda(), -1))", DEV),
        ("probe(torch.softmax(torch.zeros(4), -1))", P),
        ("def f(x):\n    probe(torch.softmax(x, -1))", UNK),
        # factories and their keywords
        ("probe(torch.tensor([1, 2]))", P),
        ("probe(torch.zeros(4, dtype=torch.int64))", P),
        ("probe(torch.empty(4, pin_memory=True))", PIN),
        ("probe(torch.empty(4, pin_memory=False))", P),
        ("def f(pin):\n    probe(torch.empty(4, pin_memory=pin))", MAYBE),
        (
            "class A:\n    def f(self):\n        probe(torch.empty(4, pin_memory=self.pin_memory))",
            MAYBE,
        ),
        ("probe(torch.zeros(4, device='cuda'))", DEV),
        ("probe(torch.zeros(4, device='cpu'))", P),
        ("probe(torch.zeros(4, device=torch.device('cuda', 1)))", DEV),
        ("def f(device):\n    probe(torch.zeros(4, device=device))", DEV),
        ("def f(d):\n    probe(torch.zeros(4, device=d))", UNK),
        ("probe(torch.from_numpy(np.zeros(3)))", P),
        ("probe(torch.as_tensor([1, 2]))", P),
        ("def f(x):\n    probe(torch.as_tensor(x))", UNK),
        ("def f(rows):\n    data = [r for r in rows]\n    probe(torch.as_tensor(data))", P),
        ("probe(torch.as_tensor(np.arange(3)))", P),
        # joins: where their inputs are (they share a device); unknown inputs, unknown join
        ("import torch as T\nprobe(T.cat([a, b]))", UNK),
        ("from torch import concat\nprobe(concat([a, b]))", UNK),
        ("probe(torch.concatenate([a, b]))", UNK),
        ("import torch as T\nprobe(T.cat([a, T.zeros(2)]))", P),
        ("from torch import concat\nprobe(concat([torch.tensor([1]), b]))", P),
        ("probe(torch.stack([a, torch.ones(2, device='cuda')]))", DEV),
        ("def f(rows):\n    probe(torch.stack([torch.tensor(r) for r in rows]))", P),
        ("def f(xs):\n    probe(torch.stack([x.cuda() for x in xs]))", DEV),
        ("def f(xs):\n    probe(torch.stack([x for x in xs]))", UNK),
        ("def f(xs):\n    probe(torch.cat(xs))", UNK),
        ("def f(n):\n    probe(torch.cat(torch.zeros(n).split(2)))", P),
        ("def f(t):\n    probe(torch.cat(t.chunk(2)))", UNK),
        ("def f(a, b):\n    probe(torch.cat([torch.cat([a, b]), b]))", UNK),
        ("def f(a, b):\n    probe(torch.cat([torch.cat([a.cpu(), b]), b]))", P),
        # ... through names, and lists built with append
        (
            "def f(rows):\n"
            "    parts = [torch.tensor(r) for r in rows]\n"
            "    probe(torch.cat(parts))",
            P,
        ),
        ("def f(xs):\n    parts = [x.cuda() for x in xs]\n    probe(torch.cat(parts))", DEV),
        ("def f(a, b):\n    parts = (a.cuda(), b)\n    probe(torch.stack(parts))", DEV),
        ("def f(a, b):\n    parts = [a, b]\n    probe(torch.stack(parts))", UNK),
        (
            "def f(rows):\n"
            "    parts = []\n"
            "    for r in rows:\n"
            "        parts.append(torch.tensor(r))\n"
            "    probe(torch.cat(parts))",
            P,
        ),
        (
            "def f(rows):\n"
            "    parts = []\n"
            "    for r in rows:\n"
            "        parts.append(r)\n"
            "    probe(torch.cat(parts))",
            UNK,
        ),
        (
            "def f(rows, xs, c):\n"
            "    parts = [torch.tensor(r) for r in rows]\n"
            "    if c:\n"
            "        parts = xs\n"
            "    probe(torch.cat(parts))",
            UNK,
        ),
        # ... and with out=: the buffer
        ("def f(xs):\n    b = torch.empty(8)\n    probe(torch.cat(xs, out=b))", P),
        ("def f(xs):\n    probe(torch.cat(xs, out=torch.empty(8, device='cuda')))", DEV),
        (
            "def f(xs, buf):\n"
            "    b = torch.empty(8, pin_memory=True)\n"
            "    probe(torch.cat(xs, out=b))",
            PIN,
        ),
        ("def f(xs, buf):\n    probe(torch.cat(xs, out=buf))", UNK),
        ("def cat(x): ...\nprobe(cat([a]))", UNK),
        # methods
        ("probe(torch.tensor([1]).pin_memory())", PIN),
        ("def f(x):\n    probe(x.pin_memory())", PIN),
        ("def f(x):\n    probe(x.cuda())", DEV),
        ("def f(x):\n    probe(x.to('cuda:0'))", DEV),
        ("def f(x, device):\n    probe(x.to(device))", DEV),
        ("probe(torch.zeros(2, device='cuda').cpu())", P),
        ("probe(torch.zeros(2, pin_memory=True).cpu())", PIN),
        ("def f(x):\n    probe(x.cpu())", HOST),
        ("probe(torch.zeros(2, pin_memory=True).clone())", P),
        ("probe(torch.zeros(2, pin_memory=True).repeat_interleave(2))", P),
        ("probe(torch.zeros(2, pin_memory=True) + 1)", P),
        ("probe(torch.zeros(2, pin_memory=True).new_empty(3, pin_memory=True))", PIN),
        ("probe(torch.zeros(2, pin_memory=True).new_empty(3))", P),
        ("probe(torch.zeros(2, device='cuda').new_zeros(3))", DEV),
        ("probe(torch.empty_like(torch.zeros(2), pin_memory=True))", PIN),
        ("probe(torch.zeros_like(torch.zeros(2, device='cuda')))", DEV),
        ("probe(torch.zeros(2, pin_memory=True).long())", HOST),
        # local names, conservatively
        ("def f():\n    x = torch.zeros(2)\n    probe(x)", P),
        (
            "def f(c):\n"
            "    x = torch.zeros(2)\n"
            "    if c:\n"
            "        x = x.pin_memory()\n"
            "    probe(x)",
            HOST,
        ),
        # flow: the binding that reaches the use, line by line
        ("def f(c):\n    x = torch.zeros(2)\n    x = x.cuda()\n    probe(x)", DEV),
        ("def f(d):\n    x = torch.zeros(2)\n    x = probe(x).to(d)", P),
        ("def f(c):\n    x = torch.zeros(2)\n    if c:\n        x = x.cuda()\n    probe(x)", UNK),
        (
            "def f(c):\n"
            "    if c:\n"
            "        x = torch.zeros(2)\n"
            "    else:\n"
            "        x = torch.ones(2)\n"
            "    probe(x)",
            P,
        ),
        (
            "def f(xs):\n"
            "    x = torch.zeros(2)\n"
            "    for _ in xs:\n"
            "        probe(x)\n"
            "        x = x.cuda()",
            UNK,
        ),
        (
            "def f(xs):\n"
            "    for _ in xs:\n"
            "        x = torch.zeros(2)\n"
            "        probe(x)\n"
            "    x = x.cuda()",
            P,
        ),
        ("def f(x):\n    probe(x)", UNK),
        ("def f(xs):\n    for x in xs:\n        probe(x)", UNK),
        # an in-place update keeps the tensor where it was (session 16)
        ("def f():\n    x = torch.zeros(2)\n    x += 1\n    probe(x)", P),
        ("def f():\n    x = 0\n    x += torch.zeros(2)\n    probe(x)", UNK),
        ("def f():\n    a, b = torch.zeros(2), torch.ones(2, pin_memory=True)\n    probe(b)", PIN),
        ("def f():\n    a, b = g()\n    probe(b)", UNK),
        # a module-level tensor a function reads, unless some function rebinds it
        ("x = torch.zeros(2)\ndef f():\n    probe(x)", P),
        ("x = torch.zeros(2)\ndef g():\n    global x\n    x = h()\ndef f():\n    probe(x)", UNK),
        ("x = torch.zeros(2)\nx = torch.ones(2).cuda()\ndef f():\n    probe(x)", UNK),
        # comprehension targets and lambda parameters shadow the function's names
        ("def f(xs):\n    x = torch.zeros(2)\n    return [probe(x) for x in xs]", UNK),
        (
            "def f(xs):\n    x = torch.zeros(2, device='cuda')\n    return [probe(x) for x in xs]",
            UNK,
        ),
        ("def f(d):\n    v = torch.zeros(2)\n    return {k: probe(v) for k, v in d.items()}", UNK),
        ("def f(xs):\n    x = torch.zeros(2)\n    return {probe(x) for x in xs}", UNK),
        ("def f(xs):\n    x = torch.zeros(2)\n    return list(probe(x) for _, x in xs)", UNK),
        ("def f(xss):\n    y = torch.zeros(2)\n    return [probe(y) for x in xss for y in x]", UNK),
        ("def f(xs):\n    x = torch.zeros(2)\n    g = lambda x: probe(x)", UNK),
        # ... but not where the comprehension does not bind the name
        ("def f(xs):\n    x = torch.zeros(2)\n    return [probe(x) for _ in xs]", P),
        ("def f(xs):\n    x = torch.zeros(2)\n    return [y for y in probe(x)]", P),
        ("def f(xs):\n    x = torch.zeros(2)\n    return [x for x in probe(x)]", P),
        ("def f():\n    x = torch.zeros(2)\n    g = lambda y=probe(x): y", P),
        ("def f(xs):\n    x = torch.zeros(2)\n    return [[probe(x) for _ in y] for y in xs]", P),
        # a comprehension over a display binds each of its elements
        ("def f(a):\n    return [probe(t) for t in (torch.zeros(2), a.cpu())]", HOST),
        ("def f(a, b):\n    return [probe(t) for t in (a.cuda(), b.cuda())]", DEV),
        ("def f(a, b):\n    return [probe(t) for t in (a.cuda(), b)]", UNK),
        # a walrus in a comprehension binds in the function
        ("def f(xs):\n    ys = [(y := torch.zeros(2)) for _ in xs]\n    probe(y)", P),
        # numpy data converted: a fresh pageable tensor, or a view of a tensor's memory
        ("def f(a: np.ndarray):\n    probe(torch.as_tensor(a))", P),
        ("def f(a: numpy.ndarray):\n    probe(torch.as_tensor(a[1:]))", P),
        ("def f(a: Optional[np.ndarray]):\n    probe(torch.as_tensor(a))", P),
        ("def f(a: np.ndarray | None):\n    probe(torch.asarray(a))", P),
        ("def f(a):\n    probe(torch.as_tensor(a))", UNK),
        (
            "def f(a: np.ndarray):\n"
            "    a = torch.from_numpy(a).cuda()\n"
            "    probe(torch.as_tensor(a))",
            DEV,
        ),
        ("def f(t):\n    probe(torch.as_tensor(t.tolist()))", P),
        ("def f(t):\n    probe(torch.as_tensor(t.numpy()))", HOST),
        ("def f(t):\n    a = t.numpy()\n    probe(torch.as_tensor(a[:2]))", HOST),
        ("def f(t):\n    probe(torch.as_tensor(t.numpy(), device='cuda'))", DEV),
        ("def f():\n    x = torch.zeros(2)\n    def g():\n        probe(x)", UNK),
        # class attributes
        (
            "class B:\n"
            "    def __init__(self, n):\n"
            "        self.buf = torch.zeros(n, dtype=torch.int64, pin_memory=True)\n"
            "    def step(self, n):\n"
            "        probe(self.buf[:n])",
            PIN,
        ),
        (
            "class B:\n"
            "    def __init__(self, n):\n"
            "        self.buf = torch.zeros(n, pin_memory=True)\n"
            "    def grow(self, n):\n"
            "        self.buf = torch.zeros(n)\n"
            "    def step(self):\n"
            "        probe(self.buf)",
            HOST,
        ),
        (
            "class B:\n"
            "    def __init__(self, pin):\n"
            "        self.buf = torch.zeros(8, pin_memory=pin)\n"
            "    def step(self):\n"
            "        probe(self.buf)",
            MAYBE,
        ),
        (
            "class B:\n    def step(self, other):\n        probe(other.buf)",
            UNK,
        ),
        # helpers of the same module
        (
            "def staged(buf, xs):\n"
            "    return torch.cat(xs, out=buf)\n"
            "def make(n):\n"
            "    return torch.empty(n, pin_memory=True)\n"
            "def f(n):\n"
            "    probe(make(n))",
            PIN,
        ),
        (
            "class B:\n"
            "    def _pinned(self, n):\n"
            "        return torch.empty(n, pin_memory=True)[:n]\n"
            "    def step(self, n):\n"
            "        probe(self._pinned(n))",
            PIN,
        ),
        # falling off the end returns None, not a tensor: when it is a tensor, it is pageable
        ("def make(n):\n    if n:\n        return torch.empty(n)\ndef f():\n    probe(make(1))", P),
        (
            "def make(n):\n    if n:\n        return torch.empty(n)\n    return n\nprobe(make(1))",
            UNK,
        ),
        ("def rec(n):\n    return rec(n - 1)\nprobe(rec(3))", UNK),
        # views of pinned memory keep it pinned; advanced indexing makes a pageable copy
        ("def f(n):\n    b = torch.zeros(4, 8, pin_memory=True)\n    probe(b[:, :n])", PIN),
        (
            "def f(idx):\n    b = torch.zeros(8, pin_memory=True)\n    probe(b[torch.tensor(idx)])",
            P,
        ),
        ("b = torch.zeros(8, pin_memory=True)\nprobe(b[[0, 2]])", P),
        ("def f(i):\n    b = torch.zeros(8, pin_memory=True)\n    probe(b[i])", HOST),
        # a tensor converted with as_tensor/asarray/tensor stays on its device, with a dtype too
        ("def f(r):\n    g = r.cuda()\n    probe(torch.as_tensor(g[0], dtype=torch.long))", DEV),
        ("def f(r):\n    g = r.cuda()\n    probe(torch.asarray(g, dtype=torch.int32))", DEV),
        ("def f(r):\n    g = r.cuda()\n    probe(torch.tensor(g))", DEV),
        ("def f(r):\n    g = r.cpu()\n    probe(torch.as_tensor(g, dtype=torch.long))", HOST),
        ("def f(r):\n    probe(torch.as_tensor(r, dtype=torch.long))", UNK),
        ("def f(r):\n    probe(torch.as_tensor([1, 2], dtype=torch.long))", P),
        ("def f(r):\n    probe(torch.as_tensor(r, dtype=torch.long, device='cuda'))", DEV),
        # a non-blocking copy of a device tensor to the host is pinned; a blocking one is not
        ("def f(r):\n    probe(r.cuda().to('cpu', non_blocking=True))", PIN),
        ("def f(r):\n    probe(r.cuda().to('cpu'))", P),
        # rows of a tensor iterated by a loop or a comprehension are where the tensor is, also
        # through zip() and enumerate(); items of lists, numbers and unknown iterables are not
        ("def f(x):\n    for row in x.cpu():\n        probe(row)", HOST),
        ("def f(x):\n    h = x.cuda()\n    for i, row in enumerate(h):\n        probe(row)", DEV),
        ("def f(p, n):\n    return [probe(r[:m]) for r, m in zip(p.cpu(), n.cpu())]", HOST),
        ("def f(p, n):\n    return [probe(m) for r, m in zip(p, n.cuda())]", DEV),
        ("def f(p, n):\n    return [probe(r) for r, m in zip(p, n.cuda())]", UNK),
        ("def f(x):\n    return [probe(v) for v in x.cpu().tolist()]", UNK),
        ("def f(xs):\n    for x in xs:\n        probe(x)", UNK),
        ("def f(x):\n    for i in range(x.cpu().shape[0]):\n        probe(i)", UNK),
        # a helper's return is known however deep the question that asks for it
        (
            "def ids(patches, width):\n"
            "    out = []\n"
            "    for p in patches:\n"
            "        h, w = p.shape[-2:]\n"
            "        mesh = torch.meshgrid(torch.arange(h), torch.arange(w), indexing='ij')\n"
            "        hg, vg = torch.stack(mesh, dim=-1).reshape(-1, 2).chunk(2, -1)\n"
            "        grid = hg * width + vg\n"
            "        out.append(grid[:, 0])\n"
            "    return torch.cat(out)\n"
            "def f(patches):\n"
            "    a = ids(patches, 16)\n"
            "    b = a.unsqueeze(0)\n"
            "    probe(b)",
            P,
        ),
    ],
)
def test_where(code: str, where: Where) -> None:
    assert fact_of(code).where is where


@pytest.mark.parametrize(
    ("index", "contiguous"),
    [
        ("b[:n]", True),
        ("b[0]", True),
        ("b[2, :n]", True),
        ("b[:n, :]", True),
        ("b[:]", True),
        ("b[:, :n]", False),
        ("b[..., 1:3]", False),
        ("b[::2]", False),
        ("b[:, 0]", False),
        ("b.T", False),
        ("b.mT", False),
        ("b.t()", False),
        ("b.transpose(0, 1)", False),
        ("b.permute(1, 0)", False),
        ("b.narrow(0, 0, n)", True),
        ("b.narrow(1, 0, n)", False),
        ("b.view(-1)", True),
        ("b[:, :n].contiguous()", True),
    ],
)
def test_views_of_a_pinned_buffer(index: str, contiguous: bool) -> None:
    fact = fact_of(f"def f(n):\n    b = torch.zeros(4, 8, pin_memory=True)\n    probe({index})")
    assert fact.contiguous is contiguous
    if index.endswith(".contiguous()"):
        assert fact.where is P and fact.fresh  # a copy of a strided view is a fresh tensor
    else:
        assert fact.where is PIN and fact.fresh is False


@pytest.mark.parametrize(
    ("annotation", "fresh"),
    [("torch.Tensor", True), ("torch.LongTensor", True), ("int", False), ("", False)],
)
def test_a_pinned_buffer_indexed_by_a_tensor_parameter(annotation: str, fresh: bool) -> None:
    """``b[order]`` of ``order: torch.Tensor`` gathers into a fresh pageable tensor (session 25,
    variants25c); an int picks a row (a view), and an unannotated index proves nothing."""
    typed = f"order: {annotation}" if annotation else "order"
    fact = fact_of(
        f"def f({typed}):\n    b = torch.zeros(4, 8, pin_memory=True)\n    probe(b[order])"
    )
    if fresh:
        assert fact.where is P and fact.fresh
    else:
        assert not fact.fresh


def test_an_entry_of_a_dict_display_by_its_key() -> None:
    """``d["key"]`` of a dict display (a local, or ``self.d`` set once) is the value it names
    (session 25, variants25c); another key, or a dict bound twice, proves nothing."""
    code = "def f(n):\n    d = {{'a': torch.zeros(4, pin_memory=True), 'b': 1}}\n    probe({})"
    assert fact_of(code.format("d['a']")).where is PIN
    assert not fact_of(code.format("d['c']")).known
    cls = (
        "class B:\n    def __init__(self):\n"
        "        self.h = {'a': torch.zeros(4, pin_memory=True)}\n"
        "    def g(self):\n        probe(self.h['a'][:2])\n"
    )
    assert fact_of(cls).where is PIN


def test_configured_pinned_helpers_and_attributes() -> None:
    options = (("pinned-attributes", ("staging",)), ("pinned-helpers", ("get_pinned",)))
    assert fact_of("def f(s):\n    probe(s.staging)", options).where is PIN
    assert fact_of("def f(n):\n    probe(get_pinned(n))", options).where is PIN
    assert fact_of("def f(s):\n    probe(s.staging)").where is UNK


@pytest.mark.parametrize(
    ("code", "target"),
    [
        ("target('cuda')", Target.DEVICE),
        ("target('cuda:1')", Target.DEVICE),
        ("target('cpu')", Target.HOST),
        ("target('meta')", Target.HOST),
        ("target(0)", Target.DEVICE),
        ("target(torch.device('cuda', 0))", Target.DEVICE),
        ("target(torch.device('cpu'))", Target.HOST),
        ("target(torch.float16)", Target.DTYPE),
        ("def f(device):\n    target(device)", Target.DEVICE),
        ("def f(dtype):\n    target(dtype)", Target.DTYPE),
        ("def f(cpu_device):\n    target(cpu_device)", Target.HOST),
        ("def f(x):\n    target(x)", Target.UNKNOWN),
        ("def f():\n    d = 'cpu'\n    target(d)", Target.HOST),
        ("def f(rank):\n    d = torch.device('cuda', rank)\n    target(d)", Target.DEVICE),
        ("def f(i):\n    target(f'cuda:{i}')", Target.DEVICE),
        (
            "class M:\n"
            "    def __init__(self):\n"
            "        self.device = torch.device('cpu')\n"
            "    def f(self):\n"
            "        target(self.device)",
            Target.HOST,
        ),
        ("def f(x):\n    target(x.device)", Target.DEVICE),
        # an offload device is the host
        ("def f(offload_device):\n    target(offload_device)", Target.HOST),
        ("def f(cpu_offload_device):\n    target(cpu_offload_device)", Target.HOST),
        ("class M:\n    def f(self):\n        target(self.offload_device)", Target.HOST),
        ("class M:\n    def f(self):\n        target(self.offload_device_map)", Target.HOST),
        ("class M:\n    def f(self):\n        target(self.onload_device)", Target.DEVICE),
        (
            "class M:\n"
            "    def __init__(self):\n"
            "        self.offload_device = torch.device('cuda', 1)\n"
            "    def f(self):\n"
            "        target(self.offload_device)",
            Target.DEVICE,
        ),
        # a parameter's default: one that contradicts the name leaves it unproven (None does
        # not, for a copy: x.to(None) copies nothing; see test_allocation_defaults)
        ("def f(x, device=None):\n    target(device)", Target.DEVICE),
        ("def f(x, d=None):\n    target(d)", Target.UNKNOWN),
        ("def f(x, device='cpu'):\n    target(device)", Target.UNKNOWN),
        ("def f(x, *, device: str = 'cpu'):\n    target(device)", Target.UNKNOWN),
        ("def f(x, device=torch.device('cpu')):\n    target(device)", Target.UNKNOWN),
        ("def f(x, device='cuda'):\n    target(device)", Target.DEVICE),
        ("def f(x, device=0):\n    target(device)", Target.DEVICE),
        ("def f(x, device=DEFAULT_DEVICE):\n    target(device)", Target.DEVICE),
        ("def f(x, d='cuda'):\n    target(d)", Target.UNKNOWN),
        ("def f(x, cpu_device='cpu'):\n    target(cpu_device)", Target.HOST),
        ("def f(x, dtype=None):\n    target(dtype)", Target.DTYPE),
        # ... only while the parameter is what reaches the use
        (
            "def f(x, device=None):\n    device = device or 'cuda'\n    target(device)",
            Target.DEVICE,
        ),
        ("def f(x, device=None):\n    device = 'cpu'\n    target(device)", Target.HOST),
        # a comprehension's own name, not the function's
        ("def f(xs, ds):\n    d = 'cpu'\n    return [target(d) for d in ds]", Target.UNKNOWN),
        (
            "def f(xs, ds):\n    device = 'cpu'\n    return [target(device) for device in ds]",
            Target.DEVICE,
        ),
        ("def f(xs):\n    return [target(d) for d in ('cuda:0', 'cuda:1')]", Target.DEVICE),
    ],
)
def test_device_targets(code: str, target: Target) -> None:
    assert target_of(code) is target


@pytest.mark.parametrize(
    ("code", "where"),
    [
        # a factory given device=None allocates on the CPU: a None default proves nothing
        ("def f(n, device=None):\n    probe(torch.zeros(n, device=device))", UNK),
        ("def f(n, device='cpu'):\n    probe(torch.zeros(n, device=device))", UNK),
        ("def f(n, device='cuda'):\n    probe(torch.zeros(n, device=device))", DEV),
        ("def f(n, device):\n    probe(torch.zeros(n, device=device))", DEV),
        (
            "def f(n, device=None):\n"
            "    device = device or 'cuda'\n"
            "    probe(torch.zeros(n, device=device))",
            DEV,
        ),
        # x.to(None) is x: a copy to a None-defaulting device parameter is to the device
        ("def f(x, device=None):\n    probe(x.to(device))", DEV),
        ("def f(x, device='cpu'):\n    probe(x.to(device))", UNK),
    ],
)
def test_allocation_defaults(code: str, where: Where) -> None:
    assert fact_of(code).where is where


PINNED_B = "def f(n):\n    b = torch.zeros(4, 8, pin_memory=True)\n"


@pytest.mark.parametrize(
    ("code", "where", "contiguous"),
    [
        (
            PINNED_B + "    probe(torch.narrow(b, 1, 0, n))",
            PIN,
            False,
        ),
        (
            PINNED_B + "    probe(torch.narrow(b, 0, 0, n))",
            PIN,
            True,
        ),
        (
            PINNED_B + "    probe(torch.transpose(b, 0, 1))",
            PIN,
            False,
        ),
        (
            "class B:\n"
            "    def __init__(self):\n"
            "        self.host = None\n"
            "    def offload(self, x):\n"
            "        self.host = x.cpu().pin_memory()\n"
            "    def reload(self):\n"
            "        probe(self.host)",
            PIN,
            True,
        ),
        ("def f(c):\n    x = None\n    if c:\n        x = torch.zeros(2)\n    probe(x)", P, True),
    ],
)
def test_function_views_and_none(code: str, where: Where, contiguous: bool) -> None:
    fact = fact_of(code)
    assert (fact.where, fact.contiguous) == (where, contiguous)


# -- memoisation: the same answers, in any order ----------------------------------------------
CHAIN = "".join(f"    x{i + 1} = x{i}\n" for i in range(16))
MEMO_CASES = [
    # a chain of names deeper than the depth limit
    "def f():\n    x0 = torch.zeros(2, pin_memory=True)\n" + CHAIN + "    y = x16.cuda()\n",
    # cycles between attributes, and between helpers
    "class A:\n"
    "    def __init__(self):\n"
    "        self.a = self.b[:2]\n"
    "        self.b = self.a.pin_memory() if c else torch.zeros(2)\n"
    "        self.c = torch.cat([self.a, self.b])\n"
    "    def f(self):\n"
    "        return self.c.to('cuda', non_blocking=True), self.helper()\n"
    "    def helper(self):\n"
    "        return self.f()[0].cpu()\n",
    # a fact computed inside a cycle differs from the same fact asked afterwards
    "class B:\n"
    "    def __init__(self):\n"
    "        self.a = torch.zeros(2)\n"
    "    def m(self):\n"
    "        self.b = self.a + torch.ones(2)\n"
    "    def n(self):\n"
    "        self.a = self.b\n",
    "def f(n):\n    return g(n).cuda() if n else torch.zeros(n)\n"
    "def g(n):\n    return f(n - 1)[1:]\n"
    "def h(n):\n    a = f(n)\n    b = g(n)\n    return torch.stack([a, b, torch.ones(2)])\n",
]


def _expressions(module: cst.Module) -> list[tuple[cst.BaseExpression, Frame]]:
    found: list[tuple[cst.BaseExpression, Frame]] = []
    frames = [Frame(module)]
    classes: list[cst.ClassDef | None] = [None]

    class Walk(cst.CSTVisitor):
        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            classes.append(node)

        def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
            classes.pop()

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            frames.append(method_frame(node, classes[-1]))
            classes.append(None)

        def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
            frames.pop()
            classes.pop()

        def on_visit(self, node: cst.CSTNode) -> bool:
            if isinstance(node, cst.BaseExpression):
                found.append((node, frames[-1]))
            return super().on_visit(node)

    module.visit(Walk())
    return found


def _memo_sources() -> list[str]:
    root = Path(__file__).resolve().parents[1]
    files = sorted((root / "fixtures").glob("*/*.py")) + sorted((root / "examples").glob("*.py"))
    return [HEADER + code for code in MEMO_CASES] + [f.read_text() for f in files]


@pytest.mark.parametrize("order", ["forward", "backward"])
def test_memoised_facts_are_the_facts(order: str) -> None:
    """Every expression of the cases, fixtures and examples has the same fact whether facts are
    memoised or not, asked in source order or backwards."""
    for code in _memo_sources():
        module = cst.parse_module(code)
        context = FileContext("m.py", code, module)
        plain = Provenance(context, memoise=False)
        memo = Provenance(FileContext("m.py", code, module))
        nodes = _expressions(module)
        if order == "backward":
            nodes.reverse()
        for node, frame in nodes:
            assert memo.fact(node, frame) == plain.fact(node, frame), module.code_for_node(node)


def test_facts_are_memoised() -> None:
    code = HEADER + "def f(xs):\n    a = torch.zeros(2)\n    b = a + a\n    c = b * b\n    y = c\n"
    module = cst.parse_module(code)
    provenance = Provenance(FileContext("m.py", code, module))
    y = _expressions(module)[-1]
    calls = 0
    compute = provenance._compute

    def counting(*args: object) -> Fact:
        nonlocal calls
        calls += 1
        return compute(*args)  # type: ignore[arg-type]

    provenance._compute = counting  # type: ignore[method-assign]
    first = provenance.fact(*y)
    once = calls
    assert provenance.fact(*y) == first == Fact(P, True, True)
    assert calls == once  # the second answer is the memoised one


@pytest.mark.parametrize(
    ("code", "where"),
    [
        # every call of the helper passes a fresh host tensor / a device tensor
        (
            "def helper(x):\n    probe(x)\ndef step(ids):\n    return helper(torch.tensor(ids))\n",
            P,
        ),
        (
            "def helper(x, scale=2):\n    probe(x)\n"
            "def a(n):\n    return helper(torch.ones(n, device='cuda'))\n"
            "def b(n):\n    return helper(x=torch.zeros(n, device='cuda'), scale=3)\n",
            DEV,
        ),
        # a method through `self`, the default when a call leaves the parameter out
        (
            "PINNED = torch.empty(8, pin_memory=True)\n"
            "class R:\n    def _stage(self, n, buf=PINNED):\n        probe(buf)\n"
            "    def step(self, n):\n        return self._stage(n)\n",
            PIN,
        ),
        # calls disagree; a callback use; `*args`; no call at all; another module may call it
        (
            "def helper(x):\n    probe(x)\n"
            "def a(ids):\n    return helper(torch.tensor(ids))\n"
            "def b(n):\n    return helper(torch.ones(n, device='cuda'))\n",
            UNK,
        ),
        (
            "def helper(x):\n    probe(x)\n"
            "def a(ids, xs):\n    helper(torch.tensor(ids))\n    return list(map(helper, xs))\n",
            UNK,
        ),
        (
            "def helper(x):\n    probe(x)\n"
            "def a(ids, rest):\n    return helper(*rest), helper(torch.tensor(ids))\n",
            UNK,
        ),
        ("def helper(x):\n    probe(x)\n", UNK),
        # a recursive helper: its own call passes the parameter on
        (
            "def helper(x, n):\n    probe(x)\n    return helper(x, n - 1) if n else x\n"
            "def a(ids):\n    return helper(torch.tensor(ids), 3)\n",
            P,
        ),
    ],
)
def test_parameters_from_calls(code: str, where: Where) -> None:
    assert fact_of(code).where is where


@pytest.mark.parametrize(
    ("code", "where"),
    [
        # an item of a list of tensors: where they are (pinned or not, unsaid)
        (
            "def f(n):\n"
            "    xs = [torch.empty(n, pin_memory=True) for _ in range(4)]\n"
            "    for x in xs:\n"
            "        probe(x)",
            PIN,  # session 27: the items' own fact, pinned
        ),
        (
            "def f(rows):\n"
            "    xs = []\n"
            "    for r in rows:\n"
            "        xs.append(torch.tensor(r))\n"
            "    for x in xs:\n"
            "        probe(x)",
            P,
        ),
        # a list a class keeps: assigned in __init__, or grown there with .append
        (
            "class C:\n"
            "    def __init__(self, n):\n"
            "        self.bufs = [torch.zeros(n, device='cuda') for _ in range(2)]\n"
            "    def g(self):\n"
            "        for b in self.bufs:\n"
            "            probe(b)",
            DEV,
        ),
        (
            "class C:\n"
            "    def __init__(self, views, n):\n"
            "        self.host = []\n"
            "        for v in views:\n"
            "            self.host.append(torch.empty(n, pin_memory=True))\n"
            "        self.views = views\n"
            "    def g(self):\n"
            "        for h, v in zip(self.host, self.views):\n"
            "            probe(h)",
            PIN,
        ),
        # the other target of the zip, a list of unknown tensors: unknown
        (
            "class C:\n"
            "    def __init__(self, views, n):\n"
            "        self.host = [torch.empty(n, pin_memory=True)]\n"
            "        self.views = views\n"
            "    def g(self):\n"
            "        for h, v in zip(self.host, self.views):\n"
            "            probe(v)",
            UNK,
        ),
        # another method appends device tensors too: the list is mixed, so unknown
        (
            "class C:\n"
            "    def __init__(self, n):\n"
            "        self.bufs = []\n"
            "        self.bufs.append(torch.empty(n, pin_memory=True))\n"
            "    def grow(self, n):\n"
            "        self.bufs.append(torch.empty(n, device='cuda'))\n"
            "    def g(self):\n"
            "        for b in self.bufs:\n"
            "            probe(b)",
            UNK,
        ),
    ],
)
def test_items_of_known_lists(code: str, where: Where) -> None:
    assert fact_of(code).where is where


@pytest.mark.parametrize(
    ("code", "where"),
    [
        # a numpy array by the helper's fixed-length tuple annotation: on the host
        (
            "class A:\n"
            "    def _d(self, b) -> tuple[np.ndarray, np.ndarray]:\n"
            "        return g(b)\n"
            "    def f(self, b):\n"
            "        p, s = self._d(b)\n"
            "        probe(p)",
            HOST,
        ),
        # ... joined with the display of the other branch (numpy arrays too)
        (
            "class A:\n"
            "    def _d(self, b) -> tuple[np.ndarray, np.ndarray]:\n"
            "        return g(b)\n"
            "    def f(self, b):\n"
            "        p, _ = self._d(b) if len(b) > 0 else (np.zeros(3), np.zeros(3))\n"
            "        probe(p)",
            HOST,
        ),
        # every return a display of the same length: each name its position's fact
        (
            "def h(n):\n"
            "    return torch.arange(n, device='cuda'), torch.ones(n)\n"
            "def f(n):\n"
            "    a, b = h(n)\n"
            "    probe(a)",
            DEV,
        ),
        (
            "def h(n):\n"
            "    return torch.arange(n, device='cuda'), torch.ones(n)\n"
            "def f(n):\n"
            "    (a, b) = h(n)\n"
            "    probe(b)",
            P,
        ),
        # a returned name bound only to a display
        (
            "def h(n):\n    out = (torch.ones(n).cuda(), None)\n    return out\n"
            "def f(n):\n    a, b = h(n)\n    probe(a)",
            DEV,
        ),
        # returns that disagree at the position, a mismatched length, a starred target,
        # `tuple[X, ...]`, an annotation of another length, a tensor annotation (no place)
        (
            "def h(n):\n    if n:\n        return torch.ones(n).cuda(), 1\n"
            "    return torch.zeros(n), 2\n"
            "def f(n):\n    a, b = h(n)\n    probe(a)",
            UNK,
        ),
        (
            "def h(n):\n    return torch.arange(n, device='cuda'), torch.ones(n)\n"
            "def f(n):\n    a, b, c = h(n)\n    probe(a)",
            UNK,
        ),
        (
            "def h(n):\n    return torch.arange(n, device='cuda'), torch.ones(n)\n"
            "def f(n):\n    a, *b = h(n)\n    probe(a)",
            UNK,
        ),
        (
            "def h(n) -> tuple[np.ndarray, ...]:\n    return g(n)\n"
            "def f(n):\n    a, b = h(n)\n    probe(a)",
            UNK,
        ),
        (
            "def h(n) -> tuple[np.ndarray, np.ndarray, int]:\n"
            "    return np.zeros(n), np.zeros(n)\n"
            "def f(n):\n    a, b = h(n)\n    probe(a)",
            UNK,
        ),
        (
            "def h(n) -> tuple[torch.Tensor, list[int]]:\n    return g(n)\n"
            "def f(n):\n    a, b = h(n)\n    probe(a)",
            UNK,
        ),
        # a call of something the project does not define
        ("def f(n):\n    a, b = g(n)\n    probe(a)", UNK),
        # the outputs of torch's modules: on the module's device, as `self.rnn(x)[0]` is
        (
            "class M(torch.nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.rnn = torch.nn.LSTM(4, 4)\n"
            "    def forward(self, x):\n"
            "        out, state = self.rnn(x)\n"
            "        probe(out)",
            DEV,
        ),
        # a module of the project: what its forward returns at the position (a host count)
        (
            "class E(torch.nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.proj = torch.nn.Linear(4, 4)\n"
            "    def forward(self, x):\n"
            "        return self.proj(x), torch.tensor([x.shape[0]])\n"
            "class M(torch.nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.enc = E()\n"
            "    def forward(self, x):\n"
            "        h, n = self.enc(x)\n"
            "        probe(n)",
            P,
        ),
        # ... and a position it does not know (a parameter passed through): unknown
        (
            "class E(torch.nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.proj = torch.nn.Linear(4, 4)\n"
            "    def forward(self, x, lengths):\n"
            "        return self.proj(x), lengths\n"
            "class M(torch.nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.enc = E()\n"
            "    def forward(self, x, lengths):\n"
            "        h, n = self.enc(x, lengths)\n"
            "        probe(n)",
            UNK,
        ),
        # an object that is no module
        (
            "class S:\n"
            "    def __init__(self):\n"
            "        self.tok = object()\n"
            "    def f(self, x):\n"
            "        a, b = self.tok(x)\n"
            "        probe(a)",
            UNK,
        ),
    ],
)
def test_names_unpacked_from_a_call(code: str, where: Where) -> None:
    assert fact_of(code).where is where
