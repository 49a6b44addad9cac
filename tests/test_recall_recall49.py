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


# torchdiffeq 0.2.5 torchdiffeq/_impl/misc.py:86-96.
OPTIMAL_STEP = """\
import torch
@torch.no_grad()
def _optimal_step_size(last_step, error_ratio, safety, ifactor, dfactor, order):
    if error_ratio == 0:
        return last_step * ifactor
    if error_ratio < 1:
        dfactor = torch.ones((), dtype=last_step.dtype, device=last_step.device)
    error_ratio = error_ratio.type_as(last_step)
    exponent = torch.tensor(order, dtype=last_step.dtype, device=last_step.device).reciprocal()
    factor = torch.min(ifactor, torch.max(safety / error_ratio ** exponent, dfactor))
    return last_step * factor
"""


def test_a_parameter_used_as_a_tensor_before_its_rebinding_is_a_tensor() -> None:
    assert _rows(OPTIMAL_STEP, "HTD202") == [(4, "medium"), (6, "medium")]


@pytest.mark.parametrize(
    "rebinding",
    [
        # another value between the read and the tensor use
        "error_ratio = torch.as_tensor(error_ratio)\n    ",
        # the use reached by a rebinding as well as the parameter
        "if safety:\n        error_ratio = float(safety)\n    ",
    ],
)
def test_a_tensor_use_of_another_value_proves_nothing(rebinding: str) -> None:
    code = OPTIMAL_STEP.replace(
        "error_ratio = error_ratio.type_as", rebinding + "error_ratio = error_ratio.type_as"
    )
    assert _rows(code, "HTD202") == []


def test_a_local_name_rebound_from_a_call_keeps_its_judgement() -> None:
    code = """\
import torch
def _scaled_step(x, last_step):
    ratio = 0.0
    ratio = x.norm_ratio()
    if ratio < 1:
        last_step = last_step * 2
    ratio.fill_(1.0)
    return last_step
"""
    assert _rows(code, "HTD202") == []


# torchdiffeq 0.2.5 torchdiffeq/_impl/rk_common.py:241-247 (the time annotated: the package's
# own `next_t` is not proven a tensor, and the row stays a miss).
ADVANCE = """\
import torch
class Solver:
    def _advance(self, next_t: torch.Tensor):
        n_steps = 0
        while {test}:
            self.rk_state = self._adaptive_step(self.rk_state)
            n_steps += 1
        return self.rk_state.y1
"""


def test_a_while_loop_of_steps_reads_its_tensor_test_per_step() -> None:
    assert _rows(ADVANCE.format(test="next_t > self.rk_state.t1"), "HTD202") == [(5, "medium")]


@pytest.mark.parametrize(
    "test", ["n_steps < self.max_num_steps", "not self.done", "self.t1 < self.t_end"]
)
def test_a_while_loop_of_steps_with_a_host_test_is_clean(test: str) -> None:
    assert _rows(ADVANCE.format(test=test), "HTD202") == []


def test_a_while_loop_calling_no_step_is_not_made_hot() -> None:
    code = ADVANCE.format(test="next_t > self.t1").replace("_adaptive_step", "_set_step")
    assert _rows(code, "HTD202") == []


# llmcompressor 0.13.0 llmcompressor/observers/mse_quant.py:133-196 (the grid search's early stop).
GRID_SEARCH = """\
import torch
def _grid_search_step(best_error: torch.Tensor, total_steps: int, patience: int):
    idx, stale = 0, 0
    while idx < total_steps:
        prev_best = {prev}
        best_error = torch.minimum(best_error, best_error * 0.9)
        if torch.equal(prev_best, best_error):
            stale += 1
            if stale >= patience:
                break
        idx += 1
    return best_error
"""


def test_torch_equal_in_a_while_loop_reads_per_iteration() -> None:
    code = GRID_SEARCH.format(prev="best_error.clone()")
    assert _rows(code, "HTD201", "HTD202") == [(7, "medium")]


def test_torch_equal_of_values_of_unknown_kind_is_clean() -> None:
    code = GRID_SEARCH.format(prev="history[-1]").replace(
        "torch.equal(prev_best, best_error)", "torch.equal(prev_best, history[-2])"
    )
    assert _rows(code, "HTD201", "HTD202") == []


def test_torch_equal_and_allclose_in_a_forward_read_a_bool() -> None:
    code = """\
import torch
class SimModel(torch.nn.Module):
    def forward(self, numbers: torch.Tensor, positions: torch.Tensor, cell):
        assert torch.equal(numbers, self.atomic_numbers)
        if not torch.equal(numbers, self.atomic_numbers):
            self.setup(numbers)
        if positions.allclose(self.last_positions):
            return self.cached
        if torch.equal(cell, self.cell):
            return self.cached
        return self.net(positions)
"""
    assert _rows(code, "HTD202") == [(5, "medium"), (7, "medium")]
