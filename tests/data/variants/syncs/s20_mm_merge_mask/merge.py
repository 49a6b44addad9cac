import torch


def merge_multimodal(input_ids: torch.Tensor, inputs_embeds: torch.Tensor, mm_embeds: torch.Tensor, token_id: int) -> torch.Tensor:
    is_mm = input_ids == token_id
    inputs_embeds[is_mm] = mm_embeds.to(inputs_embeds.dtype)  # allow: HTD202
    return inputs_embeds


def count_mm_tokens(input_ids: torch.Tensor, token_id: int) -> torch.Tensor:
    return input_ids[input_ids == token_id]  # expect: HTD202
