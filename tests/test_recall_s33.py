"""Session 33 (recall33): misses with a general cause.

- A helper of the project that returns the accelerator found (diffsynth's
  ``get_device_type()``: ``device = "cuda"``/``"npu"``/``"cpu"`` by what is available, then
  ``return device``) names a device wherever it is called, as a ``device`` parameter does;
  a helper that picks the host or the GPU by a flag of its caller names neither.
- A tokenizer's or processor's batch field read before the function sets that field (diffsynth's
  Step1x embedder: ``old_ids = inputs.input_ids`` ... ``inputs.input_ids = new.to(dev)``, the
  batch made anew per prompt) is the host tensor the processor returned.
- The list a helper of the project returns (eole's ``position_ids_in_meshgrid``: host aranges
  appended per image) has its items where the helper's appended tensors are.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lint_runs import lint, lint_project, write_files

DEVICES = """
    import torch

    IS_CUDA_AVAILABLE = torch.cuda.is_available()

    def get_device_type() -> str:
        if IS_CUDA_AVAILABLE:
            device = "cuda"
        else:
            device = "cpu"
        return device

    def pick(offload: bool) -> str:
        return "cpu" if offload else "cuda"
"""
ENCODER = """
    import torch
    from pkg.devices import get_device_type, pick

    class Encoder:
        def encode(self, prompts, pieces):
            for text in prompts:
                inputs = self.processor(text=[text], padding=True, return_tensors="pt")
                old_ids = inputs.input_ids
                token_list = []
                for piece in pieces:
                    piece_inputs = self.processor(text=piece, return_tensors="pt")
                    token_list.append(piece_inputs.input_ids)
                new_ids = torch.cat(token_list, dim=1).to(get_device_type())
                new_ids = new_ids.to(old_ids.device)
                inputs.input_ids = new_ids.to(get_device_type())
                yield inputs

        def picked(self, ids, offload):
            return torch.tensor(ids).to(pick(offload)).tolist()
"""


def _rows(records: list[dict[str, Any]], code: str) -> list[tuple[str, int]]:
    return sorted(
        (r["filename"].rsplit("/", 1)[-1], r["location"]["row"])
        for r in records
        if r["code"] == code
    )


def test_a_device_helpers_result_and_a_batch_field_read_before_it_is_set(tmp_path: Path) -> None:
    write_files(
        tmp_path, {"pkg/__init__.py": "", "pkg/devices.py": DEVICES, "pkg/encoder.py": ENCODER}
    )
    # the new ids go to the accelerator and straight back to where the processor's ids are
    assert _rows(lint_project(tmp_path, "HTD303"), "HTD303") == [("encoder.py", 15)]


def test_a_field_set_before_the_read_keeps_it_unknown() -> None:
    code = """
        import torch
        def f(processor, prompts, device):
            for text in prompts:
                inputs = processor(text=[text], return_tensors="pt")
                inputs.input_ids = inputs.input_ids.to(device)
                new_ids = torch.tensor([1, 2]).to(device)
                new_ids = new_ids.to(inputs.input_ids.device)
    """
    assert lint(code, "HTD303") == []


def test_a_field_set_after_the_read_of_a_batch_made_once_outside_the_loop() -> None:
    code = """
        import torch
        def f(processor, prompt, steps, device):
            inputs = processor(text=[prompt], return_tensors="pt")
            for _ in range(steps):
                new_ids = torch.tensor([1, 2]).to(device)
                new_ids = new_ids.to(inputs.input_ids.device)
                inputs.input_ids = new_ids.to(device)
    """
    # the set in one pass changes the batch the next pass reads: not proven host
    assert lint(code, "HTD303") == []


POSITIONS = """
    import torch

    def position_ids(patches, max_width):
        positions = []
        for patch in patches:
            height, width = patch.shape[-2:]
            mesh = torch.meshgrid(torch.arange(height), torch.arange(width), indexing="ij")
            ids = torch.stack(mesh, dim=-1).reshape(-1, 2)
            positions.append(ids[:, 0] * max_width + ids[:, 1])
        return positions

    def device_ids(patches):
        return [torch.arange(p.shape[-1], device=p.device) for p in patches]
"""
VISION = """
    import torch
    from torch import nn
    from pkg.positions import device_ids, position_ids

    class Vision(nn.Module):
        @property
        def device(self):
            return next(self.parameters()).device

        def forward(self, images):
            patches = [self.patch_conv(img) for img in images]
            positions = position_ids(patches, max_width=16)
            x = self.position_embeddings(torch.stack(positions).to(self.device))
            y = torch.cat(device_ids(patches)).to(self.device)
            return x, y
"""


def test_the_list_a_helper_returns_has_its_appended_items_placement(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/positions.py": POSITIONS, "pkg/vision.py": VISION},
    )
    assert _rows(lint_project(tmp_path, "HTD104"), "HTD104") == [("vision.py", 14)]


BEAM = """
    import torch

    class BeamSearch:
        def __init__(self, batch_size, device):
            self.topk_scores = torch.zeros(batch_size, 4, device=device)
            self.best_scores = torch.full([batch_size], -1e10, device=device)

        def forward(self, i, finished, ratio, pred_len):
            if ratio > 0:
                finish_flag = (
                    (self.topk_scores[i, 0] / pred_len) <= self.best_scores[i]
                ) or all(finished)
            else:
                finish_flag = finished[0]
            stop = not (self.best_scores[i] > 0)
            last = all(finished) and (self.best_scores[i] > 0)
            if (self.best_scores[i] > 0) or all(finished):
                return finish_flag, stop, last
            return float(not self.best_scores.any())
"""


def test_the_left_operand_of_and_or_and_of_not_is_read_on_the_host() -> None:
    rows = sorted((f.start.row, f.message.split(" syncs")[0]) for f in lint(BEAM, "HTD202"))
    assert [row for row, _ in rows] == [12, 16, 18, 20]
    assert "as an `or` operand" in rows[0][1]
    assert "as the operand of `not`" in rows[1][1]
    assert "as an `if` test" in rows[2][1]  # judged as the test, once
