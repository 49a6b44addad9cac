"""Fixes write code a formatter leaves alone (issue #17): every rule's fix, on its invalid
examples and on its fixture, is run through ``ruff format``, and no line a fix writes is longer
than the line length unless the line it replaced already was. Also the helpers of
h2dlint/fix_format.py that the rules share."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest

from h2dlint.config import Overrides, SettingsResolver
from h2dlint.context import FileContext
from h2dlint.diagnostics import FixSafety
from h2dlint.engine import EnabledRule
from h2dlint.fix_format import fresh_name, string_literal
from h2dlint.fixer import fix_text
from h2dlint.jobs import DEFAULT_LINE_LENGTH
from h2dlint.registry import all_rules
from h2dlint.rule import Rule

pytest.importorskip("ruff", reason="the formatter check needs ruff (pip install ruff)")

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
FIXING = {code: rule for code, rule in all_rules().items() if rule.fix_safety is not FixSafety.NONE}


def _enabled(rule: type[Rule]) -> tuple[EnabledRule, ...]:
    return (EnabledRule(rule, tuple(sorted(rule.default_settings().items()))),)


def ruff_format(text: str, line_length: int) -> str:
    command = [sys.executable, "-m", "ruff", "format", "--isolated", "--line-length"]
    result = subprocess.run(
        [*command, str(line_length), "-"], input=text, capture_output=True, text=True, check=True
    )
    return result.stdout


def _examples() -> list[object]:
    return [
        pytest.param(code, index, id=f"{code}-invalid-{index}")
        for code, rule in sorted(FIXING.items())
        for index, example in enumerate(rule.invalid)
        if example.expected_fix is not None
    ]


@pytest.mark.parametrize(("code", "index"), _examples())
def test_fixed_example_is_formatter_clean(code: str, index: int) -> None:
    """The example as a formatter writes it, fixed: the formatter has nothing more to do."""
    rule = FIXING[code]
    original = ruff_format(rule.invalid[index].code, DEFAULT_LINE_LENGTH)
    fixed = fix_text(original, "example.py", _enabled(rule), unsafe=True).text
    assert fixed != original, "the fix applies to the formatted example too"
    assert ruff_format(fixed, DEFAULT_LINE_LENGTH) == fixed


@pytest.mark.parametrize(("code", "index"), _examples())
def test_fixed_lines_fit_the_line_length(code: str, index: int) -> None:
    example = FIXING[code].invalid[index]
    assert example.expected_fix is not None
    before = set(example.code.splitlines())
    written = [line for line in example.expected_fix.splitlines() if line not in before]
    too_long = [line for line in written if len(line) > DEFAULT_LINE_LENGTH]
    assert too_long == []


def _fixture_options(code: str) -> tuple[tuple[str, object], ...]:
    """The analysis options ``h2dlint check`` gives the fixture: the line length of this
    repository's ``[tool.ruff]``."""
    resolver = SettingsResolver(Overrides(), None, ROOT)
    return resolver.for_directory(FIXTURES / code).job_analysis


def test_fixtures_get_the_repository_line_length() -> None:
    assert dict(_fixture_options("HTD104"))["line-length"] == 100


@pytest.mark.parametrize("code", sorted(c for c in FIXING if (FIXTURES / c).is_dir()))
def test_fixture_pair_is_formatter_clean(code: str) -> None:
    length = dict(_fixture_options(code))["line-length"]
    for name in ("before.py", "after.py"):
        text = (FIXTURES / code / name).read_text(encoding="utf-8")
        assert ruff_format(text, length) == text, f"fixtures/{code}/{name}"


# -- the helpers -------------------------------------------------------------------------------
def _context(source: str) -> FileContext:
    return FileContext("x.py", source, cst.parse_module(source))


def test_fresh_name_avoids_every_name_of_the_module_and_names_already_handed_out() -> None:
    context = _context("xs_pinned = 1\ndef f(xs_pinned_2): return xs_pinned_3\n")
    assert fresh_name(context, "xs_pinned") == "xs_pinned_4"
    assert fresh_name(context, "xs_pinned") == "xs_pinned_5"
    assert fresh_name(context, "ys_pinned") == "ys_pinned"
    assert fresh_name(context, "class") == "value"


@pytest.mark.parametrize(
    ("source", "value", "expected"),
    [
        ("a = 'x'\nb = 'y'\nc = \"z\"\n", "cuda", "'cuda'"),
        ("a = 'x'\nc = \"z\"\n", "cuda", '"cuda"'),
        ("a = 1\n", "it's", '"it\'s"'),
        ("a = 'x'\n", "it's", "'it\\'s'"),
        ("a = 'x'\n", 'say "hi"', "'say \"hi\"'"),
    ],
)
def test_string_literals_take_the_quote_the_file_uses(
    source: str, value: str, expected: str
) -> None:
    literal = string_literal(_context(source), value)
    assert literal.value == expected
    assert literal.evaluated_value == value


HTD104 = _enabled(all_rules()["HTD104"])


@pytest.mark.parametrize(
    "source",
    [
        # (a class body, where the helper would become a class attribute, runs once: HTD104
        # leaves it alone since session 15, so it needs no case here)
        # a call before the join in the statement could change what the helper reads
        "import torch\ndef f(xs, dev):\n"
        "    return g(xs.pop()) + torch.stack(xs).to(dev, non_blocking=True)\n",
        # only evaluated when the left side is true
        "import torch\ndef f(xs, dev):\n"
        "    return xs and torch.stack(xs).to(dev, non_blocking=True)\n",
        # a while condition is evaluated again on every iteration
        "import torch\ndef f(xs, dev):\n"
        "    while torch.stack(xs).to(dev, non_blocking=True).any():\n        xs.pop()\n",
        # a line of two statements
        "import torch\ndef f(xs, dev):\n"
        "    n = 1; return torch.stack(xs).to(dev, non_blocking=True)\n",
    ],
)
def test_no_helper_line_where_it_would_change_what_runs(source: str) -> None:
    fixed = fix_text(source, "x.py", HTD104, unsafe=True)
    assert fixed.applied == 1
    assert "_pinned" not in fixed.text
    assert "out=torch.empty(" in fixed.text
    compile(fixed.text, "x.py", "exec")


def test_helper_line_in_a_nested_block_is_indented_with_it() -> None:
    source = (
        "import torch\n"
        "def f(batches, dev):\n"
        "    for xs in batches:\n"
        "        if xs:\n"
        "            yield torch.stack(xs).to(dev, non_blocking=True)\n"
    )
    fixed = fix_text(source, "x.py", HTD104, unsafe=True).text
    assert fixed == (
        "import torch\n"
        "def f(batches, dev):\n"
        "    for xs in batches:\n"
        "        if xs:\n"
        "            xs_pinned = torch.empty(\n"
        "                (len(xs), *xs[0].shape), dtype=xs[0].dtype, pin_memory=True\n"
        "            )\n"
        "            yield torch.stack(xs, out=xs_pinned).to(dev, non_blocking=True)\n"
    )
    again = fix_text(fixed, "x.py", HTD104, unsafe=True)
    assert again.text == fixed and again.applied == 0


def test_helper_lines_keep_the_file_s_tabs_and_line_endings() -> None:
    source = (
        "import torch\r\n"
        "def f(xs, dev):\r\n"
        "\tfor x in xs:\r\n"
        "\t\ty = torch.cat(xs).to(dev, non_blocking=True)\r\n"
    )
    fixed = fix_text(source, "x.py", HTD104, unsafe=True).text
    assert fixed == (
        "import torch\r\n"
        "def f(xs, dev):\r\n"
        "\tfor x in xs:\r\n"
        "\t\txs_pinned = torch.empty(\r\n"
        "\t\t\t(sum(t.shape[0] for t in xs), *xs[0].shape[1:]),\r\n"
        "\t\t\tdtype=xs[0].dtype,\r\n"
        "\t\t\tpin_memory=True,\r\n"
        "\t\t)\r\n"
        "\t\ty = torch.cat(xs, out=xs_pinned).to(dev, non_blocking=True)\r\n"
    )


# The inline form of HTD104's fix, in each enclosure a line before the statement cannot go
# into, at two line lengths: laid out as the formatter lays it out.
ENCLOSED = (
    "def f({v}s, d):\n    return [torch.stack({v}).to(d, non_blocking=True) for {v} in {v}s]\n",
    "def f({v}s, d):\n    y = [torch.cat({v}).to(d, non_blocking=True) for {v} in {v}s if {v}]\n",
    "def f({v}, d):\n    return torch.stack({v}).to(d, non_blocking=True) if {v} else None\n",
    "def f({v}, d):\n    y = torch.cat({v}).to(d, non_blocking=True) if {v} else None\n",
    "def f({v}s, d):\n    return list(torch.stack({v}).to(d, non_blocking=True) for {v} in {v}s)\n",
    "def f({v}s, d):\n    return (torch.stack({v}).to(d, non_blocking=True) for {v} in {v}s)\n",
    "def f({v}s, d):\n    return {{torch.stack({v}).to(d, non_blocking=True) for {v} in {v}s}}\n",
    "class A:\n    def f(self, {v}s, d):\n        if d:\n"
    "            return [torch.stack({v}).to(d, non_blocking=True) for {v} in {v}s]\n",
    "def f({v}, d):\n    pack(torch.stack({v}).to(d, non_blocking=True), 1)\n",
    "def f({v}, d):\n    return torch.stack({v}).pin_memory() if {v} else None\n",
)


@pytest.mark.parametrize("line_length", [88, 120])
@pytest.mark.parametrize("name", ["b", "pos_ids"])
@pytest.mark.parametrize("template", ENCLOSED)
def test_inline_fix_in_an_enclosure_is_formatter_clean(
    template: str, name: str, line_length: int
) -> None:
    rule = FIXING["HTD104"]
    source = ruff_format("import torch\n\n\n" + template.format(v=name), line_length)
    options = (("line-length", line_length),)
    fixed = fix_text(source, "example.py", _enabled(rule), unsafe=True, options=options).text
    assert "pin_memory=True" in fixed and "out=" in fixed
    assert ruff_format(fixed, line_length) == fixed
