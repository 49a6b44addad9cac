import torch


class Runner:
    def __init__(self, max_tokens: int, device: torch.device) -> None:
        self.input_ids_cpu = torch.zeros(max_tokens, dtype=torch.int64, pin_memory=True)
        self.input_ids = torch.zeros(max_tokens, dtype=torch.int64, device=device)

    def _prepare_inputs(self, n: int) -> list[int]:
        self.input_ids[:n].copy_(self.input_ids_cpu[:n], non_blocking=True)
        return self.input_ids[:n].cpu().tolist()  # expect: HTD202

    def _host_ids(self, n: int) -> list[int]:
        return self.input_ids_cpu[:n].tolist()  # expect-not: HTD202
