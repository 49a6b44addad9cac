import torch


class AsyncOutput:
    def __init__(self, sampled: torch.Tensor) -> None:
        self.event = torch.cuda.Event()
        self.sampled_cpu = sampled.to("cpu", non_blocking=True)
        self.event.record()

    def get_output(self) -> list[int]:
        self.event.synchronize()
        return [int(x) for x in self.sampled_cpu]  # expect-not: HTD201
