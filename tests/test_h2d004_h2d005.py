"""HTD201 and HTD104 fixes, run: each snippet is executed as written and as fixed, on the CPU,
and the results must be identical (values, Python types, tensor dtypes and shapes)."""

from __future__ import annotations

from typing import Any

import pytest

from h2dlint.engine import EnabledRule, check_text
from h2dlint.fixer import fix_text
from h2dlint.registry import all_rules

torch = pytest.importorskip("torch", reason="running the fixes needs torch")


def _fixed(code: str, rule_code: str) -> str:
    rule = (EnabledRule(all_rules()[rule_code]),)
    assert rule_code in [f.code for f in check_text(code, "snippet.py", rule)], code
    fixed = fix_text(code, "snippet.py", rule, unsafe=True).text
    assert fixed != code, f"{rule_code} offered no fix for:\n{code}"
    assert check_text(fixed, "snippet.py", rule) == [], fixed
    return fixed


def _run(code: str, *args: Any) -> Any:
    namespace: dict[str, Any] = {}
    exec(compile(code, "snippet.py", "exec"), namespace)
    return namespace["f"](*args)


def _same(a: Any, b: Any) -> None:
    if isinstance(a, torch.Tensor):
        assert isinstance(b, torch.Tensor)
        assert (a.dtype, a.shape, a.device) == (b.dtype, b.shape, b.device)
        assert torch.equal(a, b)
        return
    assert type(a) is type(b), (a, b)
    if isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same(x, y)
    else:
        assert a == b


# -- HTD201 ---------------------------------------------------------------------------------------

ROW_REDUCTIONS = [
    "import torch\n"
    "def f(grid: torch.Tensor):\n    return [int(torch.prod(r).item()) for r in grid]\n",
    "import torch\ndef f(grid: torch.Tensor):\n    return [torch.prod(r).item() for r in grid]\n",
    "import torch\ndef f(grid: torch.Tensor):\n    return [r.prod().item() for r in grid]\n",
    "import torch\ndef f(grid: torch.Tensor):\n    return [r.sum().item() for r in grid]\n",
    "import torch\ndef f(grid: torch.Tensor):\n    return [int(torch.sum(r)) for r in grid]\n",
    "import torch as T\ndef f(grid: T.Tensor):\n    return [int(T.prod(r)) for r in grid]\n",
    "import math\nimport torch\n"
    "def f(grid: torch.Tensor):\n    return [math.prod(r) for r in grid.tolist()]\n",
    "import torch\ndef f(grid: torch.Tensor):\n    return [sum(r) for r in grid.cpu().tolist()]\n",
    "import torch\n"
    "def f(grid: torch.Tensor):\n    return [t * h * w for t, h, w in grid.tolist()]\n",
    "import torch\n"
    "def f(grid):\n    return [h + t + w for t, h, w in grid.detach().cpu().tolist()]\n",
    "import functools\nimport operator\nimport torch\n"
    "def f(grid: torch.Tensor):\n"
    "    return [functools.reduce(operator.mul, r) for r in grid.tolist()]\n",
    "from functools import reduce\nimport torch\n"
    "def f(grid: torch.Tensor):\n"
    "    return [reduce(lambda a, b: a * b, r) for r in grid.tolist()]\n",
]


def _grids() -> list[Any]:
    generator = torch.Generator().manual_seed(0)
    grid = torch.randint(1, 64, (64, 3), generator=generator)
    return [
        grid,
        grid.to(torch.int32),
        grid.to(torch.int16),
        grid[:, :2].contiguous(),  # (h, w) rows
        torch.zeros((0, 3), dtype=torch.int64),  # no images
        grid > 30,  # bool rows
    ]


@pytest.mark.parametrize("code", ROW_REDUCTIONS)
def test_h2d004_fix_gives_the_same_python_ints(code: str) -> None:
    fixed = _fixed(code, "HTD201")
    assert "dim=-1).tolist()" in fixed
    unpacks = " for t, h, w in " in code
    for grid in _grids():
        if unpacks and grid.shape[1] != 3:
            continue
        _same(_run(code, grid), _run(fixed, grid))


def test_h2d004_fix_is_one_sync_for_the_fixture_grid() -> None:
    """The vectorised form reads the device once: torch.prod over rows then one .tolist()."""
    code = ROW_REDUCTIONS[0]
    fixed = _fixed(code, "HTD201")
    assert "return torch.prod(grid, dim=-1).tolist()" in fixed
    assert fixed.count(".tolist()") == 1 and ".item()" not in fixed


def test_h2d004_float_rows_are_why_the_fix_is_unsafe() -> None:
    """Documented hazard: for a floating tensor, a Python product of .tolist() values (float64)
    and a float32 product on the tensor differ."""
    code = ROW_REDUCTIONS[6]  # math.prod over .tolist()
    fixed = _fixed(code, "HTD201")
    grid = torch.tensor([[1.1, 2.3, 3.7], [0.1, 0.2, 0.3]], dtype=torch.float32)
    assert _run(code, grid) != _run(fixed, grid)


# -- HTD104 ---------------------------------------------------------------------------------------

JOINS = [
    "import torch\ndef f(xs, device):\n    return torch.cat(xs).to(device, non_blocking=True)\n",
    "import torch\n"
    "def f(xs, device):\n    return torch.cat(xs, dim=0).to(device, non_blocking=True)\n",
    "import torch\ndef f(xs, device):\n    return torch.cat(xs, 0).to(device, non_blocking=True)\n",
    "import torch\ndef f(xs, device):\n    return torch.concat(xs).to(device, non_blocking=True)\n",
    "import torch\n"
    "def f(xs, device):\n"
    "    return torch.concatenate(xs, axis=0).to(device, non_blocking=True)\n",
    "import torch as T\ndef f(xs, device):\n    return T.stack(xs).to(device, non_blocking=True)\n",
    "import torch\n"
    "def f(xs, device):\n    return torch.stack(xs, dim=0).to(device, non_blocking=True)\n",
    "import torch\ndef f(xs, device):\n    return torch.cat(xs).pin_memory()\n",
    "import torch\n"
    "def f(xs, device):\n"
    "    x = torch.cat(xs)\n"
    "    x = x.to(device, non_blocking=True)\n"
    "    return x\n",
    "import torch\n"
    "def f(xs, device):\n"
    "    n = sum(x.shape[0] for x in xs)\n"
    "    gpu_buf = torch.empty(n, *xs[0].shape[1:], dtype=xs[0].dtype, device=device)\n"
    "    gpu_buf.copy_(torch.cat(xs), non_blocking=True)\n"
    "    return gpu_buf\n",
]


def _sequences(stack: bool) -> list[Any]:
    generator = torch.Generator().manual_seed(1)
    if stack:
        return [
            [torch.randint(0, 100, (5,), generator=generator) for _ in range(4)],
            (torch.randn(2, 3, generator=generator), torch.randn(2, 3, generator=generator)),
            [torch.arange(6, dtype=torch.int32).view(2, 3)],
        ]
    return [
        [torch.randint(0, 100, (n,), generator=generator) for n in (3, 0, 7)],
        [torch.randint(0, 100, (n, 3), generator=generator) for n in (2, 5)],
        (torch.randn(1, 2, 2, generator=generator), torch.randn(4, 2, 2, generator=generator)),
        [torch.arange(4, dtype=torch.int16)],
        [torch.ones(2, 3, dtype=torch.bool), torch.zeros(1, 3, dtype=torch.bool)],
    ]


def _on_cpu(fixed: str) -> str:
    """The fixed code with pinning off: the CPU cannot pin (that the fix needs CUDA is one of the
    reasons it is unsafe); everything else runs as fixed."""
    assert "pin_memory=True" in fixed
    return fixed.replace("pin_memory=True", "pin_memory=False").replace(".pin_memory()", "")


@pytest.mark.parametrize("code", JOINS)
def test_h2d005_fix_gives_the_same_tensor(code: str) -> None:
    fixed = _fixed(code, "HTD104")
    assert "out=" in fixed
    if ".pin_memory()" in code.split("return")[-1]:
        assert ".pin_memory()" not in fixed, "the fix replaces the pinning copy"
    runnable = _on_cpu(fixed)
    original = code.replace(".pin_memory()", "")
    stack = "stack(" in code
    for xs in _sequences(stack):
        _same(_run(original, xs, torch.device("cpu")), _run(runnable, xs, torch.device("cpu")))


def test_h2d005_fix_does_not_touch_the_sequence_argument_twice_for_generators() -> None:
    """torch.cat accepts only a list or tuple, so re-reading the named sequence to size the
    buffer cannot consume a generator: a generator fails before the fix and after it."""
    with pytest.raises(TypeError):
        torch.cat(x for x in [torch.ones(1)])


def test_h2d005_mixed_dtypes_are_why_the_fix_is_unsafe() -> None:
    """Documented hazard: torch.cat promotes mixed dtypes; with out= of the first tensor's dtype
    it casts down silently (int32 then int64), or raises (int64 then float32)."""
    fixed = _on_cpu(_fixed(JOINS[0], "HTD104"))
    cpu = torch.device("cpu")
    narrow_first = [torch.tensor([1], dtype=torch.int32), torch.tensor([2**40])]
    assert _run(JOINS[0], narrow_first, cpu).dtype == torch.int64
    assert _run(fixed, narrow_first, cpu).dtype == torch.int32
    with pytest.raises((RuntimeError, TypeError)):
        _run(fixed, [torch.tensor([1]), torch.tensor([0.5])], cpu)


def test_h2d005_autograd_is_why_the_fix_is_unsafe() -> None:
    fixed = _on_cpu(_fixed(JOINS[0], "HTD104"))
    xs = [torch.ones(2, requires_grad=True), torch.ones(3)]
    _run(JOINS[0], xs, torch.device("cpu"))
    with pytest.raises(RuntimeError, match="out="):
        _run(fixed, xs, torch.device("cpu"))
