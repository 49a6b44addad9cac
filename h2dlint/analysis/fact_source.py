"""What the analyses around provenance ask of it: the :class:`FactSource` protocol.

``provenance.Provenance`` answers where a tensor's memory is; ``views``, ``targets``,
``classes`` and ``cross_module`` need some of its answers (a sub-expression's fact, a name's
bindings, a qualified name) while it needs theirs. They depend on this protocol, which
``Provenance`` implements, instead of importing it: no import loop, hidden or not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import libcst as cst

from h2dlint.analysis.bindings import Bindings
from h2dlint.analysis.facts import Fact
from h2dlint.analysis.frames import Frame, ModuleIndex
from h2dlint.context import FileContext
from h2dlint.project.index import ProjectIndex

# What a qualified name can be defined as in a module of the project.
Definition = cst.FunctionDef | cst.ClassDef


class ClassRef:
    """A class: defined in a module of the project (``provenance`` analyses that module), or
    outside it, known by its qualified name only.

    A class of another module is found without its libcst tree where that module's summary
    tells it is one (:meth:`deferred`, session 47): the module's tree is loaded, and its
    analysis built, when ``provenance`` or ``node`` is first asked for, which many questions
    never do (two annotations naming the same class agree by their names). Equal: the same
    qualified name and the same class (two deferred ones: the same module's class of that
    name); the hash is the qualified name's."""

    __slots__ = ("_load", "_node", "_provenance", "_target", "qualified")

    def __init__(
        self,
        qualified: str,
        provenance: FactSource | None = None,
        node: cst.ClassDef | None = None,
    ) -> None:
        self.qualified = qualified
        self._provenance = provenance
        self._node = node
        self._target: tuple[str, str] | None = None
        self._load: Callable[[], tuple[FactSource | None, cst.ClassDef | None]] | None = None

    @classmethod
    def deferred(
        cls,
        qualified: str,
        target: tuple[str, str],
        load: Callable[[], tuple[FactSource | None, cst.ClassDef | None]],
    ) -> ClassRef:
        """The class ``target`` (module, name) of the project, known to be one by its
        module's summary; ``load`` gives its analysis and definition when first needed."""
        ref = cls(qualified)
        ref._target = target
        ref._load = load
        return ref

    def _loaded(self) -> None:
        load = self._load
        if load is not None:
            self._load = None
            self._provenance, self._node = load()

    @property
    def provenance(self) -> FactSource | None:
        self._loaded()
        return self._provenance

    @property
    def node(self) -> cst.ClassDef | None:
        self._loaded()
        return self._node

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ClassRef):
            return NotImplemented
        if self.qualified != other.qualified:
            return False
        if self._target is not None and self._target == other._target:
            return True
        return self.provenance is other.provenance and self.node is other.node

    def __hash__(self) -> int:
        return hash(self.qualified)

    def __repr__(self) -> str:
        return f"ClassRef({self.qualified!r})"


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
