"""Type tests that say a name is no tensor where it is read: the ``else`` of ``if isinstance(x,
torch.Tensor):``, the body of its ``not``, code after an early exit on it. Split out of
``tensor_kinds.py`` (which answers "is it a tensor"; this answers "a test says it is not")."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.arguments import positional
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.sync_basics import early_exits
from h2dlint.analysis.transform_objects import transform_object
from h2dlint.analysis.tuple_annotations import tensor_type

_EMPTY = cst.Module([])


def not_a_tensor_here(
    provenance: Provenance, ancestors: Sequence[cst.CSTNode], node: cst.BaseExpression
) -> bool:
    """Whether a type test around the innermost of ``ancestors`` (outermost first) says the name
    ``node`` reads is no tensor there: the ``else`` of ``if isinstance(x, torch.Tensor):``
    (or ``torch.is_tensor(x)``), the body of ``if not isinstance(x, torch.Tensor):``, or code
    after ``if isinstance(x, torch.Tensor): return ...`` (``float(x)`` there reads a number);
    also of a subscript (``int(d["n"])`` in ``... if isinstance(d["n"], torch.Tensor) else``);
    also a name the function calls a data transform's method on (:mod:`transform_objects`)."""
    function = next((a for a in reversed(ancestors) if isinstance(a, cst.FunctionDef)), None)
    if function is not None and transform_object(function, node):
        return True  # ``if self.normalizer: x = self.normalizer.transform(x)``
    if not isinstance(node, (cst.Name, cst.Subscript)):
        return False
    name = _EMPTY.code_for_node(node)
    chain = [*ancestors, node]  # the read's own call is not among the ancestors yet
    for i in range(len(chain) - 1, 0, -1):
        parent, child = chain[i - 1], chain[i]
        if isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return False
        if isinstance(parent, (cst.If, cst.IfExp)):
            tested = tensor_type_test(provenance, parent.test, name)
            if (tested is True and _within(parent, parent.orelse, child)) or (
                tested is False and _within(parent, parent.body, child)
            ):
                return True
        if isinstance(parent, cst.IndentedBlock) and any(
            tensor_type_test(provenance, branch.test, name) is True
            for branch in early_exits(parent, child)
        ):
            return True
    return False


def _within(parent: cst.CSTNode, branch: cst.CSTNode | None, node: cst.CSTNode) -> bool:
    """Whether ``node`` is ``branch`` or, for a conditional expression, inside it."""
    if branch is None or branch is node:
        return branch is not None
    return isinstance(parent, cst.IfExp) and any(_within(parent, c, node) for c in branch.children)


def tensor_type_test(provenance: Provenance, test: cst.BaseExpression, name: str) -> bool | None:
    """True for ``isinstance(name, torch.Tensor)`` or ``torch.is_tensor(name)`` (also ``or``
    another test: its ``else`` says no tensor all the same), False for its ``not`` (also
    ``and`` another test) and for ``isinstance(name, int)`` (Python scalar builtins only), None
    for any other test."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = tensor_type_test(provenance, test.expression, name)
        return None if inner is None else not inner
    if isinstance(test, cst.BooleanOperation):
        # ``isinstance(x, Tensor) or not x``: its ``else`` says no tensor, as the test alone
        # would; ``not isinstance(x, Tensor) and n > 0``: its body says so
        sides = (
            tensor_type_test(provenance, test.left, name),
            tensor_type_test(provenance, test.right, name),
        )
        wanted = isinstance(test.operator, cst.Or)
        return wanted if wanted in sides else None
    if not isinstance(test, cst.Call):
        return None
    args = positional(test)
    if not args or _EMPTY.code_for_node(args[0].value) != name:
        return None
    if provenance.qualify(test.func) == "torch.is_tensor" and len(args) == 1:
        return True
    if isinstance(test.func, cst.Name) and test.func.value == "isinstance" and len(args) == 2:
        if tensor_type(provenance, args[1].value):
            return True
        # ``if isinstance(logits_to_keep, int): if logits_to_keep != 0:`` (OLMo-core 3.0.0
        # ``nn/lm_head.py:233``, a ``Union[int, torch.Tensor]`` parameter): the body runs for a
        # Python number only, as the ``not`` of a tensor test's would.
        return False if _python_scalar_types(args[1].value) else None
    return None


# Builtin types whose instances are never tensors (nor hold one).
_PYTHON_SCALARS = frozenset({"int", "float", "bool", "str", "complex", "bytes"})


def _python_scalar_types(types: cst.BaseExpression) -> bool:
    """Whether an ``isinstance`` second argument names only Python scalar builtins (``int``,
    ``(int, float)``); not ``numbers.Number`` or ``np.integer`` (NumPy scalars), nor a tuple
    that also admits a tensor."""
    if isinstance(types, cst.Name):
        return types.value in _PYTHON_SCALARS
    if isinstance(types, cst.Tuple) and types.elements:
        return all(_python_scalar_types(element.value) for element in types.elements)
    return False
