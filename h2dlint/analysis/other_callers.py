"""Whether another module of the project may call a module's top-level function or class by
its name (argument flow and run-once code ask it before they trust the module's own calls).

A module whose text calls the name may; not one that defines its own top-level function or
class of that name and calls no attribute of that name (``mod.name(``): Python looks a bare
name up in the module's own globals first, so each demo script's ``main()`` under its
``if __name__ == "__main__":`` calls its own ``main``, not every other script's (session 35:
XCodec2's two decoder modules)."""

from __future__ import annotations

import re

from h2dlint.analysis.fact_source import FactSource


def called_elsewhere(source: FactSource, name: str) -> bool:
    """Whether another module of the project may call this module's function (or class)
    ``name``: one whose text calls the name, unless it defines its own top-level function or
    class of that name and calls no attribute of that name (``mod.name(``). Python looks a
    bare name up in the module's own globals first, so each script's ``main()`` under its
    ``if __name__ == "__main__":`` calls its own ``main``, not every other script's."""
    project = source.project
    if project is None or source.module_name is None:
        return False
    index = project.caller_index()
    return any(
        module != source.module_name and not calls_own_copy(index.data(module), name)
        for module in index.calling(name)
    )


def calls_own_copy(data: bytes | None, name: str) -> bool:
    """Whether a module's text (``data``) defines a top-level function or class ``name`` and
    calls no ``.name(`` attribute: its calls of ``name`` reach its own definition."""
    if data is None:
        return False
    escaped = re.escape(name.encode())
    own = re.compile(
        rb"^(?:async[ \t]+)?def[ \t]+" + escaped + rb"[ \t]*\(|^class[ \t]+" + escaped + rb"\b",
        re.M,
    )
    attribute = re.compile(rb"\.[ \t]*" + escaped + rb"[ \t]*\(")
    return own.search(data) is not None and attribute.search(data) is None


__all__ = ["called_elsewhere", "calls_own_copy"]
