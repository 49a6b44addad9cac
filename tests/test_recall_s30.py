"""Session 30 (recall30): a strategy object the caller passes, and its state.

- A parameter is typed by the objects its module's calls pass it (``project/passed_classes.py``):
  ``self._decode(batch, strategy)`` of ``strategy = GreedySearch(...)`` makes
  ``strategy.update_finished()`` a call of ``GreedySearch.update_finished`` for the caller
  index.
- A ``for`` loop over a ``range`` of steps whose own body calls the model is a loop of steps for
  the project's callers too (``analysis/step_loops.py``): what it calls runs per decoded token.
- ``self.<attr>`` is a tensor when every assignment of it in its class is one
  (``tensor_kinds.own_tensor_attribute``: ``self.is_finished = topk_ids.eq(eos)``).
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path
from typing import Any

from lint_runs import lint, lint_project, write_files

from h2dlint.project.call_edges import call_edges

STRATEGY = """
    import torch

    class GreedySearch:
        def advance(self, log_probs):
            topk_ids, self.topk_scores = self._pick(log_probs)
            self.is_finished = topk_ids.eq(self.eos)
            self.alive_seq = torch.cat([self.alive_seq, topk_ids], -1)

        def update_finished(self):
            finished = self.is_finished.view(-1).nonzero()
            return finished
"""
TRANSLATOR = """
    from pkg.strategy import GreedySearch

    class Translator:
        def translate_batch(self, batch):
            if self.sample:
                strategy = GreedySearch(eos=2)
            else:
                strategy = GreedySearch(eos=3)
            return self._decode(batch, strategy)

        def _decode(self, batch, strategy):
            for step in {bounds}:
                log_probs = self.model.decoder(batch)
                strategy.advance(log_probs)
                strategy.update_finished()
"""


def _found(records: list[dict[str, Any]], code: str = "HTD202") -> list[tuple[str, int]]:
    return sorted(
        (r["filename"].rsplit("/", 1)[-1], r["location"]["row"])
        for r in records
        if r["code"] == code
    )


def _project(root: Path, bounds: str = "range(self.max_length)", passed: str = "") -> None:
    translator = TRANSLATOR.replace("{bounds}", bounds)
    if passed:
        translator = translator.replace("for step in", f"strategy = {passed}\n        for step in")
    write_files(
        root,
        {
            "pkg/__init__.py": "",
            "pkg/strategy.py": STRATEGY,
            "pkg/translator.py": translator,
        },
    )


def test_a_strategy_passed_to_a_decoding_loop_runs_per_step(tmp_path: Path) -> None:
    _project(tmp_path)
    assert _found(lint_project(tmp_path, "HTD202")) == [("strategy.py", 11)]


def test_a_loop_over_a_collections_positions_is_no_decoding_loop(tmp_path: Path) -> None:
    _project(tmp_path, bounds="range(len(batch))")
    assert _found(lint_project(tmp_path, "HTD202")) == []


def test_a_parameter_the_function_rebinds_keeps_no_class(tmp_path: Path) -> None:
    _project(tmp_path, passed="self.strategies[0]")
    assert _found(lint_project(tmp_path, "HTD202")) == []


def _edges(code: str) -> dict[str, list[str]]:
    parts = call_edges(ast.parse(textwrap.dedent(code)))
    return {
        f"{cls}.{name}" if cls else name: [callee for callee, _ in callees]
        for name, cls, callees in parts["functions"]
    }


def test_call_edges_type_a_parameter_by_what_the_module_passes() -> None:
    edges = _edges(TRANSLATOR.replace("{bounds}", "range(9)"))
    assert "GreedySearch.update_finished" in edges["Translator._decode"]
    # a top-level helper handed an object by a top-level function, by keyword
    edges = _edges(
        """
        from pkg.strategy import GreedySearch

        def run(x):
            helper(x, strategy=GreedySearch())

        def helper(x, strategy):
            strategy.update_finished()
        """
    )
    assert edges["helper"] == ["GreedySearch.update_finished"]


def test_an_attribute_also_assigned_other_values_is_no_tensor() -> None:
    code = """
        import torch

        class Search:
            def __init__(self):
                self.done = []

            def advance(self, ids: torch.Tensor):
                self.done = ids.eq(2)

            def step(self):
                return self.done.nonzero()
    """
    assert lint(code, "HTD202") == []
    assert [f.start.row for f in lint(code.replace("self.done = []", "pass"), "HTD202")] == [12]


def test_a_view_of_a_mask_attribute_is_a_mask() -> None:
    code = """
        import torch

        class Search:
            def advance(self, ids: torch.Tensor):
                self.is_finished = ids.eq(2)

            def step(self, seq: torch.Tensor):
                return seq[~self.is_finished.view(-1)]
    """
    assert [f.start.row for f in lint(code, "HTD202")] == [9]
    # also assigned an index tensor: no mask
    other = code.replace(
        "self.is_finished = ids.eq(2)",
        "self.is_finished = ids.eq(2)\n                self.is_finished = ids.argmax(-1)",
    )
    assert lint(other, "HTD202") == []


def test_a_pair_unpacked_from_a_helper_returning_tensors() -> None:
    code = """
        import torch
        from torch import Tensor

        class Sampler:
            def step(self, nu: Tensor) -> Tensor:
                theta, delta = self._active(nu)
                if delta[0] == -1:
                    return theta
                return nu

            def _active(self, theta: Tensor) -> Tensor:
                d = (theta > 0).to(dtype=int).diff()
                return theta, {second}
    """
    assert [f.start.row for f in lint(code.replace("{second}", "d"), "HTD202")] == [8]
    assert lint(code.replace("{second}", "[1, -1]"), "HTD202") == []
    assert lint(code.replace("{second}", "d, d"), "HTD202") == []  # another length
