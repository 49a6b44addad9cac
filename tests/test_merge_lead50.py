"""Session 50 (lead): what the merged branches got wrong on review, each with its twin.

- a membership test of a row (``hit = tok in rows[i]``) is a Python bool, but
  ``Tensor.__contains__`` reads the device to make it: the name stays a read of the row
  when it is tested (triage50a's ``row_shapes.python_bool`` took every ``in`` for an identity
  test); ``bank[i] is None`` and a row's metadata compared stay Python bools."""

from __future__ import annotations

from lint_runs import lint

ROWS = """
    import torch
    def pick(rows: torch.Tensor, tok: int, dev):
        rows = rows.cuda()
        out = []
        for i in range(rows.shape[0]):
            hit = {test}
            if hit:
                out.append(i)
        return out
"""


def _rows(test: str) -> list[int]:
    return [f.start.row for f in lint(ROWS.format(test=test), "HTD201")]


def test_a_membership_test_of_a_row_reads_the_device() -> None:
    assert _rows("tok in rows[i]") == [8]
    assert _rows("tok not in rows[i]") == [8]


def test_identity_and_metadata_tests_of_a_row_are_python_bools() -> None:
    assert _rows("rows[i] is None") == []
    assert _rows("rows[i].device != dev") == []
    assert _rows("rows[i] is None or rows[i].shape[0] != 4") == []
