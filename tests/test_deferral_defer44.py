"""HTD202 (a sync on a hot path) leaves to HTD201 (a sync per row) exactly the reads HTD201
reports (session 44): the same node, a sync around one or inside one, a read on the line of
one, and every read of a loop whose first line suppresses HTD201. Any other read in a row loop
HTD201 reports is HTD202's own, of the same tensor's rows or not. Before, HTD202 left to HTD201
every read of a row of a tensor HTD201 named in the loop, and since HTD201 reports each read
(session 43) a read it does not accept itself was reported by neither rule: transformers'
minicpmv4_7 ``current_mm_token_type_ids[valid_mask]`` (``modeling_minicpmv4_7.py:1011``)."""

from __future__ import annotations

from lint_runs import lint

# transformers 5.24.0 models/minicpmv4_7/modeling_minicpmv4_7.py:1005-1017, get_rope_index's
# shape: each row unpadded with a boolean mask (a sync: the size of the result), then read to
# the host (HTD201's read).
MINICPM = """\
import torch
class M(torch.nn.Module):
    def forward(self, input_ids, mm_token_type_ids, attention_mask):
        out = []
        for batch_idx in range(input_ids.shape[0]):{noqa}
            ids = input_ids[batch_idx]
            types = mm_token_type_ids[batch_idx]
            valid = attention_mask[batch_idx].bool()
            ids = ids[valid]
            types = types[valid]
            ids = ids.tolist()
            out.append((ids, types))
        return out
"""


def _places(code: str) -> list[tuple[str, int]]:
    return sorted((f.code, f.start.row) for f in lint(code, "HTD201", "HTD202"))


def test_a_mask_read_of_a_row_htd201_does_not_report_is_htd202s() -> None:
    # the two mask indexings: HTD201 reports the `.tolist()` only; both were reported by
    # neither rule before (rows of `input_ids`, the tensor HTD201 names, and of another).
    assert _places(MINICPM.format(noqa="")) == [("HTD201", 11), ("HTD202", 9), ("HTD202", 10)]
    masks = [f for f in lint(MINICPM.format(noqa=""), "HTD202")]
    assert all("boolean mask" in f.message for f in masks)


def test_a_suppressed_loop_does_not_come_back_under_htd202() -> None:
    # A suppression of HTD201 on the loop line said its per-row reads are meant: the reads
    # HTD202 now judges in it stay quiet too, as they were before session 44.
    assert _places(MINICPM.format(noqa="  # noqa: HTD201")) == []
    assert _places(MINICPM.format(noqa="  # h2dlint: ignore[HTD201]")) == []
    assert _places(MINICPM.format(noqa="  # noqa")) == []
    # a suppression of another code on the loop line suppresses nothing of the loop
    assert ("HTD202", 9) in _places(MINICPM.format(noqa="  # noqa: HTD101"))


def test_a_read_htd201_reports_is_not_reported_twice() -> None:
    code = """\
        import torch
        class Spans(torch.nn.Module):
            def forward(self, cu: torch.Tensor, n: int):
                cu = cu.cuda()
                out = []
                for i in range(n):
                    start = cu[i].item()
                    end = int(cu[i + 1].item())
                    out.append((start, end))
                return out
        """
    # the `.item()` HTD201 reports, and the `int()` around the second one: one report each line
    assert _places(code) == [("HTD201", 7), ("HTD201", 8)]


def test_a_mask_inside_a_read_htd201_reports_is_that_read() -> None:
    # `t[i][m].tolist()`: the mask indexing is inside the `.tolist()` HTD201 reports, one sync
    # to change with it (the row copied once, masked on the host).
    code = """\
        import torch
        class Rows(torch.nn.Module):
            def forward(self, t: torch.Tensor, mask: torch.Tensor):
                t = t.cuda()
                mask = mask.cuda()
                return [t[i][mask[i]].tolist() for i in range(t.shape[0])]
        """
    assert _places(code) == [("HTD201", 6)]


def test_a_read_on_the_line_of_a_reported_read_is_not_reported_again() -> None:
    # one line, one report: HTD201 merges the reads of a line into one finding, and a mask
    # read beside it on the line is left to that finding too.
    code = """\
        import torch
        class Rows(torch.nn.Module):
            def forward(self, t: torch.Tensor, m: torch.Tensor):
                t = t.cuda()
                out = []
                for i in range(t.shape[0]):
                    row = t[i]
                    keep = m[i].bool()
                    out.append((row.tolist(), row[keep]))
                return out
        """
    assert _places(code) == [("HTD201", 9)]


def test_a_read_in_a_loop_htd201_reports_nothing_for_is_htd202s_as_before() -> None:
    # rows of a Python list of module outputs: HTD201 reports nothing; HTD202 judges the read.
    code = """\
        import torch
        class Head(torch.nn.Module):
            def forward(self, x: torch.Tensor):
                x = x.cuda()
                out = []
                for j in range(4):
                    out.append(x.sum().item())
                return out
        """
    assert [code for code, _ in _places(code)] == ["HTD202"]
