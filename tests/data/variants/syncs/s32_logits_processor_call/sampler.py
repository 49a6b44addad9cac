import torch

from .processors import MinTokensProcessor


class Sampler:
    def __init__(self, eos_id: int) -> None:
        self.processors = [MinTokensProcessor(eos_id, 4)]

    def forward(self, logits: torch.Tensor, output_lens: torch.Tensor) -> torch.Tensor:
        for proc in self.processors:
            logits = proc(logits, output_lens)
        return logits.argmax(-1)
