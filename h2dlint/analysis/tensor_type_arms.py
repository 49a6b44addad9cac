"""Arms of a tensor type test that run only for a value that is not a tensor.

``v = x.float() if isinstance(x, torch.Tensor) else torch.tensor(float(x), device=d)``: the
``float(x)`` of the ``else`` arm runs only when ``x`` is a Python number (or a NumPy value),
never for a tensor, so it reads no device memory whatever the loop it sits in iterates
(fastvideo 0.2.1 ``pipelines/basic/ltx2/stages/ltx2_denoising.py:634``). The same holds for
the ``else`` of an ``if isinstance(x, torch.Tensor):`` statement and the body of an
``if not isinstance(x, torch.Tensor):`` one. Only a test of the very value the read reads
counts: an arm of ``isinstance(y, torch.Tensor)`` that reads ``x`` is still a read of ``x``.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.walk import content_children, holds, parent_map

_TENSOR_TYPES = frozenset({"Tensor", "FloatTensor", "LongTensor", "IntTensor", "BoolTensor"})


def _type_names(node: cst.BaseExpression) -> set[str]:
    """The last names of the types an ``isinstance`` second argument names."""
    if isinstance(node, cst.Name):
        return {node.value}
    if isinstance(node, cst.Attribute):
        return {node.attr.value}
    if isinstance(node, cst.Tuple):
        return {name for element in node.elements for name in _type_names(element.value)}
    return set()


def _tested_tensor(test: cst.BaseExpression) -> tuple[cst.BaseExpression, bool] | None:
    """The value ``test`` asks to be a tensor, and whether the test is true for a tensor
    (``isinstance(x, torch.Tensor)``, ``torch.is_tensor(x)``) or false (``not ...``)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        found = _tested_tensor(test.expression)
        return None if found is None else (found[0], not found[1])
    if not isinstance(test, cst.Call) or not test.args:
        return None
    func = test.func
    name = func.value if isinstance(func, cst.Name) else None
    if isinstance(func, cst.Attribute):
        name = func.attr.value
    if name == "is_tensor" and len(test.args) == 1:
        return test.args[0].value, True
    if name == "isinstance" and len(test.args) == 2:
        types = _type_names(test.args[1].value)
        # Only a tensor type alone: `isinstance(x, (Tensor, float))` admits numbers too.
        if types and types <= _TENSOR_TYPES:
            return test.args[0].value, True
    return None


def _reads(read: cst.CSTNode, value: cst.BaseExpression) -> bool:
    """Whether ``read`` holds an expression equal to ``value`` (the tested name)."""
    pending: list[cst.CSTNode] = [read]
    while pending:
        node = pending.pop()
        if type(node) is type(value) and node.deep_equals(value):
            return True
        pending.extend(content_children(node))
    return False


def in_non_tensor_arm(scope: cst.CSTNode, read: cst.CSTNode) -> bool:
    """Whether ``read``, inside ``scope`` (the loop), lies in an arm of a tensor type test,
    within ``scope``, that runs only when the value it tests is not a tensor, and reads that
    value."""
    if not holds(scope, read):
        return False
    parents = parent_map(scope)
    child: cst.CSTNode = read
    while child is not scope and child in parents:
        parent = parents[child]
        if isinstance(parent, (cst.If, cst.IfExp)) and child is not parent.test:
            found = _tested_tensor(parent.test)
            if found is not None:
                value, true_for_tensor = found
                in_body = child is parent.body
                if in_body != true_for_tensor and _reads(read, value):
                    return True
        child = parent
    return False
