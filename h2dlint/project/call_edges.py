"""The calls a module's functions make, for the project index's callers
(:mod:`h2dlint.project.callers`): a part of a module's summary (:mod:`h2dlint.project.summary`),
read with CPython's ``ast``, unresolved (the index resolves the names against the module's
package)."""

from __future__ import annotations

import ast
import warnings
from collections import deque
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from typing import Any, Protocol
from weakref import WeakKeyDictionary

from h2dlint.project.ast_walk import function_nodes
from h2dlint.project.container_items import (
    ITEMS,
    aliased,
    annotated_items,
    item_assignments,
    merge_aliases,
)
from h2dlint.project.passed_classes import passed_classes
from h2dlint.project.summary import BODIES, Parts, dotted, statements, top_functions


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
    annotated ``batch: InputBatch``, ``self.helper(...)`` of the method's own class, and the
    module's own top-level functions by name. Callees of the module's own classes and
    functions start with a dot (``.Runner.helper``, ``.pad``)."""
    names = module_names(tree)
    imports, roots, own = names.imports, names.roots, names.own
    functions: list[list[Any]] = []
    for function, cls, receivers in function_receivers(tree, names):
        first: dict[str, int] = {}
        for node in function_nodes(function):
            if not isinstance(node, ast.Call):
                continue
            for callee in _callees(node.func, roots, receivers, own):
                if callee not in first:
                    first[callee] = node.lineno
        if first:
            functions.append([function.name, cls, [[d, line] for d, line in first.items()]])
    return {
        "imports": [list(pair) for pair in imports],
        "functions": functions,
        "bases": _class_bases(tree),
        "methods": _class_methods(tree),
    }


def subclassing(tree: ast.Module) -> Parts:
    """What :func:`importing_subclasses` and :func:`inheriting_classes` read of
    :func:`call_edges` (the imports, each class's bases and method names), the same values,
    without resolving any call: a module asked only whether it subclasses another module's
    class (every transformers model file names ``GenerationMixin``; few subclass the class
    asked about) is not worth its call edges."""
    imports, _star = _imports(tree)
    return {
        "imports": [list(pair) for pair in imports],
        "bases": _class_bases(tree),
        "methods": _class_methods(tree),
    }


def _class_bases(tree: ast.Module) -> dict[str, list[str]]:
    return {
        node.name: [name for name in map(dotted, node.bases) if name is not None]
        for node in tree.body
        if isinstance(node, ast.ClassDef) and node.bases
    }


def _class_methods(tree: ast.Module) -> dict[str, list[str]]:
    return {
        node.name: sorted(
            {
                member.name
                for member in node.body
                if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef))
            }
        )
        for node in tree.body
        if isinstance(node, ast.ClassDef) and node.bases
    }


@dataclass
class ModuleNames:
    """What a module's top level names: its imports (local name, imported name as written, in
    statement order), whether it imports ``*``, the imported roots, its classes, its own
    functions and classes (not shadowed by an import), and per class the classes of the
    attributes its methods assign (:func:`_attribute_classes`)."""

    imports: list[list[str]]
    star: bool
    roots: set[str]
    classes: set[str]
    own: set[str]
    attributes: dict[str, dict[str, list[str]]]


FunctionReceivers = tuple[ast.FunctionDef | ast.AsyncFunctionDef, str | None, dict[str, list[str]]]
# Per tree, its names and its functions' receivers: the call edges, the passed arguments and
# the objects' escapes of one module (parts computed from the same kept tree) each asked them.
_NAMES: WeakKeyDictionary[ast.Module, ModuleNames] = WeakKeyDictionary()
_RECEIVERS: WeakKeyDictionary[ast.Module, list[FunctionReceivers]] = WeakKeyDictionary()


def module_names(tree: ast.Module) -> ModuleNames:
    """The names of ``tree``'s top level (shared by the call edges and the passed arguments
    of the project index), computed once per tree: not to be changed."""
    found = _NAMES.get(tree)
    if found is None:
        found = _NAMES[tree] = _module_names(tree)
    return found


def _module_names(tree: ast.Module) -> ModuleNames:
    imports, star = _imports(tree)
    roots = {local for local, _ in imports}
    classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    own = {
        node.name
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and node.name not in roots
    }
    attributes = {
        node.name: _attribute_classes(node, roots, classes)
        for node in tree.body
        if isinstance(node, ast.ClassDef)
    }
    return ModuleNames(imports, star, roots, classes, own, attributes)


def _imports(tree: ast.Module) -> tuple[list[list[str]], bool]:
    """The module's imports (local name, imported name as written, in statement order) and
    whether it imports ``*``."""
    imports: list[list[str]] = []
    star = False
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
                    star = True
                    continue
                joint = "" if base.endswith(".") or not base else "."
                imports.append([alias.asname or alias.name, f"{base}{joint}{alias.name}"])
    return imports, star


def function_receivers(tree: ast.Module, names: ModuleNames) -> list[FunctionReceivers]:
    """Each top-level function and method of a top-level class (``top_functions``' order),
    with its typed receivers (:func:`_typed_receivers`), its parameters also typed by what the
    module's calls of it pass (:mod:`h2dlint.project.passed_classes`). ``names``: the tree's
    :func:`module_names`. Computed once per tree: not to be changed."""
    found = _RECEIVERS.get(tree)
    if found is None:
        found = _RECEIVERS[tree] = _function_receivers(tree, names)
    return found


def _function_receivers(tree: ast.Module, names: ModuleNames) -> list[FunctionReceivers]:
    functions = list(top_functions(tree))
    own = [
        _typed_receivers(function, cls, names.attributes, names.roots, names.classes)
        for function, cls in functions
    ]

    typed = passed_classes(
        functions, own, _static, lambda value: _constructed(value, names.roots, names.classes)
    )
    return [
        (function, cls, receivers)
        for (function, cls), receivers in zip(functions, typed, strict=True)
    ]


def _callees(
    func: ast.expr, roots: set[str], receivers: dict[str, list[str]], own: set[str]
) -> list[str]:
    """The dotted callees of one call's function (see :func:`call_edges`); ``own``: the
    module's top-level functions and classes."""
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Subscript)
        and (held := dotted(func.value.value)) is not None
    ):
        # ``self.metadata[key].update(...)``: a method of the classes the container's items
        # hold (:func:`_attribute_classes`' ``metadata[]``).
        return [f"{cls}.{func.attr}" for cls in receivers.get(held + ITEMS, ())]
    name = dotted(func)
    if name is None:
        return []
    head, _, rest = name.partition(".")
    if head in roots:
        return [name]
    if not rest:
        return ["." + head] if head in own else []
    # ``self.m``, ``self.attr.m``, ``param.m``: the longest known receiver, then one method.
    receiver, _, method = name.rpartition(".")
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
    parameters = {a.arg for a in [*positional, *arguments.kwonlyargs]}
    for name, made in _local_instances(function, roots, classes).items():
        if name not in parameters and name not in receivers:
            receivers[name] = made
    return receivers


def _local_instances(
    function: ast.FunctionDef | ast.AsyncFunctionDef, roots: set[str], classes: set[str]
) -> dict[str, list[str]]:
    """Local names every assignment of which makes an instance of a class the module names
    (``metadata = MetaData(scale)``): the classes, as callee prefixes. A name also assigned
    anything else is left out."""
    found: dict[str, list[str]] = {}
    other: set[str] = set()
    for statement in _statements_of(function):
        if not isinstance(statement, ast.Assign):
            continue
        for target in statement.targets:
            if not isinstance(target, ast.Name):
                continue
            made = _constructed(statement.value, roots, classes)
            if made:
                held = found.setdefault(target.id, [])
                held.extend(name for name in made if name not in held)
            else:
                other.add(target.id)
    return {name: made for name, made in found.items() if name not in other}


# Methods of an ``nn.Module`` that return the module itself (``Model(...).to(device)``).
RETURNING_SELF = frozenset(
    {"to", "cuda", "cpu", "eval", "train", "half", "float", "bfloat16", "double", "requires_grad_"}
)


def _unmoved(value: ast.expr) -> ast.expr:
    """``Cls(...)`` of ``Cls(...).to(device).eval()``: the object made (a module's ``to`` and
    ``eval`` return it); any other value as it is."""
    while (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in RETURNING_SELF
        and isinstance(value.func.value, ast.Call)
    ):
        value = value.func.value
    return value


def _constructed(value: ast.expr, roots: set[str], classes: set[str]) -> list[str]:
    """The classes whose object ``value`` makes (``Cls(...)``, ``Cls(...).to(device)``)."""
    value = _unmoved(value)
    return _class_named(dotted(value.func), roots, classes) if isinstance(value, ast.Call) else []


def _static(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in function.decorator_list)


def _attribute_classes(
    node: ast.ClassDef, roots: set[str], classes: set[str]
) -> dict[str, list[str]]:
    """The classes of a class's attributes, as far as the class's own text says: fields
    annotated in its body (``sampler: Sampler``), and ``self.x = Cls(...)``,
    ``self.x: Cls = ...`` or ``self.x = param`` (of a parameter annotated ``Cls``) in its
    methods. An attribute assigned several classes (one per branch) holds each; the classes
    a container attribute's items hold, and attributes assigned others, as
    :mod:`h2dlint.project.container_items` finds them."""
    found: dict[str, list[str]] = {}
    aliases: dict[str, set[str]] = {}

    def add(attribute: str, names: list[str]) -> None:
        held = found.setdefault(attribute, [])
        held.extend(name for name in names if name not in held)

    def made(value: ast.expr) -> list[str]:
        return _constructed(value, roots, classes)

    def annotated(annotation: ast.expr) -> list[str]:
        return _annotated_classes(annotation, roots, classes)

    for member in node.body:
        if isinstance(member, ast.AnnAssign) and isinstance(member.target, ast.Name):
            add(member.target.id, annotated(member.annotation))
            add(member.target.id + ITEMS, annotated_items(member.annotation, annotated))
        if not isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        positional = [*member.args.posonlyargs, *member.args.args]
        if not positional or _static(member):
            continue
        own = positional[0].arg
        parameters = {
            a.arg: annotated(a.annotation)
            for a in [*positional[1:], *member.args.kwonlyargs]
            if a.annotation is not None
        }
        value: ast.expr | None
        annotation: ast.expr | None
        for statement in _statements_of(member):
            for items, names in item_assignments(own, statement, made, annotated):
                add(items, names)
            for alias, sources in aliased(own, statement):
                aliases.setdefault(alias, set()).update(sources)
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
                add(target.attr, annotated(annotation))
            if isinstance(value, ast.Name) and value.id in parameters:
                add(target.attr, parameters[value.id])
            elif value is not None:
                add(target.attr, made(value))
    merge_aliases(found, aliases)
    return {attribute: names for attribute, names in found.items() if names}


def _annotated_classes(annotation: ast.expr, roots: set[str], classes: set[str]) -> list[str]:
    """The classes an annotation names: ``Cls``, ``mod.Cls``, ``Optional[Cls]``,
    ``Cls | None``, ``"Cls"``."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            with warnings.catch_warnings():  # CPython's warnings about the code are not ours
                warnings.simplefilter("ignore")
                annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return []
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return [
            *_annotated_classes(annotation.left, roots, classes),
            *_annotated_classes(annotation.right, roots, classes),
        ]
    if isinstance(annotation, ast.Subscript) and dotted(annotation.value) in (
        "Optional",
        "typing.Optional",
    ):
        return _annotated_classes(annotation.slice, roots, classes)
    return _class_named(dotted(annotation), roots, classes)


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


def _statements_of(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.AST]:
    """The statements of a function's body at any depth, without entering expressions."""
    todo = deque(function.body)
    while todo:
        node = todo.popleft()
        for name in BODIES.get(type(node), ()):
            todo.extend(getattr(node, name))
        yield node


class _Modules(Protocol):
    @property
    def layout(self) -> Any: ...


def inheriting_classes(raw: Parts, cls: str, method: str) -> tuple[str, ...]:
    """The classes of the module whose :func:`call_edges` are ``raw`` that inherit ``method``
    of its class ``cls`` without overriding it (directly or through classes of the module
    that do not override it either): a call of ``Sub.method`` through an object of such a
    class runs ``cls.method`` (session 31: OpenNMT-py's translator drives ``BeamSearch``,
    whose ``update_finished`` is its base ``BeamSearchBase``'s)."""
    bases: dict[str, list[str]] = raw.get("bases", {})
    methods: dict[str, list[str]] = raw.get("methods", {})
    found: list[str] = []
    reached = {cls}
    changed = True
    while changed:
        changed = False
        for sub, written in bases.items():
            if sub in reached or method in methods.get(sub, ()):
                continue
            if any(name in reached for name in written):
                reached.add(sub)
                found.append(sub)
                changed = True
    return tuple(found)


def external_bases(
    raw: Parts, cls: str, absolute: Callable[[str], str], project: _Modules
) -> tuple[str, ...]:
    """The bases of class ``cls`` (of the module whose :func:`call_edges` are ``raw``) that
    are defined outside the project, qualified (``torch.nn.Module``): a call through an object
    annotated with one of them (``self.model`` of ``model: nn.Module``) may reach the class's
    method of that name. ``absolute``: a name as the module imports it made absolute."""
    imports = {local: absolute(full) for local, full in raw["imports"]}
    modules = project.layout.modules
    found = []
    for written in raw.get("bases", {}).get(cls, ()):
        root, _, rest = written.partition(".")
        if root not in imports:
            continue  # a class of the module, or a builtin (``object``)
        full = f"{imports[root]}.{rest}" if rest else imports[root]
        parts = full.split(".")
        if not any(".".join(parts[:n]) in modules for n in range(1, len(parts))):
            found.append(full)
    return tuple(found)


def importing_subclasses(
    raw: Parts, bases: Collection[str], method: str, absolute: Callable[[str], str]
) -> tuple[str, ...]:
    """The classes of the module whose :func:`call_edges` are ``raw`` that subclass one of
    the project classes ``bases`` of another module (qualified: ``pkg.arch.MetaForCausalLM``),
    which they import, and inherit its ``method`` without overriding it (directly or through
    classes of the module that do not override it either): ``self.method(...)`` in such a
    class runs the base's ``method`` (session 36: LLaVA's ``LlavaLlamaForCausalLM(
    LlamaForCausalLM, LlavaMetaForCausalLM)`` calls its mixin's
    ``prepare_inputs_labels_for_multimodal`` from ``forward``). ``absolute``: a name as the
    module imports it made absolute."""
    imports = {local: absolute(full) for local, full in raw["imports"]}
    methods: dict[str, list[str]] = raw.get("methods", {})
    found: list[str] = []
    for sub, written in raw.get("bases", {}).items():
        if sub in found or method in methods.get(sub, ()):
            continue
        for name in written:
            root, _, rest = name.partition(".")
            if root in imports and (f"{imports[root]}.{rest}" if rest else imports[root]) in bases:
                found.append(sub)
                found.extend(s for s in inheriting_classes(raw, sub, method) if s not in found)
                break
    return tuple(found)
