"""The example projects under tests/projects/: what h2dlint must find in whole code bases, and
what it must leave alone.

Each project is a small multi-module package written in the shapes of the seed write-ups
(shared/seeds) and of the misses users reported. Expectations are comments on the line where
the finding must be reported:

- ``# expect: HTD103`` (several codes comma-separated): reported on this line with that code;
- ``# expect-not: HTD101``: a look-alike, not reported on this line with that code;
- ``# expect: HTD202?``: a rule that does not exist yet (pending); once the code is a rule,
  the expectation counts like any other;
- ``# allow: HTD102``: may be reported here or not (the verdict hangs on facts the project
  does not show, such as what a processor outside it returns); no test of its own;
- clauses are separated by ``;`` (``# expect: HTD202?; expect-not: HTD201``).

A finding on a line that does not expect its code is a failure too (one test per file).

Each project is checked twice: as a whole tree (``h2dlint serving_mm``) and file by file
(``h2dlint serving_mm/runner.py``, as pre-commit passes a few files). The verdict for a file
must be the same both ways: facts from other modules (a buffer class, an imported helper)
have to come from the project, whatever paths were named.

``KNOWN_MISSES`` lists the expectations that fail today, as strict xfails: when the rules
catch up, the test passes, xfail-strict fails, and the entry must go.
"""

from __future__ import annotations

import functools
import io
import json
import os
import re
import subprocess
import sys
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from h2dlint.registry import all_rules

ROOT = Path(__file__).resolve().parent.parent
PROJECTS_DIR = ROOT / "tests" / "projects"
CONFIG = PROJECTS_DIR / "h2dlint.toml"
PROJECTS = tuple(sorted(p.name for p in PROJECTS_DIR.iterdir() if (p / "__init__.py").is_file()))
MODES = ("tree", "file")

CLAUSE = re.compile(r"\b(expect|expect-not|allow):([^;#]*)")
CODE = re.compile(r"^HTD\d{3}\??$")
RULE_CODES = frozenset(all_rules())

# Expectations that fail today in both modes (ids as in the test ids, without the mode).
# Grouped by what the rules lack; see the projects for the code itself.
KNOWN_MISSES: frozenset[str] = frozenset()

# Expectations that fail only when the file is checked on its own ("file:" + id).
KNOWN_SCOPE_MISSES: frozenset[str] = frozenset()

# Findings today on lines that expect no such finding ("path:line:code"), in both modes.
KNOWN_UNEXPECTED: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Expectation:
    path: str  # relative to tests/projects, with "/"
    line: int
    code: str  # without "?"
    kind: str  # "expect", "expect-not", "pending" or "allow"

    @property
    def id(self) -> str:
        if self.kind == "expect-not":
            return f"{self.path}:{self.line}:not-{self.code}"
        suffix = "?" if self.kind == "pending" else ""
        return f"{self.path}:{self.line}:{self.code}{suffix}"

    @property
    def wants_finding(self) -> bool:
        return self.kind != "expect-not"


def project_files(project: str) -> list[str]:
    root = PROJECTS_DIR / project
    return sorted(p.relative_to(PROJECTS_DIR).as_posix() for p in root.rglob("*.py"))


def _comments(source: str) -> Iterator[tuple[int, str]]:
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string


def parse_expectations(path: str, source: str) -> list[Expectation]:
    found = []
    for line, comment in _comments(source):
        for kind, codes in CLAUSE.findall(comment):
            for raw in (c.strip() for c in codes.split(",")):
                if not CODE.match(raw):
                    raise ValueError(f"{path}:{line}: bad code {raw!r} in {comment!r}")
                code = raw.rstrip("?")
                if kind in ("expect-not", "allow"):
                    found.append(Expectation(path, line, code, kind))
                elif raw.endswith("?") and code not in RULE_CODES:
                    found.append(Expectation(path, line, code, "pending"))
                else:
                    found.append(Expectation(path, line, code, "expect"))
    return found


@functools.cache
def expectations(project: str) -> tuple[Expectation, ...]:
    return tuple(
        e
        for path in project_files(project)
        for e in parse_expectations(path, (PROJECTS_DIR / path).read_text(encoding="utf-8"))
    )


ARGS = (
    "check",
    "--config",
    str(CONFIG),
    "--select",
    "ALL",
    "--no-cache",
    "--exit-zero",
    "-j",
    "1",
    "--output-format",
    "json",
)


def battery_findings(directory: Path, cases: tuple[str, ...]) -> frozenset[tuple[str, int, str]]:
    """(path under ``directory``, line, code) of every finding of one h2dlint run over the
    ``cases`` (top-level packages of ``directory``) with the projects' settings: the variant
    batteries' runner. The directory is the working directory, so the checkout under test
    goes first on the path, not an installed h2dlint elsewhere."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    result = subprocess.run(
        [sys.executable, "-m", "h2dlint", *ARGS, *cases],
        cwd=directory,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return frozenset(
        (
            Path(r["filename"]).resolve().relative_to(directory).as_posix(),
            r["location"]["row"],
            r["code"],
        )
        for r in json.loads(result.stdout)
    )


DRIVER = Path(__file__).resolve().parent / "seed_projects_driver.py"


def _run(command: list[str], cwd: Path = PROJECTS_DIR) -> str:
    # The checkout's own h2dlint, also from a git worktree of a checkout installed editable.
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    result = subprocess.run(
        command,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def _located(records: list[dict[str, Any]], home: Path) -> set[tuple[str, int, str]]:
    """(path, line, code) of each finding, paths relative to ``home`` (as to tests/projects)."""
    return {
        (
            Path(record["filename"]).resolve().relative_to(home.resolve()).as_posix(),
            record["location"]["row"],
            record["code"],
        )
        for record in records
    }


@functools.cache
def findings(project: str, mode: str) -> frozenset[tuple[str, int, str]]:
    """The findings of one run over the project's tree, or of one run per file of it (each in
    a process of its own, forked by the driver after the import). The projects are checked
    in place, side by side: one project index over tests/projects (h2dlint/project/roots.py)
    holds their same-named classes (three ``Sampler``), which every importer tells apart
    through its imports (session 46)."""
    home = PROJECTS_DIR
    if mode == "tree":
        command = [sys.executable, "-m", "h2dlint", *ARGS, project]
        return frozenset(_located(json.loads(_run(command, home)), home))
    request = json.dumps([list(ARGS), project_files(project)])
    by_file = json.loads(_run([sys.executable, str(DRIVER), request], home))
    records = [record for records in by_file.values() for record in records]
    return frozenset(_located(records, home))


def _expectation_params() -> list[object]:
    params = []
    for project in PROJECTS:
        for expectation in expectations(project):
            if expectation.kind == "allow":
                continue
            for mode in MODES:
                marks: list[pytest.MarkDecorator] = []
                if expectation.kind == "pending":
                    reason = f"{expectation.code} is not a rule yet"
                    marks.append(pytest.mark.xfail(strict=True, reason=reason))
                elif expectation.id in KNOWN_MISSES:
                    marks.append(pytest.mark.xfail(strict=True, reason="known miss"))
                elif mode == "file" and f"file:{expectation.id}" in KNOWN_SCOPE_MISSES:
                    marks.append(pytest.mark.xfail(strict=True, reason="known scope miss"))
                params.append(
                    pytest.param(
                        project, mode, expectation, marks=marks, id=f"{mode}:{expectation.id}"
                    )
                )
    return params


@pytest.mark.parametrize(("project", "mode", "expectation"), _expectation_params())
def test_expectation(project: str, mode: str, expectation: Expectation) -> None:
    reported = (expectation.path, expectation.line, expectation.code) in findings(project, mode)
    if expectation.wants_finding:
        assert reported, f"{expectation.code} not reported on {expectation.path}:{expectation.line}"
    else:
        assert not reported, (
            f"{expectation.code} reported on the look-alike {expectation.path}:{expectation.line}"
        )


def _file_params() -> list[object]:
    return [
        pytest.param(project, mode, path, id=f"{mode}:{path}")
        for project in PROJECTS
        for path in project_files(project)
        for mode in MODES
    ]


@pytest.mark.parametrize(("project", "mode", "path"), _file_params())
def test_no_unexpected_findings(project: str, mode: str, path: str) -> None:
    marked = {(e.line, e.code) for e in expectations(project) if e.path == path}
    unexpected = {
        f"{p}:{line}:{code}"
        for p, line, code in findings(project, mode)
        if p == path and (line, code) not in marked
    }
    known = {entry for entry in KNOWN_UNEXPECTED if entry.startswith(f"{path}:")}
    assert unexpected - known == set(), "findings on lines that expect none"
    assert known - unexpected == set(), "gone from the findings: remove from KNOWN_UNEXPECTED"


def test_known_lists_name_real_expectations() -> None:
    ids = {e.id for project in PROJECTS for e in expectations(project)}
    assert KNOWN_MISSES - ids == set()
    assert {entry.removeprefix("file:") for entry in KNOWN_SCOPE_MISSES} - ids == set()


def test_projects_parse_and_have_expectations() -> None:
    assert PROJECTS, "no example projects found"
    for project in PROJECTS:
        for path in project_files(project):
            compile((PROJECTS_DIR / path).read_text(encoding="utf-8"), path, "exec")
        kinds = {e.kind for e in expectations(project)}
        assert {"expect", "expect-not"} <= kinds, project


@pytest.mark.parametrize(
    ("comment", "parsed"),
    [
        ("x = 1  # expect: HTD103", [("HTD103", "expect")]),
        ("x = 1  # expect: HTD101, HTD102", [("HTD101", "expect"), ("HTD102", "expect")]),
        ("x = 1  # expect-not: HTD101", [("HTD101", "expect-not")]),
        (
            "x = 1  # expect: HTD299?; expect-not: HTD201",
            [("HTD299", "pending"), ("HTD201", "expect-not")],
        ),
        ("x = 1  # expect: HTD101; allow: HTD102", [("HTD101", "expect"), ("HTD102", "allow")]),
        ("x = 1  # expect: HTD103?", [("HTD103", "expect")]),  # a rule now: counts
        ("x = '# expect: HTD103'", []),  # not a comment
        ("x = 1  # nothing expected", []),
    ],
)
def test_parse_expectations(comment: str, parsed: list[tuple[str, str]]) -> None:
    assert [(e.code, e.kind) for e in parse_expectations("m.py", comment + "\n")] == parsed


def test_bad_code_in_expectation_is_an_error() -> None:
    with pytest.raises(ValueError, match="bad code"):
        parse_expectations("m.py", "x = 1  # expect: H2D003\n")


def _report_today() -> None:
    """``python tests/test_seed_projects.py``: the ids that fail now, and the unexpected
    findings, to update the KNOWN_ lists after editing a project."""
    for project in PROJECTS:
        for mode in MODES:
            found = findings(project, mode)
            for e in expectations(project):
                if (
                    e.kind not in ("pending", "allow")
                    and ((e.path, e.line, e.code) in found) != e.wants_finding
                ):
                    print(f"{mode:4}  fails       {e.id}")
            marked = {(e.path, e.line, e.code) for e in expectations(project)}
            for path, line, code in sorted(found - marked):
                print(f"{mode:4}  unexpected  {path}:{line}:{code}")


if __name__ == "__main__":
    _report_today()
