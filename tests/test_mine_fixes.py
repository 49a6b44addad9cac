"""scripts/mine_fixes.py: candidates from two releases, and files naming reserved projects
skipped unread (vllm and sglang are kept for an independent evaluation)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load() -> ModuleType:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        spec = importlib.util.spec_from_file_location("mine_fixes", ROOT / "scripts/mine_fixes.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["mine_fixes"] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(ROOT / "scripts"))


OLD = "def f(xs, dev):\n    for x in xs:\n        y = x.to(dev)\n    return y\n"
NEW = "def f(xs, dev):\n    y = xs.to(dev, non_blocking=True)\n    return y\n"


@pytest.fixture
def releases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    module = _load()
    for version, text in (("1.0", OLD), ("2.0", NEW)):
        root = tmp_path / version / "pkg"
        root.mkdir(parents=True)
        (root / "plain.py").write_text(text)
        (root / "shim.py").write_text("# adapted from vLLM\n" + text)
    monkeypatch.setattr(module, "fetch", lambda name, version: tmp_path / version)
    return module


def test_a_removed_copy_is_a_candidate(releases: ModuleType) -> None:
    mined = releases.mine_pair("demo", "1.0", "2.0")
    assert [(c.file, c.old_line) for c in mined.candidates] == [("pkg/plain.py", 3)]


def test_a_file_naming_a_reserved_project_is_skipped_unread(releases: ModuleType) -> None:
    mined = releases.mine_pair("demo", "1.0", "2.0")
    assert all(c.file != "pkg/shim.py" for c in mined.candidates)
    assert mined.skipped_reserved == 1


def test_reserved_packages_are_refused(releases: ModuleType) -> None:
    with pytest.raises(ValueError, match="reserved"):
        releases.mine_pair("vllm", "1.0", "2.0")
