"""Small per-module summaries for the project index, from CPython's ``ast`` and the module's
text, kept by content digest.

The index asks the same few things of many modules: which names a module imports (to follow a
re-export), whether it defines a function or class of some name at all, which of its functions
may move items one by one, which functions of other modules it calls. A libcst tree answers
all of them but costs some ten times an ``ast`` parse; the summaries answer them from ``ast``
and the bytes, and a module is parsed with libcst only when a definition there is really needed
(its provenance: return and attribute facts).

Each summary is a dictionary of parts (JSON values: lists and strings), each part computed on
first use, keyed by the digest of the module's bytes: the same content gives the same parts
wherever the module lives. The run layer stores them on disk beside the result cache
(``h2dlint/cache.py``), so that a warm run, or a pre-commit run over a few files, reads the
summaries of the rest of the package instead of parsing it again. Parts that depend on where a
module lives (relative imports) are stored as written and resolved by the index.
"""

from __future__ import annotations

import ast
import bisect
import re
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from h2dlint.project.ast_walk import child_nodes, walk
from h2dlint.project.kept_trees import KeptTrees
from h2dlint.project.packed import Laid, Packed, encode, lay
from h2dlint.project.shared_parts import SharedParts

# Bumped whenever a part's meaning or shape changes: summaries of another format are dropped.
# 4 (session 20): the part ``steps`` finds loops that run their step through one call.
# 5 (session 27): ``item_movers`` also names collection movers whose tensor branch returns
# the moved argument.
# 6 (session 27): the ``guarded`` lines also hold the arms of device tests taken only off CUDA.
# 7 (session 29): ``passes`` also holds the calls of objects of named classes; the part
# ``escapes`` the classes whose objects escape.
# 8 (session 30): receivers in ``calls`` and ``passes`` also typed by what the module's calls
# of a function pass its parameters; the part ``steps`` also finds decoding loops.
# 9 (session 31): ``edges`` also holds each class's methods (calls through a subclass that
# inherits a method reach its base's).
# 10 (session 33): the files hold each summary's JSON text apart (``packed.py``).
# 11 (session 37): the ``guarded`` lines also hold what follows an early exit taken off the
# period (``if step % n: return``).
# 12 (session 38): ``top`` also names the functions and classes of the module's body and the
# functions at its level (``project/top_definitions.py``).
# 13 (session 38): the part ``steps`` also finds ``while`` loops whose own body runs a model.
# 14 (session 39): the files' headers say how many bytes of parts follow; new summaries are
# appended as segments (``packed.segment``).
# 15 (session 41): the ``guarded`` lines also hold the branches a loop of model steps takes on
# its first few iterations only (``if batch_i < 3:``, ``analysis/first_steps.py``).
# 16 (session 50): receivers in ``calls`` and ``passes`` also typed by the items of a class's
# containers (``self.metadata[key].update(...)``) and by attributes that alias others.
SUMMARY_FORMAT = 16
# Parts kept in a file of their own, read only when a process first asks for one of them: large
# (every name a module calls) and needed by few runs (a question about callers in other
# modules), so that a run that never asks does not pay for reading them.
# ``passes`` (what each call passes, ``passed_args.py``) likewise: read for argument flow across
# modules only.
LAZY_PARTS = frozenset({"calls", "passes", "escapes"})

# A function or method definition in the text (``def name(``): close enough to find the few
# modules worth parsing.
DEFINED_PATTERN = re.compile(rb"def\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(")

Parts = dict[str, Any]


class SummaryStore:
    """Summaries by content digest: those loaded from the disk, and those computed in this
    process (``fresh``: the parts to hand back to the main process and save).

    The stored parts come :class:`Packed`, each decoded when first asked for (``entries``
    holds those decoded and those computed here); the stored :data:`LAZY_PARTS` come from a
    second file, read when a process first asks for one of them."""

    def __init__(
        self,
        entries: dict[str, Parts] | None = None,
        lazy: Callable[[], Packed | None] | None = None,
        packed: Packed | None = None,
    ) -> None:
        self.entries: dict[str, Parts] = entries if entries is not None else {}
        self.fresh: dict[str, Parts] = {}
        # Parsed ``ast`` trees kept while their module's parts are computed one by one.
        self.kept_trees = KeptTrees()
        # The stored parts, not decoded until asked for.
        self._packed = packed
        # Reads the stored :data:`LAZY_PARTS` (None once read, or when none are stored).
        self._lazy = lazy
        self._lazy_packed: Packed | None = None
        # The parts the other workers of a parallel run computed (set by the run).
        self.shared: SharedParts | None = None

    def lazy_packed(self) -> Packed | None:
        """The stored :data:`LAZY_PARTS` (read now if they were not)."""
        if self._lazy is not None:
            load, self._lazy = self._lazy, None
            self._lazy_packed = load()
        return self._lazy_packed

    def stored_packed(self, lazy: bool) -> Packed | None:
        """The stored parts: the :data:`LAZY_PARTS` (read now if they were not), or the
        others."""
        return self.lazy_packed() if lazy else self._packed

    def _known(self, digest: str, name: str) -> tuple[Any] | None:
        """Part ``name`` of ``digest``'s summary in a 1-tuple when it is known: computed or
        decoded here, or stored (decoded now)."""
        parts = self.entries.get(digest)
        if parts is not None and name in parts:
            return (parts[name],)
        stored = self.lazy_packed() if name in LAZY_PARTS else self._packed
        found = stored.decode(digest, name) if stored is not None else None
        if found is not None:
            if parts is None:
                parts = self.entries[digest] = {}
            parts[name] = found[0]
        return found

    def decode_stored(self, digests: list[str | None], names: Iterable[str]) -> None:
        """Decode each part of ``names`` of the stored summaries of ``digests`` (None:
        unknown, left out) at once (:meth:`Packed.decode_many`), for a table of every module's
        part: each is then known as :meth:`stored` would have decoded it; one that does not
        decode that way is left to :meth:`stored`."""
        entries = self.entries
        for name in names:
            stored = self.lazy_packed() if name in LAZY_PARTS else self._packed
            if stored is None:
                continue
            wanted = [d for d in digests if d is not None and name not in entries.get(d, ())]
            for digest, value in stored.decode_many(wanted, name).items():
                entries.setdefault(digest, {})[name] = value

    def count_held(self, digests: list[str], name: str) -> int:
        """How many of ``digests``' summaries know part ``name`` without computing it: by the
        name alone in a stored header (a part that turns out not to decode is computed later)."""
        stored = self.lazy_packed() if name in LAZY_PARTS else self._packed
        index, entries = stored.index if stored is not None else {}, self.entries
        return sum(name in entries.get(d, ()) or name in index.get(d, ()) for d in digests)

    def part(self, digest: str, name: str, compute: Callable[[], Any]) -> Any:
        """Part ``name`` of the summary of the content ``digest``: stored, or computed now."""
        known = self._known(digest, name)
        if known is not None:
            return known[0]
        parts = self.entries.get(digest)
        if parts is None:
            parts = self.entries[digest] = {}
        shared = self.shared
        found = shared.get(digest, name) if shared is not None else None
        if found is not None:
            value = parts[name] = found[0]
            return value
        value = compute()
        parts[name] = value
        self.fresh.setdefault(digest, {})[name] = value
        if shared is not None:
            shared.put(digest, name, value)
        return value

    def stored(self, digest: str, name: str) -> tuple[Any] | None:
        """Part ``name`` of the summary of ``digest`` when it is known (in a 1-tuple: a part
        may be None), without computing it."""
        return self._known(digest, name)

    def laid(self, digest: str, lazy: bool) -> Laid | None:
        """The summary's parts to write (its lazy ones, or the others), laid out: the stored
        ones as stored, with those computed since; None when the summary is neither stored
        nor computed."""
        stored = self.lazy_packed() if lazy else self._packed
        fresh = {n: v for n, v in self.fresh.get(digest, {}).items() if (n in LAZY_PARTS) is lazy}
        if stored is not None and digest in stored:
            if not fresh:
                return stored.laid(digest)  # one piece, not decoded
            texts = stored.texts(digest)
        elif digest in self.fresh:
            texts = {}
        else:
            return None
        for name, value in fresh.items():
            texts[name] = encode(value)
        return lay(texts)

    def tree(self, digest: str, data: bytes) -> ast.Module | None:
        """The ``ast`` tree of ``data`` (whose digest is ``digest``), kept while a few parts of
        the same module are computed (``kept_trees.py``); None when CPython cannot parse it."""
        kept = self.kept_trees
        if digest in kept:
            return kept.get(digest)
        try:
            with warnings.catch_warnings():  # CPython's warnings about the code are not ours
                warnings.simplefilter("ignore")
                tree: ast.Module | None = ast.parse(data)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            tree = None
        kept.keep(digest, tree, len(data))
        return tree

    def offer_tree(self, digest: str, tree: ast.Module, size: int) -> None:
        """CPython's tree of the ``size`` bytes with ``digest``, parsed elsewhere (the run's
        own parse of a file it checks): kept as the newest of the kept trees."""
        if digest not in self.kept_trees:
            self.kept_trees.keep(digest, tree, size)

    def take_fresh(self) -> dict[str, Parts]:
        """The parts computed since the last call (to send to the main process)."""
        fresh, self.fresh = self.fresh, {}
        return fresh

    def merge(self, fresh: dict[str, Parts]) -> None:
        """Add parts computed elsewhere (a worker) to the store and to what is saved."""
        for digest, parts in fresh.items():
            self.entries.setdefault(digest, {}).update(parts)
            self.fresh.setdefault(digest, {}).update(parts)


# -- parts -----------------------------------------------------------------------------------


def defined_names(data: bytes) -> list[str]:
    """The names after ``def`` in the text (``def name(``), sorted."""
    return sorted({found.decode() for found in DEFINED_PATTERN.findall(data)})


def top_level(tree: ast.Module) -> Parts:
    """What :meth:`ProjectIndex.find` needs of a module: the names it imports, each with the
    name it imports (as written: relative ones keep their dots) when every import of that
    local name agrees, else None (the index then asks the libcst tree, which settles the order
    of the imports); and the names of the functions and classes it defines anywhere (a superset
    of those the analysis indexes: a name not among them is surely not defined there). Also
    the names of the functions and classes right in the module's body (``body``: each one the
    analysis surely indexes), and of the functions at the module's level, in any compound
    statement but a class or function (``functions``: a superset of the functions it indexes;
    see ``project/top_definitions.py``)."""
    imports: dict[str, str | None] = {}
    defined: set[str] = set()
    for node in statements(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for local, full in _import_names(node):
                if local in imports and imports[local] != full:
                    imports[local] = None
                else:
                    imports[local] = full
    top = {
        node.name
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }
    return {
        "imports": {local: full for local, full in imports.items() if local not in top},
        "defined": sorted(defined),
        "body": sorted(top),
        "functions": sorted(_module_functions(tree)),
    }


def _module_functions(tree: ast.Module) -> set[str]:
    """The names of the functions defined at the module's level: in its body or in any
    compound statement there (``if``, ``try``, ``with``, loops, ``match``), not in a class or
    function."""
    found: set[str] = set()
    todo = deque(tree.body)
    while todo:
        node = todo.popleft()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.add(node.name)
        elif not isinstance(node, ast.ClassDef):
            for name in BODIES.get(type(node), ()):
                todo.extend(getattr(node, name))
    return found


_BLOCKS = (ast.stmt, ast.excepthandler, ast.match_case)


def statements(tree: ast.Module) -> Iterator[ast.AST]:
    """The statements of a module at any depth (and the ``except``/``case`` clauses holding
    some), in the order ``ast.walk`` meets them, without entering expressions: imports and
    definitions are statements, and no expression holds one."""
    todo = deque(node for node in tree.body)
    while todo:
        node = todo.popleft()
        for name in BODIES.get(type(node), ()):
            todo.extend(getattr(node, name))
        yield node


def _bodies(kind: type) -> tuple[str, ...]:
    """The fields of a statement kind that hold statements or clauses (``ast.walk`` visits
    them in the order of ``_fields``)."""
    found = []
    for name in kind._fields:  # type: ignore[attr-defined]
        if name in ("body", "orelse", "finalbody", "handlers", "cases"):
            found.append(name)
    return tuple(found)


BODIES: dict[type, tuple[str, ...]] = {
    kind: _bodies(kind)
    for kind in (
        *(k for k in vars(ast).values() if isinstance(k, type) and issubclass(k, _BLOCKS)),
    )
}


def _import_names(node: ast.Import | ast.ImportFrom) -> Iterator[tuple[str, str]]:
    """(local name, imported name) for one import statement, as ``ImportTable`` reads it."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname:
                yield alias.asname, alias.name
            else:
                top = alias.name.split(".", 1)[0]
                yield top, top
        return
    dots = "." * node.level
    if node.module is None and not dots:
        return
    base = dots + node.module if node.module else dots
    for alias in node.names:
        if alias.name == "*":
            continue
        full = f"{base}{alias.name}" if base.endswith(".") else f"{base}.{alias.name}"
        yield alias.asname or alias.name, full


# The statements and expressions that repeat their body: loops and comprehensions.
LOOP_NODES = (
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)
_MOVES = frozenset({"to", "cuda", "copy_"})
MOVE_MARKERS = (b".to(", b".cuda(", b".copy_(")
LOOP_MARKERS = (b"for ", b"while ")


# The name of a move as a word: every ``x.to(...)`` call has its ``to`` on a line of its own
# range (the moves are found on the tree; these lines only tell which statements to enter).
_MOVE_WORD = re.compile(rb"(?<![A-Za-z0-9_])(?:to|cuda|copy_)(?![A-Za-z0-9_])")


def moving_functions(tree: ast.Module, data: bytes | None = None) -> list[str]:
    """The names of the functions (at any depth) holding a loop (``for``, ``while``, a
    comprehension) that calls ``.to``, ``.cuda`` or ``.copy_``: what every per-item transfer
    is made of. An enclosing function counts too (a superset). One pass over the tree; given
    the module's bytes ``data``, the pass skips the nodes on whose lines no move is named."""
    found: set[str] = set()
    functions: list[str] = []
    marked = _marked_lines(data) if data is not None else None

    def visit(node: ast.AST, in_loop: bool) -> None:
        if marked is not None and not _may_hold(node, marked):
            return
        is_function = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.append(node.name)
            in_loop = False
        elif isinstance(node, LOOP_NODES):
            in_loop = True
        elif (
            in_loop
            and isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _MOVES
        ):
            found.update(functions)
        for child in child_nodes(node):
            visit(child, in_loop)
        if is_function:
            functions.pop()

    visit(tree, False)
    return sorted(found)


def returning_movers(tree: ast.Module) -> list[str]:
    """The names of the functions (at any depth) whose body, a docstring aside, is one
    ``return`` of a ``.to(...)`` or ``.cuda(...)`` call: the one-item movers
    (``def stage(t, device): return t.to(device, non_blocking=True)``) whose call in a loop
    copies each item on its own; also the collection movers whose tensor branch is such a
    ``return`` (``move_to_device(o, device)``). A superset: the analysis checks what is moved
    and where."""
    found: list[str] = []
    for node in walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        body = node.body
        if (
            len(body) == 2
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
        ):
            body = body[1:]
        if len(body) == 1 and isinstance(body[0], ast.Return):
            value = body[0].value
        else:
            value = _tensor_branch_return(body)
        while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
            if value.func.attr in ("to", "cuda"):
                found.append(node.name)
                break
            value = value.func.value
    return sorted(set(found))


def _tensor_branch_return(body: list[ast.stmt]) -> ast.expr | None:
    """What the tensor branch of a collection mover returns (``if isinstance(o, torch.Tensor):
    return o.to(device)``, then branches for dicts and lists), when statements without a
    ``return`` are all that come before it."""
    for statement in body:
        if isinstance(statement, ast.If) and _tests_tensor(statement.test):
            inner = statement.body
            if len(inner) == 1 and isinstance(inner[0], ast.Return):
                return inner[0].value
            return None
        if any(isinstance(node, ast.Return) for node in walk(statement)):
            return None
    return None


def _tests_tensor(test: ast.expr) -> bool:
    """``isinstance(o, torch.Tensor)``, ``isinstance(o, Tensor)`` or ``torch.is_tensor(o)``."""
    if not isinstance(test, ast.Call) or not test.args:
        return False
    func = test.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if name == "is_tensor":
        return len(test.args) == 1
    if name != "isinstance" or len(test.args) != 2:
        return False
    kind = test.args[1]
    kind_name = kind.attr if isinstance(kind, ast.Attribute) else getattr(kind, "id", None)
    return kind_name == "Tensor"


def _marked_lines(data: bytes) -> list[int]:
    """The numbers (from 1, as ``ast`` counts lines) of the lines naming a move."""
    return [
        number
        for number, line in enumerate(data.splitlines(), 1)
        if _MOVE_WORD.search(line) is not None
    ]


def _may_hold(node: ast.AST, marked: list[int]) -> bool:
    """Whether a line of ``node``'s range (its decorators included) names a move; True for
    nodes without a position."""
    first = getattr(node, "lineno", None)
    last = getattr(node, "end_lineno", None)
    if first is None or last is None:
        return True
    for decorator in getattr(node, "decorator_list", ()):
        first = min(first, decorator.lineno)
    at = bisect.bisect_left(marked, first)
    return at < len(marked) and marked[at] <= last


def may_move(data: bytes) -> bool:
    """Whether the text has both a loop and a move: without either, no function of it can move
    items one by one (no parse needed to tell)."""
    return any(m in data for m in MOVE_MARKERS) and any(w in data for w in LOOP_MARKERS)


def dotted(node: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def top_functions(
    tree: ast.Module,
) -> Iterator[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str | None]]:
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node, None
        elif isinstance(node, ast.ClassDef):
            for member in node.body:
                if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield member, node.name
