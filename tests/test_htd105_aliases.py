"""HTD105 refuses its fix where the pinned buffer can be written other than by its own name: an
alias (a view or another name bound to a name or attribute) or an escape (passed to a call that may
write it, returned, stored, captured by a nested function). Adding ``non_blocking=True`` there
would create the race the rule's docs promise not to create. The finding itself stays."""

from __future__ import annotations

import textwrap

import pytest

from h2dlint.engine import EnabledRule, check_text
from h2dlint.fixer import fix_text
from h2dlint.registry import all_rules

HTD105 = (EnabledRule(all_rules()["HTD105"]),)


def _check(body: str) -> tuple[list[str], bool]:
    code = "import numpy as np\nimport torch\n" + textwrap.dedent(body)
    messages = [f.message for f in check_text(code, "m.py", HTD105)]
    fixed = fix_text(code, "m.py", HTD105, unsafe=True).text != code
    return messages, fixed


NO_FIX = [
    (
        "numpy view written in the method",
        """\
        class S:
            def __init__(self, n):
                self.buf = torch.empty(n, pin_memory=True)
                self.np_view = self.buf.numpy()
            def send(self, arr, device):
                self.np_view[:] = arr
                return self.buf.to(device)
        """,
        "rewritten on the host (through `self.np_view`)",
    ),
    (
        "numpy view written by another method",
        """\
        class S:
            def __init__(self, n):
                self.buf = torch.empty(n, pin_memory=True)
                self.np_view = self.buf.numpy()
            def fill(self, arr):
                self.np_view[:] = arr
            def send(self, device):
                return self.buf.to(device)
        """,
        "(through `self.np_view`)",
    ),
    (
        "slice kept in an attribute",
        """\
        class S:
            def __init__(self, n):
                self.buf = torch.empty(n, pin_memory=True)
                self.view = self.buf[:]
            def send(self, device):
                return self.buf.to(device)
        """,
        "also reachable as `self.view` (`self.buf[:]`)",
    ),
    (
        "alias of an alias",
        """\
        def f(x, device):
            buf = torch.empty(64, pin_memory=True)
            a = buf.numpy()
            b = a[:8]
            b[:] = x
            return buf.to(device)
        """,
        "(through `b`)",
    ),
    (
        "rows iterated and written",
        """\
        def f(device):
            buf = torch.empty(4, 16, pin_memory=True)
            for row in buf:
                row.fill_(0)
            return buf.to(device)
        """,
        "(through `row`)",
    ),
    (
        "a conversion that may return the buffer itself",
        """\
        def f(device):
            buf = torch.empty(64, pin_memory=True)
            same = buf.to("cpu")
            return buf.to(device), same
        """,
        "also reachable as `same`",
    ),
    (
        "passed to an unknown function",
        """\
        def f(x, device):
            buf = torch.empty(64, pin_memory=True)
            fill(buf, x)
            return buf.to(device)
        """,
        "passed to `fill()`",
    ),
    (
        "a numpy view written by np.copyto",
        """\
        def f(x, device):
            buf = torch.empty(64, pin_memory=True)
            np.copyto(buf.numpy(), x)
            return buf.to(device)
        """,
        "rewritten on the host",
    ),
    (
        "a numpy array of the buffer made by a function",
        """\
        def f(x, device):
            buf = torch.empty(64, pin_memory=True)
            host = np.asarray(buf)
            return buf.to(device), host
        """,
        "passed to `np.asarray()`",
    ),
    (
        "a torch function that returns a view",
        """\
        def f(n, device):
            buf = torch.empty(64, pin_memory=True)
            head = torch.narrow(buf, 0, 0, n)
            return buf.to(device), head
        """,
        "passed to `torch.narrow()`",
    ),
    (
        "self.buf handed out by another method",
        """\
        class S:
            def __init__(self, n):
                self.buf = torch.empty(n, pin_memory=True)
            def staging(self):
                return self.buf
            def send(self, device):
                return self.buf.to(device)
        """,
        "is returned",
    ),
    (
        "kept in a list",
        """\
        def f(device, keep):
            buf = torch.empty(64, pin_memory=True)
            keep.append(buf)
            return buf.to(device)
        """,
        "passed to `keep.append()`",
    ),
    (
        "captured by a nested function",
        """\
        def f(x, device):
            buf = torch.empty(64, pin_memory=True)
            def refill():
                buf.copy_(x)
            return buf.to(device), refill
        """,
        "nested function",
    ),
]


@pytest.mark.parametrize(("body", "reason"), [c[1:] for c in NO_FIX], ids=[c[0] for c in NO_FIX])
def test_finding_without_fix(body: str, reason: str) -> None:
    messages, fixed = _check(body)
    assert len(messages) == 1, messages
    assert "no fix offered" in messages[0] and reason in messages[0], messages[0]
    assert not fixed


FIX = [
    (
        "read-only uses",
        """\
        def f(x, gpu, device):
            buf = torch.empty(64, pin_memory=True)
            both = torch.cat([buf, x])
            same = torch.equal(buf, x)
            print(len(buf), buf.shape, f"{buf.dtype}")
            assert isinstance(buf, torch.Tensor) and buf.is_pinned()
            return buf.to(device), both, same
        """,
    ),
    (
        "the copy bound to a name",
        """\
        def f(device):
            buf = torch.empty(64, pin_memory=True)
            y = buf.to(device)
            return y
        """,
    ),
    (
        "a nested function with a buffer of its own",
        """\
        def f(x, device):
            buf = torch.empty(64, pin_memory=True)
            def other():
                buf = torch.zeros(3)
                buf.copy_(x)
            return buf.to(device), other
        """,
    ),
    (
        "a view of the buffer copied: the view is the source, not an alias",
        """\
        def f(n, device):
            buf = torch.empty(64, pin_memory=True)
            head = buf[:n]
            return head.to(device)
        """,
    ),
    (
        "the name rebound to the device copy, then returned",
        """\
        def f(rows, device):
            x = torch.cat(rows, out=torch.empty(8, pin_memory=True))
            x = x.to(device)
            return x
        """,
    ),
    (
        "another instance's attribute of the same name",
        """\
        class S:
            def __init__(self, n, other):
                self.buf = torch.empty(n, pin_memory=True)
                self.other_view = other.buf[:]
            def send(self, device):
                return self.buf.to(device)
        """,
    ),
]


@pytest.mark.parametrize("body", [c[1] for c in FIX], ids=[c[0] for c in FIX])
def test_fix_where_nothing_else_reaches_the_buffer(body: str) -> None:
    messages, fixed = _check(body)
    assert len(messages) == 1 and "pass `non_blocking=True`" in messages[0], messages
    assert fixed


@pytest.mark.parametrize(
    "body",
    [
        # written through an alias after the copy: the blocking copy is what keeps it correct
        """\
        def f(x, device):
            buf = torch.empty(64, pin_memory=True)
            v = buf[:8]
            y = buf.to(device)
            v.copy_(x)
            return y
        """,
        """\
        def f(xs, device):
            buf = torch.empty(64, pin_memory=True)
            view = buf.numpy()
            out = []
            for x in xs:
                out.append(buf.to(device))
                view[:] = x
            return out
        """,
    ],
)
def test_no_finding_when_an_alias_is_written_after_the_copy(body: str) -> None:
    assert _check(body) == ([], False)
