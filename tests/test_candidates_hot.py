"""The ``hot`` candidate term (h2dlint/candidate_hot.py): HTD202's reads are admitted only in
functions that may run per step, or in ``for`` loops that run device work. Each case pairs a
file the gate must admit with a look-alike it may skip."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from h2dlint.candidate_terms import Candidates
from h2dlint.candidates import summarize
from h2dlint.engine import EnabledRule, check_text
from h2dlint.jobs import AnalysisOptions
from h2dlint.pipeline import candidate_rules
from h2dlint.project.index import ProjectIndex, install
from h2dlint.project.layout import build_layout
from h2dlint.registry import all_rules

HTD202 = (EnabledRule(all_rules()["HTD202"]),)


def admitted(code: str, path: str = "m.py", analysis: AnalysisOptions = ()) -> bool:
    data = textwrap.dedent(code).encode()
    return candidate_rules(data, HTD202, ast.parse(data), path, analysis) == HTD202


@pytest.mark.parametrize(
    ("hot", "cold"),
    [
        # an entry point by name / a helper nobody hot calls
        (
            "class M:\n    def forward(self, x):\n        if x:\n            return 1\n",
            "class M:\n    def describe(self, x):\n        if x:\n            return 1\n",
        ),
        # a helper a hot method calls / the same helper called from a cold one
        (
            "class M:\n    def forward(self, x):\n        return self._pick(x)\n"
            "    def _pick(self, x):\n        return x[: x.sum()]\n",
            "class M:\n    def report(self, x):\n        return self._pick(x)\n"
            "    def _pick(self, x):\n        return x[: x.sum()]\n",
        ),
        # a read in a loop that runs device work / in a loop over host data
        (
            "def evaluate(model, loader):\n    for batch in loader:\n"
            "        loss = model(batch.cuda())\n        print(loss.item())\n",
            "def evaluate(model, loader):\n    for batch in loader:\n"
            "        loss = model(batch)\n        print(loss.item())\n",
        ),
        # a closure __init__ stores for a hot __call__ / __init__'s own reads (runs once)
        (
            "class R:\n    def __init__(self):\n        def run(x):\n            return x.item()\n"
            "        self._run = run\n    def __call__(self, x):\n        return self._run(x)\n",
            "class R:\n    def __init__(self, x):\n        self.n = x.item()\n"
            "    def __call__(self, x):\n        return x\n",
        ),
    ],
    ids=["entry-point", "called-helper", "device-loop", "stored-closure"],
)
def test_hot_code_is_admitted_and_cold_code_skipped(hot: str, cold: str) -> None:
    assert admitted(hot)
    assert not admitted(cold)
    assert not check_text(cold, "m.py", HTD202)  # the rule finds nothing there indeed


def test_hooks_and_configured_hot_functions_admit_everything() -> None:
    cold = "def helper(x):\n    if x:\n        return 1\n"
    assert not admitted(cold)
    assert admitted(cold + "def install(m):\n    m.register_forward_hook(helper)\n")
    assert admitted(cold, analysis=(("hot-functions", ("helper",)),))


def test_without_a_path_every_function_may_be_hot() -> None:
    code = b"def helper(x):\n    if x:\n        return 1\n"
    assert candidate_rules(code, HTD202, ast.parse(code)) == HTD202


def test_a_function_the_project_calls_from_a_hot_one_is_admitted(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    helper = package / "helpers.py"
    helper.write_text("def pick(x):\n    if x:\n        return 1\n")
    caller = package / "model.py"
    paths = [str(package / "__init__.py"), str(helper), str(caller)]

    def helper_admitted(caller_code: str) -> bool:
        caller.write_text(caller_code)
        install(ProjectIndex(build_layout(paths)))
        try:
            return admitted(helper.read_text(), str(helper))
        finally:
            install(None)

    calling = (
        "from pkg.helpers import pick\nclass M:\n    def {}(self, x):\n        return pick(x)\n"
    )
    assert helper_admitted(calling.format("forward"))
    assert not helper_admitted(calling.format("setup"))


def test_the_hot_term_parses_as_def_and_hot() -> None:
    (term,) = Candidates.parse("hot @if arg Name").patterns[0]
    assert term.in_def and term.hot
    # without a gate (no path given), a hot term is a def term
    code = b"def f(x):\n    if x:\n        pass\n"
    assert Candidates.parse("hot @if arg Name").matches(summarize(ast.parse(code), code))
