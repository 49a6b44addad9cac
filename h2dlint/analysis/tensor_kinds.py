"""Whether an expression is a tensor (its device unknown): annotations, dataclass fields, names
that say host, and the methods, functions and comparisons only tensors have. Split out of
``syncs.py``."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.arguments import keyword, positional
from h2dlint.analysis.backward_methods import backpropagated_names
from h2dlint.analysis.bindings import (
    COMPREHENSIONS,
    arithmetic_update,
    enumerated_item,
    zip_item,
    zipped_item,
)
from h2dlint.analysis.classes import class_of
from h2dlint.analysis.cross_module import field_annotation
from h2dlint.analysis.foreach_lists import foreach_result
from h2dlint.analysis.frames import Frame, parameter_annotation
from h2dlint.analysis.generation_hooks import generation_hook_parameter
from h2dlint.analysis.guarded_tensors import guarded_tensor
from h2dlint.analysis.host_operands import host_operands
from h2dlint.analysis.item_writes import used_as_tensor
from h2dlint.analysis.module_buffers import own_buffer
from h2dlint.analysis.none_defaults import defaulted, none_placeholder
from h2dlint.analysis.output_fields import device_output_field
from h2dlint.analysis.passed_tensors import passed_tensors
from h2dlint.analysis.provenance import Provenance, annotation_is
from h2dlint.analysis.provenance.core import ELEMENTWISE_COMPARISONS
from h2dlint.analysis.provenance.unpacked import element_fact
from h2dlint.analysis.same_value_uses import same_value_used_as_tensor
from h2dlint.analysis.scripted_parameters import scripted_parameter
from h2dlint.analysis.state_tensors import (
    annotated_tensor,
    own_tensor_attribute,
    returned_tensor,
    returned_tensors,
)
from h2dlint.analysis.sync_basics import METADATA_METHODS, RowLoop, Walk
from h2dlint.analysis.torch_api import (
    ARITHMETIC_HELPERS,
    ARRAY_METHODS,
    FRESH_FACTORIES,
    TENSOR_FUNCTIONS,
    TENSOR_ONLY_METHODS,
    TENSOR_VALUE_METHODS,
    functional_call,
    known_tensor_call,
)
from h2dlint.analysis.tuple_annotations import (
    tensor_annotation,
    tensor_item,
    tensor_type,
    unchanged_parameter_annotation,
    unpacked_tensor_item,
)
from h2dlint.analysis.tuple_targets import names_in_tuple, position_in_tuple, tuple_length
from h2dlint.walk import visit_read_only

# -- whether an expression is a tensor -----------------------------------------------------------


def annotated_tensor_parameter(provenance: Provenance, name: cst.Name, frame: Frame) -> bool:
    """Whether ``name`` is a parameter annotated as one tensor, and the parameter's value is
    the one that reaches ``name`` (any other binding of it is a known value, not a parameter)."""
    annotation = unchanged_parameter_annotation(provenance, name, frame)
    if annotation is None:  # TorchScript's bare parameters are ``Tensor``s
        return scripted_parameter(
            provenance, name, frame, unchanged=True
        ) or generation_hook_parameter(provenance, name, frame, unchanged=True)
    return tensor_annotation(provenance, annotation)


def tensor_sequence_parameter(provenance: Provenance, name: cst.Name, frame: Frame) -> bool:
    """Whether ``name`` is a parameter annotated as a sequence of tensors (``list[Tensor]``,
    ``Sequence[torch.Tensor]``, ``tuple[Tensor, ...]``), reaching ``name`` unchanged."""
    annotation = unchanged_parameter_annotation(provenance, name, frame)
    if annotation is None:
        return False

    def leaf(node: cst.BaseExpression) -> bool:
        if not isinstance(node, cst.Subscript):
            return False
        head = (provenance.qualify(node.value) or "").rpartition(".")[2]
        if isinstance(node.value, cst.Name) and node.value.value in ("list", "tuple"):
            head = node.value.value
        items = [e.slice.value for e in node.slice if isinstance(e.slice, cst.Index)]
        if head in ("list", "List", "Sequence"):
            return len(items) == 1 and tensor_type(provenance, items[0])
        if head in ("tuple", "Tuple"):
            return (
                bool(items)
                and tensor_type(provenance, items[0])
                and all(tensor_type(provenance, i) or isinstance(i, cst.Ellipsis) for i in items)
            )
        return False

    return annotation_is(provenance, annotation, leaf)


def annotated_tensor_field(provenance: Provenance, node: cst.Attribute, frame: Frame) -> bool:
    """Whether ``obj.attr`` is a field that ``obj``'s class (of the project) declares as one
    tensor in its body (``seq_lens: torch.Tensor`` of a dataclass of step inputs)."""
    owner = class_of(provenance, node.value, frame)
    if owner is None or owner.provenance is None or owner.node is None:
        return False
    annotation = field_annotation(owner.node, node.attr.value)
    if annotation is None:
        return False
    source = owner.provenance
    # the fact source of a module is its Provenance (a Protocol for the type only)
    assert isinstance(source, Provenance)
    return tensor_annotation(source, annotation)


def is_tensor(provenance: Provenance, node: cst.BaseExpression, frame: Frame) -> bool:
    """Whether ``node`` is proven to be one tensor (not a list, not a numpy array), wherever it
    is: the analysis knows where it is, or it is a parameter annotated as a tensor."""
    if provenance.fact(node, frame).known:
        return True
    return isinstance(node, cst.Name) and annotated_tensor_parameter(provenance, node, frame)


class _ShapeReads(cst.CSTVisitor):
    """The expressions whose ``.shape`` or ``.size(...)`` an expression reads."""

    def __init__(self) -> None:
        self.bases: list[cst.BaseExpression] = []

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value == "shape":
            self.bases.append(node.value)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "size" and node.args:
            self.bases.append(func.value)


def walks_its_rows(module: cst.Module, tensor: cst.BaseExpression, loop: RowLoop) -> bool:
    """Whether an index loop counts up to ``tensor``'s own length (``range(t.shape[0])``,
    ``range(t.size(0))``): ``t`` is an array (tensor, or numpy in a torch file) walked by row."""
    if loop.walk is not Walk.INDEX:
        return False
    finder = _ShapeReads()
    for bound in loop.bounds:
        visit_read_only(bound, finder)
    code = module.code_for_node(tensor)
    return any(module.code_for_node(base) == code for base in finder.bases)


# -- what proves an expression is a tensor (its device unknown) -----------------------------------


def tensor_evidence(
    provenance: Provenance,
    node: cst.BaseExpression,
    frame: Frame,
    *,
    read: bool = False,
    depth: int = 0,
) -> cst.BaseExpression | None:
    """When ``node`` is surely a tensor (or, with ``read``, surely an array read with
    ``.item()``/``.tolist()``, which only arrays have) though its device is unknown: the
    expression whose device decides where it is (``step_context.q_seqlens`` for
    ``step_context.q_seqlens.max()``); else None.

    Evidence: a parameter annotated as a tensor; a ``torch.<function>`` result
    (``torch.cat(...)``, ``torch.max(x)``); a method only tensors have (``x.int()``,
    ``x.detach()``), or one called with a keyword only tensor methods take
    (``logits.argmax(dim=-1)``, ``x.sum(1, keepdim=True)``; numpy says ``axis=``); with
    ``read``, a reduction (``x.sum(dim=1)``) or a comparison (``a == b``), which a Python
    value would not offer ``.item()``/``.tolist()`` on; a name bound only to such values.
    Host facts (numpy, ``.cpu()`` results) are the caller's to check: this answers "is it a
    tensor", not "where"; but a reduction or comparison of numpy arrays and numbers alone is
    no evidence with ``read`` (numpy offers the same reads: ``(counts < targets).any()``)."""
    if depth > 7:
        return None
    if isinstance(node, cst.NamedExpr):  # ``(oob := x < 0).any()``: the value it binds
        return tensor_evidence(provenance, node.value, frame, read=read, depth=depth + 1)
    if isinstance(node, cst.Name):
        if annotated_tensor_parameter(provenance, node, frame):
            return node
        if guarded_tensor(provenance, node, frame):
            return node  # read under ``if isinstance(node, torch.Tensor):``
        if used_as_tensor(frame.function, node):
            return node  # ``ids.masked_select(mask)`` of a name bound once: a tensor
        if same_value_used_as_tensor(provenance, node, frame):
            return node  # ``r = r.type_as(x)`` after the read: the same value, a tensor
        if node.value in backpropagated_names(provenance, frame):
            return node  # ``self.optimizer_update(optimizer, loss)``: a backward's loss
        bindings = provenance.bindings(frame)
        reaching = bindings.reaching_bindings(node)
        if not reaching:
            return None
        # ``t += x`` keeps a tensor a tensor: the bindings that reach the update decide
        # (each update is followed once: in a loop it reaches itself).
        pending = list(reaching)
        updates: set[cst.CSTNode] = set()
        proven = False
        while pending:
            binding = pending.pop()
            value = binding.value
            if value is None:
                if binding.statement is not bindings.root:
                    statement = binding.statement
                    if _row_of_tensor(provenance, statement, node.value, frame, depth):
                        proven = True
                        continue  # ``for row in t``: the rows of a tensor are tensors
                    target = _augmented(statement, node.value)
                    if target is not None:
                        if statement not in updates:
                            updates.add(statement)
                            pending.extend(bindings.reaching_bindings(target))
                        continue
                    if _unpacked_tensor(provenance, statement, node.value, frame, depth) is None:
                        return None
                    proven = True
                    continue
                annotation = parameter_annotation(node, frame)
                if annotation is None:  # a bare parameter: what every call passes
                    if scripted_parameter(provenance, node, frame):
                        proven = True  # TorchScript's bare parameters are tensors
                        continue
                    if generation_hook_parameter(provenance, node, frame):
                        proven = True  # ``generate()`` hands a hook its ids and scores
                        continue
                    if not passed_tensors(provenance, node, frame, depth, tensor_evidence):
                        return None
                elif not tensor_annotation(provenance, annotation):
                    return None
            elif none_placeholder(binding):
                continue  # ``x = None`` before ``x = t.any(dim=-1)``: the other bindings decide
            elif provenance.is_host_data(value, frame) or (
                tensor_evidence(provenance, value, frame, read=read, depth=depth + 1) is None
                and not defaulted(bindings, reaching, binding, node.value)  # a default's kind
            ):
                return None
            proven = True
        return node if proven else None
    if isinstance(node, cst.Subscript):
        inner = tensor_evidence(provenance, node.value, frame, depth=depth + 1)
        if inner is None and used_as_tensor(frame.function, node):
            return node  # ``cache["end"].fill_(n)`` in the function: the entry is a tensor
        if inner is None and tensor_item(provenance, node, frame):
            return node  # ``seq_info[0]`` of ``seq_info: Tuple[torch.Tensor, int]``
        return inner
    if isinstance(node, cst.Attribute):
        call = node.value
        if isinstance(call, cst.Name) and node.attr.value in ("values", "indices"):
            # ``max0 = scores.max(2)`` then ``max0.indices``: the reduction bound once
            bound = provenance.bindings(frame).reaching_bindings(call)
            call = bound[0].value or call if len(bound) == 1 else call
        if node.attr.value in ("values", "indices") and isinstance(call, cst.Call):
            # ``x.max(dim=0).values``: a field of the tuple a reduction returns
            func = call.func
            name = func.attr.value if isinstance(func, cst.Attribute) else ""
            if name in TUPLE_FUNCTIONS:
                return tensor_evidence(provenance, call, frame, read=read, depth=depth + 1)
        if annotated_tensor_field(provenance, node, frame) or own_buffer(node, frame):
            return node  # a declared tensor field, a module's registered buffer
        if read and device_output_field(provenance, node, frame):
            return node  # ``outputs.loss.item()`` of ``outputs = self.model(**batch)``
        attribute = own_tensor_attribute(provenance, node, frame, depth, tensor_evidence)
        return node if attribute else None
    if isinstance(node, cst.Comparison):
        if any(isinstance(c.operator, (cst.Is, cst.IsNot)) for c in node.comparisons):
            return None  # ``x is not None``: a Python bool, whatever ``x`` is
        operands = [node.left, *(c.comparator for c in node.comparisons)]
        if any(isinstance(o, cst.Name) and o.value == "None" for o in operands):
            return None  # ``x != None``: torch gives Python's identity answer, a bool
        for operand in operands:
            root = tensor_evidence(provenance, operand, frame, depth=depth + 1)
            if root is not None:
                return root
        if (
            read
            and all(isinstance(c.operator, ELEMENTWISE_COMPARISONS) for c in node.comparisons)
            and not host_operands(provenance, node, frame)
        ):
            return _plain(node.left)
        return None
    if isinstance(node, cst.BinaryOperation):
        for side in (node.left, node.right):
            root = tensor_evidence(provenance, side, frame, read=read, depth=depth + 1)
            if root is not None:
                return root
        return None
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.BitInvert):
        return tensor_evidence(provenance, node.expression, frame, read=read, depth=depth + 1)
    if isinstance(node, cst.IfExp):  # ``ones_like(ids) if m is None else m.bool()``: both arms
        arms = [
            tensor_evidence(provenance, a, frame, read=read, depth=depth + 1)
            for a in (node.body, node.orelse)
        ]
        return arms[0] if None not in arms else None
    if not isinstance(node, cst.Call):
        return None
    func = node.func
    qualified = provenance.qualify(func) or ""
    if qualified in ARITHMETIC_HELPERS and len(node.args) == 2:  # ``triton.cdiv(a, b)``
        arithmetic = cst.BinaryOperation(node.args[0].value, cst.FloorDivide(), node.args[1].value)
        return tensor_evidence(provenance, arithmetic, frame, read=read, depth=depth + 1)
    if qualified in TENSOR_FUNCTIONS or functional_call(qualified):
        first = positional(node)
        if not first:
            return node
        inner = first[0].value
        if isinstance(inner, (cst.Tuple, cst.List)):
            return node
        found = tensor_evidence(provenance, inner, frame, depth=depth + 1)
        return found if found is not None else _plain(inner) or node
    if returned_tensor(provenance, node, frame, depth, tensor_evidence):
        return node  # a project function that returns a tensor (annotated, or every return)
    if known_tensor_call(node, qualified):
        return node  # a typed tensor class
    if qualified in FRESH_FACTORIES and keyword(node, "device") is not None:
        return node  # ``torch.zeros(n, device=device)``: a tensor wherever ``device`` is
    if qualified or not isinstance(func, cst.Attribute):
        return None
    method = func.attr.value
    receiver = func.value
    if method in COLLECTIVE_METHODS and positional(node):
        # ``group.all_reduce(loss, op=AVG)``: a process group's collective returns its tensor
        return tensor_evidence(provenance, positional(node)[0].value, frame, depth=depth + 1)
    if method in METADATA_METHODS:
        return None  # ``x.numel()``, ``x.size(0)``: Python numbers, whatever ``x`` is
    torch_keyword = any(
        a.keyword is not None and a.keyword.value in TORCH_ONLY_KEYWORDS for a in node.args
    )
    if method == "to":
        # ``x.contiguous().to(torch.float32)``: a tensor's copy is a tensor (a module's or a
        # batch's ``.to()`` has no tensor evidence in its receiver).
        return tensor_evidence(provenance, receiver, frame, read=read, depth=depth + 1)
    if method in TENSOR_VALUE_METHODS:
        return tensor_evidence(provenance, receiver, frame, read=read, depth=depth + 1)
    if method in TENSOR_ONLY_METHODS or method in ARRAY_METHODS or torch_keyword:
        found = tensor_evidence(provenance, receiver, frame, read=read, depth=depth + 1)
        if found is not None:
            return found
        if method in TENSOR_ONLY_METHODS or torch_keyword:
            return _plain(receiver) or receiver
        if read and not host_operands(provenance, receiver, frame):
            return _plain(receiver) or receiver
    return None


# Collectives of a process-group object (``group.all_reduce(t)``) that return their result.
COLLECTIVE_METHODS = frozenset({"all_reduce", "all_gather", "reduce_scatter", "broadcast"})

# Keywords only tensor methods take (``x.argmax(dim=-1)``): numpy and pandas say ``axis=``.
TORCH_ONLY_KEYWORDS = frozenset({"dim", "keepdim"})

# ``torch.<name>`` functions and tensor methods that return a tuple of tensors on their input's
# device (``values, indices = torch.topk(x, k)``); those of them no numpy array or Python value
# has as a method.
TUPLE_FUNCTIONS = frozenset(
    {"topk", "sort", "max", "min", "median", "mode", "kthvalue", "aminmax", "cummax", "cummin"}
    | {"std_mean", "var_mean", "unique", "unique_consecutive", "frexp"}
)
TUPLE_ONLY_METHODS = frozenset({"topk", "kthvalue", "aminmax", "cummax", "cummin"})


def _augmented(statement: cst.CSTNode, name: str) -> cst.Name | None:
    """The target of ``statement`` when it updates ``name`` in place with arithmetic (``total
    += x.sum()``, ``t *= 2``), else None: a tensor stays a tensor (a Python number updated with
    a tensor becomes one, but then its earlier binding is no tensor, and says no)."""
    return arithmetic_update(statement, name)


def _unpacked_tensor(
    provenance: Provenance, statement: cst.CSTNode, name: str, frame: Frame, depth: int
) -> cst.BaseExpression | None:
    """When ``statement`` unpacks a tuple of tensors into ``name`` (``weights, ids =
    torch.topk(x, k)``, ``vals, idx = x.sort()``): the expression whose device decides where
    the tensors are; else None."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return None
    for small in statement.body:
        if not isinstance(small, cst.Assign):
            continue
        if isinstance(small.value, (cst.ListComp, cst.GeneratorExp)) and names_in_tuple(
            small.targets, name
        ):
            # ``q, k, v = [x.transpose(1, 2).contiguous() for x in (q, k, v)]``: each element
            # is what the comprehension's expression makes.
            return tensor_evidence(provenance, small.value.elt, frame, depth=depth + 1)
        if unpacked_tensor_item(provenance, small, name, frame):
            return small.value  # ``lengths, cu, n = seq_info`` of an annotated tuple
        if not isinstance(small.value, cst.Call):
            continue
        if not names_in_tuple(small.targets, name):
            continue
        call = small.value
        position = position_in_tuple(small.targets, name)
        if position is not None and annotated_tensor(provenance, call, frame, position):
            length = tuple_length(small.targets)
            if element_fact(provenance, call, position, length, frame, depth + 1).where.on_host:
                # ``-> tuple[..., torch.Tensor]`` over ``return frames, np.arange(n) / r``
                # (diffusers' MIDI processor): what the returns make wins (session 30)
                return None
            return call  # ``sampled, _ = self.sampler(...)``, its ``forward`` annotated
        if position is not None and returned_tensors(
            provenance, call, frame, position, tuple_length(small.targets), depth, tensor_evidence
        ):
            return call  # ``theta, delta = self._active(nu)``: each return a pair of tensors
        qualified = provenance.qualify(call.func) or ""
        if qualified.startswith("torch.") and qualified[6:] in TUPLE_FUNCTIONS:
            first = positional(call)
            if not first:
                return None
            inner = first[0].value
            found = tensor_evidence(provenance, inner, frame, depth=depth + 1)
            return found if found is not None else _plain(inner) or call
        func = call.func
        if (
            qualified
            or not isinstance(func, cst.Attribute)
            or func.attr.value not in TUPLE_FUNCTIONS
        ):
            return None
        receiver = func.value
        found = tensor_evidence(provenance, receiver, frame, depth=depth + 1)
        if found is not None:
            return found
        if func.attr.value in TUPLE_ONLY_METHODS:
            return _plain(receiver) or receiver
        return None
    return None


def _row_of_tensor(
    provenance: Provenance, statement: cst.CSTNode, name: str, frame: Frame, depth: int
) -> bool:
    """Whether ``statement`` is ``for name in t`` (or ``for i, name in enumerate(t)``, ``for x,
    name in zip(xs, t)``; also a comprehension's ``for``) over ``t`` that is surely a tensor,
    or over a list built with one tensor per item (``rows = [ids[m] for ids, m in zip(x, ms)]``
    then ``for row in rows``)."""
    iterable = zipped_item(statement, name) or comprehension_item(statement, name)
    if iterable is None:
        return False
    if tensor_evidence(provenance, iterable, frame, depth=depth + 1) is not None:
        return True
    return _tensor_per_item(provenance, iterable, frame, depth)


def comprehension_item(node: cst.CSTNode, name: str) -> cst.BaseExpression | None:
    """What ``name`` is an item of when the comprehension ``node`` binds it as :func:`zipped_item`
    says of a loop: ``ys`` of ``[... for x, name in zip(xs, ys)]``, ``xs`` of ``for name in xs``
    (also through ``enumerate``); None otherwise."""
    if not isinstance(node, COMPREHENSIONS):
        return None
    clause: cst.CompFor | None = node.for_in
    while clause is not None:
        found = zip_item(clause.target, clause.iter, name)
        target, iterable = enumerated_item(clause.target, clause.iter)
        if found is None and isinstance(target, cst.Name) and target.value == name:
            found = iterable
        if found is not None:
            return found
        clause = clause.inner_for_in
    return None


def _tensor_per_item(
    provenance: Provenance, iterable: cst.BaseExpression, frame: Frame, depth: int
) -> bool:
    """Whether ``iterable`` is a list comprehension or a ``torch._foreach_<op>`` result (or a
    name bound only to those) whose every item is surely a tensor: its items are, though the
    list is none."""
    values: list[cst.BaseExpression | None] = [iterable]
    if isinstance(iterable, cst.Name):
        values = list(provenance.bindings(frame).reaching(iterable))
    return bool(values) and all(
        foreach_result(provenance, v)
        or (
            isinstance(v, (cst.ListComp, cst.GeneratorExp))
            and tensor_evidence(provenance, v.elt, frame, depth=depth + 1) is not None
        )
        for v in values
    )


def _plain(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """``node`` when it is a name, an attribute chain or a subscript of one (something the
    message can name), else None."""
    inner = node
    while isinstance(inner, (cst.Attribute, cst.Subscript)):
        inner = inner.value
    return node if isinstance(inner, cst.Name) else None
