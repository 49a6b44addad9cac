"""The calls of a function from the other modules of the project, with what each passes as far
as its module can place it (:mod:`h2dlint.project.passed_args`): argument flow across modules.

A module whose text calls the function's name (its ``calls`` summary part) is read through its
``passes`` part. Each call of the name there is told apart by what it resolves to:

- the function itself (through an import, a re-export, an object of its class): a call site;
- another function: a module's own function of that name, a method of another class that
  defines it (``self._create_windows(...)`` of a second data module): not a caller;
- nothing the module can name: for a top-level function, ``obj.name(...)`` is some object's
  method and ``name(...)`` some local function (unless the module imports ``*``); for a method,
  ``obj.name(...)`` may be the method's: the callers are not all known then.

Before a module is parsed its text is asked whether it can call the function at all: for a
top-level function, an import naming it or a call through its module (``mod.name(``); for a
method, a mention of its class (to make, annotate or subclass it). A module that never names
the class (a test of another data module calling its own ``dm._create_windows(...)``) holds
no object known to be of it, as the callers index assumes for hot paths
(:func:`~h2dlint.project.text_scan.holds_typed`); a module importing ``*`` is always read.

A method called through its class (``Cls.m(obj, x)``), or through a subclass that does not define
it (the class may inherit it), also leaves the callers unknown. The answer is None then, or when
more than :data:`MAX_MODULES` other modules call the name; every module that calls the name
is recorded as consulted (an edit may make it a caller).
"""

from __future__ import annotations

import functools
import re
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from h2dlint.project.call_resolution import defining_module
from h2dlint.project.callers import CallerIndex, _reaching
from h2dlint.project.class_lineage import related
from h2dlint.project.passed_args import EXTERNAL_PACKAGES, object_escapes, passed_arguments
from h2dlint.project.reexports import defined_at
from h2dlint.project.remembered import remembered

# Other modules calling a function's name read at most.
MAX_MODULES = 8


@dataclass(frozen=True)
class Site:
    """One call of the function from another module: its arguments' codes (see
    :mod:`~h2dlint.project.passed_args`), ``self`` not counted for a method."""

    module: str
    line: int
    positional: str
    keywords: dict[str, str]
    # The name the call's function ends with (``apply`` of ``self.proc.apply(...)``,
    # ``sampler`` of ``self.sampler(...)``): where the call is found again in its module.
    called: str = ""

    def code(self, position: int | None, name: str) -> str | None:
        """The code of the argument passed for the parameter ``name`` at ``position`` (None:
        keyword-only); "" when the call leaves it to its default; None when a ``*args`` or a
        ``**kwargs`` may pass it."""
        if name in self.keywords:
            return self.keywords[name]
        if position is not None:
            star = self.positional.find("*")
            if star != -1 and position >= star:
                return None
            if position < len(self.positional):
                return self.positional[position]
        return None if "**" in self.keywords else ""


# Per caller index: qualified function -> its sites, and the modules (path -> digest) the
# answer rests on.
_MEMO: weakref.WeakKeyDictionary[
    CallerIndex, dict[str, tuple[list[Site] | None, dict[str, str]]]
] = weakref.WeakKeyDictionary()


def remote_sites(index: CallerIndex, qualified: str, method: bool) -> list[Site] | None:
    """The calls of ``qualified`` (a top-level function, or a method of a top-level class when
    ``method``) in modules other than its own; None when they are not all known (see the
    module's docstring)."""

    def find() -> list[Site] | None:
        home = defining_module(qualified, index.project)
        for module in index.calling(qualified.rpartition(".")[2]):
            if module != home:
                index.consult(module)
        return _sites(index, qualified, method)

    return _remembered(index, qualified, find)


def _remembered(
    index: CallerIndex, key: str, find: Callable[[], list[Site] | None]
) -> list[Site] | None:
    """``find()``'s answer, once per index and key (:func:`remembered`: the modules it
    consulted are recorded again by every later question that reuses it)."""
    return remembered(_MEMO.setdefault(index, {}), key, index.project, find)


def _sites(
    index: CallerIndex, qualified: str, method: bool, naming: bool = False
) -> list[Site] | None:
    """The calls of ``qualified`` in the other modules (see :func:`remote_sites`); with
    ``naming``, the modules that may call it are first narrowed to those whose text names
    make objects of its class (``forward``, which most modules call for some module of
    theirs)."""
    project = index.project
    if qualified.partition(".")[0] in EXTERNAL_PACKAGES:
        return None  # the summaries leave their calls out (a run over torch itself)
    home = defining_module(qualified, project)
    name = qualified.rpartition(".")[2]
    cls = qualified.rpartition(".")[0].rpartition(".")[2] if method else None
    others = [m for m in index.calling(name) if m != home]
    if naming and cls is not None:
        # A module holds an object of the class only where it makes one (a holder passed on
        # escapes where it is made: ``project/instance_escapes.py``).
        making = set(index.calling(cls))
        others = [m for m in others if m in making]
    if len(others) > MAX_MODULES:
        return None
    sites: list[Site] = []
    homes: dict[str, str | None] = {}
    reaching = _reaching_text(name)
    for module in others:
        text = index.data(module) or b""
        if b"import *" not in text:
            if cls is not None and not _names(text, cls):
                continue  # no object known to be of the class: its calls are other classes'
            if cls is None and not reaching.search(text):
                continue  # neither imports the function nor calls it through its module
        part = index.tree_part(module, "passes", passed_arguments)
        if part is None:
            return None
        for callee, line, through_object, positional, keywords in part["calls"].get(name, ()):
            if not callee:
                if part["star"] or method:
                    return None
                continue  # ``obj.name(...)`` of an object not of the class, a local ``name``
            resolved = absolute_name(callee, module, part, project)
            if resolved is None:
                return None
            home_of = defined_at(resolved, project.find_home, project.layout.path_of, homes)
            if qualified in (resolved, home_of):
                if method and not through_object:
                    return None  # ``Cls.m(obj, x)``: ``self`` among the arguments
                sites.append(Site(module, line, positional, _keywords(keywords), name))
            elif (
                method
                and not _defines(index, resolved, module, part)
                and related(index, resolved.rpartition(".")[0], qualified.rpartition(".")[0])
            ):
                return None  # a class that may inherit the method
    return sites


def naming_modules(index: CallerIndex, cls: str, limit: int = MAX_MODULES + 1) -> list[str] | None:
    """The modules whose text names ``cls`` as a word; None when more than ``limit`` do (the
    home module included). Each module's bytes are read once per process
    (:meth:`CallerIndex.data`), and a first substring test skips most."""
    needle = cls.encode()
    found: list[str] = []
    for module in index.project.layout.modules:
        text = index.data(module) or b""
        if needle in text and _names(text, cls):
            found.append(module)
            if len(found) > limit:
                return None
    return found


def _names(text: bytes, cls: str) -> bool:
    """Whether the text names the class ``cls`` (a word): only then can it make, annotate or
    subclass it, or be handed an object it knows to be of it."""
    return _word(cls).search(text) is not None


@functools.lru_cache(maxsize=1024)
def _word(name: str) -> re.Pattern[bytes]:
    return re.compile(rb"\b" + re.escape(name.encode()) + rb"\b")


@functools.lru_cache(maxsize=1024)
def _reaching_text(name: str) -> re.Pattern[bytes]:
    return _reaching(name)


def _keywords(text: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for item in text.split(",") if text else ():
        key, _, code = item.partition("=")
        found[key] = code
    return found


def absolute_name(callee: str, module: str, part: Any, project: Any) -> str | None:
    """``callee`` as written in ``module`` (relative, or through the imports of ``part``, a
    summary part with an ``imports`` table), made absolute; None for a name not imported."""
    if callee.startswith("."):
        return module + callee
    root, _, rest = callee.partition(".")
    full = part["imports"].get(root)
    if full is None:
        return None
    absolute: str = project.absolute(module, full)
    return f"{absolute}.{rest}" if rest else absolute


def defined_name(
    written: str, module: str, part: Any, project: Any, homes: dict[str, str | None]
) -> str | None:
    """:func:`absolute_name`, then where that name is defined when it is a re-export
    (:func:`~h2dlint.project.reexports.defined_at`, memoised in ``homes``)."""
    resolved = absolute_name(written, module, part, project)
    if resolved is None:
        return None
    return defined_at(resolved, project.find_home, project.layout.path_of, homes) or resolved


def _defines(index: CallerIndex, resolved: str, module: str, part: Any) -> bool:
    """Whether the method ``resolved`` (``pkg.mod.Cls.m``) is defined by ``Cls`` itself, or is
    a function of a module (not a method at all); False when it may be inherited."""
    owner, _, name = resolved.rpartition(".")
    where, _, cls = owner.rpartition(".")
    layout = index.project.layout.modules
    if owner in layout:
        return True  # ``pkg.mod.f``: a module's function
    if where not in layout:
        return True  # a class outside the project cannot inherit the project's method
    if where != module:
        index.consult(where)
    found = part if where == module else index.tree_part(where, "passes", passed_arguments)
    if found is None:
        return False
    return name in found["methods"].get(cls, ())


def object_sites(index: CallerIndex, qualified: str) -> list[Site] | None:
    """The calls of ``qualified`` (an ``nn.Module``'s ``forward``: ``pkg.mod.Cls.forward``)
    through objects of its class in every module, its own included (``self.sampler(x)``),
    and its explicit calls (``obj.forward(x)``) in the other modules; None when they are not
    all known: a module that names the class lets an object of it escape
    (:mod:`h2dlint.project.instance_escapes`), calls an object of a class of the project that
    defines neither ``forward`` nor ``__call__`` (it may inherit them), or more than
    :data:`MAX_MODULES` modules make objects of it; and when no module makes one (a model the
    project's users make)."""

    def find() -> list[Site] | None:
        objects = _object_sites(index, qualified)
        explicit = _sites(index, qualified, True, naming=True) if objects is not None else None
        return None if objects is None or explicit is None else [*explicit, *objects]

    return _remembered(index, "()" + qualified, find)


def _object_sites(index: CallerIndex, qualified: str) -> list[Site] | None:
    project = index.project
    cls_qualified = qualified.rpartition(".")[0]
    home = defining_module(qualified, project)
    cls = cls_qualified.rpartition(".")[2]
    # Every module naming the class, not only those calling it: a module may make its
    # objects through another name (``observer_cls = Cls if running else Other``) and let
    # them escape there, which only its own escapes part tells.
    naming = naming_modules(index, cls)
    if naming is None:
        return None
    modules = [home, *(m for m in naming if m != home)]
    sites: list[Site] = []
    homes: dict[str, str | None] = {}
    made = False
    for module in modules:
        if module != home:
            index.consult(module)
        part = index.tree_part(module, "passes", passed_arguments)
        kept = index.tree_part(module, "escapes", object_escapes)
        if part is None or kept is None:
            return None

        def absolute(written: str, module: str = module, part: Any = part) -> str | None:
            return defined_name(written, module, part, project, homes)

        for written in kept["escapes"]:
            resolved = absolute_name(written, module, part, project)
            if resolved is None or cls_qualified in (resolved, absolute(written)):
                return None
        made = made or any(absolute(written) == cls_qualified for written in kept["made"])
        for callee, line, called, positional, keywords in part["objects"]:
            owner = absolute(callee.rpartition(".")[0])
            if owner is None:
                return None
            if owner == cls_qualified:
                sites.append(Site(module, line, positional, _keywords(keywords), called))
            elif not (
                _defines(index, owner + ".forward", module, part)
                or _defines(index, owner + ".__call__", module, part)
            ) and related(index, owner, cls_qualified):
                return None  # may inherit ``forward`` from the class
    return sites if made else None  # objects made outside the project only: calls unseen
