"""What the parts of the provenance analysis share: method and type names, the memo entry, the
visitors that collect returns, appends and device contexts, and small helpers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from h2dlint.analysis.arguments import keyword
from h2dlint.analysis.bindings import Bindings
from h2dlint.analysis.fact_source import FactSource
from h2dlint.analysis.facts import (
    UNKNOWN_FACT,
    Fact,
    Where,
    join,
)
from h2dlint.analysis.frames import Frame, parameter_annotation
from h2dlint.analysis.returns import returned_values
from h2dlint.analysis.targets import Target, device_target
from h2dlint.analysis.torch_api import ALL_DTYPE_METHODS, ARRAY_KEEPING_METHODS, STATISTICS
from h2dlint.analysis.type_aliases import alias_target
from h2dlint.imports import dotted_name

# Deep enough for a loop body that rebuilds an index through a few views before reading it
# (``index = arange(...).reshape(...)``, ``F.pad``, ``permute``, ``reshape`` twice, a
# comparison, ``sum``, ``cumsum``: lmdeploy's window index, 16 steps from the read).
MAX_DEPTH = 16
# Facts computed afresh for one outermost question, beyond which the rest are unknown: a loop
# that rebinds names under many branches makes every binding reach every use, and each question
# about such a name walks them all at every depth (real code: thousands of lines of one
# function in a web backend). Real questions stay far below it: the largest on lightning,
# torchrec, lmdeploy, fastvideo and transformers' generation computed 109 facts.
MAX_COMPUTED_PER_QUESTION = 1_000
NO_HIT = 1 << 62  # ``Provenance._earliest_hit`` when no cycle guard answered
# Annotations that say: a numpy array.
NUMPY_ARRAY_TYPES = frozenset(
    {"numpy.ndarray", "numpy.typing.NDArray", "numpy.typing.ArrayLike", "numpy.array"}
)

# Methods that make a fresh tensor on the input's device (on the host: pageable).
DERIVING_METHODS = frozenset(
    {
        "clone",
        "repeat",
        "repeat_interleave",
        "index_select",
        "masked_select",
        "gather",
        "take",
        "sum",
        "prod",
        "mean",
        "cumsum",
        "cumprod",
        "add",
        "sub",
        "mul",
        "div",
        "abs",
        "neg",
        "clamp",
        "clamp_min",
        "clamp_max",
        "clip",
        "sort",
        "argsort",
        "flip",
        "roll",
        "tril",
        "triu",
        "where",
        "masked_fill",
        "new_tensor",
        # elementwise math, reductions and index lists: a fresh tensor where the input is
        # (``emb.cos()`` of a host table is a fresh pageable tensor)
        "sin",
        "cos",
        "tan",
        "exp",
        "log",
        "log2",
        "log1p",
        "sqrt",
        "rsqrt",
        "sigmoid",
        "tanh",
        "pow",
        "square",
        "reciprocal",
        "floor",
        "ceil",
        "round",
        "trunc",
        "sign",
        "minimum",
        "maximum",
        "amax",
        "amin",
        "argmax",
        "argmin",
        "diff",
        "nonzero",
        "unique",
        "unique_consecutive",
        "outer",
        "logical_not",
        "remainder",
        "floor_divide",
        "softmax",
        "log_softmax",
        "logsumexp",
        "multinomial",
        "nan_to_num",
        # comparisons and masks: a fresh boolean tensor where the input is (session 36)
        "eq",
        "ne",
        "gt",
        "ge",
        "lt",
        "le",
        "logical_and",
        "logical_or",
        "logical_xor",
        "isnan",
        "isinf",
        "isfinite",
        *STATISTICS,  # statistics (``std``, ``median``, ``quantile``) are where their input is
    }
)
# Methods that keep the host/device placement but may or may not copy (a no-op conversion
# returns the tensor itself): on the host, pinning becomes unknown.
CONVERTING_METHODS = ALL_DTYPE_METHODS | frozenset(
    {
        "type",
        "type_as",
        "contiguous",
        "flatten",
        "reshape",
        "ravel",
    }
)
NEW_FACTORIES = frozenset({"new_empty", "new_zeros", "new_ones", "new_full", "new_tensor"})
# torch.<fn>(tensor, ...) forms of view methods.
FUNCTION_VIEWS = frozenset(
    f"torch.{name}"
    for name in (
        "narrow",
        "select",
        "transpose",
        "permute",
        "t",
        "swapaxes",
        "swapdims",
        "movedim",
        "squeeze",
        "unsqueeze",
        "diagonal",
    )
)


# What another module's call passes for a parameter (``project.passed_args``' codes), as a
# tensor's fact: a pageable host tensor (``torch.randperm(n)``, ``t.cpu()``), pinned, on the
# accelerator; numpy and Python data are no tensor (``REMOTE_DATA`` says which host-data
# questions they answer).
REMOTE_FACTS = {
    "c": Fact(Where.PAGEABLE),
    "p": Fact(Where.PINNED),
    "d": Fact(Where.DEVICE),
}
# A provenance question (by its method's name) -> the codes of other modules' arguments that
# answer it (``None``, code ``0``, passes every question, as a ``None`` argument does).
REMOTE_DATA = {"is_host_data": frozenset("nl0"), "is_numpy_array": frozenset("n0")}


def remote_answer(question: object, codes: list[str]) -> bool | None:
    """Whether every one of ``codes`` answers ``question`` (see :data:`REMOTE_DATA`); None
    when they hold no value but ``None``."""
    accepted = REMOTE_DATA.get(getattr(question, "__name__", ""), frozenset("0"))
    if all(code == "0" for code in codes):
        return None
    return all(code in accepted for code in codes)


def _is_none(node: cst.BaseExpression | None) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def returns_joined(
    owner: FactSource,
    function: cst.FunctionDef,
    fact_of: Callable[[cst.BaseExpression, Frame], Fact],
) -> Fact:
    """What every ``return`` of ``function`` agrees on, each value's fact ``fact_of(value,
    frame)`` read in ``function``'s own frame; unknown when it returns nothing. A ``return
    None`` beside them (an ``Optional`` result) is left out: it never reaches a tensor
    operation, as a ``None`` binding of a name does not."""
    frame = owner.index.frame_of(function)
    values = [v for v in returned_values(function) if not _is_none(v)]
    return join([fact_of(v, frame) for v in values]) if values else UNKNOWN_FACT


def annotation_is(
    provenance: FactSource,
    annotation: cst.BaseExpression,
    leaf: Callable[[cst.BaseExpression], bool],
) -> bool:
    """Whether ``annotation`` says one value of the kind ``leaf`` accepts, optionally or-None
    (``Optional[X]``, ``X | None``, ``Union[X, None]``). A union with anything else is not."""
    if leaf(annotation):
        return True
    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        parts: list[cst.BaseExpression] = [annotation.left, annotation.right]
    elif isinstance(annotation, cst.Subscript):
        head = (provenance.qualify(annotation.value) or "").rsplit(".", 1)[-1]
        parts = [e.slice.value for e in annotation.slice if isinstance(e.slice, cst.Index)]
        if not (head == "Union" or (head == "Optional" and len(parts) == 1)):
            return False
    else:
        return False
    values = [part for part in parts if not _is_none(part)]
    if len(values) == len(parts) and not isinstance(annotation, cst.Subscript):
        return False  # ``X | Y``: neither is None
    return bool(values) and all(annotation_is(provenance, v, leaf) for v in values)


def data_mapping(
    provenance: FactSource,
    is_host_data: _Test,
    value: cst.BaseExpression,
    frame: Frame,
    depth: int,
) -> bool:
    """A mapping of Python data: a dict display or comprehension whose values pass
    ``is_host_data`` (``{k: [] for k in keys}``, ``{"a": [1, 2]}``), or ``defaultdict(list)``."""
    if isinstance(value, cst.DictComp):
        return is_host_data(value.value, frame, depth + 1)
    if isinstance(value, cst.Dict):
        return bool(value.elements) and all(
            isinstance(e, cst.DictElement) and is_host_data(e.value, frame, depth + 1)
            for e in value.elements
        )
    if isinstance(value, cst.Call) and provenance.qualify(value.func) == "collections.defaultdict":
        factory = value.args[0].value if value.args else None
        return isinstance(factory, cst.Name) and factory.value in ("list", "tuple")
    return False


def numpy_array_annotation(provenance: FactSource, annotation: cst.BaseExpression) -> bool:
    """Whether ``annotation`` names a numpy array type (``np.ndarray``, ``npt.NDArray[...]``),
    also through a module-level alias of one (``NDArray = npt.NDArray[Any]``, here or imported
    from the project's types module: :mod:`~h2dlint.analysis.type_aliases`)."""
    head = annotation.value if isinstance(annotation, cst.Subscript) else annotation
    if (provenance.qualify(head) or "") in NUMPY_ARRAY_TYPES:
        return True
    return (alias_target(provenance, head) or "") in NUMPY_ARRAY_TYPES


def returns_numpy_array(
    provenance: FactSource, call: cst.Call, frame: Frame, depth: int = 0
) -> bool:
    """Whether ``call`` calls a project function annotated to return a numpy array
    (``def bias_rows(...) -> np.ndarray``, optionally or-None), in this module or another; or,
    without a return annotation, one whose every ``return`` gives a numpy array
    (``rect = np.array([tl, tr, br, bl]); return rect``)."""
    found = provenance.callee(call, frame)
    if found is None:
        return False
    owner, function = found
    returns = function.returns
    if returns is None:
        return _returns_only_arrays(owner, function, depth)
    return annotation_is(
        owner, returns.annotation, lambda annotation: numpy_array_annotation(owner, annotation)
    )


def _returns_only_arrays(owner: FactSource, function: cst.FunctionDef, depth: int) -> bool:
    """Whether every ``return`` of the unannotated ``function`` gives a numpy array, read in
    its own module (a chain of such helpers costs depth, as any binding does)."""
    values = returned_values(function)
    if not values:
        return False
    callee_frame = owner.index.frame_of(function)
    return all(owner.is_numpy_array(value, callee_frame, depth + 1) for value in values)


# Sequences whose items an annotation types (``List[np.ndarray]``, ``Sequence[...]``).
_SEQUENCE_HEADS = frozenset({"List", "list", "Sequence", "Tuple", "tuple"})


def numpy_items(provenance: FactSource, value: cst.BaseExpression, frame: Frame) -> bool:
    """A parameter annotated as a sequence of numpy arrays (``List[np.ndarray]``,
    ``Sequence[npt.NDArray[...]]``, ``tuple[np.ndarray, ...]``), never rebound: host data."""
    if not isinstance(value, cst.Name):
        return False
    bindings = provenance.bindings(frame)
    reaching = bindings.reaching_bindings(value)
    if not reaching or any(
        b.value is not None or b.statement is not bindings.root for b in reaching
    ):
        return False
    annotation = parameter_annotation(value, frame)
    return annotation is not None and annotation_is(
        provenance, annotation, lambda a: _numpy_sequence(provenance, a)
    )


def _numpy_sequence(provenance: FactSource, annotation: cst.BaseExpression) -> bool:
    if not isinstance(annotation, cst.Subscript):
        return False
    head = provenance.qualify(annotation.value) or dotted_name(annotation.value) or ""
    if head.rsplit(".", 1)[-1] not in _SEQUENCE_HEADS:
        return False
    items = [e.slice.value for e in annotation.slice if isinstance(e.slice, cst.Index)]
    items = [item for item in items if not isinstance(item, cst.Ellipsis)]
    return bool(items) and all(
        (provenance.qualify(i.value if isinstance(i, cst.Subscript) else i) or "")
        in NUMPY_ARRAY_TYPES
        for i in items
    )


# Methods of a tensor that return a sequence of tensors on its device.
SPLITTING_METHODS = frozenset({"split", "chunk", "unbind", "tensor_split", "split_with_sizes"})
# Functions that return one tensor per tensor given, on their device.
BROADCASTING_FUNCTIONS = frozenset({"torch.meshgrid", "torch.broadcast_tensors"})


def unpacked_split(statement: cst.SimpleStatementLine) -> cst.Call | None:
    """The split in ``a, b = t.chunk(2)`` / ``h, w = torch.meshgrid(...)``, or None."""
    if len(statement.body) != 1 or not isinstance(statement.body[0], cst.Assign):
        return None
    assign = statement.body[0]
    value = assign.value
    if not isinstance(value, cst.Call) or not all(
        isinstance(t.target, (cst.Tuple, cst.List)) for t in assign.targets
    ):
        return None
    func = value.func
    if isinstance(func, cst.Attribute) and func.attr.value in SPLITTING_METHODS:
        return value
    if dotted_name(func) in BROADCASTING_FUNCTIONS:
        return value
    return None


@dataclass(frozen=True)
class _Memo:
    """A memoised fact; ``span`` is how much deeper than its own depth its computation went,
    so it stays valid wherever ``depth + span`` is within the limit."""

    fact: Fact
    span: int


def _non_blocking(call: cst.Call) -> cst.BaseExpression | None:
    arg = keyword(call, "non_blocking")
    return arg.value if arg is not None else None


def _tolist_part(node: cst.Subscript) -> bool:
    """An element or slice of ``x.tolist()``: Python numbers or lists of them."""
    base: cst.BaseExpression = node
    while isinstance(base, cst.Subscript):
        base = base.value
    return (
        isinstance(base, cst.Call)
        and isinstance(base.func, cst.Attribute)
        and base.func.attr.value == "tolist"
        and not base.args
    )


def _any_where(wheres: list[Where]) -> Where:
    """Where tensors that share a device are, from what is known of some of them."""
    if any(w is Where.DEVICE for w in wheres):
        return Where.DEVICE
    if any(w.on_host for w in wheres):
        return Where.HOST
    return Where.UNKNOWN


_Test = Callable[[cst.BaseExpression, Frame, int], bool]


class _DeviceContexts(cst.CSTVisitor):
    """The calls inside ``with`` blocks whose context is an accelerator device."""

    def __init__(self, provenance: FactSource, frame: Frame) -> None:
        self.provenance = provenance
        self.frame = frame
        self.depth = 0
        self.calls: list[cst.Call] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return node is self.frame.function

    def visit_With(self, node: cst.With) -> None:
        if any(self._is_device(item.item) for item in node.items):
            self.depth += 1

    def leave_With(self, original_node: cst.With) -> None:
        if any(self._is_device(item.item) for item in original_node.items):
            self.depth -= 1

    def visit_Call(self, node: cst.Call) -> None:
        if self.depth:
            self.calls.append(node)

    def _is_device(self, item: cst.BaseExpression) -> bool:
        if isinstance(item, cst.Call):
            if self.provenance.qualify(item.func) != "torch.device" or not item.args:
                return False
            return device_target(self.provenance, item, self.frame) is Target.DEVICE
        if isinstance(item, (cst.Name, cst.Attribute)):
            name = item.value if isinstance(item, cst.Name) else item.attr.value
            lowered = name.lower()
            if "device" not in lowered or "cpu" in lowered or "host" in lowered:
                return False
            return device_target(self.provenance, item, self.frame) is Target.DEVICE
        return False


class _Appends(cst.CSTVisitor):
    """``name.append(value)`` calls of a function: name -> values; ``obj.attr.append(value)``
    under ``"obj.attr"`` (a list an object keeps, ``self.caches.append(...)``)."""

    def __init__(self) -> None:
        self.found: dict[str, list[cst.BaseExpression]] = {}

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (
            isinstance(func, cst.Attribute) and func.attr.value == "append" and len(node.args) == 1
        ):
            return
        owner = func.value
        if isinstance(owner, cst.Name):
            key = owner.value
        elif isinstance(owner, cst.Attribute) and isinstance(owner.value, cst.Name):
            key = f"{owner.value.value}.{owner.attr.value}"
        else:
            return
        self.found.setdefault(key, []).append(node.args[0].value)


# Constructors of a tensor from one value (``torch.tensor(scale)``: 0-d).
_SCALAR_CONSTRUCTORS = frozenset({"torch.tensor", "torch.scalar_tensor", "torch.as_tensor"})


def scalar_tensor(node: cst.BaseExpression, bindings: Bindings) -> bool:
    """Whether ``node`` is (or names, through every binding that reaches it) a 0-d tensor made
    from one number: ``torch.tensor(hidden_size**0.5, dtype=x.dtype)``. Arithmetic of a 0-d
    host tensor and a device tensor is on the device, so such an operand says nothing about
    where the result is (Gemma's ``hidden_states * normalizer``)."""
    if isinstance(node, cst.Name):
        reaching = bindings.reaching_bindings(node)
        return bool(reaching) and all(
            b.value is not None and scalar_tensor(b.value, bindings) for b in reaching
        )
    if not isinstance(node, cst.Call) or dotted_name(node.func) not in _SCALAR_CONSTRUCTORS:
        return False
    if not node.args or node.args[0].keyword is not None:
        return False
    value = node.args[0].value
    return isinstance(value, (cst.Integer, cst.Float, cst.UnaryOperation, cst.BinaryOperation))


def fixed_tuple_elements(
    qualify: Callable[[cst.BaseExpression], str | None], annotation: cst.BaseExpression
) -> list[cst.BaseExpression] | None:
    """The elements of ``tuple[A, B]``/``Tuple[A, B]`` (``typing.Tuple`` read through
    ``qualify``); None for any other annotation and for ``tuple[A, ...]``."""
    if not isinstance(annotation, cst.Subscript):
        return None
    head = annotation.value
    name = head.value if isinstance(head, cst.Name) else (qualify(head) or "")
    if name.rpartition(".")[2] not in ("tuple", "Tuple"):
        return None
    items = [e.slice for e in annotation.slice]
    elements = [i.value for i in items if isinstance(i, cst.Index)]
    if len(elements) != len(items) or any(isinstance(e, cst.Ellipsis) for e in elements):
        return None
    return elements


def array_method_receiver(func: cst.BaseExpression) -> cst.BaseExpression | None:
    """``a`` of ``a.reshape(...)``, ``a.astype(...)`` and the other methods that give a numpy
    array of a numpy array ``a`` (:data:`~h2dlint.analysis.torch_api.ARRAY_KEEPING_METHODS`)."""
    if isinstance(func, cst.Attribute) and func.attr.value in ARRAY_KEEPING_METHODS:
        return func.value
    return None
