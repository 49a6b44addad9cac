"""The byte-level prefilter only skips work: on real code, findings are identical with it and
without it (every file parsed)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from corpus import corpus_package

from h2dlint.cli import main


def findings(path: Path, *extra: str) -> list[dict[str, object]]:
    result = CliRunner().invoke(
        main, ["--no-cache", "--output-format", "json", "--exit-zero", *extra, str(path)]
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.mark.parametrize("package", ["accelerate"])
def test_prefilter_does_not_change_findings_on_real_code(package: str) -> None:
    tree = corpus_package(package)
    with_prefilter = findings(tree)
    without = findings(tree, "--no-prefilter")
    assert with_prefilter == without
    assert len(list(tree.rglob("*.py"))) > 50


def test_prefilter_keeps_syntax_errors(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("def f(:\n")  # no rule marker in it
    assert findings(tmp_path) == findings(tmp_path, "--no-prefilter")
    assert [d["code"] for d in findings(tmp_path)] == ["E999"]


def test_prefilter_on_installed_packages() -> None:
    import click

    for module in (click,):
        tree = Path(os.path.dirname(module.__file__ or ""))
        assert findings(tree) == findings(tree, "--no-prefilter")
