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
    if b"." + name.encode() not in data:
        return False  # every call of the name (if any) is a bare one
    needle = re.escape(name.encode())
    owners: set[str] = set()
    for match in re.finditer(rb"\b" + needle + rb"\s*\(", data):
        start = match.start()
        if data[start - 1 : start] != b".":
            return False  # a bare call (or a definition: ``def main(``)
        owner = _name_ending_at(data, start - 1)
        if not owner:
            return False  # ``f().main(``, ``x[0].main(``
        if owner not in owners:
            if not _imported_from_outside(data, owner, in_project):
                return False  # ``self.main(``: the first such owner settles it
            owners.add(owner)
    return bool(owners)


def _name_ending_at(data: bytes, end: int) -> str:
    """The identifier that ends at ``end`` of ``data`` (``unittest`` of ``unittest.main(``),
    leading digits left out; empty where none does. A scan back, not a search of the text
    before it: a module may call the name hundreds of times."""
    start = end
    while start > 0 and (data[start - 1 : start].isalnum() or data[start - 1 : start] == b"_"):
        start -= 1
    while start < end and data[start : start + 1].isdigit():
        start += 1
    return data[start:end].decode("ascii")


def _imported_from_outside(data: bytes, owner: str, in_project: Callable[[str], bool]) -> bool:
    """Whether ``data`` binds ``owner`` by an import of a module outside the project: ``import
    owner`` or ``from a.b import owner`` with a root ``a`` that is no package of the project."""
    word = re.escape(owner.encode())
    if re.search(rb"import\s+" + word, data) is None:
        return False  # neither form below (most owners: ``self``, a local object)
    plain = re.search(rb"(?m)^\s*import\s+" + word + rb"\s*$", data)
    if plain is not None:
        return not in_project(owner)
    found = re.search(rb"(?m)^\s*from\s+([A-Za-z_][\w.]*)\s+import\s+" + word + rb"\s*$", data)
    if found is not None:
        return not in_project(found.group(1).decode().partition(".")[0])
    return False


__all__ = ["only_foreign_calls"]
