"""Request preprocessing for the trace tests (run on the CPU with "meta" as the device)."""

import torch


def move_items(items, device):
    for item in items:
        item["feature"] = item["feature"].to(device, non_blocking=True)
    return items


def patches_per_item(grid):
    counts = []
    for row in grid:
        counts.append(int(torch.prod(row).item()))
    return counts


def stage_positions(positions, device):
    return positions.to(device, non_blocking=True)
