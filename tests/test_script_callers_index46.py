"""A repository's scripts make its package's functions hot (session 46,
``h2dlint/project/script_folders.py``): the same verdict whichever of the repository's files
one call checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from lint_runs import write_files

from h2dlint.cli import main
from h2dlint.project.roots import layout_of

METRICS = """
    import torch


    def running_loss(loss: torch.Tensor, history: list[float]) -> None:
        history.append(loss.item())
"""

TRAIN = """
    import torch

    from pkg.metrics import running_loss


    def main() -> None:
        model = torch.nn.Linear(4, 1).cuda()
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        history: list[float] = []
        for _ in range(100):
            loss = model(torch.randn(8, 4, device="cuda")).pow(2).mean()
            loss.backward()
            opt.step()
            opt.zero_grad()
            running_loss(loss, history)
"""


def _rows(root: Path, target: str) -> set[tuple[str, int]]:
    args = ["-j1", "--no-cache", "--exit-zero", "--output-format", "json", "--select", "HTD202"]
    result = CliRunner().invoke(main, [*args, str(root / target)], catch_exceptions=False)
    return {
        (Path(r["filename"]).resolve().relative_to(root.resolve()).as_posix(), r["location"]["row"])
        for r in json.loads(result.stdout)
    }


def _repository(root: Path, folder: str, marker: bool = True) -> None:
    files = {"pkg/__init__.py": "", "pkg/metrics.py": METRICS, f"{folder}/train.py": TRAIN}
    if marker:
        files["pyproject.toml"] = "[project]\nname = 'pkg'\n"
    write_files(root, files)


@pytest.mark.parametrize("target", [".", "pkg", "pkg/metrics.py"])
@pytest.mark.parametrize("folder", ["scripts", "examples", "benchmarks"])
def test_a_training_loop_in_a_script_folder_makes_the_package_function_hot(
    tmp_path: Path, target: str, folder: str
) -> None:
    _repository(tmp_path, folder)
    assert _rows(tmp_path, target) == {("pkg/metrics.py", 6)}


@pytest.mark.parametrize("target", [".", "pkg/metrics.py"])
def test_tests_and_folders_outside_a_distribution_are_no_callers(
    tmp_path: Path, target: str
) -> None:
    _repository(tmp_path, "tests")  # tests run functions case by case: no step
    assert _rows(tmp_path, target) == set()
    wheel = tmp_path / "wheel"
    _repository(wheel, "scripts", marker=False)  # an unpacked wheel: no distribution
    assert _rows(wheel, "pkg") == set()


def test_only_the_distributions_own_packages_see_its_scripts(tmp_path: Path) -> None:
    _repository(tmp_path, "scripts")
    (tmp_path / "src" / "lib").mkdir(parents=True)
    (tmp_path / "src" / "lib" / "__init__.py").write_text("")
    (tmp_path / "tests" / "data" / "proj").mkdir(parents=True)
    (tmp_path / "tests" / "data" / "proj" / "__init__.py").write_text("")
    (tmp_path / "scripts" / "plot.py").write_text("import numpy as np\n")  # no caller of pkg
    assert "scripts.train" in layout_of(str(tmp_path.resolve())).modules
    assert "scripts.plot" not in layout_of(str(tmp_path.resolve())).modules
    (tmp_path / "scripts" / "use_lib.py").write_text("from lib import step\n")
    src = layout_of(str((tmp_path / "src").resolve())).modules
    assert "scripts.use_lib" in src
    assert "scripts.train" not in src  # it imports ``pkg``, not ``lib``
    assert "scripts.train" not in layout_of(str((tmp_path / "tests" / "data").resolve())).modules
