from __future__ import annotations

import torch


def collate_pixels(images: list[torch.Tensor]) -> torch.Tensor:
    return torch.cat([im.flatten(0, 1) for im in images])


def collate_into(images: list[torch.Tensor], out: torch.Tensor) -> torch.Tensor:
    return torch.cat([im.flatten(0, 1) for im in images], out=out)


def collate_pinned(images: list[torch.Tensor]) -> torch.Tensor:
    # pinning the fresh join is a finding here; the caller copies pinned memory
    return torch.cat([im.flatten(0, 1) for im in images]).pin_memory()  # expect: HTD104


def collate_on(images: list[torch.Tensor], device: torch.device) -> torch.Tensor:
    return torch.cat([im.flatten(0, 1) for im in images]).to(device)


def maybe_cat(parts: list[torch.Tensor]) -> torch.Tensor:
    if len(parts) == 1:
        return parts[0]
    return torch.cat(parts)


def device_rows(n: int) -> torch.Tensor:
    rows = [torch.zeros(n, device="cuda") for _ in range(4)]
    return torch.stack(rows)
