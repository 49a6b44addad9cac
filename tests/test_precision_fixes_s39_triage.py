"""The analysis facts behind session 39's blind-style triage (docs/precision.md, "Session 39
(triage39)"), with the twins that must keep their verdict. A ``forward`` word in the name of a
driver (``benchmark_encoder_forward``, ``export_forward``) is its subject, as an ``attention``
word already was: the function is no forward pass (TransformerLens' benchmarks). A list made
from a display of a few tensors has as many items as the display (TransformerLens' coordinate
patch), and whole weights copied to the host one by one from a list named for them are a
merge's or a checkpoint's copies (SwissArmyTransformer's model-parallel merge): HTD201 reports
neither, and keeps the same shapes over other lists."""

from __future__ import annotations

from pathlib import Path

from lint_runs import cli_rows

from h2dlint.analysis.hot_names import name_reason

NAN_CHECK = """
import torch
def {name}(bridge, tokens):
    out = bridge(tokens.to("cuda"))
    if torch.isnan(out).any():
        return None
    return out
"""

ITEMS = """
import torch
def check(a, b, c, device, rows, sub_module):
    local = [v.float().to(device) for v in {source}]
    if not all(bool(torch.isfinite(v).all()) for v in local):
        raise ValueError("non-finite")
    {weights} = [w.to(device) for w in sub_module.partition()]
    sub_module.merge([x.cpu() for x in {weights}])
"""


def test_a_forward_word_in_a_drivers_name_is_its_subject() -> None:
    for name in ("benchmark_encoder_forward", "bench_forward", "export_forward"):
        assert name_reason(name, method=False) is None, name
    # A forward's own names stay hot.
    for name in ("encoder_forward", "forward_decode", "_attn_forward"):
        assert name_reason(name, method=False) is not None, name


def test_a_benchmark_drivers_check_is_not_reported(tmp_path: Path) -> None:
    text = NAN_CHECK.format(name="benchmark_encoder_forward")
    assert cli_rows(tmp_path, text, "HTD202") == []
    assert cli_rows(tmp_path, NAN_CHECK.format(name="encoder_forward"), "HTD202") == [5]


def test_items_of_a_display_and_whole_weights_are_not_reported(tmp_path: Path) -> None:
    text = ITEMS.format(source="(a, b, c)", weights="new_weights")
    assert cli_rows(tmp_path, text, "HTD201") == []


def test_the_same_loops_over_other_lists_stay_reported(tmp_path: Path) -> None:
    """Items of a list of unknown length, and of device outputs not named for weights."""
    text = ITEMS.format(source="rows", weights="outs")
    assert cli_rows(tmp_path, text, "HTD201") == [5, 8]
