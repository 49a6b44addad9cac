"""Session 42 (mine42): adv-optm 1.2.0's per-parameter syncs, fixed in 1.2.13.

OrthoGrad's ``g.sub(w, alpha=proj)`` gave a 0-d device tensor where PyTorch takes a Python
number, which PyTorch reads with ``.item()`` (``analysis/scalar_arguments.py``); Prodigy read
``torch.dot(...).item()`` per parameter, and ``torch.dot`` was not known to return a tensor on
its inputs' device (``torch_api.TENSOR_FUNCTIONS``).
"""

from __future__ import annotations

from pathlib import Path

from lint_runs import lint_project, write_files

OPTIMIZER = """
import torch
from pkg.ortho import orthogonalize

class Prodigy(torch.optim.Optimizer):
    def step_parameter(self, p, group):
        grad = orthogonalize(p, p.grad, group["lr"], group["beta"])
        flat = grad.flatten().float()
        s = self.state[p]["s"]
        self.numerator += group["lr"] * torch.dot(flat[::2], p.data.flatten()[::2]).item()
        self.denominator += s.abs().sum().item()
        self.total.add_(torch.dot(flat, flat))

    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                self.step_parameter(p, group)
"""
ORTHO = """
import torch

def orthogonalize(p, grad, lr: float, beta: float):
    w = p.view(-1).float()
    g = grad.view(-1).float()
    proj = torch.dot(w, g) / torch.dot(w, w).add_(1e-30)
    synced = g.sub(w, alpha=proj)
    product = g.sub(w * proj)
    numbers = g.sub(w, alpha=lr).add(w, alpha=-0.5 * 2)
    literal = g.addcmul(w, w, value=beta * (1 - beta))
    return synced + product + numbers + literal
"""


def test_scalar_arguments_and_dot_reads_per_parameter(tmp_path: Path) -> None:
    files = {"pkg/__init__.py": "", "pkg/optim.py": OPTIMIZER, "pkg/ortho.py": ORTHO}
    write_files(tmp_path, files)
    found = sorted(
        (r["filename"].rsplit("/", 1)[-1], r["location"]["row"], r["confidence"])
        for r in lint_project(tmp_path, "HTD202")
    )
    # The `alpha=` tensor (the product, a float parameter and numbers stay clean), and both
    # per-parameter reads; the device accumulation reads nothing.
    assert found == [
        ("optim.py", 10, "medium"),
        ("optim.py", 11, "medium"),
        ("ortho.py", 8, "medium"),
    ]
