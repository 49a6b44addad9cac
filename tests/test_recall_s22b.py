"""The facts behind session 22's held-out rows of model, RL and speech code (docs/recall.md,
"Session 22: held-out rows, model code (helper recall22b)"): trl 0.15's KTO trainer made a
one-number display into a host tensor and moved it to the device every training step
(``torch.Tensor([len(chosen_rewards)]).to(self.accelerator.device)``), the spelling of HTD107's
``torch.tensor([n], device=dev)`` that no rule reported. Each beside the correct look-alikes."""

from __future__ import annotations

from lint_runs import lint


def _findings(code: str, *rule_codes: str) -> list[tuple[str, int]]:
    found = lint(code, *rule_codes)
    return sorted((f.code, f.start.row) for f in found)


_ALL = ("HTD102", "HTD106", "HTD107", "HTD301")


def test_moved_display_of_numbers_per_step() -> None:
    code = """
        import torch
        class KTOTrainer:
            def compute_loss(self, model, inputs):
                rewards = model(inputs)
                a = torch.Tensor([len(rewards)]).to(self.accelerator.device)
                b = torch.tensor([len(rewards), 3]).long().cuda()
                c = torch.tensor(inputs.shape[0] * 2).to("cuda")
                return a, b, c
    """
    assert _findings(code, *_ALL) == [("HTD107", 6), ("HTD107", 7), ("HTD107", 8)]


def test_moved_constants_reported_once() -> None:
    """A 0-d literal and data of unknown length stay HTD301's; a non-blocking copy HTD102's."""
    code = """
        import torch
        class M(torch.nn.Module):
            def forward(self, x, ids):
                a = torch.tensor(0.5).to(x.device)
                b = torch.tensor(list(ids)).to(x.device)
                c = torch.tensor([len(ids)]).to(x.device, non_blocking=True)
                return a, b, c
    """
    assert [code for code, _ in _findings(code, *_ALL) if code == "HTD107"] == []


def test_moved_display_look_alikes() -> None:
    code = """
        import torch
        class M(torch.nn.Module):
            def __init__(self, n):
                super().__init__()
                self.scale = torch.tensor([n, 1.0]).to("cuda")
            def forward(self, x, labels, rewards):
                num_chosen = labels.sum().to(x.device)
                a = torch.tensor([len(rewards)]).to("cpu")
                b = torch.tensor([rewards.sum()]).to(x.device)
                c = torch.Tensor(x.shape[0]).to(x.device)
                return num_chosen, a, b, c
        def build(n, device):
            return torch.tensor([n, 1]).to(device)
    """
    assert _findings(code, "HTD107") == []
