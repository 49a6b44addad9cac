import torch


class PenaltyApplier:
    def __init__(self, vocab: int, device: torch.device) -> None:
        self.counts = torch.zeros((256, vocab), dtype=torch.int32, device=device)

    def apply(self, logits: torch.Tensor, presence: float) -> torch.Tensor:
        n = logits.shape[0]
        if self.counts[:n].sum() > 0:  # expect: HTD202
            logits -= presence * (self.counts[:n] > 0)
        return logits
