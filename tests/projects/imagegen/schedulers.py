from __future__ import annotations

import numpy as np
import torch


class DDIMScheduler:
    def __init__(self, num_train_timesteps: int = 1000, beta_start: float = 0.00085, beta_end: float = 0.012) -> None:
        betas = torch.linspace(beta_start**0.5, beta_end**0.5, num_train_timesteps, dtype=torch.float32) ** 2
        self.alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)
        self.final_alpha_cumprod = torch.tensor(1.0)
        self.num_train_timesteps = num_train_timesteps
        self.num_inference_steps = num_train_timesteps
        self.timesteps = torch.arange(num_train_timesteps - 1, -1, -1)
        self.init_noise_sigma = 1.0

    def set_timesteps(self, num_inference_steps: int, device: torch.device) -> None:
        self.num_inference_steps = num_inference_steps
        step_ratio = self.num_train_timesteps // num_inference_steps
        timesteps = (np.arange(0, num_inference_steps) * step_ratio).round()[::-1].copy().astype(np.int64)
        self.timesteps = torch.from_numpy(timesteps).to(device)
        self.alphas_cumprod = self.alphas_cumprod.to(device)

    def step(self, model_output: torch.Tensor, timestep: torch.Tensor, sample: torch.Tensor, eta: float = 0.0) -> torch.Tensor:
        t = int(timestep.item())  # expect: HTD202?
        prev_t = t - self.num_train_timesteps // self.num_inference_steps
        alpha_prod_t = self.alphas_cumprod[t]
        alpha_prod_prev = self.alphas_cumprod[prev_t] if prev_t >= 0 else self.final_alpha_cumprod
        beta_prod_t = 1 - alpha_prod_t
        pred_original = (sample - beta_prod_t**0.5 * model_output) / alpha_prod_t**0.5
        variance = (1 - alpha_prod_prev) / (1 - alpha_prod_t) * (1 - alpha_prod_t / alpha_prod_prev)
        std = eta * variance**0.5
        direction = (1 - alpha_prod_prev - std**2) ** 0.5 * model_output
        prev_sample = alpha_prod_prev**0.5 * pred_original + direction
        if eta > 0:
            prev_sample = prev_sample + std * torch.randn_like(model_output)
        return prev_sample

    def add_noise(self, original: torch.Tensor, noise: torch.Tensor, timesteps: torch.Tensor) -> torch.Tensor:
        alphas = self.alphas_cumprod.to(device=original.device, dtype=original.dtype)[timesteps]
        alphas = alphas.view(-1, *([1] * (original.dim() - 1)))
        return alphas**0.5 * original + (1 - alphas) ** 0.5 * noise
