"""Text-to-image latent diffusion: data loading, a DDIM scheduler, the sampling pipeline, and
training (a plain loop and a Lightning module)."""

from imagegen.pipeline import TextToImagePipeline
from imagegen.schedulers import DDIMScheduler

__all__ = ["DDIMScheduler", "TextToImagePipeline"]
