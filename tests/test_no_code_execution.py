"""Linting never imports or runs the code it checks; only ``verify`` runs code, and only the
fixture files it is given.

Every file of the tree below, if it were imported or executed, would write a marker file (and
then exit, raise, or do what such files do: ``conftest.py``, ``setup.py``, a package
``__init__.py``, a module named like one h2dlint itself imports). Every file also holds the
markers of every rule's prefilter, so that every rule parses and walks it. After each run no
marker may exist and no module of the tree may have been imported.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from h2dlint.cli import main

# Reaches every registered rule's prefilter (non_blocking, .to(, .cuda(, .copy_(, cat(,
# pin_memory, device=, noqa) so that each file is parsed and walked by every rule.
FLAGGED = (
    "import torch\n"
    "def _h2d(xs, device, n, gpu):\n"
    "    buf = torch.zeros(4, 8, pin_memory=True)\n"
    "    y = torch.tensor([1, 2]).to(device, non_blocking=True)\n"
    "    z = torch.cat(xs).to(device, non_blocking=True)\n"
    "    w = torch.zeros(8, pin_memory=True).to(device)\n"
    "    v = [x.cuda() for x in xs]\n"
    "    t = torch.tensor(xs, device=device)\n"
    "    gpu[:, :n].copy_(buf[:, :n], non_blocking=True)\n"
    "    return y, z, w, v, t  # noqa: HTD999\n"
)

# name -> what the file does after writing its marker
TREE = {
    "pkg/__init__.py": "print('package imported')\n",
    "pkg/mod.py": "sys.exit(3)\n",
    "pkg/sub/__init__.py": "raise RuntimeError('imported')\n",
    "pkg/hard_exit.py": "import os\nos._exit(7)\n",
    "conftest.py": "import pytest\n",
    "setup.py": "from setuptools import setup\nsetup(name='x')\n",
    "__main__.py": "raise SystemExit('run as a program')\n",
    "stubs.pyi": "",
    "fixture_like.py": "def setup(device):\n    return {}\ndef run(state):\n    return 1\n",
    # Named like modules that h2dlint or the interpreter imports while checking.
    "click.py": "",
    "libcst.py": "",
    "tokenize.py": "",
    "difflib.py": "",
    "json.py": "",
    "tomllib.py": "",
    "sitecustomize.py": "",
    "usercustomize.py": "",
    "torch.py": "",
}


def _payload(markers: Path, name: str) -> str:
    marker = markers / name.replace("/", ".")
    return f"import pathlib, sys\npathlib.Path({str(marker)!r}).write_text('ran')\n"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    markers = tmp_path / "markers"
    markers.mkdir()
    root = tmp_path / "project"
    for name, action in TREE.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_payload(markers, name) + action + FLAGGED)
    (root / "broken.py").write_text(_payload(markers, "broken.py") + "def f(:\n" + FLAGGED)
    return root


def markers_of(tree: Path) -> list[str]:
    return sorted(os.listdir(tree.parent / "markers"))


def modules_from(tree: Path) -> list[str]:
    root = str(tree.resolve())
    return sorted(
        name
        for name, module in list(sys.modules.items())
        if str(getattr(module, "__file__", None) or "").startswith(root)
    )


MODES = {
    "check": [],
    "fix": ["--fix", "--unsafe-fixes"],
    "diff": ["--diff", "--unsafe-fixes"],
    "statistics": ["--statistics"],
    "json": ["--output-format", "json"],
    "sarif": ["--output-format", "sarif"],
    "github": ["--output-format", "github"],
}


@pytest.mark.parametrize("args", MODES.values(), ids=MODES.keys())
def test_checking_in_process_imports_and_runs_nothing_of_the_tree(
    tree: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    monkeypatch.chdir(tree)
    before = set(sys.modules)
    result = CliRunner().invoke(
        main, ["--no-cache", "--no-color", "-j", "1", *args, "."], catch_exceptions=False
    )
    assert result.exit_code in (0, 1), result.output
    assert markers_of(tree) == []
    assert modules_from(tree) == []
    new = set(sys.modules) - before
    assert not new & {"pkg", "pkg.mod", "pkg.sub", "conftest", "setup", "fixture_like", "torch"}


def _console_script() -> str:
    script = shutil.which("h2dlint", path=str(Path(sys.executable).parent))
    if script is None:
        pytest.skip("the h2dlint console script is not installed beside this interpreter")
    return script


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_console_script_run_inside_the_tree_imports_and_runs_nothing_of_it(
    tree: Path, jobs: str
) -> None:
    """The way users and the pre-commit hook run it: from the project's root."""
    proc = subprocess.run(
        [_console_script(), "--no-cache", "-j", jobs, "--fix", "--unsafe-fixes", "."],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr  # findings remain
    assert "Traceback" not in proc.stderr
    assert markers_of(tree) == []


LIST_MODULES = """
import json, sys
from h2dlint.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps({name: getattr(m, "__file__", None) for name, m in list(sys.modules.items())}))
"""


def test_a_fresh_interpreter_imports_nothing_of_the_tree_and_not_torch(tree: Path) -> None:
    proc = subprocess.run(
        # -I: the current directory is not put on sys.path (see the xfail below).
        [sys.executable, "-I", "-c", LIST_MODULES, "--no-cache", "-j", "1", "-q", "."],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    modules = json.loads(proc.stdout.strip().splitlines()[-1])
    root = str(tree.resolve())
    assert [name for name, file in modules.items() if file and file.startswith(root)] == []
    assert "torch" not in modules  # the lint path never imports torch
    assert markers_of(tree) == []


def test_python_dash_m_inside_the_tree_imports_nothing_of_it(tree: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "h2dlint", "--no-cache", "-j", "1", "."],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert markers_of(tree) == []
    assert proc.returncode == 1, proc.stderr


# -- verify runs the fixture files it is given, and nothing else ------------------------------

FIXTURE = "def setup(device):\n    return {'device': device}\n\n\ndef run(state):\n    return 1\n"


def _cuda_available() -> bool:
    if importlib.util.find_spec("torch") is None:
        return False
    import torch

    return bool(torch.cuda.is_available())


@pytest.fixture
def fixture_dirs(tmp_path: Path) -> Path:
    """parent/pair/{before,after}.py, and beside them files that must never run."""
    markers = tmp_path / "markers"
    markers.mkdir()
    parent = tmp_path / "fixtures"
    pair = parent / "pair"
    pair.mkdir(parents=True)
    (pair / "before.py").write_text(FIXTURE)
    (pair / "after.py").write_text(FIXTURE)
    for name in ("third.py", "conftest.py", "__init__.py", "helpers.py"):
        (pair / name).write_text(_payload(markers, f"pair/{name}") + "raise SystemExit(9)\n")
    # A folder without a pair, and a stray file at the top.
    (parent / "other").mkdir()
    (parent / "other" / "third.py").write_text(_payload(markers, "other/third.py"))
    (parent / "stray.py").write_text(_payload(markers, "stray.py"))
    return parent


VERIFY_ARGS = {
    "two-files": ["pair/before.py", "pair/after.py"],
    "pair-directory": ["pair"],
    "parent-directory": ["."],
}


@pytest.mark.parametrize("paths", VERIFY_ARGS.values(), ids=VERIFY_ARGS.keys())
def test_verify_runs_only_the_fixtures_it_is_given(fixture_dirs: Path, paths: list[str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "h2dlint", "verify", "--repeats", "1", *paths],
        cwd=fixture_dirs,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert markers_of(fixture_dirs) == [], proc.stderr
    if _cuda_available():
        assert proc.returncode in (0, 1), proc.stderr
    else:  # no torch or no GPU: the "no CUDA" exit code, said in one line
        assert proc.returncode == 3, proc.stderr
        assert "Traceback" not in proc.stderr
        assert "verify" in proc.stderr.strip().splitlines()[-1]
