import torch


class PositionBuilder:
    def __init__(self, device: torch.device) -> None:
        self.device = device

    def prepare_inputs(self, starts: torch.Tensor, counts: torch.Tensor, total: int) -> torch.Tensor:
        starts = starts.to(self.device, non_blocking=True)
        counts = counts.to(self.device, non_blocking=True)
        base = torch.repeat_interleave(starts, counts)  # expect: HTD202
        sized = torch.repeat_interleave(starts, counts, output_size=total)  # expect-not: HTD202
        return base + sized
