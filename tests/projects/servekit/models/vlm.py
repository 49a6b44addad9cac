"""The vision-language model: the worker calls embed_multimodal per request with images, then
forward once per step."""

from __future__ import annotations

import torch
import torch.nn as nn

from servekit.models.moe import SparseMoE
from servekit.models.rope_utils import get_rope_index
from servekit.models.utils import merge_multimodal_embeddings, zero_padding_rows
from servekit.models.vision import VisionEncoder


class VisionLanguageModel(nn.Module):
    def __init__(self, vocab: int, hidden: int, device: torch.device) -> None:
        super().__init__()
        self.device = device
        self.dtype = torch.bfloat16
        self.image_token_id = 151655
        self.visual = VisionEncoder(hidden, 2, device)
        self.embed = nn.Embedding(vocab, hidden)
        self.moe = SparseMoE(hidden, 8, 2)
        self.lm_head = nn.Linear(hidden, vocab, bias=False)

    def embed_multimodal(self, pixel_values: list[torch.Tensor], image_grid_thw: torch.Tensor) -> tuple[torch.Tensor, ...]:
        pixels = [p.to(self.device, dtype=self.dtype) for p in pixel_values]  # expect: HTD101
        embeds = self.visual(torch.cat(pixels), image_grid_thw)
        return embeds.split(self.visual.split_sizes_per_image(image_grid_thw))

    def forward(self, input_ids: torch.Tensor, positions: torch.Tensor, mm_embeds: torch.Tensor | None = None, image_grid_thw: torch.Tensor | None = None) -> torch.Tensor:
        hidden = self.embed(input_ids)
        if mm_embeds is not None:
            hidden = merge_multimodal_embeddings(input_ids, hidden, mm_embeds, self.image_token_id)
        hidden = zero_padding_rows(hidden, input_ids, 0)
        max_pos = int(positions.max())  # expect: HTD202
        if image_grid_thw is not None:
            mrope_positions, _ = get_rope_index(input_ids, image_grid_thw, self.image_token_id, 2)
            hidden = hidden + mrope_positions.sum() * 0
        hidden = hidden * (max_pos > 0)
        return self.moe(hidden)

    def compute_logits(self, hidden: torch.Tensor) -> torch.Tensor:
        return self.lm_head(hidden)
