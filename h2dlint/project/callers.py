"""Who calls a function from another module of the project, and whether that caller runs per step:
the cross-module half of hot-path detection.

Lazy and bounded: a question about ``pkg.utils.move_items`` finds the modules whose text calls
``move_items`` from their ``calls`` summary parts (stored by content: a run over a few files
reads no other module for them), parses with CPython's ``ast`` only those, and keeps the calls
whose name resolves to that function through the file's imports. A caller is hot when its own
name says it runs per step (``hot_name``) or, one more hop up, when it is in turn called from
such a function in another module.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Iterator
from typing import Any

from h2dlint.project.call_edges import (
    call_edges,
    external_bases,
    importing_subclasses,
    inheriting_classes,
)
from h2dlint.project.call_resolution import defining_module, resolve_edges
from h2dlint.project.caller_scans import Caller as Caller
from h2dlint.project.caller_scans import Scan, reaching
from h2dlint.project.index import ProjectIndex
from h2dlint.project.subclassing_part import subclassing_part
from h2dlint.project.summary import defined_names, may_move, moving_functions, returning_movers
from h2dlint.project.syncing_functions import SYNC_TEXT, syncing_functions
from h2dlint.project.text_scan import SEPARATOR, called_text, calling_texts, holds_typed
from h2dlint.project.text_scan import calls as text_calls

# Files a single question may parse; beyond it the answer is "not known to be hot".
MAX_FILES_PER_NAME = 64
# Definitions of one name read (with CPython's ast) to tell whether one moves items; a name
# defined more often is assumed to (the call is then resolved, which reads one module).
MAX_DEFINITIONS_READ = 8
# Questions about called names answered by a scan for that name alone, before one table of
# every called name is built (cheaper once many names are asked, as in a whole-tree run).
TABLE_AFTER_QUESTIONS = 32
# Without kept summaries, the modules' texts are searched joined (one search per name) up to
# this much text in all; past it, module by module (the joined copy would double the memory
# their bytes take in every process).
MAX_JOINED_BYTES = 16 << 20


# Helpers followed through helpers, as :data:`h2dlint.analysis.syncing_helpers.MAX_DEPTH`.
MAX_SYNC_DEPTH = 3


# Whether a function (name, class, the class's bases) runs per step by its name: True; may
# through its callers: False; is cold, nothing hot through it: None.
HotName = Callable[[str, str | None, tuple[str, ...]], "bool | None"]


class CallerIndex:
    """Reverse call edges across the project, found on demand."""

    def __init__(self, project: ProjectIndex) -> None:
        self.project = project
        self._read: dict[str, bytes | None] = {}
        self._scans: dict[str, Scan] = {}
        self._called: dict[str, list[str]] | None = None
        # Per module: the names its text calls (summary part ``calls``, :func:`called_text`).
        self._calls: dict[str, str] = {}
        # The parts of every module joined, the offset where each starts, and the modules.
        self._joined: tuple[str, list[int], list[str]] | None = None
        # Without kept summaries: the text of every module joined (text_scan.calling_texts),
        # and where each starts.
        self._joined_texts: tuple[bytes, list[int]] | tuple[()] | None = None
        self._mentions: dict[str, list[str]] = {}
        self._defined: dict[str, list[str]] | None = None
        # Per module: qualified callee -> the module's functions that call it; the names of
        # its functions that may move items one by one.
        self._edges: dict[str, dict[str, list[Caller]]] = {}
        # Callees imported through a package's re-export -> where they are defined.
        self._homes: dict[str, str | None] = {}
        self._mover_names: dict[str, frozenset[str]] = {}
        # Per function name: whether a definition of that name may move items one by one.
        self._movers: dict[str, bool] = {}
        self._item_movers: dict[str, bool] = {}
        self._syncing: dict[str, bool] = {}
        # (module, class) -> whether the module's text can hold an object of the class.
        self._typed: dict[tuple[str, str], bool] = {}

    def data(self, module: str) -> bytes | None:
        """The bytes of one module (None when it cannot be read), read once per process."""
        if module not in self._read:
            self._read[module] = self.project.read(self.project.layout.modules[module])
        return self._read[module]

    def calls_of(self, module: str) -> str:
        """The names ``module``'s text calls, as :func:`called_text` writes them (``" "`` when
        it cannot be read): from the module's stored summary when the status of its file
        tells its content, so that a run over a few files reads none of the others."""
        found = self._calls.get(module)
        if found is None:
            if self.project.keeps_summaries:
                found = self._part(module, "calls", called_text)
            else:  # nothing is kept: the text at hand, without hashing every module
                data = self.data(module)
                found = called_text(data) if data is not None else None
            found = self._calls[module] = found if found is not None else " "
        return found

    def adopt_calls(self, module: str, calls: str) -> None:
        """Take the part ``calls`` of ``module`` computed elsewhere (a forked process of
        :mod:`h2dlint.project.called_names`), keeping it with the summaries when they are kept."""
        self._calls[module] = calls
        if self.project.keeps_summaries:
            self.project.summaries.part(self._digest(module), "calls", lambda: calls)

    def _digest(self, module: str) -> str:
        path = self.project.layout.modules[module]
        known = self.project.known_digest(path)
        if known is not None:
            return known
        data = self.data(module)
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
        data = self.data(module)
        if data is None:
            return None
        digest = self.project.digest(path, data)
        return self.project.summaries.part(digest, name, lambda: compute(data))

    def tree_part(self, module: str, name: str, compute: Callable[[Any], Any]) -> Any:
        """Part ``name`` of ``module``'s summary, read from the module's ``ast`` tree by
        ``compute`` (a JSON value) when it is not stored; None when the module cannot be read
        or CPython cannot parse it."""

        def from_tree(data: bytes) -> Any:
            tree = self.project.summaries.tree(self._digest(module), data)
            return compute(tree) if tree is not None else None

        return self._part(module, name, from_tree)

    def callers(self, qualified: str, own_module: bool = True) -> Iterator[Caller]:
        """The functions of other modules that call the top-level function ``qualified``; for
        a method (``pkg.mod.Class.method``), the functions that call it through an object of
        its class, its own module's too unless ``own_module`` is False (the caller already
        knows those). In the order of the modules that hold them, found module by module as
        they are asked for: a question answered by the first caller (a hot ``forward`` that
        calls a helper) parses none of the other modules that mention the name. The modules
        read are recorded as consulted as they are read."""
        key = qualified if own_module else qualified + " "
        scan = self._scans.get(key)
        if scan is None:
            module = qualified.rpartition(".")[0]
            owner, _, cls = module.rpartition(".")
            layout = self.project.layout.modules
            # A method: only a module that makes or annotates an object of its class can hold
            # one known to be of it (``self.drafter = Proposer(...)``, ``batch: InputBatch``);
            # its own module calls it through ``self`` too.
            typed = cls if module not in layout and owner in layout else None
            bases = self._external_bases(owner, cls) if typed is not None else ()
            inheriting = self._inheriting(owner, cls, _last(qualified)) if typed else ()
            scan = self._scans[key] = Scan(
                qualified, self._calling(_last(qualified)), typed, own_module, bases, inheriting
            )
        # The answer rests on the files read for it: an edit to one of them must refresh the
        # cached verdict. (A file that starts to mention the name only later is seen on a cold
        # run; one after the caller that settled the answer cannot change it.)
        consulted = self.project.consulted
        consulted.update(scan.depends)
        at = 0
        while True:
            while at < len(scan.found):
                yield scan.found[at]
                at += 1
            read = self._advance(scan)
            if read is None:
                return
            consulted[read[0]] = read[1]

    def consult(self, module: str) -> None:
        """Record ``module`` as consulted for the file being checked (an answer rests on it)."""
        path = self.project.layout.path_of(module)
        if path is not None and self.data(module) is not None:
            self.project.consulted[path] = self._digest(module)

    def home_callers(self, qualified: str) -> list[Caller]:
        """The functions of ``qualified``'s own module that call it (no other module read)."""
        return self._edges_of(defining_module(qualified, self.project)).get(qualified, [])

    def called_names(self) -> dict[str, list[str]]:
        """Each name that is called somewhere (``name(``) -> the modules whose text calls it,
        from their ``calls`` parts: built once many questions were asked (a run over a few
        files asks few, and the table of a large project costs a tenth of a second)."""
        if self._called is None:
            called: dict[str, list[str]] = {}
            for module in self.project.layout.modules:
                for name in self.calls_of(module).split():
                    called.setdefault(name, []).append(module)
            self._called = called
        return self._called

    def calling(self, name: str) -> list[str]:
        """The modules whose text calls ``name`` (``name(``): those that may call a function
        of that name (argument flow asks whether only the defining module does)."""
        return self._calling(name)

    def _calling(self, name: str) -> list[str]:
        """The modules whose text calls ``name`` (``name(``, spaces allowed)."""
        found = self._mentions.get(name)
        if found is None:
            if self._called is not None or len(self._mentions) >= TABLE_AFTER_QUESTIONS:
                found = self.called_names().get(name, [])
            else:
                found = self._search_calls(name)
            self._mentions[name] = found
        return found

    def _search_calls(self, name: str) -> list[str]:
        """The modules whose ``calls`` part names ``name``: one substring search through the
        parts of every module joined in module order (each starts and ends with a blank, so no
        match spans two), instead of a search per module. A run that keeps no summaries scans
        the modules' text for the name instead: listing every name each module calls costs
        more than the few questions such a run asks."""
        if not self.project.keeps_summaries:  # nothing is kept: a scan for the name alone
            modules = list(self.project.layout.modules)
            if self._joined_texts is None:
                self._joined_texts = self._join_texts(modules)
            if not self._joined_texts:
                return [m for m in modules if text_calls(self.data(m) or b"", name)]
            joined, starts = self._joined_texts
            return [modules[i] for i in calling_texts(joined, starts, name)]
        text, starts, modules = self._joined_calls()
        word = f" {name} "
        found: list[str] = []
        at = text.find(word)
        while at >= 0:
            found.append(modules[bisect.bisect_right(starts, at) - 1])
            at = text.find(word, at + len(word) - 1)
        return found

    def _joined_calls(self) -> tuple[str, list[int], list[str]]:
        """The ``calls`` parts of every module joined in module order, where each starts, and
        the modules (built once per process)."""
        if self._joined is None:
            modules = list(self.project.layout.modules)
            parts = [self.calls_of(module) for module in modules]
            starts = list(itertools.accumulate((len(part) for part in parts[:-1]), initial=0))
            self._joined = ("".join(parts), starts, modules)
        return self._joined

    def _join_texts(self, modules: list[str]) -> tuple[bytes, list[int]] | tuple[()]:
        """The texts of ``modules`` joined for :func:`calling_texts`, and where each starts;
        ``()`` when they are more than MAX_JOINED_BYTES in all."""
        texts = [self.data(module) or b"" for module in modules]
        if sum(len(text) for text in texts) > MAX_JOINED_BYTES:
            return ()
        sizes = (len(text) + len(SEPARATOR) for text in texts[:-1])
        return SEPARATOR.join(texts) + SEPARATOR, list(itertools.accumulate(sizes, initial=0))

    def share_tables(self) -> None:
        """Build the tables every process of a whole-tree run builds on its first questions
        (the modules defining each name; without kept summaries, the modules' texts joined),
        before the run forks its workers: they inherit them instead of building them again."""
        self._defining("")
        if not self.project.keeps_summaries and self._joined_texts is None:
            self._joined_texts = self._join_texts(list(self.project.layout.modules))

    def stored_tables(self, share: float) -> tuple[str, ...]:
        """Which of the two project-wide tables (``"defs"``: the modules defining each name;
        ``"calls"``: the modules' ``calls`` parts joined) the stored summaries hold the parts
        of, for at least ``share`` of the project's modules each: told from each module's file
        status (its digest) and the stored summaries' headers, nothing decoded. Such a table
        then costs a decode per module, not a read and a scan. The digests found stay known to
        this process (and to the workers it forks)."""
        if not self.project.keeps_summaries:
            return ()
        modules = self.project.layout.modules
        known = [d for d in map(self.project.known_digest, modules.values()) if d is not None]
        count = self.project.summaries.count_held  # a name in a header: 0.5 ms, not 17
        return tuple(n for n in ("defs", "calls") if count(known, n) >= share * len(modules))

    def share_stored_tables(self, tables: tuple[str, ...]) -> None:
        """Build ``tables`` (of :meth:`stored_tables`, named as their parts) before a parallel
        run forks its workers, which each built both (transformers: 0.05 s of CPU each); each
        table's stored parts are decoded at once first (:meth:`SummaryStore.decode_stored`)."""
        known = map(self.project.known_digest, self.project.layout.modules.values())
        self.project.summaries.decode_stored(list(known), tables)
        if "defs" in tables:
            self._defining("")
        if "calls" in tables:
            self._joined_calls()

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
                    data = self.data(module)
                    names = defined_names(data) if data is not None else None
                for found in names or ():
                    defined.setdefault(found, []).append(module)
            self._defined = defined
        return self._defined.get(name, [])

    def _advance(self, scan: Scan) -> tuple[str, str] | None:
        """Read the next module that may call ``scan``'s function (its callers join
        ``scan.found``): its path and digest; None when none is left."""
        module = scan.qualified.rpartition(".")[0]
        owner = module.rpartition(".")[0]
        while scan.pending:
            other = scan.pending.popleft()
            subclasses: tuple[str, ...] = ()
            if scan.typed is not None:
                if other == owner:
                    if not scan.own_module:
                        continue
                elif not any(
                    self._holds(other, _last(c))
                    for c in (scan.typed, *scan.bases, *scan.inheriting)
                ) and not (subclasses := self._subclasses(other, scan)):
                    continue
            elif other == module:
                if not scan.own_module:
                    continue
            elif not scan.reaches.search(self.data(other) or b""):
                continue  # a module calling only its own function of that name is no caller
            if len(scan.depends) >= MAX_FILES_PER_NAME:
                scan.pending.clear()
                return None
            path = self.project.layout.path_of(other)
            edges = self._edges_of(other)
            method = _last(scan.qualified)
            for callee in (*scan.callees, *(f"{other}.{sub}.{method}" for sub in subclasses)):
                scan.found.extend(edges.get(callee, ()))
            if path is None:
                continue
            digest = scan.depends[path] = self._digest(other)
            return path, digest
        return None

    def _external_bases(self, module: str, cls: str) -> tuple[str, ...]:
        raw = self.tree_part(module, "edges", call_edges)
        if raw is None:
            return ()
        return external_bases(raw, cls, lambda n: self.project.absolute(module, n), self.project)

    def _inheriting(self, module: str, cls: str, method: str) -> tuple[str, ...]:
        """The classes of ``module`` that inherit ``cls.method`` unchanged
        (:func:`inheriting_classes`)."""
        raw = self.tree_part(module, "edges", call_edges)
        return inheriting_classes(raw, cls, method) if raw is not None else ()

    def _subclasses(self, module: str, scan: Scan) -> tuple[str, ...]:
        """``module``'s subclasses of ``scan``'s class that inherit its method
        (:func:`importing_subclasses`)."""
        owner = scan.qualified.rpartition(".")[0].rpartition(".")[0]
        data = self.data(module) or b""
        named = [c for c in (scan.typed or "", *scan.inheriting) if c and c.encode() in data]
        raw = subclassing_part(self, module) if named else None
        if raw is None:
            return ()
        bases = {f"{owner}.{c}" for c in named}
        absolute = lambda n: self.project.absolute(module, n)  # noqa: E731
        return importing_subclasses(raw, bases, _last(scan.qualified), absolute)

    def _holds(self, module: str, cls: str) -> bool:
        """:func:`holds_typed` of ``module``'s text, once per process."""
        key = (module, cls)
        known = self._typed.get(key)
        if known is None:
            known = self._typed[key] = holds_typed(self.data(module) or b"", cls)
        return known

    def _edges_of(self, module: str) -> dict[str, list[Caller]]:
        """The calls ``module``'s functions make, by resolved callee: from the module's
        summary, resolved once per process however many questions name it."""
        edges = self._edges.get(module)
        if edges is None:
            raw = self.tree_part(module, "edges", call_edges)
            edges = resolve_edges(raw, module, self.project, self._homes) if raw is not None else {}
            self._edges[module] = edges
        return edges

    def _movers_of(self, module: str) -> frozenset[str]:
        """The names of ``module``'s functions that may move items one by one."""
        movers = self._mover_names.get(module)
        if movers is None:
            # Text without a loop or without a move cannot hold a moving loop: no parse.
            data = self.data(module) or b""
            if not may_move(data):
                movers = frozenset()
            else:
                found = self.tree_part(module, "movers", lambda t: moving_functions(t, data))
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

    def may_define_item_mover(self, name: str) -> bool:
        """Whether a project function ``name`` may move its argument (:func:`returning_movers`)."""
        known = self._item_movers.get(name)
        if known is None:
            defining = self._defining(name)
            known = self._item_movers[name] = len(defining) > MAX_DEFINITIONS_READ or any(
                name in (self.tree_part(module, "item_movers", returning_movers) or ())
                for module in defining
            )
        return known

    def may_define_syncing_helper(self, name: str) -> bool:
        """Whether a function or method of the project named ``name`` may read its tensor
        argument to the host in every ``return`` (``dist_sum(x, mesh)``), by the modules'
        ``syncing`` summary parts (:mod:`h2dlint.project.syncing_functions`): False only when
        no definition can be one, so that no module needs parsing with libcst to learn it."""
        known = self._syncing.get(name)
        if known is None:
            known = self._syncing[name] = self._may_sync(name, 0)
        return known

    def _may_sync(self, name: str, depth: int) -> bool:
        if depth > MAX_SYNC_DEPTH:
            return False  # the analysis follows no deeper
        defining = self._defining(name)
        # A name defined in many modules: only their stored parts are read (a cold run
        # would parse them all); one not stored makes the answer "may".
        compute = len(defining) <= MAX_DEFINITIONS_READ
        for module in defining:
            part = self._syncing_of(module, compute)
            if part is None:
                return True
            for delegates in part.get(name, ()):
                if all(self._may_sync(other, depth + 1) for other in delegates):
                    return True
        return False

    def _syncing_of(self, module: str, compute: bool) -> dict[str, list[list[str]]] | None:
        """``module``'s ``syncing`` part; None when it is neither stored nor to be computed,
        or when the module cannot be read or parsed. Text without a read to the host holds no
        function that reads one (no parse)."""
        path = self.project.layout.modules[module]
        digest = self.project.known_digest(path)
        if digest is not None:
            stored = self.project.summaries.stored(digest, "syncing")
            if stored is not None:
                found: dict[str, list[list[str]]] | None = stored[0]
                return found
        if not compute:
            return None

        def from_text(data: bytes) -> dict[str, list[list[str]]] | None:
            if SYNC_TEXT.search(data) is None:
                return {}
            tree = self.project.summaries.tree(self._digest(module), data)
            return syncing_functions(tree) if tree is not None else None

        part: dict[str, list[list[str]]] | None = self._part(module, "syncing", from_text)
        return part

    def _find_mover(self, name: str) -> bool:
        defining = self._defining(name)
        if len(defining) > MAX_DEFINITIONS_READ:
            return True  # too common a name to read every definition: assume one may be
        return any(name in self._movers_of(module) for module in defining)


# The text through which a module can call another module's name (``caller_scans.reaching``).
_reaching = reaching


def _last(qualified: str) -> str:
    return qualified.rpartition(".")[2]
