"""Where HTD201 places its findings (session 42): at the read that waits, not at the loop, so
that an annotation points at the sync and a reader of the report finds the line to change; a
`# noqa: HTD201` on the loop's first line still applies (suppressions written when findings
sat on the loop keep working); nested loops whose first read is the same read report it once."""

from __future__ import annotations

from lint_runs import lint

LOOPS = """\
import torch
def f(n):
    y = torch.randn(8, device="cuda")
    out = []
    for i in range(n):{noqa}
        if y[i] > 0:
            out.append(i)
    while (y > 0).any():{noqa}
        y = y - 1
        print(y[0].item())
    return [y[i].item() for i in range(n)]{noqa}
"""


def test_each_finding_sits_at_its_read() -> None:
    found = lint(LOOPS.format(noqa=""), "HTD201")
    assert sorted((f.start.row, f.start.column) for f in found) == [(6, 12), (10, 15), (11, 13)]


def test_a_suppression_on_the_loop_line_applies() -> None:
    assert lint(LOOPS.format(noqa="  # noqa: HTD201"), "HTD201") == []


def test_another_codes_suppression_on_the_loop_line_does_not() -> None:
    assert len(lint(LOOPS.format(noqa="  # noqa: HTD202"), "HTD201")) == 3


NESTED = """\
import torch
def f(x: torch.Tensor, n: int):
    x = x.cuda()
    for b in x:
        for i in range(n):
            print(b[i].item())
"""


def test_nested_loops_report_their_shared_read_once() -> None:
    found = lint(NESTED, "HTD201")
    assert [(f.start.row, f.start.column) for f in found] == [(6, 19)]
