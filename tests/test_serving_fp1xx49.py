"""Session 49 (fp1xx49): HTD201 MEDIUM rows of a dict parameter's field that every call fills
with a data loader's host batch (docs/precision.md, "Session 49 (fp1xx49)"), and the
look-alikes that stay reported."""

from __future__ import annotations

import textwrap
from pathlib import Path

from lint_runs import lint, package_records

# fastvideo 0.2.1 ``pipelines/preprocess/preprocess_pipeline_base.py``: the base class's loop
# over the loader hands each batch, as a dict, to a method the subclasses override.
BASE = """
    import torch
    from torch.utils.data import DataLoader
    from tqdm import tqdm

    class BasePipeline:
        def get_extra_features(self, valid_data, args):
            return {}

        def forward(self, dataset, args):
            self.preprocess(dataset, args)

        def preprocess(self, dataset, args):
            train_dataloader = DataLoader(dataset, batch_size=8, num_workers=args.workers)
            pbar = tqdm(train_dataloader)
            for batch_idx, data in enumerate(pbar):
                valid = [i for i, p in enumerate(data["pixel_values"]) if p.any()]
                valid_data = {
                    "pixel_values": torch.stack([data["pixel_values"][i] for i in valid]),
                    "text": [data["text"][i] for i in valid],
                }
                latents = self.vae.encode(valid_data["pixel_values"].to("cuda")).mean
                extra = self.get_extra_features(valid_data, args)
                self.save(latents, extra)
    """

# ``preprocess_pipeline_i2v.py``: the override walks the frames of the field.
I2V = """
    import numpy as np
    from PIL import Image
    from .base import BasePipeline

    class I2VPipeline(BasePipeline):
        def get_extra_features(self, valid_data, args):
            first_frame = valid_data["pixel_values"][:, :, 0, :, :].permute(0, 2, 3, 1)
            images = []
            for frame in first_frame:
                images.append(Image.fromarray(frame.cpu().numpy().astype(np.uint8)))
            return {"images": images}
    """


def _rows(tmp_path: Path, base: str, i2v: str = I2V) -> list[int]:
    files = {"base.py": textwrap.dedent(base), "i2v.py": textwrap.dedent(i2v)}
    records = package_records(tmp_path, files, "HTD201")
    return sorted(r["location"]["row"] for r in records if r["filename"].endswith("i2v.py"))


def test_a_field_every_call_fills_with_a_loader_batch_is_host(tmp_path: Path) -> None:
    assert _rows(tmp_path, BASE) == []


def test_a_field_filled_with_a_device_tensor_stays_reported(tmp_path: Path) -> None:
    moved = BASE.replace(
        'torch.stack([data["pixel_values"][i] for i in valid])',
        'torch.stack([data["pixel_values"][i] for i in valid]).to("cuda")',
    )
    assert _rows(tmp_path, moved) == [11]


def test_a_loader_with_its_own_collate_stays_reported(tmp_path: Path) -> None:
    # A collate function may move or pin the batch: nothing says where it is.
    collated = BASE.replace("num_workers=args.workers)", "collate_fn=self.collate)")
    assert _rows(tmp_path, collated) == [11]


def test_a_field_the_caller_overwrites_with_a_model_output_stays_reported(tmp_path: Path) -> None:
    overwritten = BASE.replace(
        "                latents = self.vae",
        '                valid_data["pixel_values"] = self.vae.decode(data["latents"])\n'
        "                latents = self.vae",
    )
    assert _rows(tmp_path, overwritten) == [11]


def test_another_call_of_the_override_keeps_the_rows(tmp_path: Path) -> None:
    # A call of the subclass's method elsewhere passes a dict the analysis cannot read.
    other = I2V + textwrap.indent(
        textwrap.dedent(
            """
            def run(pipe: I2VPipeline, batch, args):
                return pipe.get_extra_features(batch, args)
            """
        ),
        "    ",
    )
    assert _rows(tmp_path, BASE, other) == [11]


# xinference 4.1.0 ``thirdparty/fish_speech_s1/fish_speech/content_sequence.py``: ``encode()``
# returns a ``@dataclass(kw_only=True)`` whose ``tokens`` it builds on the host;
# ``visualize()`` prints them one by one.
FISH = """
    from dataclasses import dataclass
    import torch

    @dataclass({options})
    class EncodedMessage:
        tokens: torch.Tensor
        labels: torch.Tensor

    class ContentSequence:
        def encode(self, tokenizer, parts) -> EncodedMessage:
            all_tokens = []
            for part in parts:
                tokens = torch.tensor(tokenizer.encode(part), dtype=torch.int)
                all_tokens.append(tokens)
            tokens = torch.cat(all_tokens, dim=0){moved}
            return EncodedMessage(tokens=tokens, labels=tokens.clone())

        def visualize(self, tokenizer, parts):
            encoded = self.encode(tokenizer, parts)
            for tok in encoded.tokens:
                print(tokenizer.decode([int(tok.item())]))
    """


def _fish(options: str, moved: str = "") -> list[tuple[int, str]]:
    code = FISH.format(options=options, moved=moved)
    return [(f.start.row, f.confidence.name) for f in lint(code, "HTD201")]


def test_a_keyword_only_dataclass_field_built_on_the_host_is_host() -> None:
    assert _fish("kw_only=True") == []
    assert _fish("kw_only=True, frozen=True") == []


def test_a_keyword_only_dataclass_field_built_on_the_device_is_a_device_row() -> None:
    assert _fish("kw_only=True", ".cuda()") == [(22, "HIGH")]


def test_a_dataclass_without_init_or_with_a_computed_flag_stays_unknown() -> None:
    assert _fish("init=False") == [(22, "MEDIUM")]
    assert _fish("kw_only=KW_ONLY") == [(22, "MEDIUM")]


# agilerl 2.58.0 ``utils/segment_balance.py`` ``_assemble``: each received part moved to the
# device of the rows the function rebuilds.
ASSEMBLE = """
    import torch

    def assemble({owner}, parts):
        device = {device}
        columns = list(zip(*parts))
        return torch.stack([part.to(device) for part in columns[0]])
    """


def _assemble(owner: str, device: str) -> list[int]:
    code = ASSEMBLE.format(owner=owner, device=device)
    return [f.start.row for f in lint(code, "HTD101")]


def test_parts_moved_to_the_device_of_a_tensor_field_are_aligned() -> None:
    assert _assemble("rows", "rows.token_ids.device") == []
    assert _assemble("batch", "batch.inputs[0].device") == []


def test_parts_moved_to_a_model_or_a_framework_objects_device_stay_reported() -> None:
    assert _assemble("pipe", "pipe.unet.device") == [7]
    assert _assemble("runner", "runner.model.device") == [7]
    assert _assemble("trainer", "trainer.accelerator.device") == [7]
    assert _assemble("self", "self.encoder.device") == [7]
    assert _assemble("rows", "rows.token_ids.cuda().device") == [7]
