"""Who calls a function from another module of the project, and whether that caller runs per
step: the cross-module half of hot-path detection.

Lazy and bounded: a question about ``pkg.utils.move_items`` reads the project's files once per
process (bytes only), parses with CPython's ``ast`` only the files whose bytes mention
``move_items``, and keeps the calls whose name resolves to that function through the file's
imports. A caller is hot when its own name says it runs per step (``hot_name``) or, one more hop
up, when it is in turn called from such a function in another module.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from h2dlint.digest import content_digest
from h2dlint.project.index import ProjectIndex

# A name followed by an opening parenthesis: a call, or a definition (close enough to find the
# few files worth parsing). The look-behind finds the same names as the pattern without it (a
# name's tail matches only where the whole name does, and the whole name is found first) but
# does not retry every tail of every name: 3-4 times faster on a large project.
_CALLED = re.compile(rb"(?<![A-Za-z_])([A-Za-z_][A-Za-z0-9_]*)\s*\(")
# Hops followed up the call graph from the function asked about.
MAX_HOPS = 2
# Files a single question may parse; beyond it the answer is "not known to be hot".
MAX_FILES_PER_NAME = 64
# Definitions of one name read (with CPython's ast) to tell whether one moves items; a name
# defined more often is assumed to (the call is then resolved, which reads one module).
MAX_DEFINITIONS_READ = 8
# Questions about called names answered by a scan for that name alone, before one table of
# every called name is built (cheaper once many names are asked, as in a whole-tree run).
TABLE_AFTER_QUESTIONS = 32
_DEFINED = re.compile(rb"def\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(")


@dataclass(frozen=True)
class Caller:
    """A function of another module that calls the function asked about."""

    module: str
    qualified: str  # module.function or module.Class.method
    name: str  # the caller's own (last) name
    cls: str | None
    line: int


class CallerIndex:
    """Reverse call edges across the project, found on demand."""

    def __init__(self, project: ProjectIndex) -> None:
        self.project = project
        self._bytes: dict[str, bytes] | None = None
        self._trees: dict[str, ast.Module | None] = {}
        self._callers: dict[str, tuple[tuple[Caller, ...], dict[str, str]]] = {}
        self._called: dict[bytes, list[str]] | None = None
        self._mentions: dict[str, list[str]] = {}
        self._defined: dict[str, list[str]] | None = None
        # Per module: qualified callee -> the module's functions that call it; the names of
        # its functions that may move items one by one.
        self._edges: dict[str, dict[str, list[Caller]]] = {}
        self._mover_names: dict[str, frozenset[str]] = {}
        # Per function name: whether a definition of that name may move items one by one.
        self._movers: dict[str, bool] = {}

    def _files(self) -> dict[str, bytes]:
        if self._bytes is None:
            self._bytes = {}
            read = self.project.read
            for module, path in self.project.layout.modules.items():
                data = read(path)
                if data is not None:
                    self._bytes[module] = data
        return self._bytes

    def _tree(self, module: str) -> ast.Module | None:
        if module not in self._trees:
            data = self._files().get(module)
            try:
                self._trees[module] = ast.parse(data) if data is not None else None
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                self._trees[module] = None
        return self._trees[module]

    def callers(self, qualified: str) -> tuple[Caller, ...]:
        """The functions of other modules that call the top-level function ``qualified``."""
        known = self._callers.get(qualified)
        if known is None:
            known = self._find_callers(qualified)
            self._callers[qualified] = known
        found, depends = known
        # The answer rests on the files that mention the name: an edit to one of them must
        # refresh the cached verdict. (A file that starts to mention it only later is seen on
        # a cold run.)
        self.project.consulted.update(depends)
        return found

    def _called_names(self) -> dict[bytes, list[str]]:
        """Each name that is called somewhere (``name(``) -> the modules whose text calls it:
        one scan of the project's bytes per process, built once many questions were asked
        (a run over a few files asks few, and one scan of a large project costs seconds)."""
        if self._called is None:
            called: dict[bytes, list[str]] = {}
            for module, data in self._files().items():
                for name in set(_CALLED.findall(data)):
                    called.setdefault(name, []).append(module)
            self._called = called
        return self._called

    def _calling(self, name: str) -> list[str]:
        """The modules whose text calls ``name`` (``name(``, spaces allowed)."""
        found = self._mentions.get(name)
        if found is None:
            if self._called is not None or len(self._mentions) >= TABLE_AFTER_QUESTIONS:
                found = self._called_names().get(name.encode(), [])
            else:
                needle = name.encode()
                call = re.compile(rb"(?<![A-Za-z0-9_])" + re.escape(needle) + rb"\s*\(")
                found = [
                    module
                    for module, data in self._files().items()
                    if needle in data and call.search(data)
                ]
            self._mentions[name] = found
        return found

    def _defining(self, name: str) -> list[str]:
        """The modules whose text defines a function or method ``name`` (one cheap scan of the
        project for ``def name(`` per process)."""
        if self._defined is None:
            defined: dict[str, list[str]] = {}
            for module, data in self._files().items():
                for found in set(_DEFINED.findall(data)):
                    defined.setdefault(found.decode(), []).append(module)
            self._defined = defined
        return self._defined.get(name, [])

    def _find_callers(self, qualified: str) -> tuple[tuple[Caller, ...], dict[str, str]]:
        module, _, name = qualified.rpartition(".")
        found: list[Caller] = []
        depends: dict[str, str] = {}
        files = self._files()
        reaches = _reaching(name)
        for other in self._calling(name):
            data = files[other]
            if other == module or not reaches.search(data):
                continue  # a module calling only its own function of that name is no caller
            if len(depends) >= MAX_FILES_PER_NAME:
                break
            path = self.project.layout.path_of(other)
            if path is not None:
                depends[path] = content_digest(data)
            found.extend(self._edges_of(other).get(qualified, ()))
        return tuple(found), depends

    def _edges_of(self, module: str) -> dict[str, list[Caller]]:
        """The calls ``module``'s functions make, by resolved callee: one walk of the module
        per process, however many questions name it."""
        edges = self._edges.get(module)
        if edges is None:
            tree = self._tree(module)
            edges = _calls_by_callee(tree, module, self.project) if tree is not None else {}
            self._edges[module] = edges
            self._trees.pop(module, None)  # kept facts only: trees of a large project are GBs
        return edges

    def _movers_of(self, module: str) -> frozenset[str]:
        """The names of ``module``'s functions that may move items one by one."""
        movers = self._mover_names.get(module)
        if movers is None:
            data = self._files().get(module, b"")
            # Text without a loop or without a move cannot hold a moving loop: no parse.
            if not (
                any(m in data for m in _MOVE_MARKERS) and any(w in data for w in _LOOP_MARKERS)
            ):
                movers = frozenset()
            else:
                tree = self._tree(module)
                movers = _moving_functions(tree) if tree is not None else frozenset()
                self._trees.pop(module, None)
            self._mover_names[module] = movers
        return movers

    def may_define_mover(self, name: str) -> bool:
        """Whether some function or method of the project named ``name`` may copy items to the
        device one per item: a loop (``for``, ``while``, a comprehension) holding a ``.to(``,
        ``.cuda(`` or ``.copy_(`` call. False only when no such definition exists: then no call
        of that name can be a per-item mover, and nothing needs parsing with libcst to learn it.
        Read with CPython's ``ast``, only the files whose text defines the name."""
        known = self._movers.get(name)
        if known is None:
            known = self._find_mover(name)
            self._movers[name] = known
        return known

    def _find_mover(self, name: str) -> bool:
        defining = self._defining(name)
        if len(defining) > MAX_DEFINITIONS_READ:
            return True  # too common a name to read every definition: assume one may be
        return any(name in self._movers_of(module) for module in defining)

    def hot_reason(
        self, qualified: str, hot_name: Callable[[str, str | None], bool], hops: int = 0
    ) -> str | None:
        """Why the top-level function ``qualified`` runs per step: the hot function of another
        module that calls it (directly, or through one more such call); None when no caller
        is known to be hot."""
        if hops >= MAX_HOPS:
            return None
        for caller in self.callers(qualified):
            if hot_name(caller.name, caller.cls):
                where = f"{caller.cls}.{caller.name}" if caller.cls else caller.name
                return f"called from `{where}()` in {caller.module}"
            if caller.cls is None:
                deeper = self.hot_reason(caller.qualified, hot_name, hops + 1)
                if deeper is not None:
                    return f"called from `{caller.name}()` in {caller.module}, {deeper}"
        return None


def _reaching(name: str) -> re.Pattern[bytes]:
    """Text through which a module can call another module's ``name``: an import naming it
    (``from .x import name``, also inside parentheses), or a call of it as an attribute
    (``x.name(``, ``module.name(``). A module that defines and calls its own ``name`` (the
    same helper copied into every model file) has neither."""
    word = re.escape(name.encode())
    return re.compile(
        rb"import\s*(?:\([^)]*?\b" + word + rb"\b|[^\n(]*?\b" + word + rb"\b)"
        rb"|\." + word + rb"\s*\("
    )


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


_MOVE_MARKERS = (b".to(", b".cuda(", b".copy_(")
_LOOP_MARKERS = (b"for ", b"while ")


def _moving_functions(tree: ast.Module) -> frozenset[str]:
    """The names of the functions (at any depth) holding a loop (``for``, ``while``, a
    comprehension) that calls ``.to``, ``.cuda`` or ``.copy_``: what every per-item transfer
    is made of. An enclosing function counts too (a superset). One pass over the tree."""
    found: set[str] = set()
    functions: list[str] = []

    def visit(node: ast.AST, in_loop: bool) -> None:
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
    return frozenset(found)


def _imports(tree: ast.Module, module: str, project: ProjectIndex) -> dict[str, str]:
    """Local name -> absolute qualified name, for the imports of a module."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = alias.name
                else:
                    top = alias.name.split(".", 1)[0]
                    names[top] = top
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            for alias in node.names:
                if alias.name == "*":
                    continue
                joint = "" if base.endswith(".") or not base else "."
                full = project.absolute(module, f"{base}{joint}{alias.name}")
                names[alias.asname or alias.name] = full
    return names


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


def _calls_by_callee(
    tree: ast.Module, module: str, project: ProjectIndex
) -> dict[str, list[Caller]]:
    """Qualified callee -> the functions of ``module`` that call it (each once, at its first
    call), for the calls whose name resolves through the module's imports."""
    imports = _imports(tree, module, project)
    edges: dict[str, list[Caller]] = {}
    for function, cls in _functions(tree):
        seen: set[str] = set()
        for node in ast.walk(function):
            if not isinstance(node, ast.Call):
                continue
            dotted = _dotted(node.func)
            if dotted is None:
                continue
            root, _, rest = dotted.partition(".")
            full = imports.get(root)
            if full is None:
                continue
            callee = f"{full}.{rest}" if rest else full
            if callee in seen:
                continue
            seen.add(callee)
            owner = f"{module}.{cls}.{function.name}" if cls else f"{module}.{function.name}"
            edges.setdefault(callee, []).append(
                Caller(module, owner, function.name, cls, node.lineno)
            )
    return edges
