"""The analysis facts behind session 48's blind-style triage of per-step model code
(docs/precision.md, "Session 48 (triage48b)"), each with the look-alike that must keep its
verdict:

- a periodic gate spelt as a method, ``if self._should_log():`` returning ``self.step_count %
  self.log_freq == 0`` (nequip 0.19.1 ``train/callbacks/training_stats.py:178``:
  analysis/gate_methods.py);
- a memo guard whose body fills the cache through a call passing key and cache (nequip
  ``nn/compile.py:310``: analysis/filled_caches.py), in the module and across modules;
- a memo keyed by an input, ``if self._grid is None or self._res != dims:`` (neuraloperator
  2.0.0 ``layers/embeddings.py:139``: analysis/keyed_memos.py);
- a name the function calls ``.transform(...)`` on holds a transform, not a tensor
  (neuraloperator ``data/transforms/data_processors.py:385``: analysis/transform_objects.py);
- ``_select_initial_step`` chooses the first step size once per solve (torchdiffeq 0.2.5
  ``_impl/misc.py:71``: analysis/hot_names.py);
- a ``decode`` annotated ``-> str`` makes text on the host (opacus 1.6.0
  ``examples/char-lstm-classification.py:183``: analysis/text_returns.py)."""

from __future__ import annotations

from pathlib import Path

from lint_runs import cli_rows, package_records

MONITOR = """
import torch


class StatsMonitor:
    def __init__(self, log_freq=100):
        self.log_freq = log_freq
        self.step_count = 0

    def GATE_NAME(self):
        return GATE_BODY

    def _log_weight_stats(self, module):
        stats = {}
        for name, param in module.named_parameters():
            stats[name] = param.data.abs().max().item()
        return stats

    def on_before_optimizer_step(self, trainer, module, optimizer):
        if self.GATE_NAME():
            self._log_weight_stats(module)
        self.step_count += 1
"""


def monitor(name: str, body: str) -> str:
    return MONITOR.replace("GATE_NAME", name).replace("GATE_BODY", body)


def test_private_should_log_gate_is_periodic(tmp_path: Path) -> None:
    assert cli_rows(tmp_path, monitor("_should_log", "True"), "HTD202") == []


def test_method_returning_counter_remainder_is_periodic(tmp_path: Path) -> None:
    body = "self.step_count % self.log_freq == 0"
    assert cli_rows(tmp_path, monitor("_now", body), "HTD202") == []


def test_method_returning_shape_remainder_stays_reported(tmp_path: Path) -> None:
    body = "len(self.__dict__) % 2 == 0"
    assert cli_rows(tmp_path, monitor("_now", body), "HTD202") == [16]


def test_plain_flag_method_stays_reported(tmp_path: Path) -> None:
    assert cli_rows(tmp_path, monitor("_enabled", "True"), "HTD202") == [16]


COMPILED = """
import torch
from torch import nn


class Compiled(nn.Module):
    def __init__(self):
        super().__init__()
        self._cache = {}

    def _compile_variant(self, data, key, cache):
        cache[key] = int(torch.abs(data).sum().item())

    def forward(self, data):
        key = tuple(data.shape)
        cache = self._cache
        if key not in cache:
            FILL
        return data * cache[key]
"""


def test_cache_filled_by_a_call_is_a_memo(tmp_path: Path) -> None:
    text = COMPILED.replace("FILL", "self._compile_variant(data, key, cache)")
    assert cli_rows(tmp_path, text, "HTD202") == []


def test_call_without_the_key_stays_reported(tmp_path: Path) -> None:
    text = COMPILED.replace("FILL", "self._compile_variant(data, 0, cache)")
    assert cli_rows(tmp_path, text, "HTD202") == [12]


HELPER = """
import torch


def make_fx(data):
    return int(torch.abs(data).sum().item())
"""

CALLER = """
from torch import nn

from pkg.helper import make_fx


class Compiled(nn.Module):
    def __init__(self):
        super().__init__()
        self._cache = {}

    def _compile_variant(self, data, key, cache):
        cache[key] = make_fx(data)

    def forward(self, data):
        key = tuple(data.shape)
        cache = self._cache
        if key not in cache:
            FILL
        return cache[key]
"""


def _helper_rows(tmp_path: Path, fill: str) -> list[int]:
    files = {"helper.py": HELPER, "compiled.py": CALLER.replace("FILL", fill)}
    records = package_records(tmp_path, files, "HTD202")
    return sorted(r["location"]["row"] for r in records if r["filename"].endswith("helper.py"))


def test_cache_fill_across_modules_is_a_memo(tmp_path: Path) -> None:
    assert _helper_rows(tmp_path, "self._compile_variant(data, key, cache)") == []


def test_cache_fill_across_modules_without_the_guard_stays_reported(tmp_path: Path) -> None:
    assert _helper_rows(tmp_path, "pass\n        self._compile_variant(data, key, cache)") == [6]


GRID = """
import torch
from torch import nn


class GridEmbedding(nn.Module):
    def __init__(self):
        super().__init__()
        self._grid = None
        self._res = None

    def grid(self, spatial_dims, device):
        if TEST:
            grids = [torch.linspace(0, 1, n) for n in spatial_dims]
            grids = [x.to(device) for x in grids]
            self._grid = grids
            KEEP
        return self._grid

    def forward(self, x):
        grids = self.grid(x.shape[2:], x.device)
        return torch.cat([x, *grids], dim=1)
"""


def grid(test: str, keep: str) -> str:
    return GRID.replace("TEST", test).replace("KEEP", keep)


def test_memo_keyed_by_resolution_runs_once(tmp_path: Path) -> None:
    text = grid("self._grid is None or self._res != spatial_dims", "self._res = spatial_dims")
    assert cli_rows(tmp_path, text, "HTD101") == []


def test_key_not_stored_stays_reported(tmp_path: Path) -> None:
    text = grid("self._grid is None or self._res != spatial_dims", "pass")
    assert cli_rows(tmp_path, text, "HTD101") == [15]


def test_plain_comparison_stays_reported(tmp_path: Path) -> None:
    text = grid("len(spatial_dims) > 0 or self._res != spatial_dims", "self._res = spatial_dims")
    assert cli_rows(tmp_path, text, "HTD101") == [15]


PROCESSOR = """
import torch
from torch import nn


class Processor(nn.Module):
    def __init__(self, in_normalizer=None, device="cuda"):
        super().__init__()
        self.device = device
        self.in_normalizer = in_normalizer.to(self.device)

    def forward(self, x):
        x = x.to(self.device)
        if self.in_normalizer:
            x = USE
        return x
"""


def test_normalizer_with_transform_is_no_tensor(tmp_path: Path) -> None:
    text = PROCESSOR.replace("USE", "self.in_normalizer.transform(x)")
    assert cli_rows(tmp_path, text, "HTD202") == []


def test_moved_attribute_without_transform_stays_reported(tmp_path: Path) -> None:
    text = PROCESSOR.replace("USE", "x * self.in_normalizer")
    assert cli_rows(tmp_path, text, "HTD202") == [14]


SOLVER = """
import torch


def NAME(func, t0, y0, order, rtol, atol, norm):
    scale = atol + torch.abs(y0) * rtol
    d1 = torch.abs(norm(func(t0, y0) / scale))
    h1 = 0.01 / d1
    if d1 <= 1e-15:
        h1 = h1 + 1e-6
    return h1
"""


def test_initial_step_selection_is_not_per_step(tmp_path: Path) -> None:
    assert cli_rows(tmp_path, SOLVER.replace("NAME", "_select_initial_step"), "HTD202") == []


def test_adaptive_step_stays_reported(tmp_path: Path) -> None:
    assert cli_rows(tmp_path, SOLVER.replace("NAME", "_adaptive_step"), "HTD202") == [9]


ENCODER = """
import torch
from torch import nn


class CharEncoder(nn.Module):
    def decode(self, char_ids_tensor) RETURNS:
        char_ids = char_ids_tensor.cpu().detach().tolist()
        return OUT
"""


def test_decode_to_text_is_not_per_step(tmp_path: Path) -> None:
    text = ENCODER.replace("RETURNS", "-> str").replace("OUT", "bytes(char_ids).decode()")
    assert cli_rows(tmp_path, text, "HTD202") == []


def test_decode_to_tensor_stays_reported(tmp_path: Path) -> None:
    text = ENCODER.replace("RETURNS", "-> torch.Tensor").replace("OUT", "torch.tensor(char_ids)")
    assert cli_rows(tmp_path, text, "HTD202") == [8]
