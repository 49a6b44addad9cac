"""HTD202 MEDIUM false alarms, session 44 (fp202m44): two classes an analysis tells apart.

A model's prediction mode copying its results to the host (mmaction2's ``BMN.predict``,
mmagic's ``forward_inference``/``infer``: ``analysis/prediction_outputs.py``), and a policy's
``get_action`` handing the chosen action back to the rollout loop that steps a host
environment (AgileRL: ``analysis/policy_actions.py``). Their look-alikes stay reported: reads
that are no output (``.item()``, a mask, a copy in a loop), a ``predict()`` of a class that
does not train, and the values a policy stores besides the action (labelled true).
"""

from __future__ import annotations

import pytest
from lint_runs import lint

LOCALIZER = """\
import torch
from mmengine.model import BaseModel
class Localizer(BaseModel):
    def forward(self, inputs, samples, mode="loss"):
        if mode == "loss":
            return self.loss(inputs, samples)
        return self.{method}(inputs, samples)
    def {training}(self, inputs, samples):
        return {{"loss": self.head(inputs).mean()}}
    def {method}(self, inputs, samples):
        scores = self.head(inputs)
        {line}
        return out
"""

MIXIN = """\
import torch
class Trainable(BaseModel):
    def forward_train(self, inputs, samples):
        return self.head(inputs).mean()
class Diffusion(Trainable):
    def val_step(self, data):
        return self.infer(data["prompt"])
    def infer(self, prompt):
        image = self.unet(prompt)
        image = image.cpu().numpy()
        return {"samples": image}
"""

POLICY = """\
import torch
class PPO:
    def {method}(self, obs):
        with torch.no_grad():
            action, log_prob = self.actor(torch.as_tensor(obs, device=self.device))
        {line}
        return out
    def train_step(self, env, obs):
        out = self.{method}(obs)
        return env.step(out)
"""


@pytest.mark.parametrize(
    ("method", "training"),
    [("predict", "loss"), ("infer", "train_step"), ("forward_test", "unrelated")],
)
@pytest.mark.parametrize(
    "line",
    [
        "out = scores.cpu().numpy()",
        "out = self.post_process(scores.cpu(), samples)",
        "out = DataSample(pred_img=scores.cpu())",
    ],
)
def test_a_prediction_methods_copy_is_its_output(method: str, training: str, line: str) -> None:
    code = LOCALIZER.format(method=method, training=training, line=line)
    assert lint(code, "HTD202") == []


def test_the_training_method_may_come_from_a_base_of_the_module() -> None:
    assert lint(MIXIN, "HTD202") == []


def test_a_predict_of_a_class_that_does_not_train_stays_reported() -> None:
    code = LOCALIZER.format(method="predict", training="summary", line="out = scores.cpu()")
    assert lint(code, "HTD202") != []


@pytest.mark.parametrize(
    "line",
    [
        "out = scores[:int((scores > 0.5).sum().item())]",
        "for _ in range(4):\n"
        "            scores = self.head(scores)\n"
        "            out = scores.cpu()",
    ],
)
def test_a_prediction_methods_reads_and_per_item_copies_stay_reported(line: str) -> None:
    code = LOCALIZER.format(method="predict", training="loss", line=line)
    assert lint(code, "HTD202") != []


@pytest.mark.parametrize("method", ["get_action", "select_action", "act", "_greedy_actions"])
@pytest.mark.parametrize(
    "line",
    [
        "out = action.cpu().numpy()",
        "out = self.actor.scale_action(action).cpu().numpy()",
        "scaled_action = action * 2\n        out = scaled_action.detach().cpu()",
    ],
)
def test_a_policys_action_copied_for_the_environment_is_its_input(method: str, line: str) -> None:
    assert lint(POLICY.format(method=method, line=line), "HTD202") == []


@pytest.mark.parametrize(
    "line",
    [
        "out = (action, log_prob.cpu().numpy())",
        "action_logprob = log_prob\n        out = action_logprob.cpu()",
        "out = action.sum().item()",
    ],
)
def test_what_a_policy_stores_besides_the_action_stays_reported(line: str) -> None:
    assert lint(POLICY.format(method="get_action", line=line), "HTD202") != []


def test_an_action_copy_in_a_function_not_named_for_actions_stays_reported() -> None:
    assert lint(POLICY.format(method="rollout", line="out = action.cpu()"), "HTD202") != []


BRIDGE = """\
import jax
import torch
from jax import dlpack as jax_dlpack
{flag}
def _torch2jax(tensor):
    return jax_dlpack.from_dlpack({expr})
class Wrapper:
    def step(self, actions):
        return self.env.step(_torch2jax(actions))
"""

CPU_FLAG = '_CPU = jax.devices()[0].device_kind.lower() == "cpu"'


@pytest.mark.parametrize(
    "flag",
    [CPU_FLAG, '_CPU = jax.default_backend() == "cpu"'],
)
def test_a_copy_only_when_the_backend_is_the_cpu_is_its_hand_off(flag: str) -> None:
    expr = "tensor.contiguous().cpu() if _CPU else tensor.contiguous()"
    assert lint(BRIDGE.format(flag=flag, expr=expr), "HTD202") == []


def test_the_negated_flags_else_arm_is_the_cpu_arm() -> None:
    expr = "tensor if not _CPU else tensor.cpu()"
    assert lint(BRIDGE.format(flag=CPU_FLAG, expr=expr), "HTD202") == []


@pytest.mark.parametrize(
    ("flag", "expr"),
    [
        # the other arm: runs on a GPU backend
        (CPU_FLAG, "tensor if _CPU else tensor.cpu()"),
        # a flag that is no device's kind, or bound twice
        ('_CPU = jax.__version__ == "cpu"', "tensor.cpu() if _CPU else tensor"),
        (CPU_FLAG + "\n_CPU = bool(jax.config.x64)", "tensor.cpu() if _CPU else tensor"),
        # a flag that says CUDA
        (
            '_CPU = jax.devices()[0].device_kind.lower() == "gpu"',
            "tensor.cpu() if _CPU else tensor",
        ),
    ],
)
def test_other_flags_and_arms_stay_reported(flag: str, expr: str) -> None:
    assert lint(BRIDGE.format(flag=flag, expr=expr), "HTD202") != []
