"""The analysis facts behind session 48's blind-style triage (docs/precision.md, "Session 48
(triage48)"), each with the look-alike that must keep its verdict.

- lmql's token streamer: ``if not nputil.is_array(last_tokens): last_tokens =
  last_tokens.cpu().numpy()`` (or ``if torch.is_tensor(x): x = x.cpu()``) leaves the name host
  data on both paths (analysis/host_guarded_rebinds.py), where a body taken for the tensor
  case's opposite (``if not isinstance(x, torch.Tensor): x = torch.tensor(x)``), a test of
  another name, or a test that is no type test leaves the earlier device tensor reaching on.
- OpenPipe ART's trajectories: ``[h.to(device) for h in self.histories]`` of a class that
  annotates ``histories: list[TensorizedHistory]``, a record class of the module with its own
  ``to``, moves records, not tensors (analysis/record_lists.py), where ``list[torch.Tensor]``,
  a record class without ``to``, or one the module does not define stays a per-item copy.
- ITREX's PPO trainer (TRL's): ``torch.std(query_lens).cpu()`` of ``query_lens =
  torch.tensor([len(q) for q in queries])`` is host (statistics are where their input is:
  analysis/torch_api.py, provenance/common.py), where the statistics of a device tensor stay a
  read of the device.
"""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from lint_runs import cli_rows

from h2dlint.analysis.host_guarded_rebinds import skipped_only_for_host

STREAMER = """
import numpy as np
import torch


class TokenStreamer:
    def __call__(self, input_ids, scores):
        last_tokens = input_ids[:, -1]
        {test}
            last_tokens = {copy}
        for i in range(len(last_tokens)):
            self.put(int(last_tokens[i].item()))
"""


def _streamer(test: str, copy: str = "last_tokens.cpu().numpy()") -> str:
    return STREAMER.replace("{test}", test).replace("{copy}", copy)


@pytest.mark.parametrize(
    "test",
    [
        "if not nputil.is_array(last_tokens):",
        "if not isinstance(last_tokens, np.ndarray):",
        "if torch.is_tensor(last_tokens):",
        "if isinstance(last_tokens, torch.Tensor):",
    ],
)
def test_type_guarded_host_rebinding_leaves_host_data(tmp_path: Path, test: str) -> None:
    assert cli_rows(tmp_path, _streamer(test), "HTD201") == []


@pytest.mark.parametrize(
    "test",
    [
        "if self.to_host:",  # no type test: the device tensor may reach the loop
        "if torch.is_tensor(scores):",  # a test of another name
        "if not torch.is_tensor(last_tokens):",  # skipped for the tensor itself
        "if nputil.is_array(last_tokens):",  # skipped for what is no array
    ],
)
def test_other_guards_keep_the_device_row_read(tmp_path: Path, test: str) -> None:
    assert cli_rows(tmp_path, _streamer(test), "HTD201") == [12]


def test_body_that_makes_a_tensor_is_no_host_rebinding(tmp_path: Path) -> None:
    text = _streamer("if not isinstance(last_tokens, torch.Tensor):", "torch.tensor(last_tokens)")
    assert cli_rows(tmp_path, text, "HTD201") == [12]


def test_the_guard_needs_the_rebound_name() -> None:
    line = cst.parse_statement("x = x.cpu()\n")
    other = cst.parse_statement("y = x.cpu()\n")
    test = cst.parse_expression("torch.is_tensor(x)")
    assert skipped_only_for_host(test, [line])
    assert not skipped_only_for_host(test, [other])
    assert not skipped_only_for_host(cst.parse_expression("not torch.is_tensor(x)"), [line])


RECORDS = """
import torch
import pydantic


class History(pydantic.BaseModel):
    tokens: torch.Tensor
{to}

class Multi(pydantic.BaseModel):
    histories: {annotation}

    def to(self, device):
        return Multi(histories=[h.to(device) for h in self.histories])
"""

_TO = """
    def to(self, device):
        return History(tokens=self.tokens.to(device))
"""


@pytest.mark.parametrize(
    "annotation", ["list[History]", "Sequence[History]", "tuple[History, ...]"]
)
def test_records_that_move_themselves_are_no_items(tmp_path: Path, annotation: str) -> None:
    text = RECORDS.replace("{to}", _TO).replace("{annotation}", annotation)
    assert cli_rows(tmp_path, text, "HTD101") == []


@pytest.mark.parametrize(
    ("annotation", "to"),
    [
        ("list[torch.Tensor]", _TO),  # tensors: a per-item copy
        ("list[History]", ""),  # no ``to`` of its own: whatever ``h.to`` is, not the record's
        ("list[Other]", _TO),  # a class the module does not define
        ("dict[str, History]", _TO),  # not a sequence annotation this reads
    ],
)
def test_other_annotations_keep_the_per_item_copy(tmp_path: Path, annotation: str, to: str) -> None:
    text = RECORDS.replace("{to}", to).replace("{annotation}", annotation)
    assert cli_rows(tmp_path, text, "HTD101") == [17 if to else 14]


STATS = """
import torch


class Trainer:
    def record_step_stats(self, data, logits):
        lens = {lens}
        a = torch.std(lens).cpu().item()
        b = lens.var().cpu().item()
        c = torch.median(lens).cpu().item()
        return a, b, c
"""


@pytest.mark.parametrize(
    ("lens", "rows"),
    [
        ("torch.tensor([len(q) for q in data], dtype=torch.float)", []),
        ("logits.softmax(-1).cuda()", [8, 9, 10]),
    ],
)
def test_statistics_are_where_their_input_is(tmp_path: Path, lens: str, rows: list[int]) -> None:
    assert cli_rows(tmp_path, STATS.replace("{lens}", lens), "HTD202") == rows
