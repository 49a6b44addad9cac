"""The analysis facts behind session 19's held-out precision fixes of helper heldout19b
(docs/precision.md, "Session 19: held-out precision (helper heldout19b)"): each look-alike
found in code no triage had read (MONAI, PyTorch Geometric, Kornia), and its true twin."""

from __future__ import annotations

from pathlib import Path

from lint_runs import lint


def _findings(code: str, rule_code: str, path: str = "m.py") -> list[str]:
    return [f.message for f in lint(code, rule_code, path=path)]


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


MODEL = """
import torch
from helpers import as_host


class Net(torch.nn.Module):
    def forward(self, x):
        y = self.body(x)
        return as_host(y)
"""

HELPERS = """
import numpy as np
import torch


def as_host(data, dtype=None):
    if isinstance(data, torch.Tensor):
        {arm}
    elif isinstance(data, np.ndarray):
        data = data.astype(dtype)
    return data
"""


def test_a_converter_arm_of_a_type_test_is_the_callers_request(tmp_path: Path) -> None:
    """MONAI's ``convert_to_numpy``/``ensure_tuple_rep``: ``if isinstance(data, torch.Tensor):
    data = data.detach().cpu().numpy()`` beside arms for arrays, called from another module."""
    from click.testing import CliRunner

    from h2dlint.cli import main

    def reports(name: str, arm: str) -> bool:
        folder = tmp_path / name
        folder.mkdir()
        (folder / "model.py").write_text(MODEL)
        (folder / "helpers.py").write_text(HELPERS.format(arm=arm))
        args = ["check", "--no-cache", "--select", "HTD202", "-j", "1", str(folder)]
        result = CliRunner().invoke(main, args, catch_exceptions=False)
        return "helpers.py" in result.output

    assert not reports("rebound", "data = data.detach().cpu().numpy()")
    assert not reports("wrapped", 'data = np.asarray(data.detach().to("cpu").numpy(), dtype)')
    assert not reports("returned", "return data.cpu().numpy()")
    # A value computed from the argument is no conversion of it.
    assert reports("computed", "data = data.argmax(-1).cpu().numpy()")
    # Nor is a copy bound to another name that the helper goes on computing with.
    assert reports("other", "host = data.detach().cpu().numpy()\n        data = host.sum()")


ACCELERATOR = """
    import torch
    class Solver(torch.nn.Module):
        def forward(self, x: torch.Tensor):
            if {test}:
                u, s, vh = torch.linalg.svd(x.cpu())
                return u.to(x.device)
            return torch.linalg.svd(x)[0]
    """


def test_a_branch_for_another_accelerator_by_a_flag_or_a_predicate() -> None:
    """Kornia's ``if is_mps_tensor_safe(x) and x.numel() >= 8192:`` (an MPS fallback to the CPU
    SVD), and a tensor's flags for other devices (``x.is_mps``, ``x.is_cpu``)."""
    for test in ("x.is_mps", "is_mps_tensor_safe(x) and x.numel() >= 8192", "x.is_cpu"):
        assert not _findings(ACCELERATOR.format(test=test), "HTD202"), test
    assert not _findings(ACCELERATOR.format(test="utils._is_xpu(x)"), "HTD202")
    # A size test, a setting named for the CPU, and CUDA's own flag run on CUDA too.
    for test in ("x.numel() >= 8192", "is_cpu_offload_enabled()", "x.is_cuda"):
        assert _findings(ACCELERATOR.format(test=test), "HTD202"), test
