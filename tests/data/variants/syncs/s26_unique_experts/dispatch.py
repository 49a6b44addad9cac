import torch
from torch import nn


class ExpertDispatch(nn.Module):
    def __init__(self, experts: nn.ModuleList) -> None:
        super().__init__()
        self.experts = experts

    def forward(self, x: torch.Tensor, expert_ids: torch.Tensor) -> torch.Tensor:
        active = torch.unique(expert_ids)  # expect: HTD202
        out = torch.zeros_like(x)
        for e in active.tolist():  # allow: HTD202
            sel = expert_ids == e
            out[sel] = self.experts[e](x[sel])  # expect: HTD202
        return out
