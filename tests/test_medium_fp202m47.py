"""HTD202 false alarms, session 47 (fp202m47): a read in an arm that no call of its function takes.

torchmetrics' ``to_onehot(label_tensor, num_classes=None)`` reads ``label_tensor.max().item()``
only under ``if num_classes is None:``, and its one caller (the hinge update) passes
``max(2, preds.shape[1])``; AReaL's ``unpack_sequence`` copies ``cu_seqlens`` to the host only
after ``if lens is not None: return ...``, and its one caller passes ``lens=seqlens`` (a list
built just before). ``analysis/settled_arms.py`` drops such reads when every call of the
function is known and settles the tested parameter; a call that leaves it to its ``None``
default, passes ``None``, or passes a value that may be None (an attribute, a parameter) keeps
the read reported, as does a flag's arm (``if check:``) that some call leaves on.
"""

from __future__ import annotations

import pytest
from lint_runs import lint

ONEHOT = """\
import torch
from torch import nn

def to_onehot(labels, num_classes=None):
    if num_classes is None:
        num_classes = int(labels.max().item() + 1)
    return torch.zeros(labels.shape[0], num_classes, device=labels.device)

class Loss(nn.Module):
    def forward(self, preds, target):
        t = to_onehot(target{arg})
        return (preds - t).abs().mean()
"""

UNPACK = """\
import torch
from torch import nn

def unpack(x, cu_seqlens=None, lens=None):
    if lens is not None:
        return torch.split(x, lens)
    return torch.split(x, (cu_seqlens[1:] - cu_seqlens[:-1]).cpu().tolist())

class Block(nn.Module):
    def forward(self, h, cu, counts):
        {call}
        return parts
"""

CHECK = """\
import torch
from torch import nn

def build_cdf(pdf, check=True):
    q = torch.cumsum(pdf, -1)
    if check:
        if (q[1:] - q[:-1] < 2).any():
            raise ValueError("increase the range")
    return q

class Coder(nn.Module):
    def forward(self, pdf):
        return build_cdf(pdf{arg})
"""

MAX_LEN = """\
import torch
from torch import nn

def length_mask(lengths, max_len=None):
    final = lengths.max().item() if not max_len else max_len
    return torch.arange(final, device=lengths.device)[None, :] < lengths[:, None]

class Conditioner(nn.Module):
    def forward(self, x, lengths):
        return length_mask(lengths{arg})
"""


def _rows(code: str) -> list[int]:
    return sorted(f.start.row for f in lint(code, "HTD202"))


@pytest.mark.parametrize(
    "arg", [", preds.shape[1]", ", max(2, preds.shape[1])", ", 4", ", num_classes=4"]
)
def test_a_none_arm_every_call_fills_is_not_reported(arg: str) -> None:
    assert _rows(ONEHOT.format(arg=arg)) == []


@pytest.mark.parametrize("arg", ["", ", None", ", self.n", ", num_classes=preds.n or None"])
def test_a_none_arm_a_call_may_take_stays_reported(arg: str) -> None:
    assert _rows(ONEHOT.format(arg=arg)) == [6]


def test_one_call_leaving_the_default_keeps_the_arm_reported() -> None:
    code = ONEHOT.format(arg=", preds.shape[1]") + (
        "\nclass Other(nn.Module):\n    def forward(self, target):\n"
        "        return to_onehot(target)\n"
    )
    assert _rows(code) == [6]


def test_a_parameter_bound_before_its_test_is_not_what_the_calls_pass() -> None:
    code = ONEHOT.format(arg=", 4").replace(
        "    if num_classes is None:",
        "    num_classes = num_classes or None\n    if num_classes is None:",
    )
    assert _rows(code) == [7]


@pytest.mark.parametrize(
    "call",
    [
        "sizes = [c for c in counts]\n        parts = unpack(h, lens=sizes)",
        "parts = unpack(h, lens=[2, 3])",
    ],
)
def test_a_read_after_an_early_return_every_call_takes_is_not_reported(call: str) -> None:
    assert _rows(UNPACK.format(call=call)) == []


@pytest.mark.parametrize(
    "call", ["parts = unpack(h, cu_seqlens=cu)", "parts = unpack(h, lens=counts)"]
)
def test_a_read_after_an_early_return_a_call_may_skip_stays_reported(call: str) -> None:
    assert _rows(UNPACK.format(call=call)) == [7]


@pytest.mark.parametrize("arg", [", check=False", ", False"])
def test_a_flag_arm_every_call_turns_off_is_not_reported(arg: str) -> None:
    assert _rows(CHECK.format(arg=arg)) == []


@pytest.mark.parametrize("arg", ["", ", check=True", ", self.strict"])
def test_a_flag_arm_a_call_leaves_on_stays_reported(arg: str) -> None:
    assert _rows(CHECK.format(arg=arg)) == [7]


def test_a_conditional_value_every_call_settles_is_not_reported() -> None:
    assert _rows(MAX_LEN.format(arg=", max_len=64")) == []


@pytest.mark.parametrize("arg", ["", ", max_len=x.shape[1]"])
def test_a_conditional_value_a_call_may_take_stays_reported(arg: str) -> None:
    # ``x.shape[1]`` is never None but may be 0: ``not max_len`` may hold.
    assert _rows(MAX_LEN.format(arg=arg)) == [5]


OWN_LOOP = """\
import torch

def evaluate(model, data, device, is_onnx=False):
    for x in data:
        batch = x.to(device)
        if is_onnx:
            ids = batch.cpu().numpy()
        out = model(batch)
    return out

def main(model, data):
    return evaluate(model, data, "cuda")
"""


def test_an_option_of_a_function_hot_by_its_own_loop_stays_reported() -> None:
    # amd-quark's ``ppl_eval_with_synthetic_dataset(..., is_onnx_model=False)``: no call in
    # the project takes the ONNX arm, but the loop makes it hot for any caller (labelled true).
    assert 7 in _rows(OWN_LOOP)


POOLING = """\
import torch
from torch import nn

class Pooling(nn.Module):
    def _length_to_mask(self, length, max_len=None):
        if max_len is None:
            max_len = length.max().long().item()
        return torch.arange(max_len, device=length.device).expand(len(length), max_len)

    def forward(self, hidden_states):
        seq_length = {length}
        lengths = torch.ones(hidden_states.shape[0], device=hidden_states.device)
        return self._length_to_mask(lengths * seq_length, max_len=seq_length)
"""


def test_a_method_whose_one_call_passes_a_size_is_not_reported() -> None:
    # qwen-tts' ECAPA pooling (``modeling_qwen3_tts.py:201``, relabelled clean this session).
    assert _rows(POOLING.format(length="hidden_states.shape[-1]")) == []


def test_a_method_whose_call_passes_a_name_that_may_be_none_stays_reported() -> None:
    assert _rows(POOLING.format(length="self.max_len")) == [7]
