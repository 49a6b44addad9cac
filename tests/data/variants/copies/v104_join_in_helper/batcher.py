from __future__ import annotations

import torch

from v104_join_in_helper import collate as c


class TokenCollator:
    def collate(self, seqs: list[torch.Tensor]) -> torch.Tensor:
        joined = torch.cat(seqs)
        return joined


class Batcher:
    def __init__(self, device: torch.device, images: list[torch.Tensor]) -> None:
        self.device = device
        self.collator = TokenCollator()
        self.warm = c.collate_pixels(images).to(device, non_blocking=True)  # expect-not: HTD104
        self.staging = torch.empty(1 << 20, pin_memory=True)

    def _rows(self, items: list[list[int]]) -> torch.Tensor:
        return torch.stack([torch.tensor(i) for i in items])

    def step(self, items: list[list[int]]) -> torch.Tensor:
        batch = self._rows(items)  # expect: HTD104
        return batch.cuda()

    def tokens(self, seqs: list[torch.Tensor]) -> torch.Tensor:
        return self.collator.collate(seqs).cuda(non_blocking=True)  # expect: HTD104; allow: HTD102

    def pixels(self, images: list[torch.Tensor]) -> list[torch.Tensor]:
        n = sum(im.shape[0] * im.shape[1] for im in images)
        into = c.collate_into(images, self.staging[:n]).to(self.device, non_blocking=True)  # expect-not: HTD104
        pinned = c.collate_pinned(images).to(self.device, non_blocking=True)  # expect-not: HTD104
        moved = c.collate_on(images, self.device).to(self.device, non_blocking=True)  # expect-not: HTD104
        some = c.maybe_cat(images).to(self.device, non_blocking=True)  # expect-not: HTD104
        dev = c.device_rows(n).to(self.device, non_blocking=True)  # expect-not: HTD104
        aligned = c.collate_pixels(images).to(images[0].device)  # expect-not: HTD104
        return [into, pinned, moved, some, dev, aligned]
