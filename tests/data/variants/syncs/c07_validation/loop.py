import torch


class Evaluator:
    def __init__(self, model) -> None:
        self.model = model

    @torch.no_grad()
    def validate(self, loader) -> float:
        total = 0.0
        for batch in loader:
            total += self.model(batch).mean().item()  # expect-not: HTD201, HTD202
        return total

    def validation_step(self, batch: torch.Tensor) -> dict[str, float]:
        logits = self.model(batch)
        return {"acc": (logits.argmax(-1) == 0).float().mean().item()}  # expect-not: HTD202
