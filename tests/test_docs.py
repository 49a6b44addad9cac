"""The rule pages under docs/rules are generated from the rules and must not drift."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from click.testing import CliRunner

from h2dlint.cli import main
from h2dlint.registry import all_rules

ROOT = Path(__file__).resolve().parents[1]


def _generator():
    spec = importlib.util.spec_from_file_location("gen", ROOT / "scripts/generate_rule_docs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen"] = module
    spec.loader.exec_module(module)
    return module


def test_rule_pages_are_up_to_date() -> None:
    for path, text in _generator().expected_pages().items():
        assert path.is_file(), f"{path} missing: run python scripts/generate_rule_docs.py"
        assert path.read_text(encoding="utf-8") == text, (
            f"{path} is stale: run python scripts/generate_rule_docs.py"
        )


def test_rule_command_prints_the_page() -> None:
    runner = CliRunner()
    for code in all_rules():
        result = runner.invoke(main, ["rule", code])
        assert result.exit_code == 0
        assert result.output == (ROOT / "docs/rules" / f"{code}.md").read_text(encoding="utf-8")


def test_every_rule_url_points_at_its_page() -> None:
    """The url is the page's path in this repository, and the page is there."""
    for code, rule in all_rules().items():
        assert rule.url() == f"docs/rules/{code}.md"
        assert (ROOT / rule.url()).is_file()
