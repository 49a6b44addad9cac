from __future__ import annotations

import torch

from v104_request_prompts.reqs import Req


class PromptBatcher:
    def __init__(self, device: torch.device) -> None:
        self.device = device

    def input_ids(self, reqs: list[Req]) -> torch.Tensor:
        return torch.cat([r.prompt_ids for r in reqs]).to(self.device, non_blocking=True)  # expect: HTD104

    def hidden(self, states: list[torch.Tensor]) -> torch.Tensor:
        # Activations of unknown placement, moved to another tensor's device: left alone.
        return torch.cat(states).to(states[0].device)  # expect-not: HTD104
