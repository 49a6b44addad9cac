"""The analysis facts behind session 33's blind-style triage (docs/precision.md, "Session 33
(triage33)"), each with its twin that must keep its verdict:

- a reduction of numpy data as a ``while`` test (``(counts < targets).any()`` of two numpy
  arrays: sb3-contrib's maskable ``evaluate_policy``) is numpy's, not a tensor's;
- a project's module-level alias of a numpy array type (``NDArray = npt.NDArray[Any]`` in
  d3rlpy's ``types.py``, imported by its algorithm protocol) says a numpy array, as
  ``np.ndarray`` does, in the module that binds it and in the modules that import it."""

from __future__ import annotations

from pathlib import Path

from lint_runs import lint, lint_project, write_files

EVALUATE = """
    import numpy as np
    import torch
    def evaluate(model, env, n_envs: int, n_episodes: int{extra}):
        counts = np.zeros(n_envs, dtype="int")
        targets = {targets}
        obs = env.reset()
        while {test}:
            actions, _ = model.predict(obs)
            obs, rewards, dones, infos = env.step(actions)
            for i in range(n_envs):
                if dones[i]:
                    counts[i] += 1
        return counts
"""


def _while_rows(targets: str, test: str, extra: str = "") -> list[int]:
    code = EVALUATE.format(targets=targets, test=test, extra=extra)
    return [f.start.row for f in lint(code, "HTD201")]


def test_a_numpy_reduction_as_a_while_test_is_a_host_read() -> None:
    numpy_targets = "np.array([(n_episodes + i) // n_envs for i in range(n_envs)])"
    assert _while_rows(numpy_targets, "(counts < targets).any()") == []
    assert _while_rows(numpy_targets, "(counts + 1 < targets).all()") == []
    assert _while_rows("n_episodes", "(counts < targets).any()") == []
    assert _while_rows("n_episodes", "counts.any()") == []


def test_a_reduction_with_a_tensor_operand_stays_a_tensor_read() -> None:
    # numpy defers to `torch.Tensor`'s operators: the comparison is a tensor.
    extra = ", limits: torch.Tensor"
    assert _while_rows("limits", "(counts < targets).any()", extra) == [8]
    # A parameter of unknown kind compared with a number: reported as before (MEDIUM).
    assert _while_rows("n_episodes", "(obs < targets).any()") == [8]


ALGO = """
    from typing import Any, Protocol
    from .types import NDArray
    class AlgoProtocol(Protocol):
        def predict_value(self, x: NDArray, action: NDArray) -> NDArray: ...
"""
EVALUATOR = """
    import numpy as np
    from ..interface import AlgoProtocol
    class SoftOPCEvaluator:
        def __call__(self, algo: AlgoProtocol, dataset) -> float:
            all_values = []
            for episode in dataset.episodes:
                for batch in episode.batches():
                    values = algo.predict_value(batch.observations, batch.actions)
                    all_values += values.reshape(-1).tolist()
            return float(np.mean(all_values))
"""


def _project(tmp_path: Path, alias: str) -> list[tuple[str, int]]:
    write_files(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/types.py": f"""
                from typing import Any
                import numpy as np
                import numpy.typing as npt
                import torch
                NDArray = {alias}
            """,
            "pkg/interface.py": ALGO,
            "pkg/metrics/__init__.py": "",
            "pkg/metrics/evaluators.py": EVALUATOR,
        },
    )
    records = lint_project(tmp_path, "HTD202")
    return [(Path(r["filename"]).name, r["location"]["row"]) for r in records]


def test_an_imported_numpy_alias_returns_host_data(tmp_path: Path) -> None:
    assert _project(tmp_path, "npt.NDArray[Any]") == []


def test_an_imported_tensor_alias_still_reports(tmp_path: Path) -> None:
    assert _project(tmp_path, "torch.Tensor") == [("evaluators.py", 10)]


def test_an_alias_bound_twice_says_nothing(tmp_path: Path) -> None:
    # `NDArray` rebound (a fallback import, a later redefinition): no single value to trust.
    alias = "npt.NDArray[Any]\n                NDArray = torch.Tensor"
    assert _project(tmp_path, alias) == [("evaluators.py", 10)]
