"""The calls that carry hotness within a module (:mod:`h2dlint.analysis.hot_paths`): the
functions of the module one function calls, and whether a loop's body runs a model (the step
loop of a per-request entry point)."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.device_branches import holds_on_cuda, only_off_cuda
from h2dlint.analysis.env_switches import diagnostic_switch
from h2dlint.analysis.frames import ModuleIndex
from h2dlint.analysis.once import RunOnce
from h2dlint.analysis.sync_basics import periodic_test
from h2dlint.imports import dotted_name
from h2dlint.walk import visit_read_only

# Words of an ``if`` test whose body is a debugging aid (``if _dump_dir is not None:``,
# ``if self.debug:``): what it calls does not run per step.
DEBUG_GUARD_WORDS = ("debug", "verbose", "dump", "isenabledfor")
_EMPTY = cst.Module(body=[])


def debug_guard(test: cst.BaseExpression) -> bool:
    """Whether an ``if`` test says its body is for debugging (:data:`DEBUG_GUARD_WORDS`)."""
    code = _EMPTY.code_for_node(test).lower()
    return any(word in code for word in DEBUG_GUARD_WORDS)


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
        # The function whose calls are collected (names its tests read are bound there), and
        # whether the file reads the environment at all (:mod:`env_switches`).
        self.function: cst.FunctionDef | None = None
        self.env_reads = False
        self.depth = 0

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

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_If(self, node: cst.If) -> bool:
        visit_read_only(node.test, self)
        # A branch that runs only off CUDA (``if x.device.type == "cpu": return
        # self._cpu_forward(x)``, the ``else`` of ``if x.is_cuda:``) is another backend's
        # path: what it calls is not per step on the GPU.
        if (
            not self.once.guard(node, self.cls)
            and not periodic_test(node.test)
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

    def visit_Call(self, node: cst.Call) -> None:
        if self.loops_only and not self.depth:
            return
        func = node.func
        if isinstance(func, cst.Name):
            target = self.index.functions.get(func.value)
            if target is not None:
                self.found.append(target)
        elif (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value in self.self_names
            and self.cls is not None
        ):
            target = self.index.methods.get(self.cls, {}).get(func.attr.value)
            if target is not None:
                self.found.append(target)
        elif isinstance(func, cst.Attribute) and self.cls is not None:
            self.found.extend(self._attribute_methods(func))

    def _attribute_methods(self, func: cst.Attribute) -> list[cst.FunctionDef]:
        """``self.attr.m`` where the class assigns ``self.attr`` an instance of a class of the
        module (``self.batch = Batch(...)``): that class's ``m``."""
        receiver = func.value
        if not (
            isinstance(receiver, cst.Attribute)
            and isinstance(receiver.value, cst.Name)
            and receiver.value.value in self.self_names
        ):
            return []
        assert self.cls is not None
        found = []
        for value, _ in self.index.attributes.get(self.cls).get(receiver.attr.value, ()):
            if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
                klass = self.index.classes.get(value.func.value)
                method = self.index.methods.get(klass, {}).get(func.attr.value) if klass else None
                if method is not None:
                    found.append(method)
        return found


# Calls that run a step of a block's loop: a model or its head (words of the called
# expression, lower case).
STEP_WORK_WORDS = ("transformer", "unet", "denoise", "model", "lm_head", "scheduler.step")


class _StepWork(cst.CSTVisitor):
    """Whether a loop's own body (not nested loops, functions or classes) runs a model."""

    def __init__(self) -> None:
        self.found = False
        self.module = cst.Module([])

    def visit_For(self, node: cst.For) -> bool:
        return False

    def visit_While(self, node: cst.While) -> bool:
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Call(self, node: cst.Call) -> bool:
        if not self.found:
            code = self.module.code_for_node(node.func).lower()
            self.found = any(word in code for word in STEP_WORK_WORDS)
        return not self.found


def runs_model(loop: cst.For | cst.While) -> bool:
    """Whether ``loop``'s own body calls a model (``self.transformer(...)``,
    ``language_model.lm_head(...)``, ``scheduler.step(...)``)."""
    finder = _StepWork()
    visit_read_only(loop.body, finder)
    return finder.found


# Methods of an ``nn.Module`` that register a function PyTorch calls on every forward (or
# backward) of the module.
HOOK_REGISTRATIONS = frozenset(
    {
        "register_forward_pre_hook",
        "register_forward_hook",
        "register_full_backward_hook",
        "register_full_backward_pre_hook",
    }
)
HOOK_REASON = "a module hook (`{}`): PyTorch runs it on every forward"


class _HookRegistrations(cst.CSTVisitor):
    """Functions of the module registered as module hooks: ``m.register_forward_pre_hook(f)``,
    ``self._hook`` (a method), ``partial(f, ...)``."""

    def __init__(self, index: ModuleIndex) -> None:
        self.index = index
        self.found: dict[cst.FunctionDef, str] = {}
        self.cls: list[cst.ClassDef] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.cls.append(node)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.cls.pop()

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in HOOK_REGISTRATIONS):
            return
        if not node.args or node.args[0].keyword is not None:
            return
        hook = node.args[0].value
        if isinstance(hook, cst.Call) and (dotted_name(hook.func) or "").endswith("partial"):
            hook = hook.args[0].value if hook.args else hook
        function: cst.FunctionDef | None = None
        if isinstance(hook, cst.Name):
            function = self.index.functions.get(hook.value)
        elif (
            isinstance(hook, cst.Attribute)
            and isinstance(hook.value, cst.Name)
            and hook.value.value == "self"
            and self.cls
        ):
            function = self.index.methods.get(self.cls[-1], {}).get(hook.attr.value)
        if function is not None:
            self.found.setdefault(function, HOOK_REASON.format(func.attr.value))


def hook_functions(
    module: cst.Module, source: bytes | str, index: ModuleIndex
) -> dict[cst.FunctionDef, str]:
    """The functions of the module registered as module hooks, with why they are hot."""
    text = source.encode() if isinstance(source, str) else source
    if b"register_f" not in text:
        return {}
    finder = _HookRegistrations(index)
    visit_read_only(module, finder)
    return finder.found
