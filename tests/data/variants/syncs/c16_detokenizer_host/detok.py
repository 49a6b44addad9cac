import torch


class Detokenizer:
    def __init__(self, tokenizer) -> None:
        self.tokenizer = tokenizer

    def step(self, token_ids: list[list[int]]) -> list[str]:
        batch = torch.tensor(token_ids)
        texts = []
        for row in batch:  # expect-not: HTD201
            texts.append(self.tokenizer.decode(row.tolist()))
        lengths = torch.as_tensor([len(t) for t in token_ids])
        if lengths.max().item() > 4096:  # expect-not: HTD202
            texts = [t[:4096] for t in texts]
        return texts
