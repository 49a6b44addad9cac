import torch

from .utils import longest, longest_of_list


class Runner:
    def __init__(self, max_reqs: int, device: torch.device) -> None:
        self.seq_lens = torch.zeros(max_reqs, dtype=torch.int32, device=device)
        self.device = device

    def execute_model(self, num_reqs: int, lens: list[int]) -> torch.Tensor:
        max_seq = longest(self.seq_lens[:num_reqs])  # expect: HTD202
        max_host = longest_of_list(lens)  # expect-not: HTD202
        return torch.zeros(max_seq + max_host, device=self.device)
