"""The analysis facts behind session 19's held-out precision fixes of helper heldout19b
(docs/precision.md, "Session 19: held-out precision (helper heldout19b)"): each look-alike
found in code no triage had read (MONAI, PyTorch Geometric, Kornia), and its true twin."""

from __future__ import annotations

import textwrap

from h2dlint.engine import EnabledRule, check_text
from h2dlint.registry import all_rules


def _findings(code: str, rule_code: str, path: str = "m.py") -> list[str]:
    rule = all_rules()[rule_code]
    enabled = (EnabledRule(rule, tuple(sorted(rule.default_settings().items()))),)
    return [f.message for f in check_text(textwrap.dedent(code), path, enabled)]


TRANSFORM = """
    import torch
    from monai.transforms import {base}
    class SqueezeDim({bases}):
        def __call__(self, img: torch.Tensor):
            keep = torch.arange(0, 4, device=img.device) != 1
            return img[keep]
    """


def test_a_class_derived_from_a_data_transform_prepares_data_on_the_host() -> None:
    for base in ("Transform", "MapTransform", "monai.transforms.Transform"):
        code = TRANSFORM.format(base=base.rpartition(".")[2], bases=base)
        assert not _findings(code, "HTD202"), base
    # PyTorch Geometric's transforms derive from BaseTransform and define forward.
    pyg = """
        import torch
        from torch_geometric.transforms import BaseTransform
        class AddMetaPaths(BaseTransform):
            def forward(self, data):
                mask = torch.rand(data.num_edges, device=data.edge_index.device) < 0.5
                data.edge_index = data.edge_index[:, mask]
                return data
        """
    assert not _findings(pyg, "HTD202")
    # A module that also derives from a transform is a layer, and its forward runs per step.
    layer = TRANSFORM.format(base="Transform", bases="Transform, torch.nn.Module")
    assert _findings(layer, "HTD202")
    # So is a class derived from anything else.
    other = TRANSFORM.format(base="Augmentation", bases="Augmentation")
    assert _findings(other, "HTD202")


CHECK = """
    import torch
    class Codec(torch.nn.Module):
        def forward(self, quality: torch.Tensor):
            check(bool(quality.min() >= 0), {message})
            return quality * 2
    """


def test_a_lambda_that_only_formats_a_message_runs_when_the_check_fails() -> None:
    lazy = 'lambda: f"got {quality.amin().item()}"'
    messages = _findings(CHECK.format(message=lazy), "HTD202")
    assert len(messages) == 1 and "quality.min()" in messages[0]  # the test itself syncs
    concatenated = 'lambda: "got " + str(quality.amin().item())'
    assert len(_findings(CHECK.format(message=concatenated), "HTD202")) == 1
    # A lambda that computes a value is called on the hot path as any function.
    computed = "lambda: quality.amin().item() > 3"
    assert len(_findings(CHECK.format(message=computed), "HTD202")) == 2


HANDLER = """
    import torch
    class Aggregation(torch.nn.Module):
        def forward(self, x: torch.Tensor, index: torch.Tensor, dim_size: int):
            try:
                return scatter(x, index, dim_size)
            except (IndexError, RuntimeError) as e:
                if dim_size <= int(index.max()):
                    {after}
                {last}
    """


def test_an_except_handler_that_raises_explains_a_failure() -> None:
    code = HANDLER.format(after='raise ValueError("bad dim_size") from e', last="raise e")
    assert not _findings(code, "HTD202")
    # A handler that falls back and goes on runs whenever the try fails: still reported.
    fallback = HANDLER.format(after="dim_size = 0", last="return scatter(x, index, dim_size)")
    assert _findings(fallback, "HTD202")
