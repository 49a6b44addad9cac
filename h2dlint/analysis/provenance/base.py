"""The provenance analysis's state and the questions built on its facts: the module's structure
(index, bindings, qualified names), the project around it (definitions and classes from other
modules), sequences of tensors, host data, copy targets. ``calls.py``, ``core.py``: the facts."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial

import libcst as cst

from h2dlint.analysis import cross_module
from h2dlint.analysis.argument_flow import passed
from h2dlint.analysis.bindings import Bindings, collect_bindings
from h2dlint.analysis.classes import agreed_class, class_of
from h2dlint.analysis.fact_source import ClassRef, Definition, FactSource
from h2dlint.analysis.facts import Fact, Where
from h2dlint.analysis.frames import Frame, ModuleIndex, frame_at, parameter_annotation
from h2dlint.analysis.guarded_tensors import unguarded_python_data
from h2dlint.analysis.provenance.common import (
    MAX_DEPTH,
    NO_HIT,
    SPLITTING_METHODS,
    _any_where,
    _Appends,
    _is_none,
    _Memo,
    _Test,
    _tolist_part,
    annotation_is,
    array_method_receiver,
    data_mapping,
    numpy_array_annotation,
    numpy_items,
    remote_answer,
    returns_numpy_array,
)
from h2dlint.analysis.provenance.memo import begin
from h2dlint.analysis.provenance.numpy_arithmetic import numpy_update, numpy_with_number
from h2dlint.analysis.provenance.numpy_attributes import numpy_attribute
from h2dlint.analysis.provenance.sequences import agreed as _agreed
from h2dlint.analysis.provenance.sequences import (
    attribute_sequence_where,
    returned_sequence_where,
)
from h2dlint.analysis.provenance.specialisation import Specialisation
from h2dlint.analysis.returns import ReturnedValues
from h2dlint.analysis.targets import Target, device_target, to_target
from h2dlint.analysis.torch_api import NUMPY_PREFIXES
from h2dlint.context import FileContext
from h2dlint.imports import ImportTable
from h2dlint.project import index as project_index
from h2dlint.walk import visit_read_only


class ProvenanceBase:
    """Answers provenance questions for one file (bindings, index, facts: memoised)."""

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
        self._frames: dict[tuple[cst.CSTNode, cst.CSTNode | None], Frame] = {}
        self._index: ModuleIndex | None = None
        self._returns: dict[cst.FunctionDef, Fact] = {}
        self.element_returns: dict[tuple[cst.FunctionDef, int, int], Fact] = {}
        self._attributes: dict[tuple[cst.ClassDef, str], Fact] = {}
        self._in_progress: set[object] = set()
        # The cycle guards' bookkeeping for the memo of facts (provenance/memo.py).
        self._began: dict[object, int] = {}
        self._serial = 0
        self._earliest_hit = self._earliest_reuse = NO_HIT
        self._guarded_memo: dict[tuple[cst.CSTNode, Frame, int, frozenset[object]], _Memo] = {}
        # Memoised facts, per (node, frame): see ``fact``.
        self._memo: dict[tuple[cst.CSTNode, Frame], _Memo] = {}
        self._memo_at_depth: dict[tuple[cst.CSTNode, Frame, int], _Memo] = {}
        self._deepest = 0
        self._cycles = 0
        # Results a cycle guard answered in, kept while the outermost question that computed
        # them is open (see ``Provenance.fact``), and how many questions are open.
        self._open_memo: dict[tuple[cst.CSTNode, Frame, int], tuple[_Memo, int, int]] = {}
        self._open = 0
        self._computed = 0  # facts computed for the open outermost question
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
        self.specialisation = Specialisation()  # call sites' host arguments: specialised.py

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
            if node.__class__ is cst.FunctionDef:  # not isinstance: see walk.node_classes
                return frame_at(ancestors, i, self._frames)
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

    def resolve(self, qualified: str) -> tuple[FactSource, Definition] | None:
        """Where the project defines a name imported here (None: not in the project)."""
        return cross_module.resolve(self, self.project, qualified)

    def callee(
        self, call: cst.Call, frame: Frame, depth: int = 0
    ) -> tuple[FactSource, cst.FunctionDef] | None:
        return cross_module.callee(self, call, frame, depth)

    def return_class(self, function: cst.FunctionDef, depth: int = 0) -> ClassRef | None:
        """The class of what every ``return`` of ``function`` gives, when they agree. Like
        :meth:`return_fact`, a summary that does not depend on who asks, so it is computed
        with a depth budget of its own: an answer computed deep in a chain would otherwise be
        cached as unknown for every later, shallow question (``_in_progress`` guards
        recursion; ``depth`` is unused)."""
        if function in self._return_classes:
            return self._return_classes[function]
        if function in self._in_progress:
            return None
        self._in_progress.add(function)
        try:
            collector = ReturnedValues()
            visit_read_only(function.body, collector)
            frame = self.index.frame_of(function)
            result = agreed_class(class_of(self, v, frame, 1) for v in collector.values)
        finally:
            self._in_progress.discard(function)
        self._return_classes[function] = result
        return result

    def attribute_class(self, cls: cst.ClassDef, attr: str, depth: int = 0) -> ClassRef | None:
        """The class every assignment of ``self.<attr>`` in ``cls`` agrees on (with a depth
        budget of its own, as :meth:`return_class`)."""
        key = (cls, attr)
        if key in self._attribute_classes:
            return self._attribute_classes[key]
        if ("class", key) in self._in_progress:
            return None
        self._in_progress.add(("class", key))
        try:
            assigned = [
                (value, frame)
                for value, frame in self.index.attributes.get(cls, {}).get(attr, [])
                if not _is_none(value)
            ]
            refs = (
                class_of(self, value, frame, 1) if value is not None else None
                for value, frame in assigned
            )
            annotated = cross_module.class_annotation  # modules by branch: a module alike
            result = agreed_class(refs, modules=True) if assigned else annotated(self, cls, attr)
        finally:
            self._in_progress.discard(("class", key))
        self._attribute_classes[key] = result
        return result

    def _note(self, depth: int) -> None:
        """Record that the computation under way reached ``depth``."""
        if depth > self._deepest:
            self._deepest = depth

    # -- answered by the subclasses (calls.CallFacts, core.Provenance) -------------------------
    def fact(self, node: cst.BaseExpression, frame: Frame, depth: int = 0) -> Fact:
        raise NotImplementedError

    def return_fact(self, function: cst.FunctionDef, depth: int = 0) -> Fact:
        raise NotImplementedError

    def attribute_fact(self, cls: cst.ClassDef, attr: str, depth: int = 0) -> Fact:
        raise NotImplementedError

    def _binary(self, node: cst.BinaryOperation, frame: Frame, depth: int) -> Fact:
        raise NotImplementedError  # arithmetic is where its operands are (``core``)

    def for_module(self, context: FileContext) -> FactSource:
        raise NotImplementedError

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
        if isinstance(seq, cst.Call) and self.qualify(seq.func) in (
            "torch.meshgrid",
            "torch.broadcast_tensors",
        ):  # tensors where their inputs are: ``torch.meshgrid(*[torch.arange(n) ...])``
            wheres = [
                self.sequence_where(a.value, frame, depth + 1)
                if a.star == "*"
                else self.fact(a.value, frame, depth + 1).where
                for a in seq.args
                if a.keyword is None
            ]
            return _any_where(wheres) if wheres else Where.UNKNOWN
        if isinstance(seq, cst.Call):
            return returned_sequence_where(self, seq, frame, depth)
        if isinstance(seq, cst.Subscript):  # ``xs[0]``, ``xs[1:]``: rows or items of ``xs``'s
            where = self.sequence_where(seq.value, frame, depth)  # a smaller node: no depth
            if where is Where.UNKNOWN:
                where = self.fact(seq, frame, depth + 1).where
            return Where.HOST if where.on_host else where
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
            agreed = _agreed(wheres)
            if agreed is not Where.UNKNOWN:
                return agreed
        if isinstance(seq, cst.Attribute):
            return attribute_sequence_where(self, seq, frame, depth)
        return Where.UNKNOWN

    def appended_to_attribute(
        self, cls: cst.ClassDef | None, attr: str
    ) -> list[tuple[cst.BaseExpression, Frame]]:
        """What ``self.<attr>.append(...)`` adds in the methods of ``cls``, each with the
        method's frame."""
        if cls is None:
            return []
        found: list[tuple[cst.BaseExpression, Frame]] = []
        for stmt in cls.body.body:
            if not isinstance(stmt, cst.FunctionDef) or not stmt.params.params:
                continue
            self_name = stmt.params.params[0].name.value
            if stmt not in self._appends:
                collector = _Appends()
                visit_read_only(stmt, collector)
                self._appends[stmt] = collector.found
            method = Frame(stmt, cls, self_name)
            found.extend((v, method) for v in self._appends[stmt].get(f"{self_name}.{attr}", []))
        return found

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
            return (
                _tolist_part(node)
                or self.is_numpy_array(node, frame, depth)
                or self._data_mapping_item(node, frame, depth)
            )
        if isinstance(node, cst.Name):
            self._note(depth)
            if depth > MAX_DEPTH:
                return False
            # ``xs = []`` grown by ``xs.append(t)``: what it holds is what was appended.
            if any(
                not self.is_host_data(value, frame, depth + 1)
                for value in self.appended(frame, node.value)
            ):
                return False
            held = numpy_items(self, node, frame)  # ``xs: List[np.ndarray]``
            return held or self.bound_only_to(node, frame, depth, self.is_host_data)
        if isinstance(node, (cst.Attribute, cst.BinaryOperation)):  # ``array * gains``
            return self.is_numpy_array(node, frame, depth)
        return False

    def _data_mapping_item(self, node: cst.Subscript, frame: Frame, depth: int) -> bool:
        """``ids[key]`` of a local mapping of Python data: ``ids = {k: [] for k in keys}`` (its
        lists grown by ``ids[k].extend(...)``), ``ids = {"a": [1, 2]}``, ``defaultdict(list)``."""
        if not isinstance(node.value, cst.Name) or len(node.slice) != 1:
            return False
        if not isinstance(node.slice[0].slice, cst.Index):
            return False
        return self.bound_only_to(
            node.value, frame, depth, lambda v, f, d: data_mapping(self, self.is_host_data, v, f, d)
        )

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
            receiver = array_method_receiver(func)  # ``np.array(values).reshape(n, 3)``
            if receiver is not None and self.is_numpy_array(receiver, frame, depth + 1):
                return True
            numpy_call = (self.qualify(func) or "").startswith(NUMPY_PREFIXES)
            return numpy_call or returns_numpy_array(self, node, frame, depth)
        if isinstance(node, cst.Subscript):
            return self.is_numpy_array(node.value, frame, depth + 1)
        if isinstance(node, cst.Name):
            return self.bound_only_to(node, frame, depth, self.is_numpy_array)
        if isinstance(node, cst.Attribute):  # ``self.terminals`` assigned only arrays
            return numpy_attribute(self, node, frame, depth)
        numpy_side = partial(self.is_numpy_array, frame=frame, depth=depth + 1)
        return isinstance(node, cst.BinaryOperation) and numpy_with_number(node, frame, numpy_side)

    def bound_only_to(self, name: cst.Name, frame: Frame, depth: int, test: _Test) -> bool:
        """Whether every binding that may reach ``name`` passes ``test``; a parameter passes
        when its annotation says it is a numpy array, or every call of its function passes a
        value that does."""
        bindings = self.bindings(frame)
        reaching = bindings.reaching_bindings(name)
        if not reaching:
            return False
        for binding in reaching:
            if binding.value is not None:
                if not test(binding.value, frame, depth + 1):
                    return False
            elif (kept := numpy_update(self, binding, name, test, frame, depth)) is not None:
                if not kept:
                    return False
            elif binding.statement is not bindings.root or not (
                self.numpy_annotated(name, frame)
                or (test == self.is_host_data and unguarded_python_data(self, name, frame))
                or self.passed_only(name, frame, depth, test)
            ):
                return False
        return True

    def _begin(self, key: object) -> bool:
        """:func:`~h2dlint.analysis.provenance.memo.begin`."""
        return begin(self, key)

    def passed_only(self, name: cst.Name, frame: Frame, depth: int, test: _Test) -> bool:
        """Whether every call of ``frame``'s function passes its parameter ``name`` values that
        pass ``test`` (:mod:`~h2dlint.analysis.argument_flow`; ``None`` passes any)."""
        function = frame.function
        if not isinstance(function, cst.FunctionDef) or depth > MAX_DEPTH:
            return False
        key = ("passed", function, name.value)
        if not self._begin(key):
            return False
        try:
            flow = passed(self, function, name.value)
            values = [a for a in flow.local if not _is_none(a.value)] if flow else []
            remote = remote_answer(test, flow.remote if flow else [])
            told = remote is not False and bool(values or remote)
            return told and all(test(a.value, a.frame, depth + 1) for a in values)
        finally:
            self._in_progress.discard(key)

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
    ) -> list[tuple[ProvenanceBase, cst.BaseExpression, Frame]]:
        """What ``self.attr`` or ``obj.attr`` (of a known class) is assigned, each with the
        provenance and frame it is evaluated in."""
        base, attr = node.value, node.attr.value
        if isinstance(base, cst.Name) and frame.cls is not None and base.value == frame.self_name:
            owner: ProvenanceBase | None = self
            cls: cst.ClassDef | None = frame.cls
        else:
            ref = class_of(self, base, frame, depth + 1)
            source, cls = (ref.provenance, ref.node) if ref is not None else (None, None)
            owner = _as_base(source) if source is not None else None
        if owner is None or cls is None:
            return []
        return [
            (owner, value, value_frame)
            for value, value_frame in owner.index.attributes.get(cls, {}).get(attr, [])
            if value is not None
        ]

    def numpy_annotated(self, name: cst.Name, frame: Frame) -> bool:  # ``x: np.ndarray``
        annotation = parameter_annotation(name, frame)
        return annotation is not None and annotation_is(self, annotation, self.numpy_array_type)

    def numpy_array_type(self, annotation: cst.BaseExpression) -> bool:
        return numpy_array_annotation(self, annotation)

    # -- copy targets ------------------------------------------------------------------------
    def to_target(self, call: cst.Call, frame: Frame | None = None) -> Target:
        return to_target(self, call, frame or self.current_frame())

    def device_target(
        self, node: cst.BaseExpression, frame: Frame | None = None, allocation: bool = False
    ) -> Target:
        return device_target(self, node, frame or self.current_frame(), allocation=allocation)


def _as_base(source: FactSource) -> ProvenanceBase:
    """``source`` as the provenance it is (every module's is a ``core.Provenance``)."""
    assert isinstance(source, ProvenanceBase)
    return source
