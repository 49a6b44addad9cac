"""The modules of the project, parsed on demand, and names resolved across them.

One :class:`ProjectIndex` per process. A module is read and parsed with libcst the first time an
analysis asks about it (a class defined there, a function it exports), and kept in a small
least-recently-used table. Every module consulted while one file is checked is recorded with
its content digest, so that the cached verdict of that file is dropped when one of them changes.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.digest import content_digest
from h2dlint.project.layout import ProjectLayout

if TYPE_CHECKING:
    from h2dlint.project.callers import CallerIndex

# Modules kept parsed per process: a check consults a few; a whole-tree run revisits the same
# buffer and utility modules again and again.
KEPT_MODULES = 48
# ... and at most this much of their source: a libcst tree takes some 40-60 times its text in
# memory, and large model files would otherwise keep a process at several hundred MB.
KEPT_CHARS = 3 << 20
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

    def __init__(self, layout: ProjectLayout) -> None:
        self.layout = layout
        self._parsed: OrderedDict[str, ParsedModule | None] = OrderedDict()
        self._kept_chars = 0
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

    def parsed(self, name: str) -> ParsedModule | None:
        """The module ``name`` of the project, parsed; None when it is not in the project or
        cannot be read or parsed."""
        if name in self._parsed:
            self._parsed.move_to_end(name)
            found = self._parsed[name]
        else:
            found = self._parse(name)
            self._parsed[name] = found
            self._kept_chars += len(found.source) if found is not None else 0
            while len(self._parsed) > 1 and (
                len(self._parsed) > KEPT_MODULES or self._kept_chars > KEPT_CHARS
            ):
                _, dropped = self._parsed.popitem(last=False)
                self._kept_chars -= len(dropped.source) if dropped is not None else 0
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

    def _parse(self, name: str) -> ParsedModule | None:
        path = self.layout.path_of(name)
        if path is None:
            return None
        data = self.read(path, MAX_MODULE_BYTES)
        if data is None or len(data) > MAX_MODULE_BYTES:
            return None
        digest = content_digest(data)
        try:
            source = data.decode("utf-8")
            tree = cst.parse_module(source)
        except (UnicodeDecodeError, cst.ParserSyntaxError, RecursionError, ValueError):
            self.consulted[path] = digest
            return None
        return ParsedModule(name, path, source, tree, digest)

    # -- callers ------------------------------------------------------------------------------
    def hot_reason(self, qualified: str, hot_name: Callable[[str, str | None], bool]) -> str | None:
        """Why the top-level function ``qualified`` runs per step, from its callers in other
        modules (``hot_name(function, class)`` says which names run per step); None when no
        caller is known to."""
        return self._caller_index().hot_reason(qualified, hot_name)

    def may_define_mover(self, name: str) -> bool:
        """Whether a function of the project named ``name`` may copy items to the device one
        per item (see :meth:`CallerIndex.may_define_mover`): a cheap gate before resolving a
        call, which parses the defining module with libcst."""
        return self._caller_index().may_define_mover(name)

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
        return qualified

    def locate(self, qualified: str) -> tuple[ParsedModule, str] | None:
        """The module defining ``pkg.mod.Name`` (following re-exports) and the name's path in
        it (``Name`` or ``Class.method``); None outside the project."""
        seen = 0
        while seen <= MAX_REEXPORTS:
            seen += 1
            split = self.layout.split(qualified)
            if split is None:
                return None
            module_name, rest = split
            module = self.parsed(module_name)
            if module is None:
                return None
            head = rest.split(".", 1)[0]
            target = _imported_as(module, head)
            if target is None:
                return module, rest
            tail = rest[len(head) :]
            qualified = self.absolute(module_name, target) + tail
        return None


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
