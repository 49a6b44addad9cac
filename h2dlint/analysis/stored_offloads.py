"""A calibration pass's inputs offloaded to the host to be replayed: ``self.inputs.append(input
.to("cpu"))`` in an AWQ or SmoothQuant observer's ``forward``, ``x = x.detach().cpu();
feat_dict[name].append(x)`` in AutoAWQ's ``cache_input_hook``, ``fc.weight_bck =
fc.weight.cpu().clone()`` before a scale search overwrites the weight (session 43, truth43).

A quantizer runs its calibration once, offline, over a few hundred samples: each hooked
layer's input is copied to the host and stored whole, so that device memory holds one layer's
activations at a time, and the search later moves them back (``torch.cat(self.inputs)`` on the
device). The host never reads the values: the copy is the operation (it frees device memory),
and no per-step stall of training or serving is at stake. The same offload on a per-step path
(activation offloading in a training step) would want ``non_blocking=True`` into pinned memory,
so three things must hold together:

- the code is calibration code: a function, class or module whose name says calibration,
  an observer, a weight-quantization search or post-training quantization (``ptq``)
  (:data:`CALIBRATION_WORDS`);
- what is copied is the function's input itself: a parameter (not ``self``), an element or
  view of one (``input[0].detach()``, ``inp.reshape(-1, d)``), a field of one
  (``fc.weight``), or a name bound only to such values; not a value computed from it
  (``torch.max(flat).to("cpu")`` is a statistic that could be accumulated on the device and
  read once, and stays reported; so does a loss);
- the copy is only stored: appended to a list, written into an entry or a field, or bound to a
  name that is then only stored or asked for its metadata (``x.numel()``), or packed into a
  record the function returns or stores (:mod:`h2dlint.analysis.recorded_offloads`, session
  45); a copy read on the host (``.item()``, ``.numpy()``, compared, returned) is not an
  offload. An entry taken out of an input (``kwargs.pop("hidden_states")``) is an input.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import PurePath

import libcst as cst

from h2dlint.analysis.later_reads import later_reads
from h2dlint.analysis.recorded_offloads import copied_container, recorded_offload
from h2dlint.analysis.sync_basics import METADATA_ATTRIBUTES, METADATA_METHODS
from h2dlint.walk import visit_read_only

CALIBRATION_WORDS = (
    "calib",
    "observer",
    "awq",
    "smoothquant",
    "gptq",
    "svdquant",
    "input_feat",
    "post_training_quant",
)
# ``PTQ`` (post-training quantization, offline by definition) as a word of a name:
# fms-model-optimizer's ``PTQHookRecInOut`` in ``quant/ptq.py`` caching each block's inputs and
# outputs on the host (session 51), ``RunPTQ``. Not inside another word: ``vptq``/``VPTQ``
# names a quantization format whose layers run per forward.
_PTQ_WORD = re.compile(r"(?<![A-Za-z])ptq(?![a-z])|(?<![A-Z])PTQ(?![a-z])")
# Methods whose result is the same values (a view, a copy, a cast): still the input itself.
_SAME_VALUES = frozenset(
    {"detach", "clone", "contiguous", "reshape", "view", "flatten", "squeeze", "unsqueeze"}
    | {"float", "half", "cpu", "to"}
)
# Methods that take an entry out of a container (``kwargs.pop("hidden_states")``): an element.
_ENTRY = frozenset({"pop", "get"})
# Methods that store their argument in a container.
_STORING = frozenset({"append", "extend", "insert", "put", "add", "setdefault"})
_TRANSPARENT = (cst.Element, cst.DictElement, cst.List, cst.Tuple, cst.Dict, cst.DictComp)


def stored_offload(
    path: str, ancestors: Sequence[cst.CSTNode], function: cst.FunctionDef, copy: cst.Call
) -> bool:
    """Whether ``copy`` (``x.cpu()``, ``x.to("cpu")``, being visited under ``ancestors``) is a
    calibration pass's input offloaded whole to the host and only stored (module docstring)."""
    if not isinstance(copy.func, cst.Attribute):
        return False
    if not _calibration_code(path, ancestors):
        return False
    params = _parameters(function)
    if not _input_value(copy.func.value, function, params):
        return False
    return _stored(copy, ancestors, function) or recorded_offload(ancestors, function, copy)


def _calibration_code(path: str, ancestors: Sequence[cst.CSTNode]) -> bool:
    names = [PurePath(path).as_posix()]
    for node in ancestors:
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            names.append(node.name.value)
    return any(word in name.lower() for name in names for word in CALIBRATION_WORDS) or any(
        _PTQ_WORD.search(name) for name in names
    )


def _parameters(function: cst.FunctionDef) -> frozenset[str]:
    params = function.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    names = {p.name.value for p in every} - {"self", "cls"}
    return frozenset(names)


def _input_value(
    node: cst.BaseExpression,
    function: cst.FunctionDef,
    params: frozenset[str],
    seen: frozenset[str] = frozenset(),
) -> bool:
    """Whether ``node`` holds one of ``params``' values unchanged (module docstring): its root
    name is a parameter the function does not rebind, or every value the function binds to it
    is such a value (``x = x[0]``, ``inp = inp.reshape(-1, d)`` of ``inp = input[0]``)."""
    while True:
        if isinstance(node, cst.Call) and (_same_values_call(node) or _entry_call(node)):
            assert isinstance(node.func, cst.Attribute)
            node = node.func.value
        elif isinstance(node, (cst.Subscript, cst.Attribute)):
            node = node.value
        elif (container := copied_container(node)) is not None:
            node = container  # ``kwargs = {k: v for k, v in kwargs.items()}``
        else:
            break
    if not isinstance(node, cst.Name):
        return False
    name = node.value
    if name in seen:
        return True  # ``x = x[0]``: the name's other values decide
    values = list(_bound_values(function, name))
    if not values:
        return name in params
    return all(_input_value(v, function, params, seen | {name}) for v in values)


class _Bindings(cst.CSTVisitor):
    """The values assigned to a name in a function's own body."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.values: list[cst.BaseExpression] = []

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name) and target.target.value == self.name:
                self.values.append(node.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


def _bound_values(function: cst.FunctionDef, name: str) -> Iterator[cst.BaseExpression]:
    finder = _Bindings(name)
    visit_read_only(function.body, finder)
    yield from finder.values


def _stored(copy: cst.Call, ancestors: Sequence[cst.CSTNode], function: cst.FunctionDef) -> bool:
    """Whether the value of ``copy`` is only stored (module docstring)."""
    child: cst.CSTNode = copy
    for parent in reversed(ancestors):
        if isinstance(parent, cst.Call) and parent.func is not child:
            return _storing_call(parent)
        if isinstance(parent, cst.Attribute) and parent.value is child:
            if parent.attr.value not in _SAME_VALUES:
                return False  # ``x.cpu().numpy()``, ``.item``: read on the host
            child = parent  # ``.clone`` of ``x.cpu().clone()``, then its call
            continue
        if isinstance(parent, (cst.Call, cst.Arg, *_TRANSPARENT)):
            if isinstance(parent, cst.Call) and not _same_values_call(parent):
                return False
            child = parent
            continue
        if isinstance(parent, cst.CompFor):
            return False  # the iterable of a comprehension
        if isinstance(parent, cst.Assign) and parent.value is child:
            return all(_stored_target(t.target, parent, function) for t in parent.targets)
        return False
    return False


def _same_values_call(call: cst.Call) -> bool:
    return isinstance(call.func, cst.Attribute) and call.func.attr.value in _SAME_VALUES


def _entry_call(call: cst.Call) -> bool:
    return isinstance(call.func, cst.Attribute) and call.func.attr.value in _ENTRY


def _storing_call(call: cst.Call) -> bool:
    return isinstance(call.func, cst.Attribute) and call.func.attr.value in _STORING


def _stored_target(
    target: cst.BaseExpression, binding: cst.Assign, function: cst.FunctionDef
) -> bool:
    """An entry or a field (``entry[name] = ...``, ``fc.weight_bck = ...``), or a name that
    the function, after ``binding``, only stores or asks for its metadata."""
    if isinstance(target, (cst.Subscript, cst.Attribute)):
        return True
    if not isinstance(target, cst.Name):
        return False
    reads = later_reads(function, target.value, binding).reads  # rebindings aside
    return bool(reads) and all(_stores_or_asks(read.parents) for read in reads)


def _stores_or_asks(parents: Sequence[cst.CSTNode]) -> bool:
    """Whether a read (below ``parents``, innermost first) asks the tensor's metadata
    (``x.numel() > 0``, ``x.shape``) or is an argument of a storing call."""
    parent = parents[0] if parents else None
    grandparent = parents[1] if len(parents) > 1 else None
    if isinstance(parent, cst.Attribute) and (
        parent.attr.value in METADATA_ATTRIBUTES or parent.attr.value in METADATA_METHODS
    ):
        return True
    return (
        isinstance(parent, cst.Arg)
        and isinstance(grandparent, cst.Call)
        and _storing_call(grandparent)
    )
