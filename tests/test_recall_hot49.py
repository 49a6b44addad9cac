"""Session 49 (hot49): recall misses whose code was not found hot.

- A decoding loop behind a progress bar (``for t in tqdm(range(n)):``, ``trange(n)``) around a
  helper named for a forward pass (``_batch_forward(client, tokens)``) is a loop of steps for
  the project index: what it calls runs per step (esm 3.2.1 ``utils/generation.py:280``)
  (``analysis/step_loops.py``).
- A method is called through a receiver named for its class when the calling module cannot
  type the receiver (``context.mamba_slot_allocator.commit_intermediate_states()``,
  ``self.output_model.reduce(...)``): megatron-core 0.17.1 ``mamba_slot_allocator.py:325``,
  torchmd-net 3.1.0 ``output_modules.py:63`` (``project/named_receivers.py``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from lint_runs import cli_rows, package_records

from h2dlint.analysis.step_loops import _steps
from h2dlint.project.named_receivers import class_receivers, receiver_word


def _files(records: list[dict[str, object]]) -> list[tuple[str, int]]:
    found = []
    for r in records:
        name = str(r["filename"]).rpartition("/")[2]
        location = r["location"]
        assert isinstance(location, dict)
        found.append((name, int(location["row"])))
    return sorted(found)


# esm 3.2.1 utils/generation.py:244-280, :358-414, :487, :540.
ESM = """\
import torch
from tqdm import tqdm

def _get_sampling_mask(tokens, mask_token_id):
    is_mask = tokens == mask_token_id
    if not is_mask.any().item():
        raise ValueError("no masks")
    return is_mask

def _batch_forward(client, protein):
    return client.logits(protein)

def iterative_sampling_tokens(client, tokens, num_steps):
    for t in {loop}:
        forward_out = {step}(client, tokens)
        tokens = _get_sampling_mask(tokens, 32)
    return tokens
"""


@pytest.mark.parametrize(
    "loop", ["tqdm(range(num_steps), disable=True)", "trange(num_steps)", "range(num_steps)"]
)
def test_a_progress_bar_of_steps_around_a_forward_helper_is_a_loop_of_steps(
    tmp_path: Path, loop: str
) -> None:
    code = ESM.format(loop=loop, step="_batch_forward")
    assert cli_rows(tmp_path, code, "HTD202") == [6]


@pytest.mark.parametrize(
    ("loop", "step"),
    [
        ("tqdm(range(len(tokens)))", "_batch_forward"),  # positions of a collection
        ("tqdm(range(num_epochs))", "_batch_forward_epoch"),  # no forward as last word
        ("tqdm(loader)", "_batch_forward"),  # a loader's batches, not a range of steps
        ("tqdm(range(num_steps))", "client.hooks.pre_forward"),  # another object's method
        ("tqdm(range(num_steps))", "forward_helper"),  # ``forward`` not the last word
    ],
)
def test_other_loops_and_helpers_are_no_loop_of_steps(tmp_path: Path, loop: str, step: str) -> None:
    code = ESM.format(loop=loop, step=step)
    assert cli_rows(tmp_path, code, "HTD202") == []


def test_the_index_reads_the_progress_bar_loop() -> None:
    code = ESM.format(loop="tqdm(range(num_steps))", step="_batch_forward")
    loops = _steps(ast.parse(code))["loops"]
    assert [step for *_, step, _ in loops["iterative_sampling_tokens"]] == ["_batch_forward"]


def test_receiver_names_of_a_class() -> None:
    assert class_receivers("MambaSlotAllocator") == ["slot_allocator", "mamba_slot_allocator"]
    assert class_receivers("KVCache") == ["kv_cache"]
    assert class_receivers("Context") == []
    assert receiver_word("_mamba_slot_allocator") == "mamba_slot_allocator"
    assert receiver_word("context") is None


# megatron-core 0.17.1 inference/contexts/mamba_slot_allocator.py:312-325, :474-494;
# text_generation_controllers/text_generation_controller.py:1739-1783; engines/dynamic_engine.py.
ALLOCATOR = """\
import torch

class {cls}:
    def __init__(self, context, max_slots):
        self.context = context
        self.state_idx = torch.zeros(max_slots, device="cuda")

    def store_from_live_batch(self, slots, request_indices):
        req_tensor = torch.tensor(request_indices, device=self.state_idx.device)
        return self.state_idx[req_tensor].tolist()

    def commit_intermediate_states(self):
        self.store_from_live_batch([0], [1])
"""
CONTROLLER = """\
class TextGenerationController:
    def __init__(self, wrapped):
        self.inference_wrapped_model = wrapped

    def generate_output_tokens_dynamic_batch(self):
        context = self.inference_wrapped_model.inference_context
        {call}
"""
ENGINE = """\
from .controller import TextGenerationController

class DynamicInferenceEngine:
    def __init__(self, wrapped):
        self.controller = TextGenerationController(wrapped)

    def async_forward(self):
        return self.controller.generate_output_tokens_dynamic_batch()
"""


def _allocator_rows(tmp_path: Path, cls: str, call: str) -> list[tuple[str, int]]:
    files = {
        "allocator.py": ALLOCATOR.format(cls=cls),
        "controller.py": CONTROLLER.format(call=call),
        "engine.py": ENGINE,
    }
    return _files(package_records(tmp_path, files, "HTD202"))


@pytest.mark.parametrize(
    "call",
    [
        "context.mamba_slot_allocator.commit_intermediate_states()",
        "context._slot_allocator.commit_intermediate_states()",
    ],
)
def test_a_receiver_named_for_the_class_reaches_its_method(tmp_path: Path, call: str) -> None:
    rows = _allocator_rows(tmp_path, "MambaSlotAllocator", call)
    assert rows == [("allocator.py", 10)]


@pytest.mark.parametrize(
    ("cls", "call"),
    [
        # one word names too many classes (and library objects)
        ("Allocator", "context.allocator.commit_intermediate_states()"),
        # a name with a word the class's name does not have
        ("MambaSlotAllocator", "context.kv_slot_allocator.commit_intermediate_states()"),
        # the class's words, but another method
        ("MambaSlotAllocator", "context.mamba_slot_allocator.commit_other_states()"),
        # set-up: nothing is hot through ``__init__``
        ("MambaSlotAllocator", "pass"),
    ],
)
def test_other_receivers_reach_nothing(tmp_path: Path, cls: str, call: str) -> None:
    assert _allocator_rows(tmp_path, cls, call) == []


def test_a_call_from_set_up_stays_cold(tmp_path: Path) -> None:
    files = {
        "allocator.py": ALLOCATOR.format(cls="MambaSlotAllocator"),
        "controller.py": CONTROLLER.format(call="pass").replace(
            "        self.inference_wrapped_model = wrapped\n",
            "        self.inference_wrapped_model = wrapped\n"
            "        wrapped.mamba_slot_allocator.commit_intermediate_states()\n",
        ),
        "engine.py": ENGINE,
    }
    assert _files(package_records(tmp_path, files, "HTD202")) == []
