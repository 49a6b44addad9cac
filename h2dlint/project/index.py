"""The modules of the project, parsed on demand, and names resolved across them.

One :class:`ProjectIndex` per package of the run (``roots.py``). Names are followed across
modules (re-exports), their definitions looked up in summaries (``summary.py``: ``ast`` and the
text, kept by content digest, on disk when the run has a cache); a module is parsed with libcst
only when an analysis needs a definition there (a class, a function it exports), and kept in a
small least-recently-used table. Every module consulted while one file is checked is recorded
with its content digest, so that the cached verdict of that file is dropped when one of them
changes.
"""

from __future__ import annotations

import ast
import itertools
import os
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.cst_parse import parse_valid_python
from h2dlint.digest import content_digest
from h2dlint.project.layout import ProjectLayout
from h2dlint.project.summary import Parts, SummaryStore, top_level
from h2dlint.project.text_scan import ABSENT, DEFINED, NAMED, naming
from h2dlint.project.tree_store import TreeStore

if TYPE_CHECKING:
    from h2dlint.project.callers import Caller, CallerIndex, HotName

# Modules kept parsed per process: a check consults a few; a whole-tree run revisits the same
# buffer and utility modules again and again.
KEPT_MODULES = 48
# ... and at most this much of their source: a libcst tree takes some 40-60 times its text in
# memory, and large model files would otherwise keep a process at several hundred MB.
KEPT_CHARS = 3 << 20
# Trees the run parsed and offered to the index (``offer_tree``) are kept up to this much of
# their source besides (and within what the kept modules leave of KEPT_CHARS): with the whole
# budget, diffusers' peak memory at ``-j 1`` grew from 270 to 291 MB.
OFFERED_CHARS = 1 << 19
# Larger modules are not parsed for their facts (a generated table, a vendored bundle).
MAX_MODULE_BYTES = 1 << 20
# Re-exports followed from one name (``pkg/__init__.py`` importing ``pkg.impl.Thing``).
MAX_REEXPORTS = 4


@dataclass
class ParsedModule:
    """One module of the project: its name, file, text and tree."""

    name: str
    path: str
    source: str
    tree: cst.Module
    digest: str
    # Per-module analyses other layers attach (keyed by their own names).
    attached: dict[str, object] = field(default_factory=dict)


class ProjectIndex:
    """The project's modules as trees, on demand, and the dependencies of the file at hand."""

    def __init__(
        self,
        layout: ProjectLayout,
        summaries: SummaryStore | None = None,
        status_digest: Callable[[str], str | None] | None = None,
        trees: TreeStore | None = None,
    ) -> None:
        self.layout = layout
        # The trees earlier runs parsed, by content digest, when the run has a cache.
        self.trees = trees
        # The digest of a file's content when the status of the file tells it (the result
        # cache's table of file statuses), so that a summary is found without reading the file.
        self._status_digest = status_digest
        # Per-module summaries by content digest (loaded from the disk by the run, or empty).
        self.summaries = summaries if summaries is not None else SummaryStore()
        # Whether the run keeps the summaries computed here (a cache): workers send them back.
        self.keeps_summaries = summaries is not None
        self._digests: dict[str, str] = {}
        # module -> (path, digest, its bytes or None) (see _text); (module, name) -> _naming.
        self._texts: dict[str, tuple[str | None, str | None, bytes | None]] = {}
        self._names: dict[tuple[str, str], str] = {}
        self._parsed: OrderedDict[str, ParsedModule | None] = OrderedDict()
        self._kept_chars = 0
        # Trees the run parsed and offered (:meth:`offer_tree`), oldest first, that no question
        # used yet, and their source's length: within what the kept modules leave of KEPT_CHARS.
        self._offers: OrderedDict[str, ParsedModule] = OrderedDict()
        self._offered_chars = 0
        # path -> digest of each module consulted since :meth:`begin_file`.
        self.consulted: dict[str, str] = {}
        self._callers: CallerIndex | None = None
        # path -> the bytes of the modules the run read already (the files it checks), so that
        # no process reads them again: the workers inherit them from the main process.
        self._known_bytes: dict[str, bytes] = {}

    # -- the file being checked ---------------------------------------------------------------
    def begin_file(self) -> None:
        self.consulted = {}

    def module_name_of(self, path: str) -> str | None:
        return self.layout.module_of(path)

    # -- modules ------------------------------------------------------------------------------
    def know_bytes(self, files: Iterable[tuple[str, bytes]]) -> None:
        """Remember the bytes of files the run has read (path, data), for the modules of the
        layout among them."""
        by_path = self.layout.by_path
        for path, data in files:
            real = path if path in by_path else os.path.realpath(path)
            if real in by_path:
                self._known_bytes[real] = data

    def read(self, path: str, limit: int = -1) -> bytes | None:
        """The bytes of a module's file (at most ``limit + 1`` of them read from the disk when
        a limit is given, to tell that it is larger); None when it cannot be read."""
        known = self._known_bytes.get(path)
        if known is not None:
            return known
        try:
            with open(path, "rb") as handle:
                return handle.read(limit + 1 if limit >= 0 else -1)
        except OSError:
            return None

    def digest(self, path: str, data: bytes) -> str:
        """The content digest of the whole bytes ``data`` of the module at ``path`` (once per
        process)."""
        found = self._digests.get(path)
        if found is None:
            found = self._digests[path] = content_digest(data)
        return found

    def known_digest(self, path: str) -> str | None:
        """The digest of the module at ``path`` without reading it: computed already, or told
        by its file's status; None when neither knows."""
        found = self._digests.get(path)
        if found is None and self._status_digest is not None:
            found = self._status_digest(path)
            if found is not None:
                self._digests[path] = found
        return found

    def parsed(self, name: str) -> ParsedModule | None:
        """The module ``name`` of the project, parsed; None when it is not in the project or
        cannot be read or parsed."""
        if name in self._parsed:
            self._parsed.move_to_end(name)
            found = self._parsed[name]
        else:
            found = self._offers.pop(name, None)
            if found is None:
                found = self._parse(name)
            else:
                self._offered_chars -= len(found.source)
                if self.trees is not None:
                    self.trees.save(found.digest, found.tree)  # as a parse here would
            self._parsed[name] = found
            self._kept_chars += len(found.source) if found is not None else 0
            while len(self._parsed) > 1 and (
                len(self._parsed) > KEPT_MODULES or self._kept_chars > KEPT_CHARS
            ):
                _, dropped = self._parsed.popitem(last=False)
                self._kept_chars -= len(dropped.source) if dropped is not None else 0
            self._drop_offers(0)
        if found is not None:
            self.consulted[found.path] = found.digest
        return found

    # -- trees shared with the run ------------------------------------------------------------
    def tree_of(self, path: str, text: str) -> cst.Module | None:
        """The tree of the file being checked, when the index already parsed that module from
        the same text (another file's facts needed it): the run need not parse it again.
        (The other way round, the run's trees kept for later questions, was measured: on
        lmdeploy they pushed the modules asked about out of the kept ones and saved less.)"""
        name = self.module_name_of(path)
        found = self._parsed.get(name) if name is not None else None
        if found is None or found.source != text:
            return None
        self._parsed.move_to_end(name)  # type: ignore[arg-type]
        return found.tree

    def offer_tree(
        self,
        path: str,
        data: bytes,
        text: str,
        tree: cst.Module,
        python_tree: ast.Module | None = None,
    ) -> None:
        """Keep the trees the run parsed from ``data`` (the file at ``path``, decoded as
        ``text``; ``python_tree``: CPython's) for later questions about its module, where the
        index would make the same trees.

        The libcst tree: a later file's facts often need a module checked a few dozen files
        before. Offered trees live in what the kept modules leave of KEPT_CHARS, at most
        OFFERED_CHARS and KEPT_MODULES of them, the oldest dropped first;
        one that a question uses joins the kept modules as a parse would. CPython's tree joins
        the few the summaries keep (its own parts are often asked for while it is checked)."""
        name = self.module_name_of(path)
        if name is None or len(data) > MAX_MODULE_BYTES:
            return
        real = self.layout.path_of(name)
        try:
            same = real is not None and text.encode("utf-8") == data
        except UnicodeEncodeError:
            same = False
        if real is None or not same:
            return  # another encoding, or a BOM: the index decodes the bytes otherwise
        digest = self.digest(real, data)
        if python_tree is not None:
            self.summaries.offer_tree(digest, python_tree, len(data))
        if name in self._parsed or name in self._offers:
            return
        if len(text) > min(OFFERED_CHARS, KEPT_CHARS - self._kept_chars):
            return
        if len(self._offers) >= KEPT_MODULES:
            self._drop_offer()
        self._drop_offers(len(text))
        self._offers[name] = ParsedModule(name, real, text, tree, digest)
        self._offered_chars += len(text)

    def _drop_offers(self, room: int) -> None:
        """Drop the oldest offered trees until ``room`` more characters fit in KEPT_CHARS and
        OFFERED_CHARS."""
        while self._offers and (
            self._kept_chars + self._offered_chars + room > KEPT_CHARS
            or self._offered_chars + room > OFFERED_CHARS
        ):
            self._drop_offer()

    def _drop_offer(self) -> None:
        _, dropped = self._offers.popitem(last=False)
        self._offered_chars -= len(dropped.source)

    def drop_trees(self) -> None:
        """Let the kept and offered trees go (another project's files come next)."""
        self._parsed.clear()
        self._offers.clear()
        self._kept_chars = self._offered_chars = 0

    def _parse(self, name: str) -> ParsedModule | None:
        path = self.layout.path_of(name)
        if path is None:
            return None
        data = self.read(path, MAX_MODULE_BYTES)
        if data is None or len(data) > MAX_MODULE_BYTES:
            return None
        digest = self.digest(path, data)
        try:
            source = data.decode("utf-8")
            tree = self.trees.load(digest) if self.trees is not None else None
            if tree is None:
                # Only facts are read from it: what the native parser accepts, unvalidated.
                tree = parse_valid_python(source)
                if self.trees is not None:
                    self.trees.save(digest, tree)
        except (UnicodeDecodeError, cst.ParserSyntaxError, RecursionError, ValueError):
            self.consulted[path] = digest
            return None
        return ParsedModule(name, path, source, tree, digest)

    # -- callers ------------------------------------------------------------------------------
    def hot_reason(
        self, qualified: str, hot_name: HotName, skip: Callable[[Caller, str], bool] | None = None
    ) -> str | None:
        """Why the function or method ``qualified`` runs per step, from its callers elsewhere
        (``hot_name(function, class, bases)``: which names run per step, which are cold;
        ``skip``: calls that do not count); None when no caller is known to."""
        from h2dlint.project.call_resolution import defining_module
        from h2dlint.project.closure_callers import with_closures
        from h2dlint.project.hot_callers import hot_reason
        from h2dlint.project.named_receivers import named_callers
        from h2dlint.project.override_callers import base_self_callers as overriding

        def home(name: str) -> str:
            return defining_module(name, self)

        index = self._caller_index()

        def hot_closure(name: str) -> bool:
            return hot_name(name, None, ()) is True

        def callers(name: str, home_only: bool) -> Iterable[Caller]:
            if home_only:
                return index.home_callers(name)
            # with closures they install as a hot method, a base class's methods that call an
            # override on ``self``, then (read only if asked) receivers named for the class
            found = with_closures(index, name, index.callers(name), hot_closure)
            return itertools.chain(found, overriding(index, name), named_callers(index, name))

        return hot_reason(callers, home, qualified, hot_name, skip)

    def may_define_mover(self, name: str) -> bool:
        """Whether a function of the project named ``name`` may copy items to the device one
        per item (see :meth:`CallerIndex.may_define_mover`): a cheap gate before resolving a
        call, which parses the defining module with libcst."""
        return self._caller_index().may_define_mover(name)

    def may_define_item_mover(self, name: str) -> bool:
        """Whether a function of the project named ``name`` may move its one argument to the
        device (see :meth:`CallerIndex.may_define_item_mover`): a cheap gate before resolving
        a call in a loop, which parses the defining module with libcst."""
        return self._caller_index().may_define_item_mover(name)

    def may_define_syncing_helper(self, name: str) -> bool:
        """Whether a function of the project named ``name`` may read its argument to the
        host (see :meth:`CallerIndex.may_define_syncing_helper`): a cheap gate before resolving
        a call, which parses the defining module with libcst."""
        return self._caller_index().may_define_syncing_helper(name)

    def caller_index(self) -> CallerIndex:
        """Who calls whom across the project's modules (built on first use)."""
        return self._caller_index()

    def _caller_index(self) -> CallerIndex:
        if self._callers is None:
            from h2dlint.project.callers import CallerIndex

            self._callers = CallerIndex(self)
        return self._callers

    # -- names --------------------------------------------------------------------------------
    def absolute(self, importer: str | None, qualified: str) -> str:
        """A name as imported in module ``importer`` (``.buffers.Buffer``) made absolute."""
        if qualified.startswith(".") and importer is not None:
            return self.layout.resolve_relative(importer, qualified)
        return self.layout.without_namespace(qualified)

    def locate(self, qualified: str) -> tuple[ParsedModule, str] | None:
        """The module defining ``pkg.mod.Name`` (following re-exports), parsed, and the name's
        path in it (``Name`` or ``Class.method``); None outside the project."""
        found = self.find(qualified)
        if found is None:
            return None
        module = self.parsed(found[0])
        return (module, found[1]) if module is not None else None

    def find(self, qualified: str) -> tuple[str, str] | None:
        """The name of the module where ``pkg.mod.Name`` leads (following re-exports) and the
        name's path in it; None outside the project or where a module cannot be read.

        Each module on the way is read, not parsed, where its text settles it: a module whose
        text does not name ``Name`` neither defines nor imports it; one whose text defines it
        (``def Name``, ``class Name``) is parsed with libcst (the definition will be needed);
        one that names it otherwise is asked through its summary (what it imports, from
        CPython's ``ast``), or its libcst tree where the summary cannot tell (CPython cannot
        parse it, or it imports the name twice as different things)."""
        return self._find(qualified, True)

    def find_home(self, qualified: str) -> tuple[str, str] | None:
        """:meth:`find`, for a caller that needs only where the name leads, not its
        definition (``reexports.defined_at``): a module whose text defines the name is asked
        through its summary too unless its libcst tree is at hand, so that no module is parsed
        with libcst only to learn that it defines the name. The same answer as :meth:`find`
        (the summary's imports are the libcst tree's wherever the summary tells them)."""
        return self._find(qualified, False)

    def _find(self, qualified: str, definition: bool) -> tuple[str, str] | None:
        seen = 0
        while seen <= MAX_REEXPORTS:
            seen += 1
            split = self.layout.split(qualified)
            if split is None:
                return None
            module_name, rest = split
            data = self._text(module_name)
            if data is None:
                return None
            head = rest.split(".", 1)[0]
            state = self._naming(module_name, data, head)
            if state == ABSENT:
                return module_name, rest
            summary = state == NAMED or not (
                definition or module_name in self._parsed or module_name in self._offers
            )
            top = self._top(module_name, data) if summary else None
            imports = top["imports"] if top is not None else None
            if imports is None or (head in imports and imports[head] is None):
                module = self.parsed(module_name)
                if module is None:
                    return None
                target = _imported_as(module, head)
            else:
                target = imports.get(head)
            if target is None:
                return module_name, rest
            tail = rest[len(head) :]
            qualified = self.absolute(module_name, target) + tail
        return None

    def may_define(self, module_name: str, rest: str) -> bool:
        """Whether the module may define ``rest``: a function or class ``Name``, or a method
        ``Class.method``; False only when its text has no such definition."""
        data = self._text(module_name)
        if data is None:
            return True  # the parse that follows refuses it
        head, _, tail = rest.partition(".")
        if self._naming(module_name, data, head) != DEFINED:
            return False
        return not tail or ("." not in tail and self._naming(module_name, data, tail) == DEFINED)

    def mentions(self, module_name: str, name: str) -> bool:
        """Whether the module's text has ``name`` as a word (False: it surely binds no such
        name); True when it cannot be read (the parse that follows settles it)."""
        data = self._text(module_name)
        return data is None or self._naming(module_name, data, name) != ABSENT

    def _naming(self, module_name: str, data: bytes, name: str) -> str:
        """How the text of a module names ``name``: not at all (ABSENT: it can neither define
        nor import it), after ``def`` or ``class`` (DEFINED: it may define it), or otherwise
        (NAMED)."""
        key = (module_name, name)
        found = self._names.get(key)
        if found is None:
            found = self._names[key] = naming(data, name)
        return found

    def _text(self, module_name: str) -> bytes | None:
        """The bytes of a module, recorded as consulted; None where :meth:`parsed` would refuse
        it (not in the project, unreadable, too large, not UTF-8)."""
        known = self._texts.get(module_name)
        if known is None:
            known = self._texts[module_name] = self._read_text(module_name)
        path, digest, data = known
        if path is not None and digest is not None:
            self.consulted[path] = digest
        return data

    def _read_text(self, module_name: str) -> tuple[str | None, str | None, bytes | None]:
        path = self.layout.path_of(module_name)
        data = self.read(path, MAX_MODULE_BYTES) if path is not None else None
        if path is None or data is None or len(data) > MAX_MODULE_BYTES:
            return None, None, None
        digest = self.digest(path, data)
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return path, digest, None
        return path, digest, data

    def top_summary(self, module_name: str) -> Parts | None:
        """The "top" summary part of a module whose libcst tree is not at hand (recorded as
        consulted); None when it is at hand, cannot be read or CPython cannot parse it."""
        if module_name in self._parsed or module_name in self._offers:
            return None
        data = self._text(module_name)
        return self._top(module_name, data) if data is not None else None

    def _top(self, module_name: str, data: bytes) -> Parts | None:
        """The "top" summary part of a module (None when CPython cannot parse it)."""
        path = self.layout.modules[module_name]
        digest = self.digest(path, data)
        found: Parts | None = self.summaries.part(
            digest, "top", lambda: self._top_part(digest, data)
        )
        return found

    def _top_part(self, digest: str, data: bytes) -> Parts | None:
        # The same ast tree serves the callers' parts of the module (summaries.tree keeps it).
        tree = self.summaries.tree(digest, data)
        return top_level(tree) if tree is not None else None


def _imported_as(module: ParsedModule, name: str) -> str | None:
    """What ``name`` is imported as at the top of ``module`` (a re-export), or None when the
    module defines it (or does not mention it)."""
    table = module.attached.get("top-level-imports")
    if table is None:
        table = _top_level_imports(module.tree)
        module.attached["top-level-imports"] = table
    assert isinstance(table, dict)
    return table.get(name)


def _top_level_imports(tree: cst.Module) -> dict[str, str]:
    from h2dlint.imports import ImportTable

    defined: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            defined.add(statement.name.value)
    names = ImportTable.from_module(tree).names
    return {local: full for local, full in names.items() if local not in defined}


_CURRENT: ProjectIndex | None = None


def current() -> ProjectIndex | None:
    """The project index of this process, when the run built one."""
    return _CURRENT


def install(index: ProjectIndex | None) -> None:
    global _CURRENT
    _CURRENT = index
