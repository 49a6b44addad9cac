"""A request's result handed to host code: ``return probs.cpu().numpy()`` at the end of a VAD
model's ``forward``, ``return Image.fromarray(x.cpu().numpy())`` in a compositor (HTD202).

When the device of the copied tensor is unknown (HTD202's MEDIUM kind), a host copy whose value
the function returns *and* turns into host data (numpy, a PIL image, an OpenCV or soundfile
array) is the function's product for host code, not a read of a step that could have stayed on
the device: its callers need the values on the host, and a per-step function hands tensors
back (or the Python ids of ``.tolist()``, which stays reported: a sampler's token ids). Session
38 (outputs38b) measured the shape on the labelled rows (docs/precision.md): it is the one
variant of the "output" class that drops no upstream-fix positive and, of the labelled rows it
reaches, only false ones (matting and VAD wrappers, a compositor, an image model's finished
image); returned alone, or numpy alone, or ``.tolist()``, drop true rows as often as false.

All of: the copy is ``.cpu()``/``.to(...)`` (not ``.tolist()``); outside every loop,
comprehension and lambda of its function; its statement returns it, or binds one name that a
``return`` of the function hands back as it is (alone or in a tuple); it reaches ``.numpy()``
or is an argument of a host library's call; the function is not hot by its name
(:func:`hot_names.name_reason`, and the words of per-step work below), not a method of a loss,
criterion or trainer class (run per training step), and no loop of its own module calls a
function of its name. A ``forward``/``__call__`` counts: the objects that call it are not
resolved, so this is a shape rule, kept to device-unknown copies (a proven device copy stays
HIGH or MEDIUM as before) in functions hot by themselves: HTD202 does not ask it where the
function is hot only as the callee of a hot function (``called from `Model.forward()` ``, a
converter helper of another module): there the callers decide, and they run per step.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import libcst as cst

from h2dlint.analysis.host_io_calls import to_numpy
from h2dlint.analysis.hot_names import name_reason
from h2dlint.analysis.returns import ReturnedValues
from h2dlint.walk import ReadOnlyVisitor, holds, visit_read_only

# Host libraries whose calls take the copy as host data.
_HOST_LIBRARIES = frozenset(
    {"np", "numpy", "cv2", "Image", "PIL", "sf", "soundfile", "imageio", "librosa", "pyworld"}
)
# Words of names of functions that run per step (the brief's list, wider than ``name_reason``).
_PER_STEP_WORDS = frozenset(
    {
        "step", "sample", "sampler", "sampling", "decode", "decoding", "generate",
        "generation", "execute", "prepare", "denoise", "update", "train", "training",
        "loss", "backward", "compute",
    }
)  # fmt: skip
# Words of class names whose methods run per training step.
_TRAINING_CLASS_WORDS = ("loss", "criterion", "trainer")
_PER_ITEM = (cst.Lambda, cst.For, cst.While, cst.BaseComp, cst.DictComp)


def request_output(ancestors: Sequence[cst.CSTNode], copy: cst.Call) -> bool:
    """Whether the host copy ``copy`` (below ``ancestors``, innermost last) of a tensor on an
    unknown device is a request's result handed to host code (see the module)."""
    if not isinstance(copy.func, cst.Attribute) or copy.func.attr.value == "tolist":
        return False
    statement: cst.BaseSmallStatement | None = None
    for i in range(len(ancestors) - 1, -1, -1):
        node = ancestors[i]
        if isinstance(node, _PER_ITEM):
            return False
        if statement is None and isinstance(node, cst.BaseSmallStatement):
            statement = node
            if not _as_it_is([*ancestors[i + 1 :], copy]):
                return False
        if isinstance(node, cst.FunctionDef):
            owner = ancestors[i - 2] if i >= 2 else None
            break
    else:
        return False
    function = node
    if statement is None or _hot_name(function, owner):
        return False
    if not (_returned(function, statement, copy) and _host_data(function, statement, copy)):
        return False
    module = ancestors[0]
    return function.name.value in ("forward", "__call__") or not _called_in_loop(
        module, function.name.value
    )


def _as_it_is(path: Sequence[cst.CSTNode]) -> bool:
    """Whether the copy (``path[-1]``) reaches its statement (above ``path[0]``) as it is:
    through method calls on it (``.numpy().astype(...)``), subscripts, operators, the elements
    of a tuple or list, and the arguments of a host library's call (``Image.fromarray(...)``),
    not as the argument of another call (``self.sample_on_host(x.cpu().numpy())``: that call
    decides what is returned)."""
    for parent, child in pairwise(path):
        if isinstance(parent, cst.Call):
            if child is not parent.func and _root(parent.func) not in _HOST_LIBRARIES:
                return False
        elif not isinstance(
            parent,
            (
                cst.Attribute, cst.Subscript, cst.SubscriptElement, cst.Index, cst.Arg,
                cst.Element, cst.Tuple, cst.List, cst.BinaryOperation, cst.UnaryOperation,
            ),
        ):  # fmt: skip
            return False
    return True


def _hot_name(function: cst.FunctionDef, owner: cst.CSTNode | None, caller: bool = False) -> bool:
    """Whether ``function`` runs per step by its name or its class's; a ``forward`` or
    ``__call__`` does not by its name alone, except as a ``caller``."""
    name = function.name.value
    method = isinstance(owner, cst.ClassDef)
    if isinstance(owner, cst.ClassDef):
        cls = owner.name.value.lower()
        if any(word in cls for word in _TRAINING_CLASS_WORDS):
            return True
    if name in ("forward", "__call__"):
        return caller
    words = {word for word in name.lower().split("_") if word}
    return name_reason(name, method) is not None or bool(words & _PER_STEP_WORDS)


def _returned(function: cst.FunctionDef, statement: cst.BaseSmallStatement, copy: cst.Call) -> bool:
    """The copy's statement returns it, or binds one name a ``return`` hands back as it is."""
    if isinstance(statement, cst.Return):
        return statement.value is not None
    if not (
        isinstance(statement, cst.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0].target, cst.Name)
    ):
        return False
    name = statement.targets[0].target.value
    returns = ReturnedValues()
    visit_read_only(function.body, returns)
    for value in returns.values:
        elements = value.elements if isinstance(value, (cst.Tuple, cst.List)) else ()
        if any(
            isinstance(v, cst.Name) and v.value == name
            for v in [value, *(e.value for e in elements)]
        ):
            return True
    return False


def _host_data(
    function: cst.FunctionDef, statement: cst.BaseSmallStatement, copy: cst.Call
) -> bool:
    """The copy reaches ``.numpy()`` or is an argument of a host library's call."""
    listed = _Listed(copy)
    visit_read_only(statement, listed)
    if listed.found:
        return False  # ``ids.cpu().numpy().tolist()``: Python ids, as a sampler's
    if to_numpy(function, copy):
        return True
    calls = _HostCalls(copy)
    visit_read_only(statement, calls)
    return calls.found


def _root(node: cst.BaseExpression) -> str:
    while isinstance(node, (cst.Attribute, cst.Call, cst.Subscript)):
        node = node.func if isinstance(node, cst.Call) else node.value
    return node.value if isinstance(node, cst.Name) else ""


class _HostCalls(ReadOnlyVisitor):
    """Whether ``copy`` is inside an argument of a host library's call."""

    def __init__(self, copy: cst.Call) -> None:
        self.copy = copy
        self.found = False

    def visit_Call(self, node: cst.Call) -> bool:
        if self.found or _root(node.func) not in _HOST_LIBRARIES:
            return True
        self.found = any(holds(argument.value, self.copy) for argument in node.args)
        return True


class _Listed(ReadOnlyVisitor):
    """Whether a ``.tolist()`` is taken of an expression that holds ``copy``."""

    def __init__(self, copy: cst.Call) -> None:
        self.copy = copy
        self.found = False

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value == "tolist" and not self.found:
            self.found = holds(node.value, self.copy)


def _called_in_loop(module: cst.CSTNode, name: str) -> bool:
    """Whether ``module`` calls a function named ``name`` (``name(...)`` or ``obj.name(...)``)
    in a loop, comprehension or lambda, or in a function hot by its name (a metric's
    ``update``, an environment's ``step``)."""
    calls = _LoopedCalls(name)
    visit_read_only(module, calls)
    return calls.found


class _LoopedCalls(ReadOnlyVisitor):
    def __init__(self, name: str) -> None:
        self.name = name
        self.depth = 0
        self.functions: list[tuple[cst.FunctionDef, bool]] = []
        self.classes: list[cst.ClassDef] = []
        self.found = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.found:
            return False
        if isinstance(node, _PER_ITEM):
            self.depth += 1
        elif isinstance(node, cst.ClassDef):
            self.classes.append(node)
        elif isinstance(node, cst.FunctionDef):
            owner = self.classes[-1] if self.classes else None
            self.functions.append((node, _hot_name(node, owner, caller=True)))
        elif isinstance(node, cst.Call):
            func = node.func
            called = func.attr.value if isinstance(func, cst.Attribute) else None
            if isinstance(func, cst.Name):
                called = func.value
            hot = bool(self.functions) and self.functions[-1][1]
            self.found = called == self.name and (self.depth > 0 or hot)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if self.found:
            return  # nodes skipped after the find were never pushed
        if isinstance(original_node, _PER_ITEM):
            self.depth -= 1
        elif isinstance(original_node, cst.ClassDef):
            self.classes.pop()
        elif isinstance(original_node, cst.FunctionDef):
            self.functions.pop()
