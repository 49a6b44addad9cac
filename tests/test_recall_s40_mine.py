"""Session 40 (mine40): an override a base class's ``forward`` calls on ``self``; a reduction's
value bound to a name and then tested.

tabpfn 6.4.1's encoder steps: ``TorchPreprocessingStep.forward`` (one module) calls
``self._transform(...)``, which each subclass (another module) overrides; the override of
``RemoveEmptyFeaturesEncoderStep`` reads a device count per batch row (upstream removed the
reads in 7.1). The callers index resolved ``self._transform`` to the base's own method only
(``project/override_callers.py``). liger-kernel 0.5.0's fused linear cross-entropy bound
``total = (target != ignore_index).sum()`` and tested ``if total > 0`` on every chunk, which
upstream replaced; the same test written inline (``if t.sum() > 0``) was reported already.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lint_runs import lint, lint_project, write_files

BASE = """
    import torch
    from torch import nn

    class Step(nn.Module):
        def {entry}(self, x):
            return self._transform(x)

        def _transform(self, x):
            raise NotImplementedError
"""
SUB = """
    import torch
    from pkg.base import Step

    class Select(Step):
        def _transform(self, x):
            counts = self.mask.sum(dim=-1)
            for b in range(x.shape[1]):
                s = int(counts[b])
                x[:, b, s:] = 0
            return x
"""


def _found(records: list[dict[str, Any]]) -> list[tuple[str, int, str]]:
    return sorted(
        (r["filename"].rsplit("/", 1)[-1], r["location"]["row"], r["code"]) for r in records
    )


def test_an_override_the_base_forward_calls_on_self_is_hot(tmp_path: Path) -> None:
    base = BASE.replace("{entry}", "forward")
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/base.py": base, "pkg/sub.py": SUB})
    assert _found(lint_project(tmp_path, "HTD201")) == [("sub.py", 9, "HTD201")]


def test_an_override_the_base_calls_from_a_cold_method_is_not_hot(tmp_path: Path) -> None:
    # ``setup`` runs once: the override it calls on ``self`` is no per-step code.
    base = BASE.replace("{entry}", "setup")
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/base.py": base, "pkg/sub.py": SUB})
    assert _found(lint_project(tmp_path, "HTD201")) == []


def test_a_method_of_an_unrelated_class_is_not_hot_through_the_base(tmp_path: Path) -> None:
    # Same method name, but the class does not subclass ``Step``.
    sub = SUB.replace("class Select(Step):", "class Select:")
    base = BASE.replace("{entry}", "forward")
    write_files(tmp_path, {"pkg/__init__.py": "", "pkg/base.py": base, "pkg/sub.py": sub})
    assert _found(lint_project(tmp_path, "HTD201")) == []


LOSS = """
import torch

def fused_loss_forward(logits, target, ignore_index=-100):
    total = {total}
    out = []
    for start in range(0, logits.shape[0], 1024):
        chunk = logits[start : start + 1024].float()
        alpha = chunk.shape[0] / total if total > 0 else 0.0
        out.append(chunk * alpha)
    return torch.cat(out)
"""


def _rows(code: str) -> list[int]:
    return sorted(f.start.row for f in lint(code, "HTD202"))


def test_a_bound_reduction_tested_per_chunk_is_a_sync() -> None:
    assert _rows(LOSS.format(total="(target != ignore_index).sum()")) == [9]


def test_a_bound_host_count_tested_per_chunk_is_no_sync() -> None:
    # ``len()`` and numpy's reductions give host numbers; Python's ``sum()`` is no method.
    assert _rows(LOSS.format(total="len(target)")) == []
    assert _rows(LOSS.format(total="sum(t != ignore_index for t in target)")) == []
    code = "import numpy as np\n" + LOSS.format(total="(np.asarray(target) != ignore_index).sum()")
    assert _rows(code) == []


ANCESTRAL = """
from tqdm.auto import trange

def sample_ancestral(model, x, sigmas, s_churn=0.0, s_tmin=0.0, s_tmax=1e9):
    s_in = x.new_ones([x.shape[0]])
    for i in trange(len(sigmas) - 1):
        gamma = min(s_churn, 0.4) if s_tmin <= sigmas[i] <= s_tmax else 0.0
        sigma_hat = sigmas[i] * (gamma + 1)
        x = model(x, sigma_hat * s_in)
        sigma_down, sigma_up = get_ancestral_step(sigma_hat, sigmas[i + 1])
        if gamma > 0:
            x = x * 2
        step = float(sigmas[i + 1])
        if step == 0:
            break
        if sigma_down == 0:
            x = x + sigma_up
    return x
"""


def test_a_name_bound_from_schedule_elements_is_read_every_step() -> None:
    # Reported: the churn gate's element test (7), `float()` of an element (13) and
    # `sigma_down`, a helper's result of two elements (16); not `gamma` (the churn gate
    # chooses between host numbers) nor `step` (a host number made by `float()`).
    assert _rows(ANCESTRAL) == [7, 13, 16]
