"""What a parameter holds, from the arguments its function's call sites pass.

A helper's parameter is unknown inside the helper (``def to_device(x, device, non_blocking):
return x.to(device, non_blocking=non_blocking)``), but its callers say what they pass: every
analysis that asks about the parameter (where a tensor is, whether a flag is ``True``) can ask
about the arguments instead and keep what they all agree on.

Only where every call is known: the function is a top-level function or a method of a
top-level class of the module (not a public method of a class derived from one outside the
project whose name says a framework may call it: ``forward``, a ``*_step``, an ``on_*``
callback, a hook; see :func:`framework_called`); every reference to its name in the
module is a call that resolves to it (a function passed as a callback, a method called through
an object the analysis cannot place, or a call with ``*args``/``**kwargs`` before the argument
make the parameter unknown); every call of that name in the other modules of the project is
told (:mod:`h2dlint.project.passed_sites`: it resolves to the function, or surely to another
one, such as a second class's own ``self._create_windows(...)``); and there is at least one
call. A call that leaves the parameter out passes its default; a recursive call that passes the
parameter on adds nothing.

The own module's calls are expressions the analyses evaluate (:func:`arguments`); the other
modules' calls are what their modules alone can place (``project/passed_args.py``: numpy,
Python data, a host tensor, pinned, the accelerator), which :func:`passed` hands to the
provenance's questions (a parameter's fact, whether it is host data) beside them. Analyses that
need the expressions themselves get None from :func:`arguments` when another module calls.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import libcst as cst

from h2dlint.analysis.fact_source import FactSource
from h2dlint.analysis.frames import Frame, decorator_names
from h2dlint.analysis.other_callers import called_elsewhere
from h2dlint.analysis.project_definitions import resolves
from h2dlint.context import SharedKey
from h2dlint.project.passed_args import object_escapes, passed_arguments
from h2dlint.project.passed_sites import Site, _keywords, object_sites, remote_sites
from h2dlint.source import python_ast
from h2dlint.walk import visit_read_only

# Calls of a function examined at most (a helper called from everywhere says little).
MAX_CALL_SITES = 16
# Public methods a framework calls on a subclass of its own class (``nn.Module``, a Lightning
# module, a ``PreTrainedModel``, an optimizer): their calls in the project are not all of them.
FRAMEWORK_METHODS = frozenset(
    {
        "forward",
        "backward",
        "step",
        "generate",
        "prepare_inputs_for_generation",
        "extra_repr",
        "reset_parameters",
        "configure_optimizers",
    }
)
# Words of such names: ``training_step``, ``_forward``-like entry points, ``register_hook``.
FRAMEWORK_WORDS = frozenset({"step", "forward", "fwd", "hook", "callback"})


@dataclass(frozen=True)
class Argument:
    """What one call site passes for a parameter: ``value`` evaluated in ``frame`` of
    ``source``'s module (a default: in the module's frame)."""

    source: FactSource
    value: cst.BaseExpression
    frame: Frame


@dataclass(frozen=True)
class NameUse:
    """A reference to a name in the module: a call's function (``call`` set) or anything
    else, with the function or method it is read in."""

    node: cst.Name | cst.Attribute
    call: cst.Call | None
    frame: Frame
    annotation: bool = False  # in an annotation (``-> Kwargs``, ``mm: Kwargs``)
    # The function nested in ``frame``'s (a closure, a patched ``forward`` defined inside its
    # installer) that the reference is in, innermost; None outside nested functions.
    inner: Frame | None = None

    def argument_frame(self, source: FactSource, argument: cst.BaseExpression) -> Frame:
        """Where to read ``argument`` of this call: in the nested function it is made in when
        the argument reads a name that function binds itself (``grid_thw_cpu =
        grid_thw.cpu()`` then ``_counts(grid_thw_cpu)``), which the function around it does not
        see; in ``frame`` otherwise (a closure's free names are the outer function's)."""
        if self.inner is None:
            return self.frame
        names = _read_names(argument)
        inner = source.bindings(self.inner)
        if not any(inner.of(n) for n in names):
            return self.frame
        outer = source.bindings(self.frame)
        if any(outer.of(n) and not inner.of(n) for n in names):
            return self.frame  # it reads the outer function's names too: left as it was
        return self.inner


class _ReadNames(cst.CSTVisitor):
    """The plain names an expression reads (not attributes' own names or keywords)."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, name: cst.Name) -> None:
        self.names.add(name.value)

    def visit_Attribute(self, attribute: cst.Attribute) -> bool:
        visit_read_only(attribute.value, self)
        return False

    def visit_Arg(self, arg: cst.Arg) -> bool:
        visit_read_only(arg.value, self)
        return False


def _read_names(node: cst.BaseExpression) -> set[str]:
    """The plain names ``node`` reads (not attributes' own names, keywords or the names a
    lambda or comprehension binds; those count as read, which only keeps the outer frame)."""
    reader = _ReadNames()
    visit_read_only(node, reader)
    return reader.names


class _References(cst.CSTVisitor):
    """Every ``name`` and ``x.name`` in a module, with the call it is the function of and the
    innermost top-level function or method around it."""

    def __init__(self, source: FactSource) -> None:
        self.source = source
        self.uses: dict[str, list[NameUse]] = {}
        # The names :func:`passed` asks about (its top-level functions and methods) and the
        # classes whose constructions place a dataclass's fields (:mod:`provenance.fields`):
        # the uses of every other name would be kept for nothing.
        index = source.index
        self.wanted = frozenset(
            {*index.functions, *index.classes, *(f.name.value for f in index.owner)}
        )
        self.frames: list[Frame] = [Frame(source.context.module)]
        self.inner: list[Frame | None] = [None]  # the innermost nested function's frame
        self.calls: dict[int, cst.Call] = {}
        self.depth = 0
        self.annotations = 0  # annotations open around the node being visited
        # ids of the names that are no use: keywords, parameters, attributes' own names.
        self.own_names: set[int] = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        index = self.source.index
        if index.functions.get(node.name.value) is node or node in index.owner:
            self.frames.append(index.frame_of(node))
            self.inner.append(None)
        else:
            self.frames.append(self.frames[-1])  # nested: read in the function around it
            self.inner.append(Frame(node))  # ... but its own names in itself (argument_frame)
        visit_read_only(node.body, self)
        self.inner.pop()
        for decorator in node.decorators:
            visit_read_only(decorator, self)
        self.frames.pop()
        # The defaults are evaluated where the function is defined.
        visit_read_only(node.params, self)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        for part in (*node.decorators, *node.bases, *node.keywords, node.body):
            visit_read_only(part, self)
        return False

    def visit_Call(self, node: cst.Call) -> None:
        self.calls[id(node.func)] = node

    def visit_Annotation(self, node: cst.Annotation) -> bool:
        self.annotations += 1
        visit_read_only(node.annotation, self)
        self.annotations -= 1
        return False

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.own_names.add(id(node.keyword))

    def visit_Param(self, node: cst.Param) -> None:
        self.own_names.add(id(node.name))  # its annotation and default are uses

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.wanted and id(node) not in self.own_names:
            self._use(node.value, node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in self.wanted:
            self._use(node.attr.value, node)
        self.own_names.add(id(node.attr))  # then what it is read from

    def _use(self, name: str, node: cst.Name | cst.Attribute) -> None:
        use = NameUse(
            node, self.calls.get(id(node)), self.frames[-1], self.annotations > 0, self.inner[-1]
        )
        self.uses.setdefault(name, []).append(use)


def name_uses(source: FactSource) -> dict[str, list[NameUse]]:
    """Every reference to a name in ``source``'s module, by name (built once per module)."""

    def build() -> dict[str, list[NameUse]]:
        collector = _References(source)
        visit_read_only(source.context.module, collector)
        return collector.uses

    return source.context.shared(_REFERENCES, build)


_REFERENCES: SharedKey[dict[str, list[NameUse]]] = SharedKey("references by name")


def arguments(source: FactSource, function: cst.FunctionDef, name: str) -> list[Argument] | None:
    """What the calls of ``function`` (of ``source``'s module) pass for its parameter
    ``name``; None when a call is not known (see the module's docstring) or is made from
    another module (:func:`passed` tells those)."""
    found = passed(source, function, name)
    if found is None or found.remote:
        return None
    return found.local or None


@dataclass(frozen=True)
class Passed:
    """What the calls of a function pass for one parameter: the arguments of its own module's
    calls (and the defaults calls leave it to), and the codes of the other modules' calls
    (:mod:`h2dlint.project.passed_args`: ``n`` numpy, ``l`` Python data, ``c`` pageable host
    tensor, ``p`` pinned, ``d`` accelerator, ``0`` None, ``?`` unknown)."""

    local: list[Argument]
    remote: list[str]
    # Per ``?`` of ``remote``, in order: the call and the parameter, for a question that may
    # evaluate the argument in its own module (:mod:`~h2dlint.analysis.chained_arguments`).
    pending: tuple[tuple[Site, Slot], ...] = ()


def passed(source: FactSource, function: cst.FunctionDef, name: str) -> Passed | None:
    """What every call of ``function`` passes for its parameter ``name``, from its own module
    and the others (:mod:`h2dlint.project.passed_sites`); None when a call is not known."""
    index = source.index
    own = function.name.value
    method = function in index.owner
    if not method and index.functions.get(own) is not function:
        return None
    if own.startswith("__") and own.endswith("__"):
        return None  # called by Python or a framework (``__init__`` through the class)
    frame = index.frame_of(function)
    slot = _slot(function, name, frame, method)
    if slot is None:
        return None
    objects = False
    if method and framework_called(own) and _external_bases(source, index.owner[function]):
        # A framework's base class may call it (a hook, a step); an ``nn.Module``'s
        # ``forward`` only through the object (``self.sampler(logits)``), whose calls the
        # project shows unless the object escapes (``project/instance_escapes.py``).
        if own != "forward" or not plain_module(source, index.owner[function]):
            return None
        objects = True
    found: list[Argument] = []
    for use in name_uses(source).get(own, []):
        if method and isinstance(use.node, cst.Name) and use.frame.function is not None:
            continue  # a bare name in a function is a local or a global, never a method
        if use.call is None:
            return None  # passed on (a callback, ``partial(f, ...)``): its calls are unseen
        resolved = source.callee(use.call, use.frame)
        if resolved is None or resolved[1] is not function:
            return None
        told, argument = slot_argument(use.call, slot)
        if not told:
            return None
        if argument is None:
            default = _default(function, name)
            if default is None:
                return None
            found.append(Argument(source, default, Frame(source.context.module)))
        elif not _passed_on(source, argument, use.frame, function, name):
            found.append(Argument(source, argument, use.argument_frame(source, argument)))
        if len(found) > MAX_CALL_SITES:
            return None
    # The other modules last: a call of the own module that is not known settles the answer
    # without reading them.
    remote = _remote(source, function, slot, method, objects)
    if remote is None or len(found) + len(remote) > MAX_CALL_SITES:
        return None
    codes: list[str] = []
    pending: list[tuple[Site, Slot]] = []
    for code, site in remote:
        if code:
            codes.append(code)
            if code == "?":
                pending.append((site, slot))
            continue
        default = _default(function, name)  # the call leaves it to its default
        if default is None:
            return None
        found.append(Argument(source, default, Frame(source.context.module)))
    return Passed(found, codes, tuple(pending)) if found or codes else None


def _remote(
    source: FactSource, function: cst.FunctionDef, slot: Slot, method: bool, objects: bool
) -> list[tuple[str, Site]] | None:
    """The codes the other modules' calls of ``function`` pass for ``slot`` ("": the default),
    with each call; with ``objects``, also the calls through objects of its class in every
    module (an ``nn.Module``'s ``forward``). None when those calls are not all known."""
    project = source.project
    module = source.module_name
    own = function.name.value
    if objects:
        qualified = f"{module}.{source.index.owner[function].name.value}.{own}"
        if project is None or module is None:
            sites = home_object_sites(source, source.index.owner[function])
        else:
            sites = object_sites(project.caller_index(), qualified)
    elif project is None or module is None or not called_elsewhere(source, own):
        return []
    else:
        qualified = f"{module}.{own}"
        if method:
            qualified = f"{module}.{source.index.owner[function].name.value}.{own}"
        sites = remote_sites(project.caller_index(), qualified, method)
    if sites is None or len(sites) > MAX_CALL_SITES:
        return None
    codes: list[tuple[str, Site]] = []
    for site in sites:
        code = site.code(slot.position, slot.name)
        if code is None:
            return None
        codes.append((code, site))
    return codes


def plain_module(source: FactSource, cls: cst.ClassDef) -> bool:
    """Whether ``cls`` derives from ``torch.nn.Module`` alone: nothing but ``__call__`` runs
    its ``forward`` (a ``PreTrainedModel``'s ``generate``, a Lightning module's
    ``predict_step`` call it from outside the project)."""
    return bool(cls.bases) and all(
        source.qualify(base.value) in ("torch.nn.Module", "torch.nn.modules.module.Module")
        for base in cls.bases
    )


def home_object_sites(source: FactSource, cls: cst.ClassDef) -> list[Site] | None:
    """:func:`~h2dlint.project.passed_sites.object_sites` for a file checked alone: the
    calls through objects of ``cls`` in its own module."""
    part = source.context.shared(_OWN_PASSES, lambda: _own_passes(source))
    if part is None:
        return None
    own = "." + cls.name.value
    if own in part["escapes"]["escapes"] or own not in part["escapes"]["made"]:
        return None
    sites: list[Site] = []
    for callee, line, called, positional, keywords in part["objects"]:
        owner = callee.rpartition(".")[0]
        if owner == own:
            sites.append(Site("", line, positional, _keywords(keywords), called))
        elif owner.startswith("."):
            methods = part["methods"].get(owner[1:], ())
            if "forward" not in methods and "__call__" not in methods:
                return None  # may inherit ``forward`` from the class
    return sites


def _own_passes(source: FactSource) -> Any:
    try:
        tree = source.context.python_tree or python_ast(source.context.source)
    except (SyntaxError, ValueError):
        return None
    return {**passed_arguments(tree), "escapes": object_escapes(tree)}


_OWN_PASSES: SharedKey[Any] = SharedKey("the module's own passes part")


@dataclass(frozen=True)
class Slot:
    """A parameter as callers fill it: its name, and its position among the positional ones."""

    name: str
    position: int | None  # None: keyword-only


def _slot(function: cst.FunctionDef, name: str, frame: Frame, method: bool) -> Slot | None:
    params = function.params
    positional = [*params.posonly_params, *params.params]
    if method and "staticmethod" not in decorator_names(function):
        if frame.self_name == name or not positional:
            return None
        positional = positional[1:]  # ``self``/``cls``: the object the call is made through
    for position, param in enumerate(positional):
        if param.name.value == name:
            return Slot(name, position)
    if any(param.name.value == name for param in params.kwonly_params):
        return Slot(name, None)
    return None


def slot_argument(call: cst.Call, slot: Slot) -> tuple[bool, cst.BaseExpression | None]:
    """Whether the value ``call`` passes for ``slot`` can be told (not with ``*args`` or
    ``**kwargs``), and that value: None when the call passes none (the default applies)."""
    position = 0
    for arg in call.args:
        if arg.star:
            return False, None
        if arg.keyword is not None:
            if arg.keyword.value == slot.name:
                return True, arg.value
            continue
        if slot.position is not None and position == slot.position:
            return True, arg.value
        position += 1
    return True, None


def _passed_on(
    source: FactSource,
    value: cst.BaseExpression,
    frame: Frame,
    function: cst.FunctionDef,
    name: str,
) -> bool:
    """Whether ``value`` is the parameter itself, passed on by a recursive call: it adds
    nothing to what the other calls pass."""
    return (
        frame.function is function
        and isinstance(value, cst.Name)
        and value.value == name
        and source.bindings(frame).is_parameter(value)
    )


def _default(function: cst.FunctionDef, name: str) -> cst.BaseExpression | None:
    params = function.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.name.value == name:
            return param.default
    return None


def framework_called(name: str) -> bool:
    """Whether a framework may call a public method named ``name`` of a class derived from
    its own: an entry point it dispatches (``forward``, ``step``, ``training_step``,
    ``prepare_inputs_for_generation``), an ``on_*`` callback or a hook. Other public methods
    of a module (``get_window_index``, ``rot_pos_emb``) are the project's own helpers, called
    through an attribute (``self.visual.get_window_index(grid_thw)``) that ``callee`` places."""
    if name.startswith("_"):
        return False
    words = [word for word in name.lower().split("_") if word]
    return (
        name in FRAMEWORK_METHODS
        or not FRAMEWORK_WORDS.isdisjoint(words)
        or (bool(words) and words[0] == "on")
    )


def _external_bases(source: FactSource, cls: cst.ClassDef) -> bool:
    """Whether ``cls`` derives from a class defined outside the project (``nn.Module``)."""
    for base in cls.bases:
        qualified = source.qualify(base.value)
        if qualified is None:
            if isinstance(base.value, cst.Name) and base.value.value in source.index.classes:
                continue
            return True
        if qualified not in ("object", "builtins.object") and not resolves(source, qualified):
            return True
    return False


def once_elsewhere(source: FactSource, name: str, once: Callable[[str, str | None], bool]) -> bool:
    """Whether the other modules call the top-level function ``name`` only from functions for
    which ``once(function_name, class_name)`` holds (the ``__init__`` of a resampler building
    its filter): every caller the project's call edges find (through imports) is one, and no
    other module that calls the name may reach it by ``import *`` (a module calling its own
    copy of the helper does not call this one)."""
    project = source.project
    module = source.module_name
    if project is None or module is None:
        return False
    index = project.caller_index()
    callers = [c for c in index.callers(f"{module}.{name}") if c.module != module]
    found = {c.module for c in callers}
    for other in index.calling(name):
        if other not in found and other != module and b"import *" in (index.data(other) or b"*"):
            return False
    return all(once(c.name, c.cls) for c in callers)  # none: the others call their own copy
