"""Helpers the models call from their forward."""

from __future__ import annotations

import torch


def merge_multimodal_embeddings(input_ids: torch.Tensor, inputs_embeds: torch.Tensor, mm_embeds: torch.Tensor, placeholder_id: int) -> torch.Tensor:
    is_mm = input_ids == placeholder_id
    inputs_embeds[is_mm] = mm_embeds.to(inputs_embeds.dtype)  # expect: HTD202
    return inputs_embeds


def zero_padding_rows(inputs_embeds: torch.Tensor, input_ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    # A Python number through a mask: a masked_fill, no read on the host.
    inputs_embeds[input_ids == pad_id] = 0.0  # expect-not: HTD202
    return inputs_embeds
