"""Build a wheel, install it into a fresh virtual environment, and run the installed h2dlint.

This catches packaging mistakes the editable install hides: the rules live in rules/ at the top
of the repository and must ship as h2dlint.rules. Installing pulls libcst and click from PyPI.

The wheel is built from a copy of the working tree (the files git sees: tracked or untracked, not
ignored), so that the build neither writes build/ and *.egg-info into the repository nor picks up
stale files from an earlier build/ there.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

import h2dlint
from h2dlint.registry import get_rule

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 600
RULE_FILE = "h2dlint/rules/htd102_non_blocking_pageable_copy.py"
FLAGGED = 'import torch\n\ny = torch.tensor([1, 2]).to("cuda", non_blocking=True)\n'
CLEAN = 'import torch\n\ny = torch.tensor([1, 2], pin_memory=True).to("cuda", non_blocking=True)\n'

_DROPPED = {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "FORCE_COLOR"}


def clean_env() -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in _DROPPED and not key.startswith("H2DLINT_")
    }
    env["NO_COLOR"] = "1"
    return env


def run(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(arg) for arg in args],
        cwd=cwd,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )


def checked(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    result = run(*args, cwd=cwd)
    assert result.returncode == 0, f"{args} failed:\n{result.stdout}{result.stderr}"
    return result


def copy_source_tree(root: Path, dest: Path) -> None:
    listing = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        text=True,
    )
    if listing.returncode != 0:  # not a git checkout: copy everything but build and tool output
        shutil.copytree(
            root,
            dest,
            symlinks=True,
            dirs_exist_ok=True,
            ignore=shutil.ignore_patterns(
                ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*cache"
            ),
        )
        return
    for name in filter(None, listing.stdout.split("\0")):
        source = root / name
        if not (source.is_file() or source.is_symlink()):
            continue  # deleted from the working tree, or a submodule
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)


@dataclass(frozen=True)
class Installed:
    wheel: Path
    venv: Path
    workdir: Path  # a directory outside the repository to run h2dlint in

    def bin(self, name: str) -> Path:
        return self.venv / ("Scripts" if os.name == "nt" else "bin") / name


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    source = tmp_path_factory.mktemp("source")
    copy_source_tree(ROOT, source)
    wheels = tmp_path_factory.mktemp("wheels")
    checked(sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", wheels, source, cwd=wheels)
    [wheel] = wheels.glob("h2dlint-*.whl")
    venv = tmp_path_factory.mktemp("venv")
    checked(sys.executable, "-m", "venv", "--clear", venv, cwd=venv)
    result = Installed(wheel, venv, tmp_path_factory.mktemp("work"))
    checked(result.bin("pip"), "install", wheel, cwd=result.workdir)
    assert not result.workdir.is_relative_to(ROOT)
    return result


def test_wheel_ships_the_rules_as_h2dlint_rules(installed: Installed) -> None:
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = set(wheel.namelist())
    assert RULE_FILE in names
    assert "h2dlint/rules/__init__.py" in names
    assert "h2dlint/cli.py" in names
    assert not {name for name in names if name.startswith(("rules/", "tests/"))}


def test_installed_package_is_the_wheel(installed: Installed) -> None:
    result = checked(
        installed.bin("python"),
        "-c",
        "import h2dlint, h2dlint.rules; print(h2dlint.__file__); print(h2dlint.rules.__file__)",
        cwd=installed.workdir,
    )
    for line in result.stdout.splitlines():
        assert Path(line).resolve().is_relative_to(installed.venv.resolve()), result.stdout
    version = checked(installed.bin("h2dlint"), "--version", cwd=installed.workdir)
    assert version.stdout.strip() == f"h2dlint {h2dlint.__version__}"


def test_installed_h2dlint_flags_a_file(installed: Installed) -> None:
    (installed.workdir / "flagged.py").write_text(FLAGGED)
    result = run(installed.bin("h2dlint"), "--no-cache", "flagged.py", cwd=installed.workdir)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "flagged.py:3:5: HTD102" in result.stdout, result.stdout


def test_installed_h2dlint_passes_a_clean_file(installed: Installed) -> None:
    (installed.workdir / "clean.py").write_text(CLEAN)
    result = run(installed.bin("h2dlint"), "--no-cache", "clean.py", cwd=installed.workdir)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "HTD102" not in result.stdout


def test_installed_h2dlint_prints_rule_docs(installed: Installed) -> None:
    result = checked(installed.bin("h2dlint"), "rule", "HTD102", cwd=installed.workdir)
    assert result.stdout.startswith("# non-blocking-pageable-copy (HTD102)"), result.stdout
    assert "## What it does" in result.stdout
    assert "## Why is this bad?" in result.stdout
    rule = get_rule("HTD102")
    assert rule is not None
    assert result.stdout == rule.documentation()
    listing = checked(installed.bin("h2dlint"), "rule", "--all", cwd=installed.workdir)
    assert "HTD102" in listing.stdout


def test_installed_verify_is_shipped_and_needs_torch(installed: Installed) -> None:
    with zipfile.ZipFile(installed.wheel) as wheel:
        assert "h2dlint/verify/measure.py" in set(wheel.namelist())
    (installed.workdir / "before.py").write_text(
        "def setup(d):\n    return d\ndef run(s):\n    return s\n"
    )
    (installed.workdir / "after.py").write_text(
        "def setup(d):\n    return d\ndef run(s):\n    return s\n"
    )
    result = run(installed.bin("h2dlint"), "verify", "before.py", "after.py", cwd=installed.workdir)
    # torch is an optional extra: without it, verify says how to get it and exits 3.
    assert result.returncode == 3, result.stdout + result.stderr
    assert "install a CUDA build of torch" in result.stderr
    assert "Traceback" not in result.stderr
