"""The dataclasses' generated methods taken from a kept table (h2dlint.dataclass_code): the same
code as compiling them, a table written and read back, a broken or foreign file ignored."""

from __future__ import annotations

import dataclasses
import importlib.util
import marshal
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from h2dlint import dataclass_code


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "__pycache__" / "table.marshal"
    monkeypatch.setattr(dataclass_code, "table_path", lambda: str(path))
    monkeypatch.setattr(dataclass_code, "_table", None)
    monkeypatch.setattr(dataclass_code, "_compiled", {})
    monkeypatch.setattr(dataclass_code, "_used", set())
    return path


def _define() -> tuple[type, type]:
    @dataclasses.dataclass(frozen=True)
    class Point:
        x: int
        y: int = 2
        tags: tuple[str, ...] = ()

    @dataclasses.dataclass(order=True)
    class Box:
        items: list[int] = dataclasses.field(default_factory=list)
        name: str = "box"

    return Point, Box


_METHODS = ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__", "__lt__")


def _codes(cls: type) -> dict[str, Any]:
    return {
        name: getattr(cls, name).__code__
        for name in _METHODS
        if name in vars(cls) and hasattr(getattr(cls, name), "__code__")
    }


def test_kept_methods_are_the_compiled_ones(table: Path) -> None:
    plain = _define()
    with dataclass_code.kept(write=True):
        first = _define()  # compiled, then written
    assert table.is_file()
    assert "exec" not in vars(dataclasses)
    dataclass_code._table = None  # as a new process: the table is read from the file
    with dataclass_code.kept(write=True):
        second = _define()
    assert not dataclass_code._compiled  # nothing was missing
    for a, b, c in zip(plain, first, second, strict=True):
        assert _codes(a) == _codes(b) == _codes(c)
        assert _codes(a)
    point = second[0](1)
    assert point == second[0](1) != second[0](2)
    assert repr(point) == repr(plain[0](1))
    assert hash(point) == hash(second[0](1))
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 3  # type: ignore[misc]
    assert second[1]([1]) < second[1]([2])
    assert second[1]().items == []


def test_nothing_written_unless_asked(table: Path) -> None:
    with dataclass_code.kept(write=False):
        _define()
    assert not table.exists()


@pytest.mark.parametrize(
    "content",
    [b"", b"garbage", importlib.util.MAGIC_NUMBER + b"\x00", b"\x00\x00\x00\x00" + b"x" * 10],
)
def test_a_broken_file_counts_as_empty(table: Path, content: bytes) -> None:
    table.parent.mkdir(parents=True)
    table.write_bytes(content)
    with dataclass_code.kept(write=True):
        point = _define()[0](1)
    assert point.y == 2
    assert dataclass_code._load(str(table))  # written again, whole


def test_a_table_of_other_things_is_ignored(table: Path) -> None:
    table.parent.mkdir(parents=True)
    table.write_bytes(importlib.util.MAGIC_NUMBER + marshal.dumps([1, 2]))
    assert dataclass_code._load(str(table)) == {}
    table.write_bytes(importlib.util.MAGIC_NUMBER + marshal.dumps({"a": 1}))
    assert dataclass_code._load(str(table)) == {}


def test_an_unwritable_place_is_left_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("")
    monkeypatch.setattr(dataclass_code, "table_path", lambda: str(blocked / "x" / "t.marshal"))
    monkeypatch.setattr(dataclass_code, "_table", None)
    monkeypatch.setattr(dataclass_code, "_compiled", {})
    with dataclass_code.kept(write=True):
        assert _define()[0](1).x == 1
    assert "exec" not in vars(dataclasses)


def test_a_large_table_keeps_this_runs_sources(
    table: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with dataclass_code.kept(write=True):
        _define()
    kept = len(dataclass_code._load(str(table)))
    stale = {f"# stale {i}": compile("", "<string>", "exec") for i in range(5)}
    table.write_bytes(
        importlib.util.MAGIC_NUMBER + marshal.dumps({**stale, **dataclass_code._load(str(table))})
    )
    monkeypatch.setattr(dataclass_code, "MAX_KEPT", kept + 4)
    dataclass_code._table = None
    with dataclass_code.kept(write=True):
        _define()

        @dataclasses.dataclass
        class Extra:
            z: float = 0.5

    written = dataclass_code._load(str(table))
    assert not set(stale) & set(written)
    assert len(written) > kept


def test_nested_blocks_leave_the_outer_one(table: Path) -> None:
    with dataclass_code.kept(write=True):
        with dataclass_code.kept(write=True):
            _define()
        assert "exec" in vars(dataclasses)
    assert "exec" not in vars(dataclasses)


def test_the_module_writes_the_table_for_a_check(tmp_path: Path) -> None:
    """``python -m h2dlint.dataclass_code`` writes the table where a run looks for it (here
    under a pycache prefix, as ``PYTHONPYCACHEPREFIX`` puts ``.pyc`` files)."""
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "h2dlint.dataclass_code"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    path = Path(done.stdout.strip())
    assert path.is_file() and str(path).startswith(str(tmp_path))
    assert len(dataclass_code._load(str(path))) > 200  # libcst's nodes and h2dlint's own
