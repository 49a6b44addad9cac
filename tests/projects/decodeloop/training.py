"""Training-side helpers that share the engine's modules: run per optimizer step, except the
checkpoint writer and the cached one-time constants."""

from __future__ import annotations

import torch

_CONSTANTS: dict[torch.device, torch.Tensor] = {}


def clip_grad_norm(grads: list[torch.Tensor], max_norm: float) -> torch.Tensor:
    overflow = torch.tensor([0], dtype=torch.int, device="cuda")  # expect: HTD107
    total = torch.stack([g.norm() for g in grads]).norm()
    limit = torch.tensor([float(max_norm)], device=total.device)  # expect: HTD107
    coef = torch.clamp(limit / (total + 1e-6), max=1.0)
    for g in grads:
        g.mul_(coef)
    return total + overflow


def one_for(device: torch.device) -> torch.Tensor:
    one = _CONSTANTS.get(device)
    if one is None:
        one = _CONSTANTS[device] = torch.tensor(1.0, device=device)  # expect-not: HTD107
    return one


def save_checkpoint_finalize(failures: list[str]) -> torch.Tensor:
    return torch.tensor([int(len(failures) > 0)], device="cuda")  # expect-not: HTD107


def denoise(model, x: torch.Tensor, num_steps: int) -> torch.Tensor:
    dt = -1.0 / num_steps
    for step in range(num_steps):
        t = 1.0 + step * dt
        x = model(x, torch.tensor(t, dtype=torch.float32, device=x.device))  # expect: HTD107
    return x
