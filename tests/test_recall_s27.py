"""Session 27 (misses27): facts that come from another module of the project.

- HTD105's byte prefilter asked the file itself to say ``pin_memory``; a pinned buffer made in
  another module (a pool module's module-level staging tensor, a helper that allocates pinned)
  is proven pinned by the project index, so a file that only imports and copies it is checked
  too.
"""

from __future__ import annotations

from pathlib import Path

from lint_runs import lint, lint_project, write_files


def _check_package(
    tmp_path: Path, files: dict[str, str], *codes: str
) -> list[tuple[str, int, str]]:
    write_files(tmp_path, files)
    return sorted(
        (r["filename"].rsplit("/", 1)[-1], r["location"]["row"], r["code"])
        for r in lint_project(tmp_path, *codes)
    )


_POOL = """
    import torch
    STAGING = torch.empty(4096, dtype=torch.int32, pin_memory=True)
    SCRATCH = torch.empty(4096, dtype=torch.int32)
    def make_host(n):
        return torch.empty(n, dtype=torch.int64, pin_memory=True)
"""


def test_a_pinned_buffer_of_another_module_copied_blocking(tmp_path: Path) -> None:
    found = _check_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/pool.py": _POOL,
            "pkg/upload.py": """
                import torch
                from pkg.pool import SCRATCH, STAGING, make_host
                def upload(table, device):
                    n = len(table)
                    STAGING[:n].copy_(torch.tensor(table, dtype=torch.int32))
                    return STAGING[:n].to(device)
                def upload_scratch(table, device):
                    n = len(table)
                    SCRATCH[:n].copy_(torch.tensor(table, dtype=torch.int32))
                    return SCRATCH[:n].to(device)
                def upload_given(values, device):
                    return values.to(device)
                def upload_slots(slots, device):
                    host = make_host(len(slots))
                    host.copy_(torch.tensor(slots))
                    return host.to(device)
            """,
        },
        "HTD105",
    )
    # The pageable scratch buffer and a tensor of unknown placement are left alone.
    assert found == [("upload.py", 7, "HTD105"), ("upload.py", 17, "HTD105")]


def test_a_method_reached_through_an_attribute_typed_as_the_framework_base(
    tmp_path: Path,
) -> None:
    """``self.model.embed(...)`` of ``model: nn.Module``, from a runner's per-step helper
    (``execute_model`` -> ``self._encode()`` -> ``self.model.embed()``) reaches the model's
    ``embed`` and what it calls in a third module; a method the runner calls only from
    ``__init__`` (``warm_up``), or one no runner calls, stays cold."""
    utils = """
        import torch
        def sizes(grid: torch.Tensor) -> list[int]:
            return grid.prod(-1).tolist()
        def warm_sizes(grid: torch.Tensor) -> list[int]:
            return grid.prod(-1).tolist()
        def other_sizes(grid: torch.Tensor) -> list[int]:
            return grid.prod(-1).tolist()
    """
    model = """
        import torch
        import torch.nn as nn
        from pkg.utils import other_sizes, sizes, warm_sizes
        class Model(nn.Module):
            def embed(self, grid: torch.Tensor):
                return sizes(grid)
            def warm_up(self, grid: torch.Tensor):
                return warm_sizes(grid)
            def unused(self, grid: torch.Tensor):
                return other_sizes(grid)
    """
    runner = """
        import torch
        import torch.nn as nn
        class Runner:
            def __init__(self, model: nn.Module, grid: torch.Tensor) -> None:
                self.model = model
                self.model.warm_up(grid)
            def _encode(self, grid: torch.Tensor):
                return self.model.embed(grid)
            def execute_model(self, grid: torch.Tensor):
                return self._encode(grid)
    """
    found = _check_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/utils.py": utils,
            "pkg/model.py": model,
            "pkg/runner.py": runner,
        },
        "HTD202",
    )
    assert found == [("utils.py", 4, "HTD202")]


def test_torchscript_arm_of_a_device_test() -> None:
    """``torch.jit.is_scripting() or not x.is_cuda`` holds only off CUDA when Python runs the
    code; ``flag or not x.is_cuda`` does not."""
    import libcst as cst

    from h2dlint.analysis.device_branches import holds_on_cuda, only_off_cuda

    def test(text: str) -> cst.BaseExpression:
        return cst.parse_expression(text)

    assert only_off_cuda(test("torch.jit.is_scripting() or not x.is_cuda"))
    assert only_off_cuda(test("not x.is_cuda or jit.is_scripting()"))
    assert not only_off_cuda(test("flag or not x.is_cuda"))
    assert holds_on_cuda(test("torch.jit.is_scripting() or x.is_cuda"))
    assert not only_off_cuda(test("torch.jit.is_scripting()"))


def test_unpinned_loader_batches_of_another_module_passed_as_a_parameter(tmp_path: Path) -> None:
    """``train, val = make_loaders(...)`` of another module; ``evaluate(val)`` copies each
    batch's fields with ``non_blocking=True``: the workers' batches are pageable. The pinned
    train loader's batches, and a loader one of whose callers passes a pinned one, are not."""
    data = """
        import torch
        from torch.utils.data import DataLoader
        def collate(samples):
            return {"x": torch.stack([s["x"] for s in samples])}
        def make_loaders(train_set, val_set, workers: int = 4):
            train = DataLoader(train_set, num_workers=workers, pin_memory=True, collate_fn=collate)
            val = DataLoader(val_set, num_workers=2, collate_fn=collate)
            return train, val
    """
    train = """
        from pkg.data import make_loaders
        def evaluate(loader, device):
            for batch in loader:
                x = batch["x"].to(device, non_blocking=True)
        def train_epoch(loader, device):
            for batch in loader:
                x = batch["x"].to(device, non_blocking=True)
        def mixed(loader, device):
            for batch in loader:
                x = batch["x"].to(device, non_blocking=True)
        def fit(train_set, val_set, device):
            train_loader, val_loader = make_loaders(train_set, val_set)
            train_epoch(train_loader, device)
            evaluate(val_loader, device)
            mixed(train_loader, device)
            mixed(val_loader, device)
    """
    found = _check_package(
        tmp_path, {"pkg/__init__.py": "", "pkg/data.py": data, "pkg/train.py": train}, "HTD102"
    )
    assert found == [("train.py", 5, "HTD102")]


def test_python_ints_by_annotation_index_a_pinned_pool_as_views() -> None:
    """Parameters, loop targets and list elements that annotations say are ints index a
    pinned tensor as numbers do (a view: still pinned), not as index tensors (a gather into a
    fresh pageable tensor); a ``tuple[int, str]`` element or a bare parameter says nothing."""

    code = """
        import torch
        POOL = torch.zeros(64, 8, pin_memory=True)
        def f(i: int, ids: list[int], t: tuple[int, ...], pair: tuple[int, str], x, dev):
            for a, b in zip(ids, ids):
                POOL[a].to(dev)
            POOL[i].to(dev)
            POOL[ids[0]].to(dev)
            POOL[t[0]].to(dev)
            POOL[pair[0]].to(dev)
            POOL[x].to(dev)
    """
    found = lint(code, "HTD105")
    assert sorted(f.start.row for f in found) == [6, 7, 8, 9]


def test_a_callee_reached_only_through_an_off_cuda_arm_is_not_hot(tmp_path: Path) -> None:
    """gptqmodel's ``forward``: ``if x.device.type == "cpu": return self._cpu_forward(x)``:
    what ``_cpu_forward`` calls in another module runs on CPU tensors; what the CUDA arm calls
    runs per step on the GPU."""
    utils = """
        import torch
        def cpu_scale(s: torch.Tensor) -> float:
            return s.max().item()
        def gpu_scale(s: torch.Tensor) -> float:
            return s.max().item()
    """
    layer = """
        import torch
        from pkg.utils import cpu_scale, gpu_scale
        class Layer(torch.nn.Module):
            def _cpu_path(self, x: torch.Tensor):
                return x * cpu_scale(x)
            def _gpu_path(self, x: torch.Tensor):
                return x * gpu_scale(x)
            def forward(self, x: torch.Tensor):
                if x.device.type == "cpu":
                    return self._cpu_path(x)
                return self._gpu_path(x)
    """
    found = _check_package(
        tmp_path, {"pkg/__init__.py": "", "pkg/utils.py": utils, "pkg/layer.py": layer}, "HTD202"
    )
    assert found == [("layer.py", 8, "HTD202"), ("utils.py", 6, "HTD202")], found
