"""Session 51 (mine51b): two upstream fixes mined from pull-request threads, missed before.

- x-transformers 2.25.2 ``attend.py:470``/``:646`` (its PR 355): ``row_is_entirely_masked =
  None`` then, in one arm, ``~mask.any(dim=-1)``; ``if exists(row_is_entirely_masked) and
  row_is_entirely_masked.any():`` reads the device mask on every attention forward. The ``None``
  placeholder was a binding that proved nothing, so the name was no proven tensor. A read of it
  as a tensor cannot be of the ``None``: the other bindings decide
  (``analysis/none_defaults.none_placeholder``, asked by ``tensor_kinds.tensor_evidence``).
- LibreYOLO 1.5.0 ``yolo9/loss.py:580`` (its PR 765): ``targets_cls.sum().clamp_min(1.0)
  .item()`` every training step; ``clamp_min``/``clamp_max`` are methods only tensors have
  (numpy says ``clip``), now in ``torch_api.TENSOR_ONLY_METHODS``.
"""

from __future__ import annotations

from lint_runs import lint

OPTIONAL_MASK = """
import torch


def exists(v):
    return v is not None


class Attend(torch.nn.Module):
    def forward(self, sim, v, mask=None):
        row_is_entirely_masked = None
        if exists(mask):
            row_is_entirely_masked = ~mask.any(dim=-1)
        out = sim.softmax(dim=-1) @ v
        if exists(row_is_entirely_masked) and row_is_entirely_masked.any():
            out = out.masked_fill(row_is_entirely_masked[..., None], 0.0)
        return out
"""

# the post-fix shape: only the Python `None` test is left
NONE_TEST_ONLY = OPTIONAL_MASK.replace(
    "if exists(row_is_entirely_masked) and row_is_entirely_masked.any():",
    "if exists(row_is_entirely_masked):",
)

# the placeholder's other binding is host data: no tensor to read
HOST_OPTIONAL = """
import torch


class Crop(torch.nn.Module):
    def forward(self, x: torch.Tensor, lengths: list[int] | None = None):
        longest = None
        if lengths is not None:
            longest = max(lengths)
        if longest is not None and longest > 16:
            x = x[:, :16]
        return x
"""

# only ever None: nothing proves a tensor
ONLY_NONE = """
import torch


class Crop(torch.nn.Module):
    def forward(self, x: torch.Tensor):
        extra = None
        if extra:
            x = x * 2
        return x
"""

CLAMPED_NORM = """
import torch
from torch import Tensor


class DetectionLoss:
    def _global_cls_norm(self, targets_cls: Tensor) -> float:
        return float(targets_cls.detach().float().sum().clamp_min(1.0).item())

    def __call__(self, predictions: Tensor, targets: Tensor) -> Tensor:
        cls_norm = self._global_cls_norm(targets[..., 0])
        return (predictions - targets).abs().sum() / cls_norm
"""

# numpy clips with `clip`: a host count is no tensor
NUMPY_NORM = """
import numpy as np
import torch
from torch import Tensor


class DetectionLoss:
    def _norm(self, counts) -> float:
        return float(np.asarray(counts).sum().clip(1.0, None).item())

    def __call__(self, predictions: Tensor, targets: Tensor, counts) -> Tensor:
        return (predictions - targets).abs().sum() / self._norm(counts)
"""


def _rows(code: str) -> list[int]:
    return sorted(f.start.row for f in lint(code, "HTD202"))


def test_optional_mask_read_as_a_tensor_is_reported() -> None:
    assert _rows(OPTIONAL_MASK) == [15]


def test_none_test_alone_stays_quiet() -> None:
    assert _rows(NONE_TEST_ONLY) == []


def test_placeholder_with_a_host_binding_stays_quiet() -> None:
    assert _rows(HOST_OPTIONAL) == []


def test_a_name_only_ever_none_stays_quiet() -> None:
    assert _rows(ONLY_NONE) == []


def test_clamp_min_proves_a_tensor() -> None:
    assert _rows(CLAMPED_NORM) == [8]


def test_numpy_clip_stays_quiet() -> None:
    assert _rows(NUMPY_NORM) == []
