"""The classes of the objects a class's container attributes hold, and the attributes that
alias others, for the call edges' receivers (:func:`h2dlint.project.call_edges._attribute_classes`).

A serving engine keeps its per-step helpers in a dict or list it builds in ``__init__``
(``self.non_graph_metadata["mha"] = NonGraphedMHAMetadata(...)``, ``self.heads =
nn.ModuleList([Head(...) for _ in range(n)])``), picks one container per step
(``self.active = self.graph_metadata if graphed else self.non_graph_metadata``) and calls a
method of an item (``self.active["mha"].update(...)``): the item's class is a fact of the
container's construction in another method, often of another module than the method called
(session 50, megatron-core's ``DynamicInferenceContext``). The item classes are kept under the
attribute's name with :data:`ITEMS` appended (``non_graph_metadata[]``), beside the
attribute's own classes; an attribute assigned only other attributes of ``self`` (plainly, or
as the arms of a conditional or an ``or``) holds what they hold.

Only constructions of classes the module names count (``made``), as for a plain attribute; a
container of host tensors or numbers holds no class, and its items' method calls resolve to
nothing, as before."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator

# Appended to an attribute's name: the classes of the objects its container holds.
ITEMS = "[]"

Made = Callable[[ast.expr], list[str]]

# Calls that build a container of their argument's items.
_CONTAINERS = frozenset({"ModuleList", "ModuleDict", "list", "dict", "tuple", "OrderedDict"})
# Annotations of containers: the last subscript argument is the item's type.
_ANNOTATED = frozenset(
    {"dict", "Dict", "list", "List", "Mapping", "MutableMapping", "Sequence", "OrderedDict"}
)


def item_assignments(
    own: str, statement: ast.AST, made: Made, annotated: Made
) -> Iterator[tuple[str, list[str]]]:
    """(attribute name with :data:`ITEMS`, classes) for each container of ``self`` (named
    ``own``) that ``statement`` of a method fills: ``self.d[k] = Cls(...)``, ``self.d =
    {k: Cls(...)}`` (a dict, list or tuple display, a comprehension, or such a display
    passed to ``nn.ModuleDict``/``nn.ModuleList``), ``self.d: dict[str, Cls] = ...``,
    ``self.d.append(Cls(...))``. ``made``: the classes a value constructs; ``annotated``:
    the classes an annotation names."""
    if isinstance(statement, ast.Assign):
        for target in statement.targets:
            if isinstance(target, ast.Subscript) and _own_attribute(target.value, own):
                yield _name(target.value) + ITEMS, made(statement.value)
            elif _own_attribute(target, own):
                yield _name(target) + ITEMS, list(_displayed(statement.value, made))
    elif isinstance(statement, ast.AnnAssign) and _own_attribute(statement.target, own):
        found = annotated_items(statement.annotation, annotated)
        if statement.value is not None:
            found = [*found, *_displayed(statement.value, made)]
        yield _name(statement.target) + ITEMS, found
    elif (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Call)
        and isinstance(statement.value.func, ast.Attribute)
        and statement.value.func.attr == "append"
        and _own_attribute(statement.value.func.value, own)
        and len(statement.value.args) == 1
    ):
        yield _name(statement.value.func.value) + ITEMS, made(statement.value.args[0])


def annotated_items(annotation: ast.expr, annotated: Made) -> list[str]:
    """The item classes an annotation of a container names: ``dict[str, Cls]``,
    ``list[Cls]``, ``Optional[...]`` of one is not followed (a field annotated so is rare)."""
    if not isinstance(annotation, ast.Subscript):
        return []
    head = annotation.value
    name = head.attr if isinstance(head, ast.Attribute) else getattr(head, "id", None)
    if name not in _ANNOTATED:
        return []
    arguments = annotation.slice
    last = arguments.elts[-1] if isinstance(arguments, ast.Tuple) else arguments
    return annotated(last)


def aliased(own: str, statement: ast.AST) -> Iterator[tuple[str, list[str]]]:
    """(attribute, the attributes of ``self`` it is assigned) for ``self.a = self.b``,
    ``self.a = self.b if c else self.c``, ``self.a = self.b or self.c``; an arm that is
    not an attribute of ``self`` (``None``) adds nothing."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
        return
    target = statement.targets[0]
    if not _own_attribute(target, own):
        return
    sources = [
        _name(arm) for arm in _arms(statement.value) if _own_attribute(arm, own) and arm != target
    ]
    if sources:
        yield _name(target), sources


def merge_aliases(found: dict[str, list[str]], aliases: dict[str, set[str]]) -> None:
    """Adds to each aliasing attribute (and its items) what its sources hold, until nothing
    changes (a chain of aliases; at most one round per attribute)."""
    for _ in range(len(aliases) + 1):
        changed = False
        for attribute, sources in aliases.items():
            for suffix in ("", ITEMS):
                held = found.setdefault(attribute + suffix, [])
                for source in sorted(sources):
                    for cls in found.get(source + suffix, ()):
                        if cls not in held:
                            held.append(cls)
                            changed = True
        if not changed:
            return


def _displayed(value: ast.expr, made: Made) -> Iterator[str]:
    """The classes a container display's items construct (see :func:`item_assignments`)."""
    items: Iterable[ast.expr | None]
    if isinstance(value, ast.Dict):
        items = value.values
    elif isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        items = value.elts
    elif isinstance(value, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        items = [value.elt]
    elif isinstance(value, ast.DictComp):
        items = [value.value]
    elif isinstance(value, ast.Call) and len(value.args) == 1 and not value.keywords:
        func = value.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name in _CONTAINERS:  # ``nn.ModuleList([...])``: the display's items
            yield from _displayed(value.args[0], made)
        return
    else:
        return
    seen: set[str] = set()
    for item in items:
        if item is None:
            continue  # ``{**other}``
        for cls in made(item):
            if cls not in seen:
                seen.add(cls)
                yield cls


def _arms(value: ast.expr) -> Iterator[ast.expr]:
    if isinstance(value, ast.IfExp):
        yield from _arms(value.body)
        yield from _arms(value.orelse)
    elif isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
        for operand in value.values:
            yield from _arms(operand)
    else:
        yield value


def _own_attribute(node: ast.expr, own: str) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == own
    )


def _name(node: ast.expr) -> str:
    assert isinstance(node, ast.Attribute)
    return node.attr
