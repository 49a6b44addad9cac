import torch


class ModelRunnerOutput:
    def __init__(self, req_ids: list[str], sampled: list[list[int]]) -> None:
        self.req_ids = req_ids
        self.sampled = sampled


class Worker:
    def __init__(self, model, sampler) -> None:
        self.model = model
        self.sampler = sampler

    def execute_model(self, input_ids: torch.Tensor, positions: torch.Tensor, req_ids: list[str]) -> ModelRunnerOutput:
        hidden = self.model(input_ids, positions)
        logits = self.model.compute_logits(hidden)
        sampled = torch.argmax(logits, dim=-1, keepdim=True)
        return ModelRunnerOutput(req_ids, sampled.tolist())  # expect: HTD202
