"""The analysis facts behind the false alarms of session 12's precision triage (docs/precision.md,
seed 1213: trl, verl, openrlhf, hqq, fairseq2): each look-alike the analysis must now tell
apart, and its true twin."""

from __future__ import annotations

import textwrap

import libcst as cst
from lint_runs import lint

from h2dlint.analysis.edge_cases import degenerate_fallback, error_branch


def _ancestors_of(code: str, marker: str) -> tuple[list[cst.CSTNode], cst.CSTNode]:
    """The ancestors (outermost first) of the first call whose code is ``marker``."""
    module = cst.parse_module(textwrap.dedent(code))
    stack: list[cst.CSTNode] = []
    found: list[tuple[list[cst.CSTNode], cst.CSTNode]] = []

    class Finder(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if isinstance(node, cst.Call) and module.code_for_node(node) == marker and not found:
                found.append((list(stack), node))
            stack.append(node)
            return True

        def on_leave(self, original_node: cst.CSTNode) -> None:
            stack.pop()

    module.visit(Finder())
    assert found, marker
    return found[0]


def _fallback(code: str, marker: str = "torch.tensor(0.0)") -> bool:
    ancestors, node = _ancestors_of(code, marker)
    return degenerate_fallback(ancestors, node)


def test_the_arm_for_empty_input_is_a_fallback() -> None:
    assert _fallback("def f(x):\n    return x.mean() if x.numel() > 0 else torch.tensor(0.0)\n")
    assert _fallback("def f(x):\n    return torch.tensor(0.0) if x.numel() == 0 else x.sum()\n")
    assert _fallback("def f(x):\n    return x.sum() if 0 < x.nelement() else torch.tensor(0.0)\n")
    assert _fallback("def f(x):\n    if not x.numel():\n        return torch.tensor(0.0)\n")
    assert _fallback("def f(t):\n    if torch.isnan(t).all():\n        return torch.tensor(0.0)\n")
    assert _fallback(
        "def f(x):\n    if x.numel() >= 1:\n        pass\n    else:\n        torch.tensor(0.0)\n"
    )


def test_the_arm_for_real_input_is_no_fallback() -> None:
    # the arm taken for non-empty input; an empty dimension or list (a frame with no
    # detection), a 0-d tensor, a single element (a per-tensor scale); a comparison of values
    assert not _fallback("def f(x):\n    return torch.tensor(0.0) if x.numel() > 0 else None\n")
    assert not _fallback("def f(x):\n    if x.shape[0] == 1:\n        return torch.tensor(0.0)\n")
    assert not _fallback("def f(d):\n    if d.size(0) == 0:\n        return torch.tensor(0.0)\n")
    assert not _fallback("def f(xs):\n    if len(xs) == 0:\n        y = torch.tensor(0.0)\n")
    assert not _fallback("def f(s):\n    if len(s.shape) == 0:\n        s = torch.tensor(0.0)\n")
    assert not _fallback("def f(s):\n    return s if s.numel() > 1 else torch.tensor(0.0)\n")
    assert not _fallback("def f(xs):\n    return xs[0] if len(xs) > 1 else torch.tensor(0.0)\n")
    assert not _fallback("def f(x, n):\n    return x if n > 0 else torch.tensor(0.0)\n")


def _branch(code: str) -> cst.If:
    module = cst.parse_module(textwrap.dedent(code))
    function = module.body[0]
    assert isinstance(function, cst.FunctionDef)
    branch = function.body.body[0]
    assert isinstance(branch, cst.If)
    return branch


def test_a_branch_that_raises_or_warns_is_an_error_path() -> None:
    assert error_branch(_branch("def f(m):\n    if m.any():\n        n = 1\n        raise E(n)\n"))
    assert error_branch(_branch("def f(m):\n    if m:\n        r = 1\n        logger.warning(r)\n"))
    assert error_branch(_branch("def f(m):\n    if m:\n        warnings.warn('x')\n"))
    # a branch that goes on after logging, or returns a value, is not
    assert not error_branch(_branch("def f(m):\n    if m:\n        log.warning(1)\n        g()\n"))
    assert not error_branch(_branch("def f(m):\n    if m:\n        return m.item()\n"))


_GENERATE = """
import torch
class Trainer:
    def _generate(self, model, inputs, device):
        with torch.no_grad():
            out = model.generate(**inputs)
        completion = out[:, inputs["input_ids"].size(1):]
        is_eos = torch.isin(completion, torch.full((1,), 2, device=device))
        {between}
        return [c[m].tolist() for c, m in zip(completion.cpu(), is_eos.cpu())]
    def training_step(self, model, inputs):
        return self._generate(model, inputs, "cuda")
"""


def _syncs(code: str) -> list[str]:
    return [f.message for f in lint(code, "HTD202")]


def test_a_read_right_after_a_generation_waits_for_nothing() -> None:
    assert _syncs(_GENERATE.format(between="n = is_eos.sum(-1)")) == []


def test_a_model_call_after_the_generation_queues_work_again() -> None:
    found = _syncs(_GENERATE.format(between="scores = model(out).logits"))
    assert any("`.cpu()` of `completion`" in message for message in found), found


def test_the_arm_for_nan_or_infinite_values_is_a_fallback() -> None:
    assert _fallback("def f(t):\n    if torch.isnan(t).any():\n        torch.tensor(0.0)\n")
    assert _fallback("def f(t):\n    if torch.isnan(t).all(1).any():\n        torch.tensor(0.0)\n")
    assert _fallback("def f(g):\n    if not torch.isfinite(g):\n        torch.tensor(0.0)\n")
    assert _fallback(
        "def f(n):\n    if ok := n.isfinite().all():\n        pass\n"
        "    else:\n        torch.tensor(0.0)\n"
    )
    # the arm for finite values runs every step
    assert not _fallback("def f(g):\n    if torch.isfinite(g):\n        torch.tensor(0.0)\n")
    assert not _fallback("def f(t):\n    if not torch.isnan(t).any():\n        torch.tensor(0.0)\n")
