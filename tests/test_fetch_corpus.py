"""scripts/fetch_corpus.py: what a fetch unpacks (no network: archives made here)."""

from __future__ import annotations

import zipfile
from pathlib import Path

from corpus import fetch_corpus_module


def _wheel(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("pkg/model.py", "import torch\n")
        archive.writestr("pkg/shim.py", "# talks to an SGLang server\n")
        archive.writestr("pkg/vllm/loader.py", "import torch\n")
        archive.writestr("pkg/notes.txt", "not python\n")
    return path


def test_only_python_files_are_unpacked(tmp_path: Path) -> None:
    fetch_corpus = fetch_corpus_module()
    assert fetch_corpus._unpack_py(_wheel(tmp_path / "p.whl"), tmp_path / "out") == 3
    assert sorted(p.name for p in (tmp_path / "out").rglob("*")) == [
        "loader.py",
        "model.py",
        "pkg",
        "shim.py",
        "vllm",
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


def test_files_that_vendor_reserved_code_are_always_dropped(tmp_path: Path) -> None:
    fetch_corpus = fetch_corpus_module()
    with zipfile.ZipFile(tmp_path / "v.whl", "w") as archive:
        archive.writestr("pkg/a.py", "# modify from: https://github.com/vllm-project/vllm\n")
        archive.writestr("pkg/b.py", "# Copyright 2025 The vLLM authors.\n")
        archive.writestr("pkg/c.py", "# Adapted from sgl-project/sglang python/sglang/srt/x.py\n")
        archive.writestr("pkg/d.py", "def f():\n    # modify from vllm\n    pass\n")
        archive.writestr(
            "pkg/d2.py", "# Copied and adapted from: https://github.com/sglang-ai/sglang\n"
        )
        # mentions only: kept
        archive.writestr("pkg/e.py", "from vllm import SamplingParams\n")
        archive.writestr("pkg/f.py", "# Copyright 2025 Alpha-VLLM Authors\n")
        archive.writestr(
            "pkg/g.py", "# adapted from https://github.com/vllm-project/llm-compressor\n"
        )
        archive.writestr("pkg/h.py", "# copied from vllm-ascend commit 420e794\n")
        archive.writestr("pkg/i.py", "# adopted by the vLLM Project: github.com/vllm-project\n")
        archive.writestr("pkg/j.py", "# Modified from vllm_worker (this package's own)\n")
        archive.writestr("pkg/k.py", '"""Rebuild the copy vLLM derives from the weight."""\n')
    assert fetch_corpus._unpack_py(tmp_path / "v.whl", tmp_path / "out") == 7
    assert sorted(p.name for p in (tmp_path / "out").rglob("*.py")) == [
        "e.py",
        "f.py",
        "g.py",
        "h.py",
        "i.py",
        "j.py",
        "k.py",
    ]


def test_a_folder_unpacked_earlier_is_pruned_once(tmp_path: Path) -> None:
    fetch_corpus = fetch_corpus_module()
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/a.py").write_text("# modified from https://github.com/vllm-project/vllm\n")
    (tmp_path / "pkg/b.py").write_text("import torch\n")
    assert fetch_corpus.drop_vendored_reserved(tmp_path) == [tmp_path / "pkg/a.py"]
    assert sorted(p.name for p in tmp_path.rglob("*.py")) == ["b.py"]
    assert (tmp_path / fetch_corpus.PRUNED_MARK).read_text() == "pkg/a.py\n"
