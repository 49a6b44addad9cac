import torch


class Generator:
    def __init__(self, model, eos_token_id: int, max_new: int) -> None:
        self.model = model
        self.eos_token_id = eos_token_id
        self.max_new = max_new

    def decode_step(self, tokens: torch.Tensor, done: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits = self.model(tokens)
        nxt = logits[:, -1].argmax(-1)
        done = done | (nxt == self.eos_token_id)
        if (nxt == self.eos_token_id).any():  # expect: HTD202
            nxt = torch.where(done, torch.full_like(nxt, self.eos_token_id), nxt)
        return torch.cat([tokens, nxt[:, None]], dim=1), done
