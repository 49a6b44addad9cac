"""Session 29 (chain29): facts that come from the callers' callers.

- A call whose argument another module's summary cannot place (code ``?``: a parameter of the
  calling function, a model's output) is found again in that module's tree and asked about
  there (``analysis/chained_arguments.py``), which follows the calling function's own
  parameters to their callers, a bounded number of steps.
- An ``nn.Module``'s ``forward`` is called through its objects (``self.sampler(logits)``):
  the ``passes`` summary part records those calls and the classes whose objects escape
  (``project/instance_escapes.py``), and argument flow places ``forward``'s parameters by them
  when every object of the class stays where it was made.
- ``Model(...).to(device)`` (``.cuda()``, ``.eval()``) is still an object of the class.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from lint_runs import ROOT, lint, lint_project, write_files

from h2dlint.project.passed_args import object_escapes, passed_arguments

PROCESSOR = """
    import torch

    class MinTokens:
        def apply(self, logits: torch.Tensor, stops: dict[int, list[int]]) -> torch.Tensor:
            for row, stop_ids in stops.items():
                logits[row, stop_ids] = float("-inf")
            return logits
"""
SAMPLER = """
    import torch
    import torch.nn as nn

    from pkg.processors import MinTokens

    class Sampler(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.min_tokens = MinTokens()

        def forward(self, logits: torch.Tensor, stops: dict[int, list[int]]) -> torch.Tensor:
            logits = self.min_tokens.apply(logits, stops)
            return logits.argmax(-1)
"""
RUNNER = """
    import torch
    import torch.nn as nn

    from pkg.sampler import Sampler

    class Runner:
        def __init__(self) -> None:
            self.lm_head = nn.Linear(64, 1000).cuda()
            self.sampler = {made}

        def execute_model(self, hidden: torch.Tensor, stops: dict[int, list[int]]):
            logits = self.lm_head(hidden)
            return {call}
"""


def _project(tmp_path: Path, made: str = "Sampler().cuda()", call: str = "", **extra: str) -> None:
    runner = RUNNER.format(made=made, call=call or "self.sampler(logits, stops)")
    write_files(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/processors.py": PROCESSOR,
            "pkg/sampler.py": SAMPLER,
            "pkg/runner.py": runner,
            **extra,
        },
    )


def _found(records: list[dict[str, Any]], code: str = "HTD202") -> list[tuple[str, int]]:
    return sorted(
        (r["filename"].rsplit("/", 1)[-1], r["location"]["row"])
        for r in records
        if r["code"] == code
    )


def test_forward_reached_through_the_object_places_its_parameter(tmp_path: Path) -> None:
    _project(tmp_path)
    assert _found(lint_project(tmp_path, "HTD202")) == [("processors.py", 7)]


def test_an_object_that_escapes_leaves_forward_unknown(tmp_path: Path) -> None:
    _project(tmp_path, made="torch.compile(Sampler())")
    assert _found(lint_project(tmp_path, "HTD202")) == []


def test_objects_in_a_module_list_leave_forward_unknown(tmp_path: Path) -> None:
    _project(
        tmp_path,
        made="nn.ModuleList([Sampler()])",
        call="[s(logits, stops) for s in self.sampler]",
    )
    assert _found(lint_project(tmp_path, "HTD202")) == []


def test_a_subclass_leaves_forward_unknown(tmp_path: Path) -> None:
    greedy = """
        from pkg.sampler import Sampler

        class Greedy(Sampler):
            pass

        def make() -> Sampler:
            return Sampler()
    """
    _project(tmp_path, **{"pkg/greedy.py": greedy})
    assert _found(lint_project(tmp_path, "HTD202")) == []


def test_objects_made_through_another_name_leave_forward_unknown(tmp_path: Path) -> None:
    # A module that names the class without calling it (``sampler_cls = Sampler if ...``)
    # makes its objects under another name, and hands them on: their calls are unseen.
    factory = """
        from pkg.sampler import Sampler

        def make_sampler(greedy: bool):
            sampler_cls = Sampler if greedy else None
            return sampler_cls()
    """
    _project(tmp_path, **{"pkg/factory.py": factory})
    assert _found(lint_project(tmp_path, "HTD202")) == []


def test_a_host_argument_at_the_callers_caller_is_not_the_device(tmp_path: Path) -> None:
    _project(tmp_path, call="self.sampler(logits.float().cpu(), stops)")
    assert ("processors.py", 7) not in _found(lint_project(tmp_path, "HTD202"))


def test_a_class_no_module_makes_keeps_forward_unknown(tmp_path: Path) -> None:
    # Only its users (outside the project) make and call it.
    _project(tmp_path, made="None", call="logits")
    assert _found(lint_project(tmp_path, "HTD202")) == []


def test_a_parameter_chained_through_plain_functions(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/move.py": """
                def to_gpu(x, device):
                    return x.to(device, non_blocking=True)
            """,
            "pkg/stage.py": """
                from pkg.move import to_gpu

                def stage(batch, device):
                    return to_gpu(batch, device)
            """,
            "pkg/loop.py": """
                import numpy as np
                import torch

                from pkg.stage import stage

                def run(arrays: list[np.ndarray]):
                    for arr in arrays:
                        stage(torch.from_numpy(arr), "cuda")
            """,
        },
    )
    assert _found(lint_project(tmp_path, "HTD102"), "HTD102") == [("move.py", 3)]


def test_callers_that_call_each_other_end(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": """
                from pkg import b

                def f(x, n):
                    if n:
                        return b.g(x, n - 1)
                    return x.to("cuda", non_blocking=True)
            """,
            "pkg/b.py": """
                from pkg import a

                def g(x, n):
                    return a.f(x, n)
            """,
        },
    )
    assert _found(lint_project(tmp_path, "HTD102"), "HTD102") == []


def test_the_summary_records_object_calls_and_escapes() -> None:
    tree = ast.parse(
        textwrap.dedent(
            """
            import torch
            from pkg.sampler import Sampler, Other, Kept
            class Runner:
                def __init__(self):
                    self.sampler = Sampler().to("cuda").eval()
                    self.other = Other()
                    self.kept = Kept()
                    wrap(self.other)
                def step(self, x):
                    y = self.sampler(x.cpu())
                    if isinstance(y, Kept):
                        return self.kept.value
                    return y
            """
        )
    )
    part = passed_arguments(tree)
    assert part["objects"] == [["Sampler.__call__", 11, "sampler", "c", ""]]
    kept = object_escapes(tree)
    assert kept["escapes"] == ["Other"]
    assert kept["made"] == ["Kept", "Other", "Sampler"]


def test_a_module_moved_by_to_keeps_its_class() -> None:
    code = """
        import torch
        import torch.nn as nn

        class Head(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.proj = nn.Linear(8, 8)

            def logits(self, h: torch.Tensor) -> torch.Tensor:
                return self.proj(h)

        class Net(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.head = Head()

            def load(self) -> None:
                self.head = Head().to("cuda")

            def forward(self, h: torch.Tensor) -> torch.Tensor:
                y = self.head.logits(h)
                if y.any():
                    h = h * 2
                return h
    """
    assert [f.start.row for f in lint(code, "HTD202")] == [23]


def _cached(tmp_path: Path) -> list[tuple[str, int]]:
    command = ["check", "-j", "1", "--select", "HTD202", "--exit-zero"]
    command += ["--cache-dir", str(tmp_path / "cache"), "--output-format", "json", "pkg"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "h2dlint", *command],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return _found(json.loads(proc.stdout))


def test_a_cached_verdict_follows_the_callers_caller(tmp_path: Path) -> None:
    _project(tmp_path)
    assert _cached(tmp_path) == [("processors.py", 7)]
    _project(tmp_path, call="self.sampler(logits.cpu(), stops)")
    assert ("processors.py", 7) not in _cached(tmp_path)


def test_a_device_chosen_between_the_gpu_and_the_host_proves_nothing() -> None:
    code = """
        import torch

        class Dispatcher:
            def __init__(self, fused: bool, n: int) -> None:
                self.permute_idx_device = torch.device("cuda") if fused else "{other}"
                self.idx = torch.arange(n, device=self.permute_idx_device)

            def forward_step(self, x: torch.Tensor) -> torch.Tensor:
                return torch.cat([x[i] for i in self.idx.tolist()])
    """
    assert lint(code.replace("{other}", "cpu"), "HTD202") == []
    assert [f.start.row for f in lint(code.replace("{other}", "cuda:1"), "HTD202")] == [10]


DATACLASS = """
    from dataclasses import dataclass

    import torch

    @dataclass
    class Grids:
        thw: torch.Tensor
        scale: float = 1.0
"""
USER = """
    import torch

    from pkg.kwargs import Grids

    def collect(grids: list[list[int]]) -> Grids:
        return Grids({made})

    def prepare_inputs(grids: list[list[int]]) -> list[torch.Tensor]:
        mm = collect(grids)
        return [torch.arange(int(t * h * w)) for t, h, w in mm.thw]
"""


def _rows(tmp_path: Path, made: str, extra: str = "") -> list[tuple[str, int, str]]:
    write_files(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/kwargs.py": DATACLASS + extra,
            "pkg/user.py": USER.format(made=made),
        },
    )
    return [
        (r["filename"].rsplit("/", 1)[-1], r["location"]["row"], r.get("confidence") or "")
        for r in lint_project(tmp_path, "HTD201")
    ]


def test_a_dataclass_field_placed_by_its_constructions_in_another_module(tmp_path: Path) -> None:
    assert _rows(tmp_path, "torch.as_tensor(grids, dtype=torch.long)") == []
    assert _rows(tmp_path, 'torch.tensor(grids, device="cuda")') == [("user.py", 11, "high")]


def test_a_dataclass_used_as_a_factory_keeps_its_field_unknown(tmp_path: Path) -> None:
    factory = """
    def make(kind=Grids):
        return kind(torch.zeros(3, 3))
    """
    rows = _rows(tmp_path, "torch.as_tensor(grids, dtype=torch.long)", factory)
    assert rows == [("user.py", 11, "medium")]


def test_python_data_annotations() -> None:
    import libcst as cst

    from h2dlint.analysis.python_annotations import python_data

    def says(text: str) -> bool:
        return python_data(cst.parse_expression(text))

    assert says("list[list[int]]") and says("tuple[int, ...]") and says("Sequence[float] | None")
    assert says("Optional[List[int]]") and says("int")
    assert not says("list[torch.Tensor]") and not says("None") and not says("np.ndarray")
    assert not says("dict[int, int]") and not says("'list[int]'")
