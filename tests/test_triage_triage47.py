"""The analysis facts behind session 47's blind-style triage (docs/precision.md, "Session 47
(triage47)"), each with the look-alike that must keep its verdict.

- FuxiCTR's ``FeatureEmbeddingDict.dict2tensor``: ``if feature in embedding_dict`` for the
  ``feature`` of ``for feature, spec in ...features.items()``: a dict key tested against a dict
  of device embeddings is Python's membership test (analysis/mapping_keys_loops.py), where a
  number tested against a device tensor (``Tensor.__contains__``) stays a read of the device.
- RL4CO's host instance generators: ``torch.multinomial(input=torch.ones(n) / n, ...)`` is a
  host tensor (analysis/torch_api.py, DRAWN_ON_INPUT_FUNCTIONS), where a draw from the
  device's probabilities stays on the device.
- Torch-RecHub's ONNX exporter: ``dummy_input[name].to(device) for name in input_names`` of
  ``input_names = [f.name for f in features]`` moves a mapping's named fields
  (analysis/name_lists.py), where a list of any other attribute stays a list of items.
"""

from __future__ import annotations

import ast
from pathlib import Path

import libcst as cst
from lint_runs import cli_rows

from h2dlint.analysis.name_lists import names_of_objects

EMBEDDINGS = """
import torch
from torch import nn


class FeatureEmbeddingDict(nn.Module):
    def __init__(self, feature_map, dim):
        super().__init__()
        self._feature_map = feature_map
        self.layers = nn.ModuleDict({k: nn.Embedding(10, dim) for k in feature_map.features})

    def forward(self, inputs):
        out = {}
        for feature, spec in self._feature_map.features.items():
            out[feature] = self.layers[feature](inputs[feature])
        return out

    def dict2tensor(self, embedding_dict):
        embs = []
        for feature, feature_spec in self._feature_map.features.items():
            if feature in embedding_dict:
                embs.append(embedding_dict[feature])
        return torch.stack(embs, dim=1)


class FeatureEmbedding(nn.Module):
    def __init__(self, feature_map, dim):
        super().__init__()
        self.embedding_layer = FeatureEmbeddingDict(feature_map, dim)

    def forward(self, X):
        return self.embedding_layer.dict2tensor(self.embedding_layer(X))
"""

# The same test of a position (a number) against a tensor the module computed: a device read.
POSITION_IN_TENSOR = EMBEDDINGS.replace(
    "        for feature, feature_spec in self._feature_map.features.items():\n"
    "            if feature in embedding_dict:",
    "        for feature in range(len(self._feature_map.features)):\n"
    "            if feature in embedding_dict:",
)


def test_dict_key_membership_is_python(tmp_path: Path) -> None:
    """fuxictr 2.3.10 fuxictr/pytorch/layers/embeddings/feature_embedding.py:253 (HIGH)."""
    assert cli_rows(tmp_path, EMBEDDINGS, "HTD202") == []


def test_number_in_device_tensor_stays_reported(tmp_path: Path) -> None:
    assert cli_rows(tmp_path, POSITION_IN_TENSOR, "HTD202") == [21]


GENERATOR = """
import torch


class GaussianMixture:
    def __init__(self, num_modes=2):
        self.num_modes = num_modes

    def sample(self, size):
        return torch.stack([self.mixture(size[1]) for _ in range(size[0])])

    def mixture(self, num_loc):
        nums = torch.multinomial(
            input=PROBS,
            num_samples=num_loc,
            replacement=True,
        )
        coords = torch.empty((0, 2))
        for i in range(self.num_modes):
            num = (nums == i).sum()
            if num > 0:
                coords = torch.cat((coords, torch.rand((1, 2))))
        return coords
"""


def test_draw_from_host_probabilities_is_host(tmp_path: Path) -> None:
    """rl4co 0.7.0 rl4co/envs/common/distribution_utils.py:151."""
    host = GENERATOR.replace("PROBS", "torch.ones(self.num_modes) / self.num_modes")
    assert cli_rows(tmp_path, host, "HTD202") == []
    positional = host.replace("input=torch.ones", "torch.ones")
    assert cli_rows(tmp_path, positional, "HTD202") == []


def test_draw_from_device_probabilities_stays_reported(tmp_path: Path) -> None:
    device = GENERATOR.replace(
        "PROBS", "torch.ones(self.num_modes, device='cuda') / self.num_modes"
    )
    assert cli_rows(tmp_path, device, "HTD202") == [21]


EXPORTER = """
import torch


class ONNXExporter:
    def __init__(self, model, device="cuda"):
        self.model = model
        self.device = device

    def export(self, features, dummy_input):
        input_names = [f.ATTR for f in features]
        dummy_tuple = tuple(dummy_input[name].to(self.device) for name in input_names)
        torch.onnx.export(self.model, dummy_tuple, "m.onnx")
"""


def test_fields_named_by_objects_names_are_named_fields(tmp_path: Path) -> None:
    """torch-rechub 0.9.0 torch_rechub/utils/onnx_export.py:210."""
    assert cli_rows(tmp_path, EXPORTER.replace("ATTR", "name"), "HTD101") == []


def test_list_of_other_attributes_stays_reported(tmp_path: Path) -> None:
    assert cli_rows(tmp_path, EXPORTER.replace("ATTR", "slot"), "HTD101") == [12]


def test_names_of_objects_shapes() -> None:
    def expr(text: str) -> cst.BaseExpression:
        ast.parse(text)
        return cst.parse_expression(text)

    assert names_of_objects(expr("[f.name for f in features]"))
    assert names_of_objects(expr("list(f.name for f in features)"))
    assert not names_of_objects(expr("[f.weight for f in features]"))
    assert not names_of_objects(expr("[g.name for f in features]"))
    assert not names_of_objects(expr("[f.name for fs in groups for f in fs]"))


ENV = """
import torch


class StockTradingEnv:
    def __init__(self, max_step=100, device="cuda"):
        self.day = 0
        self.max_step = max_step
        self.warmup = 10
        self.amount = torch.zeros(4, device=device)

    def step(self, action):
        self.day += 1
        total = self.amount + action
        done = TEST
        if done:
            self.returns = total.cpu().tolist()
        return total
"""


def test_episode_end_branch_runs_once_per_episode(tmp_path: Path) -> None:
    """elegantrl 0.3.6 elegantrl/envs/StockTradingEnv.py:305, StockTradingVmapEnv.py:172."""
    assert cli_rows(tmp_path, ENV.replace("TEST", "self.day == self.max_step"), "HTD202") == []
    last = ENV.replace("TEST", "self.day >= self.max_step - 1")
    assert cli_rows(tmp_path, last, "HTD202") == []


def test_other_counter_tests_stay_hot(tmp_path: Path) -> None:
    """Past a warm-up (a name that is no limit), or below the limit: every step."""
    warm = ENV.replace("TEST", "self.day >= self.warmup")
    assert cli_rows(tmp_path, warm, "HTD202") == [17]
    below = ENV.replace("TEST", "self.day < self.max_step")
    assert cli_rows(tmp_path, below, "HTD202") == [17]


EVALUATOR = """
import time

import torch


class EvalBase:
    def __call__(self, policy, dataloader):
        start = time.time()
        with torch.inference_mode():
            rewards_list = []
            for batch in dataloader:
                td = batch.to(next(policy.parameters()).device)
                rewards_list.append(policy(td))
            rewards = torch.cat(rewards_list)
        inference_time = time.time() - start
        RETURN
"""


def test_copy_returned_after_the_pass_is_its_output(tmp_path: Path) -> None:
    """rl4co 0.7.0 rl4co/tasks/eval.py:73, 74: a whole dataloader, then the results dict."""
    returned = EVALUATOR.replace(
        "RETURN", 'return {"rewards": rewards.cpu(), "time": inference_time}'
    )
    assert cli_rows(tmp_path, returned, "HTD202") == []
    assert cli_rows(tmp_path, EVALUATOR.replace("RETURN", "return rewards.cpu()"), "HTD202") == []


def test_copies_inside_other_calls_or_tuples_stay_reported(tmp_path: Path) -> None:
    """A train step's ``return d_loss, y.cpu()`` (labelled per step) and ``x.cpu().mean()``."""
    mean = EVALUATOR.replace("RETURN", 'return {"avg": rewards.cpu().mean()}')
    assert cli_rows(tmp_path, mean, "HTD202") == [17]
    pair = EVALUATOR.replace("RETURN", "return inference_time, rewards.cpu()")
    assert cli_rows(tmp_path, pair, "HTD202") == [17]
