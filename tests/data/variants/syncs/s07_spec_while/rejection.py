import torch


class GreedyAcceptor:
    def __init__(self, num_spec: int) -> None:
        self.num_spec = num_spec

    def __call__(self, draft: torch.Tensor, target_logits: torch.Tensor) -> list[int]:
        target = target_logits.argmax(dim=-1)
        accepted = []
        for i in range(draft.shape[0]):
            k = 0
            while k < self.num_spec and draft[i, k].item() == target[i, k].item():  # expect: HTD201
                k += 1
            accepted.append(k)
        return accepted
