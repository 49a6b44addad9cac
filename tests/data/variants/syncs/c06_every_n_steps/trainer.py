import logging

import torch

logger = logging.getLogger(__name__)


class Trainer:
    def __init__(self, model, opt, log_every: int = 50) -> None:
        self.model = model
        self.opt = opt
        self.log_every = log_every
        self.step = 0
        self.debug = False

    def train_step(self, batch: torch.Tensor) -> None:
        loss = self.model(batch).mean()
        loss.backward()
        self.opt.step()
        self.step += 1
        if self.step % self.log_every == 0:
            logger.info("loss %.4f", loss.item())  # expect-not: HTD202
            self.last_loss = loss.item()  # expect-not: HTD202
        if self.debug:
            grad_norm = float(torch.stack([p.grad.norm() for p in self.model.parameters()]).max())  # expect-not: HTD202
            logger.debug("grad %f", grad_norm)
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug("max logit %s", self.model(batch).max().item())  # expect-not: HTD202

    def on_epoch_end(self, losses: list[torch.Tensor]) -> float:
        return torch.stack(losses).mean().item()  # expect-not: HTD202
