"""Session 49 (recall49): recall misses of transformers' generation hooks.

- A tokenizer's ``decode``/``batch_decode`` of a tensor reads its ids on the host
  (``analysis/decoded_outputs.decoded_ids``, asked by HTD202): in a stopping criterion it runs
  once per generated token (jsonformer 0.12.0 ``logits_processors.py:19``, ``:42``).
- The first two parameters of a ``LogitsProcessor``/``LogitsWarper``/``StoppingCriteria``
  subclass's ``__call__`` are the ids and scores ``generate()`` hands it, tensors even when
  bare (lighteval 0.13.0's ``MultiTokenEOSCriteria``) (``analysis/generation_hooks.py``).
"""

from __future__ import annotations

import pytest
from lint_runs import lint


def _rows(code: str, *codes: str) -> list[tuple[int, str]]:
    return sorted((f.start.row, f.confidence) for f in lint(code, *codes))


# jsonformer 0.12.0 jsonformer/logits_processors.py:1-23, :26-45.
STOPPING = """\
import torch
from transformers import PreTrainedTokenizer, StoppingCriteria
class StringStoppingCriteria(StoppingCriteria):
    def __init__(self, tokenizer: PreTrainedTokenizer, prompt_length: int):
        self.tokenizer = tokenizer
        self.prompt_length = prompt_length
    def __call__(self, input_ids: torch.LongTensor, _) -> bool:
        if len(input_ids[0]) <= self.prompt_length:
            return False
        last_token_id = input_ids[0][-1]
        last_token = self.tokenizer.decode(last_token_id, skip_special_tokens=True)
        return '"' in last_token
class NumberStoppingCriteria(StoppingCriteria):
    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> bool:
        decoded = self.tokenizer.decode(
            input_ids[0][self.prompt_length :], skip_special_tokens=True
        )
        return decoded.count(".") > 1
"""


def test_a_stopping_criterion_decoding_its_ids_syncs_per_token() -> None:
    assert _rows(STOPPING, "HTD202") == [(11, "medium"), (15, "medium")]


# lighteval 0.13.0 lighteval/models/transformers/transformers_model.py:1239-1272 (bare params).
MULTI_TOKEN = """\
import transformers
from transformers import {base}
class MultiTokenEOSCriteria({base}):
    def __call__(self, input_ids, scores, **kwargs) -> bool:
        lookback_ids_batch = input_ids[:, self.initial_decoder_input_length :]
        lookback_ids_batch = lookback_ids_batch[:, -self.sequence_id_len :]
        lookback_tokens_batch = self.tokenizer.batch_decode(lookback_ids_batch)
        for i, done in enumerate(self.done_tracker):
            if not done:
                self.done_tracker[i] = self.sequence in lookback_tokens_batch[i]
        return False not in self.done_tracker
"""


@pytest.mark.parametrize("base", ["StoppingCriteria", "LogitsProcessor", "LogitsWarper"])
def test_bare_parameters_of_a_generation_hook_are_tensors(base: str) -> None:
    assert _rows(MULTI_TOKEN.format(base=base), "HTD202") == [(7, "medium")]


def test_a_local_base_class_of_a_generation_hook_counts() -> None:
    code = MULTI_TOKEN.format(base="StoppingCriteria").replace(
        "class MultiTokenEOSCriteria(StoppingCriteria):",
        "class Base(StoppingCriteria):\n    pass\nclass MultiTokenEOSCriteria(Base):",
    )
    assert _rows(code, "HTD202") == [(9, "medium")]


@pytest.mark.parametrize(
    "header",
    [
        # a hook class of another library (outlines' arrays may be numpy)
        "from outlines.processors import OutlinesLogitsProcessor as StoppingCriteria",
        # a class of the module itself that is no transformers hook
        "class StoppingCriteria:\n    pass",
    ],
)
def test_bare_parameters_of_other_callables_stay_unknown(header: str) -> None:
    code = MULTI_TOKEN.format(base="StoppingCriteria").replace(
        "import transformers\nfrom transformers import StoppingCriteria", header
    )
    assert _rows(code, "HTD202") == []


def test_a_later_parameter_or_an_annotated_list_is_no_hook_tensor() -> None:
    code = """\
from transformers import StoppingCriteria
class Stop(StoppingCriteria):
    def __call__(self, input_ids: list[int], scores, stop_ids=None) -> bool:
        return "x" in self.tokenizer.decode(input_ids) or self.tokenizer.decode(stop_ids) == ""
"""
    assert _rows(code, "HTD202") == []


def test_a_decode_of_host_ids_or_by_a_model_is_no_read() -> None:
    code = """\
import torch
class Model(torch.nn.Module):
    def forward(self, x, token_ids: list[int]):
        text = self.tokenizer.decode(token_ids)
        image = self.vae.decode(x.sum(dim=0))
        return self.net(x), text, image
"""
    assert _rows(code, "HTD202") == []
