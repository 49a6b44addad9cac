import torch


class RejectionSampler(torch.nn.Module):
    def forward(self, draft: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        match = (draft == target[:, :-1]).int()
        return match.cumprod(dim=1).sum(dim=1)
