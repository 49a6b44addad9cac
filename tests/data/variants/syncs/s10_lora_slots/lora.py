import torch


class LoRABatch:
    def __init__(self, device: torch.device) -> None:
        self.device = device
        self.slot_of_token = torch.full((8192,), -1, dtype=torch.long, device=device)

    def set_mapping(self, token_lora: list[int]) -> None:
        mapping = torch.tensor(token_lora, dtype=torch.long, device=self.device)
        self.slot_of_token[: len(token_lora)] = mapping

    def apply(self, x: torch.Tensor, lora_ids: torch.Tensor, adapters: list) -> torch.Tensor:
        for i in range(len(lora_ids)):
            if lora_ids[i].item() >= 0:  # expect: HTD201
                x[i] += adapters[lora_ids[i]](x[i])
        return x
