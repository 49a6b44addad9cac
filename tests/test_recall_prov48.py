"""Session 48 (prov48): recall misses where the tensor was not proven.

unsloth 2026.10.4 ``models/diffusion_block.py:190`` tests ``not bool(valid.all())`` in a
helper, ``attention_mask(self, length, block_size, valid, dtype, device)``, every training step.
``valid`` is proven a tensor only through three steps, each missing before:

- ``valid = torch.ones_like(ids, dtype=torch.bool) if mask is None else mask.bool()``: a
  conditional expression is surely a tensor when both arms are (``tensor_kinds``);
- the method ``attention_mask`` shares its name with the local ``attention_mask =
  inputs.get("attention_mask")`` of another method: a bare name inside a function is a local
  or a global, never a method, so it no longer hides the method's calls
  (``argument_flow.passed``);
- the tensor reaches the test through three parameters from a tuple item of a helper's return
  (``clean, maskable, valid = self.build_batch(...)``): one more step of ``tensor_evidence``
  and of ``returned_tensors``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lint_runs import lint

# unsloth 2026.10.4 models/diffusion_block.py:130-265, shortened (one module).
DIFFUSION = """\
import torch
class BlockDiffusion(torch.nn.Module):
    def build(self, input_ids, attention_mask):
        valid = {valid}
        return input_ids, valid
    def attention_mask(self, length, valid):
        if not bool(valid.all()):
            return valid[:, None, :length]
        return None
    def forward(self, input_ids, attention_mask=None):
        ids, valid = self.build(input_ids, attention_mask)
        return self.attention_mask(ids.shape[1], valid)
"""


def _rows(code: str, *codes: str) -> list[tuple[int, str]]:
    return sorted((f.start.row, f.confidence) for f in lint(code, *codes))


def test_a_conditional_of_two_tensors_passed_to_a_helper_is_a_tensor() -> None:
    valid = (
        "torch.ones_like(input_ids, dtype=torch.bool) if attention_mask is None"
        " else attention_mask.bool()"
    )
    assert _rows(DIFFUSION.format(valid=valid), "HTD202") == [(7, "medium")]


@pytest.mark.parametrize(
    "valid",
    [
        # one arm a Python list: no tensor for sure
        "[True] * input_ids.shape[1] if attention_mask is None else attention_mask.bool()",
        # one arm of unknown kind
        "input_ids if attention_mask is None else attention_mask",
    ],
)
def test_a_conditional_with_an_arm_of_another_kind_is_not(valid: str) -> None:
    assert _rows(DIFFUSION.format(valid=valid), "HTD202") == []


# A method whose name a local of another method shares; its one call passes a tensor.
SHARED_NAME = """\
import torch
class Sampler(torch.nn.Module):
    def mask(self, scores):
        if bool(scores.all()):
            return scores
        return scores.nan_to_num()
    def prepare(self, batch):
        mask = batch.get("mask")
        return mask
    def forward(self, logits):
        return self.mask({passed})
"""


def test_a_local_named_as_the_method_hides_none_of_its_calls() -> None:
    assert _rows(SHARED_NAME.format(passed="logits.float()"), "HTD202") == [(4, "medium")]


def test_the_method_called_with_host_data_stays_clean() -> None:
    assert _rows(SHARED_NAME.format(passed="[0.0, 1.0]"), "HTD202") == []


def test_a_method_passed_on_through_self_stays_unknown() -> None:
    code = SHARED_NAME.format(passed="logits.float()") + (
        "    def install(self, hooks):\n        hooks.append(self.mask)\n"
    )
    assert _rows(code, "HTD202") == []


# The unsloth shape whole: the tuple item travels through three helpers' parameters.
CHAIN = """\
import torch
class Profile(torch.nn.Module):
    def build_batch(self, inputs):
        input_ids = inputs["input_ids"]
        attention_mask = inputs.get("attention_mask")
        valid = (
            torch.ones_like(input_ids, dtype=torch.bool)
            if attention_mask is None
            else attention_mask.bool()
        )
        return input_ids, valid
    def attention_mask(self, length, valid):
        if not bool(valid.all()):
            return valid[:, None, :length]
        return None
    def hidden(self, clean, valid):
        return self.attention_mask(clean.shape[1], valid)
    def loss_from_noise(self, clean, valid):
        return self.hidden(clean, valid)
    def forward(self, inputs):
        clean, valid = self.build_batch(inputs)
        return self.loss_from_noise(clean, valid)
"""


def test_three_parameters_from_a_tuple_item_are_followed() -> None:
    assert _rows(CHAIN, "HTD202") == [(13, "medium")]


def test_the_real_unsloth_file_reports_the_test() -> None:
    path = Path.home() / ".cache/h2dlint/corpus/unsloth-2026.10.4/unsloth/models/diffusion_block.py"
    if not path.exists():
        pytest.skip("corpus not fetched")
    rows = {f.start.row for f in lint(path.read_text(), "HTD202")}
    assert 190 in rows
