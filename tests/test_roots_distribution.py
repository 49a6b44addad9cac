"""A script folder of a distribution (``scripts/``, ``tests/``, ``examples/`` beside ``pkg/``
or ``src/pkg/`` under a ``pyproject.toml``) imports the distribution's packages, so a file
there sees their facts however the run groups its paths (h2dlint/project/roots.py,
``layout_of``). Split per project folder alone, ``scripts/run.py`` lost ``pkg``'s facts: a
helper returning a pageable staging tensor was "unknown" there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from h2dlint.cli import main
from h2dlint.project.roots import distribution_folders, layout_of, root_of

HOST = """\
import torch


def make_staging(n):
    return torch.zeros(n, 1024, 1024)
"""

SCRIPT = """\
import torch
from pkg.host import make_staging


def step(device):
    staging = make_staging(8)
    return staging.to(device, non_blocking=True)
"""


def _distribution(root: Path, src: bool, marker: bool) -> Path:
    """``pkg`` (under ``src/`` or not) and ``scripts/run.py`` using it; returns the script."""
    home = root / "src" if src else root
    (home / "pkg").mkdir(parents=True)
    (home / "pkg" / "__init__.py").write_text("")
    (home / "pkg" / "host.py").write_text(HOST)
    (root / "scripts").mkdir()
    (root / "scripts" / "run.py").write_text(SCRIPT)
    if marker:
        (root / "pyproject.toml").write_text("[project]\nname = 'pkg'\n")
    return root / "scripts" / "run.py"


def _codes(*paths: Path) -> set[tuple[str, int, str]]:
    result = CliRunner().invoke(
        main,
        ["--no-cache", "--output-format", "json", "--exit-zero", "--select", "ALL"]
        + [str(p) for p in paths],
    )
    assert result.exit_code == 0, result.output
    return {
        (Path(d["filename"]).name, d["location"]["row"], d["code"])
        for d in json.loads(result.output)
    }


@pytest.mark.parametrize("src", [False, True], ids=["flat", "src layout"])
def test_a_script_sees_its_distributions_package_alone_or_with_it(
    tmp_path: Path, src: bool
) -> None:
    script = _distribution(tmp_path / "repo", src=src, marker=True)
    expected = {("run.py", 7, "HTD102")}
    assert _codes(script) == expected
    assert _codes(script.parent) == expected
    assert _codes(tmp_path / "repo") == expected


def test_without_a_distribution_marker_a_script_folder_stands_alone(tmp_path: Path) -> None:
    # An unpacked wheel's folders have no marker: nothing above the script folder is added.
    script = _distribution(tmp_path / "repo", src=False, marker=False)
    assert distribution_folders(root_of(str(script))) == []
    assert _codes(script) == set()


def test_the_script_folders_own_modules_come_first(tmp_path: Path) -> None:
    script = _distribution(tmp_path / "repo", src=False, marker=True)
    (script.parent / "pkg.py").write_text("X = 1\n")  # shadows the package, as on sys.path
    layout = layout_of(root_of(str(script)))
    assert layout.path_of("pkg") == str((script.parent / "pkg.py").resolve())
    assert layout.path_of("pkg.host") is not None
