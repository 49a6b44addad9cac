"""The analysis's work stays polynomial on code that rebinds a name many times under branches.

unsloth's studio backend has functions of thousands of lines that update the same names in
dozens of ``if``/``else`` arms; every binding then reaches every later use, and a question
about one use walked every path through them, exponentially many: one directory of it did not
finish in 20 minutes. These tests count the facts the provenance analysis computes (a number,
not a time: the same on every machine) and check that it grows with the number of arms, not
with two to its power, and that the finding is still reported.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from h2dlint.analysis.provenance import Provenance
from h2dlint.engine import EnabledRule, check_text
from h2dlint.registry import all_rules


def _function(arms: int, update: str, loop: bool) -> str:
    pad = "    " * (3 if loop else 2)
    lines = [
        "import torch",
        "",
        "class M(torch.nn.Module):",
        "    def forward(self, x, flags):",
        "        z = torch.zeros(4, device='cuda')",
        "        n = 0",
    ]
    if loop:
        lines.append("        for step in range(10):")
    for i in range(arms):
        first, second = update.format(name="z", k=1), update.format(name="z", k=2)
        lines += [
            f"{pad}if flags[{i}]:",
            f"{pad}    {first}",
            f"{pad}    {update.format(name='n', k=1)}",
            f"{pad}else:",
            f"{pad}    {second}",
            f"{pad}    {update.format(name='n', k=2)}",
        ]
    lines.append(f"{pad}y = z.sum().item() + n")
    return "\n".join(lines) + "\n"


@pytest.fixture
def computed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many facts the provenance analysis computed (``Provenance._compute`` calls)."""
    count = [0]
    original = Provenance._compute

    def counting(self: Provenance, *args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Provenance, "_compute", counting)
    yield count


def _check(source: str) -> list[str]:
    rule = all_rules()["HTD202"]
    return [f.code for f in check_text(source, "m.py", [EnabledRule(rule)])]


@pytest.mark.parametrize(
    ("update", "loop"),
    [
        ("{name} += {k}", False),  # augmented updates, straight-line
        ("{name} += {k}", True),  # ... in a loop: every update reaches every other
        ("{name} = {name} + {k}", False),
        ("{name} = {name} + {k}", True),
    ],
)
def test_work_grows_polynomially_with_branch_arms(
    computed: list[int], update: str, loop: bool
) -> None:
    counts = []
    for arms in (8, 16):
        computed[0] = 0
        assert _check(_function(arms, update, loop)) == ["HTD202"]
        counts.append(computed[0])
    # Twice the arms: at most eight times the work (cubic), where exponential growth
    # multiplied it by 2**8 = 256 or more.
    assert counts[1] <= 8 * counts[0], counts
