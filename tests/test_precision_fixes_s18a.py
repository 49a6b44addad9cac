"""The analysis facts behind session 18's held-out precision fixes (helper heldout18a,
docs/precision.md, "Session 18 (heldout18a)"): each look-alike found in code no triage had
read (xinference, llmlingua, optimum, flexgen, attention-sinks), and its true twin."""

from __future__ import annotations

import textwrap

from h2dlint.engine import EnabledRule, check_text
from h2dlint.registry import all_rules


def _findings(code: str, rule_code: str, path: str = "m.py") -> list[int]:
    rule = all_rules()[rule_code]
    enabled = (EnabledRule(rule, tuple(sorted(rule.default_settings().items()))),)
    return [f.start.row for f in check_text(textwrap.dedent(code), path, enabled)]


SCRIPT = """
    import torch

    def check_forward_equal_with_pytorch_float():
        value = torch.rand(2, 4).cuda() * 0.01
        return value

    def check_gradient_numerical(channels):
        value = torch.rand(2, channels).cuda()
        for _ in range(3):
            step = torch.rand(2, channels).cuda()
        return value, step

    def generate(model, n):
        out = []
        for i in range(n):
            out.append(model(torch.zeros(1, 4).cuda()))
        return out

    def main(model):
        mask = torch.ones(4).cuda()
        generate(model, 10)
        while True:
            model(torch.ones(1, 4).cuda())

    if __name__ == "__main__":
        check_forward_equal_with_pytorch_float()
        for channels in [30, 32]:
            check_gradient_numerical(channels)
        main(None)
    """


def test_a_scripts_driver_runs_its_own_code_once() -> None:
    # xinference's vendored MultiScaleDeformableAttention ops/test.py: checks called from the
    # `__main__` block. A driver's loops are still its steps, and what it calls stays hot.
    assert _findings(SCRIPT, "HTD301") == [11, 17, 24]


def test_a_driver_handed_on_or_called_elsewhere_is_no_script() -> None:
    handed = """
        import torch
        def step():
            return torch.rand(2, 4).cuda()
        if __name__ == "__main__":
            register(step)
            step()
        """
    assert _findings(handed, "HTD301") == [4]
