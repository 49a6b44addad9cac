"""The facts behind session 19's held-out rows (docs/recall.md, "Session 19: held-out rows
(helper recall19)"): a ``while`` test is judged like an ``if`` test, a loop whose body runs a
model makes its test a per-step read, and a value comparison of a tensor made on the device
is a tensor test; each beside the correct look-alike."""

from __future__ import annotations

import textwrap

import libcst as cst
from lint_runs import lint

from h2dlint.analysis.tested_tensors import WHILE_REASON, model_while_reason


def _findings(code: str, rule_code: str = "HTD202") -> list[tuple[int, str]]:
    return [(f.start.row, f.message) for f in lint(code, rule_code)]


def _while(code: str) -> cst.While:
    statement = cst.parse_module(textwrap.dedent(code)).body[0]
    assert isinstance(statement, cst.While)
    return statement


def test_model_while_reason_needs_a_model_in_the_body() -> None:
    loop = _while("while t > 0:\n    x = self.denoise_step(x, t)\n    t -= dt\n")
    assert model_while_reason(loop) == WHILE_REASON
    assert model_while_reason(_while("while n > 0:\n    n -= 1\n")) is None


SAMPLER = """
    import torch
    class Policy(torch.nn.Module):
        def sample_actions(self, state, noise):
            device = state.device
            dt = torch.tensor(-0.1, dtype=torch.float32, device=device)
            time = torch.tensor(1.0, dtype=torch.float32, device=device)
            x_t = noise
            while time >= -dt / 2:
                x_t += dt * self.denoise_step(x_t, time)
                time += dt
            return x_t
"""


def test_while_test_of_device_scalars_in_a_model_loop() -> None:
    found = _findings(SAMPLER)
    assert [row for row, _ in found] == [9]
    assert "as a `while` test" in found[0][1] and WHILE_REASON in found[0][1]


def test_while_test_in_a_hot_function_without_a_model_call() -> None:
    code = """
        import torch
        class M(torch.nn.Module):
            def forward(self, x):
                t = torch.zeros(1, device="cuda")
                while t > 0:
                    t -= 1
                return x
    """
    assert [row for row, _ in _findings(code)] == [6]


def test_host_floats_and_counters_stay_silent() -> None:
    code = """
        import torch
        class Policy(torch.nn.Module):
            def sample_actions(self, state, noise, num_steps):
                dt = -1.0 / num_steps
                x_t = noise
                step = 0
                time = 1.0
                while time >= -dt / 2 and step < num_steps:
                    x_t = x_t + dt * self.denoise_step(x_t, time)
                    time += dt
                    step += 1
                return x_t

            def forward(self, x, mask=None):
                while mask != None and x.shape[0] > 1:
                    x = x[1:]
                return x
    """
    assert _findings(code) == []


def test_a_range_is_host_data_of_unknown_length() -> None:
    code = """
        import torch
        class Loss(torch.nn.Module):
            def forward(self, scores):
                labels = torch.tensor(range(len(scores)), device=scores.device)
                fixed = torch.arange(len(scores), device=scores.device)
                return labels, fixed
    """
    found = _findings(code, "HTD106")
    assert [row for row, _ in found] == [5]
    assert "`range(len(scores))`" in found[0][1]


def test_a_host_copy_of_a_tensor_the_loop_does_not_change() -> None:
    code = """
        import torch
        def search(query_embeddings: torch.Tensor, client):
            for q_idx in range(query_embeddings.size(0)):
                mask = query_embeddings.coalesce().indices()[0].cpu().numpy() == q_idx
                client.query(mask)
        def train(model, opt, loader, device):
            w = model.weight
            for batch in loader:
                model(batch.to(device)).sum().backward()
                opt.step()
                snapshot = w.cpu()
    """
    found = _findings(code, "HTD302")
    assert [row for row, _ in found] == [5]
    assert "copied to the host on every iteration" in found[0][1]
