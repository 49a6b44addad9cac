"""Who calls a function from another module of the project, and whether that caller runs per
step: the cross-module half of hot-path detection.

Lazy and bounded: a question about ``pkg.utils.move_items`` reads the project's files once per
process (bytes only), parses with CPython's ``ast`` only the files whose bytes mention
``move_items``, and keeps the calls whose name resolves to that function through the file's
imports. A caller is hot when its own name says it runs per step (``hot_name``) or, one more hop
up, when it is in turn called from such a function in another module.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from h2dlint.project.index import ProjectIndex
from h2dlint.project.summary import call_edges, defined_names, may_move, moving_functions

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
        self._read: dict[str, bytes | None] = {}
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
        """The bytes of every module of the project (read once per process)."""
        if self._bytes is None:
            self._bytes = {}
            for module in self.project.layout.modules:
                data = self._data(module)
                if data is not None:
                    self._bytes[module] = data
        return self._bytes

    def _data(self, module: str) -> bytes | None:
        """The bytes of one module (None when it cannot be read)."""
        if module not in self._read:
            self._read[module] = self.project.read(self.project.layout.modules[module])
        return self._read[module]

    def _digest(self, module: str) -> str:
        path = self.project.layout.modules[module]
        known = self.project.known_digest(path)
        if known is not None:
            return known
        data = self._data(module)
        assert data is not None  # only asked about modules that were read
        return self.project.digest(path, data)

    def _part(self, module: str, name: str, compute: Callable[[bytes], Any]) -> Any:
        """Part ``name`` of ``module``'s summary (``summary.py``), by its content; the module
        is read only when the part must be computed."""
        path = self.project.layout.modules[module]
        digest = self.project.known_digest(path)
        if digest is not None:
            stored = self.project.summaries.stored(digest, name)
            if stored is not None:
                return stored[0]
        data = self._data(module)
        if data is None:
            return None
        digest = self.project.digest(path, data)
        return self.project.summaries.part(digest, name, lambda: compute(data))

    def _tree_part(self, module: str, name: str, compute: Callable[[Any], Any]) -> Any:
        """A part read from the module's ``ast`` tree (None when CPython cannot parse it)."""

        def from_tree(data: bytes) -> Any:
            tree = self.project.summaries.tree(self._digest(module), data)
            return compute(tree) if tree is not None else None

        return self._part(module, name, from_tree)

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
        """The modules whose text defines a function or method ``name`` (``def name(``): one
        table per process, from each module's summary."""
        if self._defined is None:
            defined: dict[str, list[str]] = {}
            # From the stored summaries where the status of a module's file tells its
            # content: a run over a few files reads none of the others then.
            for module in self.project.layout.modules:
                if self.project.keeps_summaries:
                    names = self._part(module, "defs", defined_names)
                else:  # nothing is kept: the text at hand, without hashing every module
                    data = self._data(module)
                    names = defined_names(data) if data is not None else None
                for found in names or ():
                    defined.setdefault(found, []).append(module)
            self._defined = defined
        return self._defined.get(name, [])

    def _find_callers(self, qualified: str) -> tuple[tuple[Caller, ...], dict[str, str]]:
        module = self._module_of(qualified)
        owner, _, name = qualified.rpartition(".")
        # A method (``mod.Class.method``) is reached from another module only through an
        # instance whose class that module names (constructs, annotates, imports).
        cls = owner.rpartition(".")[2].encode() if owner != module else None
        holds = _holding(cls) if cls is not None else None
        found: list[Caller] = []
        depends: dict[str, str] = {}
        files = self._files()
        reaches = _reaching(name)
        for other in self._calling(name):
            data = files[other]
            if other != module and (
                (cls is not None and cls not in data)
                or (holds is not None and not holds.search(data))
                or not reaches.search(data)
            ):
                continue  # a module calling only its own function of that name is no caller
            if len(depends) >= MAX_FILES_PER_NAME:
                break
            path = self.project.layout.path_of(other)
            if path is not None:
                depends[path] = self._digest(other)
            found.extend(self._edges_of(other).get(qualified, ()))
        return tuple(found), depends

    def _edges_of(self, module: str) -> dict[str, list[Caller]]:
        """The calls ``module``'s functions make, by resolved callee: from the module's
        summary, resolved once per process however many questions name it."""
        edges = self._edges.get(module)
        if edges is None:
            raw = self._tree_part(module, "edges", call_edges)
            edges = _resolve_edges(raw, module, self.project) if raw is not None else {}
            self._edges[module] = edges
        return edges

    def _movers_of(self, module: str) -> frozenset[str]:
        """The names of ``module``'s functions that may move items one by one."""
        movers = self._mover_names.get(module)
        if movers is None:
            # Text without a loop or without a move cannot hold a moving loop: no parse.
            data = self._data(module) or b""
            if not may_move(data):
                movers = frozenset()
            else:
                found = self._tree_part(module, "movers", lambda t: moving_functions(t, data))
                movers = frozenset(found) if found is not None else frozenset()
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
        self,
        qualified: str,
        hot_name: Callable[[str, str | None], bool],
        hops: int = 0,
        crossed: bool = False,
        stop: Callable[[str], bool] | None = None,
    ) -> str | None:
        """Why the top-level function or method ``qualified`` (``pkg.mod.f``,
        ``pkg.mod.Class.method``) runs per step: the hot function of another module that calls
        it (directly, or through one more call); None when no caller is known to be hot.

        Calls within the callee's own module count only as a hop on a path that crosses
        modules somewhere (the file's own analysis answers for paths inside it, with the
        guards it sees: run-once branches, periodic ones): the method ``_update_states``
        that calls ``batch.add_request`` is hot because ``execute_model`` of its own module
        calls it; ``get_rope_index``'s helper is hot because a model's ``forward`` calls
        ``get_rope_index``. ``stop(name)`` says a caller runs once by its name (``__init__``,
        ``load_model``): it is not followed further up."""
        if hops >= MAX_HOPS:
            return None
        module = self._module_of(qualified)
        for caller in self.callers(qualified):
            local = caller.module == module
            if hot_name(caller.name, caller.cls):
                if local and not crossed:
                    continue
                where = f"{caller.cls}.{caller.name}" if caller.cls else caller.name
                return f"called from `{where}()` in {caller.module}"
            if hops + 1 < MAX_HOPS and not (stop is not None and stop(caller.name)):
                deeper = self.hot_reason(
                    caller.qualified, hot_name, hops + 1, crossed or not local, stop
                )
                if deeper is not None:
                    where = f"{caller.cls}.{caller.name}" if caller.cls else caller.name
                    return f"called from `{where}()` in {caller.module}, {deeper}"
        return None

    def _module_of(self, qualified: str) -> str:
        """The module of the function or method ``qualified``: its longest prefix that is a
        module of the project."""
        modules = self.project.layout.modules
        head = qualified
        while "." in head:
            head = head.rpartition(".")[0]
            if head in modules:
                return head
        return qualified.rpartition(".")[0]


def _holding(cls: bytes) -> re.Pattern[bytes]:
    """Text through which a module can hold an instance of class ``cls`` in an attribute the
    call edges follow: it constructs one (``= Cls(``, ``= mod.Cls(``) or annotates with it
    (``: Cls``, ``: Optional[Cls]``, ``: mod.Cls | None``)."""
    word = re.escape(cls)
    return re.compile(rb"=\s*(?:[\w.]+\.)?" + word + rb"\s*\(|:\s*[\w.\[]*?\b" + word + rb"\b")


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


def _resolve_edges(raw: Any, module: str, project: ProjectIndex) -> dict[str, list[Caller]]:
    """Qualified callee -> the functions of ``module`` that call it (each once, at its first
    call), from the module's unresolved call edges (``summary.call_edges``)."""
    imports: dict[str, str] = {}
    for local, full in raw["imports"]:
        imports[local] = project.absolute(module, full)
    edges: dict[str, list[Caller]] = {}
    for name, cls, calls in raw["functions"]:
        owner = f"{module}.{cls}.{name}" if cls else f"{module}.{name}"
        seen: set[str] = set()
        for dotted, line in calls:
            root, _, rest = dotted.partition(".")
            if not root:  # the module's own function or method (``.helper``, ``.C.m``)
                callee = f"{module}.{rest}"
            else:
                full = imports[root]
                callee = f"{full}.{rest}" if rest else full
            if callee in seen:
                continue
            seen.add(callee)
            edges.setdefault(callee, []).append(Caller(module, owner, name, cls, line))
    return edges
