"""A test that calls a helper with no argument (``if is_torchdynamo_compiling():``) passes it
nothing it could read: HTD202 does not resolve the helper (nor parse or load its module) to
ask whether it returns a tensor test of an argument (session 46: transformers'
``utils/import_utils.py``, loaded by every modeling file's worker for its ``is_*()`` tests).
A helper called with the tensor is still resolved and read through."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import h2dlint.project.index
from h2dlint.cli import main

HELPERS = """
import torch


def is_compiling():
    return torch.ones(1).cuda().any()


def has_one_value(t):
    return (t == t[0]).all()
"""
MODEL = """
import torch
from torch import nn

from pkg.helpers import {name}


class Experts(nn.Module):
    def forward(self, x):
        sizes = torch.stack([x.sum(), x.mean()]).cuda()
        if {call}:
            x = x + 1
        return x
"""


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, call: str) -> tuple:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "helpers.py").write_text(HELPERS)
    (package / "model.py").write_text(MODEL.format(name=name, call=call))
    parsed: list[str] = []
    real = h2dlint.project.index.ProjectIndex._parse

    def recording(self: h2dlint.project.index.ProjectIndex, module: str) -> object:
        parsed.append(module)
        return real(self, module)

    monkeypatch.setattr(h2dlint.project.index.ProjectIndex, "_parse", recording)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(
        main,
        ["-j1", "--no-cache", "--select", "HTD202", "--output-format", "json", "pkg/model.py"],
    )
    rows = [f["location"]["row"] for f in json.loads(result.stdout)]
    return rows, parsed


def test_a_helper_called_without_arguments_is_not_resolved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows, parsed = _run(tmp_path, monkeypatch, "is_compiling", "is_compiling()")
    assert "pkg.helpers" not in parsed
    assert 11 not in rows


def test_a_helper_called_with_the_tensor_is_still_read_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows, parsed = _run(tmp_path, monkeypatch, "has_one_value", "has_one_value(sizes)")
    assert "pkg.helpers" in parsed
    assert 11 in rows
