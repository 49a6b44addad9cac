"""Session 37 (recall37): items of a list built one tensor per item are tensors; a name compared
inside ``torch.where(...)`` is one; comprehension rows of a boolean mask and ``dtype=torch.bool``
tensors are masks (a host mask is no sync); HTD202 leaves a round trip's read to HTD303."""

from __future__ import annotations

import textwrap

from h2dlint.engine import EnabledRule, check_text
from h2dlint.registry import all_rules


def _codes(source: str, *codes: str) -> list[tuple[str, int]]:
    rules = all_rules()
    enabled = tuple(
        EnabledRule(rules[c], tuple(sorted(rules[c].default_settings().items()))) for c in codes
    )
    findings = check_text(textwrap.dedent(source), "example.py", enabled)
    return sorted((f.code, f.start.row) for f in findings)


def test_items_of_a_list_built_per_item_are_tensors() -> None:
    source = """
        import torch
        class M(torch.nn.Module):
            def forward(self, x: torch.Tensor, keep: torch.Tensor):
                rows = [r[1:] for r in x]
                for row in rows:
                    n = (row == 3).sum()
                    if n == 0:
                        continue
    """
    assert _codes(source, "HTD202") == [("HTD202", 8)]


def test_a_list_of_other_values_proves_nothing() -> None:
    source = """
        import torch
        class M(torch.nn.Module):
            def forward(self, x: torch.Tensor):
                rows = [len(r) for r in x]
                for row in rows:
                    n = (row == 3).sum()
                    if n == 0:
                        continue
    """
    assert _codes(source, "HTD202") == []


def test_a_name_compared_inside_torch_where_is_a_tensor() -> None:
    source = """
        import torch
        IMAGE = -200
        class M(torch.nn.Module):
            def forward(self, input_ids):
                for ids in input_ids:
                    n = (ids == IMAGE).sum()
                    if n == 0:
                        continue
                    where = torch.where(ids == IMAGE)
    """
    assert ("HTD202", 8) in _codes(source, "HTD202")


def test_a_comprehension_name_is_not_the_function_name() -> None:
    # ``ids`` of the comprehension is used as a tensor; the function's ``ids`` is a list
    source = """
        import torch
        class M(torch.nn.Module):
            def forward(self, batch, ids):
                kept = [torch.where(ids == 1) for ids in batch]
                n = (ids == 3).sum()
                if n == 0:
                    return kept
    """
    assert _codes(source, "HTD202") == []


def test_a_comprehension_name_used_as_a_tensor_in_it_is_one() -> None:
    # the lead's review: speechbrain's per-item ``item.masked_select(item_mask)`` (labelled
    # HTD202) was lost when comprehension names stopped counting as the function's
    source = """
        import torch
        class M(torch.nn.Module):
            def forward(self, x, mask):
                return torch.stack(
                    [item.masked_select(m).var() for item, m in zip(x, mask)]
                )
    """
    assert _codes(source, "HTD202") == [("HTD202", 6)]


def test_a_comprehension_name_bound_again_outside_proves_nothing() -> None:
    source = """
        import torch
        class M(torch.nn.Module):
            def forward(self, x, mask, item):
                kept = [item.masked_select(m) for item, m in zip(x, mask)]
                if item == 0:
                    return kept
    """
    assert _codes(source, "HTD202") == []


def test_mask_rows_of_a_comprehension_and_host_masks() -> None:
    source = """
        import torch
        class M(torch.nn.Module):
            def forward(self, input_ids, attention_mask, keep: list[bool], x: torch.Tensor):
                attention_mask = torch.ones_like(input_ids, dtype=torch.bool)
                rows = [ids[m] for ids, m in zip(input_ids, attention_mask)]
                host = torch.tensor(keep, dtype=torch.bool)
                return rows, x[host]
    """
    assert _codes(source, "HTD202") == [("HTD202", 6)]


def test_a_round_trip_read_is_htd303s_alone() -> None:
    source = """
        import torch
        class M(torch.nn.Module):
            def forward(self, seqs, x):
                lens = [len(s) for s in seqs]
                lens_t = torch.tensor(lens, device="cuda")
                return x[:, : lens_t.max().item()]
    """
    assert _codes(source, "HTD202", "HTD303") == [("HTD303", 7)]
