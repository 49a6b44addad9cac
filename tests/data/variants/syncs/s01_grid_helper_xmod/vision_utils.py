import torch


def patches_per_image(grid_thw: torch.Tensor, merge: int) -> list[int]:
    return [int(torch.prod(grid_thw[i]).item()) // merge for i in range(grid_thw.shape[0])]  # expect: HTD201


def patches_from_list(grids: list[list[int]], merge: int) -> list[int]:
    host = torch.tensor(grids, dtype=torch.long)
    return [int(torch.prod(host[i]).item()) // merge for i in range(host.shape[0])]  # expect-not: HTD201, HTD202
