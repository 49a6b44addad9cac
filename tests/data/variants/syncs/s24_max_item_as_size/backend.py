import torch

from .metadata import AttnMetadata


class PagedBackend:
    def __init__(self, block_size: int) -> None:
        self.block_size = block_size

    def forward(self, q: torch.Tensor, meta: AttnMetadata) -> torch.Tensor:
        max_len = meta.seq_lens.max().item()  # expect: HTD202
        max_len_host = int(meta.seq_lens_cpu.max())  # expect-not: HTD202
        scratch = torch.empty(q.shape[0], max_len + max_len_host, device=q.device)
        return scratch
