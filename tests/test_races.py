"""The race rules (HTD401, HTD402): their severity in every output, and HTD105's fix never
creating what HTD402 reports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from h2dlint.diagnostics import Severity
from h2dlint.engine import EnabledRule, check_text
from h2dlint.fixer import fix_text
from h2dlint.registry import all_rules

RACE = (
    "import torch\n"
    "def f(x):\n"
    "    y = x.cuda().to('cpu', non_blocking=True)\n"
    "    return y.tolist()\n"
)


def _enabled(code: str) -> tuple[EnabledRule, ...]:
    rule = all_rules()[code]
    return (EnabledRule(rule, tuple(sorted(rule.default_settings().items()))),)


def _check(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "race.py"
    path.write_text(RACE, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "h2dlint", "check", "--no-cache", "--select", "HTD401", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )


def test_race_rules_are_errors_and_the_others_warnings() -> None:
    severities = {code: rule.severity for code, rule in all_rules().items()}
    assert severities["HTD401"] is Severity.ERROR
    assert severities["HTD402"] is Severity.ERROR
    assert severities["HTD105"] is Severity.WARNING
    assert "Severity: **error**" in all_rules()["HTD401"].documentation()


def test_text_output_marks_the_error_and_exits_1(tmp_path: Path) -> None:
    result = _check(tmp_path, "--output-format", "concise")
    assert result.returncode == 1
    assert "race.py:4:12: HTD401 [error] the host reads `y`" in result.stdout


def test_json_has_the_severity(tmp_path: Path) -> None:
    result = _check(tmp_path, "--output-format", "json")
    assert [f["severity"] for f in json.loads(result.stdout)] == ["error"]


def test_sarif_level_is_error(tmp_path: Path) -> None:
    result = _check(tmp_path, "--output-format", "sarif")
    run = json.loads(result.stdout)["runs"][0]
    assert [r["level"] for r in run["results"]] == ["error"]
    levels = {r["id"]: r["defaultConfiguration"]["level"] for r in run["tool"]["driver"]["rules"]}
    assert levels["HTD401"] == "error" and levels["HTD402"] == "error"
    assert levels["HTD105"] == "warning"


def test_github_annotation_is_an_error(tmp_path: Path) -> None:
    result = _check(tmp_path, "--output-format", "github")
    assert result.stdout.startswith("::error title=h2dlint (HTD401),file=race.py,line=4")


@pytest.mark.parametrize(
    "example",
    [e for e in all_rules()["HTD105"].invalid if e.expected_fix is not None],
    ids=lambda e: e.code.splitlines()[-1].strip()[:40],
)
def test_htd105_fix_never_creates_an_htd402_race(example: object) -> None:
    fixed = example.expected_fix  # type: ignore[attr-defined]
    assert check_text(fixed, "fixed.py", _enabled("HTD402")) == []


@pytest.mark.parametrize(
    "code",
    [
        # written in the next iteration
        "import torch\n"
        "def f(xs, dev):\n"
        "    buf = torch.empty(8, pin_memory=True)\n"
        "    out = []\n"
        "    for x in xs:\n"
        "        buf.copy_(x)\n"
        "        out.append(buf.to(dev))\n"
        "    return out\n",
        # written in the next call
        "import torch\n"
        "class Stager:\n"
        "    def __init__(self, n):\n"
        "        self.buf = torch.empty(n, pin_memory=True)\n"
        "    def step(self, x, dev):\n"
        "        self.buf.copy_(x)\n"
        "        return self.buf.to(dev)\n",
    ],
)
def test_htd105_offers_no_fix_where_htd402_would_fire(code: str) -> None:
    outcome = fix_text(code, "x.py", _enabled("HTD105"), unsafe=True)
    assert outcome.text == code
    assert check_text(code.replace("(dev)", "(dev, non_blocking=True)"), "x.py", _enabled("HTD402"))


def test_read_through_an_alias_bound_later() -> None:
    code = (
        "import torch\n"
        "def f(x):\n"
        "    y = x.cuda().to('cpu', non_blocking=True)\n"
        "    z = y\n"
        "    print(z.shape)\n"
        "    return z[0] + 1\n"
    )
    found = check_text(code, "x.py", _enabled("HTD401"))
    assert [(f.start.row, f.code) for f in found] == [(6, "HTD401")]


def test_a_read_after_leaving_a_branch_is_followed() -> None:
    code = (
        "import torch\n"
        "def f(x, flag):\n"
        "    if flag:\n"
        "        y = x.cuda().to('cpu', non_blocking=True)\n"
        "    else:\n"
        "        y = x.cpu()\n"
        "    return y.sum().item()\n"
    )
    found = check_text(code, "x.py", _enabled("HTD401"))
    assert [f.start.row for f in found] == [7]
