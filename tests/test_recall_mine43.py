"""Session 43 (mine43): pytorch-optimizer 3.10.1's per-parameter syncs, fixed in 4.x.

LAMB's foreach step tested and read the trust ratio of ``zip(params, weight_norms, p_norms)``
per parameter, the norms from ``torch._foreach_norm``: a ``torch._foreach_<op>`` result is a
list of tensors (``analysis/foreach_lists.py``). OrthoGrad gave ``torch.dot(w, g).div_(...)``
as ``alpha=``, and StableAdamW's RMS read ``....sqrt_().clip_(min=1.0).item()``: in-place
arithmetic returns its receiver, so it keeps the receiver's tensor proof
(``torch_api.TENSOR_VALUE_METHODS``).
"""

from __future__ import annotations

from pathlib import Path

from lint_runs import lint_project, write_files

LAMB = """
import torch

class Lamb(torch.optim.Optimizer):
    def _step_foreach(self, params, updates, eps):
        weight_norms = torch._foreach_norm(params)
        p_norms = torch._foreach_norm(updates)
        for p, update, wn, pn in zip(params, updates, weight_norms, p_norms):
            trust_ratio = 1.0
            if wn != 0 and pn != 0:
                trust_ratio = (wn / (pn + eps)).item()
            p.add_(update, alpha=-trust_ratio)

    def _step_fixed(self, params, updates, eps):
        weight_norms = torch.stack(torch._foreach_norm(params))
        p_norms = torch.stack(torch._foreach_norm(updates))
        ok = (weight_norms > 0) & (p_norms > 0)
        ratios = torch.where(ok, weight_norms / (p_norms + eps), 1.0)
        torch._foreach_mul_(updates, ratios.unbind())
        torch._foreach_add_(params, updates)
        for p, lr in zip(params, [0.1 for _ in params]):
            p.mul_(1.0 - lr)

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            self._step_foreach(group["params"], group["updates"], 1e-6)
            self._step_fixed(group["params"], group["updates"], 1e-6)
"""

ORTHO = """
import torch

class OrthoGrad(torch.optim.Optimizer):
    def orthogonalize(self, params, eps: float, scale: float):
        for p in params:
            w = p.view(-1)
            g = p.grad.view(-1)
            proj = torch.dot(w, g).div_(torch.dot(w, w).add_(eps))
            synced = g.to(dtype=torch.float32, copy=True).sub_(w, alpha=proj)
            product = g.sub(w * proj)
            number = g.sub_(w, alpha=scale * 2.0)
            p.grad.copy_(synced + product + number)

    @staticmethod
    def rms(grad, exp_avg_sq, eps: float = 1e-16):
        return grad.pow(2).div_(exp_avg_sq.clip(min=eps)).mean().sqrt_().clip_(min=1.0).item()

    @staticmethod
    def rms_fixed(grad, exp_avg_sq, eps: float = 1e-16):
        return grad.pow(2).div_(exp_avg_sq.clip(min=eps)).mean().sqrt_().clip_(min=1.0)

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            self.orthogonalize(group["params"], 1e-30, group["lr"])
            for p in group["params"]:
                p.grad.div_(self.rms(p.grad, self.state[p]["v"]))
                p.grad.div_(self.rms_fixed(p.grad, self.state[p]["v"]))
"""


def _found(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str, str]]:
    write_files(tmp_path, {"pkg/__init__.py": "", **files})
    return sorted(
        (r["filename"].rsplit("/", 1)[-1], r["location"]["row"], r["code"], r["confidence"])
        for r in lint_project(tmp_path, "ALL")
    )


def test_items_of_a_foreach_result_are_tensors(tmp_path: Path) -> None:
    # The test and the read per parameter; the stacked norms, the device select, the foreach
    # updates and a loop over Python numbers stay clean.
    assert _found(tmp_path, {"pkg/lamb.py": LAMB}) == [
        ("lamb.py", 10, "HTD202", "medium"),
        ("lamb.py", 11, "HTD202", "medium"),
    ]


def test_in_place_arithmetic_keeps_the_receivers_tensor_proof(tmp_path: Path) -> None:
    # `proj` (a dot divided in place) as `alpha=`, and the RMS read through `sqrt_().clip_()`;
    # the product on the device, a float's arithmetic as `alpha=`, the RMS kept as a tensor
    # stay clean.
    assert _found(tmp_path, {"pkg/ortho.py": ORTHO}) == [
        ("ortho.py", 10, "HTD202", "medium"),
        ("ortho.py", 17, "HTD202", "medium"),
    ]
