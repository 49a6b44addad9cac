"""The facts behind session 23's held-out rows (docs/recall.md, "Session 23 (heldout23)"):
anomalib's k-center greedy coreset selection read the index it picks on the device to the host
on every iteration of a loop that feeds that index to the next iteration's device work
(``idx = self.get_new_idx()`` / ``int(idx.item())``), a loop no rule knew to run device work:
it made no model call, no backward, no copy. A loop that carries a tensor torch computes from
one iteration to the next runs device work on every iteration (``device_recurrences``). Each
beside the correct look-alikes."""

from __future__ import annotations

from lint_runs import lint


def _findings(code: str, *rule_codes: str) -> list[tuple[str, int, str]]:
    found = lint(code, *rule_codes)
    return sorted((f.code, f.start.row, f.confidence.value) for f in found)


def test_carried_index_read_every_iteration() -> None:
    """anomalib 2.4.0: the index comes from a method annotated to return a tensor of unknown
    device, and the next iteration's device work reads it: MEDIUM (the device is unknown)."""
    code = """
        import torch
        class KCenterGreedy:
            def __init__(self, embedding: torch.Tensor, n: int) -> None:
                self.embedding = embedding
                self.n = n
                self.min_distances = None
            def update_distances(self, center) -> None:
                d = torch.linalg.norm(self.features - self.features[center], dim=1)
                self.min_distances = d
            def get_new_idx(self) -> torch.Tensor:
                _, idx = torch.max(self.min_distances, dim=0)
                return idx
            def select_coreset_idxs(self) -> list[int]:
                self.features = self.embedding.reshape(self.embedding.shape[0], -1)
                idx = torch.randint(high=self.n, size=(1,), device=self.features.device)
                picked = []
                for _ in range(self.n - 1):
                    self.update_distances(idx)
                    idx = self.get_new_idx()
                    picked.append(int(idx.item()))
                return picked
    """
    found = _findings(code, "HTD201", "HTD202")
    assert [(c, r) for c, r, _ in found] == [("HTD202", 21)]


def test_carried_state_and_values_computed_from_it() -> None:
    """A running minimum carried on a proven device, and a value computed from it."""
    code = """
        import torch
        def farthest(points, k):
            points = points.cuda()
            best = torch.full((points.shape[0],), float("inf"), device="cuda")
            out = []
            for i in range(k):
                best = torch.minimum(best, points.norm(dim=1) + i)
                top = best.argmax()
                out.append(top.item())
            return out
    """
    assert [(c, r) for c, r, _ in _findings(code, "HTD201", "HTD202")] == [("HTD202", 10)]


def test_look_alikes_not_reported() -> None:
    code = """
        import torch
        def fixed(features, k):
            features = features.cuda()
            idx = torch.zeros((), dtype=torch.long, device="cuda")
            picked = []
            for _ in range(k):
                idx = torch.argmax(torch.linalg.norm(features - features[idx], dim=1))
                picked.append(idx)
            return torch.stack(picked).tolist()
        def fresh_each_time(modules):
            out = []
            for m in modules:
                w = m.weight.abs().mean()
                out.append(w.item())
            return out
        def host_histogram(batches):
            hist = torch.zeros(10, dtype=torch.long)
            seen = []
            for batch in batches:
                hist = hist + torch.bincount(torch.tensor(batch), minlength=10)
                seen.append(int(hist.sum().item()))
            return seen
        def host_made_each_time(rows, k):
            ids = torch.tensor(rows)
            out = []
            for _ in range(k):
                ids = torch.tensor([r + 1 for r in ids.tolist()])
                out.append(ids.sum().item())
            return out
    """
    assert _findings(code, "HTD201", "HTD202") == []


def test_data_sized_op_per_row() -> None:
    """torchvision 0.25's ``masks_to_boxes``: ``torch.where(mask != 0)`` (one argument, so
    ``nonzero``) once per mask; ``.nonzero()`` and ``torch.unique`` spelled per row too."""
    code = """
        import torch
        def masks_to_boxes(masks: torch.Tensor) -> torch.Tensor:
            boxes = torch.zeros((masks.shape[0], 4), device=masks.device)
            for index, mask in enumerate(masks):
                y, x = torch.where(mask != 0)
                boxes[index, 0] = torch.min(x)
            return boxes
        def firsts(masks: torch.Tensor):
            return [m.nonzero()[0] for m in masks]
        def labels(segs: torch.Tensor):
            return [torch.unique(s) for s in segs]
    """
    assert [(c, r) for c, r, _ in _findings(code, "HTD201")] == [
        ("HTD201", 6),
        ("HTD201", 10),
        ("HTD201", 12),
    ]


def test_data_sized_look_alikes() -> None:
    code = """
        import torch
        def choose(scores: torch.Tensor, other: torch.Tensor):
            return [torch.where(row > 0, row, other) for row in scores]
        def counts(rows: torch.Tensor):
            return [torch.bincount(r, minlength=4) for r in rows]
        def host_rows(masks):
            masks = masks.cpu()
            return [torch.where(m != 0) for m in masks]
    """
    assert _findings(code, "HTD201") == []


def test_factory_view_then_move() -> None:
    """audiocraft 1.1's ``length_to_mask``: ``torch.arange(n)[None, :].to(lengths.device)``:
    a view by basic indexing between the factory and the move is the same host allocation and
    copy; a gather by a tensor index is not a view of the factory."""
    code = """
        import torch
        def length_to_mask(lengths: torch.Tensor, n: int) -> torch.Tensor:
            return torch.arange(n)[None, :].to(lengths.device) < lengths[:, None]
        def fixed(lengths: torch.Tensor, n: int) -> torch.Tensor:
            return torch.arange(n, device=lengths.device)[None, :] < lengths[:, None]
        def gathered(ids: torch.Tensor, n: int, device):
            return torch.arange(n)[ids].to(device)
    """
    assert [(c, r) for c, r, _ in _findings(code, "HTD301")] == [("HTD301", 4)]


def test_index_walk_of_groups_left_to_htd202() -> None:
    """A loop over experts that picks each one's tokens (``torch.where(expert_mask[e])``) is
    an index walk of groups: HTD202 judges it on the hot path, HTD201 does not claim it."""
    code = """
        import torch
        import torch.nn.functional as F
        class SparseMoE(torch.nn.Module):
            def forward(self, y, selected):
                out = torch.zeros_like(y)
                expert_mask = F.one_hot(selected, num_classes=self.n).permute(2, 1, 0)
                for e in range(self.n):
                    idx, top_x = torch.where(expert_mask[e])
                    out.index_add_(0, top_x, self.experts[e](y[top_x]))
                return out
    """
    assert [(c, r) for c, r, _ in _findings(code, "HTD201", "HTD202")] == [("HTD202", 9)]


def test_rebound_in_the_same_iteration_is_not_carried() -> None:
    """``mask = ...; mask = torch.stack([mask, ...])`` reads the value this iteration bound:
    nothing is carried from the iteration before (nerfstudio's camera-type loop)."""
    code = """
        import torch
        def directions(camera_type: torch.Tensor, coord: torch.Tensor, kinds, out):
            coord = coord.cuda()
            for kind in kinds:
                if kind == 1:
                    mask = (camera_type == kind).squeeze(-1)
                    mask = torch.stack([mask, mask, mask], dim=0)
                    total = int(mask.sum().item())
                    out.append(total)
            return out
    """
    assert [c for c, _, _ in _findings(code, "HTD202")] == []
