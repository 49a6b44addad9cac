"""Where a function imported through a package's re-export is defined.

``from torch_geometric.utils import softmax`` names ``torch_geometric.utils.softmax``, which
``torch_geometric/utils/__init__.py`` imports from ``._softmax``: the caller index
(:mod:`h2dlint.project.callers`) records such a call as a call of the definition too, so that
a question about ``torch_geometric.utils._softmax.softmax`` finds it.
"""

from __future__ import annotations

from collections.abc import Callable

# ``ProjectIndex.find``: the module where a qualified name leads and its path there.
Find = Callable[[str], "tuple[str, str] | None"]


def defined_at(
    callee: str, find: Find, path_of: Callable[[str], str | None], memo: dict[str, str | None]
) -> str | None:
    """Where a project callee imported through a re-export is defined (``pkg.utils.f`` ->
    ``pkg.utils._f.f``), once per process; None outside the project or where it is defined
    as imported. Only a package's ``__init__`` is asked: where re-exports usually live."""
    if callee not in memo:
        path = path_of(callee.rpartition(".")[0])
        found = find(callee) if path is not None and path.endswith("__init__.py") else None
        memo[callee] = f"{found[0]}.{found[1]}" if found is not None else None
    home = memo[callee]
    return home if home != callee else None
