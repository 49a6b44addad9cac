import torch

from .penalty import PenaltyApplier


class Sampler:
    def __init__(self, vocab: int, device: torch.device) -> None:
        self.penalties = PenaltyApplier(vocab, device)

    def sample(self, logits: torch.Tensor) -> torch.Tensor:
        logits = self.penalties.apply(logits, 0.5)
        return torch.multinomial(logits.softmax(-1), 1)
