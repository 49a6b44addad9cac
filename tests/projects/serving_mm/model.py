"""The vision-language model: a language model that reads image embeddings in place of
image placeholder tokens."""

from __future__ import annotations

import torch
import torch.nn as nn

from serving_mm.config import EngineConfig
from serving_mm.mm_utils import tokens_per_item
from serving_mm.vision import PackedVisionTransformer, VisionTransformer


class VisionLanguageModel(nn.Module):
    def __init__(self, config: EngineConfig, device: torch.device, packed_vision: bool = False) -> None:
        super().__init__()
        self.config = config
        self.device = device
        self.dtype = torch.bfloat16
        encoder = PackedVisionTransformer if packed_vision else VisionTransformer
        self.visual = encoder(config.vision, device=device)
        self.embed_tokens = nn.Embedding(config.vocab_size, config.vision.out_hidden_size)
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(config.vision.out_hidden_size, 28, batch_first=True) for _ in range(4)
        )
        self.lm_head = nn.Linear(config.vision.out_hidden_size, config.vocab_size, bias=False)
        self.merge_unit = config.vision.spatial_merge_size**2

    def split_sizes(self, grid_thw: torch.Tensor) -> list[int]:
        sizes = []
        for row in grid_thw:
            thw = torch.as_tensor(row, dtype=torch.long)
            sizes.append(int(thw.prod()) // self.merge_unit)  # expect: HTD201
        return sizes

    def get_image_embeddings(self, pixel_values: torch.Tensor, image_grid_thw: torch.Tensor) -> tuple[torch.Tensor, ...]:
        image_embeds = self.visual(pixel_values, grid_thw=image_grid_thw)
        if image_embeds.shape[0] < self.config.vision.min_image_tokens:
            # The encoder's output is on the device, and so is a new_zeros of it.
            pad = image_embeds.new_zeros(self.config.vision.min_image_tokens - image_embeds.shape[0], image_embeds.shape[1])
            image_embeds = torch.cat([image_embeds, pad]).to(self.device, non_blocking=True)  # expect-not: HTD102, HTD104
        sizes = tokens_per_item(image_grid_thw, self.config.vision.spatial_merge_size)
        return image_embeds.split(sizes)

    def get_video_embeddings(self, pixel_values_videos: torch.Tensor, video_grid_thw: torch.Tensor) -> tuple[torch.Tensor, ...]:
        video_embeds = self.visual(pixel_values_videos, grid_thw=video_grid_thw)
        return video_embeds.split(self.split_sizes(video_grid_thw))

    def embed_multimodal(self, chunks: list[tuple[torch.Tensor, torch.Tensor]]) -> torch.Tensor:
        """Encodes each (pixel_values, grid_thw) chunk on its own (bounded encoder batch)."""
        embeds = []
        for pixel_values, grid_thw in chunks:
            embeds.append(self.visual(pixel_values, grid_thw=grid_thw))
        # Encoder outputs: already on the device.
        return torch.cat(embeds).to(self.device, non_blocking=True)  # expect-not: HTD102, HTD104

    def embed_input_ids(self, input_ids: torch.Tensor, mm_embeds: torch.Tensor | None) -> torch.Tensor:
        inputs_embeds = self.embed_tokens(input_ids)
        if mm_embeds is not None:
            is_mm = input_ids == self.config.image_token_id
            inputs_embeds[is_mm] = mm_embeds.to(inputs_embeds.dtype)  # expect: HTD202?
        return inputs_embeds

    def forward(self, input_ids: torch.Tensor, positions: torch.Tensor, mm_embeds: torch.Tensor | None = None) -> torch.Tensor:
        # The runner moved input_ids and positions to the device before this call.
        hidden = self.embed_input_ids(input_ids, mm_embeds)
        positions = positions.to(self.device, non_blocking=True)  # expect-not: HTD102
        for layer in self.layers:
            hidden = layer(hidden[None])[0]
        return hidden

    def compute_logits(self, hidden_states: torch.Tensor) -> torch.Tensor:
        return self.lm_head(hidden_states)
