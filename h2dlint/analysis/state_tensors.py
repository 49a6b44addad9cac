"""Tensors known from state and helpers, their device unknown (session 30, recall30): an
object's attribute every assignment of which in its class is a tensor (a search strategy's or a
sampler's state kept between the steps of a decoding loop), names unpacked from a project
helper whose every return is a display with a tensor at that position, and a call of a project
helper whose every return is surely a tensor. What proves a single
expression a tensor is :func:`h2dlint.analysis.tensor_kinds.tensor_evidence`, handed in as
``evidence`` (it asks these in turn)."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from h2dlint.analysis.arguments import keyword
from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.grounded_attributes import grounded, grounding
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.returned_tensors import returned_annotation
from h2dlint.analysis.returns import returned_values
from h2dlint.analysis.torch_api import FRESH_FACTORIES
from h2dlint.analysis.tuple_annotations import tensor_annotation
from h2dlint.context import SharedKey

# ``tensor_evidence(provenance, node, frame, depth=...)``: the expression proving ``node`` a
# tensor, or None.
Evidence = Callable[..., "cst.BaseExpression | None"]


def own_tensor_attribute(
    provenance: Provenance, node: cst.Attribute, frame: Frame, depth: int, evidence: Evidence
) -> bool:
    """Whether ``self.<attr>`` is surely a tensor because every assignment of it in the class
    is one (``self.is_finished = topk_ids.eq(eos)``; ``self.seq = torch.cat([self.seq, ids],
    -1)``): a search strategy's or a
    sampler's state kept between the steps of a decoding loop (session 30: OpenNMT's
    ``GreedySearch.update_finished`` reads ``self.is_finished.view(-1).nonzero()``). An
    assignment of ``None`` is passed over (a tensor then, when it is used as one); an
    augmented one (``self.scores += s``) keeps a tensor a tensor; an unpacked one
    (``ids, self.scores = self._pick(x)``), or any value not surely a tensor, proves
    nothing, as does a factory given a ``device=`` the analysis could not place
    (:func:`_placed_on_purpose`), a conversion by a helper (:func:`_converted`) or an
    assignment on the host (``self.sigmas = self.sigmas.to("cpu")``: diffusers' schedulers
    keep their sigmas on the host to read them without a sync). Assignments from outside the
    class are not seen."""
    assigned = own_assignments(provenance, node, frame)
    if assigned is None or frame.cls is None:
        return False
    attr = node.attr.value
    # An attribute assigned from itself (``self.seq = self.seq[keep]``) asks again while its
    # assignments are judged: provenance's cycle guard answers, so facts memoised meanwhile
    # know they depended on it.
    key = ("own_tensor_attribute", frame.cls, attr)
    values = [(v, f) for v, f in assigned if v is not None and not none_literal(v)]
    unknown = sum(1 for v, _ in assigned if v is None)
    if not values or unknown > provenance.index.attributes.in_place(frame.cls, attr):
        return False
    if any(
        _placed_on_purpose(provenance, value, where)
        or _converted(provenance, value, attr, where)
        or provenance.fact(value, where).where.on_host
        for value, where in values
    ):
        return False
    if not provenance._begin(key):
        return not grounding(key)  # the other assignments decide (grounded_attributes)
    try:

        def proves(value: cst.BaseExpression, where: Frame) -> bool:
            return evidence(provenance, value, where, depth=depth + 1) is not None

        return all(proves(v, w) for v, w in values) and grounded(
            provenance, key, frame.cls, values, attr, proves
        )
    finally:
        provenance._in_progress.discard(key)


def _converted(provenance: Provenance, value: cst.BaseExpression, attr: str, frame: Frame) -> bool:
    """``self.splits = maybe_move_tensor_to_cpu(self.splits, as_numpy=True)``: the attribute
    handed to a helper of the project (not a ``torch`` function, not a method of the value)
    that converts it; what the helper's annotation says proves nothing (megatron's says
    ``-> torch.Tensor`` and returns a numpy array), and the value read later is that copy."""
    if not isinstance(value, cst.Call) or (provenance.qualify(value.func) or "").startswith(
        "torch."
    ):
        return False
    func = value.func
    if isinstance(func, cst.Attribute) and _is_own_attribute(func.value, attr, frame):
        return False  # ``self.x.to(device)``: a method of the value itself
    return any(_is_own_attribute(a.value, attr, frame) for a in value.args)


def _is_own_attribute(node: cst.BaseExpression, attr: str, frame: Frame) -> bool:
    return (
        isinstance(node, cst.Attribute)
        and node.attr.value == attr
        and isinstance(node.value, cst.Name)
        and node.value.value == frame.self_name
    )


def _placed_on_purpose(provenance: Provenance, value: cst.BaseExpression, frame: Frame) -> bool:
    """``torch.arange(n, device=self.idx_device)``: a tensor made where the code chose, which
    the analysis could not place (a choice between the GPU and the host: megatron's
    dispatcher keeps its permutation indices on the host when not fused, to read them
    without a sync). Its reads are not reported as a tensor's of unknown placement. One the
    analysis places on the device (``torch.empty(..., device=device)`` of a parameter named
    ``device``) is no such choice (session 31: OpenNMT-py's beam search allocates its top-k
    buffers so, then rebinds them to what its ``_pick`` returns)."""
    if not isinstance(value, cst.Call) or keyword(value, "device") is None:
        return False
    if (provenance.qualify(value.func) or "") not in FRESH_FACTORIES:
        return False
    return provenance.fact(value, frame).where is not Where.DEVICE


def own_assignments(
    provenance: Provenance, node: cst.Attribute, frame: Frame
) -> list[tuple[cst.BaseExpression | None, Frame]] | None:
    """Every value assigned to ``self.<attr>`` in the class of ``frame`` (None for one the
    index could not tell, an unpacked one), with the frame it is assigned in; None when
    ``node`` is not an attribute of the method's own object."""
    base = node.value
    cls = frame.cls
    if cls is None or not isinstance(base, cst.Name) or base.value != frame.self_name:
        return None
    return list(provenance.index.attributes.get(cls, {}).get(node.attr.value, []))


def none_literal(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def returned_tensors(
    provenance: Provenance,
    call: cst.Call,
    frame: Frame,
    position: int,
    length: int,
    depth: int,
    evidence: Evidence,
) -> bool:
    """Whether every ``return`` of the project function ``call`` calls is a display of
    ``length`` values whose element ``position`` is surely a tensor in the callee
    (``return torch.tensor([], device=d), ...`` and ``return theta[idx], delta[idx]``;
    session 30: botorch 0.9.5's elliptical slice sampler tests ``delta_active[0] == -1`` of
    the pair its helper returns, each sampler step, a helper annotated ``-> Tensor``)."""
    if depth > 4 or length < 2:
        return False
    found = provenance.callee(call, frame, depth + 1)
    if found is None:
        return False
    owner, function = found
    if not isinstance(owner, Provenance):
        return False
    values = [v for v in returned_values(function) if not none_literal(v)]
    if not values:
        return False
    where = owner.index.frame_of(function)
    for value in values:
        if not isinstance(value, (cst.Tuple, cst.List)) or len(value.elements) != length:
            return False
        if any(isinstance(e, cst.StarredElement) for e in value.elements):
            return False
        element = value.elements[position].value
        if evidence(owner, element, where, depth=depth + 1) is None:
            return False
    return True


# Libraries whose functions are not looked up for a return annotation (not the project's).
OTHER_LIBRARIES = frozenset({"torch", "numpy", "np", "math", "builtins", "triton", "itertools"})


def annotated_tensor(
    provenance: Provenance, call: cst.Call, frame: Frame, position: int | None = None
) -> bool:
    """Whether ``call`` (or element ``position`` of the tuple it returns) is a tensor by its
    callee's return annotation (:mod:`returned_tensors`); other libraries' are not looked up."""
    head = (provenance.qualify(call.func) or "").partition(".")[0]
    if head in OTHER_LIBRARIES:
        return False
    found = returned_annotation(provenance, call, frame, position)
    return found is not None and tensor_annotation(found[0], found[1])


def returned_tensor(
    provenance: Provenance, call: cst.Call, frame: Frame, depth: int, evidence: Evidence
) -> bool:
    """Whether ``call`` is a tensor by its project callee's return annotation
    (:func:`annotated_tensor`) or, for an unannotated callee, because every ``return`` of it
    gives surely a tensor there (``def sample_text_token(logits, ...): ... return
    torch.multinomial(probs, 1)``; session 50: transfusion-pytorch 0.20.0 reads
    ``sampled.item()`` of it per decoded token). A ``None`` return is left out, as an
    ``Optional`` annotation would; a return of anything not proven a tensor says no."""
    if annotated_tensor(provenance, call, frame):
        return True
    if depth > 4 or (provenance.qualify(call.func) or "").partition(".")[0] in OTHER_LIBRARIES:
        return False
    found = provenance.callee(call, frame, depth + 1)
    if found is None:
        return False
    owner, function = found
    if not isinstance(owner, Provenance) or function.returns is not None:
        return False
    # Per callee, once per file, with a depth budget of its own: the answer does not depend
    # on who asks (a chain of helpers is followed callee by callee; a cycle says no).
    known = owner.context.shared(_RETURNS_TENSORS, dict)
    if function not in known:
        known[function] = False
        values = [v for v in returned_values(function) if not none_literal(v)]
        where = owner.index.frame_of(function)
        known[function] = bool(values) and all(
            evidence(owner, value, where, depth=1) is not None for value in values
        )
    return known[function]


# Per file: whether every return of an unannotated function is surely a tensor.
_RETURNS_TENSORS: SharedKey[dict[cst.FunctionDef, bool]] = SharedKey("returns tensors")
