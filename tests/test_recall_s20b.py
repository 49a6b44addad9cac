"""The facts behind session 20's held-out rows of model code (docs/recall.md, "Session 20:
held-out rows, model code (helper recall20b)"): a module-level host tensor moved to the device
inside a function is the same copy on every call (kornia 0.8's ``rad2deg``/``deg2rad`` copied
the module constant ``pi``), whether the module binds it or imports it from another module of
the project; each beside the correct look-alikes."""

from __future__ import annotations

import textwrap
from pathlib import Path

from lint_runs import lint, lint_project


def _findings(code: str, rule_code: str = "HTD301") -> list[tuple[int, str]]:
    return [(f.start.row, f.message) for f in lint(code, rule_code)]


def test_module_constant_moved_per_call() -> None:
    code = """
        import torch
        pi = torch.tensor(3.14159265358979323846)
        EYE = torch.eye(3)
        def rad2deg(tensor):
            return 180.0 * tensor / pi.to(tensor.device).type(tensor.dtype)
        def rotate(x):
            return EYE.cuda() @ x
    """
    found = _findings(code)
    assert [row for row, _ in found] == [6, 8]
    assert "module-level host tensor `pi`" in found[0][1]
    assert "every call" in found[1][1]


def test_module_constant_look_alikes() -> None:
    code = """
        import math
        import torch
        pi = torch.tensor(math.pi)
        SCALE = 2.0
        TABLE = torch.tensor(load_table())
        ON_DEVICE = torch.tensor(1.0, device="cuda")
        TWICE = torch.ones(3)
        TWICE = torch.zeros(3)
        AT_IMPORT = pi.to("cuda")
        _cache = {}
        def rad2deg(tensor):
            return tensor * (180.0 / math.pi)
        def unknown(x):
            return TABLE.to(x.device), ON_DEVICE.to(x.device), TWICE.to(x.device)
        def cached(x):
            if x.device not in _cache:
                _cache[x.device] = pi.to(x.device)
            return _cache[x.device]
        def shadowed(x, pi):
            return pi.to(x.device)
        class M(torch.nn.Module):
            def __init__(self, device):
                super().__init__()
                self.pi = pi.to(device)
    """
    assert _findings(code) == []


def test_module_constant_imported_from_the_project(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "constants.py").write_text(
        "import torch\npi = torch.tensor(3.14159265358979323846)\nscale = 2.0\n"
    )
    (package / "conversions.py").write_text(
        textwrap.dedent(
            """
            import torch
            from pkg.constants import pi, scale
            from .constants import pi as PI
            def rad2deg(tensor):
                return 180.0 * tensor / pi.to(tensor.device).type(tensor.dtype)
            def deg2rad(tensor):
                return tensor * PI.to(tensor.device) / 180.0
            def scaled(tensor):
                return tensor * torch.as_tensor(scale).to(tensor.device)
            """
        )
    )
    found = sorted(
        (r["location"]["row"], r["message"])
        for r in lint_project(tmp_path, "HTD301")
        if "module-level" in r["message"]
    )
    assert [row for row, _ in found] == [6, 8]


def test_invariant_copy_per_element_of_a_joined_comprehension() -> None:
    code = """
        import torch
        class Mosaic:
            def forward(self, batch_shape: tuple[int, ...], device):
                batch_size = batch_shape[0]
                return torch.stack(
                    [torch.as_tensor(batch_shape[1:], device=device) for _ in range(batch_size)]
                )
    """
    found = _findings(code, "HTD302")
    assert [row for row, _ in found] == [7]
    assert "only for `stack` to join the copies" in found[0][1]


def test_joined_comprehension_look_alikes() -> None:
    code = """
        import torch
        def f(shape: tuple[int, ...], rows: list[list[int]], boxes, n, device):
            kept = [torch.as_tensor(shape, device=device) for _ in range(n)]
            per_row = torch.stack([torch.as_tensor(r, device=device) for r in rows])
            per_item = torch.stack([torch.as_tensor(shape[i], device=device) for i in range(n)])
            moved = torch.cat([b.to(device) for b in boxes])
            once = torch.as_tensor(shape, device=device).expand(n, -1)
            unknown = torch.stack([torch.as_tensor(boxes, device=device) for _ in range(n)])
            return kept, per_row, per_item, moved, once, unknown
    """
    assert _findings(code, "HTD302") == []


def _check_project(root: Path, select: str) -> list[tuple[str, int, str]]:
    return sorted(
        (Path(r["filename"]).name, r["location"]["row"], r["message"])
        for r in lint_project(root, select)
    )


def test_helper_imported_through_a_package_reexport_is_hot(tmp_path: Path) -> None:
    """torch-geometric's ``to_dense_batch`` and ``softmax`` are defined in private modules of
    ``torch_geometric.utils`` and imported from the package by the layers' ``forward``: the
    caller index follows the re-export, so the helper is hot through its callers."""
    package = tmp_path / "pkg"
    (package / "utils").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "utils" / "__init__.py").write_text(
        "from ._dense import to_dense\nfrom ._unused import cold\n"
    )
    (package / "utils" / "_dense.py").write_text(
        textwrap.dedent(
            """
            import torch
            def to_dense(x, batch, max_num_nodes):
                num_nodes = x.new_zeros(4)
                if num_nodes.max() > max_num_nodes:
                    x = x[:1]
                return x
            """
        )
    )
    (package / "utils" / "_unused.py").write_text(
        textwrap.dedent(
            """
            import torch
            def cold(x):
                n = x.new_zeros(4)
                if n.max() > 1:
                    x = x[:1]
                return x
            """
        )
    )
    (package / "conv.py").write_text(
        textwrap.dedent(
            """
            import torch
            from pkg.utils import to_dense, cold
            class GPSConv(torch.nn.Module):
                def forward(self, x, batch):
                    return to_dense(x, batch, 8)
            def setup(x):
                return cold(x)
            """
        )
    )
    found = _check_project(tmp_path, "HTD202")
    assert [(name, row) for name, row, _ in found] == [("_dense.py", 5)]
    assert "called from `GPSConv.forward()` in pkg.conv" in found[0][2]


def test_bincount_is_data_sized() -> None:
    code = """
        import torch
        class SegLoss(torch.nn.Module):
            def forward(self, preds, masks):
                target = masks.reshape(-1)[masks.reshape(-1) != 255].long()
                return torch.bincount(target, minlength=self.nc)
    """
    found = _findings(code, "HTD202")
    assert [row for row, message in found if "bincount" in message] == [6]


def test_environment_check_is_occasional(tmp_path: Path) -> None:
    """lmdeploy's ``check_env/triton.py`` makes two small tensors on the GPU once, to see that
    a Triton kernel runs: an environment check, not per-call code (HTD107's displays)."""
    code = """
        import torch
        def check(custom_add):
            a = torch.tensor([1, 2], device="cuda")
            return custom_add(a, a)
    """
    assert lint(code, "HTD107", path="pkg/check_env/triton.py") == []
    assert [f.start.row for f in lint(code, "HTD107", path="pkg/kernels/triton.py")] == [4]
