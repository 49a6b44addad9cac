"""Session 31 (precision31): the facts behind the session's precision fixes
(docs/precision.md, "Session 31 (precision31)"), each with its true twin."""

from __future__ import annotations

from lint_runs import lint

WAITED = """
import torch
from torch import Tensor
def score(preds: Tensor, target: Tensor):
    {before}
    if {test}:
        return torch.tensor(0.0, device=preds.device)
    return preds.sum()
"""


def _waited(before: str, test: str = "preds.shape[0] > 4") -> bool:
    """Whether the constant after ``before`` and the test is left alone."""
    code = WAITED.format(before=before.replace("\n", "\n    "), test=test)
    return not lint(code, "HTD107")


def test_a_constant_right_after_a_statement_that_waited_is_left_alone() -> None:
    # A data-sized op or a host read as the statement's last step: the host waited there.
    assert _waited("u = target.unique()")
    assert _waited("u = torch.unique(target)")
    assert _waited("n = target.sum().item()")
    assert _waited("ids = target.nonzero()")
    assert _waited("rows = target.tolist()")
    # Quiet statements between (an early-return arm with a warning that reads the value).
    arm = 'if len(u) == 1:\n    print(f"{u.item()}")\n    return None'
    assert _waited(f"u = target.unique()\n{arm}")


def test_device_work_after_the_wait_or_no_tensor_stays_reported() -> None:
    # Device work queued after the wait, in a later statement or in the same one after the read.
    assert not _waited("u = target.unique()\npreds = preds.softmax(-1)")
    assert not _waited("s = target.sum().item() * preds.softmax(-1)")
    # Not surely a tensor (``np.unique`` and a numpy array's ``.tolist()`` read no device), or a
    # host tensor (nothing waited).
    assert not _waited("u = np.unique(lens)")
    assert not _waited("rows = lens.tolist()")  # ``lens`` may be a numpy array
    assert not _waited("n = lens.sum().item()")
    assert not _waited("host = torch.tensor([1, 2])\nu = host.unique()")
    # The read is not the statement's last step: the value is used further on the device.
    assert not _waited("u = target.unique().float().softmax(-1)")


def test_a_membership_test_of_a_tensor_waits() -> None:
    # ``Tensor.__contains__`` is ``(t == x).any().item()``: the test read ``target``.
    assert _waited("pass", "(0 not in target) or (1 not in target)")
    assert _waited("pass", "1 in target")
    # A string in a container is no tensor read (a dict of tensors); the right side of ``or``
    # may never run.
    assert not _waited("pass", '"mask" not in target')
    assert not _waited("pass", "preds.shape[0] > 4 or 0 not in target")
    assert not _waited("pass")
