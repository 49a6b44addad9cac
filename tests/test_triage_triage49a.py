"""The analysis facts behind session 49's blind-style triage (docs/precision.md, "Session 49
(triage49a)"), each with the look-alike that must keep its verdict.

- Megatron-Bridge's ``get_batch`` helpers: a loop over the loader's batch that moves the device
  keys with ``val.cuda(non_blocking=True)`` and keeps the host keys with ``val.cpu()`` shows
  ``val`` to be host memory (analysis/host_company.py: an asynchronous copy to CUDA is written
  for a host source), where a blocking ``.cuda()``, a ``non_blocking`` copy to the host or to a
  device held in a variable (another GPU: exllamav2's cross-device move), or a name bound twice
  says nothing.
- Megatron-Bridge's collate functions: ``torch.stack(masks).to(device=batch["input_ids"].device)``
  of the processor's host batch is a dtype cast on the host, not a copy to a device
  (analysis/targets.py: the device of a proven host tensor, a subscript of one too), where the
  device of an entry of a batch whose place is unknown stays a device.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lint_runs import cli_rows

GET_BATCH = """
def get_batch(data_iterator, device_keys, host_keys):
    batch = next(data_iterator)
    out = {}
    for key, val in batch.items():{rebind}
        if key in device_keys:
            out[key] = {move}
        elif key in host_keys:
            out[key] = val.cpu()
    return out


def forward_step(data_iterator, model):
    return model(get_batch(data_iterator, ("tokens",), ("lengths",)))
"""


def _get_batch(move: str, rebind: str = "") -> str:
    return GET_BATCH.replace("{move}", move).replace("{rebind}", rebind)


@pytest.mark.parametrize(
    "move",
    [
        "val.cuda(non_blocking=True)",
        'val.to("cuda", non_blocking=True)',
        'val.to(device="cuda:0", non_blocking=True)',
    ],
)
def test_an_asynchronous_move_shows_the_name_on_the_host(tmp_path: Path, move: str) -> None:
    assert cli_rows(tmp_path, _get_batch(move), "HTD202") == []


@pytest.mark.parametrize(
    "move",
    [
        "val.cuda()",  # blocking: model code moves device tensors between GPUs that way
        'val.to("cpu", non_blocking=True)',  # a copy to the host: its source is the device one
        "val.to(cpu_device, non_blocking=True)",  # a device in a variable: maybe the host
        "val.to(device, non_blocking=True)",  # or another GPU (exllamav2's cross-device move)
    ],
)
def test_other_moves_keep_the_host_copy(tmp_path: Path, move: str) -> None:
    assert cli_rows(tmp_path, _get_batch(move), "HTD202") == [9]


def test_a_name_bound_twice_keeps_the_host_copy(tmp_path: Path) -> None:
    rebind = "\n        val = val.float() if key == 'x' else val"
    text = _get_batch("val.cuda(non_blocking=True)", rebind)
    assert cli_rows(tmp_path, text, "HTD202") == [10]


COLLATE = """
import torch


def collate_fn(examples, processor{params}):
    {batch}
    masks = [torch.ones(ids.shape[0]) for ids in batch["input_ids"]]
    batch["loss_mask"] = torch.stack(masks).to(
        device=batch["input_ids"].device, dtype=torch.float32
    )
    return batch
"""


def test_the_device_of_a_host_batch_entry_is_the_host(tmp_path: Path) -> None:
    batch = 'batch = processor(text=[e["text"] for e in examples], return_tensors="pt")'
    text = COLLATE.replace("{params}", "").replace("{batch}", batch)
    assert cli_rows(tmp_path, text, "HTD104") == []


@pytest.mark.parametrize(
    ("params", "batch"),
    [
        (", batch", "pass"),  # a parameter: its entries' place is unknown
        ("", 'batch = processor(text=examples, return_tensors="pt").to("cuda")'),  # moved
    ],
)
def test_the_device_of_other_batch_entries_stays_a_device(
    tmp_path: Path, params: str, batch: str
) -> None:
    # outside code named for collation: since session 50 (fp101_50) a batch entry's device in a
    # collate function counts as the host whatever the batch is
    text = COLLATE.replace("{params}", params).replace("{batch}", batch)
    text = text.replace("def collate_fn(", "def build_inputs(")
    assert cli_rows(tmp_path, text, "HTD104") == [8]


def test_a_batch_moved_to_the_device_in_collation_code_stays_a_device(tmp_path: Path) -> None:
    batch = 'batch = processor(text=examples, return_tensors="pt").to("cuda")'
    text = COLLATE.replace("{params}", "").replace("{batch}", batch)
    assert cli_rows(tmp_path, text, "HTD104") == [8]


RECIPE = """
class Recipe:
    def _run_train_optim_step(self, batches):
        for i, batch in enumerate(batches):
            self.{helper}(i, batch)
            if i == 0:
                self.after_first_microbatch()

    def {helper}(self, i, batch):
        loss = self.model(**batch)
        loss.backward()
"""


@pytest.mark.parametrize("helper", ["_forward_backward_step", "forward_backward_func"])
def test_a_forward_backward_helper_is_given_no_loss(tmp_path: Path, helper: str) -> None:
    # NeMo AutoModel 0.7.0's recipes hand the micro-batch counter to _forward_backward_step
    assert cli_rows(tmp_path, RECIPE.replace("{helper}", helper), "HTD202") == []


def test_a_backward_helper_is_still_given_the_loss(tmp_path: Path) -> None:
    text = """
class Trainer:
    def training_step(self, batch):
        loss = self.compute(batch)
        self._backward_pass(loss)
        if loss > 100:
            self.warn()
"""
    assert cli_rows(tmp_path, text, "HTD202") == [6]
