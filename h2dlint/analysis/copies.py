"""Recognising host-to-device copies (``x.to(dev, ...)``, ``x.cuda(...)``, ``dst.copy_(x, ...)``)
and the joins whose fresh result they copy."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.argument_flow import arguments
from h2dlint.analysis.arguments import first_positional, host_named, is_true, keyword
from h2dlint.analysis.fact_source import FactSource
from h2dlint.analysis.factories import RANDOM_FACTORIES, SHAPE_FACTORIES, factory_of
from h2dlint.analysis.facts import Where
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.targets import Target
from h2dlint.analysis.torch_api import JOINS
from h2dlint.analysis.views import Layout, layout, permutation_view


def h2d_copy_source(
    provenance: Provenance, node: cst.Call, frame: Frame
) -> cst.BaseExpression | None:
    """The source of ``node`` when it is a copy (``x.to(dev)``, ``x.cuda()``,
    ``dst.copy_(x)``) that may go host to device (its destination is not provably host
    memory), else None."""
    func = node.func
    if not isinstance(func, cst.Attribute) or func.attr.value not in ("to", "cuda", "copy_"):
        return None
    method = func.attr.value
    if method == "copy_":
        source = first_positional(node)
        if source is None or host_named(func.value):
            return None
        if provenance.where(func.value, frame) not in (Where.DEVICE, Where.UNKNOWN):
            return None  # the destination is host memory: not a host-to-device copy
        return source
    if method == "to" and provenance.to_target(node, frame) is not Target.DEVICE:
        return None
    return func.value


def non_blocking_h2d_source(
    provenance: Provenance, node: cst.Call, frame: Frame
) -> cst.BaseExpression | None:
    """The source of ``node`` when it is a ``non_blocking=True`` copy that may go host to
    device (:func:`h2d_copy_source`), else None."""
    non_blocking = keyword(node, "non_blocking")
    if non_blocking is None or not surely_true(provenance, non_blocking.value, frame):
        return None
    source = h2d_copy_source(provenance, node, frame)
    if source is None and non_blocking_to_unnamed_device(provenance, node, frame):
        assert isinstance(node.func, cst.Attribute)
        return node.func.value
    return source


def surely_true(
    provenance: Provenance, node: cst.BaseExpression, frame: Frame, depth: int = 0
) -> bool:
    """Whether ``node`` is ``True``: the literal, or a name that every binding makes ``True``
    where it is bound: in its function, else in a function around it (``non_blocking = True``
    in a worker loop, read by its nested ``preprocess()``), else at module level
    (``NON_BLOCKING = True``); a parameter that every call of its function passes ``True``
    for (:mod:`~h2dlint.analysis.argument_flow`: ``to_device(x, dev, non_blocking=True)``).
    Any other value is not known to be."""
    if is_true(node):
        return True
    if not isinstance(node, cst.Name):
        return False
    bindings = provenance.bindings(frame)
    reaching = bindings.reaching_bindings(node)
    if reaching and bindings.is_parameter(node):
        assert isinstance(frame.function, cst.FunctionDef)
        passed = arguments(provenance, frame.function, node.value) if depth < 3 else None
        return bool(passed) and all(
            surely_true(_provenance(a.source), a.value, a.frame, depth + 1) for a in passed or ()
        )
    if reaching:
        return all(b.value is not None and is_true(b.value) for b in reaching)
    if not isinstance(frame.function, cst.FunctionDef):
        return False
    ancestors = provenance.context.ancestors
    if frame.function not in ancestors:
        return False  # not the function being visited: its enclosing ones are not at hand
    around: list[cst.FunctionDef | cst.Module] = [
        a for a in ancestors[: ancestors.index(frame.function)] if isinstance(a, cst.FunctionDef)
    ]
    for function in (*reversed(around), provenance.context.module):
        values = provenance.bindings(Frame(function)).of(node.value)  # a parameter's is None
        if values:
            return all(v is not None and is_true(v) for v in values)
    return False


def non_blocking_to_unnamed_device(provenance: Provenance, node: cst.Call, frame: Frame) -> bool:
    """``x.to(d, non_blocking=True)`` whose target the analysis cannot name (``d``,
    ``target``: neither a device nor the host nor a dtype by value or by name). Asking for a
    non-blocking copy says it goes to a device, unless the target is proven host memory (a
    device-to-host copy, ``x.to("cpu", non_blocking=True)``) or a dtype (no copy at all), or
    there is no target (``x.to(non_blocking=True)``, ``x.to(memory_format=...)``)."""
    func = node.func
    if not isinstance(func, cst.Attribute) or func.attr.value != "to":
        return False
    if provenance.to_target(node, frame) is not Target.UNKNOWN:
        return False  # named: a device (h2d_copy_source took it), the host or a dtype
    device = keyword(node, "device")
    target = device.value if device is not None else first_positional(node)
    if target is None or isinstance(target, (cst.SimpleString, cst.FormattedString)):
        return False
    # ``x.to(other)``: the device (and dtype) of another tensor, host when it is on the host.
    return not provenance.where(target, frame).on_host


def fresh_join(provenance: Provenance, call: cst.Call) -> bool:
    """``torch.cat``/``stack``-family call without ``out=``: it makes a fresh tensor."""
    return provenance.qualify(call.func) in JOINS and keyword(call, "out") is None


def fresh_joins(provenance: Provenance, source: cst.BaseExpression, frame: Frame) -> list[cst.Call]:
    """The fresh joins (:func:`fresh_join`) ``source`` is: itself, or the ones every binding
    that may reach it is. HTD104 judges copies of these; a join with ``out=`` is judged by
    its buffer, as any other tensor."""
    if isinstance(source, cst.Call):
        return [source] if fresh_join(provenance, source) else []
    if isinstance(source, cst.Name):
        values = provenance.bindings(frame).reaching(source)
        if values and all(isinstance(v, cst.Call) and fresh_join(provenance, v) for v in values):
            return [v for v in values if isinstance(v, cst.Call)]
    return []


def permutation_staged(provenance: Provenance, node: cst.Call, frame: Frame) -> bool:
    """Whether a dense permuted source is gathered: always by ``copy_`` (unless the
    destination is permuted too), by ``.to``/``.cuda`` only into a contiguous format."""
    func = node.func
    assert isinstance(func, cst.Attribute)
    if func.attr.value == "copy_":
        dst = func.value
        if permutation_view(dst):
            return False  # transposed alike, maybe: the strides may match
        return layout(provenance, dst, frame) is not Layout.PERMUTED
    memory_format = keyword(node, "memory_format")
    return (
        memory_format is not None
        and provenance.qualify(memory_format.value) == "torch.contiguous_format"
    )


def implies_host(copy: cst.Call, method: str) -> bool:
    """Whether the copy itself says its source is on the host: only host tensors can be pinned,
    and `non_blocking=True` to a device is written for host-to-device copies."""
    if method == "pin_memory":
        return True
    non_blocking = keyword(copy, "non_blocking")
    return non_blocking is not None and is_true(non_blocking.value)


def device_copy_of(
    provenance: Provenance, node: cst.Call, name: str, frame: Frame
) -> tuple[cst.BaseExpression, bool] | None:
    """For ``node``, a call of ``name`` (``to``, ``cuda``, ``tensor``, ``as_tensor``,
    ``asarray``) that copies to the device: the copied expression, and whether it is proven
    host memory or host data. None for any other call, and for a factory of shapes or random
    numbers moved (HTD301's)."""
    func = node.func
    if name in ("to", "cuda"):
        if not isinstance(func, cst.Attribute):
            return None  # a function named ``to``/``cuda`` (tensordict's ``to(...)``), no method
        if name == "to" and provenance.to_target(node, frame) is not Target.DEVICE:
            return None
        source = func.value
        factory = factory_of(source)
        if factory is not None and provenance.qualify(factory.func) in (
            SHAPE_FACTORIES | RANDOM_FACTORIES
        ):
            return None  # HTD301's finding
        where = provenance.where(source, frame)
        if where is Where.DEVICE:
            return None
        return source, where.on_host or provenance.is_host_data(source, frame)
    if provenance.qualify(func) not in ("torch.tensor", "torch.as_tensor", "torch.asarray"):
        return None
    device = keyword(node, "device")
    data = first_positional(node)
    if device is None or data is None or keyword(node, "pin_memory") is not None:
        return None
    if provenance.device_target(device.value, frame, allocation=True) is not Target.DEVICE:
        return None
    if isinstance(data, (cst.List, cst.Tuple)) and not data.elements:
        return None  # empty: nothing is copied
    host = provenance.is_host_data(data, frame) or provenance.where(data, frame).on_host
    return data, host


def _provenance(source: FactSource) -> Provenance:
    assert isinstance(source, Provenance)
    return source


def gathered_table(provenance: Provenance, call: cst.Call) -> cst.BaseExpression | None:
    """The tensor whose rows ``call`` gathers into a fresh tensor: ``x`` of
    ``x.index_select(dim, idx)`` or ``torch.index_select(x, dim, idx)`` without ``out=``; None
    for any other call. Like a join, the gather writes new pageable memory, even out of a
    pinned buffer."""
    if keyword(call, "out") is not None:
        return None
    func = call.func
    if provenance.qualify(func) == "torch.index_select":
        return first_positional(call)
    if isinstance(func, cst.Attribute) and func.attr.value == "index_select":
        if provenance.qualify(func.value) == "torch":
            return None
        return func.value
    return None


def fresh_gathers(
    provenance: Provenance, source: cst.BaseExpression, frame: Frame
) -> list[tuple[cst.Call, cst.BaseExpression]]:
    """The fresh gathers (:func:`gathered_table`) ``source`` is, each with the tensor it
    gathers from: itself, or the ones every binding that may reach it is."""
    calls: list[cst.Call] = []
    if isinstance(source, cst.Call):
        calls = [source]
    elif isinstance(source, cst.Name):
        values = provenance.bindings(frame).reaching(source)
        if values and all(isinstance(v, cst.Call) for v in values):
            calls = [v for v in values if isinstance(v, cst.Call)]
    found = [(c, gathered_table(provenance, c)) for c in calls]
    if not found or any(table is None for _, table in found):
        return []
    return [(c, table) for c, table in found if table is not None]
