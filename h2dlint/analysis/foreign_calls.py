"""Whether a module's calls of a name are all calls of another package's function of that
name (``unittest.main(verbosity=2)``), found in its text: such a module calls no function of
the project by that name.

streamdiffusionv2's ``communication/test_communication.py`` ends with ``unittest.main()``; read
as a call of ``main`` it made every script's ``main()`` look called from another module, so the
set-up in ``inference_pipe.main()`` before its loop (``torch.tensor(total_block_num,
device=device)``, once per run) was taken for code that may run per call.
"""

from __future__ import annotations

import re
from collections.abc import Callable


def only_foreign_calls(data: bytes, name: str, in_project: Callable[[str], bool]) -> bool:
    """Whether every call of ``name`` in ``data`` (a module's text) is an attribute call
    ``owner.name(`` on a module ``owner`` that the text imports from outside the project
    (``import unittest``, ``from absl.testing import absltest``): none calls the project's
    ``name``. A bare call, a call on another object (``self.main(``, ``cli.main(`` of a name
    the text does not import), or an import from the project (``from . import app``,
    ``from pkg import app`` with ``in_project("pkg")``) leaves it a caller."""
    needle = re.escape(name.encode())
    owners = set()
    for match in re.finditer(rb"(\.?)\b" + needle + rb"\s*\(", data):
        start = match.start()
        if not match.group(1):
            if start > 0 and (data[start - 1 : start].isalnum() or data[start - 1 : start] == b"_"):
                continue  # part of a longer name (``domain(``)
            return False  # a bare call (or a definition: ``def main(``)
        before = re.search(rb"([A-Za-z_][A-Za-z0-9_]*)$", data[:start])
        if before is None:
            return False  # ``f().main(``, ``x[0].main(``
        owners.add(before.group(1).decode())
    return bool(owners) and all(_imported_from_outside(data, o, in_project) for o in owners)


def _imported_from_outside(data: bytes, owner: str, in_project: Callable[[str], bool]) -> bool:
    """Whether ``data`` binds ``owner`` by an import of a module outside the project: ``import
    owner`` or ``from a.b import owner`` with a root ``a`` that is no package of the project."""
    word = re.escape(owner.encode())
    plain = re.search(rb"(?m)^\s*import\s+" + word + rb"\s*$", data)
    if plain is not None:
        return not in_project(owner)
    found = re.search(rb"(?m)^\s*from\s+([A-Za-z_][\w.]*)\s+import\s+" + word + rb"\s*$", data)
    if found is not None:
        return not in_project(found.group(1).decode().partition(".")[0])
    return False


__all__ = ["only_foreign_calls"]
