import torch


class Prep:
    def __init__(self, device: torch.device) -> None:
        self.device = device

    def prepare_inputs(self, seq_lens: list[int]) -> torch.Tensor:
        lens = torch.tensor(seq_lens, device=self.device)
        longest = max(lens)  # expect: HTD201; allow: HTD202
        host_longest = max(seq_lens)  # expect-not: HTD201, HTD202
        return torch.zeros(int(longest) + host_longest, device=self.device)  # expect: HTD202
