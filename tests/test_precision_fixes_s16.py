"""The analysis facts behind session 16's held-out precision fixes (docs/precision.md,
"Session 16"): each look-alike found in code no triage had read, and its true twin."""

from __future__ import annotations

import libcst as cst
from lint_runs import lint

from h2dlint.analysis.bindings import arithmetic_update


def _findings(code: str, rule_code: str, path: str = "m.py") -> list[str]:
    return [f.message for f in lint(code, rule_code, path=path)]


def test_arithmetic_updates_are_found_by_name() -> None:
    statement = cst.parse_statement("z += 1")
    target = arithmetic_update(statement, "z")
    assert isinstance(target, cst.Name) and target.value == "z"
    assert arithmetic_update(statement, "y") is None
    assert arithmetic_update(cst.parse_statement("z |= m"), "z") is None  # not arithmetic
    assert arithmetic_update(cst.parse_statement("z = z + 1"), "z") is None


IN_PLACE = """
    import torch
    def step(n: int):
        z = torch.zeros(n, dtype=torch.int32{device}).sum(0)
        z += 1
        return z.tolist()
    """


def test_an_in_place_update_keeps_a_tensor_where_it_was() -> None:
    # xformers' test helper: a host tensor updated in place is still on the host.
    assert not _findings(IN_PLACE.format(device=""), "HTD202")
    # Made on the device, it is still on the device, now proven (no longer MEDIUM).
    found = _findings(IN_PLACE.format(device=', device="cuda"'), "HTD202")
    assert found and "`z` is on the device" in found[0]


LOOP_IN_PLACE = """
    import torch
    def step(xs, n: int):
        z = torch.zeros(n{device})
        for x in xs:
            z += x
        return z.tolist()
    """


def test_an_in_place_update_in_a_loop_keeps_the_place() -> None:
    assert not _findings(LOOP_IN_PLACE.format(device=""), "HTD202")
    found = _findings(LOOP_IN_PLACE.format(device=', device="cuda"'), "HTD202")
    assert found and "`z` is on the device" in found[0]


DATASET_ROWS = """
    import torch
    def sample_segments(audio: torch.Tensor, lens: torch.Tensor, n: int):
        out = torch.zeros(audio.shape[0], n{device})
        for b in range(audio.shape[0]):
            length = min(lens[b].item(), audio.shape[1])
            out[b, :length] = audio[b, :length]
        return out
    """


def test_rows_of_unknown_place_in_a_dataset_module_are_host_data() -> None:
    code = DATASET_ROWS.format(device="")
    # NeMo's duplex_ear_tts_dataset.py: a sample's lengths, prepared in a loader worker.
    assert not _findings(code, "HTD201", "speechlm2/data/duplex_ear_tts_dataset.py")
    assert not _findings(code, "HTD201", "training/dataset/sam2_datasets.py")
    # The same function elsewhere is still reported (MEDIUM: per-row overhead).
    assert _findings(code, "HTD201", "speechlm2/parts/label_prep.py")


def test_rows_proven_on_the_device_in_a_dataset_module_are_reported() -> None:
    code = """
    import torch
    def sample_segments(audio: torch.Tensor, n: int):
        lens = torch.full((audio.shape[0],), n, device="cuda")
        for b in range(audio.shape[0]):
            audio[b, : lens[b].item()] = 0
        return audio
    """
    assert _findings(code, "HTD201", "data/tts_dataset.py")


WHILE_TEST = """
    import torch
    class MixedDataLoader:
        def __init__(self, loaders, mixing_prob: torch.Tensor):
            self.mixing_prob = mixing_prob
        def __next__(self):
            probs = self.mixing_prob.clone()
            while probs.any():
                idx = probs.multinomial(1).item()
                probs[idx] = 0
            raise StopIteration
    """


def test_a_while_test_of_unknown_place_in_a_dataset_module_is_host_data() -> None:
    # sam2's data-loader mixer (sam2_datasets.py): its probabilities are a host tensor.
    assert not _findings(WHILE_TEST, "HTD201", "training/dataset/sam2_datasets.py")
    assert _findings(WHILE_TEST, "HTD201", "training/mixing.py")


def test_a_mapping_entry_by_string_key_is_no_row() -> None:
    code = """
    import torch
    class Adam(torch.optim.Optimizer):
        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    grad = p.grad.data.float()
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = 0
                        state["exp_avg"] = torch.zeros_like(grad)
                    state["step"] += 1
                    {read}
    """
    assert not _findings(code.format(read='k = int(state["step"] % 10)'), "HTD201")
    # The parameter's own values read on the host: still per-row syncs.
    assert _findings(code.format(read="k = int(grad.abs().max())"), "HTD201")


def test_a_loader_batch_is_moved_field_by_field() -> None:
    code = """
    import torch
    from torch.utils.data import DataLoader
    def evaluate(model, dataset, device):
        for i, batch in enumerate(DataLoader(dataset, batch_size=8)):
            batch = [x.to(device) for x in {items}]
            model(*batch)
    """
    assert not _findings(code.format(items="batch"), "HTD101")
    # A list the batch holds (like items: images of one field) is still per-item transfer.
    assert _findings(code.format(items='batch["images"]'), "HTD101")
