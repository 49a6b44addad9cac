"""The analysis fact behind session 45's blind-style triage (docs/precision.md, "Session 45
(triage45)"), with the look-alikes that must keep their verdict.

A calibration cache loader copies each hooked layer's input to the host and packs it into the
record it caches (``ModuleForwardInput(args=[x.detach().cpu() if save_all else MISSING, ...])``,
deepcompressor's ``BaseCalibCacheLoader._convert_layer_inputs``, called from its forward
pre-hook): the input offloaded whole to be replayed layer by layer, never read on the host
(analysis/recorded_offloads.py). A statistic of the input, a record outside calibration code,
or a record whose host copy is read stay reported."""

from __future__ import annotations

from pathlib import Path

from lint_runs import cli_rows

CACHE = """
import torch
class ModuleForwardInput:
    def __init__(self, args, kwargs):
        self.args = args
        self.kwargs = kwargs
class BaseCalibCacheLoader:
    def _convert_layer_inputs(self, m, args, kwargs, save_all=False):
        x = args[0].detach().cpu() if save_all else None
        return ModuleForwardInput(args=[x, *args[1:]], kwargs=kwargs)
    def _layer_forward_pre_hook(self, m, args, kwargs, cache, save_all=False):
        inputs = self._convert_layer_inputs(m, args, kwargs, save_all=save_all)
        cache.append(inputs)
"""

DIRECT = """
import torch
class ModuleForwardInput:
    def __init__(self, args, kwargs):
        self.args = args
        self.kwargs = kwargs
class DiffusionCalibCacheLoader:
    def _convert_layer_inputs(self, m, args, kwargs, save_all=False):
        kwargs = {k: v for k, v in kwargs.items()}
        if "hidden_states" in kwargs:
            hidden_states = kwargs.pop("hidden_states")
        else:
            hidden_states = args[0]
        return ModuleForwardInput(
            args=[hidden_states.detach().cpu() if save_all else None, *args[1:]], kwargs=kwargs
        )
    def _layer_forward_pre_hook(self, m, args, kwargs, cache, save_all=False):
        inputs = self._convert_layer_inputs(m, args, kwargs, save_all=save_all)
        cache.append(inputs)
"""


def test_input_packed_into_a_returned_record_is_an_offload(tmp_path: Path) -> None:
    """deepcompressor 0.1.0 dataset/cache.py:112 and app/llm/quant/dataset.py:226."""
    assert cli_rows(tmp_path, CACHE, "HTD202") == []


def test_input_popped_from_kwargs_into_a_record_is_an_offload(
    tmp_path: Path,
) -> None:
    """deepcompressor 0.1.0 app/diffusion/dataset/calib.py:229/236: an entry popped from a
    copy of the hook's keyword arguments is the input itself."""
    assert cli_rows(tmp_path, DIRECT, "HTD202") == []


def test_an_entry_of_a_filtered_copy_stays_reported(tmp_path: Path) -> None:
    """A comprehension that computes its entries (here ``v * 2``) is no copy of the input."""
    text = DIRECT.replace(
        "{k: v for k, v in kwargs.items()}", "{k: v * 2 for k, v in kwargs.items()}"
    )
    assert cli_rows(tmp_path, text, "HTD202") == [15]


def test_the_record_outside_such_code_stays_reported(tmp_path: Path) -> None:
    text = CACHE.replace("BaseCalibCacheLoader", "BaseLayerRunner")
    assert cli_rows(tmp_path, text, "HTD202") == [9]


def test_a_statistic_in_the_record_stays_reported(tmp_path: Path) -> None:
    text = CACHE.replace("args[0].detach().cpu()", "args[0].abs().amax().cpu()")
    assert cli_rows(tmp_path, text, "HTD202") == [9]


def test_a_record_copy_read_on_the_host_stays_reported(tmp_path: Path) -> None:
    text = CACHE.replace(
        "return ModuleForwardInput(args=[x, *args[1:]], kwargs=kwargs)",
        "print(x.sum())\n        return ModuleForwardInput(args=[x, *args[1:]], kwargs=kwargs)",
    )
    assert cli_rows(tmp_path, text, "HTD202") == [9]


def test_a_record_that_is_read_in_the_function_stays_reported(tmp_path: Path) -> None:
    text = CACHE.replace(
        "return ModuleForwardInput(args=[x, *args[1:]], kwargs=kwargs)",
        "record = ModuleForwardInput(args=[x, *args[1:]], kwargs=kwargs)\n"
        "        print(record.args[0].tolist())\n        return record",
    )
    assert cli_rows(tmp_path, text, "HTD202") == [9]


SESSION = """
import torch
class RyzenAIModelForImageClassification(torch.nn.Module):
    def forward(self, pixel_values: torch.Tensor):
        use_torch = isinstance(pixel_values, torch.Tensor)
        if use_torch:
            pixel_values = pixel_values.cpu().detach().numpy()
        onnx_inputs = {
            "pixel_values": pixel_values,
        }
        outputs = self.model.run(None, onnx_inputs)
        return torch.from_numpy(outputs[0])
"""


def test_a_host_copy_fed_to_an_inference_session_is_its_input(tmp_path: Path) -> None:
    """optimum-amd 0.1.0 ryzenai/modeling.py:495: ONNX Runtime takes host arrays
    (analysis/session_feeds.py)."""
    assert cli_rows(tmp_path, SESSION, "HTD202") == []


def test_a_copy_in_the_feed_display_itself_is_the_session_input(tmp_path: Path) -> None:
    text = """
import torch
class ImageRunner(torch.nn.Module):
    def forward(self, pixel_values: torch.Tensor):
        outputs = self.session.run(["logits"], {"pixel_values": pixel_values.cpu().numpy()})
        return torch.from_numpy(outputs[0])
"""
    assert cli_rows(tmp_path, text, "HTD202") == []
    moved = text.replace('["logits"], {', "{")
    assert cli_rows(tmp_path, moved.replace("session.run", "session.feed"), "HTD202") == [5]


def test_a_feed_copy_also_read_on_the_host_stays_reported(tmp_path: Path) -> None:
    text = SESSION.replace(
        "outputs = self.model.run(None, onnx_inputs)",
        "print(pixel_values.sum())\n        outputs = self.model.run(None, onnx_inputs)",
    )
    assert cli_rows(tmp_path, text, "HTD202") == [7]


def test_a_dict_handed_to_another_call_stays_reported(tmp_path: Path) -> None:
    text = SESSION.replace("self.model.run(None, onnx_inputs)", "self.model.predict(onnx_inputs)")
    assert cli_rows(tmp_path, text, "HTD202") == [7]


def test_a_statistic_fed_to_the_session_stays_reported(tmp_path: Path) -> None:
    """``.sum()`` computes a value on the device: reading it is no hand-off of the input."""
    text = SESSION.replace("pixel_values.cpu().detach().numpy()", "pixel_values.sum().cpu().item()")
    assert cli_rows(tmp_path, text, "HTD202") == [7]
