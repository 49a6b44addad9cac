"""A read of a tensor whose device is unknown (``x.item()``, ``x.cpu()``, ``x.sum()`` as a size):
the tensor it surely is, or is computed from, unless that is host memory by its name, its data
or the input preparer; and whether a ``.cpu()`` moves state in place. HTD202 (a sync on a hot
path) asks these for its MEDIUM findings.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.arguments import host_named, keyword, positional
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.host_data import host_scalar
from h2dlint.analysis.host_inputs import prepared_on_host
from h2dlint.analysis.name_hints import module_named
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.tensor_kinds import annotated_tensor_parameter, tensor_evidence
from h2dlint.analysis.value_syncs import COMPARISON_OPERATORS, value_where
from h2dlint.context import FileContext
from h2dlint.walk import visit_read_only


def tensor_root(
    context: FileContext,
    tensor: cst.BaseExpression,
    frame: Frame,
    explicit: cst.Call | None,
    sizes: bool,
) -> cst.BaseExpression | None:
    """The tensor ``tensor`` surely is, or is computed from, when its device is
    unknown (see :func:`tensor_evidence`); None when it may be no tensor. With ``sizes``
    only a reduction of one (a 0-d tensor that may be used as a size) or a parameter annotated
    as a tensor (:func:`annotated_tensor_size`) counts. ``explicit``
    is the read: ``.item()``/``.tolist()`` exist only on arrays, and ``.cpu()`` only on
    tensors and modules (a used result of a ``.cpu()`` of something not named as a module
    is a tensor's)."""
    provenance = Provenance.of(context)
    if sizes:
        if isinstance(tensor, cst.Name) and annotated_tensor_size(provenance, tensor, frame):
            pass  # a parameter annotated as a tensor, used as a size: a 0-d tensor
        else:
            if isinstance(tensor, cst.Name):  # ``longest = lens.max()``, then the name
                tensor = bound_reduction(provenance, tensor, frame) or tensor
            if not _reduction(tensor):
                return None
            assert isinstance(tensor, cst.Call) and isinstance(tensor.func, cst.Attribute)
            tensor = tensor.func.value
    method = (
        explicit.func.attr.value
        if explicit is not None and isinstance(explicit.func, cst.Attribute)
        else None
    )
    # ``total = (target != ignore).sum()`` then ``total > 0``: :func:`read_reduction`; the
    # same count compared inline (``(target != ignore).sum() > 0``): :func:`compared_count`
    inline = compared_count(provenance, tensor, frame)
    tensor = inline if inline is not None else tensor
    read = (
        method in ("item", "tolist")
        or inline is not None
        or (isinstance(tensor, cst.Name) and read_reduction(provenance, tensor, frame))
    )
    root = tensor_evidence(provenance, tensor, frame, read=read)
    if method == "cpu" and moved_in_place(context, tensor):
        return None  # ``x.w = x.w.cpu()``: offloading a tensor (or a module), by design
    if root is None and method == "cpu" and not module_named(tensor):
        parent = context.ancestors[-1] if context.ancestors else None
        if not isinstance(parent, cst.Expr):
            root = tensor
    if root is None or host_named(root) or provenance.is_host_data(root, frame):
        return None  # a host tensor by name (``lengths_cpu.max()``), a numpy array
    if host_derived(provenance, root, frame):
        return None  # ``lens = qsl_cpu[1:] - qsl_cpu[:-1]``: computed from host tensors
    if isinstance(root, cst.Name) and _host_row(provenance, context.ancestors, root, frame):
        return None  # ``for g in batch.grid_thw_cpu``: a row of a host tensor
    if value_where(provenance, root, frame).on_host:
        return None
    if isinstance(root, cst.Name) and prepared_on_host(provenance, root, frame):
        return None  # the model's input preparer hands ``forward`` a host tensor
    return root


_REDUCTIONS = ("sum", "max", "min", "amax", "amin", "prod")


def _reduction(node: cst.BaseExpression) -> bool:
    """``x.max()``: a whole tensor reduced to one value (a 0-d tensor when ``x`` is one)."""
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in _REDUCTIONS
        and not node.args
    )


def bound_reduction(
    provenance: Provenance, name: cst.Name, frame: Frame
) -> cst.BaseExpression | None:
    """The reduction a local name is bound to where it is used (``longest = lens.max()``), when
    every binding reaching the use is that one reduction."""
    reaching = provenance.bindings(frame).reaching_bindings(name)
    if len(reaching) != 1 or reaching[0].value is None or not _reduction(reaching[0].value):
        return None
    return reaching[0].value


def read_reduction(provenance: Provenance, name: cst.Name, frame: Frame) -> bool:
    """Whether ``name`` is bound to a reduction (:func:`bound_reduction`) of an elementwise
    comparison that is not host data (``total = (target != ignore).sum()``, not
    ``(np.asarray(t) != ignore).sum()``, nor ``arr.min()`` of a parameter that may be a numpy
    array): its value, compared or tested, is read as ``.item()`` reads it."""
    value = bound_reduction(provenance, name, frame)
    return value is not None and _count_of_matches(provenance, value, frame)


def compared_count(
    provenance: Provenance, node: cst.BaseExpression, frame: Frame
) -> cst.BaseExpression | None:
    """The reduction of an elementwise comparison (see :func:`read_reduction`) that the value
    comparison ``node`` compares inline (``(target != ignore).sum() > 0``: the spelling of
    ``total = (target != ignore).sum()`` then ``total > 0`` without the name), or None."""
    if not isinstance(node, cst.Comparison) or not all(
        isinstance(c.operator, COMPARISON_OPERATORS) for c in node.comparisons
    ):
        return None
    for operand in (node.left, *(c.comparator for c in node.comparisons)):
        if _reduction(operand) and _count_of_matches(provenance, operand, frame):
            return operand
    return None


def _count_of_matches(provenance: Provenance, value: cst.BaseExpression, frame: Frame) -> bool:
    """Whether the reduction ``value`` (:func:`_reduction`) counts an elementwise comparison
    that is not host data."""
    if value_where(provenance, value, frame).on_host:
        return False
    assert isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
    counted = value.func.value  # only a count of matches: ``arr.min()`` may be numpy's
    return isinstance(counted, cst.Comparison) and not _any_host_operand(provenance, counted, frame)


def _any_host_operand(provenance: Provenance, node: cst.BaseExpression, frame: Frame) -> bool:
    """Whether an operand of the comparison or arithmetic ``node`` is host data (a numpy
    array compared with a number stays on the host)."""
    if isinstance(node, cst.Comparison):
        operands = [node.left, *(c.comparator for c in node.comparisons)]
        return any(_any_host_operand(provenance, o, frame) for o in operands)
    if isinstance(node, cst.BinaryOperation):
        sides = (node.left, node.right)
        return any(_any_host_operand(provenance, o, frame) for o in sides)
    return provenance.is_host_data(node, frame)


def host_derived(provenance: Provenance, root: cst.BaseExpression, frame: Frame) -> bool:
    """Whether ``root`` is a local name bound only to tensors computed from tensors whose names
    say host (``query_lens = qsl_cpu[1:] - qsl_cpu[:-1]``, ``longest = lens_cpu.max()``):
    arithmetic, slices and methods of a host tensor stay on the host (mixing in a device
    tensor of more than one element is an error)."""
    if not isinstance(root, cst.Name):
        return False
    reaching = provenance.bindings(frame).reaching_bindings(root)
    if not reaching:
        return False
    for binding in reaching:
        if binding.value is None:
            return False
        found = tensor_evidence(provenance, binding.value, frame)
        if found is None or not host_named(found):
            return False
    return True


def _host_row(
    provenance: Provenance,
    ancestors: Sequence[cst.CSTNode],
    name: cst.Name,
    frame: Frame,
) -> bool:
    """Whether ``name`` is the row (or an element of the row, ``for t, h, w in grid_cpu``) of
    the innermost loop around the node that binds it, and that loop walks a tensor whose name
    says host or that is proven on the host."""
    for node in reversed(ancestors):
        loops: list[cst.For | cst.CompFor] = []
        if isinstance(node, cst.For):
            loops.append(node)
        elif isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            clause: cst.CompFor | None = node.for_in
            while clause is not None:
                loops.insert(0, clause)  # the innermost clause binds last
                clause = clause.inner_for_in
        for loop in loops:
            target = loop.target
            names: list[cst.BaseExpression] = [target]
            if isinstance(target, (cst.Tuple, cst.List)):
                names = [e.value for e in target.elements]
            if not any(isinstance(n, cst.Name) and n.value == name.value for n in names):
                continue  # not this loop's row; an outer loop may bind it
            walked = loop.iter
            return (
                host_named(walked)
                or provenance.is_host_data(walked, frame)
                or value_where(provenance, walked, frame).on_host
            )
    return False


def moved_in_place(context: FileContext, tensor: cst.BaseExpression) -> bool:
    """Whether the ``.cpu()`` being visited is assigned back to the attribute or item it
    copies, or a slice of it (``self.buf = self.buf.cpu()``, ``w.data = w.data.cpu()``,
    ``batch[k] = batch[k][:, a:b].cpu()``): a move of state to the host, not a read."""
    ancestors = context.ancestors
    parent = ancestors[-1] if ancestors else None
    if not isinstance(parent, cst.Assign):
        return False
    code = context.module.code_for_node
    targets = {code(target.target) for target in parent.targets}
    node = tensor
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        if code(node) in targets:
            return True
        if not isinstance(node, cst.Subscript):
            return False
        node = node.value
    return False  # ``x = x.cpu()`` of a local name is a host copy to compute with


def annotated_comparison(provenance: Provenance, test: cst.BaseExpression) -> bool:
    """Whether ``test`` compares a parameter annotated as a tensor (``x: torch.Tensor``,
    ``Optional[torch.Tensor]``) by value: Python then calls ``bool()`` of a tensor."""
    if not isinstance(test, cst.Comparison) or not all(
        isinstance(c.operator, COMPARISON_OPERATORS) for c in test.comparisons
    ):
        return False
    frame = provenance.current_frame()
    operands = [test.left, *(c.comparator for c in test.comparisons)]
    if any(isinstance(o, cst.Name) and o.value == "None" for o in operands):
        return False  # ``mask != None``: a tensor compared with None gives a Python bool
    return any(
        isinstance(o, cst.Name) and annotated_tensor_size(provenance, o, frame) for o in operands
    )


def annotated_tensor_size(provenance: Provenance, name: cst.Name, frame: Frame) -> bool:
    """Whether ``name`` is a parameter annotated as a tensor that no call of its function in
    the module contradicts: a call passing a Python number for it (``x.shape[0]``, a name
    unpacked from ``x.shape``, ``len(...)``) says the annotation is wrong."""
    if not annotated_tensor_parameter(provenance, name, frame):
        return False
    function = frame.function
    if not isinstance(function, cst.FunctionDef):
        return False
    return not any(
        host_scalar(provenance, argument, caller)
        or _unpacked_size(provenance, argument, caller)
        or _config_field(argument, caller)
        for argument, caller in _arguments_for(provenance, function, frame, name.value)
    )


def _config_field(node: cst.BaseExpression, frame: Frame) -> bool:
    """``self.num_experts`` where the caller's class sets ``self.num_experts`` only from a
    field of its configuration (``self.num_experts = config.num_local_experts``, in any
    method): a number or a string read from a config, never a tensor."""
    if not (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and frame.cls is not None
        and node.value.value == frame.self_name
    ):
        return False
    finder = _AttributeSets(node.attr.value)
    visit_read_only(frame.cls, finder)
    return bool(finder.values) and all(_config_read(v) for v in finder.values)


def _config_read(value: cst.BaseExpression) -> bool:
    """``config.x``, ``self.config.x``, ``model_config.x``: a field of a ``*config``."""
    if not isinstance(value, cst.Attribute):
        return False
    owner = value.value
    last = owner.attr.value if isinstance(owner, cst.Attribute) else None
    if isinstance(owner, cst.Name):
        last = owner.value
    return last is not None and last.lower().endswith("config")


class _AttributeSets(cst.CSTVisitor):
    """The values assigned to ``self.<name>`` (any receiver named ``self``) in a class."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.values: list[cst.BaseExpression] = []

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            t = target.target
            if (
                isinstance(t, cst.Attribute)
                and t.attr.value == self.name
                and isinstance(t.value, cst.Name)
                and t.value.value == "self"
            ):
                self.values.append(node.value)


def _arguments_for(
    provenance: Provenance, function: cst.FunctionDef, frame: Frame, param: str
) -> list[tuple[cst.BaseExpression, Frame]]:
    """The arguments that calls of ``function`` in its module (``self.name(...)`` of its class,
    ``name(...)`` of a module function) pass for parameter ``param``, each with the frame of
    the function that makes the call."""
    params = [p.name.value for p in (*function.params.posonly_params, *function.params.params)]
    if frame.cls is not None and params and params[0] == frame.self_name:
        params = params[1:]
    position = params.index(param) if param in params else None
    collector = _CallsOf(function.name.value, method=frame.cls is not None)
    visit_read_only(provenance.context.module, collector)
    found: list[tuple[cst.BaseExpression, Frame]] = []
    for call, caller in collector.found:
        caller_frame = provenance.index.frame_of(caller)
        given = keyword(call, param)
        if given is not None:
            found.append((given.value, caller_frame))
            continue
        args = positional(call)
        if position is not None and position < len(args) and not args[position].star:
            found.append((args[position].value, caller_frame))
    return found


class _CallsOf(cst.CSTVisitor):
    """Calls of ``name`` (``self.name(...)``/``cls.name(...)`` for a method, else
    ``name(...)``) inside functions, with the innermost function around each."""

    def __init__(self, name: str, *, method: bool) -> None:
        self.name = name
        self.method = method
        self.stack: list[cst.FunctionDef] = []
        self.found: list[tuple[cst.Call, cst.FunctionDef]] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.stack.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.stack.pop()

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if self.method:
            hit = (
                isinstance(func, cst.Attribute)
                and func.attr.value == self.name
                and isinstance(func.value, cst.Name)
                and func.value.value in ("self", "cls")
            )
        else:
            hit = isinstance(func, cst.Name) and func.value == self.name
        if hit and self.stack:
            self.found.append((node, self.stack[-1]))


def _unpacked_size(provenance: Provenance, node: cst.BaseExpression, frame: Frame) -> bool:
    """``n`` bound only by unpacking a shape: ``b, n, _ = x.shape`` (Python ints)."""
    if not isinstance(node, cst.Name):
        return False
    reaching = provenance.bindings(frame).reaching_bindings(node)
    if not reaching:
        return False
    for binding in reaching:
        statement = binding.statement
        if binding.value is not None or not isinstance(statement, cst.SimpleStatementLine):
            return False
        assign = statement.body[0] if statement.body else None
        if not (
            isinstance(assign, cst.Assign)
            and isinstance(assign.targets[0].target, (cst.Tuple, cst.List))
            and isinstance(assign.value, (cst.Attribute, cst.Call))
        ):
            return False
        value = assign.value
        shape = (isinstance(value, cst.Attribute) and value.attr.value == "shape") or (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value == "size"
            and not value.args
        )
        if not shape:
            return False
    return True
