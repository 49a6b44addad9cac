"""What the analyses around provenance ask of it: the :class:`FactSource` protocol.

``provenance.Provenance`` answers where a tensor's memory is; ``views``, ``targets``,
``classes`` and ``cross_module`` need some of its answers (a sub-expression's fact, a name's
bindings, a qualified name) while it needs theirs. They depend on this protocol, which
``Provenance`` implements, instead of importing it: no import loop, hidden or not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import libcst as cst

from h2dlint.analysis.bindings import Bindings
from h2dlint.analysis.facts import Fact
from h2dlint.analysis.frames import Frame, ModuleIndex
from h2dlint.context import FileContext
from h2dlint.project.index import ProjectIndex

# What a qualified name can be defined as in a module of the project.
Definition = cst.FunctionDef | cst.ClassDef


@dataclass(frozen=True)
class ClassRef:
    """A class: defined in a module of the project (``provenance`` analyses that module), or
    outside it, known by its qualified name only."""

    qualified: str
    provenance: FactSource | None = None
    node: cst.ClassDef | None = None


class FactSource(Protocol):
    """One module's provenance analysis, as the analyses it uses see it."""

    context: FileContext
    # The project index of the run (None: this file alone).
    project: ProjectIndex | None
    pinned_helpers: frozenset[str]
    pinned_attributes: frozenset[str]
    # Which class an expression is an instance of, per (node, frame) (``classes.class_of``).
    class_memo: dict[tuple[cst.CSTNode, Frame], ClassRef | None]

    @property
    def index(self) -> ModuleIndex: ...

    @property
    def module_name(self) -> str | None: ...

    @module_name.setter
    def module_name(self, name: str | None) -> None: ...

    def for_module(self, context: FileContext) -> FactSource:
        """The same analysis (same settings) of another module of the project."""
        ...

    def bindings(self, frame: Frame) -> Bindings: ...

    def qualify(self, node: cst.BaseExpression) -> str | None: ...

    def fact(self, node: cst.BaseExpression, frame: Frame, depth: int = 0) -> Fact: ...

    def is_numpy_array(self, node: cst.BaseExpression, frame: Frame, depth: int = 0) -> bool: ...

    def return_fact(self, function: cst.FunctionDef, depth: int = 0) -> Fact: ...

    def attribute_fact(self, cls: cst.ClassDef, attr: str, depth: int = 0) -> Fact: ...

    def return_class(self, function: cst.FunctionDef, depth: int = 0) -> ClassRef | None: ...

    def attribute_class(self, cls: cst.ClassDef, attr: str, depth: int = 0) -> ClassRef | None: ...

    def resolve(self, qualified: str) -> tuple[FactSource, Definition] | None: ...

    def callee(
        self, call: cst.Call, frame: Frame, depth: int = 0
    ) -> tuple[FactSource, cst.FunctionDef] | None: ...
