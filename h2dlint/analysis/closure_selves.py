"""The instance a function nested in a method calls its methods on: a hook or closure defined in
a method reads the method's ``self`` from the enclosing scope (mmgp's
``hook_preload_blocks_for_compilation`` registers ``preload_blocks_for_compile(module, *args)``
as a forward pre-hook, whose ``self.gpu_load_blocks(...)`` runs on every forward). Unless a
function on the way up takes a parameter of the same name, ``self.m(...)`` there is the
method ``m`` of the enclosing method's class.
"""

from __future__ import annotations

from collections.abc import Mapping

import libcst as cst

from h2dlint.analysis.frames import ModuleIndex
from h2dlint.analysis.names import bound_parameters


def closure_self(
    index: ModuleIndex,
    parents: Mapping[cst.FunctionDef, cst.FunctionDef],
    function: cst.FunctionDef,
) -> tuple[cst.ClassDef, str] | None:
    """The class and the instance's name (``self``) of the method ``function`` is nested in
    (at any depth), when the name reaches ``function`` unshadowed; None for a method, a
    function nested in none, or a shadowed name."""
    if function in index.owner:
        return None
    nested = [function]
    parent = parents.get(function)
    while parent is not None and parent not in index.owner:
        nested.append(parent)
        parent = parents.get(parent)
    if parent is None:
        return None
    self_name = index.frame_of(parent).self_name
    if self_name is None or any(self_name in bound_parameters(f.params) for f in nested):
        return None
    return index.owner[parent], self_name


def calling_class(
    index: ModuleIndex,
    parents: Mapping[cst.FunctionDef, cst.FunctionDef],
    function: cst.FunctionDef,
) -> tuple[cst.ClassDef | None, tuple[str, ...]]:
    """The class whose methods ``function`` calls on its instance, and the names the instance
    (and, in a method, its class: ``cls``) go by there: a method's own, or, for a function
    nested in a method, the enclosing method's ``self`` (:func:`closure_self`)."""
    enclosing = closure_self(index, parents, function)
    if enclosing is not None:
        return enclosing[0], (enclosing[1],)
    cls = index.owner.get(function)
    frame = index.frame_of(function)
    return cls, tuple(n for n in (frame.self_name, "cls" if cls is not None else None) if n)
