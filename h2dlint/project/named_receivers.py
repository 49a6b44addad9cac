"""Callers of a method through an object named for its class, whose class the calling module
cannot tell.

An engine reaches a per-step method of another module's object through attributes whose
classes its own text never names::

    context = self.inference_wrapped_model.inference_context      # the controller's step
    context.mamba_slot_allocator.commit_intermediate_states()      # MambaSlotAllocator's

    self.output_model = output_model.to(dtype=dtype)              # a factory's result
    x = self.output_model.reduce(x, batch)                         # OutputModel's, per forward

The callers index (:mod:`h2dlint.project.call_edges`) types a receiver only by what the
calling module says of it (a construction, an annotation, a parameter's callers), so neither
call is an edge. The receiver's own name says the class: its words (``mamba_slot_allocator``,
``output_model``) are the last words of the class's name (``MambaSlotAllocator``,
``OutputModel``, also ``SlotAllocator``-style suffixes of two words or more). This module adds,
for a method ``pkg.mod.Cls.m``, the functions of the project that call ``<...>.<name>.m(...)``
on a receiver so named whose class their module cannot tell. A one-word receiver
(``context``, ``model``, ``handle``) says too little: one word names many classes, and
library objects too (``self.model.generate(...)`` of a transformers model).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from h2dlint.project.ast_walk import function_nodes
from h2dlint.project.call_edges import function_receivers, module_names
from h2dlint.project.call_resolution import defining_module
from h2dlint.project.caller_scans import Caller
from h2dlint.project.summary import Parts, dotted

# Words a receiver's name must have to name a class (see the module docs).
MIN_WORDS = 2
# Modules read per question (those whose text calls the method through such a name).
MAX_MODULES = 16

_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z][a-z0-9]*|[a-z0-9]+")


class _Callers(Protocol):
    """What this module reads of ``callers.CallerIndex`` (a protocol, as
    :mod:`h2dlint.project.override_callers` reads it)."""

    @property
    def project(self) -> Any: ...
    def tree_part(self, module: str, name: str, compute: Callable[[Any], Any]) -> Any: ...
    def calling(self, name: str) -> list[str]: ...
    def data(self, module: str) -> bytes | None: ...
    def consult(self, module: str) -> None: ...


def class_receivers(cls: str) -> list[str]:
    """The receiver names that name class ``cls``: the snake-case forms of the last
    :data:`MIN_WORDS` or more words of its name (``MambaSlotAllocator`` ->
    ``slot_allocator``, ``mamba_slot_allocator``; ``KVCache`` -> ``kv_cache``)."""
    words = [w.lower() for w in _CAMEL.findall(cls)]
    return ["_".join(words[-n:]) for n in range(MIN_WORDS, len(words) + 1)]


def receiver_word(name: str) -> str | None:
    """A receiver's name as :func:`class_receivers` writes them (``_mamba_slot_allocator`` ->
    ``mamba_slot_allocator``); None when it has fewer than :data:`MIN_WORDS` words."""
    words = [w for w in name.lower().split("_") if w]
    return "_".join(words) if len(words) >= MIN_WORDS else None


def named_calls(tree: ast.Module) -> Parts:
    """Per top-level function and method of a top-level class: the calls ``<...>.<name>.m(...)``
    (and ``<name>.m(...)`` of a local) whose receiver the module cannot type (not ``self``, no
    import, no class the module's call edges know) and whose last name has
    :data:`MIN_WORDS` words or more: [receiver name, method, line]; with each class's bases,
    for the callers' records."""
    names = module_names(tree)
    functions: list[list[Any]] = []
    for function, cls, receivers in function_receivers(tree, names):
        calls: list[list[Any]] = []
        aliases = attribute_aliases(function)
        for node in function_nodes(function):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            receiver = dotted(node.func.value)
            if receiver is None or receiver in receivers:
                continue
            head, _, _ = receiver.partition(".")
            if head in names.roots or ("." not in receiver and head in names.own):
                continue  # a module's function (``helpers.m``), a class of the module
            word = receiver_word(receiver.rpartition(".")[2])
            if word is None and receiver in aliases:
                word = receiver_word(aliases[receiver])
            if word is not None:
                calls.append([word, node.func.attr, node.lineno])
        if calls:
            functions.append([function.name, cls, calls])
    bases = {
        node.name: [name for name in map(dotted, node.bases) if name is not None]
        for node in tree.body
        if isinstance(node, ast.ClassDef) and node.bases
    }
    return {"functions": functions, "bases": bases}


def attribute_aliases(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, str]:
    """Local names bound only by assignments that read an attribute of the same name
    (``context = self.inference_wrapped_model.inference_context``): name -> the attribute's
    name, which names the object's class as the attribute itself would."""
    read: dict[str, set[str]] = {}
    assigned: dict[str, int] = {}
    stored: dict[str, int] = {}
    for node in function_nodes(function):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            stored[node.id] = stored.get(node.id, 0) + 1
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Attribute)
            and dotted(node.value) is not None
        ):
            name = node.targets[0].id
            read.setdefault(name, set()).add(node.value.attr)
            assigned[name] = assigned.get(name, 0) + 1
    parameters = {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}
    return {
        name: next(iter(attrs))
        for name, attrs in read.items()
        if len(attrs) == 1 and assigned[name] == stored.get(name) and name not in parameters
    }


def named_callers(index: _Callers, qualified: str) -> Iterator[Caller]:
    """The functions of the project that call method ``qualified`` (``pkg.mod.Cls.m``)
    through a receiver named for ``Cls`` (see the module docs); none for a top-level
    function or a class whose name has too few words. A generator: the modules are read as
    the callers are asked for (the walk asks only when the other callers were not hot)."""
    project = index.project
    module = defining_module(qualified, project)
    cls, _, method = qualified[len(module) + 1 :].partition(".")
    accepted = set(class_receivers(cls))
    if not method or "." in method or not accepted:
        return
    # ``<name>.<method>`` as written (a literal: one fast search per name and module); the
    # module's tree then says whether the receiver is one its module cannot type.
    needles = [f"{name}.{method}".encode() for name in sorted(accepted)]
    words = [f".{name}\n".encode() for name in sorted(accepted)]
    read = 0
    for other in _candidates(index, method, needles, words):
        if read >= MAX_MODULES:
            break
        read += 1
        index.consult(other)
        raw = index.tree_part(other, "named_calls", named_calls)
        if raw is None:
            continue
        bases = raw.get("bases", {})
        for name, owner, calls in raw["functions"]:
            line = next((ln for w, m, ln in calls if m == method and w in accepted), None)
            if line is None:
                continue
            where = f"{other}.{owner}.{name}" if owner else f"{other}.{name}"
            written = tuple(bases.get(owner, ())) if owner else ()
            yield Caller(other, where, name, owner, line, written)


def _candidates(
    index: _Callers, method: str, needles: list[bytes], words: list[bytes]
) -> Iterator[str]:
    """The modules calling ``method`` whose text writes ``<name>.<method>`` (a ``needle``),
    then those that only end a line with an attribute so named (a ``word``:
    ``context = self.wrapper.inference_context``, the local then calls the method): read
    after the others, within the same bound."""
    later: list[str] = []
    for other in index.calling(method):
        data = index.data(other) or b""
        if any(needle in data for needle in needles):
            yield other
        elif any(word in data for word in words):
            later.append(other)
    yield from later
