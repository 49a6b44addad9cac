"""Devices chosen between the host and an accelerator, and the tensors placed by such a choice.

``device = torch.device("cpu" if backend == "gloo" else "cuda")`` (detectron2's ``comm.py``,
copied into yolox, effdet, maskrcnn-benchmark and many more) picks the host on one path and the
GPU on the other: what the name ``device`` says proves nothing (session 40,
``targets._either``). The choice travels: ``t = x.to(device=device)``, a helper returning
``t``, a parameter every call passes ``t``, ``t.device``, ``torch.zeros(n, device=t.device)``,
``t.new_zeros(n)``, ``torch.cat((t, pad))``. Each of them is as unknown as the choice, whatever
the names around them say (session 41: detectron2's ``all_gather`` size lists, read per rank,
are host tensors on the default gloo group). :func:`chosen` says whether an expression is such
a device or such a tensor; :mod:`~h2dlint.analysis.targets` then leaves its device unknown
where a name (``device``, ``tensor.device``) would have said "device".

A test of whether a GPU is there (``"cuda" if torch.cuda.is_available() else "cpu"``, ``if
backend == "nccl"``) is no such choice: it picks the GPU wherever there is one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.returns import returned_values
from h2dlint.analysis.torch_api import DTYPE_NAMES, HOST_DEVICE_PREFIXES
from h2dlint.context import SharedKey

if TYPE_CHECKING:
    from h2dlint.analysis.fact_source import FactSource

MAX_DEPTH = 12
# Methods whose result is on the tensor's own device.
_KEEPING = frozenset(
    {
        "view",
        "reshape",
        "contiguous",
        "clone",
        "detach",
        "flatten",
        "squeeze",
        "unsqueeze",
        "float",
        "half",
        "bfloat16",
        "double",
        "long",
        "int",
        "byte",
        "bool",
        "narrow",
        "expand",
    }
)
_JOINS = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.stack"})
_LIKE = frozenset({"torch.zeros_like", "torch.ones_like", "torch.empty_like", "torch.full_like"})
_CHOSEN: SharedKey[dict[tuple[cst.CSTNode, Frame], bool]] = SharedKey("chosen devices")


def chosen(provenance: FactSource, node: cst.BaseExpression, frame: Frame, depth: int = 0) -> bool:
    """Whether ``node`` (a device, or a tensor) is placed by a choice between the host and a
    device, written as values under a test that is not about the GPU's presence."""
    if depth > MAX_DEPTH:
        return False
    memo = provenance.context.shared(_CHOSEN, dict)
    key = (node, frame)
    found = memo.get(key)
    if found is None:
        memo[key] = False  # a cycle (a name rebound from itself in a loop) proves nothing
        found = memo[key] = _chosen(provenance, node, frame, depth)
    return found


def _chosen(provenance: FactSource, node: cst.BaseExpression, frame: Frame, depth: int) -> bool:
    if isinstance(node, cst.IfExp):
        return _literal_choice(provenance, node)
    if isinstance(node, cst.Name):
        return _name(provenance, node, frame, depth)
    if isinstance(node, cst.Attribute):
        if node.attr.value == "device":  # ``t.device`` of a tensor placed by a choice
            return chosen(provenance, node.value, frame, depth + 1)
        return False
    if isinstance(node, cst.Subscript):  # a row or slice of such a tensor
        return chosen(provenance, node.value, frame, depth + 1)
    if isinstance(node, cst.Call):
        return _call(provenance, node, frame, depth)
    return False


def _literal_choice(provenance: FactSource, node: cst.IfExp) -> bool:
    """``"cpu" if backend == "gloo" else "cuda"`` (or ``torch.device(...)`` of each arm)."""
    arms = {_literal_place(provenance, arm) for arm in (node.body, node.orelse)}
    return arms == {"host", "device"} and not gpu_test(node.test)


def gpu_test(test: cst.BaseExpression) -> bool:
    """Whether a condition asks for the GPU's presence: it names CUDA, a GPU or NCCL."""
    words = cst.Module([]).code_for_node(test).lower()
    return any(word in words for word in ("cuda", "gpu", "nccl"))


def device_string(node: cst.BaseExpression) -> str | None:
    """The text of a device written as a string (an f-string's leading text: ``f"cuda:{i}"``)."""
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    if isinstance(node, cst.FormattedString):
        head = node.parts[0] if node.parts else None
        if isinstance(head, cst.FormattedStringText):
            return head.value
    return None


def _literal_place(provenance: FactSource, node: cst.BaseExpression) -> str | None:
    """ "host" or "device" for a device written as a value (``"cpu"``, ``torch.device("cuda")``);
    None for anything else (a parameter ``device`` that a ``None`` test falls back from)."""
    if (
        isinstance(node, cst.Call)
        and node.args
        and node.args[0].keyword is None
        and provenance.qualify(node.func) == "torch.device"
    ):
        node = node.args[0].value
    text = device_string(node)
    if text is None:
        return None
    return "host" if text.startswith(HOST_DEVICE_PREFIXES) else "device"


def _name(provenance: FactSource, node: cst.Name, frame: Frame, depth: int) -> bool:
    bindings = provenance.bindings(frame)
    reaching = bindings.reaching_bindings(node)
    if not reaching:
        return False
    for binding in reaching:
        value = binding.value
        if value is None and binding.statement is bindings.root:
            if not _passed(provenance, node, frame, depth):  # the parameter, as called
                return False
        elif value is None:
            unpacked = _unpacked(provenance, binding.statement, node.value, frame, depth)
            if unpacked is None or not chosen(*unpacked, depth + 1):
                return False
        elif not chosen(provenance, value, frame, depth + 1):
            return False
    return True


def _passed(provenance: FactSource, node: cst.Name, frame: Frame, depth: int) -> bool:
    """A parameter every call (at least one, all in the module) passes a chosen value."""
    from h2dlint.analysis.constructions import passed_or_constructed

    function = frame.function
    if not isinstance(function, cst.FunctionDef):
        return False
    found = passed_or_constructed(provenance, function, node.value)
    if found is None or not found.local or found.remote:
        return False
    return all(chosen(a.source, a.value, a.frame, depth + 1) for a in found.local)


def _unpacked(
    provenance: FactSource, statement: cst.CSTNode, name: str, frame: Frame, depth: int
) -> tuple[FactSource, cst.BaseExpression, Frame] | None:
    """``size_list, tensor = _pad(tensor, group)``: the value ``_pad``'s one ``return`` display
    gives ``tensor``'s position, in ``_pad``'s frame."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if not isinstance(assign, cst.Assign) or not isinstance(assign.value, cst.Call):
        return None
    targets = [t.target for t in assign.targets if isinstance(t.target, (cst.Tuple, cst.List))]
    if len(targets) != 1 or any(isinstance(e, cst.StarredElement) for e in targets[0].elements):
        return None
    names = [e.value.value if isinstance(e.value, cst.Name) else None for e in targets[0].elements]
    callee = provenance.callee(assign.value, frame, depth + 1)
    if name not in names or callee is None:
        return None
    source, function = callee
    values = returned_values(function)
    if len(values) != 1 or not isinstance(values[0], (cst.Tuple, cst.List)):
        return None
    elements = values[0].elements
    if len(elements) != len(names) or any(isinstance(e, cst.StarredElement) for e in elements):
        return None
    return source, elements[names.index(name)].value, source.index.frame_of(function)


def _call(provenance: FactSource, node: cst.Call, frame: Frame, depth: int) -> bool:
    func = node.func
    device = next(
        (a.value for a in node.args if a.keyword is not None and a.keyword.value == "device"),
        None,
    )
    if device is not None:  # ``torch.zeros(n, device=d)``, ``x.to(device=d)``
        return chosen(provenance, device, frame, depth + 1)
    qualified = provenance.qualify(func)
    positional = [a.value for a in node.args if a.keyword is None and a.star == ""]
    if qualified == "torch.device":
        return bool(positional) and chosen(provenance, positional[0], frame, depth + 1)
    if qualified in _JOINS and positional and isinstance(positional[0], (cst.Tuple, cst.List)):
        elements = positional[0].elements
        return bool(elements) and all(
            isinstance(e, cst.Element) and chosen(provenance, e.value, frame, depth + 1)
            for e in elements
        )
    if qualified in _LIKE:
        return bool(positional) and chosen(provenance, positional[0], frame, depth + 1)
    if isinstance(func, cst.Attribute):
        method = func.attr.value
        if method == "to" and positional:
            if provenance.qualify(positional[0]) in DTYPE_NAMES:
                return chosen(provenance, func.value, frame, depth + 1)
            return chosen(provenance, positional[0], frame, depth + 1)
        if method in _KEEPING or method.startswith("new_"):
            return chosen(provenance, func.value, frame, depth + 1)
    callee = provenance.callee(node, frame, depth + 1)
    if callee is None:
        return False
    source, function = callee
    values = returned_values(function)
    own = source.index.frame_of(function)
    return bool(values) and all(chosen(source, v, own, depth + 1) for v in values)
