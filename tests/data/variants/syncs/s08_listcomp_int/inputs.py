import torch


class InputPrep:
    def __init__(self, max_reqs: int, device: torch.device) -> None:
        self.seq_lens = torch.zeros(max_reqs, dtype=torch.int32, device=device)
        self.seq_lens_host = torch.zeros(max_reqs, dtype=torch.int32)

    def prepare_inputs(self, num_reqs: int) -> list[int]:
        lens = [int(x) for x in self.seq_lens[:num_reqs]]  # expect: HTD201
        host_lens = [int(x) for x in self.seq_lens_host[:num_reqs]]  # expect-not: HTD201
        return [a + b for a, b in zip(lens, host_lens)]
