"""`python -m h2dlint` works from a source checkout that was never installed.

The rules live in ``rules/`` beside ``h2dlint/`` and ship as ``h2dlint.rules`` only when
installed; run from the repository root, the registry loads that folder under the same name.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import click
import libcst

REPO = Path(__file__).resolve().parent.parent


def test_python_m_h2dlint_from_an_uninstalled_checkout(tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    for folder in ("h2dlint", "rules"):
        shutil.copytree(REPO / folder, checkout / folder, ignore=shutil.ignore_patterns("*.pyc"))
    example = checkout / "example.py"
    example.write_text(
        "import torch\ndef f(xs, dev):\n    return torch.cat(xs).to(dev, non_blocking=True)\n",
        encoding="utf-8",
    )
    # -S: no site, so no editable install's finder and no .pth: only the checkout's own files,
    # plus libcst and click from where they are installed.
    deps = {str(Path(m.__file__).resolve().parent.parent) for m in (libcst, click)}
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sorted(deps))}
    probe = subprocess.run(
        [sys.executable, "-S", "-c", "import h2dlint; print(h2dlint.__file__)"],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(probe.stdout.strip()).resolve().is_relative_to(checkout.resolve())
    run = subprocess.run(
        [
            sys.executable,
            "-S",
            "-m",
            "h2dlint",
            "check",
            "--no-cache",
            "--output-format",
            "json",
            "example.py",
        ],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 1, run.stderr
    codes = {finding["code"] for finding in json.loads(run.stdout)}
    assert "HTD104" in codes
