"""The facts behind session 28's held-out rows (docs/recall.md, "Session 28 (heldout28)"):
eole 0.4.0's vision encoder filled a block-diagonal mask on the host block by block and copied
it to the device every forward (HTD301's ``size_built`` counted the fills as other uses of the
mask), and eole's generator read ``max(src_len.tolist())`` of the device source lengths on every
decoding step of a loop in a function no name makes hot (HTD202 took a ``for`` loop as per step
only for a backward pass, an optimizer step, a graph replay, copies or carried tensors; a
``while`` loop running a model only for its test). Each beside the correct look-alikes."""

from __future__ import annotations

import textwrap

from h2dlint.engine import EnabledRule, check_text
from h2dlint.registry import all_rules


def _findings(code: str, *rule_codes: str) -> list[tuple[str, int, str]]:
    rules = all_rules()
    enabled = tuple(
        EnabledRule(rules[c], tuple(sorted(rules[c].default_settings().items())))
        for c in rule_codes
    )
    found = check_text(textwrap.dedent(code), "m.py", enabled)
    return sorted((f.code, f.start.row, f.confidence.value) for f in found)


_MASK = """
    import torch
    def create_block_diagonal_mask(lengths, device):
        total_length = sum(lengths)
        mask = torch.zeros((total_length, total_length), dtype=torch.bool{device})
        start = 0
        for length in lengths:
            end = start + length
            mask[start:end, start:end] = True
            start = end
        return {returned}
"""


def test_block_mask_filled_on_host_then_moved() -> None:
    """eole 0.4.0 encoders/vision.py:85: MEDIUM, the move's target named `device`."""
    code = _MASK.format(device="", returned="mask.to(device)")
    assert _findings(code, "HTD301") == [("HTD301", 11, "medium")]


def test_block_mask_on_device() -> None:
    """eole 0.4.4's fix: allocated with `device=`, filled there, nothing moved."""
    code = _MASK.format(device=", device=device", returned="mask")
    assert _findings(code, "HTD301") == []


def test_fills_of_data_are_no_sizes() -> None:
    """A write through an index tensor or of values keeps the tensor's data: not reported."""
    code = """
        import torch
        def scatter(ids, vals, device):
            mask = torch.zeros(8, dtype=torch.bool)
            mask[ids] = True
            table = torch.zeros(4, 8)
            table[0:2] = vals
            other = torch.zeros(4, 8)
            other[:, :n_of(vals)] = 1
            return mask.to(device), table.to(device), other.to(device)
    """
    assert _findings(code, "HTD301") == []


_LOOP = """
    import torch
    class GeneratorLM:
        def _predict_batch_with_strategy(self, batch, decode_strategy):
            src_len = batch["srclen"].to("cuda")
            {before}
            for step in {steps}:
                position = {position}
                log_probs = self._decode_and_generate(decode_strategy.current, position)
                decode_strategy.advance(log_probs)
                if decode_strategy.any_finished:
                    self.model.decoder.map_state(decode_strategy.select_indices)
"""


def test_read_in_loop_of_decoding_steps() -> None:
    """eole 0.4.0 predict/generator.py:140: HIGH, the lengths moved to "cuda"."""
    code = _LOOP.format(
        before="pass",
        steps="range(decode_strategy.max_length)",
        position="step + max(src_len.tolist())",
    )
    assert _findings(code, "HTD202") == [("HTD202", 8, "high")]


def test_read_once_before_the_loop() -> None:
    """eole 0.4.4's fix: one read before the loop, a Python int in it."""
    code = _LOOP.format(
        before="prefill_length = max(src_len.tolist())",
        steps="range(decode_strategy.max_length)",
        position="step + prefill_length",
    )
    assert _findings(code, "HTD202") == []


def test_loop_over_positions_is_no_loop_of_steps() -> None:
    """A loop over a collection's positions (`range(len(...))`) or over its items is left
    alone by this reason (an evaluation pass reads its outputs)."""
    for steps in ("range(len(batch))", "batch"):
        code = _LOOP.format(before="pass", steps=steps, position="max(src_len.tolist())")
        assert _findings(code, "HTD202") == [], steps


def test_loop_without_a_model_is_no_loop_of_steps() -> None:
    """A range loop that runs no model is host bookkeeping by this reason."""
    code = """
        import torch
        class Packer:
            def pack(self, lengths, n):
                lengths = lengths.to("cuda")
                out = []
                for step in range(n):
                    out.append(step + max(lengths.tolist()))
                return out
    """
    assert _findings(code, "HTD202") == []


def test_a_name_holding_the_word_is_no_model_call() -> None:
    """torchrec's test-input generator builds `ModelInput(...)` per rank in a range loop: no
    model runs there (a precision fix found by the whole-package diff)."""
    code = """
        import torch
        class ModelInput:
            @staticmethod
            def generate(lengths, world_size):
                lengths = lengths.to("cuda")
                inputs = []
                for r in range(world_size):
                    cumsum = lengths.view(world_size, -1).sum(dim=1).cumsum(dim=0).tolist()
                    inputs.append(ModelInput(cumsum[r]))
                return inputs
    """
    assert _findings(code, "HTD202") == []


def test_tile_outputs_copied_to_the_host() -> None:
    """xinference's tiled upscaler copies each tile's output to the host result (which needs
    it): a whole-tensor copy is no read of values in a loop of steps (a precision fix found
    by the diff); the stop test of a decoding loop still is."""
    code = """
        import torch
        def upscale(model, pixels, tile):
            result = torch.empty(pixels.shape)
            for y in range(0, pixels.shape[-2], tile):
                patch = pixels[..., y : y + tile].to("cuda")
                result[..., y : y + tile] = model(patch.to("cuda")).float().cpu()
            return result
        def decode(model, ids, n):
            ids = ids.to("cuda")
            for _ in range(n):
                logits = model(ids)
                ids = logits.argmax(-1)
                if (ids == 2).any().item():
                    break
            return ids
    """
    assert _findings(code, "HTD202") == [("HTD202", 14, "medium")]


def test_a_loop_over_epochs_is_no_loop_of_steps() -> None:
    """tabpfn's fine-tuning: `for epoch in range(start, self.epochs):` runs a whole pass per
    iteration (its batches in a nested loop); a read in its own body, after the batch loop,
    runs once per epoch (the lead's mend of this reason after the label run)."""
    code = """
        import torch
        import torch.distributed as dist
        class Finetuner:
            def fit(self, loader):
                for epoch in range(0, self.epochs):
                    self.model.train()
                    total = torch.zeros(2, device="cuda")
                    for batch in loader:
                        total += self.model(batch).sum()
                    dist.all_reduce(total)
                    loss = float(total[0].item())
    """
    assert _findings(code, "HTD202") == []
    stepped = code.replace("for epoch in range(0, self.epochs)", "for step in range(0, self.n)")
    assert [row for _, row, _ in _findings(stepped, "HTD202")] == [12]
