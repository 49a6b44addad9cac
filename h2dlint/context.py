"""What every rule can ask about the file being checked.

Everything here is computed on first use and shared by all rules of one traversal: a file whose
rules report nothing never pays for positions, and one no analysis looks at for its imports.
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst.metadata import CodePosition, CodeRange

from h2dlint.imports import ImportTable
from h2dlint.source import NEWLINE
from h2dlint.statement_positions import member_of_class, statement_lines
from h2dlint.suppression import Suppressions, parse_suppressions

T = TypeVar("T")


class SharedKey(Generic[T]):
    """The key of a per-file value that analyses and rules share (:meth:`FileContext.shared`),
    typed with the value's type. One key object per kind of value, defined beside the code
    that builds it: two keys never collide, whatever their names, and a reader gets the type
    the builder gave."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name  # for messages and debugging only

    def __repr__(self) -> str:
        return f"SharedKey({self.name!r})"


IMPORTS: SharedKey[ImportTable] = SharedKey("imports")
SUPPRESSIONS: SharedKey[Suppressions] = SharedKey("suppression comments")


class FileContext:
    """One file under check: its path, source, tree, positions and shared analyses."""

    def __init__(
        self,
        path: str,
        source: str,
        module: cst.Module,
        options: Mapping[str, Any] | None = None,
        python_tree: ast.Module | None = None,
    ) -> None:
        self.path = path
        self.source = source
        self.module = module
        # CPython's tree of the same source, when the run made one (it locates statements).
        self.python_tree = python_tree
        # Analysis options from configuration ([tool.h2dlint.analysis]).
        self.options: Mapping[str, Any] = options or {}
        self._positions: Positions | None = None
        self._shared: dict[object, Any] = {}
        # Maintained by the engine during the traversal, outermost first.
        self.ancestors: list[cst.CSTNode] = []
        self.statements: list[cst.CSTNode] = []

    def release(self) -> None:
        """Drop what the check computed (analyses, positions): they refer back to this context,
        and the reference cycle would keep the whole tree alive until the garbage collector
        finds it."""
        self._shared.clear()
        self._positions = None
        self.ancestors.clear()
        self.statements.clear()

    # -- traversal state ------------------------------------------------------------------
    def current_statement(self) -> cst.CSTNode | None:
        return self.statements[-1] if self.statements else None

    def enclosing(self, *kinds: type[cst.CSTNode]) -> cst.CSTNode | None:
        """The innermost node of one of ``kinds`` around the node being visited."""
        for node in reversed(self.ancestors):
            if isinstance(node, kinds):
                return node
        return None

    # -- positions ------------------------------------------------------------------------
    @property
    def positions(self) -> Positions:
        """Every node's position (one codegen pass), unless :meth:`locate` said which nodes
        are wanted."""
        if self._positions is None:
            self._positions = Positions.of(self.module, self.source)
        return self._positions

    def locate(
        self,
        nodes: Iterable[cst.CSTNode],
        *,
        whole: bool = True,
        tops: Iterable[cst.CSTNode | None] = (),
    ) -> None:
        """Compute positions for ``nodes`` (and the nodes inside them) only: recording every
        node's span costs as much again as generating the code. Unless ``whole``, the pass
        stops after the last of them (only their positions are asked for); and when ``tops``,
        the top-level statements that hold them, are all known, only those statements' code
        is generated (:mod:`h2dlint.statement_positions`). A node found in neither is located
        by a whole pass when asked for."""
        if self._positions is not None and self._positions.code is not None:
            return  # a rule's question during the walk had every node located
        wanted = list(nodes)
        held = set(tops)
        if not whole and held and None not in held and self.python_tree is not None:
            found = Positions.of_statements(
                self.module, self.source, self.python_tree, held, wanted
            )
            if found is not None:
                self._positions = found
                return
        self._positions = Positions.of(self.module, self.source, wanted, stop_early=not whole)

    def whole_positions(self) -> Positions:
        """Every node's position, with the module's whole generated code."""
        if self._positions is None or self._positions.code is None:
            self._positions = Positions.of(self.module, self.source)
        return self._positions

    def position(self, node: cst.CSTNode) -> CodeRange:
        """Where ``node`` is in the source: 1-based line, 0-based column."""
        positions = self._positions
        if positions is None or node not in positions.spans:
            positions = self._positions = self._holding(node, positions)
        return positions.range(node)

    def _holding(self, node: cst.CSTNode, known: Positions | None) -> Positions:
        """Positions that hold ``node``: asked during the walk (a rule wants a line number), those
        of the statement being walked (a method, a top-level function: see
        :mod:`h2dlint.statement_positions`) added to the ``known`` ones, when ``node`` is in it;
        else every node's, from one pass over the whole module."""
        top = member_of_class(self.ancestors)
        if (
            top is not None
            and self.python_tree is not None
            and (known is None or (known.code is None and not known.skipped))
            and "\x0c" not in self.source
        ):
            found = Positions.of_statements(
                self.module, self.source, self.python_tree, {top}, (top,)
            )
            if found is not None and node in found.spans:
                if known is not None:
                    found.spans = {**known.spans, **found.spans}
                return found
        return Positions.of(self.module, self.source)

    # -- shared analyses ------------------------------------------------------------------
    def shared(
        self, key: SharedKey[T], build: Callable[[], T], node: cst.CSTNode | None = None
    ) -> T:
        """A per-file value computed once and shared by every rule (import tables, bindings);
        with ``node``, one value per node (a function's writes)."""
        stored = key if node is None else (key, node)
        if stored not in self._shared:
            self._shared[stored] = build()
        # One key, one build: what is stored under ``key`` is the T that ``build`` returned.
        return cast(T, self._shared[stored])

    @property
    def imports(self) -> ImportTable:
        return self.shared(IMPORTS, lambda: ImportTable.from_module(self.module))

    @property
    def suppressions(self) -> Suppressions:
        """The file's suppression comments, read once for the engine and the analyses."""
        return self.shared(SUPPRESSIONS, lambda: parse_suppressions(self.source))

    @property
    def file_name(self) -> str:
        """The file's own name (``tts_dataset.py``), whatever the separators of its path."""
        return self.path.replace("\\", "/").rsplit("/", 1)[-1]


# -- positions -----------------------------------------------------------------------------------
# libcst's PositionProvider tracks line and column through every token of a codegen pass
# (a regex split per token) and then runs a batched traversal of the whole module; it costs more
# than the parse. The same positions come from one codegen pass that only counts characters:
# each node's start and end offsets in the generated code, turned into line and column by
# bisecting the line starts, for the few nodes that are reported.


class _SyntacticPosition:
    """``record_syntactic_position`` as a plain context manager (libcst's is a generator)."""

    __slots__ = ("end_node", "node", "start", "start_node", "state")

    def __init__(
        self,
        state: _OffsetState,
        node: cst.CSTNode,
        start_node: cst.CSTNode | None,
        end_node: cst.CSTNode | None,
    ) -> None:
        self.state = state
        self.node = node
        self.start_node = start_node
        self.end_node = end_node
        self.start = state.offset

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        spans = self.state.spans
        start = spans[self.start_node][0] if self.start_node is not None else self.start
        end = spans[self.end_node][1] if self.end_node is not None else self.state.offset
        spans[self.node] = (start, end)


class _Done(Exception):
    """Every wanted node's position is known: the rest of the module need not be generated."""


class _NoPosition:
    """``record_syntactic_position`` outside the nodes whose positions are wanted."""

    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


_NO_POSITION = _NoPosition()


@dataclass
class _OffsetState(CodegenState):
    """A codegen state recording syntactic spans as character offsets, as libcst's
    ``PositionProvidingCodegenState`` records them as lines and columns.

    Spans are recorded for the ``wanted`` nodes and every node inside one (a node's span can
    come from its first and last child's), or for all nodes when ``wanted`` is None."""

    wanted: set[cst.CSTNode] | None = None
    # Stop the pass (raise _Done) once every wanted node is recorded.
    stop_early: bool = False
    offset: int = 0
    line_starts: list[int] = field(default_factory=lambda: [0])
    spans: dict[cst.CSTNode, tuple[int, int]] = field(default_factory=dict)
    stack: list[int] = field(default_factory=list)
    depth: int = 0  # how many wanted nodes are being generated

    def __post_init__(self) -> None:
        if self.wanted is None:
            self.depth = 1  # record everything
        self.remaining = len(self.wanted) if self.wanted is not None else -1

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.tokens.append(token)
            self.offset += len(token)

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        if "\n" in value or "\r" in value:
            # Per token, as libcst counts: its positions are what findings have always used.
            base = self.offset
            self.line_starts.extend(base + m.end() for m in NEWLINE.finditer(value))
        self.offset += len(value)

    def before_codegen(self, node: cst.CSTNode) -> None:
        if self.depth:
            self.stack.append(self.offset)
            if self.wanted is not None and node in self.wanted:
                self.depth += 1
        elif node in self.wanted:  # type: ignore[operator]
            self.stack.append(self.offset)
            self.depth = 1

    def after_codegen(self, node: cst.CSTNode) -> None:
        if self.depth:
            start = self.stack.pop()
            if node not in self.spans:  # a syntactic span recorded inside wins
                self.spans[node] = (start, self.offset)
            if self.wanted is not None and node in self.wanted:
                self.depth -= 1
                self.remaining -= 1
                if not self.remaining and self.stop_early:
                    raise _Done

    def record_syntactic_position(  # type: ignore[override]
        self,
        node: cst.CSTNode,
        *,
        start_node: cst.CSTNode | None = None,
        end_node: cst.CSTNode | None = None,
    ) -> Iterator[None]:
        if not self.depth:
            return _NO_POSITION  # type: ignore[return-value]
        return _SyntacticPosition(self, node, start_node, end_node)  # type: ignore[return-value]


class Positions:
    """Every node's position, from one codegen pass of the module.

    Lines and columns are libcst's (``PositionProvider``), except where libcst does not give the
    source back character for character: it drops a form feed at the start of a line, which
    CPython and editors count as a column. There the positions are moved back onto the source,
    so that a finding's column is the one an editor shows.
    """

    def __init__(
        self,
        spans: dict[cst.CSTNode, tuple[int, int]],
        line_starts: list[int],
        skipped: list[int] | None = None,
        *,
        code: str | None = None,
    ) -> None:
        self.spans = spans
        self.line_starts = line_starts
        # Offsets in the generated code before which the source has one more character.
        self.skipped = skipped
        # The module's generated code, when the pass went through the whole module.
        self.code = code

    @classmethod
    def of(
        cls,
        module: cst.Module,
        source: str,
        wanted: Iterable[cst.CSTNode] | None = None,
        *,
        stop_early: bool = False,
    ) -> Positions:
        """Positions of ``wanted`` nodes (and the nodes inside them), or of every node. With
        ``stop_early``, the pass ends after the last wanted node: offsets past it are unknown."""
        state = _OffsetState(
            default_indent=module.default_indent,
            default_newline=module.default_newline,
            wanted=None if wanted is None else set(wanted),
            stop_early=stop_early and wanted is not None,
        )
        done = True
        try:
            module._codegen(state)
        except _Done:
            done = False
        code = "".join(state.tokens)
        whole = code if done else None
        if code == source or (not done and source.startswith(code)):
            return cls(state.spans, state.line_starts, code=whole)
        skipped = _dropped_form_feeds(code, source, whole=done)
        if skipped is None:
            return cls(state.spans, state.line_starts, code=whole)  # libcst's own positions
        starts = [0] + [m.end() for m in NEWLINE.finditer(source)]
        return cls(state.spans, starts, skipped, code=whole)

    @classmethod
    def of_statements(
        cls,
        module: cst.Module,
        source: str,
        tree: ast.Module,
        statements: set[cst.CSTNode | None],
        wanted: Iterable[cst.CSTNode],
    ) -> Positions | None:
        """Positions of ``wanted`` nodes from the code of the ``statements`` that hold them
        (top-level, or in a top-level class's body), each generated where CPython's ``tree``
        says it starts in ``source``; None when a statement's code is not the source's at that
        place (the caller then generates the whole module)."""
        lines = statement_lines(module, tree)
        if lines is None:
            return None
        starts = [0] + [m.end() for m in NEWLINE.finditer(source)]
        state = _OffsetState(
            default_indent=module.default_indent,
            default_newline=module.default_newline,
            wanted=set(wanted),
        )
        # The indentation a statement of a class's body is generated under.
        indents: dict[cst.CSTNode, str] = {}
        for top in module.body:
            if isinstance(top, cst.ClassDef) and isinstance(top.body, cst.IndentedBlock):
                indent = top.body.indent
                for member in top.body.body:
                    indents[member] = module.default_indent if indent is None else indent
        for statement, line in lines.items():
            if statement not in statements:
                continue
            if not 0 < line <= len(starts):
                return None
            state.tokens = []
            state.indent_tokens = [indents[statement]] if statement in indents else []
            state.offset = start = starts[line - 1]
            statement._codegen(state)
            code = "".join(state.tokens)
            if source[start : start + len(code)] != code:
                return None
        return cls(state.spans, starts)

    def location(self, offset: int, *, end: bool = False) -> CodePosition:
        """The line (1-based) and column (0-based) of an offset in the generated code."""
        if self.skipped:
            # A dropped character at the boundary belongs before a start, after an end.
            find = bisect.bisect_left if end else bisect.bisect_right
            offset += find(self.skipped, offset)
        row = bisect.bisect_right(self.line_starts, offset)
        return CodePosition(row, offset - self.line_starts[row - 1])

    def range(self, node: cst.CSTNode) -> CodeRange:
        start, end = self.spans[node]
        return CodeRange(self.location(start), self.location(end, end=True))


def _dropped_form_feeds(code: str, source: str, *, whole: bool = True) -> list[int] | None:
    """Where ``source`` has a form feed that ``code`` (libcst's codegen of it, or its beginning
    when not ``whole``) lacks, as offsets in ``code``; None when the two differ otherwise."""
    skipped: list[int] = []
    i = j = 0
    n, m = len(source), len(code)
    while i < n:
        k = source.find("\x0c", i)
        stop = n if k < 0 else k
        length = stop - i
        if not whole and j + length >= m:
            # The rest of the generated beginning lies before the next form feed.
            return skipped if source[i : i + m - j] == code[j:] else None
        if code[j : j + length] != source[i:stop]:
            return None
        i, j = stop, j + length
        if k < 0:
            break
        if j < m and code[j] == "\x0c":
            i, j = i + 1, j + 1
        else:
            skipped.append(j)
            i += 1
    return skipped if j == m and skipped else None
