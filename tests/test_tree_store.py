"""The project index's libcst trees kept on disk (``h2dlint/project/tree_store.py``)."""

from __future__ import annotations

import json
import os
import pickle
import time
from pathlib import Path

import libcst as cst
import pytest
from click.testing import CliRunner
from test_project_index import _package

from h2dlint.cli import main
from h2dlint.project import index as index_module
from h2dlint.project import tree_store
from h2dlint.project.tree_store import TreeStore

CODE = "import torch\n\ndef helper():\n    return torch.zeros(4)\n"


@pytest.fixture(autouse=True)
def _user_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This user's key lives in a cache folder of the test's own."""
    home = tmp_path / "user-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return home


def test_a_saved_tree_loads_back_equal(tmp_path: Path) -> None:
    store = TreeStore(tmp_path)
    tree = cst.parse_module(CODE)
    assert store.load("abc") is None
    store.save("abc", tree)
    loaded = store.load("abc")
    assert loaded is not None and loaded.code == CODE and loaded.deep_equals(tree)
    # Kept under a folder named for the format and the versions that made it.
    (kept,) = tmp_path.glob("trees-v*-py*-libcst*/abc.pickle")
    assert not list(kept.parent.glob("*.tmp"))


class _Planted:
    """Unpickling it makes a folder: what a pickle planted in a checkout's cache could do."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.makedirs, (self.path,))


@pytest.mark.parametrize(
    "content",
    [b"not a pickle", b"", json.dumps([1, 2]).encode(), pickle.dumps({"a": 1})],
    ids=["garbage", "empty", "json", "other-object"],
)
def test_a_damaged_or_foreign_file_is_ignored(tmp_path: Path, content: bytes) -> None:
    store = TreeStore(tmp_path)
    store.directory.mkdir(parents=True)
    (store.directory / "abc.pickle").write_bytes(content)
    assert store.load("abc") is None


def test_a_file_not_written_with_this_users_key_is_never_unpickled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    planted = tmp_path / "planted"
    payload = pickle.dumps(_Planted(str(planted)))
    store = TreeStore(tmp_path / "project-cache")
    store.directory.mkdir(parents=True)
    # Without a MAC, with a MAC of zeros, and with a MAC under another user's key.
    other = tree_store._mac(b"k" * tree_store.MAC_BYTES, payload)
    for data in (payload, bytes(tree_store.MAC_BYTES) + payload, other + payload):
        (store.directory / "abc.pickle").write_bytes(data)
        assert store.load("abc") is None
        assert not planted.exists()
    # The module is parsed again and its tree replaces the planted file.
    store.save("abc", cst.parse_module(CODE))
    loaded = store.load("abc")
    assert loaded is not None and loaded.code == CODE
    # This user's key is theirs alone.
    assert tree_store.user_key_file().stat().st_mode & 0o077 == 0
    # No key to be had (a read-only home): nothing is kept.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file" / "below-a-file"))
    (tmp_path / "file").write_text("")
    keyless = TreeStore(tmp_path / "other-cache")
    keyless.save("abc", cst.parse_module(CODE))
    assert keyless.load("abc") is None and not keyless.directory.exists()


def test_an_unwritable_folder_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    store = TreeStore(tmp_path / "file")  # its folder would be under a file
    store.save("abc", cst.parse_module(CODE))  # no error
    assert store.load("abc") is None


def test_old_trees_and_the_oldest_beyond_the_cap_are_pruned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tree_store, "MAX_TREES", 2)
    store = TreeStore(tmp_path)
    tree = cst.parse_module(CODE)
    now = time.time()
    for age, digest in [(40 * 86400, "old"), (3, "b"), (2, "c"), (1, "d")]:
        store.save(digest, tree)
        os.utime(store.directory / f"{digest}.pickle", (now - age, now - age))
    leftover = store.directory / ".tree-x.tmp"
    leftover.write_bytes(b"")
    os.utime(leftover, (now - 7200, now - 7200))
    store.prune(now)
    assert sorted(p.name for p in store.directory.iterdir()) == ["c.pickle", "d.pickle"]


def test_a_run_with_a_cache_loads_the_trees_it_parsed_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    step = "from .buffers import helper\n\ndef step(n):\n"
    step += "    return helper().to('cuda', non_blocking=True)\n"
    package = _package(tmp_path, {"__init__.py": "", "buffers.py": CODE, "step.py": step})
    parsed: list[str] = []
    real = index_module.parse_valid_python
    monkeypatch.setattr(
        index_module, "parse_valid_python", lambda text: parsed.append(text) or real(text)
    )

    def run(*extra: str) -> list[str]:
        args = ["-j1", *extra, "--output-format", "json", "pkg/step.py"]
        result = CliRunner().invoke(main, args, catch_exceptions=False)
        return [f["code"] for f in json.loads(result.stdout)]

    assert run("--no-cache") == ["HTD102"]  # helper() returns pageable memory
    assert parsed == [CODE] and not (tmp_path / "cache").exists()
    parsed.clear()
    assert run("--cache-dir", "cache") == ["HTD102"]
    assert parsed == [CODE]  # parsed once, then kept
    assert list((tmp_path / "cache").glob("trees-*/*.pickle"))
    parsed.clear()
    (package / "step.py").write_text((package / "step.py").read_text() + "# edited\n")
    assert run("--cache-dir", "cache") == ["HTD102"]  # the edited file is checked again...
    assert parsed == []  # ...with the other module's tree from the disk
    (package / "buffers.py").write_text(CODE.replace("zeros(4)", "zeros(4, device='cuda')"))
    assert run("--cache-dir", "cache") == []  # an edited module is parsed again, by content
    assert len(parsed) == 1
