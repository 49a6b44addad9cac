"""Running h2dlint the two ways tests need: the rules on one source text in this process,
and the command line on a small project written to disk (the project index, the cache and
the reporters as a user gets them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import libcst as cst

from h2dlint.diagnostics import Finding
from h2dlint.engine import EnabledRule, check_text
from h2dlint.registry import all_rules

ROOT = Path(__file__).resolve().parent.parent


def lint(code: str, *rule_codes: str, path: str = "m.py") -> list[Finding]:
    """The findings of the named rules, with their default settings, on ``code`` (dedented)
    checked as the file ``path``."""
    rules = all_rules()
    enabled = tuple(
        EnabledRule(rules[c], tuple(sorted(rules[c].default_settings().items())))
        for c in rule_codes
    )
    return check_text(textwrap.dedent(code), path, enabled)


def write_files(root: Path, files: dict[str, str]) -> None:
    """Write each relative path's (dedented) text under ``root``, making its folders."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def lint_project(root: Path, *rule_codes: str, target: str = "pkg") -> list[dict[str, Any]]:
    """``h2dlint check`` of ``target`` run from ``root`` in a fresh process of this checkout's
    h2dlint (no cache, one job): the JSON reporter's records."""
    command = ["check", "--no-cache", "-j", "1", "--select", ",".join(rule_codes), "--exit-zero"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "h2dlint", *command, "--output-format", "json", target],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    records: list[dict[str, Any]] = json.loads(proc.stdout)
    return records


def cli_rows(tmp_path: Path, text: str, rule: str) -> list[int]:
    """The rows of ``rule``'s findings when the command line checks ``text`` written alone as
    ``tmp_path/mod.py`` (no cache, one job, in this process)."""
    from click.testing import CliRunner

    from h2dlint.cli import main

    path = tmp_path / "mod.py"
    path.write_text(text)
    args = ["-j1", "--no-cache", "--output-format", "json", "--exit-zero", "--select", rule]
    result = CliRunner().invoke(main, [*args, str(path)], catch_exceptions=False)
    return sorted(f["location"]["row"] for f in json.loads(result.stdout))


def package_records(tmp_path: Path, files: dict[str, str], select: str) -> list[dict[str, Any]]:
    """The JSON records of ``select``'s findings when the command line checks the package
    ``tmp_path/pkg`` holding ``files`` (names to texts, beside an empty ``__init__.py``), no
    cache, one job, in this process: the project index sees every module of it."""
    from click.testing import CliRunner

    from h2dlint.cli import main

    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, text in files.items():
        (package / name).write_text(text)
    args = ["-j1", "--no-cache", "--select", select, "--output-format", "json", str(package)]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    records: list[dict[str, Any]] = json.loads(result.stdout)
    return records


def method_of(code: str, name: str) -> tuple[cst.FunctionDef, cst.ClassDef]:
    """The method ``name`` of the first class in ``code`` (dedented), and that class."""
    module = cst.parse_module(textwrap.dedent(code))
    cls = next(s for s in module.body if isinstance(s, cst.ClassDef))
    assert isinstance(cls.body, cst.IndentedBlock)
    function = next(
        s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == name
    )
    return function, cls
