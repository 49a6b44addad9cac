"""The facts behind session 24's held-out rows (docs/recall.md, "Session 24 (heldout24b)"):

- a tensor computed on the host from a factory and numbers only, then moved (neuralforecast's
  Informer divided ``torch.ones(b, h, n, n)`` by a size; TabNet drew a mask from
  ``ratio * torch.ones(x.shape)``), names a size unpacked from ``.shape`` proves an ``int``;
- a tensor's method returns a tensor (botorch's ``.to(dtype=int).diff().nonzero()``), and
  ``m.indices`` of a name bound to a reduction is one (kornia's ``max0.indices``);
- a project may re-export torch's functions and ``Tensor`` under its own name (kornia's
  ``from kornia.core import arange, Tensor``)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from lint_runs import lint, lint_project, write_files

from h2dlint.engine import EnabledRule, check_text
from h2dlint.registry import all_rules


def _findings(code: str, *rule_codes: str) -> list[tuple[str, int, str]]:
    found = lint(code, *rule_codes)
    return sorted((f.code, f.start.row, f.message) for f in found)


def test_a_factory_computed_on_with_numbers_then_moved() -> None:
    code = """
        import torch
        class ProbAttention(torch.nn.Module):
            def forward(self, v, attn, x, scale):
                b, h, n, d = v.shape
                attns = (torch.ones([b, h, n, n]) / n).type_as(attn).to(attn.device)
                half = (0.5 * torch.zeros(b, n)).cuda()
                mask = torch.bernoulli(self.ratio * torch.ones(x.shape)).to(x.device)
                kept = (torch.ones(4) * self.ratio).to(x.device)
                return attns, half, mask, kept
    """
    found = _findings(code, "HTD301")
    assert [row for _, row, _ in found] == [6, 7, 8, 9]
    messages = {row: message for _, row, message in found}
    assert "no fix offered" not in messages[6] and "no fix offered" not in messages[7]
    assert "generator draws other numbers" in messages[8]
    assert "may be a host tensor" in messages[9]


def test_computed_factory_look_alikes() -> None:
    code = """
        import torch
        class ProbAttention(torch.nn.Module):
            def forward(self, v, attn, x, scale, weights):
                b, h, n, d = v.shape
                ok = (torch.ones([b, h, n, n], device=attn.device) / n).type_as(attn)
                by_param = (torch.ones(4) * scale).to(x.device)
                by_data = (torch.ones(4) * weights[0]).to(x.device)
                reduced = torch.ones(4).cumsum(0).to(x.device)
                drawn = torch.bernoulli(self.ratio * torch.ones(x.shape, device=x.device))
                to_host = (torch.ones(4) / n).cpu()
                return ok, by_param, by_data, reduced, drawn, to_host
    """
    assert _findings(code, "HTD301") == []


def test_the_fix_keeps_the_computation_and_drops_the_move() -> None:
    rules = all_rules()
    rule = rules["HTD301"]
    enabled = (EnabledRule(rule, tuple(sorted(rule.default_settings().items()))),)
    code = textwrap.dedent(
        """
        import torch
        def f(v, attn):
            b, h, n, d = v.shape
            return (torch.ones([b, h, n, n]) / n).type_as(attn).to(attn.device)
        def g(v, device):
            b, n = v.size()
            return (torch.ones(b, n) * 2).to(device, torch.float16)
        """
    )
    found = check_text(code, "m.py", enabled)
    fixed = [f for f in found if f.fix is not None]
    assert [f.start.row for f in found] == [5, 8]
    assert [f.start.row for f in fixed] == [5]  # a dtype with the move: no fix


def test_a_proven_tensors_method_returns_a_tensor() -> None:
    code = """
        import torch
        from torch import Tensor
        class Sampler:
            def _is_feasible(self, points: Tensor) -> Tensor:
                return (self.A @ points <= self.b).all(dim=0)
            def step(self, frame):
                delta = self._is_feasible(self._z).to(dtype=int).diff()
                flipped = self._is_feasible(self._z).flip(0)
                changes = frame.diff()
                return delta.nonzero(), flipped.nonzero(), changes.nonzero()
    """
    found = _findings(code, "HTD202")
    assert [(code, row) for code, row, _ in found] == [("HTD202", 11), ("HTD202", 11)]
    assert all("`changes`" not in message for _, _, message in found)


def test_indices_of_a_name_bound_to_a_reduction() -> None:
    code = """
        import torch
        from torch import Tensor
        def filter_matches(scores: Tensor):
            max0 = scores.max(2)
            m0 = max0.indices
            mutual0 = torch.arange(m0.shape[1]).to(m0)[None] == m0
            other = torch.arange(4).to(max0.values)
            return mutual0, other
    """
    assert [row for _, row, _ in _findings(code, "HTD301")] == [7, 8]


def _check_package(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int]]:
    write_files(tmp_path, files)
    return sorted(
        (r["filename"].rsplit("/", 1)[-1], r["location"]["row"])
        for r in lint_project(tmp_path, "HTD301")
    )


def test_torch_functions_re_exported_by_the_project(tmp_path: Path) -> None:
    found = _check_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/core/__init__.py": (
                "from ._backend import Tensor, arange\nfrom .compat import zeros\n"
            ),
            "pkg/core/_backend.py": "import torch\nTensor = torch.Tensor\narange = torch.arange\n",
            "pkg/core/compat.py": "from torch import zeros\n",
            "pkg/core/mine.py": "def ones(n):\n    return [1] * n\n",
            "pkg/feature.py": """
                from pkg.core import Tensor, arange, zeros
                from pkg.core.mine import ones
                def filter_matches(scores: Tensor):
                    m0 = scores.max(2).indices
                    mutual0 = arange(m0.shape[1]).to(m0)
                    ind0 = arange(0, 4).to(device=scores.device)
                    pad = zeros(4).to(scores.device)
                    mine = ones(4).to(scores.device)
                    return mutual0, ind0, pad, mine
            """,
        },
    )
    assert found == [("feature.py", 6), ("feature.py", 7), ("feature.py", 8)]


def test_a_dtype_cast_between_the_factory_and_the_move() -> None:
    code = """
        import torch
        def denormalize_laf(laf: torch.Tensor, min_size):
            coef = torch.ones(1, 1, 2, 3).to(laf.dtype).to(laf.device) * min_size
            named = torch.zeros(4).to(torch.float16).to(laf.device)
            ok = torch.ones(1, 1, 2, 3, dtype=laf.dtype, device=laf.device) * min_size
            cast_only = torch.ones(3).to(torch.float16)
            moved_data = torch.tensor(laf.shape).to(laf.dtype).to(laf.device)
            return coef, named, ok, cast_only, moved_data
    """
    found = _findings(code, "HTD301")
    assert [row for _, row, _ in found] == [4, 5]
