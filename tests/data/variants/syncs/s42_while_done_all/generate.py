import torch


@torch.no_grad()
def greedy_generate(model, input_ids: torch.Tensor, eos: int, max_new: int) -> torch.Tensor:
    done = torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)
    steps = 0
    while not done.all() and steps < max_new:  # expect: HTD201
        nxt = model(input_ids)[:, -1].argmax(-1)
        done |= nxt == eos
        input_ids = torch.cat([input_ids, nxt[:, None]], dim=-1)
        steps += 1
    return input_ids


@torch.no_grad()
def warmup(model, input_ids: torch.Tensor, eos: int) -> None:
    done = torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)
    while not done.all():  # expect-not: HTD201
        nxt = model(input_ids)[:, -1].argmax(-1)
        done |= nxt == eos


def host_budget(model, lengths: list[int], budget: int) -> int:
    lens = torch.tensor(lengths)
    steps = 0
    while lens.sum() < budget:  # expect-not: HTD201
        model(torch.zeros(1, dtype=torch.long))
        lens += 1
        steps += 1
    return steps


def drain(queue: list[torch.Tensor]) -> int:
    total = torch.zeros(())
    while queue:  # expect-not: HTD201
        total += queue.pop().sum()
    return int(total)
