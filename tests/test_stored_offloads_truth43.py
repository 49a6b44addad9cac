"""A calibration pass's input offloaded to the host and only stored (session 43, truth43):
AWQ and SmoothQuant observers, AutoAWQ's ``cache_input_hook``, a weight backed up before a
scale search. The copy is the operation (it frees device memory for one offline pass), the
host never reads the values: HTD202 leaves it alone. A statistic computed from the input, a
copy read on the host, and the same store outside calibration code stay reported."""

from __future__ import annotations

import pytest
from lint_runs import lint

OBSERVER = """\
import torch
from torch import nn
class {cls}(nn.Module):
    def __init__(self):
        super().__init__()
        self.inputs = []
        self.total = 0.0
    @torch.no_grad()
    def forward(self, input: torch.Tensor, output: torch.Tensor):
        {line}
"""

HOOK = """\
import functools
from collections import defaultdict
import torch
class AwqQuantizer:
    def _get_input_feat(self, layer, named_linears):
        def cache_input_hook(m, x, y, name, feat_dict):
            x = x[0]
            x = x.detach().cpu()
            {use}
        input_feat = defaultdict(list)
        for name in named_linears:
            named_linears[name].register_forward_hook(
                functools.partial(cache_input_hook, name=name, feat_dict=input_feat)
            )
        layer(torch.randn(2, 4, device="cuda"))
        return input_feat
"""

BACKUP = """\
import torch
class AwqProcessor:
    def _search_best_scale(self, fc, scales):
        def pre_hook(fc, input):
            fc.weight_bck = fc.weight.cpu().clone()
            fc.weight.copy_(fc.weight * scales)
            return input
        fc.register_forward_pre_hook(pre_hook)
"""


@pytest.mark.parametrize(
    "line",
    [
        'self.inputs.append(input.to("cpu"))',
        "self.inputs.append(input.detach().reshape(-1, 4).cpu())",
        'self.inputs.setdefault("x", []).append(input[0].cpu())',
    ],
)
def test_an_observers_input_stored_on_the_host_is_an_offload(line: str) -> None:
    assert lint(OBSERVER.format(cls="AWQObserver", line=line), "HTD202") == []


def test_the_same_observer_is_reported_on_main_shapes() -> None:
    code = OBSERVER.format(cls="AWQObserver", line='self.inputs.append(input.to("cpu"))')
    assert lint(code.replace("AWQObserver", "Recorder"), "HTD202") != []


@pytest.mark.parametrize(
    "line",
    [
        # a statistic of the input: accumulate on the device, read once
        'self.inputs.append(torch.max(input).to("cpu"))',
        # a copy read on the host
        'self.total += float(input.to("cpu").sum())',
        'self.inputs.append(input.to("cpu").numpy())',
    ],
)
def test_look_alikes_in_an_observer_stay_reported(line: str) -> None:
    assert lint(OBSERVER.format(cls="AWQObserver", line=line), "HTD202") != []


def test_a_store_outside_calibration_code_stays_reported() -> None:
    line = 'self.inputs.append(input.to("cpu"))'
    assert lint(OBSERVER.format(cls="ActivationOffloader", line=line), "HTD202") != []


def test_a_hooks_input_bound_then_stored_is_an_offload() -> None:
    use = "if x.numel() > 0:\n                feat_dict[name].append(x)"
    assert lint(HOOK.format(use=use), "HTD202") == []


def test_a_hooks_input_bound_then_read_stays_reported() -> None:
    use = "feat_dict[name].append(x)\n            print(x.abs().max())"
    assert lint(HOOK.format(use=use), "HTD202") != []


def test_a_weight_backed_up_before_the_search_is_an_offload() -> None:
    assert lint(BACKUP, "HTD202") == []
