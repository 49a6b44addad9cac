"""Functions PyTorch calls on every forward, backward or optimizer step because the module
registers them as hooks, or installs them as a module's ``forward`` (:mod:`hot_paths`).

A hook is found by the function a registration call is given:

- a function of the module by its name: a top-level function, or one nested in a function
  around the registration (``def hook(layer, ins, outs): ...`` then
  ``block.register_forward_hook(hook)`` in the same function, whisper-timestamped's way);
- a method, ``self._hook``; ``partial(f, ...)`` of either;
- a lambda: the functions its body calls (``lambda m, i, o, k=j: record(m, i, o, k)``);
- a factory's call (``register_forward_hook(make_hook(name))``): the closures the factory
  defines and returns.

Registrations are the module hooks (forward, forward-pre, backward), the global module hooks
(``register_module_forward_hook``), a tensor's gradient hooks (``t.register_hook(f)``,
``register_post_accumulate_grad_hook``) and an optimizer's step hooks. Hooks of loading and
saving (``register_load_state_dict_post_hook``) run once and are not among them.
"""

from __future__ import annotations

import re

import libcst as cst

from h2dlint.analysis.frames import ModuleIndex
from h2dlint.analysis.hot_names import offline_class
from h2dlint.analysis.op_kernels import op_kernels
from h2dlint.imports import dotted_name
from h2dlint.walk import visit_read_only

# Methods that register a function PyTorch calls on every forward (or backward, or optimizer
# step) of a module, tensor or optimizer; the ``register_module_*`` ones for every module.
HOOK_REGISTRATIONS = frozenset(
    {
        "register_forward_pre_hook",
        "register_forward_hook",
        "register_full_backward_hook",
        "register_full_backward_pre_hook",
        "register_backward_hook",
        "register_module_forward_pre_hook",
        "register_module_forward_hook",
        "register_module_full_backward_hook",
        "register_module_full_backward_pre_hook",
        "register_hook",
        "register_post_accumulate_grad_hook",
        "register_step_pre_hook",
        "register_step_post_hook",
    }
)
HOOK_REASON = "a hook (`{}`): PyTorch runs it on every forward or backward"
_REGISTERS = re.compile(rb"register_\w*hook\s*\(")
# Attributes a function assigned to (``Model.forward = f``) is called through on every call.
INSTALLED_SLOTS = frozenset({"forward", "__call__"})
_INSTALLED = re.compile(rb"\.(?:forward|__call__)\s*=[^=]")
INSTALLED_REASON = "installed as `{}`: it runs on every call of the module"


class _HookRegistrations(cst.CSTVisitor):
    """Functions of the module registered as hooks (see the module docs); and those installed
    as a module's forward (``Model.forward = f``, ``m.forward = types.MethodType(f, m)``)."""

    def __init__(self, index: ModuleIndex, parents: dict[cst.FunctionDef, cst.FunctionDef]) -> None:
        self.index = index
        self.found: dict[cst.FunctionDef, str] = {}
        self.cls: list[cst.ClassDef] = []
        self.functions: list[cst.FunctionDef] = []
        # Function -> the functions defined directly in it, by name.
        self.children: dict[cst.FunctionDef, dict[str, cst.FunctionDef]] = {}
        for child, parent in parents.items():
            self.children.setdefault(parent, {})[child.name.value] = child

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.cls.append(node)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.cls.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.functions.pop()

    def _named(self, name: str) -> cst.FunctionDef | None:
        """The function ``name`` means here: one defined in a function around (innermost
        first), else a top-level one."""
        for function in reversed(self.functions):
            found = self.children.get(function, {}).get(name)
            if found is not None:
                return found
        return self.index.functions.get(name)

    def _resolve(self, hook: cst.BaseExpression) -> list[cst.FunctionDef]:
        if isinstance(hook, cst.Call) and (dotted_name(hook.func) or "").endswith("partial"):
            hook = hook.args[0].value if hook.args else hook
        if isinstance(hook, cst.Name):
            function = self._named(hook.value)
            return [function] if function is not None else []
        if (
            isinstance(hook, cst.Attribute)
            and isinstance(hook.value, cst.Name)
            and hook.value.value == "self"
            and self.cls
        ):
            method = self.index.methods.get(self.cls[-1], {}).get(hook.attr.value)
            return [method] if method is not None else []
        if isinstance(hook, cst.Lambda):
            return [f for call in _calls(hook.body) for f in self._resolve(call.func)]
        if isinstance(hook, cst.Call):
            factories = self._resolve(hook.func)
            return [f for factory in factories for f in _returned_closures(factory, self)]
        return []

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        name = func.attr.value if isinstance(func, cst.Attribute) else dotted_name(func)
        name = (name or "").rpartition(".")[2]
        if name not in HOOK_REGISTRATIONS:
            return
        hook = next((a.value for a in node.args if a.keyword is None), None)
        if hook is None:
            hook = next((a.value for a in node.args if _keyword(a) == "hook"), None)
        if hook is None:
            return
        for function in self._resolve(hook):
            self.found.setdefault(function, HOOK_REASON.format(name))

    def visit_Assign(self, node: cst.Assign) -> None:
        # ``Model.forward = __patch__Model_forward__``: the module's forward from now on.
        value = node.value
        if isinstance(value, cst.Call) and value.args:
            name = dotted_name(value.func) or ""
            if not name.endswith(("partial", "MethodType")):
                return
            value = value.args[0].value
        if not isinstance(value, cst.Name):
            return
        function = self.index.functions.get(value.value)
        if function is None:
            return
        for target in node.targets:
            slot = target.target
            if isinstance(slot, cst.Attribute) and slot.attr.value in INSTALLED_SLOTS:
                shown = dotted_name(slot) or slot.attr.value
                self.found.setdefault(function, INSTALLED_REASON.format(shown))


def _keyword(arg: cst.Arg) -> str | None:
    return arg.keyword.value if arg.keyword is not None else None


class _Calls(cst.CSTVisitor):
    """The calls in a lambda's body (not in a lambda inside it)."""

    def __init__(self) -> None:
        self.found: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.found.append(node)

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


def _calls(node: cst.CSTNode) -> list[cst.Call]:
    finder = _Calls()
    visit_read_only(node, finder)
    return finder.found


class _Returns(cst.CSTVisitor):
    """The functions of ``children`` a function returns by name (not a nested one's returns)."""

    def __init__(self, children: dict[str, cst.FunctionDef]) -> None:
        self.children = children
        self.found: list[cst.FunctionDef] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Return(self, node: cst.Return) -> None:
        value = node.value
        if isinstance(value, cst.Name) and value.value in self.children:
            self.found.append(self.children[value.value])


def _returned_closures(
    factory: cst.FunctionDef, registrations: _HookRegistrations
) -> list[cst.FunctionDef]:
    """The functions defined directly in ``factory`` that it returns by name."""
    children = registrations.children.get(factory)
    if not children:
        return []
    finder = _Returns(children)
    visit_read_only(factory.body, finder)
    return finder.found


def hook_functions(
    module: cst.Module,
    source: bytes | str,
    index: ModuleIndex,
    parents: dict[cst.FunctionDef, cst.FunctionDef],
) -> dict[cst.FunctionDef, str]:
    """The functions of the module registered as hooks or installed as a module's forward,
    with why they are hot (``parents``: each nested function -> the function around it)."""
    text = source.encode() if isinstance(source, str) else source
    if _REGISTERS.search(text) is None and _INSTALLED.search(text) is None:
        return {}
    finder = _HookRegistrations(index, parents)
    visit_read_only(module, finder)
    return finder.found


def registered_functions(
    module: cst.Module,
    source: bytes | str,
    index: ModuleIndex,
    parents: dict[cst.FunctionDef, cst.FunctionDef],
    file_name: str,
) -> dict[cst.FunctionDef, str]:
    """What something else calls on every step, with why: the hooks of :func:`hook_functions`
    and the operators registered as kernels (:func:`op_kernels`), except ONNX/export-only
    operators (an offline class's name, or the module's)."""
    registered = hook_functions(module, source, index, parents)
    stem = file_name.rpartition("/")[2].removesuffix(".py")
    for function, reason in op_kernels(module, source, index).items():
        if not offline_class(function.name.value) and not offline_class(stem):
            registered.setdefault(function, reason)
    return registered
