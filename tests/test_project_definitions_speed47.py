"""Questions about another module's definitions answered from its summary (session 47):
whether a name is a class or function right in the module's body, and whether a base class is
the project's, without the defining module's libcst tree. The answers are ``resolve``'s; a
run with a cache gives the cold run's findings, also after the defining module is edited."""

from __future__ import annotations

import json
from pathlib import Path

import libcst as cst
import pytest
from click.testing import CliRunner

from h2dlint.analysis.project_definitions import (
    CLASS,
    FUNCTION,
    body_definition,
    resolves,
)
from h2dlint.analysis.provenance import Provenance
from h2dlint.cli import main
from h2dlint.context import FileContext
from h2dlint.project.index import ProjectIndex, install
from h2dlint.project.layout import build_layout

MODELS = """
import torch

FLAG = True


class Base:
    def __init__(self, n):
        self.cpu = torch.zeros(n, 4)


def helper():
    return 1


if FLAG:

    class Hidden:
        pass


class Twice:
    pass


def Twice():
    return 2
"""
USER = """
from pkg.models import Base, Hidden, Twice, helper


class Mine(Base):
    pass
"""


@pytest.fixture
def project(tmp_path: Path) -> tuple[ProjectIndex, Provenance, list[str]]:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "models.py").write_text(MODELS)
    (package / "user.py").write_text(USER)
    index = ProjectIndex(build_layout([str(package / "user.py")]))
    parsed: list[str] = []
    real = index._parse

    def recording(name: str) -> object:
        parsed.append(name)
        return real(name)

    index._parse = recording  # type: ignore[method-assign,assignment]
    install(index)
    path = str(package / "user.py")
    provenance = Provenance(FileContext(path, USER, cst.parse_module(USER)))
    yield index, provenance, parsed
    install(None)


def test_a_body_definition_is_told_by_the_summary(project: tuple) -> None:
    index, _, parsed = project
    assert body_definition(index, "pkg.models.Base") == ("pkg.models", "Base", CLASS)
    assert body_definition(index, "pkg.models.helper") == ("pkg.models", "helper", FUNCTION)
    # under an ``if``, or a class and a function of one name: the tree must tell
    assert body_definition(index, "pkg.models.Hidden") is None
    assert body_definition(index, "pkg.models.Twice") == ("pkg.models", "Twice", FUNCTION)
    assert body_definition(index, "pkg.models.missing") is None
    assert parsed == []


def test_whether_a_base_is_the_projects_without_its_tree(project: tuple) -> None:
    _, provenance, parsed = project
    assert resolves(provenance, "pkg.models.Base")
    assert not resolves(provenance, "torch.nn.Module")
    assert not resolves(provenance, "pkg.models.missing")
    assert parsed == []
    assert resolves(provenance, "pkg.models.Hidden")  # under an ``if``: resolved
    assert parsed == ["pkg.models"]


BUFFERS = """
import torch


class Staging:
    def __init__(self, n):
        self.cpu = torch.zeros(n, 4{pin})
"""
RUNNER = """
import torch
from pkg.buffers import Staging


class Runner:
    def __init__(self, device):
        self.device = device
        self.staging = Staging(8)

    def step(self, x):
        staging: Staging = self.staging
        return staging.cpu.to(self.device, non_blocking=True)
"""


def _check(cache: Path | None) -> list[tuple[str, int]]:
    where = ["--cache-dir", str(cache)] if cache is not None else ["--no-cache"]
    result = CliRunner().invoke(
        main, ["-j1", *where, "--select", "ALL", "--output-format", "json", "pkg/runner.py"]
    )
    return [(f["code"], f["location"]["row"]) for f in json.loads(result.stdout)]


def test_a_cached_run_gives_the_cold_runs_findings_after_another_module_is_edited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "buffers.py").write_text(BUFFERS.format(pin=""))
    (package / "runner.py").write_text(RUNNER)
    monkeypatch.chdir(tmp_path)
    cache = tmp_path / "cache"
    cold = _check(None)
    assert cold == [("HTD102", 13)]  # the staging class's buffer is pageable
    assert _check(cache) == cold
    assert _check(cache) == cold  # warm
    (package / "buffers.py").write_text(BUFFERS.format(pin=", pin_memory=True"))
    assert _check(None) == [] == _check(cache)
    (package / "buffers.py").write_text(BUFFERS.format(pin=""))
    assert _check(cache) == cold
