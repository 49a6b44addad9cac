"""Session 48 (hot48): recall misses whose code was not found hot.

- A local name every binding of which reads an attribute of ``self`` (``helper =
  self.helper``) calls the methods of the attribute's class as ``self.helper.m(...)`` does
  (pytorch-optimizer 3.10.1 ``lora_rite.py:61``) (``analysis/attribute_aliases.py``).
- A function whose name ends in ``backward`` runs in every backward pass, as one ending in
  ``forward`` runs in every forward (PCGrad's ``pc_backward``, pytorch-optimizer 3.10.1
  ``pcgrad.py:118``, ``:124``) (``analysis/backward_calls.backward_pass_name``).
- A loop that hands a value to a method of its class, or of a base class in another module,
  that backpropagates it (``self.optimizer_update(optimizer, obj_critic)``) runs device work on
  every iteration, and the value is a tensor (ElegantRL 0.3.6's agents)
  (``analysis/backward_methods.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lint_runs import lint, package_records

from h2dlint.analysis.backward_calls import backward_pass_name


def _rows(code: str, *codes: str) -> list[tuple[int, str]]:
    return sorted((f.start.row, f.confidence) for f in lint(code, *codes))


# pytorch-optimizer 3.10.1 optimizer/lora_rite.py:10, :51-61, :199, :310-357, :418.
LORA_RITE = """\
import torch
class LoRARiteHelper:
    def inverse_sqrt(self, tensor: torch.Tensor, eps_root: float) -> torch.Tensor:
        eigenvalues, eigenvectors = torch.linalg.eigh(tensor)
        eps_root = torch.max(eigenvalues).clamp(min=0.0).mul(eps_root).item()
        return eigenvectors * eps_root
    def get_preconditioned_update(self, moments, eps_root):
        return self.inverse_sqrt(moments, eps_root)
class LoRARite(torch.optim.Optimizer):
    def __init__(self, params):
        super().__init__(params, {{}})
        self.helper = LoRARiteHelper()
    def apply_pair_update(self, group, left):
        {bind}
        return helper.get_preconditioned_update(self.state[left]["v"], 1e-6)
    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                self.apply_pair_update(group, p)
"""


def test_a_local_alias_of_an_attribute_calls_its_class_methods_hot() -> None:
    code = LORA_RITE.format(bind="helper = self.helper")
    assert _rows(code, "HTD202") == [(5, "medium")]


@pytest.mark.parametrize(
    "bind",
    [
        "helper = LoRARiteHelper() if group else self.helper\n        helper = make(helper)",
        "helper = make_helper()",
        "pass",
    ],
)
def test_a_name_bound_to_anything_else_is_no_alias(bind: str) -> None:
    assert _rows(LORA_RITE.format(bind=bind), "HTD202") == []


def test_a_parameter_named_like_the_attribute_is_no_alias() -> None:
    code = LORA_RITE.format(bind="helper = self.helper").replace(
        "def apply_pair_update(self, group, left):", "def apply_pair_update(self, helper, left):"
    )
    assert _rows(code, "HTD202") == []


# pytorch-optimizer 3.10.1 optimizer/pcgrad.py:98-140.
PCGRAD = """\
import torch
class PCGrad:
    def __init__(self, optimizer):
        self.optimizer = optimizer
    def project_conflicting(self, grads, has_grads):
        shared = torch.stack(has_grads).prod(0).bool()
        merged = torch.zeros_like(grads[0])
        merged[~shared] = torch.stack([g[~shared] for g in grads]).sum(dim=0)
        return merged
    def {name}(self, objectives):
        grads, has_grads = [], []
        for objective in objectives:
            objective.backward(retain_graph=True)
        return self.project_conflicting(grads, has_grads)
"""


@pytest.mark.parametrize("name", ["pc_backward", "fuser_backward", "_backward"])
def test_a_function_named_for_a_backward_pass_is_hot(name: str) -> None:
    # the masked write and the masked reads of every task's gradient
    assert {row for row, _ in _rows(PCGRAD.format(name=name), "HTD202")} == {8}


@pytest.mark.parametrize(
    "name",
    [
        "register_backward",
        "setup_backward",
        "benchmark_backward",
        "backward_reference",
        "check_backward",
        "backward_compatible",
        "full_backward_hook",
        "run_once",
    ],
)
def test_names_that_configure_drive_or_check_a_backward_are_not(name: str) -> None:
    assert _rows(PCGRAD.format(name=name), "HTD202") == []


def test_backward_pass_names() -> None:
    assert backward_pass_name("pc_backward")
    assert backward_pass_name("_backward_pass")
    assert backward_pass_name("do_backward")
    assert not backward_pass_name("backward")  # an entry point by its own name
    assert not backward_pass_name("register_backward_hook")
    assert not backward_pass_name("backward_compat_load")
    assert not backward_pass_name("backwards_compatible_forward")


# ElegantRL 0.3.6 agents/AgentBase.py:195-204 and agents/AgentTD3.py:30-56.
AGENT_BASE = """\
import torch
class AgentBase:
    def __init__(self, net):
        self.cri = net
    def optimizer_update(self, optimizer, objective):
        optimizer.zero_grad()
        {backward}
        optimizer.step()
"""
AGENT_TD3 = """\
from pkg.agent_base import AgentBase
class AgentTD3(AgentBase):
    def update_net(self, buffer):
        obj_critics = 0.0
        for update_c in range(8):
            obj_critic, state = self.get_obj_critic(buffer)
            obj_critics += obj_critic.item()
            self.optimizer_update(self.cri_optimizer, obj_critic)
        return obj_critics / 8
"""


def _agent_rows(tmp_path: Path, backward: str) -> list[tuple[str, int]]:
    files = {
        "agent_base.py": AGENT_BASE.format(backward=backward),
        "agent_td3.py": AGENT_TD3,
    }
    records = package_records(tmp_path, files, "HTD202")
    return sorted((r["filename"].rpartition("/")[2], r["location"]["row"]) for r in records)


@pytest.mark.parametrize(
    "backward",
    ["objective.backward()", "torch.cuda.amp.GradScaler().scale(objective).backward()"],
)
def test_a_base_class_helper_that_backpropagates_makes_a_training_loop(
    tmp_path: Path, backward: str
) -> None:
    assert _agent_rows(tmp_path, backward) == [("agent_td3.py", 7)]


@pytest.mark.parametrize(
    "backward",
    [
        "pass",  # no backward: a helper that only steps a given optimizer
        "for part in objective:\n            part.backward()",  # one per part, not the step's
    ],
)
def test_a_helper_without_one_backward_of_its_own_is_not(tmp_path: Path, backward: str) -> None:
    assert _agent_rows(tmp_path, backward) == []
