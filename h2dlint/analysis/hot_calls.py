"""The calls that carry hotness within a module (:mod:`h2dlint.analysis.hot_paths`): the
functions of the module one function calls, and whether a loop's body runs a model (the step
loop of a per-request entry point)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import libcst as cst

from h2dlint.analysis.attribute_aliases import aliased_attributes
from h2dlint.analysis.device_branches import holds_on_cuda, only_off_cuda
from h2dlint.analysis.env_switches import diagnostic_switch
from h2dlint.analysis.frames import ModuleIndex
from h2dlint.analysis.gate_methods import periodic_method_gate
from h2dlint.analysis.host_io_requests import device_loops_cst
from h2dlint.analysis.names import conditional_arms
from h2dlint.analysis.once import RunOnce
from h2dlint.analysis.once_guards import alias_memo_guard
from h2dlint.analysis.periodic_exits import debug_guard, periodic_exit
from h2dlint.analysis.sync_basics import periodic_test
from h2dlint.walk import OwnLoopBodyVisitor, node_classes, visit_read_only


class SameModuleCalls(cst.CSTVisitor):
    """The functions of the module one function calls: ``self.m(...)``/``cls.m(...)`` of its
    class, and top-level functions by name. Nested functions and lambdas count as part of the
    function; calls under a run-once guard do not."""

    def __init__(
        self,
        index: ModuleIndex,
        once: RunOnce,
        cls: cst.ClassDef | None,
        self_names: tuple[str, ...],
    ) -> None:
        self.index = index
        self.once = once
        self.cls = cls
        self.self_names = self_names
        self.found: list[cst.FunctionDef] = []
        # Only calls in loops count (the caller runs once per request around its loops).
        self.loops_only = False
        # Only calls in loops that run a model count (a block of a modular pipeline).
        self.model_loops_only = False
        # With ``loops_only``, a call outside loops still counts when its callee has loops of
        # its own that may run a model (a host-in, host-out ``__call__``'s helper looping over
        # crops or patches: :func:`h2dlint.analysis.host_io_requests.device_loops`).
        self.keep_looping = False
        # The function whose calls are collected (names its tests read are bound there), and
        # whether the file reads the environment at all (:mod:`env_switches`).
        self.function: cst.FunctionDef | None = None
        self.env_reads = False
        self.depth = 0
        # Closures defined beside the function in the same factory, by name (a patched
        # ``forward`` calling its factory's ``update_loss``).
        self.siblings: dict[str, cst.FunctionDef] = {}
        self._locals: dict[str, list[cst.BaseExpression]] | None = None  # _local_values

    def _counts(self, node: cst.For | cst.While) -> int:
        return 1 if not self.model_loops_only or runs_model(node) else 0

    def visit_For(self, node: cst.For) -> None:
        self.depth += self._counts(node)

    def leave_For(self, original_node: cst.For) -> None:
        self.depth -= self._counts(original_node)

    def visit_While(self, node: cst.While) -> None:
        self.depth += self._counts(node)

    def leave_While(self, original_node: cst.While) -> None:
        self.depth -= self._counts(original_node)

    # With ``keep_looping`` (a host-in, host-out ``__call__``), a comprehension is a loop too:
    # ``[estimate(image, s) for s in scales]`` runs the helper per scale.
    def visit_ListComp(self, node: cst.ListComp) -> None:
        self.depth += self.keep_looping

    def leave_ListComp(self, original_node: cst.ListComp) -> None:
        self.depth -= self.keep_looping

    def visit_SetComp(self, node: cst.SetComp) -> None:
        self.depth += self.keep_looping

    def leave_SetComp(self, original_node: cst.SetComp) -> None:
        self.depth -= self.keep_looping

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> None:
        self.depth += self.keep_looping

    def leave_GeneratorExp(self, original_node: cst.GeneratorExp) -> None:
        self.depth -= self.keep_looping

    def visit_DictComp(self, node: cst.DictComp) -> None:
        self.depth += self.keep_looping

    def leave_DictComp(self, original_node: cst.DictComp) -> None:
        self.depth -= self.keep_looping

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> bool:
        # What follows ``if step % self.save_every: return`` runs once every N calls
        # (:func:`periodic_exit`): the functions it calls are not per step.
        for statement in node.body:
            if isinstance(statement, cst.If) and alias_memo_guard(statement, node):
                # ``cached = getattr(owner, "_w", None)`` then ``if cached is None: ...;
                # owner._w = cached``: the body runs once, what it calls is not per call.
                visit_read_only(statement.test, self)
                if statement.orelse is not None:
                    visit_read_only(statement.orelse, self)
                continue
            visit_read_only(statement, self)
            if periodic_exit(statement):
                break
        return False

    def visit_If(self, node: cst.If) -> bool:
        visit_read_only(node.test, self)
        # A branch that runs only off CUDA (``if x.device.type == "cpu": return
        # self._cpu_forward(x)``, the ``else`` of ``if x.is_cuda:``) is another backend's
        # path: what it calls is not per step on the GPU.
        if (
            not self.once.guard(node, self.cls)
            and not periodic_test(node.test)
            and not periodic_method_gate(node.test, self.cls)
            and not only_off_cuda(node.test)
            and not debug_guard(node.test)
            and not (
                self.env_reads and diagnostic_switch(node.test, self.index.module, self.function)
            )
        ):
            visit_read_only(node.body, self)
        if node.orelse is not None and not holds_on_cuda(node.test):
            visit_read_only(node.orelse, self)
        return False

    def visit_IfExp(self, node: cst.IfExp) -> bool:
        # ``x = self._check_weights() if self.configs.debug else None`` (pypots 1.5's MOMENT
        # backbone, session 50): the debugging arm of a conditional expression, as of an ``if``.
        if debug_guard(node.test) or periodic_test(node.test):
            visit_read_only(node.test, self)
            visit_read_only(node.orelse, self)
            return False
        return True

    def visit_Call(self, node: cst.Call) -> None:
        outside = self.loops_only and not self.depth
        if outside and not self.keep_looping:
            return
        before = len(self.found)
        self._collect(node)
        if outside:
            self.found[before:] = [f for f in self.found[before:] if device_loops_cst(f)]

    def _collect(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Name):
            target = self.siblings.get(func.value) or self.index.functions.get(func.value)
            if target is not None:
                self.found.append(target)
            elif self.function is not None:
                if self._locals is None:
                    self._locals = _local_values(self.function)
                self.found.extend(aliased_functions(self.index, self.function, func, self._locals))
        elif (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value in self.self_names
            and self.cls is not None
        ):
            target = inherited_method(self.index, self.cls, func.attr.value)
            if target is not None:
                self.found.append(target)
            else:
                self.found.extend(stored_functions(self.index, self.cls, func.attr.value))
        elif isinstance(func, cst.Attribute):
            if self.cls is not None:
                self.found.extend(self._attribute_methods(func))
            self.found.extend(dispatched_methods(self.index, self.function, node))
            self.found.extend(local_instance_methods(self.index, self.function, func))

    def _attribute_methods(self, func: cst.Attribute) -> list[cst.FunctionDef]:
        """``self.attr.m`` where the class assigns ``self.attr`` an instance of a class of the
        module (``self.batch = Batch(...)``): that class's ``m``; also through a local name
        every binding of which reads the attribute (``helper = self.helper``,
        :mod:`h2dlint.analysis.attribute_aliases`)."""
        receiver = func.value
        if (
            isinstance(receiver, cst.Attribute)
            and isinstance(receiver.value, cst.Name)
            and receiver.value.value in self.self_names
        ):
            attrs = [receiver.attr.value]
        elif isinstance(receiver, cst.Name) and self.function is not None:
            if self._locals is None:
                self._locals = _local_values(self.function)
            values = self._locals.get(receiver.value, [])
            attrs = aliased_attributes(self.function, receiver.value, values, self.self_names)
        else:
            return []
        found: list[cst.FunctionDef] = []
        for attr in attrs:
            found.extend(self._methods_of_attribute(attr, func.attr.value))
        return found

    def _methods_of_attribute(self, attr: str, name: str) -> list[cst.FunctionDef]:
        assert self.cls is not None
        found = []
        for value, _ in self.index.attributes.get(self.cls).get(attr, ()):
            if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
                klass = self.index.classes.get(value.func.value)
                method = self.index.methods.get(klass, {}).get(name) if klass else None
                if method is not None:
                    found.append(method)
        return found


def aliased_functions(
    index: ModuleIndex,
    function: cst.FunctionDef,
    name: cst.Name,
    locals_: dict[str, list[cst.BaseExpression]],
) -> list[cst.FunctionDef]:
    """The module's functions a call of the local ``name`` runs: ``fn = _grouped_mm`` (also in
    one arm of an ``if`` or a conditional expression, ``fn = _a if fast else _b``) or a
    wrapper of one (``fn = padding_wrapper(_grouped_mm)``, ``partial(_f, n)``), then
    ``fn(...)``, a dispatch a model's forward makes by its configuration. A parameter of that
    name is the caller's to choose, none of these."""
    params = function.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    if any(param.name.value == name.value for param in every):
        return []
    found: list[cst.FunctionDef] = []
    for value in locals_.get(name.value, ()):
        for arm in conditional_arms(value):
            for wrapped in _wrapped_names(arm, locals_, 1):
                target = index.functions.get(wrapped)
                if target is not None and target is not function and target not in found:
                    found.append(target)
    return found


def inherited_method(
    index: ModuleIndex, cls: cst.ClassDef, name: str, depth: int = 0
) -> cst.FunctionDef | None:
    """The method ``self.name(...)`` runs in a method of ``cls``: ``cls``'s own, else one a
    base class of the same module defines (``Translator(Inference)`` calling
    ``self._align_pad_prediction`` that ``Inference`` defines), in the order of the bases."""
    own = index.methods.get(cls, {}).get(name)
    if own is not None or depth > 8:
        return own
    for base in cls.bases:
        value = base.value
        if base.keyword is not None or not isinstance(value, cst.Name):
            continue
        parent = index.classes.get(value.value)
        if parent is None or parent is cls:
            continue
        found = inherited_method(index, parent, name, depth + 1)
        if found is not None:
            return found
    return None


def stored_functions(index: ModuleIndex, cls: cst.ClassDef, attr: str) -> list[cst.FunctionDef]:
    """What ``self.attr(...)`` runs when a method of ``cls`` stores a function it defines on
    ``self.attr``: ``self._call = _call``, or a wrapper of it (``functools.wraps(m)(_call)``,
    ``partial(_call, n)``, ``torch.compile(_step)``), also through one local name bound to
    one (``fn = wraps(m)(_call); self._call_func = fn``). A CUDA graph runner's replay closure,
    defined in ``__init__`` and called from ``__call__``, runs on every call."""
    found: list[cst.FunctionDef] = []
    for value, frame in index.attributes.get(cls).get(attr, ()):
        method = frame.function
        if value is None or not isinstance(method, cst.FunctionDef):
            continue
        local = _local_functions(method)
        if not local:
            continue
        for name in _wrapped_names(value, _local_values(method), 1):
            found.extend(local.get(name, ()))
    return found


def dispatched_methods(
    index: ModuleIndex, function: cst.FunctionDef | None, call: cst.Call
) -> list[cst.FunctionDef]:
    """``step.run(state)`` on an object of unknown class (an item of a list of step objects)
    that is passed an instance of a class of the module (``state = SamplingState(...)`` in
    the caller): the module's methods of that name whose parameter at that place is annotated
    with that class (``def run(self, state: SamplingState)``), one of which the call runs,
    whichever object it is."""
    func = call.func
    if function is None or not isinstance(func, cst.Attribute):
        return []
    name = func.attr.value
    candidates = [methods[name] for methods in index.methods.values() if name in methods]
    if not candidates:
        return []
    local = _local_values(function)
    passed: list[tuple[int, str]] = []  # (position, class name) of arguments made here
    for position, arg in enumerate(call.args):
        if arg.keyword is not None or arg.star:
            break
        if isinstance(arg.value, cst.Name):
            for value in local.get(arg.value.value, ()):
                made = value.func if isinstance(value, cst.Call) else None
                if isinstance(made, cst.Name) and made.value in index.classes:
                    passed.append((position, made.value))
    if not passed:
        return []
    found = []
    for method in candidates:
        params = [*method.params.posonly_params, *method.params.params][1:]  # not ``self``
        if any(
            position < len(params) and _annotated_class(params[position]) == klass
            for position, klass in passed
        ):
            found.append(method)
    return found


def local_instance_methods(
    index: ModuleIndex, function: cst.FunctionDef | None, func: cst.Attribute
) -> list[cst.FunctionDef]:
    """``metadata.set_params(...)`` where every assignment of the local ``metadata`` in the
    function makes an instance of a class of the module (``metadata = MetaData(...)``): that
    class's method, which runs whenever the caller does."""
    receiver = func.value
    if function is None or not isinstance(receiver, cst.Name):
        return []
    name = func.attr.value
    if not any(name in methods for methods in index.methods.values()):
        return []
    params = function.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    if any(param.name.value == receiver.value for param in every):
        return []
    values = _local_values(function).get(receiver.value, [])
    classes = set()
    for value in values:
        made = value.func if isinstance(value, cst.Call) else None
        if not isinstance(made, cst.Name) or made.value not in index.classes:
            return []
        classes.add(made.value)
    found = []
    for klass in sorted(classes):
        method = index.methods.get(index.classes[klass], {}).get(name)
        if method is not None:
            found.append(method)
    return found


def _annotated_class(param: cst.Param) -> str | None:
    """The class name a parameter is annotated with (``state: SamplingState``, also quoted)."""
    if param.annotation is None:
        return None
    annotation = param.annotation.annotation
    if isinstance(annotation, cst.Name):
        return annotation.value
    if isinstance(annotation, cst.SimpleString):
        return annotation.evaluated_value if isinstance(annotation.evaluated_value, str) else None
    return None


def _wrapped_names(
    value: cst.BaseExpression, locals_: dict[str, list[cst.BaseExpression]], hops: int
) -> list[str]:
    """The bare names ``value`` stores or wraps: itself, the positional arguments of a call
    (and of a call that makes the wrapper, ``wraps(m)(f)``), and what a local name is bound
    to (``hops`` times)."""
    if isinstance(value, cst.Name):
        names = [value.value]
        if hops > 0:
            for bound in locals_.get(value.value, ()):
                names.extend(_wrapped_names(bound, locals_, hops - 1))
        return names
    if isinstance(value, cst.Call):
        names = [
            name
            for arg in value.args
            if arg.keyword is None and not arg.star
            for name in _wrapped_names(arg.value, locals_, hops)
        ]
        if isinstance(value.func, cst.Call):
            names.extend(_wrapped_names(value.func, locals_, hops))
        return names
    return []


def _local_functions(method: cst.FunctionDef) -> dict[str, list[cst.FunctionDef]]:
    """The functions defined in ``method``'s own statements (in branches too, not in nested
    functions), by name."""
    found: dict[str, list[cst.FunctionDef]] = {}
    for statement in _statements(method.body):
        if isinstance(statement, cst.FunctionDef):
            found.setdefault(statement.name.value, []).append(statement)
    return found


def _local_values(method: cst.FunctionDef) -> dict[str, list[cst.BaseExpression]]:
    """``name = value`` statements of ``method`` (not in nested functions), by name."""
    found: dict[str, list[cst.BaseExpression]] = {}
    for statement in _statements(method.body):
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.Assign):
                for target in small.targets:
                    if isinstance(target.target, cst.Name):
                        found.setdefault(target.target.value, []).append(small.value)
    return found


# Node classes for :func:`_statements`, tested by ``node.__class__ in ...`` (an ``isinstance``
# of libcst's abstract classes calls ``ABCMeta.__instancecheck__``: see walk.node_classes).
_STATEMENTS = node_classes(cst.BaseStatement)
_DEFINITIONS = node_classes(cst.FunctionDef, cst.ClassDef)
_INNER_BLOCKS = node_classes(cst.BaseSuite, cst.ExceptHandler, cst.Else, cst.Finally, cst.MatchCase)


def _statements(block: cst.BaseSuite) -> list[cst.BaseStatement]:
    """Every statement in ``block`` and the compound statements in it, not inside a nested
    function or class (whose own statements are not the function's)."""
    found: list[cst.BaseStatement] = []
    stack: list[cst.CSTNode] = [block]
    while stack:
        node = stack.pop()
        for name in ("body", "orelse", "handlers", "finalbody", "cases"):
            value = getattr(node, name, None)
            children: Sequence[Any] = value if isinstance(value, (list, tuple)) else [value]
            for child in children:
                kind = child.__class__
                if kind in _STATEMENTS:
                    found.append(child)
                    if kind not in _DEFINITIONS:
                        stack.append(child)
                elif kind in _INNER_BLOCKS:
                    stack.append(child)
    return found


# Calls that run a step of a block's loop: a model or its head (words of the called
# expression, lower case).
STEP_WORK_WORDS = ("transformer", "unet", "denoise", "model", "lm_head", "scheduler.step")

# Words of the called expression that make its "model" a host-side one: a tokenizer's
# (``self.tokenizer_model.decode(...)``, ``llava_model.tokenizer.decode(...)``), a model
# wrapper's token count (``self.model.get_token_len_from_template(prompt)``), a processor's;
# a loop around it decodes or measures text.
HOST_MODEL_WORDS = ("token", "processor")


def runs_model_call(code: str) -> bool:
    """Whether a call of ``code`` (the called expression, lower case) runs a model: one of
    :data:`STEP_WORK_WORDS` and none of :data:`HOST_MODEL_WORDS`. The one test of both sides:
    :func:`runs_model` here, the index's ``while`` loops (``step_loops._model_while``)."""
    return any(word in code for word in STEP_WORK_WORDS) and not any(
        word in code for word in HOST_MODEL_WORDS
    )


class _StepWork(OwnLoopBodyVisitor):
    """Whether a loop's own body (not nested loops, functions or classes) runs a model."""

    def __init__(self) -> None:
        self.found = False
        self.module = cst.Module([])

    def visit_Call(self, node: cst.Call) -> bool:
        if not self.found:
            self.found = runs_model_call(self.module.code_for_node(node.func).lower())
        return not self.found


def runs_model(loop: cst.For | cst.While) -> bool:
    """Whether ``loop``'s own body calls a model (``self.transformer(...)``,
    ``language_model.lm_head(...)``, ``scheduler.step(...)``)."""
    finder = _StepWork()
    visit_read_only(loop.body, finder)
    return finder.found
