"""A serving step for the trace tests: per-item moves, per-row syncs, a copy that the static
analysis cannot see the memory of, and a branch that never runs."""

import sys

import torch
from prep import move_items, patches_per_item, stage_positions


def step(requests, grid, positions, device):
    for request in requests:
        move_items(request, device)
    counts = patches_per_item(grid)
    staged = stage_positions(positions, device)
    lengths = torch.tensor(counts).to(device, non_blocking=True)
    if len(counts) > 100:
        total = int(lengths.sum().item())
        print(total)
    return staged, lengths


def main(device):
    grid = torch.tensor([[1, 4, 4], [1, 2, 8], [2, 2, 2]])
    positions = torch.arange(3 * 64).reshape(3, 64)[:, :32]
    for _ in range(2):
        requests = [[{"feature": torch.rand(16)} for _ in range(6)] for _ in range(2)]
        step(requests, grid, positions, device)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "meta"))
