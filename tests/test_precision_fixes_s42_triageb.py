"""The analysis fact behind session 42's blind-style triage (docs/precision.md, "Session 42
(triage42b)"), with the twins that must keep their verdict. A field of a model's output read as
an attribute (``self.vision_model(x).last_hidden_state``, ``out.logits`` of ``out =
self.model(x)``) is made where the model ran, as a subscripted field (``out["hidden_states"]``)
already was, when its name is a model output's (``hidden``, ``logits``, ``embeds``, ...):
LLaVA-style per-sample embedding lists built of such fields move nothing. A field of a host
object (a processor's output, a loader's batch), of ``self``, or named otherwise (an
environment's ``action_mask``) stays reported. An arm only a torch older than 2.0 takes
(``else`` of ``if digit_version(torch.__version__) > digit_version("1.6.0"):``) never runs."""

from __future__ import annotations

from pathlib import Path

from lint_runs import cli_rows

MERGE = """
import torch
class Owl(torch.nn.Module):
    def encode_images(self, images):
        return {features}
    def merge(self, ids, images, batch):
        image_features = self.encode_images(images)
        embeds = []
        for i in range(len(ids)):
            embeds.append(self.embed_tokens(ids[i]))
            embeds.append(image_features[i])
        embeds = [x.to(device=self.device) for x in embeds]
        return torch.cat(embeds)
"""


def test_a_field_of_a_submodules_output_is_made_where_the_model_ran(tmp_path: Path) -> None:
    field = MERGE.format(features="self.vision_model(images).last_hidden_state")
    assert cli_rows(tmp_path, field, "HTD101") == []
    named = MERGE.format(features="self.vision_model(images)")
    named = named.replace(
        "        return self.vision_model(images)",
        "        out = self.vision_model(images)\n        return out.last_hidden_state",
    )
    assert cli_rows(tmp_path, named, "HTD101") == []


def test_a_field_of_a_host_object_stays_reported(tmp_path: Path) -> None:
    # A processor's output (host work by its name), a loader's batch, the object's own state,
    # a field not named as a model output's of what an attribute's method returns (torchrl's
    # Unity wrapper: ``self._env.get_steps(behavior)[0].action_mask``, numpy masks).
    for features in (
        "self.processor(images).pixel_values",
        "batch.pixel_values",
        "self.cached",
        "self._env.get_steps(images)[0].action_mask",
    ):
        assert cli_rows(tmp_path, MERGE.format(features=features), "HTD101") == [12], features


LOSS = """
import torch
from packaging.version import Version as V
from mmengine.utils import digit_version
is_torch_1_9_plus = V(torch.__version__) >= V("1.9.0")
class SmoothL1(torch.nn.Module):
    def forward(self, pred, gt, beta):
        diff = torch.abs(pred.cuda() - gt)
        loss = torch.zeros_like(diff)
        if {test}:
            loss = torch.nn.functional.smooth_l1_loss(pred, gt)
        else:
            loss[diff < beta] = diff[diff < beta] * 0.5
        return loss
"""


def test_an_arm_only_an_old_torch_takes_is_never_run(tmp_path: Path) -> None:
    for test in (
        'digit_version(torch.__version__) > digit_version("1.6.0")',
        'not V(torch.__version__) < V("1.7")',
        "is_torch_1_9_plus",
        'torch.__version__ >= "1.10"',
    ):
        assert cli_rows(tmp_path, LOSS.format(test=test), "HTD202") == [], test
    # A test a current torch may fail (2.x), one the version does not decide, or the arm a
    # current torch takes: still reported.
    for test in (
        'digit_version(torch.__version__) > digit_version("2.1.0")',
        'V(torch.__version__) >= V("1.9.0") and beta > 0',
        'V(torch.__version__) < V("1.7")',
        "is_torch_1_9_plus and beta > 0",
    ):
        assert cli_rows(tmp_path, LOSS.format(test=test), "HTD202") == [13, 13], test
