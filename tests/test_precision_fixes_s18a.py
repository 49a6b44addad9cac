"""The analysis facts behind session 18's held-out precision fixes (helper heldout18a,
docs/precision.md, "Session 18 (heldout18a)"): each look-alike found in code no triage had
read (xinference, llmlingua, optimum, flexgen, attention-sinks), and its true twin."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from lint_runs import lint

from h2dlint.cli import main


def _findings(code: str, rule_code: str, path: str = "m.py") -> list[int]:
    return [f.start.row for f in lint(code, rule_code, path=path)]


SCRIPT = """
    import torch

    def check_forward_equal_with_pytorch_float():
        value = torch.rand(2, 4).cuda() * 0.01
        return value

    def check_gradient_numerical(channels):
        value = torch.rand(2, channels).cuda()
        for _ in range(3):
            step = torch.rand(2, channels).cuda()
        return value, step

    def generate(model, n):
        out = []
        for i in range(n):
            out.append(model(torch.zeros(1, 4).cuda()))
        return out

    def main(model):
        mask = torch.ones(4).cuda()
        generate(model, 10)
        while True:
            model(torch.ones(1, 4).cuda())

    if __name__ == "__main__":
        check_forward_equal_with_pytorch_float()
        for channels in [30, 32]:
            check_gradient_numerical(channels)
        main(None)
    """


def test_a_scripts_driver_runs_its_own_code_once() -> None:
    # xinference's vendored MultiScaleDeformableAttention ops/test.py: checks called from the
    # `__main__` block. A driver's loops are still its steps, and what it calls stays hot.
    assert _findings(SCRIPT, "HTD301") == [11, 17, 24]


def test_a_driver_handed_on_or_called_elsewhere_is_no_script() -> None:
    handed = """
        import torch
        def step():
            return torch.rand(2, 4).cuda()
        if __name__ == "__main__":
            register(step)
            step()
        """
    assert _findings(handed, "HTD301") == [4]


NAN_PROBE = """
    import os
    import torch
    _NAN_DEBUG = os.environ.get("BAILING_NAN_DEBUG", "0") == "1"
    USE_FAST = os.environ.get("USE_FAST", "0") == "1"
    class Model(torch.nn.Module):
        def forward(self, h: torch.Tensor, rank: int):
            h = self.norm(h)
            if {test}:
                for i in range(h.shape[0]):
                    if torch.isnan(h[i]).any().item():
                        print(i)
            return h
    """


def test_row_loops_behind_a_diagnostic_switch_run_only_while_debugging() -> None:
    # xinference's Ming TTS MoE: a NaN probe per sample behind BAILING_NAN_DEBUG.
    assert not _findings(NAN_PROBE.format(test="_NAN_DEBUG"), "HTD201")
    assert not _findings(NAN_PROBE.format(test="_NAN_DEBUG and rank == 0"), "HTD201")
    assert not _findings(NAN_PROBE.format(test="rank == 0 and _NAN_DEBUG"), "HTD201")
    # A switch named for a feature, or one `or`-ed with another test: per step for some.
    assert _findings(NAN_PROBE.format(test="USE_FAST"), "HTD201")
    assert _findings(NAN_PROBE.format(test="_NAN_DEBUG or rank == 0"), "HTD201")
    assert _findings(NAN_PROBE.format(test="rank == 0"), "HTD201")


THREE_INPUTS = """
    import torch
    class Rec:
        def run(self, img, mask, labels, batches):
            inputs = {items}
            inp = [torch.from_numpy(e) for e in inputs]
            inp = [e.to(self.device) for e in inp]
            return self.net(inp)
    """


def test_a_tiny_display_stays_tiny_through_names_and_comprehensions() -> None:
    # xinference's vendored PaddleOCR recogniser (CAN): image, mask and labels, moved apiece.
    assert not _findings(THREE_INPUTS.format(items="[img, mask, labels]"), "HTD101")
    assert not _findings(THREE_INPUTS.format(items="(img, mask)"), "HTD101")
    # A batch of any length, or a name also bound to one, is still moved item by item.
    assert _findings(THREE_INPUTS.format(items="batches"), "HTD101")
    assert _findings(THREE_INPUTS.format(items="[img, *batches]"), "HTD101")


OUTPUT_FIELD = """
    import torch
    class Annotator(torch.nn.Module):
        def __call__(self, feat):
            result = {made}
            return [v.to(self.device) for v in result["hidden_states"]]
    """


def test_fields_of_a_model_output_are_made_where_it_ran() -> None:
    # xinference's ControlNet CLIP-vision annotator moving its model's hidden states.
    assert not _findings(OUTPUT_FIELD.format(made="self.model(**feat)"), "HTD101")
    # A processor's or a loader's output is host data, field or not.
    assert _findings(OUTPUT_FIELD.format(made="self.image_processor(feat)"), "HTD101")
    assert _findings(OUTPUT_FIELD.format(made="load_batch(feat)"), "HTD101")


LLAVA = """
    import torch
    class LlavaMeta:
        def get_model(self):
            {getter}
        def encode_images(self, images):
            feats = self.get_model().vision_tower(images)
            feats = self.get_model().mm_projector(feats)
            return feats
        def merge(self, ids, images, sizes):
            image_features = self.encode_images(torch.cat(images))
            image_features = torch.split(image_features, sizes, dim=0)
            image_features = [x.flatten(0, 1) for x in image_features]
            out = []
            for i in range(len(ids)):
                embeds = []
                cur = image_features[i]
                embeds.append(self.get_model().embed_tokens(ids[i]).detach())
                embeds.append(cur)
                embeds = [x.to(device=self.device) for x in embeds]
                out.append(torch.cat(embeds))
            return out
    """


def test_llava_per_sample_embeddings_are_model_outputs() -> None:
    # xinference's vendored LLaVA prepare_inputs_labels_for_multimodal: the mixin's
    # get_model() is abstract (the subclass returns self.model).
    assert not _findings(LLAVA.format(getter="return self.model"), "HTD101")
    assert not _findings(LLAVA.format(getter="pass"), "HTD101")
    # A getter that gives a host tokenizer proves nothing; nor does an abstract one named
    # for something else.
    assert _findings(LLAVA.format(getter="return self.tokenizer"), "HTD101")
    assert _findings(LLAVA.format(getter="pass").replace("get_model", "get_inputs"), "HTD101")


FILTER = """
import math
import torch

if "sinc" in dir(torch):
    sinc = torch.sinc
else:
    def sinc(x: torch.Tensor):
        one = torch.tensor(1.0, device=x.device, dtype=x.dtype)
        return torch.where(x == 0, one, torch.sin(math.pi * x) / math.pi / x)


def kaiser_sinc_filter1d(cutoff, kernel_size):
    time = torch.arange(-kernel_size, kernel_size) / 2
    return 2 * cutoff * sinc(2 * cutoff * time)


class LowPassFilter1d(torch.nn.Module):
    def __init__(self, cutoff=0.5, kernel_size=12):
        super().__init__()
        self.register_buffer("filter", kaiser_sinc_filter1d(cutoff, kernel_size))
"""

RESAMPLE = """
import torch
from .filter import kaiser_sinc_filter1d


class UpSample1d(torch.nn.Module):
    def __init__(self, ratio=2):
        super().__init__()
        self.register_buffer("filter", kaiser_sinc_filter1d(0.5 / ratio, 12))
{extra}
"""


def _project_findings(tmp_path: Path, extra: str) -> list[tuple[str, int, str]]:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "filter.py").write_text(FILTER)
    (package / "resample.py").write_text(RESAMPLE.format(extra=extra))
    result = CliRunner().invoke(
        main,
        ["--no-cache", "--output-format", "json", "--exit-zero", "--select", "ALL", str(package)],
    )
    assert result.exit_code == 0, result.output
    return [
        (Path(d["filename"]).name, d["location"]["row"], d["code"])
        for d in json.loads(result.output)
    ]


def test_a_helper_other_modules_call_only_from_init_runs_once(tmp_path: Path) -> None:
    # BigVGAN's alias-free filter, vendored eight times in xinference: sinc (where torch has
    # none) runs while LowPassFilter1d and UpSample1d build their filters.
    assert _project_findings(tmp_path, "") == []


def test_a_helper_another_module_calls_per_step_stays_reported(tmp_path: Path) -> None:
    per_step = """
    def forward(self, x):
        return x * kaiser_sinc_filter1d(0.5, x.shape[-1])
"""
    assert ("filter.py", 9, "HTD107") in _project_findings(tmp_path, per_step)


HANDLER = """
    import torch
    class Chat(torch.nn.Module):
        def forward(self, input_ids, input_embeds, vit_embeds):
            selected = self.positions(input_ids)
            try:
                input_embeds.index_put_((selected,), vit_embeds)
            except Exception as e:
                {report}
                n_token = min(selected.sum().item(), vit_embeds.size(0))
                input_embeds[selected[:n_token]] = vit_embeds[:n_token]
            return input_embeds
    """


def test_a_handler_that_reports_its_failure_is_no_hot_path() -> None:
    # xinference's SenseNova U1 chat model: a warning, then a fallback for mismatched shapes.
    assert not _findings(HANDLER.format(report='print(f"warning: {e}")'), "HTD202")
    assert not _findings(HANDLER.format(report='logger.warning("merge failed: %s", e)'), "HTD202")
    # A handler that reports nothing, or not the failure, may be the path every call takes.
    assert _findings(HANDLER.format(report="pass"), "HTD202")
    assert _findings(HANDLER.format(report='logger.info("fallback")'), "HTD202")
