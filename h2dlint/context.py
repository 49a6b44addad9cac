"""What every rule can ask about the file being checked.

Everything here is computed on first use and shared by all rules of one traversal: a file whose
rules never ask for positions, parents, scopes or qualified names never pays for them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import libcst as cst
from libcst.metadata import (
    CodeRange,
    MetadataWrapper,
    ParentNodeProvider,
    PositionProvider,
    QualifiedName,
    QualifiedNameProvider,
    Scope,
    ScopeProvider,
)

if TYPE_CHECKING:
    from h2dlint.analysis.imports import ImportTable

T = TypeVar("T")


class FileContext:
    """One file under check: its path, source, tree, and lazily resolved metadata."""

    def __init__(
        self,
        path: str,
        source: str,
        module: cst.Module,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        self.path = path
        self.source = source
        self.module = module
        # Analysis options from configuration ([tool.h2dlint.analysis]).
        self.options: Mapping[str, Any] = options or {}
        self._wrapper: MetadataWrapper | None = None
        self._resolved: dict[type, Mapping[cst.CSTNode, Any]] = {}
        self._shared: dict[str, Any] = {}
        # Maintained by the engine during the traversal, outermost first.
        self.ancestors: list[cst.CSTNode] = []
        self.statements: list[cst.CSTNode] = []

    # -- traversal state ------------------------------------------------------------------
    def current_statement(self) -> cst.CSTNode | None:
        return self.statements[-1] if self.statements else None

    def enclosing(self, *kinds: type[cst.CSTNode]) -> cst.CSTNode | None:
        """The innermost node of one of ``kinds`` around the node being visited."""
        for node in reversed(self.ancestors):
            if isinstance(node, kinds):
                return node
        return None

    # -- lazily resolved metadata ---------------------------------------------------------
    @property
    def wrapper(self) -> MetadataWrapper:
        if self._wrapper is None:
            # The tree is never mutated, so skipping libcst's defensive deep copy keeps node
            # identity between the traversal and the metadata.
            self._wrapper = MetadataWrapper(self.module, unsafe_skip_copy=True)
        return self._wrapper

    def _metadata(self, provider: type) -> Mapping[cst.CSTNode, Any]:
        if provider not in self._resolved:
            self._resolved[provider] = self.wrapper.resolve(provider)
        return self._resolved[provider]

    def position(self, node: cst.CSTNode) -> CodeRange:
        return self._metadata(PositionProvider)[node]

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self._metadata(ParentNodeProvider).get(node)

    def scope(self, node: cst.CSTNode) -> Scope | None:
        return self._metadata(ScopeProvider).get(node)

    def qualified_names(self, node: cst.CSTNode) -> set[QualifiedName]:
        return set(self._metadata(QualifiedNameProvider).get(node, ()))

    # -- shared analyses ------------------------------------------------------------------
    def shared(self, key: str, build: Callable[[], T]) -> T:
        """A per-file value computed once and shared by every rule (import tables, bindings)."""
        if key not in self._shared:
            self._shared[key] = build()
        return self._shared[key]

    @property
    def imports(self) -> ImportTable:
        from h2dlint.analysis.imports import ImportTable

        return self.shared("imports", lambda: ImportTable.from_module(self.module))
