"""What each call of a module passes, as far as the module alone can place it: a part of a
module's summary (:mod:`h2dlint.project.summary`) that argument flow reads for the callers of a
function in other modules (:mod:`h2dlint.project.passed_sites`), read with CPython's ``ast``.

Per called name (the last part of the call's function: ``merge`` of ``utils.merge(...)`` and of
``self.merge(...)``), every call of it anywhere in the module: the callee as
:func:`~h2dlint.project.call_edges.call_edges` writes it ("" when the module cannot name it:
``obj.merge(...)`` of an object of unknown class, ``super().merge(...)``), the line, whether it
is made through an object (``self.m(...)``, ``batch.m(...)``: the method's ``self`` is not among
the arguments), and one code per argument (positional as a string, keywords as ``name=code``):

- ``n``: a numpy array (``np.*(...)``, ``t.numpy()``, an array's own ``reshape``/``copy``/...);
- ``l``: Python data (numbers, ``x.tolist()``, displays of host data);
- ``c``: a tensor in pageable host memory (``torch.zeros(n)``, ``torch.randperm(n)``,
  ``torch.tensor(v)`` or ``torch.from_numpy(a)`` without ``device=``, ``t.cpu()``,
  ``t.to("cpu")``);
- ``p``: pinned host memory (a factory with ``pin_memory=True``, ``t.pin_memory()``);
- ``d``: the accelerator (``t.cuda()``, ``t.to("cuda")``, a factory with ``device="cuda"``);
- ``0``: ``None``; ``*``: a ``*args``/``**kwargs`` (what follows it is not known);
- ``?``: anything else.

Only a call that may name a function of another module gets codes (one through an import, not
of :data:`EXTERNAL_PACKAGES`, which are left out); a call of the module's own function or
method, or of an object of unknown class, is recorded for its callee alone (``""`` codes).

A local name is placed by its one reaching assignment when the module can tell it (the last
plain assignment before the call, at the top level of the function's body, none of the name's
other bindings in a loop around the call); a parameter, an attribute or a call's result is ``?``.
"""

from __future__ import annotations

import ast
from collections import deque
from typing import Any

from h2dlint.project.ast_walk import child_nodes, function_nodes, walk
from h2dlint.project.call_edges import _callees, function_receivers, module_names
from h2dlint.project.instance_escapes import escaping_classes
from h2dlint.project.summary import Parts, dotted

# Names followed from a call's argument to their assignments at most.
MAX_NAME_DEPTH = 4
# Factories that make a tensor on the host unless told ``device=``.
_FACTORIES = frozenset(
    {
        "zeros",
        "ones",
        "empty",
        "full",
        "arange",
        "randperm",
        "rand",
        "randn",
        "randint",
        "tensor",
        "linspace",
        "eye",
        "from_numpy",
    }
)
# Methods that keep a tensor where it is, or a numpy array a numpy array.
_KEEPING = frozenset(
    {
        "reshape",
        "view",
        "contiguous",
        "clone",
        "copy",
        "detach",
        "transpose",
        "permute",
        "squeeze",
        "unsqueeze",
        "flatten",
        "ravel",
        "long",
        "int",
        "float",
        "astype",
        "T",
    }
)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
# Packages whose functions a call may name but the summary leaves out (most calls of a module
# are theirs); argument flow does not ask about functions defined in them
# (``passed_sites.remote_sites``).
EXTERNAL_PACKAGES = frozenset(
    {
        "torch",
        "numpy",
        "math",
        "os",
        "sys",
        "re",
        "json",
        "logging",
        "warnings",
        "functools",
        "itertools",
        "collections",
        "typing",
        "inspect",
        "copy",
        "time",
        "random",
        "dataclasses",
        "contextlib",
        "einops",
        "triton",
    }
)


def passed_arguments(tree: ast.Module) -> Parts:
    """The part ``passes``: ``calls`` (name -> ``[callee, line, through_object, positional,
    keywords]`` per call), ``methods`` (class -> the names of the methods it defines),
    ``star`` (whether the module imports ``*``), ``imports`` (local name -> the name it
    imports, as written) and ``objects`` (the calls of objects of a class the module names:
    ``self.sampler(logits)`` of ``self.sampler = Sampler(...)``, ``[class + ".__call__",
    line, the name called, positional, keywords]``)."""
    names = module_names(tree)
    imports = dict(names.imports)
    star, roots, own = names.star, names.roots, names.own
    calls: dict[str, list[list[Any]]] = {}
    functions: set[int] = set()
    objects: list[list[Any]] = []
    for function, _, receivers in function_receivers(tree, names):
        functions.add(id(function))
        nodes = list(function_nodes(function))
        placer = _Placer(function, imports, nodes)
        for node in nodes:
            if type(node) is ast.Call:
                _record(node, calls, imports, roots, receivers, own, placer)
                _record_object(node, objects, receivers, placer)
    # The rest of the module, breadth first as ``ast.walk`` goes, without the functions' nodes
    # (their calls are recorded above): leaving whole subtrees out keeps the others' order.
    module_level = _Placer(None, imports)
    todo: deque[ast.AST] = deque([tree])
    while todo:
        node = todo.popleft()
        if id(node) in functions:
            continue
        todo.extend(child_nodes(node))
        if type(node) is ast.Call:
            _record(node, calls, imports, roots, {}, own, module_level)
    methods = {
        node.name: sorted(
            m.name for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
        )
        for node in tree.body
        if isinstance(node, ast.ClassDef)
    }
    return {
        "calls": calls,
        "methods": methods,
        "star": star,
        "imports": imports,
        "objects": objects,
    }


def object_escapes(tree: ast.Module) -> Parts:
    """The part ``escapes``: ``escapes`` (the classes whose objects the module lets escape,
    :mod:`h2dlint.project.instance_escapes`) and ``made`` (those whose objects it makes and
    keeps); apart from ``passes``, since only a question about an ``nn.Module``'s ``forward``
    reads it."""
    names = module_names(tree)
    escapes, made = escaping_classes(tree, names.roots, names.classes)
    return {"escapes": escapes, "made": made}


def _record_object(
    call: ast.Call, objects: list[list[Any]], receivers: dict[str, list[str]], placer: _Placer
) -> None:
    """A call of an object whose class the module names (its ``__call__``, an ``nn.Module``'s
    ``forward``), with its arguments' codes."""
    written = dotted(call.func)
    found = receivers.get(written) if written is not None else None
    if written is None or not found or len(found) != 1:
        return
    positional, keywords = _codes(call, placer)
    objects.append(
        [found[0] + ".__call__", call.lineno, written.rpartition(".")[2], positional, keywords]
    )


def _codes(call: ast.Call, placer: _Placer) -> tuple[str, str]:
    """The codes of a call's positional and keyword arguments."""
    positional = "".join(
        "*" if isinstance(a, ast.Starred) else placer.code(a, call.lineno) for a in call.args
    )
    keywords = ",".join(
        f"{k.arg}={placer.code(k.value, call.lineno)}" if k.arg else "**=*" for k in call.keywords
    )
    return positional, keywords


def _record(
    call: ast.Call,
    calls: dict[str, list[list[Any]]],
    imports: dict[str, str],
    roots: set[str],
    receivers: dict[str, list[str]],
    own: set[str],
    placer: _Placer,
) -> None:
    func = call.func
    if isinstance(func, ast.Name):
        name = func.id
    elif isinstance(func, ast.Attribute):
        name = func.attr
    else:
        return
    found = _callees(func, roots, receivers, own)
    callee = found[0] if len(found) == 1 else ""
    root = callee.partition(".")[0]
    if root in imports and imports[root].partition(".")[0] in EXTERNAL_PACKAGES:
        return  # ``torch.cat(...)``: no function of the project
    written = dotted(func) or ""
    through_object = ("." in written and written.rpartition(".")[0] in receivers) or (
        bool(found) and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Subscript)
    )  # ``self.metadata[key].update(...)``: an item's method
    positional = keywords = ""
    if callee and not callee.startswith("."):  # a module's own callee is no other's function
        positional, keywords = _codes(call, placer)
    calls.setdefault(name, []).append([callee, call.lineno, through_object, positional, keywords])


class _Placer:
    """Places the expressions of one function (None: the module's own statements)."""

    def __init__(
        self,
        function: ast.FunctionDef | ast.AsyncFunctionDef | None,
        imports: dict[str, str],
        nodes: list[ast.AST] | None = None,
    ) -> None:
        self.function = function
        self.imports = imports
        # The function's nodes in ``ast.walk``'s order, when the caller listed them already.
        self._nodes = nodes
        self._bindings: dict[str, list[tuple[int, ast.expr | None, bool]]] | None = None
        self._loops: list[tuple[int, int]] = []  # the lines of each loop of the function

    def code(self, node: ast.expr, line: int, depth: int = 0) -> str:
        if depth > MAX_NAME_DEPTH:
            return "?"
        if isinstance(node, ast.Constant):
            if node.value is None:
                return "0"
            return "l" if isinstance(node.value, (int, float, bool)) else "?"
        if isinstance(node, (ast.List, ast.Tuple)):
            codes = {self.code(e, line, depth + 1) for e in node.elts}
            return "l" if codes <= {"l", "n", "c"} else "?"
        if isinstance(node, ast.Subscript):
            inner = self.code(node.value, line, depth + 1)
            return inner if inner in ("n", "c", "d", "p") else "?"
        if isinstance(node, ast.Attribute) and node.attr == "T":
            inner = self.code(node.value, line, depth + 1)
            return inner if inner in ("n", "c", "d") else "?"
        if isinstance(node, ast.Name):
            return self._name(node.id, line, depth)
        if isinstance(node, ast.Call):
            return self._call(node, line, depth)
        return "?"

    def _call(self, call: ast.Call, line: int, depth: int) -> str:
        func = call.func
        written = dotted(func)
        if written is not None:
            head, _, rest = written.partition(".")
            full = self.imports.get(head)
            if full is not None:
                qualified = f"{full}.{rest}" if rest else full
                if qualified.startswith("numpy."):
                    return "n"
                if qualified.startswith("torch.") and qualified[6:] in _FACTORIES:
                    if qualified == "torch.tensor" and (
                        not call.args or self.code(call.args[0], line, depth + 1) not in "nl"
                    ):
                        return "?"  # a tensor's data may keep its device
                    return _factory(call)
        if not isinstance(func, ast.Attribute):
            return "?"
        method, receiver = func.attr, func.value
        if method == "numpy" and not call.args:
            return "n"
        if method == "tolist" and not call.args:
            return "l"
        if method == "cpu" and not call.args:
            return "c"
        if method == "cuda":
            return "d"
        if method == "pin_memory" and not call.args:
            return "p"
        if method == "to":
            return _target(call)
        if method in _KEEPING:
            inner = self.code(receiver, line, depth + 1)
            if inner in ("n", "c", "d"):
                return inner
        return "?"

    def _name(self, name: str, line: int, depth: int) -> str:
        if self.function is None:
            return "?"
        bindings = self._all_bindings().get(name)
        if not bindings:
            return "?"  # a global
        if any(at in (line, -1) and value is None for at, value, _ in bindings):
            return "?"  # a loop's name on the call's own line, a comprehension's name
        before = [b for b in bindings if b[0] < line]
        if not before:
            return "?"
        at, value, top = max(before, key=lambda b: b[0])
        if not top or value is None:
            return "?"
        for start, end in self._loops:
            if start <= line <= end and any(start <= b[0] <= end for b in bindings):
                return "?"  # bound again in a loop around the call: another value may reach it
        if isinstance(value, ast.Name) and value.id == name:
            return "?"
        return self.code(value, at, depth + 1)

    def _all_bindings(self) -> dict[str, list[tuple[int, ast.expr | None, bool]]]:
        """Name -> (line, the value of a plain assignment or None, whether that assignment is
        a statement of the body itself); parameters count as bound where the function starts."""
        if self._bindings is not None:
            return self._bindings
        function = self.function
        assert function is not None
        found: dict[str, list[tuple[int, ast.expr | None, bool]]] = {}
        top = {id(s) for s in function.body}

        def bind(target: ast.AST | None, line: int, value: ast.expr | None = None) -> None:
            for leaf in walk(target) if target is not None else ():
                if isinstance(leaf, ast.Name):
                    found.setdefault(leaf.id, []).append((line, value, value is not None))

        arguments = function.args
        for argument in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
            found.setdefault(argument.arg, []).append((function.lineno, None, False))
        for extra in (arguments.vararg, arguments.kwarg):
            if extra is not None:
                found.setdefault(extra.arg, []).append((function.lineno, None, False))
        for node in self._nodes if self._nodes is not None else function_nodes(function):
            if isinstance(node, _LOOPS):
                self._loops.append((node.lineno, node.end_lineno or node.lineno))
            if isinstance(node, ast.Assign):
                plain = len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                kept = node.value if plain and id(node) in top else None
                for target in node.targets:
                    bind(target, node.lineno, kept)
            elif isinstance(node, ast.AnnAssign):
                kept = node.value if id(node) in top else None
                bind(node.target, node.lineno, kept)
            elif isinstance(node, (ast.AugAssign, ast.NamedExpr)):
                bind(node.target, node.lineno)
            elif isinstance(node, (ast.For, ast.AsyncFor)):
                bind(node.target, node.target.lineno)
            elif isinstance(node, ast.comprehension):
                bind(node.target, -1)  # its own scope, wherever the call is: see ``_name``
            elif isinstance(node, ast.withitem):
                bind(node.optional_vars, node.context_expr.lineno)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if node is not function:
                    found.setdefault(node.name, []).append((node.lineno, None, False))
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    local = alias.asname or alias.name.split(".", 1)[0]
                    found.setdefault(local, []).append((node.lineno, None, False))
            elif isinstance(node, ast.ExceptHandler) and node.name:
                found.setdefault(node.name, []).append((node.lineno, None, False))
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                for name in node.names:
                    found.setdefault(name, []).append((0, None, False))
        self._bindings = found
        return found


def _factory(call: ast.Call) -> str:
    """A torch factory's placement: by its ``device=``, ``pin_memory=``."""
    device = next((k.value for k in call.keywords if k.arg == "device"), None)
    pinned = any(
        k.arg == "pin_memory" and isinstance(k.value, ast.Constant) and k.value.value is True
        for k in call.keywords
    )
    if any(k.arg is None for k in call.keywords):
        return "?"
    if device is None:
        return "p" if pinned else "c"
    return _device_code(device, pinned)


def _target(call: ast.Call) -> str:
    """``t.to(...)``: the device it names by a literal (``"cuda"``, ``"cpu"``,
    ``torch.device("cuda")``)."""
    device = next((k.value for k in call.keywords if k.arg == "device"), None)
    if device is None and call.args:
        device = call.args[0]
    return _device_code(device, False) if device is not None else "?"


def _device_code(device: ast.expr, pinned: bool) -> str:
    if isinstance(device, ast.Call) and dotted(device.func) in ("torch.device", "device"):
        device = device.args[0] if device.args else device
    if isinstance(device, ast.Constant) and isinstance(device.value, str):
        text = device.value
        if text == "cpu":
            return "p" if pinned else "c"
        if text.startswith("cuda"):
            return "d"
    return "?"
