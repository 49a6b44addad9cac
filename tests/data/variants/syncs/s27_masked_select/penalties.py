import torch


class RepetitionPenalty:
    def __init__(self, penalty: float) -> None:
        self.penalty = penalty

    def __call__(self, logits: torch.Tensor, prompt_mask: torch.Tensor) -> torch.Tensor:
        seen = logits.masked_select(prompt_mask)  # expect: HTD202
        logits.masked_scatter_(prompt_mask, torch.where(seen > 0, seen / self.penalty, seen * self.penalty))
        return logits
