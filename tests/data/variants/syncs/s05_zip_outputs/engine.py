import torch


class Request:
    def __init__(self, rid: int) -> None:
        self.rid = rid
        self.output_ids: list[int] = []


class Engine:
    def __init__(self, model, device: str = "cuda") -> None:
        self.model = model
        self.device = device

    def step(self, requests: list[Request], input_ids: torch.Tensor) -> None:
        logits = self.model(input_ids)
        next_ids = torch.argmax(logits[:, -1, :], dim=-1)
        for req, tok in zip(requests, next_ids):
            req.output_ids.append(int(tok))  # expect: HTD201

    def replay(self, requests: list[Request], saved: list[list[int]]) -> None:
        host_ids = torch.tensor([s[-1] for s in saved])
        for req, tok in zip(requests, host_ids):  # expect-not: HTD201
            req.output_ids.append(int(tok))
