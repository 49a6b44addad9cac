"""A row of a device tensor used as a truth value (session 43, truth43): ``if y[i]:``,
``not y[i]``, ``y[i] and ...``, ``x if y[i] else z``, a comprehension's ``if y[i]`` call
``Tensor.__bool__`` once per row, a sync each, as ``if y[i] > 0:`` did; rows of lists, numpy
arrays, host tensors and ``.tolist()`` values are Python truth values and stay clean."""

from __future__ import annotations

import pytest
from lint_runs import lint

DEVICE = """\
import torch
def f(x, n, z):
    y = torch.randn(8, device="cuda") > 0
    out = []
    for i in range(n):
        {line}
    return out
"""

READS = [
    "if y[i]: out.append(i)",
    "if not y[i]: out.append(i)",
    "if z and y[i]: out.append(i)",
    "if y[i] or z: out.append(i)",
    "flag = y[i] and z",
    "flag = not y[i]",
    "out.append(1 if y[i] else 0)",
    "out.append(1 if y[i] > 0 else 0)",
    "flag = y[i] > 0 or z",
    "if z and y[i] > 0: out.append(i)",
    "v = y[i]\n        if v: out.append(i)",
]


@pytest.mark.parametrize("line", READS)
def test_a_device_row_as_a_truth_value_is_a_row_sync(line: str) -> None:
    found = lint(DEVICE.format(line=line), "HTD201")
    assert len(found) == 1
    assert "which is on the device" in found[0].message
    assert found[0].confidence.value == "high"


def test_the_message_names_the_truth_value() -> None:
    (found,) = lint(DEVICE.format(line="if y[i]: out.append(i)"), "HTD201")
    assert "truth value" in found.message
    assert (found.start.row, found.start.column) == (6, 12)


def test_a_comprehension_filtered_by_a_device_row() -> None:
    code = """\
    import torch
    def f(n):
        keep = torch.rand(8, device="cuda") > 0.5
        return [i for i in range(n) if keep[i]]
    """
    assert len(lint(code, "HTD201")) == 1


def test_a_walk_of_a_device_tensor_testing_each_element() -> None:
    code = """\
    import torch
    def f():
        done = torch.zeros(8, dtype=torch.bool, device="cuda")
        return [1 for d in done if not d]
    """
    assert len(lint(code, "HTD201")) == 1


CLEAN = [
    # a Python list, a host tensor, a numpy array, a tensor's `.tolist()`
    ("y = [True, False]", "if y[i]: out.append(i)"),
    ("y = torch.ones(8).bool()", "if y[i]: out.append(i)"),
    ("y = np.ones(8, dtype=bool)", "if y[i]: out.append(i)"),
    ('y = (torch.randn(8, device="cuda") > 0).tolist()', "if y[i]: out.append(i)"),
    ('y = torch.randn(8, device="cuda").cpu() > 0', "flag = not y[i]"),
    # no row: identity tests, and an unknown list's items
    ('y = torch.randn(8, device="cuda")', "if x is not None: out.append(i)"),
    ("y = x", "if y[i]: out.append(i)"),
    ("y = x", "out.append(1 if y[i] else 0)"),
    # an assert is a check (dropped under python -O), as for HTD201's other reads
    ('y = torch.randn(8, device="cuda") > 0', "assert y[i]"),
    # the right operand of `and` outside a test is returned as it is, not tested
    ('y = torch.randn(8, device="cuda") > 0', "flag = z and y[i]"),
]


@pytest.mark.parametrize(("binding", "line"), CLEAN)
def test_look_alikes_stay_clean(binding: str, line: str) -> None:
    code = f"""\
import numpy as np
import torch
def f(x, n, z):
    {binding}
    out = []
    for i in range(n):
        {line}
    return out
"""
    assert lint(code, "HTD201") == []


def test_an_any_of_the_row_is_reported_once() -> None:
    code = DEVICE.format(line="if y[i].any(): out.append(i)")
    assert len(lint(code, "HTD201")) == 1


def test_a_builtin_any_of_a_device_row_stays_the_builtin_walk() -> None:
    code = """\
    import torch
    def f(n):
        y = torch.randn(8, 4, device="cuda") > 0
        return [i for i in range(n) if any(y[i])]
    """
    found = lint(code, "HTD201")
    assert found and all("any()" in f.message for f in found)


def test_a_row_truth_value_is_htd201s_not_htd202s() -> None:
    code = """\
    import torch
    class M(torch.nn.Module):
        def forward(self, x, n):
            y = x.cuda() > 0
            out = []
            for i in range(n):
                if y[i]:
                    out.append(i)
            return out
    """
    assert len(lint(code, "HTD201")) == 1
    assert lint(code, "HTD202") == []
