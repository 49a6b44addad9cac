"""Tensor provenance: where a tensor expression's memory is, whether it is fresh or a view, and
whether it is contiguous.

Intraprocedural and conservative, with a little help across the module:

- local names have the fact all their bindings agree on (``analysis.bindings``);
- ``self.<attr>`` has the fact its class's methods' assignments agree on (``+=`` keeps a tensor's);
- a call of a function or method of the same module has the fact its ``return`` statements
  agree on (a helper that returns a pinned buffer makes its call sites pinned);
- projects may name their own pinned-returning helpers and pinned attributes in configuration.

Only what the code proves counts; anything else is :data:`UNKNOWN_FACT`: rules stay silent on it.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis import cross_module
from h2dlint.analysis.argument_flow import passed
from h2dlint.analysis.bindings import COMPREHENSIONS, arithmetic_update, enumerated_item
from h2dlint.analysis.chained_arguments import remote_facts
from h2dlint.analysis.classes import class_of
from h2dlint.analysis.fact_source import FactSource
from h2dlint.analysis.facts import (
    DEVICE_FRESH,
    PINNED_FRESH,
    UNKNOWN_FACT,
    Fact,
    Where,
    in_place_kept,
    join,
)
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.framework_inputs import MOVED_BY_FRAMEWORK, moved_by_framework
from h2dlint.analysis.host_buffers import unmoved_buffer
from h2dlint.analysis.host_lengths import HOST_LENGTHS, host_lengths
from h2dlint.analysis.provenance.calls import CallFacts
from h2dlint.analysis.provenance.common import (
    MAX_DEPTH,
    REMOTE_FACTS,
    _is_none,
    scalar_tensor,
    unpacked_split,
)
from h2dlint.analysis.provenance.fields import field_fact
from h2dlint.analysis.provenance.items import item_fact
from h2dlint.analysis.provenance.loaders import loader_fact
from h2dlint.analysis.provenance.memo import memoised_fact
from h2dlint.analysis.views import subscript_fact
from h2dlint.context import FileContext, SharedKey
from h2dlint.imports import dotted_name, statements
from h2dlint.project.top_definitions import defined_in_body


class Provenance(CallFacts):
    """Answers provenance questions for one file. Bindings, the module index and facts are
    computed on demand and memoised."""

    @classmethod
    def of(cls, context: FileContext) -> Provenance:
        options = context.options
        return context.shared(
            PROVENANCE,
            lambda: cls(
                context,
                options.get("pinned-helpers", ()),
                options.get("pinned-attributes", ()),
            ),
        )

    def for_module(self, context: FileContext) -> Provenance:
        """The provenance of another module of the project, with the same settings."""
        return Provenance(context, self.pinned_helpers, self.pinned_attributes)

    def callee(
        self, call: cst.Call, frame: Frame, depth: int = 0
    ) -> tuple[Provenance, cst.FunctionDef] | None:
        found = cross_module.callee(self, call, frame, depth)
        return (_provenance(found[0]), found[1]) if found is not None else None

    # -- facts -------------------------------------------------------------------------------
    def fact(self, node: cst.BaseExpression, frame: Frame, depth: int = 0) -> Fact:
        """What is proven about ``node`` evaluated in ``frame``, memoised for the file as
        :func:`~h2dlint.analysis.provenance.memo.memoised_fact` says."""
        return memoised_fact(self, node, frame, depth)

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
        if isinstance(node, cst.Comparison):
            return self._comparison(node, frame, depth)
        if isinstance(node, cst.UnaryOperation) and not isinstance(node.operator, cst.Not):
            return self.fact(node.expression, frame, depth + 1).derived()  # ``~mask``, ``-x``
        if isinstance(node, cst.IfExp):  # an arm that is ``None`` never reaches a tensor op
            arms = [arm for arm in (node.body, node.orelse) if not _is_none(arm)]
            return join([self.fact(arm, frame, depth + 1) for arm in arms])
        return UNKNOWN_FACT

    def where(self, node: cst.BaseExpression, frame: Frame | None = None) -> Where:
        return self.fact(node, frame or self.current_frame()).where

    def _name(self, name: cst.Name, frame: Frame, depth: int) -> Fact:
        # A None never reaches a tensor operation, so it does not spoil the other bindings.
        # A binding whose value is being computed around this read (a loop that rebinds the
        # name from itself: ``row = row + 1``, ``pre = new`` where ``new`` was computed from
        # ``pre``) adds nothing the other bindings do not already say: it is left out of the
        # join (and the result is not memoised, as for the other cycle guards), where it used
        # to recurse to the depth limit and spoil the name with an unknown.
        if host_lengths(self, name, frame):
            return HOST_LENGTHS  # what PyTorch takes only from the host (``pack_padded_sequence``)
        facts = []
        looped = False
        for binding in self.bindings(frame).reaching_bindings(name):
            value = binding.value
            if value is None:
                if isinstance(binding.statement, cst.SimpleStatementLine) and any(
                    isinstance(s, (cst.Import, cst.ImportFrom)) for s in binding.statement.body
                ):
                    facts.append(self._imported_value(name, depth))
                elif isinstance(binding.statement, COMPREHENSIONS):
                    facts.append(self._comprehension_item(name, binding.statement, frame, depth))
                elif binding.statement is frame.function and moved_by_framework(self, name, frame):
                    facts.append(MOVED_BY_FRAMEWORK)
                elif binding.statement is frame.function:
                    facts.append(self._parameter(name, frame, depth))
                elif (target := arithmetic_update(binding.statement, name.value)) is not None:
                    # ``z += 1``: an in-place update keeps a tensor where it was (a Python
                    # number updated with a tensor was no tensor before, so stays unknown).
                    key = ("augmented", binding.statement, frame)
                    if not self._begin(key):
                        looped = True
                        continue
                    try:
                        # Through ``fact``, memoised: a chain of updates under branches
                        # (``if a: z += 1`` ... ``else: z += 2``, repeated) would otherwise be
                        # walked once per path, exponentially many.
                        facts.append(self.fact(target, frame, depth + 1))
                    finally:
                        self._in_progress.discard(key)
                else:
                    facts.append(self._loop_item(name, binding.statement, frame, depth))
            elif not _is_none(value):
                key = ("binding", value, frame)
                if not self._begin(key):
                    looped = True
                    continue
                try:
                    facts.append(self.fact(value, frame, depth + 1))
                finally:
                    self._in_progress.discard(key)
        if looped and not facts:
            return UNKNOWN_FACT
        if not facts and not isinstance(frame.function, cst.Module):
            return self._global(name, depth)
        return join(facts) if facts else UNKNOWN_FACT

    def _parameter(self, name: cst.Name, frame: Frame, depth: int) -> Fact:
        """A parameter: what every call of the function passes for it agrees on
        (:mod:`~h2dlint.analysis.argument_flow`); unknown when a call is not known."""
        function = frame.function
        if not isinstance(function, cst.FunctionDef):
            return UNKNOWN_FACT
        given = self.specialisation.parameters.get((function, name.value))
        if given is not None:
            return given  # what the call being specialised passes (``specialised.py``)
        key = ("parameter", function, name.value)
        if not self._begin(key):
            return UNKNOWN_FACT
        try:
            flow = passed(self, function, name.value)
            if flow is None:
                return UNKNOWN_FACT
            facts = [
                a.source.fact(a.value, a.frame, depth + 1)
                for a in flow.local
                if not _is_none(a.value)
            ]
            facts.extend(remote_facts(self, flow, depth, REMOTE_FACTS, UNKNOWN_FACT, facts))
        finally:
            self._in_progress.discard(key)
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
        found = self.project.find_home(self.project.absolute(self.module_name, qualified))
        # A module whose text never names it binds no such value, and a function or class its
        # summary finds in its body is none: not parsed to learn it.
        if found is None or "." in found[1] or not self.project.mentions(*found):
            return UNKNOWN_FACT
        if defined_in_body(self.project, *found):
            return UNKNOWN_FACT
        located = self.project.locate(self.project.absolute(self.module_name, qualified))
        if located is None:
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
            unpacked = unpacked_split(statement)
            if unpacked is None:  # ``a, b = helper(...)``: the fact of its position
                return self.unpacked_fact(name.value, statement, frame, depth)
            if isinstance(unpacked.func, cst.Attribute):  # a split: views of the tensor
                return self.fact(unpacked.func.value, frame, depth + 1).view(None)
            where = self.sequence_where(unpacked, frame, depth + 1)
            return Fact(where, False, None) if where is not Where.UNKNOWN else UNKNOWN_FACT
        if not isinstance(statement, cst.For):
            return UNKNOWN_FACT
        target, iterable = enumerated_item(statement.target, statement.iter)
        if not (isinstance(target, cst.Name) and target.value == name.value):
            return self._row_item(name, target, iterable, frame, depth)
        loader = loader_fact(self, iterable, frame, depth + 1)
        return loader if loader.known else self._row_item(name, target, iterable, frame, depth)

    def _comprehension_item(
        self, name: cst.Name, node: cst.CSTNode, frame: Frame, depth: int
    ) -> Fact:
        """A target of a comprehension's ``for`` clause (the last clause binding the name
        wins, as in :mod:`~h2dlint.analysis.bindings`): a row of the tensor it iterates."""
        clause = getattr(node, "for_in", None)
        found = UNKNOWN_FACT
        while isinstance(clause, cst.CompFor):
            if any(n.value == name.value for n in _names(clause.target)):
                found = self._row_item(name, clause.target, clause.iter, frame, depth)
            clause = clause.inner_for_in
        return found

    def _row_item(
        self,
        name: cst.Name,
        target: cst.BaseExpression,
        iterable: cst.BaseExpression,
        frame: Frame,
        depth: int,
    ) -> Fact:
        """``name`` bound by a loop target iterating ``iterable``: a row of a tensor whose
        placement is proven is where the tensor is (``for row in x.cpu()``), also as one of
        the targets of ``zip(a, b)`` or the item of ``enumerate(a)``
        (``[ids[:n] for ids, n in zip(pos.cpu(), lens.cpu())]``). A row is a view: contiguous
        when the tensor is. Anything else (a list, a loader, a dict) stays unknown."""
        if isinstance(target, cst.Tuple) and isinstance(iterable, cst.Call):
            func = self.qualify(iterable.func) or (
                iterable.func.value if isinstance(iterable.func, cst.Name) else ""
            )
            # ``zip(a, b, strict=True)`` pairs the same items as ``zip(a, b)``.
            args = [a.value for a in iterable.args if a.keyword is None and not a.star]
            if any(a.star or (a.keyword and a.keyword.value != "strict") for a in iterable.args):
                return UNKNOWN_FACT
            elements = [e.value for e in target.elements]
            if func in ("zip", "builtins.zip") and len(args) == len(elements):
                pairs = list(zip(elements, args, strict=True))
            elif func in ("enumerate", "builtins.enumerate") and len(elements) == 2 and args:
                pairs = [(elements[1], args[0])]
            else:
                return UNKNOWN_FACT
            for element, source in pairs:
                if isinstance(element, cst.Name) and element.value == name.value:
                    return self._row_item(name, element, source, frame, depth)
            return UNKNOWN_FACT
        if not (isinstance(target, cst.Name) and target.value == name.value):
            return UNKNOWN_FACT
        if isinstance(iterable, (cst.List, cst.Tuple, cst.Call)) and not _tensor_rows(iterable):
            return UNKNOWN_FACT
        whole = self.fact(iterable, frame, depth + 1)
        if not whole.known:
            # An item of a list of tensors whose facts agree (``self.caches`` made of
            # ``torch.empty(..., pin_memory=True)``): theirs; where the items are placed only,
            # where they are (pinned or not, unsaid).
            if isinstance(iterable, (cst.Name, cst.Attribute)):
                item = item_fact(self, iterable, frame, depth + 1)
                if item.known:
                    return item
                where = self.sequence_where(iterable, frame, depth + 1)
                if where is not Where.UNKNOWN:
                    return Fact(where)
            return UNKNOWN_FACT
        return whole.view(whole.contiguous)

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
        if self.tokenizer_batch_field(node, frame):
            return Fact(Where.HOST)  # ``enc.input_ids`` of ``enc = tokenizer(..., "pt")``
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
        if not self._begin(key):
            return UNKNOWN_FACT
        try:
            assigned = self.index.attributes.get(cls, {}).get(attr, [])
            facts = [
                self.fact(value, frame, depth + 1) if value is not None else UNKNOWN_FACT
                for value, frame in assigned
                if not _is_none(value)
            ]
            in_place = self.index.attributes.in_place(cls, attr)
            # An accelerate trainer's own buffer, only updated in place: where it is made.
            buffer = None if len(assigned) > in_place else unmoved_buffer(self.index, cls, attr)
            if buffer is not None:
                facts.append(self.fact(buffer[0], buffer[1], depth + 1))
            result = join(in_place_kept(facts, in_place))
            if not assigned:  # a dataclass's field: what its constructions pass
                result = field_fact(self, cls, attr, depth, REMOTE_FACTS) or result
        finally:
            self._in_progress.discard(key)
        self._attributes[key] = result
        return result

    def _binary(self, node: cst.BinaryOperation, frame: Frame, depth: int) -> Fact:
        if isinstance(node.operator, (cst.MatrixMultiply,)):
            return UNKNOWN_FACT
        sides = [s for s in (node.left, node.right) if not scalar_tensor(s, self.bindings(frame))]
        known = [f for f in (self.fact(s, frame, depth + 1) for s in sides) if f.known]
        if not known:
            return UNKNOWN_FACT
        if any(f.where is Where.DEVICE for f in known):
            return DEVICE_FRESH
        return known[0].derived()

    def _comparison(self, node: cst.Comparison, frame: Frame, depth: int) -> Fact:
        """``x != -100``, ``pos < lens``: an elementwise comparison is where its operands are,
        like arithmetic. Only one comparison of values (not ``in``/``is``, not a chain)."""
        if len(node.comparisons) != 1:
            return UNKNOWN_FACT
        target = node.comparisons[0]
        if not isinstance(target.operator, ELEMENTWISE_COMPARISONS):
            return UNKNOWN_FACT
        return self._binary(
            cst.BinaryOperation(node.left, cst.Add(), target.comparator), frame, depth
        )


ELEMENTWISE_COMPARISONS = (
    cst.Equal,
    cst.NotEqual,
    cst.LessThan,
    cst.LessThanEqual,
    cst.GreaterThan,
    cst.GreaterThanEqual,
)


def _names(target: cst.BaseExpression) -> list[cst.Name]:
    if isinstance(target, cst.Name):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for element in target.elements for n in _names(element.value)]
    return []


# Calls that give a tensor whose rows a loop may iterate (``.cpu()``, ``.to(...)``...); a call
# of anything else (``.tolist()``, ``.items()``, ``range(...)``, ``zip(...)``) does not.
_ROW_SOURCES = frozenset(
    {"cpu", "cuda", "to", "detach", "contiguous", "clone", "pin_memory", "long", "int", "float"}
)


def _tensor_rows(iterable: cst.BaseExpression) -> bool:
    """Whether iterating ``iterable`` gives the rows of one tensor: a tensor method that keeps
    a tensor (``x.cpu()``), not a display or another call."""
    return (
        isinstance(iterable, cst.Call)
        and isinstance(iterable.func, cst.Attribute)
        and iterable.func.attr.value in _ROW_SOURCES
    )


def _provenance(source: FactSource) -> Provenance:
    """``source`` as the provenance it is: every module's analysis is a :class:`Provenance`
    (``Provenance.for_module``)."""
    assert isinstance(source, Provenance)
    return source


PROVENANCE: SharedKey[Provenance] = SharedKey("provenance")
