"""Session 51 (lead): a membership test of a row written in the ``if`` itself.

``if tok in rows[i]:`` asks ``Tensor.__contains__``, which reads the row from the device to
answer; session 50 reported it only through a name (``hit = tok in rows[i]; if hit:``). A
string's membership stays a dict's key test, and a list's or a host copy's row a Python test."""

from __future__ import annotations

from lint_runs import lint

ROWS = """
    import torch
    def pick(rows: torch.Tensor, tok: int, batch):
        rows = {source}
        out = []
        for i in range(len(rows)):
            if {test}:
                out.append(i)
        return out
"""


def _rows(source: str, test: str) -> list[int]:
    return [f.start.row for f in lint(ROWS.format(source=source, test=test), "HTD201")]


def test_a_membership_test_of_a_device_row_in_the_if_reads_the_device() -> None:
    assert _rows("rows.cuda()", "tok in rows[i]") == [7]
    assert _rows("rows.cuda()", "tok not in rows[i]") == [7]


def test_a_membership_test_of_a_host_row_or_a_key_is_python() -> None:
    assert _rows("rows.tolist()", "tok in rows[i]") == []
    assert _rows("rows.cpu()", "tok in rows[i]") == []
    assert _rows("rows.cuda()", '"mask" in rows[i]') == []
    assert _rows("rows.cuda()", "rows[i] is None") == []
