"""Where a copy goes: the device argument of ``.to(...)``, ``device=`` and ``torch.device(...)``."""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.chosen_devices import chosen, device_string
from h2dlint.analysis.collation import collation_code
from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame, parameter_annotation, parameter_default
from h2dlint.analysis.host_attributes import explicit_host_attribute
from h2dlint.analysis.host_properties import host_property
from h2dlint.analysis.returns import returned_values
from h2dlint.analysis.torch_api import DTYPE_NAMES, HOST_DEVICE_PREFIXES

if TYPE_CHECKING:
    from h2dlint.analysis.fact_source import FactSource

MAX_DEPTH = 6
DEVICE_WORDS = ("device", "gpu", "cuda", "accelerator")
# Short device words count only as whole words of a name (``dev_id``, ``local_rank``, ``npu``),
# not inside longer ones (``static_inputs`` holds "npu", ``stddev`` "dev").
DEVICE_TOKENS = frozenset({"dev", "rank", "xpu", "npu", "mps"})


class Target(enum.Enum):
    DEVICE = "device"
    HOST = "host"
    DTYPE = "dtype"
    UNKNOWN = "unknown"


def _by_string(text: str) -> Target:
    return Target.HOST if text.startswith(HOST_DEVICE_PREFIXES) else Target.DEVICE


def by_name(name: str) -> Target:
    """What a device argument's name suggests, used only when its value is not in the file
    (a parameter, an attribute set elsewhere). An offload device (``offload_device``,
    ``cpu_offload_device``) is where state is offloaded to: the host."""
    lowered = name.lower()
    if "dtype" in lowered:
        return Target.DTYPE
    if "cpu" in lowered or "host" in lowered or "offload" in lowered:
        return Target.HOST
    if any(word in lowered for word in DEVICE_WORDS):
        return Target.DEVICE
    if DEVICE_TOKENS & name_words(name):
        return Target.DEVICE
    return Target.UNKNOWN


def name_words(name: str) -> set[str]:
    """The words of a name, lower case: ``dev_id`` -> dev, id; ``devIdx`` -> dev, idx."""
    return {w.lower() for w in re.split(r"[^a-zA-Z]+|(?<=[a-z])(?=[A-Z])", name) if w}


def _agree(targets: list[Target]) -> Target:
    return targets[0] if targets and all(t is targets[0] for t in targets) else Target.UNKNOWN


def _either(
    provenance: FactSource,
    values: Sequence[tuple[cst.BaseExpression | None, Frame]],
    depth: int,
) -> bool:
    """Whether a name's values (each with its frame) include a device chosen between the host
    and a device, or a tensor placed by such a choice (:func:`~h2dlint.analysis.
    chosen_devices.chosen`: ``torch.device("cpu" if backend == "gloo" else "cuda")``, ``t.device``
    of ``t = x.to(device=d)``): then what the name says proves nothing. A test of whether CUDA
    is there (``"cuda" if torch.cuda.is_available() else "cpu"``) picks the GPU wherever there
    is one: the name keeps its meaning."""
    return any(v is not None and chosen(provenance, v, f, depth) for v, f in values)


def device_target(
    provenance: FactSource,
    node: cst.BaseExpression,
    frame: Frame,
    depth: int = 0,
    allocation: bool = False,
) -> Target:
    """What a device-or-dtype argument names: of a copy (``x.to(d)``), or of an allocation
    (``device=d`` of a factory, ``allocation``), which differ for ``None`` (see
    :func:`_parameter_target`)."""
    if depth > MAX_DEPTH:
        return Target.UNKNOWN
    text = device_string(node)
    if text is not None:
        return _by_string(text)
    if isinstance(node, cst.Integer):
        return Target.DEVICE  # a CUDA device ordinal
    qualified = provenance.qualify(node)
    if qualified in DTYPE_NAMES:
        return Target.DTYPE
    if isinstance(node, cst.Call):
        called = provenance.qualify(node.func)
        if called == "torch.device":
            args = [a for a in node.args if a.keyword is None]
            first = device_string(args[0].value) if args else None
            if first is not None:
                return _by_string(first)
            if args:
                return device_target(provenance, args[0].value, frame, depth + 1, allocation)
            return Target.UNKNOWN
        if called in ("torch.cuda.current_device",):
            return Target.DEVICE
        return _returned_target(provenance, node, frame, depth, allocation)
    if isinstance(node, cst.IfExp):  # ``torch.device("cuda") if fused else "cpu"``
        return _agree(
            [
                device_target(provenance, arm, frame, depth + 1, allocation)
                for arm in (node.body, node.orelse)
            ]
        )
    if isinstance(node, cst.Name):
        bindings = provenance.bindings(frame)
        values = bindings.reaching(node)
        if values and all(v is not None for v in values):
            resolved = _agree(
                [
                    device_target(provenance, v, frame, depth + 1, allocation)
                    for v in values
                    if v is not None
                ]
            )
            if resolved is not Target.UNKNOWN:
                return resolved
            if _either(provenance, [(v, frame) for v in values], depth):
                return Target.UNKNOWN
        if len(values) == 1 and bindings.is_parameter(node):
            if chosen(provenance, node, frame, depth):
                return Target.UNKNOWN  # every call passes a host-or-device choice
            return _parameter_target(provenance, node, frame, depth, allocation)
        return by_name(node.value)
    if isinstance(node, cst.Attribute):
        base = node.value
        if isinstance(base, cst.Name) and frame.cls is not None and base.value == frame.self_name:
            assigned = provenance.index.attributes.get(frame.cls, {}).get(node.attr.value, [])
            if assigned and all(v is not None for v, _ in assigned):
                resolved = _agree(
                    [
                        device_target(provenance, v, f, depth + 1, allocation)
                        for v, f in assigned
                        if v is not None
                    ]
                )
                if resolved is not Target.UNKNOWN:
                    return resolved
                if _either(provenance, assigned, depth):
                    return Target.UNKNOWN
            if host_property(frame.cls, node.attr.value):
                return Target.HOST  # ``@property def device(self): return "cpu"``
        if (
            node.attr.value == "device"
            and isinstance(base, (cst.Name, cst.Subscript))
            and not (isinstance(base, cst.Name) and base.value == frame.self_name)
            and provenance.fact(base, frame, depth + 1).where.on_host
        ):
            # ``m = torch.ones(n)`` ... ``.to(m.device)``: the host's; so is the device of an
            # entry of a host batch (``.to(device=batch["input_ids"].device)`` in a collate
            # function, the processor's tensors: session 49, triage49a).
            return Target.HOST
        if (
            node.attr.value == "device"
            and isinstance(base, (cst.Name, cst.Subscript))
            and not (isinstance(base, cst.Name) and base.value == frame.self_name)
            and collation_code(provenance.context.file_name, frame)
            and not _tensor_parameter(provenance, base, frame)
            and provenance.fact(base, frame, depth + 1).where is not Where.DEVICE
        ):
            # ``.to(device=batch["input_ids"].device)`` in code that collates batches (a
            # ``collate_fn.py``, a ``qwen2_5_collate_fn``): the batch a processor made for
            # the loader, on the host unless proven moved (session 50, fp101_50). Not a
            # parameter annotated as a tensor: torchmetrics 1.9.0's ``_output_data_collator(
            # model_output: Tensor, ...)`` pads a model's outputs, wherever they are.
            return Target.HOST
        if node.attr.value == "device" and explicit_host_attribute(
            provenance,
            base,
            frame,
            lambda v, f: device_target(provenance, v, f, depth + 1, True) is Target.HOST,
        ):
            return Target.HOST  # ``self.buf.device`` of ``self.buf = torch.zeros(n, device="cpu")``
        if node.attr.value == "device" and chosen(provenance, base, frame, depth):
            return Target.UNKNOWN  # ``t.device`` of ``t = x.to(device=d)``, d host or device
        return by_name(node.attr.value)
    return Target.UNKNOWN


def _returned_target(
    provenance: FactSource, call: cst.Call, frame: Frame, depth: int, allocation: bool
) -> Target:
    """What a helper the project defines returns as a device (``.to(get_device_type())``):
    what its ``return`` values say, read in its own frame, when they all agree (a ``device``
    bound to ``"cuda"``, ``"npu"`` or ``"cpu"`` by the accelerator found says a device by its
    name, as such a parameter does); unknown for a call the project does not define."""
    found = provenance.callee(call, frame, depth + 1)
    if found is None:
        return Target.UNKNOWN
    source, function = found
    values = returned_values(function)
    if not values:
        return Target.UNKNOWN
    own = source.index.frame_of(function)
    return _agree([device_target(source, v, own, depth + 1, allocation) for v in values])


def _parameter_target(
    provenance: FactSource, node: cst.Name, frame: Frame, depth: int, allocation: bool
) -> Target:
    """What a parameter (the only binding that reaches the use) names: what its name says,
    unless its default contradicts that. A caller may pass anything, so a default proves
    nothing by itself, but ``device="cpu"`` leaves ``device`` unproven; so does
    ``device=None`` for an allocation (a factory given ``device=None`` allocates on the CPU),
    not for a copy (``x.to(None)`` copies nothing: when it copies, it copies to the device the
    name says). A dtype-named parameter stays a dtype."""
    named = by_name(node.value)
    if named is Target.DEVICE and _callers_pass_host(provenance, node, frame, depth, allocation):
        return Target.HOST
    default = parameter_default(node, frame)
    if default is None or named is Target.DTYPE:
        return named
    if isinstance(default, cst.Name) and default.value == "None":
        return Target.UNKNOWN if allocation else named
    module = Frame(provenance.context.module)
    by_default = device_target(provenance, default, module, depth + 1, allocation)
    if by_default is Target.UNKNOWN or by_default is named:
        return named
    if named is Target.DEVICE and _callers_name_device(provenance, node, frame, depth, allocation):
        return named
    return Target.UNKNOWN


def _callers_name_device(
    provenance: FactSource, node: cst.Name, frame: Frame, depth: int, allocation: bool
) -> bool:
    """Whether every call of the function (its own module's and the others', as
    :func:`~h2dlint.analysis.constructions.passed_or_constructed` tells them, at least one)
    passes the parameter ``node`` a device: ``self.sequence_mask(lens, device=mel.device)`` of ``def
    sequence_mask(self, seq_lens, device='cpu')``. The ``"cpu"`` default is then only a
    default no call takes (session 31: megatts3's aligner, neuralforecast's informer mask)."""
    from h2dlint.analysis.constructions import passed_or_constructed

    function = frame.function
    if not isinstance(function, cst.FunctionDef):
        return False
    found = passed_or_constructed(provenance, function, node.value)
    if found is None or not found.local or any(code != "d" for code in found.remote):
        return False
    return all(
        device_target(a.source, a.value, a.frame, depth + 1, allocation) is Target.DEVICE
        for a in found.local
    )


def _callers_pass_host(
    provenance: FactSource, node: cst.Name, frame: Frame, depth: int, allocation: bool
) -> bool:
    """Whether every call of the function, at least one and all in its own module, passes the
    device-named parameter ``node`` the host: ``text.device`` of a tensor proven on the host
    (``text = torch.LongTensor(ids)``), ``"cpu"``, or a ``"cpu"`` default a call leaves it to.
    A helper ``_make_prefix(feat, device)`` whose every caller passes ``text.device`` then
    allocates on the host, whatever its parameter is called (session 34: VoxCPM's prompt
    builders). A call from another module, or one not known, leaves the name's word."""
    from h2dlint.analysis.constructions import passed_or_constructed

    function = frame.function
    if not isinstance(function, cst.FunctionDef) or depth > MAX_DEPTH:
        return False
    found = passed_or_constructed(provenance, function, node.value)
    if found is None or not found.local or found.remote:
        return False
    return all(
        device_target(a.source, a.value, a.frame, depth + 1, allocation) is Target.HOST
        for a in found.local
    )


def to_target(provenance: FactSource, call: cst.Call, frame: Frame) -> Target:
    """Where ``x.to(...)`` sends ``x``."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "device":
            return device_target(provenance, arg.value, frame)
    args = [a for a in call.args if a.keyword is None and not a.star]
    if not args:
        if any(a.keyword is not None and a.keyword.value == "dtype" for a in call.args):
            return Target.DTYPE
        return Target.UNKNOWN
    return device_target(provenance, args[0].value, frame)


def device_by_value(device: cst.BaseExpression, provenance: FactSource, frame: Frame) -> bool:
    """Whether the target is a device by its value (a string, ``torch.device("cuda")``, an
    ordinal), not only by a name that says so."""
    if isinstance(device, (cst.SimpleString, cst.FormattedString, cst.Integer, cst.Call)):
        return True
    name = device.value if isinstance(device, cst.Name) else None
    if isinstance(device, cst.Attribute):
        name = device.attr.value
    if name is None:
        return False
    if isinstance(device, cst.Name):
        values = provenance.bindings(frame).reaching(device)
        if values and all(
            v is not None and not isinstance(v, (cst.Name, cst.Attribute)) for v in values
        ):
            return True  # bound in the function to a device by value
    return by_name(name) is not Target.DEVICE


def device_named(node: cst.BaseExpression) -> bool:
    """``gpu``, ``self.buf.gpu``, ``dev_ids[:, :n]``: a name that says device memory."""
    while isinstance(node, cst.Subscript):
        node = node.value
    if isinstance(node, cst.Attribute):
        return by_name(node.attr.value) is Target.DEVICE
    return isinstance(node, cst.Name) and by_name(node.value) is Target.DEVICE


class Move:
    """What ``x.to(...)``/``x.cuda(...)`` asks for: the device (as an argument for ``device=``),
    a dtype, and whether nothing else is asked (a fix may drop the move)."""

    def __init__(
        self,
        device: cst.BaseExpression | None,
        device_value: cst.BaseExpression | None,
        dtype: cst.BaseExpression | None,
        fixable: bool,
        by_value: bool,
    ) -> None:
        self.device = device
        self.device_value = device_value
        self.dtype = dtype
        self.fixable = fixable
        self.by_value = by_value

    @classmethod
    def of(cls, node: cst.Call, provenance: FactSource, frame: Frame) -> Move | None:
        method = node.func.attr.value  # type: ignore[attr-defined]
        if any(a.star for a in node.args):
            return None
        named = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        args = [a.value for a in node.args if a.keyword is None]
        fixable = not (set(named) - {"device", "dtype", "non_blocking"})
        if method == "cuda":
            device = named.get("device", args[0] if args else None)
            if device is None:
                return cls(None, cst.SimpleString('"cuda"'), None, fixable, True)
            if isinstance(device, cst.Integer):
                return cls(device, cst.SimpleString(f'"cuda:{device.value}"'), None, fixable, True)
            return cls(device, None, None, fixable, device_by_value(device, provenance, frame))
        if "device" in named:
            device = named["device"]
            dtype = named.get("dtype", args[0] if args else None)
            fixable = fixable and len(args) <= 1
        elif args:
            device = args[0]
            dtype = named.get("dtype", args[1] if len(args) > 1 else None)
            fixable = fixable and len(args) <= 3  # device, dtype, non_blocking
            if len(args) > 2 and "non_blocking" in named:
                fixable = False
        else:
            return None
        if device_target(provenance, device, frame) is not Target.DEVICE:
            return None
        if dtype is not None and device_target(provenance, dtype, frame) is not Target.DTYPE:
            return None  # ``.to(dev, other)``: not a dtype the analysis knows
        return cls(device, device, dtype, fixable, device_by_value(device, provenance, frame))


def tensor_device(node: cst.BaseExpression, provenance: FactSource, frame: Frame) -> bool:
    """``x.device`` of a tensor other than ``self``, or a local name bound only to one: the
    device of data the function works on (a device name such as ``device`` or
    ``self.device`` may be a CPU). Not the device of a parameter annotated as something other
    than a tensor (``fabric: L.Fabric``, ``accelerator: Accelerator``): a framework object's
    ``.device`` is a configured device, like ``self.device``."""
    if isinstance(node, cst.Name):
        reaching = provenance.bindings(frame).reaching_bindings(node)
        return bool(reaching) and all(
            b.value is not None and tensor_device(b.value, provenance, frame) for b in reaching
        )
    if not (isinstance(node, cst.Attribute) and node.attr.value == "device"):
        return False
    owner = node.value
    if not isinstance(owner, cst.Name):
        return True
    return owner.value != "self" and not _annotated_not_tensor(owner, provenance, frame)


def _annotated_not_tensor(name: cst.Name, provenance: FactSource, frame: Frame) -> bool:
    """Whether ``name`` is a parameter whose annotation names no tensor type."""
    if not provenance.bindings(frame).is_parameter(name):
        return False
    annotation = parameter_annotation(name, frame)
    return annotation is not None and "Tensor" not in _EMPTY.code_for_node(annotation)


_EMPTY = cst.Module([])


# Keywords that name where a value comes FROM, not where the call puts it.
_SOURCE_WORDS = ("src", "source", "from", "orig")


def _host_literal(node: cst.BaseExpression) -> bool:
    """``"cpu"`` or ``torch.device("cpu")`` written in the call."""
    if isinstance(node, cst.Call) and len(node.args) == 1:
        func = node.func
        name = func.attr.value if isinstance(func, cst.Attribute) else None
        name = func.value if isinstance(func, cst.Name) else name
        if name == "device":
            node = node.args[0].value
    return isinstance(node, cst.SimpleString) and node.evaluated_value == "cpu"


def asks_for_host(call: cst.Call) -> bool:
    """Whether a call of a function whose result is otherwise unknown names the host as where
    it puts its result: a literal ``"cpu"`` (or ``torch.device("cpu")``) passed by position or
    as ``device=``/``target_device=`` (not ``src_device=``). ``get_for_device(params, "slots",
    "cpu")`` returns the host copy of a tensor, as ``get_for_device(params, "slots",
    self.device)`` returns the device one."""
    for arg in call.args:
        if not _host_literal(arg.value) or arg.star:
            continue
        if arg.keyword is None:
            return True
        word = arg.keyword.value.lower()
        if word == "device" or (word.endswith("_device") and not word.startswith(_SOURCE_WORDS)):
            return True
    return False


def _tensor_parameter(provenance: FactSource, base: cst.BaseExpression, frame: Frame) -> bool:
    """Whether ``base`` is a parameter of ``frame``'s function annotated as a torch tensor
    (``model_output: Tensor``, ``x: torch.FloatTensor``; qualified through the module's imports:
    ``tuple_annotations`` would import the provenance package, which imports this module)."""
    if not isinstance(base, cst.Name):
        return False
    annotation = parameter_annotation(base, frame)
    if annotation is None:
        return False
    qualified = provenance.qualify(annotation) or ""
    return qualified.startswith("torch.") and qualified.endswith("Tensor")
