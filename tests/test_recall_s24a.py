"""The facts behind session 24's held-out rows (docs/recall.md, "Session 24 (heldout24a)"):
NeMo 2.1's Sortformer built every forward's (batch, frames) encoder mask on the host from sizes
alone (an arange, lengths made by repeating a shape, views and a comparison of them, each in its
own local name) and copied the mask to the device; HTD301 saw only factory chains written in the
move's receiver (``size_built``). Each beside the correct look-alikes."""

from __future__ import annotations

from lint_runs import lint


def _findings(code: str, *rule_codes: str) -> list[tuple[str, int, str]]:
    found = lint(code, *rule_codes)
    return sorted((f.code, f.start.row, f.confidence.value) for f in found)


def test_sortformer_mask_built_on_host_from_sizes() -> None:
    """NeMo 2.1.0 sortformer_modules.py:91: the move's target is named `device` by an
    attribute of a parameter (MEDIUM, as HTD301's other moves by name)."""
    code = """
        import torch
        class SortformerModules:
            def length_to_mask(self, context_embs):
                lengths = torch.tensor([context_embs.shape[1]] * context_embs.shape[0])
                b = context_embs.shape[0]
                n = context_embs.shape[1]
                row_vector = torch.arange(n).unsqueeze(0).expand(b, -1).to(lengths.device)
                length_matrix = lengths.unsqueeze(1).expand(-1, n).to(lengths.device)
                mask = row_vector < length_matrix
                return mask.float().to(context_embs.device)
    """
    assert _findings(code, "HTD301") == [("HTD301", 11, "medium")]


def test_fixed_mask_on_device() -> None:
    """NeMo 2.2.1's fix: the arange made on the device, compared with device lengths."""
    code = """
        import torch
        class SortformerModules:
            def length_to_mask(self, lengths, max_length):
                batch_size = lengths.shape[0]
                arange = torch.arange(max_length, device=lengths.device)
                mask = arange.expand(batch_size, max_length) < lengths.unsqueeze(1)
                return mask
    """
    assert _findings(code, "HTD301") == []


def test_arithmetic_of_sizes_moved_by_value() -> None:
    """Arithmetic and a comparison with numbers keep the values sizes; a move to "cuda" is
    HIGH."""
    code = """
        import torch
        def offsets(n):
            base = torch.arange(n) * 2 + 1
            valid = base < 10
            return valid.to("cuda")
    """
    assert _findings(code, "HTD301") == [("HTD301", 6, "high")]


def test_host_data_other_use_rebinding_and_setup_left_alone() -> None:
    """Lengths from a list are data; a host tensor also summed on the host has another use; a
    name bound twice is not followed; an initializer runs once."""
    code = """
        import torch
        def from_data(lens: list[int], n, x):
            lengths = torch.tensor(lens)
            mask = torch.arange(n)[None, :] < lengths[:, None]
            return mask.to(x.device)
        def both(n, x):
            positions = torch.arange(n).unsqueeze(0)
            host_total = positions.sum()
            return positions.to(x.device), host_total
        def rebound(n, x):
            mask = torch.arange(n)
            mask = mask * 2
            return mask.to(x.device)
        class M(torch.nn.Module):
            def __init__(self, n, device):
                super().__init__()
                pos = torch.arange(n).unsqueeze(0)
                self.pos = pos.to(device)
    """
    assert _findings(code, "HTD301") == []


def test_parameter_and_module_name_not_followed() -> None:
    """A parameter's tensor and a move of an unknown value say nothing of sizes."""
    code = """
        import torch
        def f(mask, x):
            m = mask < 3
            return m.to(x.device)
    """
    assert _findings(code, "HTD301") == []
