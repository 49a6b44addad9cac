"""Host-in, host-out wrappers: a ``__call__`` that turns a host image or array into the
model's input and returns the model's result as a numpy array (HTD202).

ControlNet's annotators (depth, line art, segmentation), an infill model's wrapper, an OCR
predictor: ``image = torch.from_numpy(image).to(self.device)``, the model, then
``depth.cpu().numpy()`` for OpenCV or PIL and the return. Such a class is no torch module and
its ``__call__`` is the request: it runs once per image the user sends, takes host data in and
hands host data out, so the copy of the result is its output, not a stall of a step that could
have been queued behind it. Only a copy outside the function's loops (once per call), that
becomes a numpy array (``.cpu().numpy()``, ``.cpu().detach().numpy()``), in a ``__call__``
that itself builds its input from host data (:data:`HOST_INPUTS`), is one. A module's
``forward``, a per-step sampler's ``__call__`` (its inputs are tensors already), and copies in
a loop (per scale, per batch of crops) stay reported. A wrapper split into helper methods
(``__call__`` -> ``self._batch_process(...)`` -> ``self._build_preds(outputs)``, OCR
predictors) is the same request: a copy in a method that ``__call__`` reaches through ``self.``
calls, each outside loops where some call of it is, with a host input made somewhere in the
class, is its output too. Session 37: the same holds for any method of such a class, not
only ``__call__``, whose own body makes its input from host data: iopaint's infill models
(``InpaintModel.forward``, a plain class: ``torch.from_numpy(image).to(self.device)``, the
model, ``cur_res = output[0].permute(1, 2, 0).cpu().numpy()`` for OpenCV), a segmenter's
``predict``. The chain to ``.numpy()`` may pass views, casts, clamps and subscripts.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.class_bases import class_and_base_names, module_subclass
from h2dlint.analysis.evaluation_steps import in_evaluation_hook
from h2dlint.analysis.written_outputs import written_copy
from h2dlint.walk import ReadOnlyVisitor, visit_read_only

# Calls that make a tensor (or an image a transform makes one of) from host data.
HOST_INPUTS = frozenset({"from_numpy", "fromarray", "to_tensor", "ToTensor"})
# Methods a copy's result may pass through on its way to ``.numpy()`` (or into a plot,
# :mod:`plotted_copies`): each keeps it on the host (a view, a cast, an element-wise op), so
# the array is the copy's values.
VALUE_KEEPING_METHODS = frozenset(
    {
        *("detach", "float", "half", "double", "byte", "squeeze", "unsqueeze", "numpy"),
        *("clone", "contiguous", "permute", "transpose", "flatten", "reshape", "view"),
        *("clamp", "clamp_", "round", "to", "type"),
    }
)


def copied_output(path: str, ancestors: Sequence[cst.CSTNode], copy: cst.Call | None) -> bool:
    """Whether a copy to the host below ``ancestors`` (in the module at ``path``) is what its
    code exists to produce: a validation step's outputs for a host metric
    (:func:`in_evaluation_hook`), a post-processor's result (:func:`postprocessor_output`), or
    the result of a host-in, host-out wrapper (:func:`host_io_output`), or data the function
    writes to a file (:func:`written_copy`)."""
    if in_evaluation_hook(ancestors):
        return True
    if copy is not None and postprocessor_output(ancestors, copy, postprocessing_module(path)):
        return True
    if copy is not None and written_copy(ancestors, copy):
        return True
    return copy is not None and host_io_output(ancestors, copy)


# How the name of a post-processor's class (or of one of its bases) ends.
_POSTPROCESSOR_WORDS = ("postprocessor", "postprocess")


def postprocessing_module(path: str) -> bool:
    """Whether the module's file is named for post-processing (``rec_postprocess.py``,
    ``postprocessing.py``, ``post_process.py``): its classes turn a model's output into results
    (``CTCLabelDecode`` in an OCR package's ``rec_postprocess.py``), whatever they are called."""
    stem = path.replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".py")
    return "postprocess" in stem.lower().replace("_", "")


def postprocessor_output(
    ancestors: Sequence[cst.CSTNode], copy: cst.CSTNode, module_named: bool = False
) -> bool:
    """Whether ``copy`` (a copy to the host below ``ancestors``, innermost last) is a
    post-processor's result: in a method of a class named for post-processing (``CTCPostProcessor``,
    ``DBPostProcessor``, or one whose base is; any class where ``module_named``: the module is
    named for post-processing), which is no torch module, and in no loop of the
    method (the outermost ``in`` of a comprehension runs once). Such an object turns a model's
    raw output into what the caller asked for (words, boxes, scores) on the host, once per call
    of the model: the copy is its output, and nothing is queued behind it to stall. DETR's
    ``PostProcess(nn.Module)``, which keeps its work on the device, and a post-processor's
    copies per row or per box stay reported."""
    path = [*ancestors, copy]
    for i in range(len(ancestors) - 1, -1, -1):
        node = ancestors[i]
        if isinstance(node, (cst.For, cst.While, cst.Lambda)):
            return False
        if isinstance(node, (cst.BaseComp, cst.DictComp)):
            # Only the outermost ``in`` of a comprehension is evaluated once.
            outer = node.for_in
            if i + 2 >= len(path) or path[i + 1] is not outer or path[i + 2] is not outer.iter:
                return False
        if isinstance(node, cst.FunctionDef):
            owner = ancestors[i - 2] if i >= 2 else None
            return isinstance(owner, cst.ClassDef) and _postprocessor_class(owner, module_named)
    return False


def _postprocessor_class(cls: cst.ClassDef, module_named: bool) -> bool:
    if module_subclass(cls):
        return False
    names = class_and_base_names(cls)
    return module_named or any(name.lower().endswith(_POSTPROCESSOR_WORDS) for name in names)


def host_io_output(ancestors: Sequence[cst.CSTNode], copy: cst.Call) -> bool:
    """Whether ``copy`` (a ``.cpu()`` below ``ancestors``, innermost last) is the result of a
    host-in, host-out method (see the module): in no loop of the function, turned into a numpy
    array, in a method of a class that is no torch module, whose own body makes a tensor from
    host data (an infill model's ``forward``, a segmenter's ``predict``; session 37), or that
    ``__call__`` reaches once where the class makes one."""
    function: cst.FunctionDef | None = None
    cls: cst.ClassDef | None = None
    for i in range(len(ancestors) - 1, -1, -1):
        node = ancestors[i]
        if isinstance(node, (cst.For, cst.While, cst.BaseComp, cst.DictComp, cst.Lambda)):
            return False
        if isinstance(node, cst.FunctionDef):
            function = node
            owner = ancestors[i - 2] if i >= 2 else None
            cls = owner if isinstance(owner, cst.ClassDef) else None
            break
    if function is None or cls is None or not to_numpy(function, copy):
        return False
    if module_subclass(cls):
        return False
    if function.name.value == "__call__":
        finder = _HostInputs()
        visit_read_only(function.body, finder)
        return finder.found
    if _host_in_then_out(function, copy):
        return True  # any method that takes its input from the host before the copy
    methods = _methods(cls)
    if "__call__" not in methods or function.name.value not in _reached_once(methods):
        return False
    finder = _HostInputs()
    visit_read_only(cls.body, finder)
    return finder.found


def _methods(cls: cst.ClassDef) -> dict[str, cst.FunctionDef]:
    if not isinstance(cls.body, cst.IndentedBlock):
        return {}
    return {s.name.value: s for s in cls.body.body if isinstance(s, cst.FunctionDef)}


def _reached_once(methods: dict[str, cst.FunctionDef]) -> set[str]:
    """The methods ``__call__`` reaches through ``self.name(...)`` calls, where each method on
    the way has a call outside the loops of its caller (once per request, not per step)."""
    reached = {"__call__"}
    todo = ["__call__"]
    while todo:
        finder = _SelfCalls()
        visit_read_only(methods[todo.pop()].body, finder)
        for name in finder.once:
            if name in methods and name not in reached:
                reached.add(name)
                todo.append(name)
    return reached


class _SelfCalls(ReadOnlyVisitor):
    """The names of ``self.name(...)`` calls outside loops, lambdas and nested functions."""

    def __init__(self) -> None:
        self.once: set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
        ):
            self.once.add(func.attr.value)

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, _LOOPS):
            return False
        return super().on_visit(node)


_LOOPS = (cst.For, cst.While, cst.BaseComp, cst.DictComp, cst.Lambda, cst.FunctionDef)


def to_numpy(function: cst.FunctionDef, copy: cst.Call) -> bool:
    """Whether a chain of method calls on ``copy`` in ``function`` ends in ``.numpy()``
    (``x.cpu().numpy()``, ``x.cpu().detach().numpy()``)."""
    finder = _NumpyOf(copy)
    visit_read_only(function.body, finder)
    return finder.found


class _NumpyOf(ReadOnlyVisitor):
    """Whether a ``.numpy`` attribute is reached from ``copy`` through
    :data:`VALUE_KEEPING_METHODS`, ``.data`` and subscripts (``x.cpu()[0].numpy()``)."""

    def __init__(self, copy: cst.Call) -> None:
        self.copy = copy
        self.found = False

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value != "numpy" or self.found:
            return
        current: cst.BaseExpression = node.value
        while True:
            if current is self.copy:
                self.found = True
                return
            if isinstance(current, cst.Call) and isinstance(current.func, cst.Attribute):
                if current.func.attr.value not in VALUE_KEEPING_METHODS:
                    return
                current = current.func.value
            elif isinstance(current, cst.Subscript) or (
                isinstance(current, cst.Attribute) and current.attr.value == "data"
            ):
                current = current.value
            else:
                return


def _base_name(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return node.value if isinstance(node, cst.Name) else ""


def _host_in_then_out(function: cst.FunctionDef, copy: cst.Call) -> bool:
    """Whether ``function``'s body makes a tensor from host data before ``copy`` (in the order
    of its code) and none after it: ``image = torch.from_numpy(image).to(self.device)``, the
    model, then the copy for OpenCV. A ``torch.from_numpy(...)`` after the copy is its way
    back to the device (a round trip through a host library: ``cv2.blur`` of an offset map),
    and such a method stays reported."""
    finder = _HostInputs(copy)
    visit_read_only(function.body, finder)
    return finder.found and not finder.after


class _HostInputs(ReadOnlyVisitor):
    """Whether a body calls one of :data:`HOST_INPUTS` (``found``); given ``copy``, only
    before it, and ``after``: whether one is called after it."""

    def __init__(self, copy: cst.Call | None = None) -> None:
        self.copy = copy
        self.passed = False
        self.found = False
        self.after = False

    def visit_Call(self, node: cst.Call) -> None:
        if node is self.copy:
            self.passed = True

    def leave_Call(self, original_node: cst.Call) -> None:
        # On leaving: ``torch.from_numpy(x.cpu().numpy())`` passes the copy inside it first.
        if _base_name(original_node.func) in HOST_INPUTS:
            if self.passed:
                self.after = True
            else:
                self.found = True
