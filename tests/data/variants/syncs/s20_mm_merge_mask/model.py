import torch
from torch import nn

from .merge import count_mm_tokens, merge_multimodal


class VLModel(nn.Module):
    def __init__(self, vocab: int, dim: int, image_token_id: int) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.image_token_id = image_token_id

    def forward(self, input_ids: torch.Tensor, image_embeds: torch.Tensor) -> torch.Tensor:
        embeds = self.embed(input_ids)
        picked = count_mm_tokens(input_ids, self.image_token_id)
        embeds = merge_multimodal(input_ids, embeds, image_embeds[: picked.numel()], self.image_token_id)
        return embeds
