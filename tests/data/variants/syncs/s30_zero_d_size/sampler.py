import torch


class TopPSampler:
    def __init__(self, device: torch.device) -> None:
        self.device = device

    def sample(self, logits: torch.Tensor, top_p: torch.Tensor) -> torch.Tensor:
        probs = logits.softmax(-1)
        sorted_probs, idx = probs.sort(dim=-1, descending=True)
        keep = (sorted_probs.cumsum(-1) - sorted_probs) < top_p[:, None]
        width = keep.sum(-1).max()
        trimmed = sorted_probs[:, :width]  # expect: HTD202
        choice = torch.multinomial(trimmed, 1)
        return idx.gather(-1, choice)
