"""Session 39 (mine39): a sampler's schedule handed in bare, and a pad built on the host.

k-diffusion's samplers take the noise schedule as a parameter with no annotation, walk it with
``for i in trange(len(sigmas) - 1)`` and run the model on its element every step; the
caller made it on the model's device, so ``if sigmas[i + 1] == 0:`` waits for each step
(``analysis/step_schedules.py``, HTD202). kokoro 0.7's encoders write a device activation into
a host ``torch.zeros`` pad and move the pad back to the activation's device on every forward
(``analysis/host_pads.py``, HTD303).
"""

from __future__ import annotations

from lint_runs import lint

SAMPLER = """
from tqdm.auto import trange

def sample(model, x, sigmas{annotation}):
    s_in = x.new_ones([x.shape[0]])
    for i in trange(len(sigmas) - 1):
        sigma_hat = sigmas[i] * 1.5
        denoised = model(x, {argument})
        if sigmas[i + 1] == 0:
            x = denoised
        else:
            x = x + (x - denoised) * float(sigmas[i].item())
    return x
"""


def _rows(code: str, rule: str) -> list[int]:
    return sorted(f.start.row for f in lint(code, rule))


def test_a_bare_schedule_walked_by_a_model_loop_is_read_every_step() -> None:
    code = SAMPLER.format(annotation="", argument="sigma_hat * s_in").replace(
        "def sample(", "def run("
    )
    assert _rows(code, "HTD202") == [9, 12]


def test_a_tensor_annotated_schedule_is_read_every_step() -> None:
    code = SAMPLER.format(annotation=": torch.Tensor", argument="sigmas[i] * s_in")
    code = code.replace(" * float(sigmas[i].item())", "").replace("def sample(", "def run(")
    assert _rows("import torch\n" + code, "HTD202") == [10]


def test_a_schedule_annotated_as_floats_is_host_data() -> None:
    code = SAMPLER.format(annotation=": list[float]", argument="sigmas[i] * s_in")
    code = code.replace(" * float(sigmas[i].item())", "").replace("def sample(", "def run(")
    assert _rows(code, "HTD202") == []


def test_a_collection_whose_items_are_the_model_input_is_no_schedule() -> None:
    code = SAMPLER.format(annotation="", argument="sigmas[i]").replace("def sample(", "def run(")
    assert _rows(code, "HTD202") == []


PAD = """
import torch

class Encoder(torch.nn.Module):
    def forward(self, x, m):
        x = self.lstm(x)
        x_pad = torch.zeros([x.shape[0], m.shape[-1]]{device})
        x_pad[:, :x.shape[-1]] = {value}
        return x_pad.to(x.device)
"""


def test_a_host_pad_of_a_tensor_moved_to_its_device_is_a_round_trip() -> None:
    assert _rows(PAD.format(device="", value="x"), "HTD303") == [9]


def test_a_pad_built_on_the_device_is_no_round_trip() -> None:
    assert _rows(PAD.format(device=", device=x.device", value="x"), "HTD303") == []


def test_a_pad_filled_with_another_value_is_left_to_htd301() -> None:
    assert _rows(PAD.format(device="", value="m"), "HTD303") == []
