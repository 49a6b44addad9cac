"""Whether the project defines a name, and as what, told by the defining module's summary
instead of its libcst tree (session 47).

``cross_module.resolve`` gives a name's definition: it parses (or loads the stored libcst tree
of) the module where the name leads and builds that module's provenance analysis. Some
questions need only whether there is a definition, or its kind: whether a class's base is
defined outside the project (``argument_flow``). In a pre-commit run those loads are the
largest phase over all processes (session 46). The summary's ``body`` names exactly the
functions and classes right in the module's body (each one the analysis indexes:
``frames.ModuleIndex``), and ``functions`` every function at the module's level (a superset of
those it indexes): a name in ``body`` and not in ``functions`` is a class the module's index
holds, and no function. Anything the summary cannot settle (a method, a name under an ``if``,
the tree already at hand, a module CPython cannot parse) is left to ``resolve``.

(A class named, ``classes.named_class``, was tried as a reference loaded on first use: every
class named in the benchmarks' pre-commit files is then asked about its members, so it spared
no load; not kept.)
"""

from __future__ import annotations

from h2dlint.analysis.fact_source import FactSource
from h2dlint.project.index import ProjectIndex

# What a summary tells of a name's definition.
CLASS, FUNCTION = "class", "function"


def body_definition(project: ProjectIndex, absolute: str) -> tuple[str, str, str] | None:
    """(module, name, CLASS or FUNCTION) where the absolute name ``absolute`` leads to a
    function or class right in a module's body, by that module's summary; None where the
    summary does not tell (``resolve`` must)."""
    found = project.find_home(absolute)
    if found is None or "." in found[1] or not project.may_define(*found):
        return None
    top = project.top_summary(found[0])
    if top is None or found[1] not in top.get("body", ()):
        return None
    kind = FUNCTION if found[1] in top.get("functions", ()) else CLASS
    return found[0], found[1], kind


def resolves(source: FactSource, qualified: str) -> bool:
    """Whether ``source.resolve(qualified)`` finds a definition in the project, without
    loading the defining module's tree where the summaries tell: a name that leads nowhere in
    the project has none, one defined right in a module's body has one."""
    project = source.project
    if project is None:
        return False
    absolute = project.absolute(source.module_name, qualified)
    if project.find_home(absolute) is None:
        return False
    if body_definition(project, absolute) is not None:
        return True
    return source.resolve(qualified) is not None
