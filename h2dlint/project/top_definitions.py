"""What a module defines at its level, told by its summary (``summary.top_level``) instead of
its libcst tree.

A question about a name another module binds (an imported value's placement, the function a
call runs) loaded that module's whole libcst tree, also where the answer needs only the kind of
definition: an imported class or function is no tensor value, and a call of a class runs no
function of the project. In a pre-commit run of transformers, the stored trees of
``modeling_outputs`` (a dataclass per model output) and ``utils.generic``
(``TransformersKwargs``) were unpickled for that alone. The summary's ``body`` names exactly
the functions and classes right in the module's body (each of which the analysis indexes:
``frames.ModuleIndex``), and ``functions`` every function at the module's level (a superset
of those it indexes): answers from them are the tree's, and anything they cannot settle is
left to the tree (None, or True where the tree must tell).
"""

from __future__ import annotations

from h2dlint.project.index import ProjectIndex


def defined_in_body(project: ProjectIndex, module_name: str, name: str) -> bool:
    """Whether the module's body defines a function or class ``name`` (a ``def`` or ``class``
    statement right in it, not under an ``if``), by its summary; False when the summary does
    not tell (the libcst tree is at hand, CPython cannot parse the module)."""
    top = project.top_summary(module_name)
    return top is not None and name in top.get("body", ())


def may_define_function(project: ProjectIndex, module_name: str, name: str) -> bool:
    """Whether the module may define a function ``name`` at its level (a top-level function
    the analysis indexes); False only when its summary names no such function."""
    top = project.top_summary(module_name)
    functions = top.get("functions") if top is not None else None
    return functions is None or name in functions
