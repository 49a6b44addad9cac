import numpy as np
import torch


class DecodeLoop:
    def __init__(self, model, eos_id: int) -> None:
        self.model = model
        self.eos_id = eos_id

    def decode(self, tokens: torch.Tensor, finished: list[bool]) -> list[bool]:
        logits = self.model(tokens)
        next_tokens = logits[:, -1].argmax(dim=-1)
        for i in range(next_tokens.shape[0]):
            if next_tokens[i] == self.eos_id:  # expect: HTD201
                finished[i] = True
        return finished

    def decode_host(self, token_lists: list[list[int]], finished: list[bool]) -> list[bool]:
        last = [t[-1] for t in token_lists]
        for i in range(len(last)):  # expect-not: HTD201
            if last[i] == self.eos_id:
                finished[i] = True
        arr = np.asarray(last)
        for i in range(arr.shape[0]):  # expect-not: HTD201
            if arr[i] == self.eos_id:
                finished[i] = True
        host = torch.tensor(last)
        for i in range(host.shape[0]):  # expect-not: HTD201
            if host[i] == self.eos_id:
                finished[i] = True
        return finished
