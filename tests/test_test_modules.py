"""Session 32 (triage32): the fact behind its precision fix (docs/precision.md,
"Session 32 (triage32)"), with its true twin: a module named as pytest collects tests by
default (``test_*.py`` and ``*_test.py``) is test code; what it runs in a loop or per call is
a test's check, not a step."""

from __future__ import annotations

from lint_runs import lint

CHECK = """
import torch
def check_allgather(tensor, out, world_sz):
    for r in range(world_sz):
        expected = torch.tensor([r + 1], device=tensor.device, dtype=tensor.dtype)
        torch.testing.assert_close(out[r], expected)
"""


def test_a_check_loop_of_a_pytest_module_is_left_alone() -> None:
    # torchft 0.2.0's process_group_test.py: the expected value of each rank, once per test.
    assert not lint(CHECK, "HTD107", path="process_group_test.py")
    assert not lint(CHECK, "HTD107", path="test_process_group.py")


def test_the_same_loop_elsewhere_stays_reported() -> None:
    # A production module, or a name that merely ends in "test" (``latest``, ``contest``).
    assert lint(CHECK, "HTD107", path="process_group.py")
    assert lint(CHECK, "HTD107", path="latest.py")
    assert lint(CHECK, "HTD107", path="contest.py")
