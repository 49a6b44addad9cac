import torch


class GrammarMasks:
    def __init__(self, vocab: int, device: torch.device) -> None:
        self.allowed = torch.ones((256, vocab), dtype=torch.bool, device=device)

    def apply(self, logits: torch.Tensor, n: int) -> list[bool]:
        has_any = [bool(m.any()) for m in self.allowed[:n]]  # expect: HTD201
        logits[:n].masked_fill_(~self.allowed[:n], float("-inf"))
        return has_any
