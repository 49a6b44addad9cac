"""Whether another module of the project may call a module's top-level function or class by
its name (argument flow and run-once code ask it before they trust the module's own calls).

A module whose text calls the name may; not one that defines its own top-level function or
class of that name and calls no attribute of that name (``mod.name(``): Python looks a bare
name up in the module's own globals first, so each demo script's ``main()`` under its
``if __name__ == "__main__":`` calls its own ``main``, not every other script's (session 35:
XCodec2's two decoder modules)."""

from __future__ import annotations

from h2dlint.analysis.fact_source import FactSource
from h2dlint.analysis.foreign_calls import only_foreign_calls
from h2dlint.context import SharedKey
from h2dlint.project.index import ProjectIndex


def called_elsewhere(source: FactSource, name: str) -> bool:
    """Whether another module of the project may call this module's function (or class)
    ``name``: one whose text calls the name, unless it defines its own top-level function or
    class of that name and calls no attribute of that name (``mod.name(``). Python looks a
    bare name up in the module's own globals first, so each script's ``main()`` under its
    ``if __name__ == "__main__":`` calls its own ``main``, not every other script's."""
    project = source.project
    if project is None or source.module_name is None:
        return False
    memo = source.context.shared(_CALLED_ELSEWHERE, dict)
    if name not in memo:
        memo[name] = _called_elsewhere(project, source.module_name, name)
    return memo[name]


def _called_elsewhere(project: ProjectIndex, own: str, name: str) -> bool:
    index = project.caller_index()
    roots: set[str] = set()

    def in_project(root: str) -> bool:
        if not roots:
            roots.update(module.partition(".")[0] for module in project.layout.modules)
        return root in roots

    # Lazily, first caller found first: ``forward`` has thousands of calling modules in a
    # large project. ``unittest.main()`` calls no ``main`` of the project (foreign_calls).
    return any(
        module != own
        and not calls_own_copy(index.data(module), name)
        and not only_foreign_calls(index.data(module) or b"", name, in_project)
        for module in index.calling(name)
    )


def calls_own_copy(data: bytes | None, name: str) -> bool:
    """Whether a module's text (``data``) defines a top-level function or class ``name`` and
    calls no ``.name(`` attribute: its calls of ``name`` reach its own definition. Substring
    searches only, two for a module that defines no such name (most callers); a definition
    spelled with extra spaces is not seen: the module then counts as a caller, the old
    answer."""
    if data is None:
        return False
    needle = name.encode()
    return _defines(data, needle) and b"." + needle + b"(" not in data


def _defines(data: bytes, needle: bytes) -> bool:
    """Whether a line of ``data`` starts ``def needle(``, ``async def needle(`` or ``class
    needle(``/``class needle:``."""
    for keyword in (b"def ", b"class "):
        key = keyword + needle
        at = data.find(key)
        while at != -1:
            line = data.rfind(b"\n", 0, at) + 1
            end = at + len(key)
            if data[line:at] in (b"", b"async ") and data[end : end + 1] in (b"(", b":"):
                return True
            at = data.find(key, end)
    return False


# Per file: whether another module may call each name of it.
_CALLED_ELSEWHERE: SharedKey[dict[str, bool]] = SharedKey("other_callers.called_elsewhere")

__all__ = ["called_elsewhere", "calls_own_copy"]
