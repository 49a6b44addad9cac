import torch
from torch import Tensor


def _apply(params: list[Tensor], sums: list[Tensor], steps: list[Tensor], lr: float) -> None:
    for param, state_sum, step_t in zip(params, sums, steps):  # expect-not: HTD201
        step_t += 1
        step = step_t.item()
        state_sum += param.grad.pow(2)
        param.addcdiv_(param.grad, state_sum.sqrt().add_(1e-10), value=-lr / step)


class RowAdagrad(torch.optim.Optimizer):
    def __init__(self, params, lr: float = 0.01) -> None:
        super().__init__(params, {"lr": lr})
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["step"] = torch.tensor(0.0)
                self.state[p]["sum"] = torch.zeros_like(p)

    @torch.no_grad()
    def step(self, closure=None) -> None:
        for group in self.param_groups:
            ps = [p for p in group["params"] if p.grad is not None]
            _apply(ps, [self.state[p]["sum"] for p in ps], [self.state[p]["step"] for p in ps], group["lr"])
