"""The analysis facts behind session 18's held-out precision fixes on model, training-loop, RL
and metric code (docs/precision.md, "Session 18 (helper heldout18b)"): each look-alike found in
code no triage had read, and its true twin."""

from __future__ import annotations

from pathlib import Path

from lint_runs import lint


def _findings(code: str, rule_code: str, path: str = "m.py") -> list[str]:
    return [f.message for f in lint(code, rule_code, path=path)]


ARM = """
    import torch
    def score(preds, target, lens):
        {prelude}
        if {test}:
            {between}
            return torch.tensor(0.0, device=preds.device)
        return (preds * target).sum()
    """


def _arm(test: str, between: str = "pass", prelude: str = "pass") -> list[str]:
    return _findings(ARM.format(test=test, between=between, prelude=prelude), "HTD107")


def test_a_constant_right_after_a_test_that_read_a_tensor_is_left_alone() -> None:
    # torchmetrics' retrieval metrics (per query) and degenerate arms: the test drained the
    # stream, so the copy has nothing to wait for.
    assert not _arm("not target.sum()")
    assert not _arm("target.max() == 0")
    assert not _arm("not (target > 0).any()")
    assert not _arm("torch.allclose(preds, target)")
    assert not _arm("target.sum().item() == 0")
    assert not _arm("target.any()", between="n = len(target)")
    # The test reads no tensor (a Python number), or only its right side does (it may never be
    # evaluated), or it reads a host tensor (the copy waits for queued work): still reported.
    assert _arm("len(lens) == 0")
    assert _arm("len(lens) == 0 or target.any()")
    assert _arm("host.any()", prelude="host = torch.tensor(lens)")
    # Device work queued between the test and the copy: the copy waits for it.
    assert _arm("target.any()", between="preds = preds.softmax(-1)")
    # A name bound to a tensor (``n = target.sum()`` ... ``if not n:``) is read by the test; a
    # number read on the host when it was bound is not, and device work may come between
    # (axolotl's ``padding_length = ....sum().item()`` ... ``if padding_length:``); a test of
    # identity reads no value.
    assert not _arm("not n", prelude="n = target.sum()")
    assert _arm("n", prelude="n = target.sum().item()\n    preds = preds.softmax(-1)")
    assert _arm("target is None")


def test_a_constant_passed_to_a_host_container_after_the_test_is_left_alone() -> None:
    code = """
        import torch
        def per_class(score, observed, results, name):
            if observed.item() == 0:
                results.update({{name: torch.tensor(0.0, device=score.device)}})
            {other}
        """
    assert not _findings(code.format(other="pass"), "HTD107")
    # An argument evaluated before it that runs device work.
    queued = """
        import torch
        def per_class(score, observed, results, name):
            if observed.item() == 0:
                results.update(score.softmax(-1), torch.tensor(0.0, device=score.device))
        """
    assert _findings(queued, "HTD107")


def test_a_warning_then_a_returned_constant_is_a_fallback() -> None:
    assert not _arm("preds.numel() < 2", between='rank_zero_warn("too few points")')
    assert not _arm("len(lens) == 0", between='warnings.warn("empty")')
    # A warning, then more work before the return: may be a path taken every step.
    warned = """
        import torch
        def score(preds, lens):
            if len(lens) == 0:
                warnings.warn("empty")
                scale = torch.tensor(0.0, device=preds.device)
                return preds * scale
            return preds
        """
    assert _findings(warned, "HTD107")


GUARDED = """
    import torch
    class Router(torch.nn.Module):
        def forward(self, x: torch.Tensor, ids: torch.Tensor):
            {bound}
            if {test}:
                raise ValueError("bad id")
            return x
    """


def test_code_python_evaluates_only_off_cuda_is_no_gpu_sync() -> None:
    def syncs(test: str, bound: str = "pass") -> bool:
        return bool(_findings(GUARDED.format(test=test, bound=bound), "HTD202"))

    assert not syncs("not ids.is_cuda and int(ids.max()) >= 8")
    assert not syncs('ids.device.type == "cpu" and int(ids.max()) >= 8')
    assert not syncs("ids.is_cuda or int(ids.max()) >= 8")
    assert not syncs("not on_gpu and int(ids.max()) >= 8", bound="on_gpu = ids.is_cuda")
    # Evaluated on CUDA too: still reported.
    assert syncs("ids.is_cuda and int(ids.max()) >= 8")
    assert syncs("not ids.is_cuda or int(ids.max()) >= 8")
    assert syncs("int(ids.max()) >= 8")
    # A flag that is no device test.
    assert syncs("not fast and int(ids.max()) >= 8", bound="fast = self.fast")


# An .item() (a stall of the pass), not .cpu() of the outputs: copying an evaluation pass's
# outputs to the host is the pass's purpose (analysis/evaluation_steps.py).
STEP = """
    import torch
    from lightning import LightningModule
    class Task(LightningModule):
        def validation_step(self, batch, batch_idx):
            x, y = batch
            y_pred = self.model(x)
            if {test}:
                return
            self.plot(y_pred.max().item())
    """


def test_what_follows_an_exit_on_every_batch_but_the_first_runs_once() -> None:
    def syncs(test: str) -> bool:
        return bool(_findings(STEP.format(test=test), "HTD202"))

    assert not syncs("batch_idx > 0")
    assert not syncs("self.current_epoch % 2 or batch_idx != 0")
    assert not syncs("self.trainer.global_step >= 1")
    # A count of what is left, an ``and`` (the exit may not happen), a bound other than the
    # first step: still reported.
    assert syncs("self.num_steps > 0")
    assert syncs("batch_idx > 0 and self.skip")
    assert syncs("batch_idx > 4")


TRAIN = """
import torch
from utils import eval_model


def main(cfg, collector, optim, loss_module, actor, env):
    for i, data in enumerate(collector):
        loss = loss_module(data)
        loss.backward()
        optim.step()
        if ((i - 1) * cfg.frames) // cfg.{interval} < (i * cfg.frames) // cfg.{interval}:
            eval_model(actor, env)
"""

UTILS = """
import torch


def eval_model(actor, env):
    rewards = []
    for _ in range(3):
        td = env.rollout(policy=actor)
        reward = td["next", "episode_reward"][td["next", "done"]]
        rewards.append(reward.cpu())
    return torch.cat(rewards, 0).mean()
"""


def test_a_call_under_an_interval_comparison_is_not_per_step(tmp_path: Path) -> None:
    """torchrl's examples evaluate once every ``test_interval`` frames through a helper of
    another module: the helper's copies are not per training step."""
    from click.testing import CliRunner

    from h2dlint.cli import main

    def reports(interval: str) -> bool:
        folder = tmp_path / interval
        folder.mkdir()
        (folder / "train.py").write_text(TRAIN.format(interval=interval))
        (folder / "utils.py").write_text(UTILS)
        args = ["check", "--no-cache", "--select", "HTD202", "-j", "1", str(folder)]
        result = CliRunner().invoke(main, args, catch_exceptions=False)
        return "utils.py" in result.output

    assert not reports("test_interval")
    assert not reports("eval_every")
    # A comparison without an interval word: the branch may run on every step.
    assert reports("batch_size")


ENV = """
    import torch
    class Wrapper:
        def _step(self, tensordict):
            action = tensordict.get("action")
            {body}
            return obs
    """


def test_an_environment_step_handing_its_action_to_a_simulator_is_left_alone() -> None:
    def syncs(body: str) -> bool:
        return bool(_findings(ENV.format(body=body), "HTD202"))

    assert not syncs("obs, r, d, i = self._env.step(action.cpu().numpy())")
    assert not syncs(
        "a = action.detach().cpu().numpy().astype(float)\n            obs = self.sim.step(a)"
    )
    # Its own step (no simulator), a value computed from the action, or kept for later.
    assert syncs("obs = self.step(action.cpu().numpy())")
    assert syncs("obs = self._env.step((action * 2).cpu().numpy())")
    assert syncs("obs = self.log.append(action.cpu().numpy())")
