from __future__ import annotations

from pathlib import Path

import lightning.pytorch as pl
import torch
import torch.nn as nn
import torch.nn.functional as F

from imagegen.schedulers import DDIMScheduler


class LatentDiffusionModule(pl.LightningModule):
    """Class-conditional latent diffusion on variable-size images (a list per batch)."""

    def __init__(self, unet: nn.Module, vae: nn.Module, class_embedding_path: Path) -> None:
        super().__init__()
        self.unet = unet
        self.vae = vae
        self.scheduler = DDIMScheduler()
        self.class_embedding_path = class_embedding_path
        self.class_embeddings: list[torch.Tensor] = []

    def setup(self, stage: str) -> None:
        table = torch.load(self.class_embedding_path)
        self.class_embeddings = [emb.to(self.device) for emb in table]  # expect-not: HTD101

    @torch.no_grad()
    def encode(self, image: torch.Tensor) -> torch.Tensor:
        return self.vae.encode(image[None]).latent_dist.sample()[0] * 0.18215

    def training_step(self, batch: dict[str, list[torch.Tensor]], batch_idx: int) -> torch.Tensor:
        # Lightning moved the batch to this module's device before calling the hook.
        images = [img.to(self.device, non_blocking=True) for img in batch["images"]]  # expect-not: HTD101, HTD102
        latents = [self.encode(img) for img in images]
        losses = []
        for latent, label in zip(latents, batch["labels"]):
            noise = torch.randn_like(latent)
            t = torch.randint(0, self.scheduler.num_train_timesteps, (1,), device=self.device)
            noisy = self.scheduler.add_noise(latent[None], noise[None], t)
            cond = self.class_embeddings[int(label)]  # expect: HTD201
            losses.append(F.mse_loss(self.unet(noisy, t, cond[None]), noise[None]))
        loss = torch.stack(losses).mean()
        self.log("train/loss", loss, prog_bar=True)
        return loss

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.AdamW(self.unet.parameters(), lr=1e-4)
