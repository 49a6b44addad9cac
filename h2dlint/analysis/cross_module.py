"""Facts that one module's provenance takes from the rest of the project.

The project index (``h2dlint.project``) parses another module with libcst when an analysis asks
about a name defined there (the module's summary says whether it is: ``project/summary.py``);
this module gives that module its own provenance analysis, finds the definition a call or a
name refers to (a local function, a method of a known class, a function or class imported from
another module), and the classes that attributes and returns hold.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.classes import class_of, named_class
from h2dlint.analysis.container_items import field_annotation
from h2dlint.analysis.fact_source import ClassRef, Definition, FactSource
from h2dlint.analysis.frames import Frame, method_frame
from h2dlint.context import FileContext
from h2dlint.project.index import ParsedModule, ProjectIndex
from h2dlint.project.top_definitions import may_define_function


def provenance_of(parsed: ParsedModule, like: FactSource) -> FactSource:
    """The provenance analysis of another module of the project (one per parsed module)."""
    found = parsed.attached.get("provenance")
    if found is None:
        context = FileContext(parsed.path, parsed.source, parsed.tree, like.context.options)
        found = like.for_module(context)
        found.module_name = parsed.name
        parsed.attached["provenance"] = found
    assert not isinstance(found, (str, dict))
    return found  # type: ignore[return-value]


def resolve(
    provenance: FactSource, project: ProjectIndex | None, qualified: str
) -> tuple[FactSource, Definition] | None:
    """The definition of a qualified name (as imported in ``provenance``'s module) in the
    project: a top-level function or class, or a method (``Class.method``)."""
    if project is None:
        return None
    absolute = project.absolute(provenance.module_name, qualified)
    found = project.find(absolute)
    # The module's summary tells whether it defines the name at all: a module that does not
    # is not parsed with libcst (most names asked about are defined outside the project).
    if found is None or not project.may_define(*found):
        return None
    parsed = project.parsed(found[0])
    if parsed is None:
        return None
    rest = found[1]
    other = provenance_of(parsed, provenance)
    head, _, tail = rest.partition(".")
    index = other.index
    if not tail:
        return (
            (other, index.functions[head])
            if head in index.functions
            else ((other, index.classes[head]) if head in index.classes else None)
        )
    cls = index.classes.get(head)
    if cls is None or "." in tail:
        return None
    method = index.methods.get(cls, {}).get(tail)
    return (other, method) if method is not None else None


def callee(
    provenance: FactSource, call: cst.Call, frame: Frame, depth: int = 0
) -> tuple[FactSource, cst.FunctionDef] | None:
    """The function a call runs, when the project defines it: ``helper(...)``,
    ``self.method(...)``, ``obj.method(...)`` of a known class, ``module.function(...)``."""
    func = call.func
    index = provenance.index
    if isinstance(func, cst.Name):
        local = index.functions.get(func.value)
        if local is not None and not provenance.bindings(frame).of(func.value):
            return provenance, local
    if isinstance(func, cst.Attribute):
        base = func.value
        name = func.attr.value
        if isinstance(base, cst.Name) and frame.cls is not None and base.value == frame.self_name:
            method = index.methods.get(frame.cls, {}).get(name)
            return (provenance, method) if method is not None else None
        if provenance.qualify(func) is None:
            owner = class_of(provenance, base, frame, depth + 1)
            if owner is not None and owner.provenance is not None and owner.node is not None:
                method = owner.provenance.index.methods.get(owner.node, {}).get(name)
                if method is not None:
                    return owner.provenance, method
            return None
    qualified = provenance.qualify(func)
    if qualified is None or not _may_run(provenance.project, provenance, qualified):
        return None
    found = resolve(provenance, provenance.project, qualified)
    if found is not None and isinstance(found[1], cst.FunctionDef):
        return found[0], found[1]
    return None


def _may_run(project: ProjectIndex | None, provenance: FactSource, qualified: str) -> bool:
    """False when :func:`resolve` would surely find no function for ``qualified``: the module
    it leads to defines none of that name at its level (a class called, as a dataclass of
    outputs is), by its summary, so that its tree is not loaded to learn it."""
    if project is None:
        return True
    found = project.find_home(project.absolute(provenance.module_name, qualified))
    if found is None or "." in found[1]:
        return True
    return may_define_function(project, *found)


def frame_of(provenance: FactSource, function: cst.FunctionDef) -> Frame:
    return provenance.index.frame_of(function)


def class_annotation(provenance: FactSource, cls: cst.ClassDef, attr: str) -> ClassRef | None:
    """``attr: Buffer`` in a class body."""
    annotation = field_annotation(cls, attr)
    return named_class(provenance, annotation) if annotation is not None else None


__all__ = [
    "callee",
    "class_annotation",
    "field_annotation",
    "frame_of",
    "method_frame",
    "provenance_of",
    "resolve",
]
