"""A value the same function uses as a tensor is a tensor: ``cache["end"].fill_(n)`` says that
``cache["end"]`` is one, so its ``cache["end"].item()`` elsewhere in the function is a tensor's
read (a KV cache kept as a dict of tensors: ``{"k": ..., "end": torch.tensor([0], device=dev)}``);
``ids.masked_select(mask)`` says that ``ids`` is one, so ``(ids >= lo).nonzero()`` is a tensor's
data-sized call.

The use must be a method that no Python value and no numpy array has: an in-place tensor method
(``fill_``, ``zero_``, ``copy_``, ``add_``...: numpy's ``fill`` has no underscore) or one of a
few tensor-only methods (``masked_select``, ``detach``, ``contiguous``, ``new_zeros``...), called on
the same container entry (the same constant key of the same name or attribute) or on a local
name the function binds once (a parameter or one assignment: a rebound name may hold other
values; a rebinding by arithmetic on itself, ``loss = loss / n`` or ``loss /= n``, keeps the
kind and is no second binding: :mod:`h2dlint.analysis.self_rebindings`). Where the value
lives stays unknown: a read of it is at most a MEDIUM finding.

A name is also used as a tensor where a ``torch`` function that takes only tensors gets it, or a
comparison of it with constants, as its first argument: ``torch.where(ids == IMAGE_TOKEN)``
(a list or a number compared gives a Python bool, a numpy array compared an array, and
``torch.where`` takes neither), ``torch.ones_like(ids)``. A comprehension's own ``for`` names
are its own: neither a binding of the function's name nor a use of it; a use inside the
comprehension proves its own name a tensor when no other binding in the function has that name
(``[item.masked_select(m) for item, m in zip(x, masks)]``).
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.backward_calls import backward_loss
from h2dlint.analysis.names import bound_parameters
from h2dlint.analysis.self_rebindings import keeps_kind
from h2dlint.walk import visit_read_only

# In-place tensor methods: a container entry written with one of them is a tensor.
IN_PLACE_TENSOR_METHODS = frozenset(
    {
        "fill_",
        "zero_",
        "copy_",
        "add_",
        "sub_",
        "mul_",
        "div_",
        "clamp_",
        "masked_fill_",
        "index_fill_",
        "index_copy_",
        "index_add_",
        "scatter_",
        "scatter_add_",
        "resize_",
    }
)
# Methods only tensors have (numpy and Python values have none of them by these names).
# Narrower on purpose than ``torch_api.TENSOR_ONLY_METHODS``, which judges values already known
# to be arrays: an entry or name of unknown type proves a tensor only by a method no other
# library's object shares (``.float()``, ``.clone()``, ``.exp()`` and ``.expand()`` are found
# on numbers, configs, decimals and sympy expressions).
TENSOR_USE_METHODS = IN_PLACE_TENSOR_METHODS | frozenset(
    {
        "masked_select",
        "masked_fill",
        "masked_scatter",
        "detach",
        "contiguous",
        "new_zeros",
        "new_ones",
        "new_full",
        "new_empty",
        "new_tensor",
        "type_as",
        "view_as",
        "expand_as",
        "index_select",
        "repeat_interleave",
        "narrow",
        "unsqueeze",
        "count_nonzero",
        # ``loss.backward()``: autograd's entry point, a tensor's (a loss summed from a dict
        # of terms, ``sum(loss_dict.values())``, has no other evidence)
        "backward",
    }
)


def _entry_key(node: cst.BaseExpression) -> str | None:
    """``cache["end"]`` (a constant string key of a name or attribute) as comparable text."""
    if not isinstance(node, cst.Subscript) or len(node.slice) != 1:
        return None
    index = node.slice[0].slice
    if not isinstance(index, cst.Index) or not isinstance(index.value, cst.SimpleString):
        return None
    value = node.value
    parts: list[str] = []
    while isinstance(value, cst.Attribute):
        parts.append(value.attr.value)
        value = value.value
    if not isinstance(value, cst.Name):
        return None
    parts.append(value.value)
    return ".".join(reversed(parts)) + f"[{index.value.evaluated_value!r}]"


class _TensorUses(cst.CSTVisitor):
    """The entries (``cache["end"]``) and names a function uses as tensors, and how many times
    it binds each name."""

    def __init__(self) -> None:
        self.keys: set[str] = set()
        self.bindings: dict[str, int] = {}
        self.shadowed: list[frozenset[str]] = []  # the ``for`` names of comprehensions around
        # A comprehension's own names used as tensors inside it, and how many comprehensions
        # bind each name: ``[item.masked_select(m) for item, m in zip(x, masks)]``.
        self.own_keys: set[str] = set()
        self.own_bindings: dict[str, int] = {}

    def _use(self, name: str) -> None:
        if any(name in names for names in self.shadowed):
            self.own_keys.add(name)
        else:
            self.keys.add(name)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == "torch"
            and func.attr.value in TENSOR_ARGUMENT_FUNCTIONS
            and node.args
            and not node.args[0].star
            and node.args[0].keyword is None
        ):
            compared = _compared_name(node.args[0].value)
            if compared is not None:
                self._use(compared)
        if isinstance(func, cst.Attribute) and func.attr.value == "save_for_backward":
            # an autograd ``Function`` saves only tensors (or ``None``) so: ``forward(ctx, q,
            # cu_seqlens)`` that saves ``cu_seqlens`` was given a tensor
            for arg in node.args:
                if arg.star == "" and isinstance(arg.value, cst.Name):
                    self.keys.add(arg.value.value)
        if (loss := backward_loss(node)) is not None:
            self.keys.add(loss)  # ``self._backward_pass(loss)``: a backward pass's loss
        if isinstance(func, cst.Attribute) and func.attr.value in TENSOR_USE_METHODS:
            if isinstance(func.value, cst.Name):
                self._use(func.value.value)
            else:
                key = _entry_key(func.value)
                if key is not None:
                    self.keys.add(key)

    def _bind(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.bindings[target.value] = self.bindings.get(target.value, 0) + 1
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind(element.value)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for assigned in node.targets:
            target = assigned.target
            # ``loss = loss / n``, ``loss = loss.mean()`` keep the kind: no second binding
            if not (isinstance(target, cst.Name) and keeps_kind(target.value, node.value)):
                self._bind(target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if not isinstance(node.target, cst.Name):  # ``loss /= n`` keeps a tensor a tensor
            self._bind(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._bind(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._bind(node.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind(node.target)

    def _enter(self, node: cst.ListComp | cst.SetComp | cst.DictComp | cst.GeneratorExp) -> None:
        names: set[str] = set()
        clause: cst.CompFor | None = node.for_in
        while clause is not None:
            visit_read_only(clause.target, _Names(names))
            clause = clause.inner_for_in
        for name in names:
            self.own_bindings[name] = self.own_bindings.get(name, 0) + 1
        self.shadowed.append(frozenset(names))

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self._enter(node)

    def visit_SetComp(self, node: cst.SetComp) -> None:
        self._enter(node)

    def visit_DictComp(self, node: cst.DictComp) -> None:
        self._enter(node)

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> None:
        self._enter(node)

    def leave_ListComp(self, original_node: cst.ListComp) -> None:
        self.shadowed.pop()

    def leave_SetComp(self, original_node: cst.SetComp) -> None:
        self.shadowed.pop()

    def leave_DictComp(self, original_node: cst.DictComp) -> None:
        self.shadowed.pop()

    def leave_GeneratorExp(self, original_node: cst.GeneratorExp) -> None:
        self.shadowed.pop()


class _Names(cst.CSTVisitor):
    """The names a target binds."""

    def __init__(self, names: set[str]) -> None:
        self.names = names

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


# ``torch`` functions whose first argument must be a tensor (a list, a number or a numpy array
# there is a ``TypeError``): the name handed to them, or compared with constants, is a tensor.
TENSOR_ARGUMENT_FUNCTIONS = frozenset(
    {"where", "nonzero", "argwhere", "count_nonzero", "masked_select"}
    | {"ones_like", "zeros_like", "full_like", "empty_like"}
)


_ORDERS: tuple[type[cst.BaseCompOp], ...] = (cst.Equal, cst.NotEqual, cst.LessThan)
_ORDERS += (cst.GreaterThan, cst.LessThanEqual, cst.GreaterThanEqual)


def _compared_name(node: cst.BaseExpression) -> str | None:
    """The name ``node`` is, or the one name a comparison ``name == CONSTANT`` compares with
    numbers and upper-case constants (``ids == IMAGE_TOKEN_INDEX``, ``x > 0``); else None."""
    if isinstance(node, cst.Name):
        return node.value
    if not isinstance(node, cst.Comparison):
        return None
    if not all(isinstance(c.operator, _ORDERS) for c in node.comparisons):
        return None
    operands = [node.left, *(c.comparator for c in node.comparisons)]
    names = [o.value for o in operands if isinstance(o, cst.Name) and not o.value.isupper()]
    others = [o for o in operands if not (isinstance(o, cst.Name) and not o.value.isupper())]
    if len(names) != 1 or not all(_constant(o) for o in others):
        return None
    return names[0]


def _constant(node: cst.BaseExpression) -> bool:
    """A number (``0``, ``-1``) or an upper-case constant's name."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float)) or (
        isinstance(node, cst.Name) and node.value.isupper()
    )


_CACHE: dict[int, tuple[cst.FunctionDef, frozenset[str]]] = {}


def _tensor_uses(function: cst.FunctionDef) -> frozenset[str]:
    """The entries and once-bound names ``function`` uses as tensors."""
    cached = _CACHE.get(id(function))
    if cached is not None and cached[0] is function:
        return cached[1]
    visitor = _TensorUses()
    visit_read_only(function.body, visitor)
    parameters = set(bound_parameters(function.params))
    found = frozenset(
        key
        for key in visitor.keys
        if "[" in key or visitor.bindings.get(key, 0) + (key in parameters) == 1
    ) | frozenset(
        # a comprehension's own name, where nothing else in the function binds that name
        key
        for key in visitor.own_keys
        if visitor.own_bindings.get(key, 0) == 1
        and key not in visitor.bindings
        and key not in parameters
    )
    if len(_CACHE) > 256:
        _CACHE.clear()
    _CACHE[id(function)] = (function, found)
    return found


def used_as_tensor(function: cst.FunctionDef | cst.Module, node: cst.BaseExpression) -> bool:
    """Whether ``function`` uses ``node`` (a container entry such as ``cache["end"]``, or a name
    it binds once) as a tensor somewhere (``cache["end"].fill_(n)``,
    ``ids.masked_select(mask)``)."""
    if not isinstance(function, cst.FunctionDef):
        return False
    key = node.value if isinstance(node, cst.Name) else _entry_key(node)
    return key is not None and key in _tensor_uses(function)
