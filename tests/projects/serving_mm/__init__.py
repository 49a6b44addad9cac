"""A small multimodal serving engine: a model runner with paired host/device buffers, a
vision-language model and the multimodal input plumbing between them."""

from serving_mm.buffers import CpuGpuBuffer
from serving_mm.config import EngineConfig, VisionConfig
from serving_mm.runner import GPUModelRunner

__all__ = ["CpuGpuBuffer", "EngineConfig", "GPUModelRunner", "VisionConfig"]
