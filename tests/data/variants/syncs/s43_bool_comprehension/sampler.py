import torch

from .guided import GrammarMasks


class Sampler:
    def __init__(self, masks: GrammarMasks) -> None:
        self.masks = masks

    def sample(self, logits: torch.Tensor) -> torch.Tensor:
        ok = self.masks.apply(logits, logits.shape[0])
        return logits.argmax(-1) if all(ok) else logits.softmax(-1).multinomial(1)
