"""Model inputs built on the host: a ``forward`` argument that the class's input preparer
(``prepare_inputs_for_generation``, also inherited from a base class in another module) builds
on the host, or that an outer module passes on from such an argument. Split out of
``syncs.py``."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.arguments import keyword, positional
from h2dlint.analysis.classes import named_class
from h2dlint.analysis.converters import converts_input
from h2dlint.analysis.fact_source import FactSource
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.names import calls_in
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.step_handoffs import hands_to_step
from h2dlint.analysis.tuple_targets import unpacked_target
from h2dlint.analysis.value_syncs import value_where
from h2dlint.context import SharedKey
from h2dlint.walk import visit_read_only

INPUT_PREPARERS = ("prepare_inputs_for_generation",)

# The calls of each module class held by another class of the file (computed once).
_HELD: SharedKey[dict[cst.ClassDef, list[tuple[cst.Call, Frame]]]] = SharedKey("held modules")


def prepared_on_host(provenance: Provenance, name: cst.Name, frame: Frame, depth: int = 0) -> bool:
    """Whether ``name``, a parameter of ``forward``, is a host tensor by what its callers pass:

    - what the class's input preparer (``prepare_inputs_for_generation``, its own or a base
      class's, also one defined in another module) returns under that keyword, when every
      value it binds there is on the host: ``grid_thw = torch.stack(...).cpu()`` ... ``return
      dict(..., grid_thw=grid_thw)``. A ``None`` default does not count;
    - else, for a module held by another module of the same file (``self.model =
      Inner(...)``), what every call of it there passes (``self.model(x, grid_thw=grid_thw)``):
      a host value, or a ``forward`` parameter of the holder that is a host tensor by the same
      rules (the outer model's input preparer built it on the host). Without such a call
      nothing is known."""
    function, cls = frame.function, frame.cls
    if not isinstance(function, cst.FunctionDef) or cls is None or depth > 3:
        return False
    if function.name.value != "forward" or not provenance.bindings(frame).is_parameter(name):
        return False
    preparer = _input_preparer(provenance, cls)
    if preparer is not None:
        owner, method = preparer
        return _prepares_on_host(owner, method, name.value)
    return _holders_pass_host(provenance, cls, function, name.value, depth)


def _input_preparer(
    provenance: Provenance, cls: cst.ClassDef, depth: int = 0
) -> tuple[Provenance, cst.FunctionDef] | None:
    """The input preparer of ``cls`` or of its nearest base class that has one (with the
    provenance of the module defining it)."""
    if depth > 4:
        return None
    methods = provenance.index.methods.get(cls, {})
    for preparer_name in INPUT_PREPARERS:
        if preparer_name in methods:
            return provenance, methods[preparer_name]
    for base in cls.bases:
        ref = named_class(provenance, base.value)
        if ref is None or ref.provenance is None or ref.node is None or ref.node is cls:
            continue
        assert isinstance(ref.provenance, Provenance)  # the module's fact source
        found = _input_preparer(ref.provenance, ref.node, depth + 1)
        if found is not None:
            return found
    return None


def _prepares_on_host(provenance: Provenance, preparer: cst.FunctionDef, key: str) -> bool:
    values = _returned_keyword(preparer, key)
    if not values:
        return False
    prep_frame = provenance.index.frame_of(preparer)
    bindings = provenance.bindings(prep_frame)
    seen = False
    for value in values:
        candidates: list[cst.BaseExpression | None] = [value]
        if isinstance(value, cst.Name):
            candidates = list(bindings.reaching(value))
        for candidate in candidates:
            if candidate is None:
                return False
            if isinstance(candidate, cst.Name) and candidate.value == "None":
                continue
            if not value_where(provenance, candidate, prep_frame).on_host:
                return False
            seen = True
    return seen


def _holders_pass_host(
    provenance: Provenance, cls: cst.ClassDef, forward: cst.FunctionDef, key: str, depth: int
) -> bool:
    """Whether the modules of this file that hold an instance of ``cls`` all call it with a
    host tensor (or a ``None``) for ``forward``'s parameter ``key``, in at least one call."""
    params = [p.name.value for p in forward.params.params]
    position = params.index(key) - 1 if key in params[1:] else None
    seen = False
    for call, holder_frame in _calls_of_held(provenance, cls):
        value = keyword(call, key)
        argument: cst.BaseExpression | None = value.value if value is not None else None
        if argument is None and position is not None:
            args = positional(call)
            if any(a.star for a in call.args):
                return False
            argument = args[position].value if position < len(args) else None
        if argument is None:
            if any(a.star == "**" for a in call.args):
                return False  # ``**kwargs`` may carry it
            continue  # the default
        if isinstance(argument, cst.Name) and argument.value == "None":
            continue
        if isinstance(argument, cst.Name) and provenance.bindings(holder_frame).is_parameter(
            argument
        ):
            if not prepared_on_host(provenance, argument, holder_frame, depth + 1):
                return False
        elif not value_where(provenance, argument, holder_frame).on_host:
            return False
        seen = True
    return seen


def _calls_of_held(provenance: Provenance, cls: cst.ClassDef) -> list[tuple[cst.Call, Frame]]:
    """The calls ``self.<attr>(...)`` in methods of the file's other classes whose attribute
    ``attr`` holds an instance of ``cls``, each with the frame of the method making it."""
    held = provenance.context.shared(_HELD, lambda: _held_modules(provenance))
    return held.get(cls, [])


def _held_modules(provenance: Provenance) -> dict[cst.ClassDef, list[tuple[cst.Call, Frame]]]:
    index = provenance.index
    found: dict[cst.ClassDef, list[tuple[cst.Call, Frame]]] = {}
    for holder, methods in index.methods.items():
        attrs: dict[str, cst.ClassDef] = {}
        for attr in index.attributes.get(holder, {}):
            ref = provenance.attribute_class(holder, attr)
            if (
                ref is not None
                and ref.provenance is provenance
                and ref.node is not None
                and ref.node is not holder
            ):
                attrs[attr] = ref.node
        if not attrs:
            continue
        for method in methods.values():
            frame = index.frame_of(method)
            self_name = frame.self_name
            if not self_name:
                continue
            for call in _self_attribute_calls(method, self_name, attrs):
                assert isinstance(call.func, cst.Attribute)
                found.setdefault(attrs[call.func.attr.value], []).append((call, frame))
    return found


class _SelfAttributeCalls(cst.CSTVisitor):
    """``self.attr(...)`` calls in one method (not in functions nested in it), ``attr`` among
    ``attrs``."""

    def __init__(
        self, method: cst.FunctionDef, self_name: str, attrs: dict[str, cst.ClassDef]
    ) -> None:
        self.method = method
        self.self_name = self_name
        self.attrs = attrs
        self.calls: list[cst.Call] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return node is self.method

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == self.self_name
            and func.attr.value in self.attrs
        ):
            self.calls.append(node)


def _self_attribute_calls(
    method: cst.FunctionDef, self_name: str, attrs: dict[str, cst.ClassDef]
) -> list[cst.Call]:
    collector = _SelfAttributeCalls(method, self_name, attrs)
    visit_read_only(method, collector)
    return collector.calls


class _ReturnedKeyword(cst.CSTVisitor):
    """The values one function returns under ``key`` (not in functions nested in it)."""

    def __init__(self, function: cst.FunctionDef, key: str) -> None:
        self.function = function
        self.key = key
        self.values: list[cst.BaseExpression] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return node is self.function

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Return(self, node: cst.Return) -> None:
        value, key = node.value, self.key
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
            if value.func.value == "dict":
                self.values.extend(
                    a.value for a in value.args if a.keyword and a.keyword.value == key
                )
        elif isinstance(value, cst.Dict):
            for element in value.elements:
                if (
                    isinstance(element, cst.DictElement)
                    and isinstance(element.key, cst.SimpleString)
                    and element.key.evaluated_value == key
                ):
                    self.values.append(element.value)


def _returned_keyword(function: cst.FunctionDef, key: str) -> list[cst.BaseExpression]:
    """The values ``function`` returns under ``key``: ``return dict(key=v)`` or
    ``return {"key": v}``."""
    collector = _ReturnedKeyword(function, key)
    visit_read_only(function, collector)
    return collector.values


def prepared_host_input(function: cst.FunctionDef, ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether the copy to the host being visited (with ``ancestors``) is an input preparer's
    (``prepare_inputs_for_generation``) making a host input for ``forward``: ``grid_thw =
    torch.stack(...).cpu()`` ... ``return dict(..., grid_thw=grid_thw)``. The copy is the
    preparation (``forward`` reads it on the host without syncing), left alone."""
    if function.name.value not in INPUT_PREPARERS or not ancestors:
        return False
    parent = ancestors[-1]
    if not isinstance(parent, cst.Assign) or len(parent.targets) != 1:
        return False
    target = parent.targets[0].target
    if not isinstance(target, cst.Name):
        return False
    return any(
        isinstance(v, cst.Name) and v.value == target.value
        for v in _returned_keyword(function, target.value)
    )


# Methods that give the same values in another layout or dtype (no computation on the device).
_RELAYOUT_METHODS = frozenset(
    {
        "detach",
        "permute",
        "transpose",
        "flatten",
        "reshape",
        "view",
        "squeeze",
        "unsqueeze",
        "contiguous",
        "float",
        "half",
        "double",
    }
)


def input_handed_to_numpy(
    provenance: Provenance,
    ancestors: Sequence[cst.CSTNode],
    tensor: cst.BaseExpression,
    frame: Frame,
) -> bool:
    """Whether a ``.cpu()`` copy (its ancestors ``ancestors``) of ``tensor`` hands the
    function's own tensor argument to numpy: ``im.cpu().numpy()``, ``x.detach().flatten(end_dim=-2)
    .cpu().numpy()`` with ``im``/``x`` a parameter bound nowhere else. The function converts its
    input for another runtime (an exported model's session, a CoreML or NCNN predictor, a
    scikit-learn model): the values must reach the host there, and where the tensor is was the
    caller's choice (a backend of a host runtime is given host tensors). Computed values
    (``logits.argmax(-1).cpu().numpy()``) are no such input, and only the ``forward`` or
    ``__call__`` of a class that is no ``torch.nn`` module is such a wrapper: a decoding step's
    ``decode(output_ids)`` copies a model's output."""
    call = numpy_call(ancestors)
    if call is None:
        return False
    function = frame.function
    if (
        isinstance(function, cst.FunctionDef)
        and function.name.value in _ENV_STEPS
        and frame.cls is not None
        and own_input(provenance, tensor, frame, 0, read=True)
    ):
        return hands_to_step(provenance, call, function, frame)  # the action, to a simulator
    if (
        isinstance(function, cst.FunctionDef)
        and converts_input(ancestors, tensor)
        and own_input(provenance, tensor, frame, 0)
    ):
        return True  # ``if isinstance(x, torch.Tensor): x = x.cpu().numpy()``: a converter
    if not (
        isinstance(function, cst.FunctionDef)
        and function.name.value in ("forward", "__call__")
        and frame.cls is not None
        and not may_be_module(provenance, frame.cls, 0)
    ):
        return False  # a decoding step's ``decode(output_ids)``, a module's forward: stay
    if not own_input(provenance, tensor, frame, 0):
        return False
    return not back_to_torch(provenance, ancestors, call, frame)


# The step methods of an environment wrapper (Gym's ``step``, TorchRL's ``_step``).
_ENV_STEPS = frozenset({"step", "_step"})


def numpy_call(ancestors: Sequence[cst.CSTNode]) -> cst.Call | None:
    """The ``.numpy()`` call that ``ancestors`` (root first) end in, around a copy's call."""
    if len(ancestors) < 2:
        return None
    attribute, call = ancestors[-1], ancestors[-2]
    numpy = isinstance(attribute, cst.Attribute) and attribute.attr.value == "numpy"
    return call if numpy and isinstance(call, cst.Call) and call.func is attribute else None


# Bases that say a class is no ``torch.nn`` module.
_PLAIN_BASES = frozenset({"abc.ABC", "object", "typing.Protocol", "typing.Generic"})


def may_be_module(provenance: FactSource, cls: cst.ClassDef, depth: int) -> bool:
    """Whether ``cls`` may be a ``torch.nn`` module: a base that is one, or that the project
    does not define (a library class may be one); only plain bases (``ABC``, none) and the
    project's own plain classes say it is not (ultralytics' ``BaseBackend(ABC)``)."""
    if depth > 4:
        return True
    for base in cls.bases:
        if (provenance.qualify(base.value) or "") in _PLAIN_BASES:
            continue
        parent = named_class(provenance, base.value)
        if parent is None or parent.node is None or parent.provenance is None:
            return True
        if parent.node is cls or may_be_module(parent.provenance, parent.node, depth + 1):
            return True
    return False


def back_to_torch(
    provenance: Provenance, ancestors: Sequence[cst.CSTNode], numpy: cst.Call, frame: Frame
) -> bool:
    """Whether the host array goes back into PyTorch in the function: given to a ``torch.*``
    call directly or through the name it is assigned to
    (``lengths = lengths.cpu().numpy(); pack_padded_sequence(x, lengths)``), or the function
    moves values to a device (``torch.from_numpy(m).to(inputs.device)``, ``torch.tensor(labels,
    device=self.device)``): a round trip through the host in the middle of the device work,
    which the caller could have avoided."""
    names = _assigned_names(ancestors)
    for call in calls_in(frame.function):
        if _to_device(call):
            return True  # ``torch.from_numpy(m).to(inputs.device)``: a round trip
        if not (provenance.qualify(call.func) or "").startswith("torch."):
            continue
        for arg in call.args:
            value = arg.value
            if value is numpy or (isinstance(value, cst.Name) and value.value in names):
                return True
    return False


def _to_device(call: cst.Call) -> bool:
    """A move or a factory to a device named by a device expression: ``.cuda()``,
    ``x.to(inputs.device)``, ``torch.tensor(v, device=self.device)`` (not ``"cpu"``)."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "cuda":
        return True
    targets = [a.value for a in call.args if a.keyword and a.keyword.value == "device"]
    if isinstance(func, cst.Attribute) and func.attr.value == "to" and call.args:
        targets.append(call.args[0].value)
    return any(_device_expression(t) for t in targets)


def _device_expression(node: cst.BaseExpression) -> bool:
    name = node.attr.value if isinstance(node, cst.Attribute) else getattr(node, "value", "")
    return isinstance(name, str) and "device" in name.lower()


def own_input(
    provenance: Provenance,
    node: cst.BaseExpression,
    frame: Frame,
    depth: int,
    *,
    read: bool = False,
) -> bool:
    """A parameter of ``frame``'s function in another layout: every binding that reaches the
    name is the parameter or a relayout of it (``if self.nhwc: im = im.permute(0, 2, 3, 1)``).
    ``read``: also an entry read from it (``tensordict.get("action")``, ``inputs["action"]``)."""
    while isinstance(node, (cst.Call, cst.Subscript)):
        if isinstance(node, cst.Subscript):
            if not read:
                return False
            node = node.value
        elif isinstance(node.func, cst.Attribute) and (
            node.func.attr.value in _RELAYOUT_METHODS or (read and node.func.attr.value == "get")
        ):
            node = node.func.value
        else:
            return False
    if not isinstance(node, cst.Name) or depth > 3:
        return False
    bindings = provenance.bindings(frame)
    reaching = bindings.reaching_bindings(node)
    return bool(reaching) and all(
        (b.statement is bindings.root and isinstance(b.statement, cst.FunctionDef))
        or (b.value is not None and own_input(provenance, b.value, frame, depth + 1, read=read))
        for b in reaching
    )


def discarded_copy(ancestors: Sequence[cst.CSTNode], call: cst.Call) -> bool:
    """Whether ``call`` is a statement of its own, its value thrown away: a tensor's ``.cpu()``
    or ``.to("cpu")`` returns a copy and leaves the tensor where it was, so only a module's
    ``.to()``/``.cpu()`` (which moves its parameters in place) is written that way."""
    parent = ancestors[-1] if ancestors else None
    return isinstance(parent, cst.Expr) and parent.value is call


def written_to(ancestors: Sequence[cst.CSTNode], node: cst.Subscript) -> bool:
    """Whether ``node`` (below ``ancestors``) is written to (``x[mask] = v``, ``x[mask] += v``,
    ``del x[m]``): a write, not a read that would copy to the host."""
    parent = ancestors[-1] if ancestors else None
    if isinstance(parent, (cst.AssignTarget, cst.Del)):
        return True
    if isinstance(parent, cst.Element) and unpacked_target(ancestors[:-1]):
        return True  # ``(x[m], y[m]) = (0.0, 0.0)``: each element is assigned
    return isinstance(parent, (cst.AugAssign, cst.AnnAssign)) and parent.target is node


def _assigned_names(ancestors: Sequence[cst.CSTNode]) -> set[str]:
    """The plain names the statement around the end of ``ancestors`` assigns (``arr = ...``),
    when that statement is an assignment; else none."""
    for parent in reversed(ancestors):
        if isinstance(parent, cst.Assign):
            return {t.target.value for t in parent.targets if isinstance(t.target, cst.Name)}
        if isinstance(parent, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            break
    return set()
