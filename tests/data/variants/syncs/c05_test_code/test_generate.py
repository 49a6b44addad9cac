import torch


def test_generation_stops(model) -> None:
    ids = torch.zeros(2, 1, dtype=torch.long, device="cuda")
    done = torch.zeros(2, dtype=torch.bool, device="cuda")
    while not done.all():  # expect-not: HTD201
        nxt = model(ids)[:, -1].argmax(-1)
        done |= nxt == 0
        ids = torch.cat([ids, nxt[:, None]], dim=1)
