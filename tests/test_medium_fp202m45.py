"""HTD202 MEDIUM false alarms, session 45 (fp202m45): three classes an analysis tells apart.

A host runtime's arm of a multi-backend model (YOLOv5's ``DetectMultiBackend.forward``: ``elif
self.onnx: im = im.cpu().numpy()``, ``analysis/runtime_backend_arms.py``), the copies of an
inferencer (mmagic's, mmocr's, mmdet's: ``analysis/request_end_classes.py``), and copies in
helpers named for a host format (``to_numpy``, ``tensor2img``:
``analysis/conversion_helpers.py``). Their look-alikes stay reported: the torch or TensorRT
arm, a chain that tests anything but runtime flags, reads of one value (``.item()``, an ``if``
on a tensor) in an inferencer, copies in classes of other names (a safety checker's too: its
callers decide), and a conversion of a proven device tensor.
"""

from __future__ import annotations

import pytest
from lint_runs import lint

BACKENDS = """\
import torch
import torch.nn as nn
class DetectMultiBackend(nn.Module):
    def forward(self, im):
        if self.{first}:
            y = self.model(im)
        elif self.{second}:
            {line}
            y = self.session.run(None, {{"images": im}})
        else:
            im = im.cpu().numpy()
            y = self.tf_model(im)
        return y
"""


@pytest.mark.parametrize("first", ["pt", "jit"])
@pytest.mark.parametrize("second", ["onnx", "xml", "coreml", "paddle", "dnn"])
@pytest.mark.parametrize(
    "line", ["im = im.cpu().numpy()", "im = im.cpu().numpy().astype(np.float32)"]
)
def test_a_host_runtimes_arm_of_a_multi_backend_model_hands_it_numpy(
    first: str, second: str, line: str
) -> None:
    code = BACKENDS.format(first=first, second=second, line=line)
    assert lint(code, "HTD202") == []


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # no torch runtime among the flags: not a runtime dispatch
        ("onnx", "xml"),
        # a chain that tests something other than runtime flags
        ("training", "onnx"),
        ("pt", "use_cache"),
    ],
)
def test_other_chains_stay_reported(first: str, second: str) -> None:
    code = BACKENDS.format(first=first, second=second, line="im = im.cpu().numpy()")
    assert lint(code, "HTD202") != []


def test_the_torch_and_gpu_runtimes_arms_stay_reported() -> None:
    code = """\
import torch
import torch.nn as nn
class DetectMultiBackend(nn.Module):
    def forward(self, im):
        if self.pt:
            y = self.model(im).cpu()
        elif self.engine:
            y = self.trt(im).cpu()
        elif self.onnx:
            y = self.session.run(None, {"images": im.cpu().numpy()})
        return y
"""
    lines = sorted(f.start.row for f in lint(code, "HTD202"))
    assert lines == [6, 8]


INFERENCER = """\
import torch
from mmengine.infer import BaseInferencer
class {name}({base}):
    def __call__(self, inputs):
        preds = self.forward(self.preprocess(inputs))
        return self.postprocess(preds)
    def forward(self, inputs):
        with torch.no_grad():
            return self.model(inputs.to(self.device))
    def postprocess(self, preds):
        return [self._pred2dict(p) for p in preds]
    def _pred2dict(self, pred):
        result = {{}}
        {line}
        return result
"""


@pytest.mark.parametrize(
    ("name", "base"),
    [
        ("KIEInferencer", "BaseMMOCRInferencer"),
        ("UnconditionalInferencer", "BaseInferencer"),
        ("Runner", "BaseInferencer"),
    ],
)
@pytest.mark.parametrize(
    "line",
    [
        "result['scores'] = pred.scores.cpu().numpy().tolist()",
        "result['fake_img'] = pred.fake_img.data.cpu()",
    ],
)
def test_an_inferencers_results_copied_for_the_user_are_its_output(
    name: str, base: str, line: str
) -> None:
    code = INFERENCER.format(name=name, base=base, line=line)
    assert lint(code, "HTD202") == []


@pytest.mark.parametrize(
    ("name", "base", "line"),
    [
        # a read of one value in an inferencer is still a sync that could be batched
        ("KIEInferencer", "BaseInferencer", "result['n'] = int(pred.scores.sum().item())"),
        # a class of another name (an inference *module*, a runner)
        ("InferenceHead", "nn.Module", "result['scores'] = pred.scores.cpu()"),
        ("Runner", "object", "result['scores'] = pred.scores.cpu()"),
    ],
)
def test_reads_and_other_classes_copies_stay_reported(name: str, base: str, line: str) -> None:
    assert lint(INFERENCER.format(name=name, base=base, line=line), "HTD202") != []


CHECKER = """\
import torch
import torch.nn as nn
class {name}(PreTrainedModel):
    @torch.no_grad()
    def forward(self, clip_input, images):
        image_embeds = self.visual_projection(self.vision_model(clip_input)[1])
        {line}
        has_nsfw = [bool(row.max() > 0) for row in scores]
        return images, has_nsfw
"""


@pytest.mark.parametrize(
    "line",
    [
        "scores = cosine_distance(image_embeds, self.concept_embeds).cpu().float().numpy()",
        # a value read per image (mmagic's concept weights: labelled true for HTD201)
        "scores = cosine_distance(image_embeds, self.concept_embeds).max().item()",
    ],
)
def test_a_safety_checkers_copies_are_left_to_its_callers(line: str) -> None:
    # Not an inferencer: the project clears a checker's copy only where its callers are known
    # to run it once per request (once_outputs) or its weights stay on the host.
    assert lint(CHECKER.format(name="StableDiffusionSafetyChecker", line=line), "HTD202") != []


HELPER = """\
import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        y = self.net(x)
        return {name}(y)
def {name}(tensor):
    {line}
"""


@pytest.mark.parametrize(
    "name", ["to_numpy", "convert_to_numpy", "numpify", "_tensor2img", "output_to_pil"]
)
@pytest.mark.parametrize(
    "line",
    [
        "return tensor.detach().cpu().numpy()",
        "tensor = tensor.cpu()\n    return tensor.numpy()",
    ],
)
def test_a_helper_named_for_a_host_format_copies_by_its_contract(name: str, line: str) -> None:
    assert lint(HELPER.format(name=name, line=line), "HTD202") == []


def test_a_function_nested_in_a_conversion_helper_is_one() -> None:
    code = """\
import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return to_numpy(self.net(x))
def to_numpy(x):
    def f(tensor):
        return tensor.detach().cpu().numpy()
    return recursive_apply(x, f)
"""
    assert lint(code, "HTD202") == []


@pytest.mark.parametrize(
    ("name", "line"),
    [
        # a pipeline named for its whole job, and helpers of other names
        ("txt2img", "return tensor.cpu().numpy()"),
        ("postprocess", "return tensor.cpu().numpy()"),
        # a read of one value in a conversion helper
        ("to_numpy", "return tensor.sum().item()"),
    ],
)
def test_other_helpers_and_reads_stay_reported(name: str, line: str) -> None:
    assert lint(HELPER.format(name=name, line=line), "HTD202") != []


def test_a_conversion_of_a_proven_device_tensor_stays_reported() -> None:
    code = """\
import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, batches):
        outs = []
        for batch in batches:
            y = self.net(batch.cuda())
            outs.append(tensor2numpy(torch.zeros(4, device="cuda") + y))
        return outs
def tensor2numpy(tensor):
    return tensor.detach().cpu().numpy()
"""
    assert lint(code, "HTD202") != []
