from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

from imagegen.data import make_loaders
from imagegen.schedulers import DDIMScheduler


@dataclass
class TrainConfig:
    batch_size: int = 32
    lr: float = 1e-4
    max_grad_norm: float = 1.0
    log_every: int = 100
    epochs: int = 10


def clip_grad_norm_(parameters: Iterable[nn.Parameter], max_norm: float) -> torch.Tensor:
    """Gradient clipping for a model split over several devices."""
    grads = [p.grad for p in parameters if p.grad is not None]
    first_device = grads[0].device
    norms = [torch.linalg.vector_norm(g.detach(), 2.0) for g in grads]
    total_norm = torch.linalg.vector_norm(torch.stack([n.to(first_device) for n in norms]), 2.0)  # expect-not: HTD101, HTD104
    clip_coef = torch.clamp(max_norm / (total_norm + 1e-6), max=1.0)
    for g in grads:
        g.mul_(clip_coef.to(g.device))  # expect-not: HTD101
    return total_norm


def train_epoch(model: nn.Module, scheduler: DDIMScheduler, loader: DataLoader, optimizer: torch.optim.Optimizer, device: torch.device, config: TrainConfig) -> float:
    model.train()
    running = 0.0
    for step, batch in enumerate(loader):
        pixel_values = batch["pixel_values"].to(device, non_blocking=True)  # expect-not: HTD102
        input_ids = batch["input_ids"].to(device, non_blocking=True)  # expect-not: HTD102
        noise = torch.randn_like(pixel_values)
        timesteps = torch.randint(0, scheduler.num_train_timesteps, (pixel_values.shape[0],), device=device)
        noisy = scheduler.add_noise(pixel_values, noise, timesteps)
        loss = F.mse_loss(model(noisy, timesteps, input_ids), noise)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        grad_norm = clip_grad_norm_(model.parameters(), config.max_grad_norm)
        optimizer.step()
        running += loss.item()  # expect: HTD202?
        if step % config.log_every == 0:
            print(f"step {step}: loss {running / (step + 1):.4f}, grad norm {grad_norm.item():.3f}")  # expect-not: HTD201, HTD202
    return running / max(len(loader), 1)


@torch.no_grad()
def evaluate(model: nn.Module, scheduler: DDIMScheduler, loader: DataLoader, device: torch.device) -> float:
    model.eval()
    total = torch.zeros((), device=device)
    for batch in loader:
        pixel_values = batch["pixel_values"].to(device, non_blocking=True)  # expect: HTD102
        input_ids = batch["input_ids"].to(device, non_blocking=True)  # expect: HTD102
        noise = torch.randn_like(pixel_values)
        timesteps = torch.full((pixel_values.shape[0],), scheduler.num_train_timesteps // 2, device=device)
        total += F.mse_loss(model(scheduler.add_noise(pixel_values, noise, timesteps), timesteps, input_ids), noise)
    return total.item() / max(len(loader), 1)  # expect-not: HTD202


def preview_batch(dataset: Dataset, indices: list[int], device: torch.device) -> torch.Tensor:
    images = [dataset[i]["pixel_values"] for i in indices]
    for i, image in enumerate(images):
        images[i] = image.to(device)  # expect: HTD101
    return torch.stack(images)


def shard_prompt_ids(chunks: list[np.ndarray], rank: int) -> torch.Tensor:
    target = torch.device("cuda", rank)
    ids = torch.from_numpy(np.concatenate(chunks))
    return ids.to(target, non_blocking=True)  # expect: HTD102


def fit(model: nn.Module, train_set: Dataset, val_set: Dataset, device: torch.device, config: TrainConfig) -> None:
    scheduler = DDIMScheduler()
    train_loader, val_loader = make_loaders(train_set, val_set, config.batch_size)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr)
    for epoch in range(config.epochs):
        train_loss = train_epoch(model, scheduler, train_loader, optimizer, device, config)
        val_loss = evaluate(model, scheduler, val_loader, device)
        print(f"epoch {epoch}: train {train_loss:.4f}, val {val_loss:.4f}")
