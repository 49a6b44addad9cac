"""The hooks in .pre-commit-hooks.yaml, run by the real pre-commit through `pre-commit try-repo`.

try-repo builds the hook environment (a virtualenv, then `pip install` of h2dlint with libcst,
click and setuptools from PyPI) in a temporary store of its own, not in PRE_COMMIT_HOME, so every
run builds it anew: a few seconds with pip's cache warm. PRE_COMMIT_HOME still points into a
per-module temporary directory so that pre-commit never touches the user's cache.

try-repo on a local repository takes its committed tree plus modified tracked files, but not
untracked ones (a new rule module or a new .pre-commit-hooks.yaml would be missing). So the hooks
repository is a snapshot of the working tree: every tracked or untracked, not ignored file of the
repository root, committed into a temporary git repository once per module.

To test an autofix, add a test that commits a fixable file into `project`, runs
`run_hook(pc, project, "h2dlint-fix", "name.py")`, and checks that it fails with
"files were modified by this hook" and that the file now holds the fixed source. try-repo cannot
pass hook `args` (such as --unsafe-fixes); for that, write a .pre-commit-config.yaml naming
`pc.hooks_repo` at `pc.rev` with the args, and run `pre-commit run --config FILE HOOK --files`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from samples import SKIPPED, SUPPRESSED

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
PRE_COMMIT = Path(sys.executable).parent / "pre-commit"
# Each run builds the hook environment: a virtualenv and `pip install` from PyPI.
TIMEOUT = 600

BAD = 'import torch\n\ny = torch.tensor([1, 2]).to("cuda", non_blocking=True)\n'
GOOD = 'import torch\n\ny = torch.tensor([1, 2], pin_memory=True).to("cuda", non_blocking=True)\n'

# Variables of the calling environment that would change what git, pre-commit or h2dlint do.
_DROPPED_PREFIXES = ("GIT_", "PRE_COMMIT", "H2DLINT_")
_DROPPED = {"SKIP", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "FORCE_COLOR"}


def clean_env(**extra: str) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in _DROPPED and not key.startswith(_DROPPED_PREFIXES)
    }
    env["NO_COLOR"] = "1"
    env.update(extra)
    return env


def git(cwd: Path, *args: str, env: dict[str, str]) -> str:
    result = subprocess.run(
        ["git", "-c", "commit.gpgsign=false", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, f"git {' '.join(args)} failed:\n{result.stdout}{result.stderr}"
    return result.stdout


def init_repo(path: Path, env: dict[str, str]) -> None:
    git(path, "init", "-q", env=env)
    git(path, "config", "user.name", "h2dlint tests", env=env)
    git(path, "config", "user.email", "tests@h2dlint.invalid", env=env)


def snapshot_working_tree(root: Path, dest: Path, env: dict[str, str]) -> None:
    """Copy the files git would see in `root` (tracked or untracked, not ignored) to `dest`."""
    listing = git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", env=env)
    for name in filter(None, listing.split("\0")):
        source = root / name
        if not (source.is_file() or source.is_symlink()):
            continue  # deleted from the working tree, or a submodule
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)


@dataclass(frozen=True)
class PreCommit:
    hooks_repo: Path
    rev: str
    env: dict[str, str]


@pytest.fixture(scope="module")
def pc(tmp_path_factory: pytest.TempPathFactory) -> PreCommit:
    if not PRE_COMMIT.exists():
        pytest.skip(
            f"pre-commit is not installed next to {sys.executable} (pip install pre-commit)"
        )
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    env = clean_env(PRE_COMMIT_HOME=str(tmp_path_factory.mktemp("pc-home")))
    probe = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--show-toplevel"],
        env=env,
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        pytest.skip(f"{ROOT} is not a git repository; try-repo needs one ({probe.stderr.strip()})")
    hooks_repo = tmp_path_factory.mktemp("hooks-repo")
    snapshot_working_tree(ROOT, hooks_repo, env)
    assert (hooks_repo / ".pre-commit-hooks.yaml").is_file()
    init_repo(hooks_repo, env)
    git(hooks_repo, "add", "-A", env=env)
    git(hooks_repo, "commit", "-q", "-m", "snapshot of the working tree", env=env)
    rev = git(hooks_repo, "rev-parse", "HEAD", env=env).strip()
    return PreCommit(hooks_repo, rev, env)


@pytest.fixture
def project(tmp_path: Path, pc: PreCommit) -> Path:
    """A git repository with a committed bad.py (one HTD102 finding) and good.py (none)."""
    repo = tmp_path / "project"
    repo.mkdir()
    init_repo(repo, pc.env)
    (repo / "bad.py").write_text(BAD)
    (repo / "good.py").write_text(GOOD)
    git(repo, "add", "bad.py", "good.py", env=pc.env)
    git(repo, "commit", "-q", "-m", "initial", env=pc.env)
    return repo


def run_hook(pc: PreCommit, repo: Path, hook_id: str, *files: str) -> tuple[int, str]:
    """Run hook `hook_id` of the snapshot on `files` of `repo`; (exit code, all output)."""
    result = subprocess.run(
        [
            str(PRE_COMMIT),
            "try-repo",
            str(pc.hooks_repo),
            hook_id,
            "--ref",
            pc.rev,
            "--color",
            "never",
            "--files",
            *files,
        ],
        cwd=repo,
        env=pc.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=TIMEOUT,
    )
    return result.returncode, result.stdout


def modified_files(pc: PreCommit, repo: Path) -> str:
    return git(repo, "status", "--porcelain", "--untracked-files=no", env=pc.env)


def test_check_hook_fails_on_a_finding(pc: PreCommit, project: Path) -> None:
    rc, output = run_hook(pc, project, "h2dlint", "bad.py", "good.py")
    assert rc != 0, output
    # Exit code 1 is "findings remain"; 2 would be a usage or internal error.
    assert "- exit code: 1" in output, output
    assert "bad.py:3:5: HTD102" in output, output
    assert "good.py:" not in output, output
    assert modified_files(pc, project) == ""


def test_fix_hook_leaves_an_unfixable_finding(pc: PreCommit, project: Path) -> None:
    before = (project / "bad.py").read_bytes()
    rc, output = run_hook(pc, project, "h2dlint-fix", "bad.py")
    assert rc != 0, output
    assert "- exit code: 1" in output, output
    assert "bad.py:3:5: HTD102" in output, output
    assert "files were modified by this hook" not in output, output
    assert (project / "bad.py").read_bytes() == before
    assert modified_files(pc, project) == ""


@pytest.mark.parametrize("hook_id", ["h2dlint", "h2dlint-fix"])
def test_hooks_pass_on_a_clean_file(pc: PreCommit, project: Path, hook_id: str) -> None:
    before = (project / "good.py").read_bytes()
    rc, output = run_hook(pc, project, hook_id, "good.py")
    assert rc == 0, output
    assert "Passed" in output, output
    assert (project / "good.py").read_bytes() == before


def test_check_hook_passes_on_suppressed_findings(pc: PreCommit, project: Path) -> None:
    """Every form of suppression comment (the ones Ruff also reads without a warning), and
    skip-file: the hook reports nothing and passes."""
    (project / "suppressed.py").write_text(SUPPRESSED)
    (project / "skipped.py").write_text(SKIPPED)
    git(project, "add", "suppressed.py", "skipped.py", env=pc.env)
    git(project, "commit", "-q", "-m", "suppressed", env=pc.env)
    rc, output = run_hook(pc, project, "h2dlint", "suppressed.py", "skipped.py")
    assert rc == 0, output
    assert "Passed" in output, output
    assert "HTD" not in output, output
