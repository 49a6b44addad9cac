"""Request preprocessing: multimodal items (image patches and their (t, h, w) grids)."""

import numpy as np
import torch

PATCH_DIM = 3 * 2 * 14 * 14  # channels x temporal patch x patch x patch


class Item:
    def __init__(self, feature, grid):
        self.feature = feature  # (patches, PATCH_DIM) float32, on the host
        self.grid = grid  # [t, h, w]


def make_requests(n_requests, items_per_request, grid, generator):
    requests = []
    for _ in range(n_requests):
        items = []
        for _ in range(items_per_request):
            patches = grid[0] * grid[1] * grid[2]
            feature = torch.rand(patches, PATCH_DIM, generator=generator)
            items.append(Item(feature, list(grid)))
        requests.append(items)
    return requests


def _move_items_to_device(items, device):
    # Each item's feature is copied on its own, from pageable memory.
    for item in items:
        if isinstance(item.feature, torch.Tensor):
            item.feature = item.feature.to(device, non_blocking=True)


def gather_features(requests, device):
    for items in requests:
        _move_items_to_device(items, device)
    return torch.cat([item.feature for items in requests for item in items])


def patches_per_item_device(grid_thw):
    # grid_thw lives on the device: one sync per row.
    counts = []
    for row in grid_thw:
        counts.append(int(torch.prod(row).item()))
    return counts


def patches_per_item_host(grids):
    # Correct: the grids are Python lists; nothing touches the device.
    return [int(np.prod(grid)) for grid in grids]


def patches_per_item_vectorised(grid_thw):
    # Correct: one reduction on the device and one copy back.
    return torch.prod(grid_thw, dim=-1).tolist()
