import torch

from .outputs import to_host_lists


class LLMEngine:
    def __init__(self, runner, eos: int) -> None:
        self.runner = runner
        self.eos = eos

    def step(self, batch) -> list[bool]:
        sampled: torch.Tensor = self.runner.execute_model(batch)
        rows = to_host_lists(sampled)  # allow: HTD202
        done = []
        for i in range(len(rows)):  # expect-not: HTD201
            done.append(rows[i][-1] == self.eos)
        return done
