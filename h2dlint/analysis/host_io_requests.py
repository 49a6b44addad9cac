"""Host-in, host-out ``__call__``s as per-request entry points (:mod:`h2dlint.analysis.hot_paths`).

A class that is no torch module and whose ``__call__`` builds the model's input from host data
(``torch.from_numpy(image)``, ``Image.fromarray(...)``, ``to_tensor(...)``: the names of
:data:`h2dlint.analysis.host_io_calls.HOST_INPUTS`) is the boundary of a request: ControlNet's
annotators (``LeresDetector``, ``MLSDdetector``: a numpy or PIL image in, a PIL image out), an
OCR or depth predictor. It runs once per image the user sends. Its helpers (``estimateleres``,
``pred_lines``) run the model once and copy the result to numpy for OpenCV: the copy is the
request's output, and nothing is queued behind it on the device to stall. Such a ``__call__``
is judged as a pipeline's per-request ``__call__`` is: only the code in its loops (a loop over
scales or crops that runs the model each time) runs per step, and only what it calls from
there is hot through it; a helper without loops that it calls outside its loops runs once per
request. A helper with loops of its own (SAM's mask generator over crops and point batches,
LeReS's boost over patches) may run the model per item, so it stays hot through the
``__call__``, and so does what it calls: its per-mask syncs are still reported.

A per-step callable keeps its ``__call__`` hot: a sampler's or a logits processor's
``__call__`` takes tensors (no host input is built in it), a module's ``__call__`` is
``forward``'s. :func:`host_io_call` answers for a class of the file being checked (libcst),
:func:`host_io_request_call` for a caller in another module (the project index's callers, read
with CPython's ``ast``): only a call made outside the ``__call__``'s loops (the caller's first
call, as the index records it) is a request's call.
"""

from __future__ import annotations

import ast
import builtins
from typing import TYPE_CHECKING, Any

import libcst as cst

from h2dlint.analysis.class_bases import module_subclass
from h2dlint.analysis.host_io_calls import HOST_INPUTS
from h2dlint.analysis.names import call_name
from h2dlint.project.summary import LOOP_NODES, top_functions
from h2dlint.walk import ReadOnlyVisitor, visit_read_only

if TYPE_CHECKING:
    from h2dlint.project.caller_scans import Caller
    from h2dlint.project.index import ProjectIndex

_Ranges = list[list[int]]


def host_io_call(cls: cst.ClassDef, function: cst.FunctionDef) -> bool:
    """Whether ``function`` is the ``__call__`` of ``cls``, a class that is no torch module, and
    builds a tensor (or an image) from host data in its body."""
    if function.name.value != "__call__" or module_subclass(cls):
        return False
    finder = _HostInputs()
    visit_read_only(function.body, finder)
    return finder.found


class _HostInputs(ReadOnlyVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_Call(self, node: cst.Call) -> None:
        if call_name(node) in HOST_INPUTS:
            self.found = True


def host_io_request_call(project: ProjectIndex, caller: Caller, callee: str) -> bool:
    """Whether ``caller`` (a function of another module that calls ``callee``, a qualified
    name) is a host-in, host-out ``__call__`` that makes its call outside its own loops, once
    per request, and ``callee`` has no loop of its own. A helper with loops (SAM's mask
    generator over crops and point batches, LeReS's boost over patches) may run the model per
    item: it stays hot through the ``__call__``, as before."""
    if caller.name != "__call__" or caller.cls is None:
        return False
    if any(base.endswith("Module") for base in caller.bases):
        return False
    index = project.caller_index()
    found = index.tree_part(caller.module, "host_io_calls", _host_io_calls)
    loops = (found or {}).get(caller.cls)
    if loops is None or any(first <= caller.line <= last for first, last in loops):
        return False
    from h2dlint.project.call_resolution import defining_module

    home = defining_module(callee, project)
    looping = index.tree_part(home, "looping_functions", _looping_functions)
    return looping is not None and callee[len(home) + 1 :] not in looping


def _host_io_calls(tree: ast.Module) -> dict[str, Any]:
    """Per top-level class (no base named ``...Module``) whose ``__call__`` builds a tensor
    from host data: the line ranges of the loops in that ``__call__`` (comprehensions and
    lambdas count as loops, and so do nested functions: where they run is not followed)."""
    found: dict[str, _Ranges] = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        if any(ast.unparse(base).endswith("Module") for base in node.bases):
            continue
        for member in node.body:
            if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                member.name == "__call__" and _builds_host_input(member)
            ):
                found[node.name] = _loops(member)
    return found


def _looping_functions(tree: ast.Module) -> list[str]:
    """The top-level functions and methods of top-level classes (``name``, ``Class.name``)
    with a loop that may run a model (:func:`device_loops`)."""
    return [
        f"{cls}.{function.name}" if cls else function.name
        for function, cls in top_functions(tree)
        if device_loops(function)
    ]


# Host libraries whose calls in a loop do host work (post-processing on numpy data).
HOST_LIBRARIES = frozenset(
    {"np", "numpy", "cv2", "math", "random", "re", "itertools", "json", "os", "Image", "PIL"}
)
# Methods of Python containers, strings and numpy arrays that a host loop calls.
HOST_METHODS = frozenset(
    {
        "append", "extend", "insert", "pop", "add", "update", "items", "keys", "values",
        "get", "copy", "sort", "index", "count", "format", "join", "split", "strip",
        "astype", "reshape", "tolist", "transpose", "flatten", "ravel", "round",
    }
)  # fmt: skip
_BUILTINS = frozenset(dir(builtins))


def device_loops(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a loop or comprehension of ``function`` calls something other than host work:
    Python's builtins, :data:`HOST_LIBRARIES` and :data:`HOST_METHODS` (MLSD's loop over the
    decoded line centres). A call of a project function, a method of ``self``, a model held
    in a variable or a torch function may run the model per item (SAM's loop over point
    batches calls ``self._process_batch``)."""
    for node in ast.walk(function):
        if isinstance(node, _LOOPS) and not isinstance(node, ast.Lambda):
            for call in ast.walk(node):
                if isinstance(call, ast.Call) and not _host_call(call.func):
                    return True
    return False


def _host_call(func: ast.expr) -> bool:
    if isinstance(func, ast.Name):
        return func.id in _BUILTINS
    if not isinstance(func, ast.Attribute):
        return False
    root: ast.expr = func
    while isinstance(root, ast.Attribute):
        root = root.value
    if isinstance(root, ast.Name) and root.id in HOST_LIBRARIES:
        return True
    return func.attr in HOST_METHODS


def device_loops_cst(function: cst.FunctionDef) -> bool:
    """:func:`device_loops` of a function of the file being checked, read from its libcst tree
    (no second parse of the file's code)."""
    finder = _DeviceLoops()
    visit_read_only(function, finder)
    return finder.found


_CST_LOOPS = (cst.For, cst.While, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


class _DeviceLoops(ReadOnlyVisitor):
    """A call other than host work (:func:`_host_call`'s, on libcst nodes) inside a loop or a
    comprehension."""

    def __init__(self) -> None:
        self.loops = 0
        self.found = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, _CST_LOOPS):
            self.loops += 1
        elif self.loops and isinstance(node, cst.Call) and not _host_call_cst(node.func):
            self.found = True
        return not self.found

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if isinstance(original_node, _CST_LOOPS):
            self.loops -= 1


def _host_call_cst(func: cst.BaseExpression) -> bool:
    if isinstance(func, cst.Name):
        return func.value in _BUILTINS
    if not isinstance(func, cst.Attribute):
        return False
    root: cst.BaseExpression = func
    while isinstance(root, cst.Attribute):
        root = root.value
    if isinstance(root, cst.Name) and root.value in HOST_LIBRARIES:
        return True
    return func.attr.value in HOST_METHODS


def _builds_host_input(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            func = node.func
            name = (
                func.attr
                if isinstance(func, ast.Attribute)
                else func.id
                if isinstance(func, ast.Name)
                else ""
            )
            if name in HOST_INPUTS:
                return True
    return False


# Loops and comprehensions, and lambdas (where they run is not followed).
_LOOPS = (*LOOP_NODES, ast.Lambda)


def _loops(function: ast.FunctionDef | ast.AsyncFunctionDef) -> _Ranges:
    return [
        [node.lineno, node.end_lineno or node.lineno]
        for node in ast.walk(function)
        if isinstance(node, _LOOPS)
        or (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node is not function)
    ]
