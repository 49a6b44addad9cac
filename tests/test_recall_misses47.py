"""Session 47 (misses47): recall misses whose class reaches several packages.

- A project class whose base is a torch model class of ``transformers``, ``diffusers`` or
  ``peft`` (``Qwen2_5_VLForConditionalGeneration``, ``LlamaPreTrainedModel``, ``ModelMixin``)
  is an ``nn.Module``: its output's fields read with ``.item()`` are device reads (lerobot 0.5.1
  WallX ``modeling_wall_x.py:1953-1959``) (``analysis/ecosystem_models.py``).
- ``unittest.main()`` (an attribute call on a module imported from outside the project) calls
  no ``main`` of the project: a script's ``main()`` called only under its ``__main__`` guard
  runs once (streamdiffusionv2 0.1.1 ``inference_pipe.py:939``) (``analysis/foreign_calls.py``).
- An ``if`` test of a collection the function builds (``if cuda_tensors_to_validate:``) asks
  whether there is work: a debugging word in its name makes no debugging branch (flashinfer
  0.7.2 ``page.py:895``) (``analysis/collection_tests.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lint_runs import lint, package_records

from h2dlint.analysis.ecosystem_models import ecosystem_model
from h2dlint.analysis.foreign_calls import only_foreign_calls

# lerobot 0.5.1 policies/wall_x/modeling_wall_x.py:256, :1716, :1948-1959, one file.
WALLX = """\
import torch
from transformers.models.qwen2_5_vl.modeling_qwen2_5_vl import {base}
class Qwen2_5_VLMoEForAction({base}):
    pass
class WallXPolicy(torch.nn.Module):
    def __init__(self, path):
        super().__init__()
        self.model = Qwen2_5_VLMoEForAction.from_pretrained(path)
    def forward(self, batch):
        outputs = self.model(**batch, mode="train")
        loss = outputs.loss
        loss_dict = {{"loss": loss.item() if loss is not None else 0.0}}
        if outputs.flow_loss is not None:
            loss_dict["flow_loss"] = outputs.flow_loss.item()
        return loss, loss_dict
"""


def _rows(code: str, *codes: str) -> list[tuple[int, str]]:
    return sorted((f.start.row, f.confidence) for f in lint(code, *codes))


def test_a_subclass_of_a_transformers_model_is_a_module() -> None:
    code = WALLX.format(base="Qwen2_5_VLForConditionalGeneration")
    assert _rows(code, "HTD202") == [(12, "medium"), (14, "medium")]


@pytest.mark.parametrize(
    "base", ["Qwen2_5_VLConfig", "TFQwen2_5_VLForConditionalGeneration", "Qwen2_5_VLProcessor"]
)
def test_a_subclass_of_a_config_processor_or_tf_model_is_not(base: str) -> None:
    assert _rows(WALLX.format(base=base), "HTD202") == []


def test_ecosystem_model_names() -> None:
    assert ecosystem_model("transformers.PreTrainedModel")
    assert ecosystem_model("transformers.models.llama.modeling_llama.LlamaForCausalLM")
    assert ecosystem_model("transformers.BertModel")
    assert ecosystem_model("diffusers.models.modeling_utils.ModelMixin")
    assert ecosystem_model("diffusers.UNet2DConditionModel")
    assert ecosystem_model("peft.PeftModel")
    for other in (
        "transformers.AutoModelForCausalLM",  # a factory, no module class
        "transformers.FlaxBertModel",
        "transformers.TFBertForMaskedLM",
        "transformers.LlamaConfig",
        "transformers.PreTrainedTokenizer",
        "transformers.Trainer",
        "diffusers.DiffusionPipeline",
        "mylib.models.BertModel",  # not a known torch ecosystem package
        "transformers",
    ):
        assert not ecosystem_model(other), other


# streamdiffusionv2 0.1.1 streamv2v/inference_pipe.py:936-939 and communication/
# test_communication.py:393.
SCRIPT = """\
import torch
def split(n: int, k: int) -> list[int]:
    return [n // k] * k
def main():
    device = torch.device("cuda")
    block_num = torch.tensor(split(30, 4), dtype=torch.int64, device=device)
    return block_num
if __name__ == "__main__":
    main()
"""


def test_unittest_main_calls_no_main_of_the_project(tmp_path: Path) -> None:
    tests = "import unittest\nclass T(unittest.TestCase):\n    pass\nunittest.main(verbosity=2)\n"
    records = package_records(tmp_path, {"pipe.py": SCRIPT, "test_comm.py": tests}, "HTD106")
    assert records == []


def test_a_project_module_calling_main_still_calls_it(tmp_path: Path) -> None:
    runner = "from pkg import pipe\nfor _ in range(10):\n    pipe.main()\n"
    records = package_records(tmp_path, {"pipe.py": SCRIPT, "runner.py": runner}, "HTD106")
    assert [(r["filename"].rsplit("/", 1)[-1], r["location"]["row"]) for r in records] == [
        ("pipe.py", 6)
    ]


def test_only_foreign_calls() -> None:
    def roots(root: str) -> bool:
        return root == "pkg"

    assert only_foreign_calls(b"import unittest\nunittest.main()\n", "main", roots)
    assert only_foreign_calls(
        b"from absl.testing import absltest\nabsltest.main()\n", "main", roots
    )
    assert not only_foreign_calls(b"from pkg import app\napp.main()\n", "main", roots)
    assert not only_foreign_calls(b"from . import app\napp.main()\n", "main", roots)
    assert not only_foreign_calls(b"import unittest\nunittest.main()\nmain()\n", "main", roots)
    assert not only_foreign_calls(b"cli.main()\n", "main", roots)  # ``cli`` not imported
    assert not only_foreign_calls(b"self.main()\n", "main", roots)
    assert not only_foreign_calls(b"import pkg\npkg.main()\n", "main", roots)
    assert not only_foreign_calls(b"x = domain\n", "main", roots)  # no call at all


# flashinfer 0.7.2 flashinfer/page.py:835-900 (_as_float32_scalar_tensors), cut down.
SCALES = """\
import torch
def _as_float32_scalar_tensors(values, *, device):
    tensors = []
    cuda_tensors_to_validate = []
    for name, value in values:
        if not isinstance(value, torch.Tensor):
            tensors.append(torch.full((1,), float(value), device=device))
            continue
        value = value.to(device=device)
        tensors.append(value)
        if value.is_cuda:
            cuda_tensors_to_validate.append((name, value))
    if {test}:
        host_values = torch.stack([v.reshape(()) for _, v in cuda_tensors_to_validate]).cpu()
        return host_values.tolist()
    return tensors
def nvfp4_quantize_append_paged_kv_cache(x, k_scale, v_scale, validate: bool):
    return _as_float32_scalar_tensors((("k", k_scale), ("v", v_scale)), device=x.device)
"""


@pytest.mark.parametrize("test", ["cuda_tensors_to_validate", "len(cuda_tensors_to_validate)"])
def test_a_test_of_a_built_list_is_no_debugging_switch(test: str) -> None:
    found = lint(SCALES.format(test=test), "HTD202")
    assert [(f.start.row, f.confidence) for f in found] == [(14, "medium")]


@pytest.mark.parametrize("test", ["check_scales", "os.environ.get('VALIDATE')", "validate_all"])
def test_a_switch_named_for_validation_still_guards_a_debugging_branch(test: str) -> None:
    code = SCALES.format(test=test).replace(
        "def _as_float32_scalar_tensors(values, *, device):",
        "def _as_float32_scalar_tensors(values, *, device, validate_all: bool = False):",
    )
    code = code.replace("    tensors = []\n", "    tensors = []\n    check_scales = validate_all\n")
    assert _rows("import os\n" + code, "HTD202") == []
