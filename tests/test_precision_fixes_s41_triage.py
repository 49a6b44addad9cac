"""The analysis facts behind session 41's blind-style triage (docs/precision.md, "Session 41
(triage41)"), with the twins that must keep their verdict. A numpy array that its function
hands to an environment's ``step`` or ``step_async`` is the simulator's input, needed on the
host at once (CleanRL's ``VecPyTorch.step_async``, SheepRL's rollout loop); the same copy kept
in a buffer, or handed to the object's own ``self.step``, stays reported; so for the copy an
episode's ``while`` loop makes on every step (HTD201, the lead's). Memory that
``cudaHostRegister`` page-locks in place is pinned (CleanRL's asynchronous PPO storage, a host
pool registered in ``__init__``); an unregistered neighbour stays pageable. An attribute of an
object that ``torch.nn.functional`` holds (``F._Reduction.get_enum``) is no tensor function:
its ``int`` tested is no read, while a tensor ``F`` returns stays one."""

from __future__ import annotations

from pathlib import Path

from lint_runs import cli_rows

WRAPPER = """
class VecPyTorch:
    def __init__(self, venv):
        self.venv = venv
    def step_async(self, actions):
        actions = actions.cpu().numpy()
        {handoff}
"""


def test_actions_handed_to_a_vectorised_env_are_its_input(tmp_path: Path) -> None:
    handed = WRAPPER.format(handoff="self.venv.step_async(actions)")
    assert cli_rows(tmp_path, handed, "HTD202") == []
    # Kept on the wrapper instead, or handed to its own step: no simulator takes it now.
    kept = WRAPPER.format(handoff="self.last = actions")
    assert cli_rows(tmp_path, kept, "HTD202") == [6]
    own = WRAPPER.format(handoff="self.step(actions)")
    assert cli_rows(tmp_path, own, "HTD202") == [6]


ROLLOUT = """
import torch
def rollout_step(envs, player, obs, continuous, buffer):
    actions, values = player(obs)
    if continuous:
        real_actions = torch.stack(actions, -1).cpu().numpy()
    else:
        real_actions = torch.stack([a.argmax(dim=-1) for a in actions], -1).cpu().numpy()
    next_obs, rewards, done, info = envs.step(real_actions.reshape(envs.action_space.shape))
    buffer["values"] = values.cpu().numpy()
    logged = torch.cat(actions, -1).cpu().numpy()
    return next_obs, {returned}
"""


def test_an_array_every_branch_hands_to_env_step_is_its_input(tmp_path: Path) -> None:
    assert cli_rows(tmp_path, ROLLOUT.format(returned="logged"), "HTD202") == [10, 11]
    # The buffer's and the log's copies stay; so does an action array also kept elsewhere
    # when one branch's binding is no array (no proof every value reaching the step is one).
    mixed = ROLLOUT.replace(
        "        real_actions = torch.stack([a.argmax(dim=-1) for a in actions], -1).cpu().numpy()",
        "        real_actions = actions[0]",
    )
    assert cli_rows(tmp_path, mixed.format(returned="logged"), "HTD202") == [6, 10, 11]


REGISTERED = """
import torch
obs = torch.zeros((128, 8, 4))
other = torch.zeros((128, 8))
for x in [obs]:
    torch.cuda.cudart().cudaHostRegister(x.data_ptr(), x.nbytes, 0)
gpu_obs = obs[:64].to("cuda", non_blocking=True)
gpu_other = other.to("cuda", non_blocking=True)
class Pool:
    def __init__(self, n):
        self.kv = torch.empty(n, 1024)
        self.scratch = torch.empty(n, 1024)
        torch.cuda.cudart().cudaHostRegister(self.kv.data_ptr(), self.kv.nbytes, 0)
    def load(self, n, device):
        kv = self.kv[:n].to(device, non_blocking=True)
        return kv, self.scratch[:n].to(device, non_blocking=True)
"""


def test_memory_registered_with_cuda_is_pinned(tmp_path: Path) -> None:
    # The registered tensors (and their slices) are pinned; their unregistered neighbours
    # (`other`, `self.scratch`) stay pageable.
    assert cli_rows(tmp_path, REGISTERED, "HTD102") == [8, 16]
    # A strided view of registered memory (`obs[:, :4]`, `obs[::2]`) is copied as pageable memory
    # is: HTD103's, still reported.
    for strided in ("obs[:, :4]", "obs[::2]"):
        code = REGISTERED.replace("obs[:64]", strided)
        assert cli_rows(tmp_path, code, "HTD103") == [7], strided


REDUCE = """
import torch.nn.functional as F
from torch import nn
def reduce_loss(loss, reduction):
    value = {value}
    if value == 0:
        return loss
    return loss.sum()
class Loss(nn.Module):
    def forward(self, x):
        return reduce_loss(x, "mean")
"""


def test_an_attribute_of_an_object_functional_holds_is_no_tensor(tmp_path: Path) -> None:
    enum = REDUCE.format(value="F._Reduction.get_enum(reduction)")
    assert cli_rows(tmp_path, enum, "HTD202") == []
    # A function of torch.nn.functional returns a tensor: its test stays a read.
    tensor = REDUCE.format(value="F.relu(loss).sum()")
    assert cli_rows(tmp_path, tensor, "HTD202") == [6]


EPISODE = """
import torch
def evaluate(actor, env, device):
    obs = env.reset()
    done = False
    kept = []
    while not done:
        action = torch.tanh(torch.as_tensor(obs, device="cuda"))
        {handoff}
    return kept
"""


def test_an_episodes_actions_handed_to_env_step_are_no_loop_state(tmp_path: Path) -> None:
    # HTD201's `while` loop: the copy is the simulator's input on every step (SheepRL's test
    # episodes), however the array is reshaped on the way.
    for handoff in (
        "obs, reward, done, info = env.step(action.cpu().numpy())",
        "obs, reward, done, info = env.step(action.cpu().numpy().reshape(env.shape))",
    ):
        assert cli_rows(tmp_path, EPISODE.format(handoff=handoff), "HTD201") == [], handoff
    # The same copy kept, with the loop's end tested on the host: still one sync per step.
    kept = "kept.append(action.cpu().numpy())\n        done = len(kept) > 100"
    assert cli_rows(tmp_path, EPISODE.format(handoff=kept), "HTD201") == [9]
    # An object's own step is no simulator: still reported.
    own = "obs, reward, done, info = self.step(action.cpu().numpy())"
    assert cli_rows(
        tmp_path, EPISODE.format(handoff=own).replace("(actor,", "(self, actor,"), "HTD201"
    ) == [9]
