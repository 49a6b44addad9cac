"""scripts/fetch_corpus.py: what a fetch unpacks (no network: archives made here)."""

from __future__ import annotations

import zipfile
from pathlib import Path

from corpus import fetch_corpus_module


def _wheel(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("pkg/model.py", "import torch\n")
        archive.writestr("pkg/shim.py", "# adapted from SGLang's scheduler\n")
        archive.writestr("pkg/notes.txt", "not python\n")
    return path


def test_only_python_files_are_unpacked(tmp_path: Path) -> None:
    fetch_corpus = fetch_corpus_module()
    assert fetch_corpus._unpack_py(_wheel(tmp_path / "p.whl"), tmp_path / "out") == 2
    assert sorted(p.name for p in (tmp_path / "out").rglob("*")) == [
        "model.py",
        "pkg",
        "shim.py",
    ]


def test_files_naming_a_reserved_project_are_dropped_where_asked(tmp_path: Path) -> None:
    fetch_corpus = fetch_corpus_module()
    archive = _wheel(tmp_path / "p.whl")
    assert fetch_corpus._unpack_py(archive, tmp_path / "out", drop_reserved=True) == 1
    assert [p.name for p in (tmp_path / "out").rglob("*.py")] == ["model.py"]


def test_packages_labelled_without_such_files_drop_them() -> None:
    fetch_corpus = fetch_corpus_module()
    pinned = {**fetch_corpus.PACKAGES, **fetch_corpus.SERVING_PACKAGES}
    assert fetch_corpus.DROPS_RESERVED_MENTIONS - set(pinned) == set()
