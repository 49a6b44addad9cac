import torch

from .buffers import CpuGpuBuffer


class ModelRunner:
    def __init__(self, max_reqs: int, device: torch.device) -> None:
        self.query_start_loc = CpuGpuBuffer(max_reqs + 1, torch.int32, device)

    def _prepare_inputs(self, num_reqs: int) -> list[tuple[int, int]]:
        spans = []
        for i in range(num_reqs):
            start = self.query_start_loc.cpu[i].item()  # expect-not: HTD201, HTD202
            end = self.query_start_loc.cpu[i + 1].item()  # expect-not: HTD201, HTD202
            spans.append((start, end))
        return spans

    def _gather_last(self, num_reqs: int) -> list[int]:
        qsl = self.query_start_loc.copy_to_gpu(num_reqs + 1)
        return [qsl[i + 1].item() - 1 for i in range(num_reqs)]  # expect: HTD201

    def _host_offsets(self, offsets: torch.Tensor, num_reqs: int) -> list[int]:
        host = self.query_start_loc.cpu[: num_reqs + 1].copy_(offsets)
        return [host[i + 1].item() - 1 for i in range(num_reqs)]  # expect-not: HTD201
