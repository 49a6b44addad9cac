"""Session 45 (miss45): HTD201's message names what waits, one report a read for HTD201's
``while`` tests and builtin walks, and recall misses of the per-row and hot-path families.

- HTD201's message named the loop's walk (``crop_regions``) where the read is of a value the
  body computed from the row in earlier statements (ultralytics 8.4 ``models/sam/predict.py:
  423``, ``if not torch.all(keep_mask):``): it names the value read now
  (``analysis/row_waits.py``).
- A ``while`` test HTD201 reports (``while torch.abs(s - t_0).mean() > t_err:``, DPM-Solver's
  adaptive step) and a builtin walk it reports (``max(lens)`` in a hot ``forward``) were
  reported by HTD202 on the same span too; HTD202 leaves them to HTD201 now
  (``analysis/iteration_reads.py``), as it leaves a row loop's reads (session 44).
"""

from __future__ import annotations

import pytest
from lint_runs import lint

# ultralytics 8.4.190 models/sam/predict.py:398-424, the crop loop's shape.
CROPS = """\
import torch
class Predictor(torch.nn.Module):
    def forward(self, im, crop_regions: torch.Tensor, layer_idxs):
        for crop_region, layer_idx in zip(crop_regions, layer_idxs):
            crop_im = im[..., crop_region[1] : crop_region[3], crop_region[0] : crop_region[2]]
            pred_bbox = self.model(crop_im)
            keep_mask = ~near_edge(pred_bbox, crop_region)
            if not torch.all(keep_mask):
                pred_bbox = pred_bbox[keep_mask]
        return pred_bbox
"""


def _places(code: str, *codes: str) -> list[tuple[str, int, int]]:
    return sorted((f.code, f.start.row, f.start.column) for f in lint(code, *codes))


def test_the_message_names_the_value_read_not_the_walk() -> None:
    found = [f for f in lint(CROPS, "HTD201") if f.start.row == 8]
    assert len(found) == 1
    message = found[0].message
    assert "(`torch.all(keep_mask)`) on each row of `crop_regions`" in message
    assert "when `keep_mask` is on a device" in message


def test_a_read_of_the_row_itself_keeps_the_walks_name() -> None:
    code = """\
        import torch
        class M(torch.nn.Module):
            def forward(self, x, lengths: torch.Tensor):
                for n in lengths:
                    if n.any():
                        x = x + 1
                return x
    """
    messages = [f.message for f in lint(code, "HTD201")]
    assert len(messages) == 1
    assert "on each row of `lengths`" in messages[0]
    assert "`n.any()`" not in messages[0] and "when it is on a device" in messages[0]


WHILE_TEST = """\
import torch
class Solver:
    def sample(self, x, t_0, t_err):
        s = x.cuda()
        while torch.abs(s - t_0).mean() > t_err:
            s = s * 0.5
        return s
"""
BUILTIN_WALK = """\
import torch
class Attention(torch.nn.Module):
    def forward(self, q, mask):
        lens = mask.sum(dim=-1)
        longest = max(lens)
        return q[:, :longest]
"""


@pytest.mark.parametrize(("code", "row"), [(WHILE_TEST, 5), (BUILTIN_WALK, 5)])
def test_htd201s_iteration_reads_are_reported_once(
    code: str, row: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    both = _places(code, "HTD201", "HTD202")
    assert [(c, r) for c, r, _ in both] == [("HTD201", row)]
    # HTD202 alone leaves them to HTD201 too (as it does a row loop's reads) ...
    assert _places(code, "HTD202") == []
    # ... and would report the same span without the deferral: the double report it was.
    from h2dlint.rules import htd202_sync_on_hot_path as htd202

    monkeypatch.setattr(htd202, "reported_iteration_read", lambda *args: False)
    again = _places(code, "HTD202")
    assert [(r, c) for _, r, c in again] == [(r, c) for _, r, c in both]


def test_a_while_read_htd201_does_not_report_stays_htd202s() -> None:
    # The `while` test HTD201 reports, and a read after the loop that is HTD202's own.
    code = """\
        import torch
        class M(torch.nn.Module):
            def forward(self, x):
                total = x.sum()
                n = 0
                while (x[n] > 0).any():
                    n += 1
                return x[: int(total.item())]
    """
    got = [(c, r) for c, r, _ in _places(code, "HTD201", "HTD202")]
    assert got == [("HTD201", 6), ("HTD202", 8)]


# pytorch-optimizer 3.10.1 pcgrad.py:107-114 and rotograd.py:300-304, their shapes.
ITEMS = """\
from typing import List, Sequence
import torch
def project(grads: List[torch.Tensor]):
    out = list(grads)
    for i, g_i in enumerate(out):
        for g_j in grads:
            g_i_g_j: torch.Tensor = torch.dot(g_i, g_j)
            if g_i_g_j < 0:
                out[i] = g_i - g_i_g_j * g_j / (g_j.norm() ** 2)
    return out
def record(losses: Sequence[torch.Tensor], weights, kept):
    for i in range(len(losses)):
        loss = losses[i] / weights[i]
        kept[i] = loss.item()
"""
# amd-quark's blockwise tuning (session 44's revert), an object's method of each item, whole
# items copied, and a list of ints: none is a read of a tensor item through tensor operations.
ITEM_TWINS = """\
from typing import List
import torch
def tune(outs: List[torch.Tensor], targets: List[torch.Tensor], loss_func, kept):
    for out, target in zip(outs, targets):
        loss = loss_func(out, target)
        kept.append(loss.item())
def score(grads: List[torch.Tensor], scorer, kept):
    for g in grads:
        s = scorer.score(g)
        if s > 0:
            kept.append(g.cpu())
def through(grads: List[torch.Tensor], helper, kept):
    for g in grads:
        d = helper(g)
        if d < 0:
            kept.append(d)
def scaled(lengths: list[int], ratio: float):
    for n in lengths:
        m = n * ratio
        if m > 8:
            return m
"""


def test_items_of_a_sequence_of_tensors_read_through_tensor_operations() -> None:
    found = [(f.start.row, f.message) for f in lint(ITEMS, "HTD201")]
    assert [row for row, _ in found] == [8, 14]
    assert "(`g_i_g_j < 0`) on each item of `grads`" in found[0][1]
    assert "when `g_i_g_j` is on a device" in found[0][1]
    assert "`.item()` of `loss` on each item of `losses`" in found[1][1]


def test_items_zipped_or_through_unknown_calls_stay_clean() -> None:
    assert lint(ITEM_TWINS, "HTD201") == []


def test_the_same_items_unannotated_stay_clean() -> None:
    # No declaration: the items may be floats (`grads` a list of numbers).
    code = ITEMS.replace("List[torch.Tensor]", "list").replace("Sequence[torch.Tensor]", "list")
    assert lint(code, "HTD201") == []


def test_a_compared_python_count_of_a_row_stays_clean() -> None:
    # funasr 1.4.8 sense_voice/whisper_lib/decoding.py:583-588: `sum()` of a Python list
    # counts tokens into a Python int; comparing two such counts reads no tensor (the
    # comprehension's own element tests are another matter). A tensor of the row compared is
    # a read (the PCGrad shape, above).
    code = """\
        import torch
        def apply(logits: torch.Tensor, tokens: torch.Tensor, bg: int, ed: int):
            tokens = tokens.cuda()
            for i in range(len(tokens)):
                sum_bg = sum([1 if x == bg else 0 for x in tokens[i]])
                sum_ed = len(tokens[i])
                if sum_bg <= sum_ed:
                    logits[i, ed] = 0
                total = tokens[i].sum()
                if total > 3:
                    logits[i, bg] = 0
    """
    found = [(f.start.row, f.message) for f in lint(code, "HTD201")]
    assert [row for row, _ in found] == [10]
    assert "(`total > 3`)" in found[0][1]


def test_a_read_with_no_operand_to_name_keeps_its_message() -> None:
    # speechbrain 1.1.2 augment/time_domain.py:852-856 (DropChunk): `max()` of a row and a
    # number compares them itself; there is no smaller operand to name.
    code = """\
        import torch
        class DropChunk(torch.nn.Module):
            def forward(self, waveforms, lengths: torch.Tensor):
                for i in range(waveforms.shape[0]):
                    start_max = lengths[i]
                    start_max = max(0, start_max - 3)
                    waveforms[i, :start_max] = 0
                return waveforms
    """
    messages = [f.message for f in lint(code, "HTD201") if f.start.row == 6]
    assert messages and all("other values on each row of `lengths`" in m for m in messages)
