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
