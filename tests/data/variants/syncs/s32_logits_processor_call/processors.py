import torch


class MinTokensProcessor:
    def __init__(self, eos_id: int, min_tokens: int) -> None:
        self.eos_id = eos_id
        self.min_tokens = min_tokens

    def __call__(self, logits: torch.Tensor, output_lens: torch.Tensor) -> torch.Tensor:
        if int(output_lens.min()) < self.min_tokens:  # expect: HTD202
            logits[:, self.eos_id] = float("-inf")
        return logits
