"""Session 44 (mine44): SheepRL 0.6.1's rollouts copied the final observation of each truncated
episode to the device one environment and key at a time, fixed in 0.7.0.

``obs, rewards, terminated, truncated, info = envs.step(real_actions.reshape(shape))`` with
``real_actions`` a ``.cpu().numpy()`` array: the environment runs on the host, so the values of
the mappings it returns are host arrays, and ``torch.as_tensor(v, device=device)`` of each ``v``
of ``info["final_obs"][env].items()`` is a copy from pageable memory per item
(``analysis/step_outputs.py``). Left clean: the step's whole observation, a GPU simulator handed
tensors, ``self.step`` (the object's own), and the post-fix stacked copy.

tensordict 0.4.0's lazy stack pinned its tensordicts with ``td.pin_memory()`` and dropped the
pinned copies. The module defines ``pin_memory`` methods itself, which HTD102 took for in-place
pinners; made only of dropped pins and ``return self``, they are none
(``analysis/dropped_pins.py``). A custom batch that assigns its pinned fields still is.
"""

from __future__ import annotations

from pathlib import Path

from lint_runs import lint_project, write_files

ROLLOUT = """
import numpy as np
import torch


def rollout(envs, player, obs_keys, device, num_steps, gamma, cnn_keys, next_obs):
    for _ in range(num_steps):
        actions = player(next_obs)
        real_actions = torch.stack(actions, -1).cpu().numpy()
        obs, rewards, terminated, truncated, info = envs.step(real_actions.reshape(envs.shape))
        truncated_envs = np.nonzero(truncated)[0]
        if len(truncated_envs) > 0:
            real_next_obs = {
                k: torch.empty(len(truncated_envs), 4, dtype=torch.float32, device=device)
                for k in obs_keys
            }
            for i, truncated_env in enumerate(truncated_envs):
                for k, v in info["final_obs"][truncated_env].items():
                    torch_v = torch.as_tensor(v, dtype=torch.float32, device=device)
                    if k in cnn_keys:
                        torch_v = torch_v / 255.0 - 0.5
                    real_next_obs[k][i] = torch_v
            vals = player.get_values(real_next_obs).cpu().numpy()
            rewards[truncated_envs] += gamma * vals
        next_obs = {k: torch.as_tensor(obs[k], device=device) for k in obs_keys}


def rollout_fixed(envs, player, obs_keys, device, num_steps, next_obs):
    for _ in range(num_steps):
        real_actions = player(next_obs).cpu().numpy()
        obs, rewards, terminated, truncated, info = envs.step(real_actions)
        idx = np.nonzero(truncated)[0]
        final = {k: np.stack([info["final_obs"][i][k] for i in idx]) for k in obs_keys}
        for k, v in final.items():
            final[k] = torch.as_tensor(v, dtype=torch.float32, device=device)
        player.get_values(final)
        next_obs = obs


def gpu_simulator(envs, policy, device, obs):
    for _ in range(10):
        actions = policy(obs)
        obs, rewards, dones, info = envs.step(actions)
        for k, v in info["extras"].items():
            policy.log(k, torch.as_tensor(v, dtype=torch.float32, device=device))


class Wrapper:
    def run(self, policy, device, obs):
        for _ in range(10):
            obs, rewards, dones, info = self.step(policy(obs).cpu().numpy())
            for k, v in info.items():
                policy.log(k, torch.as_tensor(v, device=device))
"""


LAZY_STACK = """
class LazyStack:
    def __init__(self, *tds):
        self.tds = list(tds)

    def pin_memory(self):
        \"\"\"Pins the stacked tensordicts.\"\"\"
        for td in self.tds:
            td.pin_memory()
        return self
"""

CUSTOM_BATCH = """
class Batch:
    def __init__(self, inp, tgt):
        self.inp, self.tgt = inp, tgt

    def pin_memory(self):
        self.inp = self.inp.pin_memory()
        self.tgt = self.tgt.pin_memory()
        return self


def collate_and_pin(batch):
    batch.pin_memory()
    return batch
"""


def _found(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str, str]]:
    write_files(tmp_path, {"pkg/__init__.py": "", **files})
    return sorted(
        (r["filename"].rsplit("/", 1)[-1], r["location"]["row"], r["code"], r["confidence"])
        for r in lint_project(tmp_path, "ALL")
    )


def test_values_of_a_host_simulators_outputs_are_host_data(tmp_path: Path) -> None:
    # The per-environment, per-key copy of the final observations (SheepRL 0.6.1's PPO/A2C);
    # the whole observation copied once per step, the stacked post-fix copy of a local mapping,
    # a GPU simulator's extras (handed a tensor action) and the object's own `self.step` stay
    # clean.
    assert _found(tmp_path, {"pkg/rollout.py": ROLLOUT}) == [
        ("rollout.py", 19, "HTD106", "high"),
    ]


def test_a_modules_drop_only_pin_memory_is_no_in_place_pinner(tmp_path: Path) -> None:
    # The lazy stack's dropped pins are reported; a batch whose pin_memory assigns its pinned
    # fields pins in place, so its dropped-looking call stays clean.
    assert _found(tmp_path, {"pkg/lazy.py": LAZY_STACK, "pkg/batch.py": CUSTOM_BATCH}) == [
        ("lazy.py", 9, "HTD102", "medium"),
    ]
