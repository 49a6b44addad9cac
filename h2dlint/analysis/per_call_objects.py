"""Objects made anew on every call: a class of the module with no bases (a mask or a small
state holder, not an ``nn.Module``) constructed in a function where the code does not run
once (a ``forward``, a helper of one; not under a cache guard). Its ``__init__`` then runs on
every call, not once per owning object: what it builds on the host and moves is built and
moved every call (session 31: the Informer family's ``TriangularCausalMask(B, L,
device=queries.device)`` and ``ProbMask(...)``, made in each attention forward, copy a host
``torch.ones`` mask to the device). A construction under a cache guard (diffsynth's plan made
on a cache miss) runs once per key. A class whose ``__init__`` loads weights
(``torch.load``, ``torch.jit.load``, ``load_state_dict``, ``from_pretrained``) is a model's
holder, not a per-call object: reading a checkpoint per step is no one's design (session 35:
transparent-background's ``Remover``, built by its command's ``entry_point``)."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from h2dlint.walk import visit_read_only

# Methods run on every call of the object that holds them.
PER_CALL_METHODS = frozenset({"forward", "__call__"})
# Calls that read a model's weights: an ``__init__`` making one builds a model's holder.
WEIGHT_LOADERS = frozenset({"load_state_dict", "from_pretrained"})
LOAD_RECEIVERS = frozenset({"torch", "jit"})


class _LoadsWeights(cst.CSTVisitor):
    """Finds a call that loads weights: ``torch.load(...)``, ``torch.jit.load(...)``,
    ``m.load_state_dict(...)``, ``Model.from_pretrained(...)``."""

    def __init__(self) -> None:
        self.found = False

    def visit_Call(self, node: cst.Call) -> bool:
        func = node.func
        if isinstance(func, cst.Attribute):
            name = func.attr.value
            receiver = func.value
            if name in WEIGHT_LOADERS or (
                name == "load"
                and (
                    (isinstance(receiver, cst.Name) and receiver.value in LOAD_RECEIVERS)
                    or (isinstance(receiver, cst.Attribute) and receiver.attr.value == "jit")
                )
            ):
                self.found = True
        return not self.found


def loads_weights(cls: cst.ClassDef) -> bool:
    """Whether ``cls``'s own ``__init__`` loads weights (:class:`_LoadsWeights`)."""
    for small in cls.body.body:
        if isinstance(small, cst.FunctionDef) and small.name.value == "__init__":
            finder = _LoadsWeights()
            visit_read_only(small, finder)
            return finder.found
    return False


class _Constructions(cst.CSTVisitor):
    """The ancestors (root first, the call last) of each call of a bare name in ``names``, by
    name."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names
        self.stack: list[cst.CSTNode] = []
        self.found: dict[str, list[list[cst.CSTNode]]] = {}

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.stack.append(node)
        if isinstance(node, cst.Call):
            func = node.func
            if isinstance(func, cst.Name) and func.value in self.names:
                self.found.setdefault(func.value, []).append(list(self.stack))
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()


class _NamedCall(cst.CSTVisitor):
    """Whether a subtree calls a bare name in ``names``: the default walk, which calls no
    method on the nodes between calls (:class:`_Constructions` keeps every node's ancestors)."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names
        self.found = False

    def visit_Call(self, node: cst.Call) -> bool:
        func = node.func
        if isinstance(func, cst.Name) and func.value in self.names:
            self.found = True
        return not self.found


Constructions = dict[str, list[list[cst.CSTNode]]]


def plain_constructions(module: cst.Module, classes: dict[str, cst.ClassDef]) -> Constructions:
    """Per class of ``classes`` (the module's top-level classes) without bases: where it is
    constructed by its name. Only the top-level statements that hold such a call are walked
    with their ancestors kept (the same ancestors and order as a walk of the whole module,
    whose only content field is its ``body``)."""
    plain = frozenset(n for n, c in classes.items() if not c.bases and not c.keywords)
    if not plain:
        return {}
    finder = _Constructions(plain)
    finder.stack.append(module)
    for statement in module.body:
        probe = _NamedCall(plain)
        visit_read_only(statement, probe)
        if probe.found:
            visit_read_only(statement, finder)
    return finder.found


def made_per_call(
    cls: cst.ClassDef, constructions: Constructions, once: Callable[[list[cst.CSTNode]], bool]
) -> bool:
    """Whether ``cls`` (a top-level class without bases) is constructed by its name in a
    function, outside an ``__init__``, where ``once`` (the module's run-once judgement of the
    code there: a run-once function, a cache guard) says it does not run once."""
    if cls.bases or cls.keywords or loads_weights(cls):
        return False
    for ancestors in constructions.get(cls.name.value, ()):
        functions = [n for n in ancestors if isinstance(n, cst.FunctionDef)]
        if functions and functions[-1].name.value != "__init__" and not once(ancestors):
            return True
    return False


__all__ = ["PER_CALL_METHODS", "loads_weights", "made_per_call", "plain_constructions"]
