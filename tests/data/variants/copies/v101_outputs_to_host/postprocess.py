from __future__ import annotations

import torch


def logprobs_to_host(per_req_logprobs: list[torch.Tensor]) -> list[torch.Tensor]:
    return [lp.to("cpu", non_blocking=True) for lp in per_req_logprobs]  # expect-not: HTD101
