"""HTD201 reports each distinct read of a per-row loop (session 43), not only the first: an
upstream fix changes every read of such a loop, and a user is told every line to change. A
read inside another read (``int(t[i].item())``) is one finding, named by its method; the same
kind of read of the same tensor twice on one line is one finding (one line to change); a
``# noqa: HTD201`` on the loop's line covers all of its reads; HTD202 reports none of them."""

from __future__ import annotations

import libcst as cst
from lint_runs import lint

from h2dlint.engine import EnabledRule, check_text
from h2dlint.fixer import fix_text
from h2dlint.registry import all_rules

TWO_READS = """\
import torch
def spans(cu: torch.Tensor, n: int):
    cu = cu.cuda()
    out = []
    for i in range(n):{noqa}
        start = cu[i].item()
        end = int(cu[i + 1].item())
        out.append((start, end))
    return out
"""


def _places(code: str, *codes: str) -> list[tuple[str, int, int]]:
    return sorted((f.code, f.start.row, f.start.column) for f in lint(code, *codes))


def test_each_distinct_read_of_a_loop_is_reported() -> None:
    found = lint(TWO_READS.format(noqa=""), "HTD201")
    assert sorted((f.start.row, f.start.column) for f in found) == [(6, 17), (7, 19)]
    # each names its own read: the method, not the `int()` around the second
    assert all("`.item()` on each row of `cu`" in f.message for f in found)


def test_a_read_inside_another_read_is_one_finding() -> None:
    code = """\
        import torch
        def sizes(t: torch.Tensor, n: int):
            t = t.cuda()
            return [int(t[i].item()) for i in range(n)]
        """
    found = lint(code, "HTD201")
    assert [(f.start.row, f.start.column) for f in found] == [(4, 17)]
    assert found[0].message.startswith("`.item()`")


def test_the_same_read_twice_on_one_line_is_one_finding() -> None:
    code = """\
        import torch
        def add(x: torch.Tensor, result: torch.Tensor, im_mask: torch.Tensor):
            im_mask = im_mask.cuda()
            for start, end in im_mask:
                result[:, start:end, :] += x[:, start:end, :]
            return result
        """
    assert [row for _, row, _ in _places(code, "HTD201")] == [5]


def test_a_read_around_a_dropped_duplicate_is_dropped_too() -> None:
    # NeMo's speaker_utils: `[float(r[0].item() - b), float(r[1].item() - b)]`: the second
    # `.item()` is the first's twin on the line, and the `float()` around it no read of its own.
    code = """\
        import torch
        def offsets(spl: torch.Tensor, b: float):
            spl = spl.cuda()
            return [[float(r[0].item() - b), float(r[1].item() - b)] for r in spl]
        """
    found = lint(code, "HTD201")
    assert [(f.start.row, f.message[:10]) for f in found] == [(4, "`.item()` ")]


def test_a_suppression_on_the_loop_line_covers_every_read() -> None:
    assert lint(TWO_READS.format(noqa="  # noqa: HTD201"), "HTD201") == []


HOT = """\
import torch
class Scorer(torch.nn.Module):
    def forward(self, lengths: torch.Tensor, scores: torch.Tensor):
        lengths = lengths.to(scores.device)
        out = []
        for i, n in enumerate(lengths):
            best = scores[i].max().item()
            out.append((n.item(), best))
        return out
"""


def test_htd202_reports_none_of_the_reads_htd201_reports() -> None:
    # `n.item()` (a row of `lengths`) and `scores[i]...item()` (a row its counter indexes)
    # are both HTD201's; before session 43 HTD201 named only the first read's tensor, and
    # HTD202 judged the read of another tensor's row by itself.
    found = _places(HOT, "HTD201", "HTD202")
    assert [(row, column) for code, row, column in found if code == "HTD201"] == [(7, 20), (8, 25)]
    assert [place for place in found if place[0] == "HTD202"] == []


def test_a_comprehension_with_two_reads_gets_two_findings_and_no_fix() -> None:
    code = """\
        import torch
        def pairs(t: torch.Tensor):
            t = t.cuda()
            return [(r[0].item(), r.tolist()) for r in t]
        """
    found = lint(code, "HTD201")
    assert sorted(f.start.column for f in found) == [14, 27]
    assert all(f.fix is None for f in found)


def test_the_comprehension_fix_applies_once_and_parses() -> None:
    code = (
        "import torch\n"
        "def f(grid: torch.Tensor):\n"
        "    return [int(torch.prod(r).item()) for r in grid]\n"
    )
    rule = (EnabledRule(all_rules()["HTD201"]),)
    assert len(check_text(code, "snippet.py", rule)) == 1
    fixed = fix_text(code, "snippet.py", rule, unsafe=True).text
    cst.parse_module(fixed)
    assert fixed.count("torch.prod(grid, dim=-1).tolist()") == 1
    assert check_text(fixed, "snippet.py", rule) == []


def test_a_row_rebound_to_its_host_read_is_read_once() -> None:
    # executorch's tiled position embedding: `n_tiles_h = n_tiles_h.item()`, then slices and
    # `int(n_tiles_h * n_tiles_w)` of Python ints: only the two `.item()` calls wait.
    code = """\
        import torch
        class Emb(torch.nn.Module):
            def forward(self, x: torch.Tensor, aspect_ratio: torch.Tensor):
                aspect_ratio = aspect_ratio.to(x.device)
                for b, (n_tiles_h, n_tiles_w) in enumerate(aspect_ratio):
                    n_tiles_h = n_tiles_h.item()
                    n_tiles_w = n_tiles_w.item()
                    n = int(n_tiles_h * n_tiles_w)
                    x[b, :n] += self.embedding[:n_tiles_h, :n_tiles_w]
        """
    assert [row for _, row, _ in _places(code, "HTD201")] == [6, 7]


def test_arithmetic_on_a_host_read_is_a_python_number() -> None:
    # lerobot's eval rollout: `num_frames = done_indices[ep_ix].item() + 2`, then slices by
    # `num_frames - 1` (Python ints); a slice by the row itself still waits.
    code = """\
        import torch
        def rollout(done_indices: torch.Tensor, data: dict):
            done_indices = done_indices.cuda()
            for ep_ix in range(data["a"].shape[0]):
                num_frames = done_indices[ep_ix].item() + 2
                a = data["a"][ep_ix, : num_frames - 1]
                b = data["b"][ep_ix, : done_indices[ep_ix]]
        """
    assert [row for _, row, _ in _places(code, "HTD201")] == [5, 7]
