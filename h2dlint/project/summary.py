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
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from typing import Any

# Bumped whenever a part's meaning or shape changes: summaries of another format are dropped.
SUMMARY_FORMAT = 2
# Parsed ``ast`` trees kept per process while their module's parts are computed one by one.
KEPT_TREES = 4

# A function or method definition in the text (``def name(``): close enough to find the few
# modules worth parsing.
DEFINED_PATTERN = re.compile(rb"def\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(")

Parts = dict[str, Any]


class SummaryStore:
    """Summaries by content digest: those loaded from the disk, and those computed in this
    process (``fresh``: the parts to hand back to the main process and save)."""

    def __init__(self, entries: dict[str, Parts] | None = None) -> None:
        self.entries: dict[str, Parts] = entries if entries is not None else {}
        self.fresh: dict[str, Parts] = {}
        self._trees: OrderedDict[str, ast.Module | None] = OrderedDict()

    def part(self, digest: str, name: str, compute: Callable[[], Any]) -> Any:
        """Part ``name`` of the summary of the content ``digest``: stored, or computed now."""
        parts = self.entries.get(digest)
        if parts is None:
            parts = self.entries[digest] = {}
        if name in parts:
            return parts[name]
        value = compute()
        parts[name] = value
        self.fresh.setdefault(digest, {})[name] = value
        return value

    def stored(self, digest: str, name: str) -> tuple[Any] | None:
        """Part ``name`` of the summary of ``digest`` when it is known (in a 1-tuple: a part
        may be None), without computing it."""
        parts = self.entries.get(digest)
        if parts is None or name not in parts:
            return None
        return (parts[name],)

    def tree(self, digest: str, data: bytes) -> ast.Module | None:
        """The ``ast`` tree of ``data`` (whose digest is ``digest``), kept while a few parts of
        the same module are computed; None when CPython cannot parse it."""
        if digest in self._trees:
            self._trees.move_to_end(digest)
            return self._trees[digest]
        try:
            with warnings.catch_warnings():  # CPython's warnings about the code are not ours
                warnings.simplefilter("ignore")
                tree: ast.Module | None = ast.parse(data)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            tree = None
        self._trees[digest] = tree
        while len(self._trees) > KEPT_TREES:
            self._trees.popitem(last=False)
        return tree

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
    of those the analysis indexes: a name not among them is surely not defined there)."""
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
    }


_BLOCKS = (ast.stmt, ast.excepthandler, ast.match_case)


def statements(tree: ast.Module) -> Iterator[ast.AST]:
    """The statements of a module at any depth (and the ``except``/``case`` clauses holding
    some), in the order ``ast.walk`` meets them, without entering expressions: imports and
    definitions are statements, and no expression holds one."""
    todo = deque(node for node in tree.body)
    while todo:
        node = todo.popleft()
        for name in _BODIES.get(type(node), ()):
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


_BODIES: dict[type, tuple[str, ...]] = {
    kind: _bodies(kind)
    for kind in (
        *(k for k in vars(ast).values() if isinstance(k, type) and issubclass(k, _BLOCKS)),
    )
}


def _statements_of(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.AST]:
    """The statements of a function's body at any depth, without entering expressions."""
    todo = deque(function.body)
    while todo:
        node = todo.popleft()
        for name in _BODIES.get(type(node), ()):
            todo.extend(getattr(node, name))
        yield node


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


_LOOPS = (
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
        elif isinstance(node, _LOOPS):
            in_loop = True
        elif (
            in_loop
            and isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _MOVES
        ):
            found.update(functions)
        for child in ast.iter_child_nodes(node):
            visit(child, in_loop)
        if is_function:
            functions.pop()

    visit(tree, False)
    return sorted(found)


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


def call_edges(tree: ast.Module) -> Parts:
    """The calls the module's functions make to functions and methods the index can name,
    unresolved: the imports (local name, imported name as written, in the order ``ast.walk``
    meets them: the last one wins), and per function or method (name, class or None) each
    dotted callee, once, with the line of its first call, in the order of those first calls.
    The index resolves them against the module's package (``callers.py``).

    A callee is a dotted name whose root is imported (``helpers.move(...)``,
    ``Buffer.stage(...)``), or a method reached through an object whose class the module
    names (:func:`_typed_receivers`): ``self.drafter.propose(...)`` where some method of the
    class assigns ``self.drafter = Proposer(...)``, ``batch.refresh(...)`` of a parameter
    annotated ``batch: InputBatch``, and ``self.helper(...)`` of the method's own class.
    Callees of the module's own classes start with a dot (``.Runner.helper``)."""
    imports: list[list[str]] = []
    for node in statements(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    imports.append([alias.asname, alias.name])
                else:
                    top = alias.name.split(".", 1)[0]
                    imports.append([top, top])
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            for alias in node.names:
                if alias.name == "*":
                    continue
                joint = "" if base.endswith(".") or not base else "."
                imports.append([alias.asname or alias.name, f"{base}{joint}{alias.name}"])
    roots = {local for local, _ in imports}
    classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    attributes = {
        node.name: _attribute_classes(node, roots, classes)
        for node in tree.body
        if isinstance(node, ast.ClassDef)
    }
    functions: list[list[Any]] = []
    for function, cls in _functions(tree):
        receivers = _typed_receivers(function, cls, attributes, roots, classes)
        first: dict[str, int] = {}
        for node in ast.walk(function):
            if not isinstance(node, ast.Call):
                continue
            for dotted in _callees(node.func, roots, receivers):
                if dotted not in first:
                    first[dotted] = node.lineno
        if first:
            functions.append([function.name, cls, [[d, line] for d, line in first.items()]])
    bases = {
        node.name: [name for name in map(_dotted, node.bases) if name is not None]
        for node in tree.body
        if isinstance(node, ast.ClassDef) and node.bases
    }
    return {"imports": imports, "functions": functions, "bases": bases}


def _callees(func: ast.expr, roots: set[str], receivers: dict[str, list[str]]) -> list[str]:
    """The dotted callees of one call's function (see :func:`call_edges`)."""
    dotted = _dotted(func)
    if dotted is None:
        return []
    head, _, rest = dotted.partition(".")
    if head in roots:
        return [dotted]
    if not rest:
        return []
    # ``self.m``, ``self.attr.m``, ``param.m``: the longest known receiver, then one method.
    receiver, _, method = dotted.rpartition(".")
    if "." in method:
        return []
    return [f"{cls}.{method}" for cls in receivers.get(receiver, ())]


def _typed_receivers(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    cls: str | None,
    attributes: dict[str, dict[str, list[str]]],
    roots: set[str],
    classes: set[str],
) -> dict[str, list[str]]:
    """Receiver expression (``self``, ``self.drafter``, ``batch``) -> the classes it holds,
    each as a callee prefix: an imported dotted name, or ``.Class`` for a class of the module."""
    receivers: dict[str, list[str]] = {}
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    if cls is not None and positional and not _static(function):
        own = positional[0].arg
        receivers[own] = ["." + cls]
        for attribute, found in attributes.get(cls, {}).items():
            receivers[f"{own}.{attribute}"] = found
    for argument in [*positional, *arguments.kwonlyargs]:
        if argument.annotation is not None and argument.arg not in receivers:
            found = _annotated_classes(argument.annotation, roots, classes)
            if found:
                receivers[argument.arg] = found
    return receivers


def _static(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in function.decorator_list)


def _attribute_classes(
    node: ast.ClassDef, roots: set[str], classes: set[str]
) -> dict[str, list[str]]:
    """The classes of a class's attributes, as far as the class's own text says: fields
    annotated in its body (``sampler: Sampler``), and ``self.x = Cls(...)``,
    ``self.x: Cls = ...`` or ``self.x = param`` (of a parameter annotated ``Cls``) in its
    methods. An attribute assigned several classes (one per branch) holds each."""
    found: dict[str, list[str]] = {}

    def add(attribute: str, names: list[str]) -> None:
        held = found.setdefault(attribute, [])
        held.extend(name for name in names if name not in held)

    for member in node.body:
        if isinstance(member, ast.AnnAssign) and isinstance(member.target, ast.Name):
            add(member.target.id, _annotated_classes(member.annotation, roots, classes))
        if not isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        positional = [*member.args.posonlyargs, *member.args.args]
        if not positional or _static(member):
            continue
        own = positional[0].arg
        parameters = {
            a.arg: _annotated_classes(a.annotation, roots, classes)
            for a in [*positional[1:], *member.args.kwonlyargs]
            if a.annotation is not None
        }
        value: ast.expr | None
        annotation: ast.expr | None
        for statement in _statements_of(member):
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
                target, value, annotation = statement.targets[0], statement.value, None
            elif isinstance(statement, ast.AnnAssign):
                target, value, annotation = statement.target, statement.value, statement.annotation
            else:
                continue
            if not (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == own
            ):
                continue
            if annotation is not None:
                add(target.attr, _annotated_classes(annotation, roots, classes))
            if isinstance(value, ast.Call):
                add(target.attr, _class_named(_dotted(value.func), roots, classes))
            elif isinstance(value, ast.Name) and value.id in parameters:
                add(target.attr, parameters[value.id])
    return {attribute: names for attribute, names in found.items() if names}


def _annotated_classes(annotation: ast.expr, roots: set[str], classes: set[str]) -> list[str]:
    """The classes an annotation names: ``Cls``, ``mod.Cls``, ``Optional[Cls]``,
    ``Cls | None``, ``"Cls"``."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return []
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return [
            *_annotated_classes(annotation.left, roots, classes),
            *_annotated_classes(annotation.right, roots, classes),
        ]
    if isinstance(annotation, ast.Subscript) and _dotted(annotation.value) in (
        "Optional",
        "typing.Optional",
    ):
        return _annotated_classes(annotation.slice, roots, classes)
    return _class_named(_dotted(annotation), roots, classes)


def _class_named(dotted: str | None, roots: set[str], classes: set[str]) -> list[str]:
    """``dotted`` as a callee prefix when it names a class (its last part capitalised) the
    module imports or defines; a class's alternate constructor (``Cls.from_config``) names
    ``Cls``."""
    if dotted is None:
        return []
    parts = dotted.split(".")
    while parts and not parts[-1][:1].isupper():
        parts.pop()  # ``Cls.create`` -> ``Cls``
    if not parts or len(parts[-1]) < 2 or parts[-1].isupper():
        return []  # no class, or a constant (``DEFAULT``) / type variable (``T``)
    if parts[0] in roots:
        return [".".join(parts)]
    if len(parts) == 1 and parts[0] in classes:
        return ["." + parts[0]]
    return []


def _dotted(node: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _functions(
    tree: ast.Module,
) -> Iterator[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str | None]]:
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node, None
        elif isinstance(node, ast.ClassDef):
            for member in node.body:
                if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield member, node.name
