"""Fixture files: loading one by path, checking its contract, and finding before/after pairs.

A fixture is a Python file defining ``setup(device) -> state`` and ``run(state) -> outputs``; it
may set ``HOST_READ = True``, ``SYNC_RULE = True`` and ``REPEATS = <int>``, and define
``expected(state) -> outputs``: the correct outputs of the last ``run(state)``, which makes its
pair a *race pair* (``before`` computes wrong results, ``after`` the expected ones).

Every problem with a fixture or a path raises :class:`FixtureError` with a message that names
the file; nothing here lets a traceback through. This module imports torch only in
:func:`run_fixture_on_cpu_with_expected`.
"""

from __future__ import annotations

import importlib.util
import inspect
import itertools
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BEFORE = "before.py"
AFTER = "after.py"

_counter = itertools.count()


class FixtureError(Exception):
    """A fixture file or a path given to ``verify`` is unusable; the message names it."""


@dataclass(frozen=True)
class Fixture:
    """A loaded fixture: its two functions and the optional settings it declares."""

    path: Path
    setup: Callable[[Any], Any]
    run: Callable[[Any], Any]
    host_read: bool | None = None
    sync_rule: bool | None = None
    repeats: int | None = None
    # The correct outputs of the last ``run(state)``: set for the sides of a race pair.
    expected: Callable[[Any], Any] | None = None


@dataclass(frozen=True)
class FixturePair:
    """Two fixture files of one workload: the code before the fix and after it."""

    name: str
    before: Path
    after: Path


@dataclass(frozen=True)
class PairOptions:
    """The settings of a pair: each is taken from ``after``, else ``before``, else the default."""

    host_read: bool = False
    sync_rule: bool = False
    repeats: int | None = None
    # A race pair: a side defines ``expected(state)``; before must be wrong, after right.
    race: bool = False


def _module_name(path: Path) -> str:
    stem = re.sub(r"\W", "_", path.stem) or "fixture"
    return f"h2dlint_fixture_{next(_counter)}_{stem}"


def _import(path: Path) -> Any:
    if not path.is_file():
        raise FixtureError(f"{path}: no such fixture file")
    if path.suffix != ".py":
        raise FixtureError(f"{path}: a fixture must be a Python file ending in .py")
    name = _module_name(path)
    spec = importlib.util.spec_from_file_location(name, path.resolve())
    if spec is None or spec.loader is None:  # pragma: no cover - .py always has a loader
        raise FixtureError(f"{path}: cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        del sys.modules[name]
        where = f"{path}:{exc.lineno}" if exc.lineno else str(path)
        if exc.lineno and exc.offset:
            where += f":{exc.offset}"
        raise FixtureError(f"{where}: syntax error in fixture: {exc.msg}") from None
    except BaseException as exc:
        del sys.modules[name]
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise FixtureError(
            f"{path}: importing the fixture raised {type(exc).__name__}: {exc}"
        ) from None
    return module


def _function(path: Path, module: Any, name: str, parameter: str) -> Callable[[Any], Any]:
    signature = f"`{name}({parameter})`"
    if not hasattr(module, name):
        raise FixtureError(f"{path}: fixture has no {signature} function")
    function = getattr(module, name)
    if not callable(function):
        kind = type(function).__name__
        raise FixtureError(f"{path}: `{name}` must be a function {signature}, not {kind}")
    try:
        sig = inspect.signature(function)
    except (TypeError, ValueError):  # builtins without a signature: trust them
        return function  # type: ignore[no-any-return]
    try:
        sig.bind(object())
    except TypeError:
        raise FixtureError(
            f"{path}: `{name}` must take exactly one argument, {signature}; it is `{name}{sig}`"
        ) from None
    return function  # type: ignore[no-any-return]


def _flag(path: Path, module: Any, name: str) -> bool | None:
    value = getattr(module, name, None)
    if value is None or isinstance(value, bool):
        return value
    raise FixtureError(f"{path}: `{name}` must be True or False, not {value!r}")


def _repeats(path: Path, module: Any) -> int | None:
    value = getattr(module, "REPEATS", None)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise FixtureError(f"{path}: `REPEATS` must be a positive integer, not {value!r}")
    return value


def load_fixture(path: Path) -> Fixture:
    """Import the fixture at ``path`` under a unique module name and check its contract."""
    path = Path(path)
    module = _import(path)
    return Fixture(
        path=path,
        setup=_function(path, module, "setup", "device"),
        run=_function(path, module, "run", "state"),
        host_read=_flag(path, module, "HOST_READ"),
        sync_rule=_flag(path, module, "SYNC_RULE"),
        repeats=_repeats(path, module),
        expected=(
            _function(path, module, "expected", "state") if hasattr(module, "expected") else None
        ),
    )


def pair_options(before: Fixture, after: Fixture) -> PairOptions:
    """The pair's settings: ``after``'s value where it sets one, else ``before``'s, else default."""

    def pick(name: str, default: Any) -> Any:
        for fixture in (after, before):
            value = getattr(fixture, name)
            if value is not None:
                return value
        return default

    return PairOptions(
        host_read=pick("host_read", False),
        sync_rule=pick("sync_rule", False),
        repeats=pick("repeats", None),
        race=before.expected is not None or after.expected is not None,
    )


def expected_of(fixture: Fixture, other: Fixture) -> Callable[[Any], Any] | None:
    """The ``expected(state)`` that judges ``fixture``'s outputs: its own, else the other side's
    (called with this side's state)."""
    return fixture.expected if fixture.expected is not None else other.expected


def _pair_in(directory: Path) -> FixturePair | None:
    before, after = directory / BEFORE, directory / AFTER
    if before.is_file() and after.is_file():
        return FixturePair(directory.resolve().name, before, after)
    if before.is_file() or after.is_file():
        present, missing = (BEFORE, AFTER) if before.is_file() else (AFTER, BEFORE)
        raise FixtureError(f"{directory}: has {present} but no {missing}")
    return None


def _pairs_in(directory: Path) -> list[FixturePair]:
    pair = _pair_in(directory)
    if pair is not None:
        return [pair]
    pairs = [p for sub in sorted(directory.iterdir()) if sub.is_dir() for p in [_pair_in(sub)] if p]
    if not pairs:
        raise FixtureError(
            f"{directory}: no fixture pairs (expected {BEFORE} and {AFTER} in it, "
            "or in its subdirectories)"
        )
    return pairs


def _file_pair(before: Path, after: Path) -> FixturePair:
    if before.resolve().parent == after.resolve().parent:
        name = before.resolve().parent.name
    else:
        name = f"{before.stem} vs {after.stem}"
    return FixturePair(name, before, after)


def discover_pairs(paths: Sequence[Path]) -> list[FixturePair]:
    """Pairs from the command line: two files (before, after), or directories.

    A directory is a pair when it holds ``before.py`` and ``after.py``; otherwise each of its
    immediate subdirectories that holds them is one (like ``fixtures/``).
    """
    if not paths:
        raise FixtureError("give two fixture files (before, after) or directories of pairs")
    for path in paths:
        if not path.exists():
            raise FixtureError(f"{path}: no such file or directory")
    files = [p for p in paths if not p.is_dir()]
    if files:
        if len(files) != len(paths):
            raise FixtureError("give either two fixture files (before, after) or directories")
        if len(files) != 2:
            raise FixtureError(
                f"give exactly two fixture files, before and after (got {len(files)})"
            )
        return [_file_pair(files[0], files[1])]
    pairs = [pair for path in paths for pair in _pairs_in(path)]
    names = [pair.name for pair in pairs]
    if len(set(names)) != len(names):  # disambiguate same-named pairs by their path
        pairs = [FixturePair(str(p.before.parent), p.before, p.after) for p in pairs]
    return pairs


def run_fixture_on_cpu(path: Path) -> Any:
    """Load the fixture at ``path``, call ``setup(torch.device("cpu"))`` and return ``run``'s
    outputs: lets CI check a pair's outputs without a GPU."""
    return run_fixture_on_cpu_with_expected(path)[0]


def run_fixture_on_cpu_with_expected(path: Path) -> tuple[Any, Any]:
    """``run``'s outputs on the CPU and, for a fixture that defines ``expected(state)``, the
    outputs it expects (else None). On the CPU no copy is asynchronous: a race pair's two sides
    must both give the expected outputs there."""
    import torch

    fixture = load_fixture(Path(path))
    state = fixture.setup(torch.device("cpu"))
    outputs = fixture.run(state)
    expected = fixture.expected(state) if fixture.expected is not None else None
    return outputs, expected
