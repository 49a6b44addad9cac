"""Session 29 (peritem29): the per-item transfer family's held-out misses (docs/recall.md,
"Session 29 (peritem29)"). rfdetr 1.8.3's ``predict`` opened, checked and converted each input
image on the host, then appended ``img_tensor.to(self.model.device)`` to a list: one pageable
copy per image, which HTD101 left alone because the loop did other work, and because
``self.model.device`` read as another tensor's device. Each beside its look-alikes."""

from __future__ import annotations

from lint_runs import lint

_PREDICT = """
    import torch
    import torchvision.transforms.functional as F
    from PIL import Image
    class Detector:
        def predict(self, images):
            sizes, batch = [], []
            for img in images:
                if isinstance(img, str):
                    img = Image.open(img)
                if not isinstance(img, torch.Tensor):
                    img = F.to_tensor(img)
                if (img > 1).any():
                    raise ValueError("not normalised")
                img_tensor = img
                sizes.append(img_tensor.shape[1:])
                batch.append({moved})
            return torch.stack(batch), sizes
"""


def _rows(code: str) -> list[tuple[int, str]]:
    return [(f.start.row, f.confidence.value) for f in lint(code, "HTD101")]


def test_input_loop_doing_host_work_reports_each_move() -> None:
    assert _rows(_PREDICT.format(moved="img_tensor.to(self.model.device)")) == [(17, "medium")]


def test_pinned_non_blocking_move_is_still_one_copy_per_item() -> None:
    # A non-blocking copy of items of unknown placement is judged as the comprehension
    # `[c.to(device, non_blocking=True) for c in crops]` is: one copy per item, MEDIUM.
    moved = "img_tensor.to(self.model.device, non_blocking=True)"
    assert _rows(_PREDICT.format(moved=moved)) == [(17, "medium")]


def test_converted_item_bound_first_is_certain() -> None:
    code = """
        import numpy as np
        import torch
        def encode(arrays, device):
            out = []
            for a in arrays:
                arr = np.asarray(a, dtype=np.float32)
                t = torch.from_numpy(arr)
                if t.ndim == 1:
                    t = t.unsqueeze(0)
                out.append(t.to(device))
            return out
    """
    assert _rows(code) == [(11, "high")]


def test_a_moved_batch_the_model_consumes_is_left_alone() -> None:
    code = """
        def run(self, loader, device):
            outs = []
            for batch in loader:
                x = batch["x"].to(device)
                outs.append(x)
                if len(outs) > 2:
                    outs.pop(0)
                y = self.model(x)
            return outs
    """
    assert _rows(code) == []


def test_what_a_method_returns_is_not_the_item() -> None:
    code = """
        def run(self, reqs, device):
            out = []
            for r in reqs:
                if r is None:
                    continue
                x = r.load()
                h = self.encoder(r.pixels)
                out.append(x.to(device))
                out.append(h.to(device))
            return out
    """
    assert _rows(code) == []


def test_moves_in_a_branch_or_to_another_tensors_device_are_left_alone() -> None:
    code = """
        def run(items, ref, device):
            out, other = [], []
            for x in items:
                if x.ndim == 2:
                    out.append(x.to(device))
                other.append(x.to(ref.device))
                print(x.shape)
            return out, other
    """
    assert _rows(code) == []


def test_a_loop_that_runs_once_is_left_alone() -> None:
    code = """
        import torch
        class Table:
            def __init__(self, paths, device):
                self.rows = []
                for p in paths:
                    t = torch.load(p)
                    print(p)
                    self.rows.append(t.to(device))
    """
    assert _rows(code) == []


# chronos-forecasting 1.3's Chronos-Bolt kept the growing context where the caller gave it,
# copied it whole to the model's device every step and brought each prediction back to it.
_FORECAST = """
    import torch
    class Pipeline:
        def predict(self, context, remaining):
            context_tensor = self._prepare(context){moved}
            while remaining > 0:
                prediction = self.model(
                    context=context_tensor.to(device=self.model.device, dtype=torch.float32),
                ).quantile_preds.to(context_tensor)
                remaining -= prediction.shape[-1]
                if remaining <= 0:
                    break
                central_prediction = prediction[:, 4]
                context_tensor = torch.cat([context_tensor, central_prediction], dim=-1)
            return context_tensor
"""


def _carried(code: str) -> list[tuple[int, str]]:
    return [(f.start.row, f.confidence.value) for f in lint(code, "HTD302")]


def test_history_grown_where_it_lives_is_copied_every_step() -> None:
    assert _carried(_FORECAST.format(moved="")) == [(8, "medium")]


def test_history_moved_once_before_the_loop_is_left_alone() -> None:
    # chronos 1.5's fix: the context is on the model's device, so the copy in the loop is a
    # no-op the analysis sees through (a device tensor is not copied).
    assert _carried(_FORECAST.format(moved=".to(self.model.device)")) == []


def test_history_grown_on_the_device_is_left_alone() -> None:
    code = """
        import torch
        def generate(model, ids, n, device):
            for _ in range(n):
                logits = model(ids.to(device))
                ids = torch.cat([ids, logits[:, -1].argmax(-1, keepdim=True)], dim=-1)
                other = ids.to(device)
                other = torch.cat([other, ids[:, -1:]], dim=-1)
            return ids, other
    """
    assert _carried(code) == []


def test_history_of_host_tokens_is_certain() -> None:
    code = """
        import torch
        def generate(model, ids, n, device):
            for _ in range(n):
                out = model(ids.to(device))
                nxt = out.logits[:, -1].argmax(-1, keepdim=True)
                host = nxt.cpu()
                ids = torch.cat([ids, host], dim=-1)
            return ids
    """
    assert _carried(code) == [(5, "high")]


# exllamav3 1.6.4's MTP drafting copied each step's sampled ids (blocking) into their own
# column of a pinned host buffer; 1.6.5 keeps the columns on the device and copies once.
_DRAFT = """
    import torch
    class Generator:
        def __init__(self, bs, n):
            self.draft_ids_pinned = torch.empty((bs, n), dtype=torch.long, pin_memory=True)
        def draft(self, ids, params, window, bs):
            for idx in {steps}:
                state = self.draft_model.forward(ids, params)
                new_ids = self.draft_model.sample_from_state(state, params)
                self.draft_ids_pinned[:bs, idx:idx + 1].copy_(new_ids{blocking})
                ids = new_ids
"""


def test_each_step_output_read_back_into_its_slot() -> None:
    assert _rows(_DRAFT.format(steps="range(window)", blocking="")) == [(10, "medium")]


def test_non_blocking_readback_or_a_collection_is_left_alone() -> None:
    code = _DRAFT.format(steps="range(window)", blocking=", non_blocking=True")
    assert _rows(code) == []
    assert _rows(_DRAFT.format(steps="self.steps", blocking="")) == []
