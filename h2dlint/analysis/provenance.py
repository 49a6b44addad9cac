"""Tensor provenance: where a tensor expression's memory is, whether it is fresh or a view, and
whether it is contiguous.

Intraprocedural and conservative, with a little help across the module:

- local names have the fact all their bindings agree on (``analysis.bindings``);
- ``self.<attr>`` has the fact all assignments to it in the class's methods agree on;
- a call of a function or method of the same module has the fact its ``return`` statements
  agree on (a helper that returns a pinned buffer makes its call sites pinned);
- projects may name their own pinned-returning helpers and pinned attributes in configuration.

Only what the code proves counts; everything else is :data:`UNKNOWN_FACT`, and rules stay silent
on unknowns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import libcst as cst

from h2dlint.analysis import cross_module
from h2dlint.analysis.bindings import Bindings, collect_bindings
from h2dlint.analysis.classes import ClassRef, agree, class_of, is_module_class
from h2dlint.analysis.facts import (
    DEVICE_FRESH,
    PAGEABLE_FRESH,
    PINNED_FRESH,
    UNKNOWN_FACT,
    Fact,
    Where,
    join,
)
from h2dlint.analysis.frames import Frame, ModuleIndex, method_frame, parameter_annotation
from h2dlint.analysis.imports import ImportTable, dotted_name, statements
from h2dlint.analysis.targets import Target, device_target, to_target
from h2dlint.analysis.torch_api import (
    CONVERTERS,
    FRESH_FACTORIES,
    HOST_WRAPPERS,
    JOINS,
    LIKE_FACTORIES,
    NUMPY_PREFIXES,
    SAME_DEVICE_FUNCTIONS,
)
from h2dlint.analysis.views import subscript_fact, view_method_fact
from h2dlint.context import FileContext
from h2dlint.engine import visit_read_only
from h2dlint.project import index as project_index

MAX_DEPTH = 12
# Annotations that say: a numpy array.
NUMPY_ARRAY_TYPES = frozenset(
    {"numpy.ndarray", "numpy.typing.NDArray", "numpy.typing.ArrayLike", "numpy.array"}
)

# Methods that make a fresh tensor on the input's device (on the host: pageable).
DERIVING_METHODS = frozenset(
    {
        "clone",
        "repeat",
        "repeat_interleave",
        "index_select",
        "masked_select",
        "gather",
        "take",
        "sum",
        "prod",
        "mean",
        "cumsum",
        "cumprod",
        "add",
        "sub",
        "mul",
        "div",
        "abs",
        "neg",
        "sort",
        "argsort",
        "flip",
        "roll",
        "tril",
        "triu",
        "where",
        "masked_fill",
        "new_tensor",
    }
)
# Methods that keep the host/device placement but may or may not copy (a no-op conversion
# returns the tensor itself): on the host, pinning becomes unknown.
CONVERTING_METHODS = frozenset(
    {
        "float",
        "double",
        "half",
        "bfloat16",
        "int",
        "long",
        "short",
        "bool",
        "byte",
        "char",
        "type",
        "type_as",
        "contiguous",
        "flatten",
        "reshape",
        "ravel",
    }
)
NEW_FACTORIES = frozenset({"new_empty", "new_zeros", "new_ones", "new_full", "new_tensor"})
# torch.<fn>(tensor, ...) forms of view methods.
FUNCTION_VIEWS = frozenset(
    f"torch.{name}"
    for name in (
        "narrow",
        "select",
        "transpose",
        "permute",
        "t",
        "swapaxes",
        "swapdims",
        "movedim",
        "squeeze",
        "unsqueeze",
        "diagonal",
    )
)


def _is_none(node: cst.BaseExpression | None) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def annotation_is(
    provenance: Provenance,
    annotation: cst.BaseExpression,
    leaf: Callable[[cst.BaseExpression], bool],
) -> bool:
    """Whether ``annotation`` says one value of the kind ``leaf`` accepts, optionally or-None
    (``Optional[X]``, ``X | None``, ``Union[X, None]``). A union with anything else is not."""
    if leaf(annotation):
        return True
    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        parts: list[cst.BaseExpression] = [annotation.left, annotation.right]
    elif isinstance(annotation, cst.Subscript):
        head = (provenance.qualify(annotation.value) or "").rsplit(".", 1)[-1]
        parts = [e.slice.value for e in annotation.slice if isinstance(e.slice, cst.Index)]
        if not (head == "Union" or (head == "Optional" and len(parts) == 1)):
            return False
    else:
        return False
    values = [part for part in parts if not _is_none(part)]
    if len(values) == len(parts) and not isinstance(annotation, cst.Subscript):
        return False  # ``X | Y``: neither is None
    return bool(values) and all(annotation_is(provenance, v, leaf) for v in values)


def keyword(call: cst.Call, name: str) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def positional(call: cst.Call) -> list[cst.Arg]:
    return [arg for arg in call.args if arg.keyword is None and not arg.star]


def first_positional(call: cst.Call) -> cst.BaseExpression | None:
    args = positional(call)
    return args[0].value if args else None


def is_true(node: cst.BaseExpression | None) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def is_false(node: cst.BaseExpression | None) -> bool:
    return isinstance(node, cst.Name) and node.value in ("False", "None")


def host_named(node: cst.BaseExpression) -> bool:
    """Whether a tensor's name says it lives on the host (``cpu_buf``, ``host_ids``)."""
    while isinstance(node, (cst.Subscript, cst.Attribute)):
        if isinstance(node, cst.Attribute) and _hosty(node.attr.value):
            return True
        node = node.value
    return isinstance(node, cst.Name) and _hosty(node.value)


def _hosty(name: str) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in ("cpu", "host", "pinned", "numpy", "_np"))


# Methods of a tensor that return a sequence of tensors on its device.
SPLITTING_METHODS = frozenset({"split", "chunk", "unbind", "tensor_split", "split_with_sizes"})
# Functions that return one tensor per tensor given, on their device.
BROADCASTING_FUNCTIONS = frozenset({"torch.meshgrid", "torch.broadcast_tensors"})


def _unpacked_split(statement: cst.SimpleStatementLine) -> cst.Call | None:
    """The split in ``a, b = t.chunk(2)`` / ``h, w = torch.meshgrid(...)``, or None."""
    if len(statement.body) != 1 or not isinstance(statement.body[0], cst.Assign):
        return None
    assign = statement.body[0]
    value = assign.value
    if not isinstance(value, cst.Call) or not all(
        isinstance(t.target, (cst.Tuple, cst.List)) for t in assign.targets
    ):
        return None
    func = value.func
    if isinstance(func, cst.Attribute) and func.attr.value in SPLITTING_METHODS:
        return value
    if dotted_name(func) in ("torch.meshgrid", "torch.broadcast_tensors"):
        return value
    return None


@dataclass(frozen=True)
class _Memo:
    """A memoised fact; ``span`` is how much deeper than its own depth its computation went,
    so it stays valid wherever ``depth + span`` is within the limit."""

    fact: Fact
    span: int


class Provenance:
    """Answers provenance questions for one file. Bindings, the module index and facts are
    computed on demand and memoised."""

    def __init__(
        self,
        context: FileContext,
        pinned_helpers: Iterable[str] = (),
        pinned_attributes: Iterable[str] = (),
        memoise: bool = True,
    ) -> None:
        self.context = context
        self.memoise = memoise
        self.imports: ImportTable = context.imports
        self._bindings: dict[cst.CSTNode, Bindings] = {}
        self._index: ModuleIndex | None = None
        self._returns: dict[cst.FunctionDef, Fact] = {}
        self._attributes: dict[tuple[cst.ClassDef, str], Fact] = {}
        self._in_progress: set[object] = set()
        # Memoised facts, per (node, frame): see ``fact``.
        self._memo: dict[tuple[cst.CSTNode, Frame], _Memo] = {}
        self._memo_at_depth: dict[tuple[cst.CSTNode, Frame, int], _Memo] = {}
        self._deepest = 0
        self._cycles = 0
        self._appends: dict[cst.CSTNode, dict[str, list[cst.BaseExpression]]] = {}
        self.pinned_helpers = frozenset(pinned_helpers)
        self.pinned_attributes = frozenset(pinned_attributes)
        # The project index of the run (None: this file alone), and this module's name in it.
        self.project = project_index.current()
        self._module_name: str | None = None
        self._module_named = False
        self._return_classes: dict[cst.FunctionDef, ClassRef | None] = {}
        self._attribute_classes: dict[tuple[cst.ClassDef, str], ClassRef | None] = {}
        self._device_contexts: dict[cst.CSTNode, frozenset[cst.CSTNode]] = {}
        self.class_memo: dict[tuple[cst.CSTNode, Frame], ClassRef | None] = {}
        self._globals: frozenset[str] | None = None

    @classmethod
    def of(cls, context: FileContext) -> Provenance:
        options = context.options
        return context.shared(
            "provenance",
            lambda: cls(
                context,
                options.get("pinned-helpers", ()),
                options.get("pinned-attributes", ()),
            ),
        )

    # -- structure ---------------------------------------------------------------------------
    @property
    def index(self) -> ModuleIndex:
        if self._index is None:
            self._index = ModuleIndex.build(self.context.module)
        return self._index

    def bindings(self, frame: Frame) -> Bindings:
        key = frame.function
        if key not in self._bindings:
            self._bindings[key] = collect_bindings(frame.function)
        return self._bindings[key]

    def current_frame(self) -> Frame:
        """The frame of the node being visited."""
        ancestors = self.context.ancestors
        for i in range(len(ancestors) - 1, -1, -1):
            node = ancestors[i]
            if isinstance(node, cst.FunctionDef):
                owner = ancestors[i - 2] if i >= 2 else None
                cls = owner if isinstance(owner, cst.ClassDef) else None
                return method_frame(node, cls)
        return Frame(self.context.module)

    def qualify(self, node: cst.BaseExpression) -> str | None:
        return self.imports.qualify(node)

    # -- the project around this module -------------------------------------------------------
    @property
    def module_name(self) -> str | None:
        if not self._module_named:
            self._module_named = True
            if self.project is not None and self._module_name is None:
                self._module_name = self.project.module_name_of(self.context.path)
        return self._module_name

    @module_name.setter
    def module_name(self, name: str | None) -> None:
        self._module_name, self._module_named = name, True

    def resolve(self, qualified: str) -> tuple[Provenance, cross_module.Definition] | None:
        """Where the project defines a name imported here (None: not in the project)."""
        return cross_module.resolve(self, self.project, qualified)

    def callee(
        self, call: cst.Call, frame: Frame, depth: int = 0
    ) -> tuple[Provenance, cst.FunctionDef] | None:
        return cross_module.callee(self, call, frame, depth)

    def return_class(self, function: cst.FunctionDef, depth: int = 0) -> ClassRef | None:
        """The class of what every ``return`` of ``function`` gives, when they agree."""
        if function in self._return_classes:
            return self._return_classes[function]
        if depth > MAX_DEPTH or function in self._in_progress:
            return None
        self._in_progress.add(function)
        try:
            collector = _Returns()
            visit_read_only(function.body, collector)
            frame = self.index.frame_of(function)
            refs = [class_of(self, v, frame, depth + 1) for v in collector.values]
            result = agree(refs)
        finally:
            self._in_progress.discard(function)
        self._return_classes[function] = result
        return result

    def attribute_class(self, cls: cst.ClassDef, attr: str, depth: int = 0) -> ClassRef | None:
        """The class every assignment of ``self.<attr>`` in ``cls`` agrees on."""
        key = (cls, attr)
        if key in self._attribute_classes:
            return self._attribute_classes[key]
        if depth > MAX_DEPTH or ("class", key) in self._in_progress:
            return None
        self._in_progress.add(("class", key))
        try:
            assigned = [
                (value, frame)
                for value, frame in self.index.attributes.get(cls, {}).get(attr, [])
                if not _is_none(value)
            ]
            refs = [
                class_of(self, value, frame, depth + 1) if value is not None else None
                for value, frame in assigned
            ]
            result = agree(refs) if refs else cross_module.class_annotation(self, cls, attr)
        finally:
            self._in_progress.discard(("class", key))
        self._attribute_classes[key] = result
        return result

    # -- facts -------------------------------------------------------------------------------
    def fact(self, node: cst.BaseExpression, frame: Frame, depth: int = 0) -> Fact:
        """What is proven about ``node`` evaluated in ``frame``.

        Memoised per (node, frame) for the file. A result depends on the depth it is asked at
        only through the depth limit, and on the facts being computed around it only through
        the cycle guards of attributes and helpers; so a result is kept only when no cycle
        guard answered during its computation, and is reused only at depths where the same
        computation would stay within the limit (or at its own depth when it did not)."""
        self._note(depth)
        if depth > MAX_DEPTH:
            return UNKNOWN_FACT
        if not self.memoise:
            return self._compute(node, frame, depth)
        key = (node, frame)
        memo = self._memo.get(key)
        if memo is None or depth + memo.span > MAX_DEPTH:
            memo = self._memo_at_depth.get((node, frame, depth))
        if memo is not None:
            self._note(depth + memo.span)
            return memo.fact
        outer, cycles = self._deepest, self._cycles
        self._deepest = depth
        try:
            result = self._compute(node, frame, depth)
        finally:
            deepest = self._deepest
            self._deepest = max(outer, deepest)
        if self._cycles == cycles:
            span = deepest - depth
            if deepest <= MAX_DEPTH:
                self._memo[key] = _Memo(result, span)
            else:
                self._memo_at_depth[(node, frame, depth)] = _Memo(result, span)
        return result

    def _note(self, depth: int) -> None:
        """Record that the computation under way reached ``depth``."""
        if depth > self._deepest:
            self._deepest = depth

    def _compute(self, node: cst.BaseExpression, frame: Frame, depth: int) -> Fact:
        if isinstance(node, cst.Name):
            return self._name(node, frame, depth)
        if isinstance(node, cst.Attribute):
            return self._attribute(node, frame, depth)
        if isinstance(node, cst.Subscript):
            return subscript_fact(self, node, frame, depth)
        if isinstance(node, cst.Call):
            return self._call(node, frame, depth)
        if isinstance(node, cst.BinaryOperation):
            return self._binary(node, frame, depth)
        if isinstance(node, cst.IfExp):
            return join(
                [self.fact(node.body, frame, depth + 1), self.fact(node.orelse, frame, depth + 1)]
            )
        return UNKNOWN_FACT

    def where(self, node: cst.BaseExpression, frame: Frame | None = None) -> Where:
        return self.fact(node, frame or self.current_frame()).where

    def _name(self, name: cst.Name, frame: Frame, depth: int) -> Fact:
        # A None never reaches a tensor operation, so it does not spoil the other bindings.
        facts = []
        for binding in self.bindings(frame).reaching_bindings(name):
            value = binding.value
            if value is None:
                if isinstance(binding.statement, cst.SimpleStatementLine) and any(
                    isinstance(s, (cst.Import, cst.ImportFrom)) for s in binding.statement.body
                ):
                    facts.append(self._imported_value(name, depth))
                else:
                    facts.append(self._loop_item(name, binding.statement, frame, depth))
            elif not _is_none(value):
                facts.append(self.fact(value, frame, depth + 1))
        if not facts and not isinstance(frame.function, cst.Module):
            return self._global(name, depth)
        return join(facts) if facts else UNKNOWN_FACT

    def _global(self, name: cst.Name, depth: int) -> Fact:
        """A name a function reads but does not bind: a module-level tensor of this module,
        or one imported from another module of the project."""
        module_frame = Frame(self.context.module)
        bindings = self.bindings(module_frame)
        values = bindings.of(name.value)
        if not values or name.value in self._rebound_globals():
            return UNKNOWN_FACT
        if all(v is None for v in values) and self.qualify(name) is not None:
            return self._imported_value(name, depth)
        if any(v is None for v in values):
            return UNKNOWN_FACT
        return join([self.fact(v, module_frame, depth + 1) for v in values if v is not None])

    def _rebound_globals(self) -> frozenset[str]:
        """Names some function of the module declares ``global`` (and may rebind)."""
        if self._globals is None:
            self._globals = frozenset(
                name.name.value
                for statement in statements(self.context.module)
                if isinstance(statement, cst.Global)
                for name in statement.names
            )
        return self._globals

    def _imported_value(self, name: cst.Name, depth: int) -> Fact:
        """A module-level tensor imported from another module of the project
        (``from .pool import STAGING``): what its bindings there agree on."""
        qualified = self.qualify(name)
        if qualified is None or self.project is None or depth > MAX_DEPTH:
            return UNKNOWN_FACT
        located = self.project.locate(self.project.absolute(self.module_name, qualified))
        if located is None or "." in located[1]:
            return UNKNOWN_FACT
        other = cross_module.provenance_of(located[0], self)
        if located[1] in other.index.functions or located[1] in other.index.classes:
            return UNKNOWN_FACT
        module_frame = Frame(other.context.module)
        values = other.bindings(module_frame).of(located[1])
        if not values or any(v is None for v in values):
            return UNKNOWN_FACT
        return join([other.fact(v, module_frame, depth + 1) for v in values if v is not None])

    def _loop_item(self, name: cst.Name, statement: cst.CSTNode, frame: Frame, depth: int) -> Fact:
        """An item of a ``for`` loop: a batch of a ``DataLoader(..., pin_memory=True)`` is
        pinned (its worker pins every batch); a piece unpacked from a split of a tensor
        (``a, b = t.chunk(2)``, ``h, w = torch.meshgrid(x, y)``) is where the tensor is;
        anything else is unknown."""
        if isinstance(statement, cst.SimpleStatementLine):
            unpacked = _unpacked_split(statement)
            if unpacked is None:
                return UNKNOWN_FACT
            if isinstance(unpacked.func, cst.Attribute):  # a split: views of the tensor
                return self.fact(unpacked.func.value, frame, depth + 1).view(None)
            where = self.sequence_where(unpacked, frame, depth + 1)
            return Fact(where, False, None) if where is not Where.UNKNOWN else UNKNOWN_FACT
        if not isinstance(statement, cst.For):
            return UNKNOWN_FACT
        target: cst.BaseExpression = statement.target
        iterable = statement.iter
        if (
            isinstance(iterable, cst.Call)
            and isinstance(iterable.func, cst.Name)
            and iterable.func.value == "enumerate"
            and isinstance(target, cst.Tuple)
            and len(target.elements) == 2
            and iterable.args
        ):
            target, iterable = target.elements[1].value, iterable.args[0].value
        if not (isinstance(target, cst.Name) and target.value == name.value):
            return UNKNOWN_FACT
        return self._loader_fact(iterable, frame, depth + 1)

    def _loader_fact(self, node: cst.BaseExpression, frame: Frame, depth: int) -> Fact:
        if depth > MAX_DEPTH:
            return UNKNOWN_FACT
        if isinstance(node, cst.Name):
            values = self.bindings(frame).reaching(node)
            facts = [
                self._loader_fact(v, frame, depth + 1) if v is not None else UNKNOWN_FACT
                for v in values
            ]
            return join(facts) if facts else UNKNOWN_FACT
        if not isinstance(node, cst.Call):
            return UNKNOWN_FACT
        qualified = self.qualify(node.func) or ""
        if not qualified.endswith("DataLoader"):
            return UNKNOWN_FACT
        pin = keyword(node, "pin_memory")
        if pin is None or is_false(pin.value):
            return UNKNOWN_FACT  # a collate function may still pin, or move to the device
        return Fact(Where.PINNED if is_true(pin.value) else Where.MAYBE_PINNED, None, True)

    def _attribute(self, node: cst.Attribute, frame: Frame, depth: int) -> Fact:
        attr = node.attr.value
        base = node.value
        if attr in ("T", "mT", "H", "mH"):
            return self.fact(base, frame, depth + 1).view(contiguous=False)
        if attr in ("data",) and not self._instance_attribute(base, attr, frame, depth):
            return self.fact(base, frame, depth + 1)
        if self._configured_pinned_attribute(node):
            return PINNED_FRESH
        if isinstance(base, cst.Name) and frame.cls is not None and base.value == frame.self_name:
            return self.attribute_fact(frame.cls, attr, depth)
        owner = class_of(self, base, frame, depth + 1)
        if owner is not None and owner.provenance is not None and owner.node is not None:
            return owner.provenance.attribute_fact(owner.node, attr, depth + 1)
        return UNKNOWN_FACT

    def _instance_attribute(
        self, base: cst.BaseExpression, attr: str, frame: Frame, depth: int
    ) -> bool:
        """Whether ``base.<attr>`` is an attribute that a class of the project assigns (a
        buffer class's ``data``), not the tensor property of that name."""
        if isinstance(base, cst.Name) and frame.cls is not None and base.value == frame.self_name:
            return attr in self.index.attributes.get(frame.cls, {})
        owner = class_of(self, base, frame, depth + 1)
        return (
            owner is not None
            and owner.provenance is not None
            and owner.node is not None
            and attr in owner.provenance.index.attributes.get(owner.node, {})
        )

    def _configured_pinned_attribute(self, node: cst.Attribute) -> bool:
        if not self.pinned_attributes:
            return False
        dotted = dotted_name(node) or ""
        return node.attr.value in self.pinned_attributes or dotted in self.pinned_attributes

    def attribute_fact(self, cls: cst.ClassDef, attr: str, depth: int = 0) -> Fact:
        key = (cls, attr)
        if key in self._attributes:
            return self._attributes[key]
        if key in self._in_progress:
            self._cycles += 1
            return UNKNOWN_FACT
        self._in_progress.add(key)
        try:
            assigned = self.index.attributes.get(cls, {}).get(attr, [])
            facts = [
                self.fact(value, frame, depth + 1) if value is not None else UNKNOWN_FACT
                for value, frame in assigned
                if not _is_none(value)
            ]
            result = join(facts)
        finally:
            self._in_progress.discard(key)
        self._attributes[key] = result
        return result

    def _binary(self, node: cst.BinaryOperation, frame: Frame, depth: int) -> Fact:
        if isinstance(node.operator, (cst.MatrixMultiply,)):
            return UNKNOWN_FACT
        left = self.fact(node.left, frame, depth + 1)
        right = self.fact(node.right, frame, depth + 1)
        known = [f for f in (left, right) if f.known]
        if not known:
            return UNKNOWN_FACT
        if any(f.where is Where.DEVICE for f in known):
            return DEVICE_FRESH
        return known[0].derived()

    def _call(self, call: cst.Call, frame: Frame, depth: int) -> Fact:
        func = call.func
        qualified = self.qualify(func)
        if qualified is not None:
            fact = self._torch_call(qualified, call, frame, depth)
            if fact.known or qualified.startswith(("torch.", "numpy.", "np.")):
                return fact
            return self._project_call(call, frame, depth)
        if self._module_output(func, frame, depth):
            return Fact(Where.DEVICE)
        if isinstance(func, cst.Name):
            return self._helper_call(func.value, call, frame, depth)
        if isinstance(func, cst.Attribute):
            base = func.value
            if (
                isinstance(base, cst.Name)
                and frame.cls is not None
                and base.value == frame.self_name
                and func.attr.value in self.index.methods.get(frame.cls, {})
            ):
                return self.return_fact(self.index.methods[frame.cls][func.attr.value], depth)
            return self._method_call(func.attr.value, base, call, frame, depth)
        return UNKNOWN_FACT

    def _project_call(self, call: cst.Call, frame: Frame, depth: int) -> Fact:
        """A call of a function defined elsewhere in the project: what its returns agree on."""
        if depth > MAX_DEPTH:
            return UNKNOWN_FACT
        found = self.callee(call, frame, depth + 1)
        if found is None:
            return UNKNOWN_FACT
        owner, function = found
        return owner.return_fact(function, depth + 1)

    def _module_output(self, func: cst.BaseExpression, frame: Frame, depth: int) -> bool:
        """Whether calling ``func`` runs an ``nn.Module`` (``self.encoder(x)``): its output is
        on the module's device, an accelerator in the code that moves it."""
        if not isinstance(func, cst.Attribute):
            return False
        owner = class_of(self, func, frame, depth + 1)
        return owner is not None and is_module_class(owner)

    def _helper_call(self, name: str, call: cst.Call, frame: Frame, depth: int) -> Fact:
        if name in self.pinned_helpers:
            return PINNED_FRESH
        local = self.bindings(frame).of(name)
        function = self.index.functions.get(name)
        if function is None or local:
            return UNKNOWN_FACT
        return self.return_fact(function, depth)

    def return_fact(self, function: cst.FunctionDef, depth: int = 0) -> Fact:
        """What every ``return`` of ``function`` agrees on."""
        if function in self._returns:
            return self._returns[function]
        self._note(depth)
        if function in self._in_progress:
            self._cycles += 1
            return UNKNOWN_FACT
        if depth > MAX_DEPTH:
            return UNKNOWN_FACT
        self._in_progress.add(function)
        try:
            frame = self.index.frame_of(function)
            collector = _Returns()
            visit_read_only(function.body, collector)
            if not collector.values or collector.bare or collector.yields:
                result = UNKNOWN_FACT
            else:
                result = join([self.fact(v, frame, depth + 1) for v in collector.values])
        finally:
            self._in_progress.discard(function)
        self._returns[function] = result
        return result

    def _method_call(
        self, method: str, base: cst.BaseExpression, call: cst.Call, frame: Frame, depth: int
    ) -> Fact:
        if method == "pin_memory":
            return PINNED_FRESH
        if method == "cuda":
            return DEVICE_FRESH
        if method in ("cpu",):
            inner = self.fact(base, frame, depth + 1)
            if inner.where is Where.DEVICE:
                return PAGEABLE_FRESH
            return inner if inner.where.on_host else Fact(Where.HOST)
        if method == "to":
            target = to_target(self, call, frame)
            if target is Target.DEVICE:
                return DEVICE_FRESH
            inner = self.fact(base, frame, depth + 1)
            if target is Target.HOST:
                if inner.where is Where.DEVICE:
                    # A non-blocking copy to the host lands in pinned memory (measured).
                    return PINNED_FRESH if is_true(_non_blocking(call)) else PAGEABLE_FRESH
                return Fact(Where.HOST)
            if target is Target.DTYPE and inner.known:
                return Fact(Where.DEVICE) if inner.where is Where.DEVICE else Fact(Where.HOST)
            return UNKNOWN_FACT
        if method in NEW_FACTORIES:
            allocated = self._allocated(call, frame)
            if allocated.known:
                return (
                    allocated
                    if keyword(call, "device") or keyword(call, "pin_memory")
                    else (self.fact(base, frame, depth + 1).derived())
                )
            return UNKNOWN_FACT
        view = view_method_fact(self, method, base, call, frame, depth)
        if view is not None:
            return view
        if method not in DERIVING_METHODS and method not in CONVERTING_METHODS:
            return self._project_call(call, frame, depth)
        if method in DERIVING_METHODS:
            return self.fact(base, frame, depth + 1).derived()
        if method in CONVERTING_METHODS:
            inner = self.fact(base, frame, depth + 1)
            if method == "contiguous" and inner.contiguous is True:
                return inner
            if inner.where is Where.DEVICE:
                return Fact(Where.DEVICE)
            if inner.where.on_host:
                if inner.contiguous is False and method == "contiguous":
                    return PAGEABLE_FRESH
                return Fact(Where.HOST)
        return UNKNOWN_FACT

    def _torch_call(self, qualified: str, call: cst.Call, frame: Frame, depth: int) -> Fact:
        if qualified in self.pinned_helpers:
            return PINNED_FRESH
        if qualified in FUNCTION_VIEWS and call.args:
            # torch.narrow(t, 1, 0, n) is t.narrow(1, 0, n)
            method = qualified.rsplit(".", 1)[1]
            rest = call.with_changes(args=call.args[1:])
            view = view_method_fact(self, method, call.args[0].value, rest, frame, depth)
            if view is not None:
                return view
        if qualified in HOST_WRAPPERS:
            data = first_positional(call)
            if data is not None and self._tensor_memory(data, frame, depth + 1):
                return Fact(Where.HOST)  # a numpy view of a tensor's memory, pinned or not
            return PAGEABLE_FRESH
        if qualified == "torch.tensor" and keyword(call, "device") is None:
            # ``torch.tensor(t)`` of a tensor copies it on its own device.
            data = first_positional(call)
            if data is not None and not self.is_host_data(data, frame, depth):
                inner = self.fact(data, frame, depth + 1)
                if inner.where is Where.DEVICE:
                    return DEVICE_FRESH
        if qualified in FRESH_FACTORIES:
            return self._allocated(call, frame)
        if qualified in LIKE_FACTORIES:
            allocated = self._allocated(call, frame)
            if keyword(call, "device") or keyword(call, "pin_memory"):
                return allocated
            source = first_positional(call)
            return self.fact(source, frame, depth + 1).derived() if source else UNKNOWN_FACT
        if qualified in CONVERTERS:
            data = first_positional(call)
            if data is None:
                return UNKNOWN_FACT
            if self.is_host_data(data, frame, depth):
                if keyword(call, "device") is None and self._tensor_memory(data, frame, depth):
                    return Fact(Where.HOST)  # a view of a tensor's memory, pinned or not
                return self._allocated(call, frame)
            if keyword(call, "device") is not None:
                return self._allocated(call, frame)
            inner = self.fact(data, frame, depth + 1)
            if keyword(call, "dtype") is None:
                return inner
            # A tensor converted to another dtype stays where it is (measured:
            # ``torch.as_tensor(cuda_row, dtype=torch.long)`` is on the GPU); a copy on the
            # host is not known to be pinned.
            if inner.where is Where.DEVICE:
                return Fact(Where.DEVICE)
            return Fact(Where.HOST) if inner.where.on_host else UNKNOWN_FACT
        if qualified in JOINS:
            out = keyword(call, "out")
            if out is not None:
                return self.fact(out.value, frame, depth + 1)
            seq = first_positional(call)
            where = self.sequence_where(seq, frame, depth + 1) if seq is not None else None
            if where is Where.DEVICE:
                return DEVICE_FRESH
            if where is not None and where.on_host:
                return PAGEABLE_FRESH
            return UNKNOWN_FACT  # tensors of unknown placement: so is their join
        if qualified in SAME_DEVICE_FUNCTIONS:
            source = first_positional(call)
            return self.fact(source, frame, depth + 1).derived() if source else UNKNOWN_FACT
        return UNKNOWN_FACT

    def _allocated(self, call: cst.Call, frame: Frame) -> Fact:
        """A fresh tensor: where ``device=`` and ``pin_memory=`` put it, or, without
        ``device=``, the ``with torch.device(d):`` block around it."""
        device = keyword(call, "device")
        if device is None and call in self._device_context_calls(frame):
            return DEVICE_FRESH
        if device is not None and not is_false(device.value):
            target = device_target(self, device.value, frame, allocation=True)
            if target is Target.DEVICE:
                return DEVICE_FRESH
            if target is not Target.HOST:
                return UNKNOWN_FACT
        pin = keyword(call, "pin_memory")
        if pin is not None and not is_false(pin.value):
            return PINNED_FRESH if is_true(pin.value) else Fact(Where.MAYBE_PINNED, True, True)
        return PAGEABLE_FRESH

    def _device_context_calls(self, frame: Frame) -> frozenset[cst.CSTNode]:
        """The calls of ``frame``'s function made inside ``with torch.device(d):`` (or
        ``with d:`` where ``d`` is a device) blocks, where factories allocate on ``d``."""
        function = frame.function
        found = self._device_contexts.get(function)
        if found is None:
            collector = _DeviceContexts(self, frame)
            visit_read_only(function, collector)
            found = frozenset(collector.calls)
            self._device_contexts[function] = found
        return found

    # -- sequences of tensors ----------------------------------------------------------------
    def sequence_where(self, seq: cst.BaseExpression, frame: Frame, depth: int = 0) -> Where:
        """Where the tensors of a sequence passed to a join are: DEVICE when one of them is
        proven on a device, HOST when one is proven on the host (the tensors of one join share
        a device), else UNKNOWN. A name is judged binding by binding; a list bound empty by
        what ``.append`` adds to it."""
        self._note(depth)
        if depth > MAX_DEPTH:
            return Where.UNKNOWN
        if isinstance(seq, (cst.List, cst.Tuple)):
            facts = [
                self.fact(e.value, frame, depth + 1)
                for e in seq.elements
                if isinstance(e, cst.Element)
            ]
            return _any_where([f.where for f in facts])
        if isinstance(seq, (cst.ListComp, cst.GeneratorExp)):
            where = self.fact(seq.elt, frame, depth + 1).where
            return Where.HOST if where.on_host else where
        if (
            isinstance(seq, cst.Call)
            and isinstance(seq.func, cst.Attribute)
            and seq.func.attr.value in SPLITTING_METHODS
        ):
            where = self.fact(seq.func.value, frame, depth + 1).where
            return Where.HOST if where.on_host else where
        if isinstance(seq, cst.Call) and self.qualify(seq.func) in BROADCASTING_FUNCTIONS:
            # ``torch.meshgrid(x, y)``: one tensor per input, where the inputs are
            tensors = [a.value for a in seq.args if a.keyword is None and not a.star]
            return _any_where([self.fact(t, frame, depth + 1).where for t in tensors])
        if isinstance(seq, cst.Name):
            wheres = []
            for value in self.bindings(frame).reaching(seq):
                if value is None:
                    return Where.UNKNOWN
                if isinstance(value, cst.List) and not value.elements:
                    appended = self.appended(frame, seq.value)
                    facts = [self.fact(v, frame, depth + 1) for v in appended]
                    wheres.append(_any_where([f.where for f in facts]))
                else:
                    wheres.append(self.sequence_where(value, frame, depth + 1))
            if wheres and all(w is Where.DEVICE for w in wheres):
                return Where.DEVICE
            if wheres and all(w.on_host for w in wheres):
                return Where.HOST
        return Where.UNKNOWN

    def appended(self, frame: Frame, name: str) -> list[cst.BaseExpression]:
        """What ``name.append(...)`` adds anywhere in the frame's function."""
        function = frame.function
        if function not in self._appends:
            collector = _Appends()
            visit_read_only(function, collector)
            self._appends[function] = collector.found
        return self._appends[function].get(name, [])

    # -- host data: Python and numpy values, never a tensor -----------------------------------
    def is_host_data(self, node: cst.BaseExpression, frame: Frame, depth: int = 0) -> bool:
        """Python or numpy data (never a tensor): displays, comprehensions, numbers, numpy
        calls, ``list(...)``, ``x.tolist()``, numpy arrays (:meth:`is_numpy_array`), a name
        bound only to such values."""
        if isinstance(node, (cst.List, cst.Tuple, cst.ListComp, cst.Integer, cst.Float)):
            return True
        if isinstance(node, cst.Call):
            if isinstance(node.func, cst.Attribute) and node.func.attr.value == "tolist":
                return not node.args
            if isinstance(node.func, cst.Name) and node.func.value in ("list", "tuple"):
                return True
            return self.is_numpy_array(node, frame, depth)
        if isinstance(node, cst.Subscript):
            return _tolist_part(node) or self.is_numpy_array(node, frame, depth)
        if isinstance(node, cst.Name):
            self._note(depth)
            if depth > MAX_DEPTH:
                return False
            return self.bound_only_to(node, frame, depth, self.is_host_data)
        return False

    def is_numpy_array(self, node: cst.BaseExpression, frame: Frame, depth: int = 0) -> bool:
        """A numpy array (or an element or slice of one), never a tensor: a ``numpy.*`` call,
        ``t.numpy()``, a parameter annotated ``np.ndarray``/``npt.NDArray[...]`` (or optional),
        a name bound only to one."""
        self._note(depth)
        if depth > MAX_DEPTH:
            return False
        if isinstance(node, cst.Call):
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value == "numpy":
                return True
            qualified = self.qualify(func)
            return qualified is not None and qualified.startswith(NUMPY_PREFIXES)
        if isinstance(node, cst.Subscript):
            return self.is_numpy_array(node.value, frame, depth + 1)
        if isinstance(node, cst.Name):
            return self.bound_only_to(node, frame, depth, self.is_numpy_array)
        return False

    def bound_only_to(self, name: cst.Name, frame: Frame, depth: int, test: _Test) -> bool:
        """Whether every binding that may reach ``name`` passes ``test``; a parameter passes
        when its annotation says it is a numpy array."""
        bindings = self.bindings(frame)
        reaching = bindings.reaching_bindings(name)
        if not reaching:
            return False
        for binding in reaching:
            if binding.value is not None:
                if not test(binding.value, frame, depth + 1):
                    return False
            elif not (binding.statement is bindings.root and self.numpy_annotated(name, frame)):
                return False
        return True

    def _tensor_memory(self, node: cst.BaseExpression, frame: Frame, depth: int) -> bool:
        """Whether numpy data may be a view of a tensor's memory (``t.numpy()``, a slice of
        it, a name bound to one): converting it back shares that memory."""
        self._note(depth)
        if depth > MAX_DEPTH:
            return True
        if isinstance(node, cst.Call):
            return isinstance(node.func, cst.Attribute) and node.func.attr.value == "numpy"
        if isinstance(node, cst.Subscript):
            return self._tensor_memory(node.value, frame, depth + 1)
        if isinstance(node, cst.IfExp):
            return self._tensor_memory(node.body, frame, depth + 1) or self._tensor_memory(
                node.orelse, frame, depth + 1
            )
        if isinstance(node, cst.Name):
            return any(
                v is not None and self._tensor_memory(v, frame, depth + 1)
                for v in self.bindings(frame).reaching(node)
            )
        if isinstance(node, cst.Attribute):
            # ``self.buf.np``: the numpy view a buffer class keeps of its tensor.
            return any(
                owner._tensor_memory(value, value_frame, depth + 1)
                for owner, value, value_frame in self.attribute_values(node, frame, depth)
            )
        return False

    def attribute_values(
        self, node: cst.Attribute, frame: Frame, depth: int = 0
    ) -> list[tuple[Provenance, cst.BaseExpression, Frame]]:
        """What ``self.attr`` or ``obj.attr`` (of a known class) is assigned, each with the
        provenance and frame it is evaluated in."""
        base, attr = node.value, node.attr.value
        if isinstance(base, cst.Name) and frame.cls is not None and base.value == frame.self_name:
            owner: Provenance | None = self
            cls: cst.ClassDef | None = frame.cls
        else:
            ref = class_of(self, base, frame, depth + 1)
            owner, cls = (ref.provenance, ref.node) if ref is not None else (None, None)
        if owner is None or cls is None:
            return []
        return [
            (owner, value, value_frame)
            for value, value_frame in owner.index.attributes.get(cls, {}).get(attr, [])
            if value is not None
        ]

    def numpy_annotated(self, name: cst.Name, frame: Frame) -> bool:
        """Whether the parameter named like ``name`` is annotated as a numpy array."""
        annotation = parameter_annotation(name, frame)
        return annotation is not None and annotation_is(self, annotation, self._numpy_array_type)

    def _numpy_array_type(self, annotation: cst.BaseExpression) -> bool:
        head = annotation.value if isinstance(annotation, cst.Subscript) else annotation
        return (self.qualify(head) or "") in NUMPY_ARRAY_TYPES

    # -- copy targets ------------------------------------------------------------------------
    def to_target(self, call: cst.Call, frame: Frame | None = None) -> Target:
        return to_target(self, call, frame or self.current_frame())

    def device_target(
        self, node: cst.BaseExpression, frame: Frame | None = None, allocation: bool = False
    ) -> Target:
        return device_target(self, node, frame or self.current_frame(), allocation=allocation)


def _non_blocking(call: cst.Call) -> cst.BaseExpression | None:
    arg = keyword(call, "non_blocking")
    return arg.value if arg is not None else None


def _tolist_part(node: cst.Subscript) -> bool:
    """An element or slice of ``x.tolist()``: Python numbers or lists of them."""
    base: cst.BaseExpression = node
    while isinstance(base, cst.Subscript):
        base = base.value
    return (
        isinstance(base, cst.Call)
        and isinstance(base.func, cst.Attribute)
        and base.func.attr.value == "tolist"
        and not base.args
    )


def _any_where(wheres: list[Where]) -> Where:
    """Where tensors that share a device are, from what is known of some of them."""
    if any(w is Where.DEVICE for w in wheres):
        return Where.DEVICE
    if any(w.on_host for w in wheres):
        return Where.HOST
    return Where.UNKNOWN


_Test = Callable[[cst.BaseExpression, Frame, int], bool]


class _DeviceContexts(cst.CSTVisitor):
    """The calls inside ``with`` blocks whose context is an accelerator device."""

    def __init__(self, provenance: Provenance, frame: Frame) -> None:
        self.provenance = provenance
        self.frame = frame
        self.depth = 0
        self.calls: list[cst.Call] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return node is self.frame.function

    def visit_With(self, node: cst.With) -> None:
        if any(self._is_device(item.item) for item in node.items):
            self.depth += 1

    def leave_With(self, original_node: cst.With) -> None:
        if any(self._is_device(item.item) for item in original_node.items):
            self.depth -= 1

    def visit_Call(self, node: cst.Call) -> None:
        if self.depth:
            self.calls.append(node)

    def _is_device(self, item: cst.BaseExpression) -> bool:
        if isinstance(item, cst.Call):
            if self.provenance.qualify(item.func) != "torch.device" or not item.args:
                return False
            return device_target(self.provenance, item, self.frame) is Target.DEVICE
        if isinstance(item, (cst.Name, cst.Attribute)):
            name = item.value if isinstance(item, cst.Name) else item.attr.value
            lowered = name.lower()
            if "device" not in lowered or "cpu" in lowered or "host" in lowered:
                return False
            return device_target(self.provenance, item, self.frame) is Target.DEVICE
        return False


class _Appends(cst.CSTVisitor):
    """``name.append(value)`` calls of a function: name -> values."""

    def __init__(self) -> None:
        self.found: dict[str, list[cst.BaseExpression]] = {}

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value == "append"
            and isinstance(func.value, cst.Name)
            and len(node.args) == 1
        ):
            self.found.setdefault(func.value.value, []).append(node.args[0].value)


class _Returns(cst.CSTVisitor):
    """The values a function returns (not those of nested functions)."""

    def __init__(self) -> None:
        self.values: list[cst.BaseExpression] = []
        self.bare = False
        self.yields = False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is None:
            self.bare = True
        else:
            self.values.append(node.value)

    def visit_Yield(self, node: cst.Yield) -> None:
        self.yields = True
