import torch


class DecodeLoop:
    def __init__(self, model, eos_id: int) -> None:
        self.model = model
        self.eos_id = eos_id

    def decode(self, tokens: torch.Tensor, finished: list[bool]) -> list[bool]:
        logits = self.model(tokens)
        next_tokens = logits[:, -1].argmax(dim=-1)
        for i in range(next_tokens.shape[0]):  # expect: HTD201
            if next_tokens[i] == self.eos_id:
                finished[i] = True
        return finished
