"""The compiled code of the methods ``dataclasses`` generates, kept between runs like ``.pyc``.

Defining a dataclass writes the source of its methods (``__init__``, ``__eq__``, a frozen
class's ``__setattr__``, ...) and compiles it with ``exec``. A check defines about 290 before its
first file: libcst's node classes and h2dlint's own. Compiling their sources was a third of the
main process's CPU before a pre-commit run forks its workers (0.09 of 0.3 s, more than the
rest of importing libcst), paid again by every run, while the sources are the same each time.

:func:`kept` gives the ``dataclasses`` module, while a block runs, an ``exec`` that looks each
source up in a table of code objects and compiles only what it lacks, as ``exec`` would (flags
of a module without ``__future__`` imports, file name ``<string>``): the methods are the same
code. The table lives in a file in h2dlint's ``__pycache__`` (as CPython's ``.pyc`` files do,
honouring ``PYTHONPYCACHEPREFIX`` and ``PYTHONDONTWRITEBYTECODE``; ``python -m
h2dlint.dataclass_code`` writes it regardless, as ``compileall`` does), under a name with this
interpreter's cache tag and optimization level, behind its bytecode magic number; a file that
cannot be read, or was written by another interpreter, counts as empty, and one that cannot be
written is not written. It is written again (whole, replaced atomically) after a block that
compiled a source it lacked: the first run after an upgrade of libcst or of h2dlint.
"""

from __future__ import annotations

import builtins
import dataclasses
import importlib.util
import marshal
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from types import CodeType
from typing import Any

# A file holding more than this many sources is written again with those of this run only
# (each upgrade of libcst or h2dlint adds its classes' sources).
MAX_KEPT = 8000
_NAME = "dataclass-methods"

_table: dict[str, CodeType] | None = None
_compiled: dict[str, CodeType] = {}  # compiled during this process's blocks, not in the file
_used: set[str] = set()


def table_path() -> str | None:
    """Where the table is kept; None when this interpreter keeps no bytecode files."""
    package = os.path.dirname(os.path.abspath(__file__))
    try:
        cached = importlib.util.cache_from_source(os.path.join(package, _NAME + ".py"))
    except NotImplementedError:  # no cache tag
        return None
    return os.path.splitext(cached)[0] + ".marshal"


def _load(path: str | None) -> dict[str, CodeType]:
    if path is None:
        return {}
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError:
        return {}
    magic = importlib.util.MAGIC_NUMBER
    if not data.startswith(magic):
        return {}
    try:
        table = marshal.loads(data[len(magic) :])
    except (EOFError, ValueError, TypeError):
        return {}
    if not isinstance(table, dict):
        return {}
    return {k: v for k, v in table.items() if isinstance(k, str) and isinstance(v, CodeType)}


def _save(path: str | None, table: dict[str, CodeType]) -> None:
    if path is None:
        return
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temporary, "wb") as file:
            file.write(importlib.util.MAGIC_NUMBER + marshal.dumps(table))
        os.replace(temporary, path)
    except (OSError, ValueError):
        with suppress(OSError):
            os.unlink(temporary)


def _exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:
    """``exec`` for ``dataclasses``: a source string's code from the table when it is there."""
    if isinstance(source, str) and _table is not None:
        code = _table.get(source)
        if code is None:
            code = _compiled.get(source)
            if code is None:
                # What exec(source) compiles in a module without __future__ imports.
                code = _compiled[source] = compile(source, "<string>", "exec", dont_inherit=True)
        _used.add(source)
        builtins.exec(code, globals, locals)
        return
    builtins.exec(source, globals, locals)


@contextmanager
def kept(write: bool | None = None) -> Iterator[None]:
    """Dataclasses defined while the block runs take their methods' code from the kept
    table; what the table lacked is written to it afterwards (unless ``write`` is false; by
    default, unless this interpreter writes no bytecode)."""
    global _table
    if "exec" in vars(dataclasses):  # an enclosing block, or someone else's: leave it be
        yield
        return
    path = table_path()
    if _table is None:
        _table = _load(path)
    before = len(_compiled)
    dataclasses.exec = _exec  # type: ignore[attr-defined]
    try:
        yield
    finally:
        del dataclasses.exec  # type: ignore[attr-defined]
        if write is None:
            write = not sys.dont_write_bytecode
        if len(_compiled) > before and write:
            _write(path)


def _write(path: str | None) -> None:
    global _table
    assert _table is not None
    if len(_table) + len(_compiled) <= MAX_KEPT:
        table = {**_table, **_compiled}
    else:
        table = {source: _table[source] for source in _used if source in _table}
        table.update(_compiled)
    _save(path, table)
    _table = table
    _compiled.clear()


# What a check imports before its first file, by name (this module sits below them).
CHECK_MODULES = ("h2dlint.check_command", "libcst.native", "h2dlint.pipeline")


def main() -> None:
    """Write the table of what a check's imports define (an installation step, as
    ``compileall``; a run writes it too, unless the interpreter writes no bytecode)."""
    import importlib

    with kept(write=True):
        for name in CHECK_MODULES:
            importlib.import_module(name)
        importlib.import_module("h2dlint.registry").all_rules()
    print(table_path())


if __name__ == "__main__":
    main()
