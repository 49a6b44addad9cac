"""An arm that runs only on a torch older than 2.0, by a test of torch's version against a 0.x
or 1.x literal: the ``else`` of ``if digit_version(torch.__version__) > digit_version('1.6.0'):``
(OpenMMLab's losses), the body of ``if V(torch.__version__) < V("1.7.0"):`` (ESPnet, FunASR),
the ``else`` of ``if is_torch_1_9_plus:`` whose module constant is such a test. No torch that
a GPU serving or training stack runs today takes it, so a sync written there costs nothing
(session 42, triage42b: MMOCR's ``SmoothL1Loss`` fallback, read as a boolean-mask sync per
forward). HTD202 asks it through ``hot_guards.runs_every_call``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import libcst as cst

# Callables that wrap a version string for comparison: ``packaging.version.parse``/``Version``,
# ``distutils``' ``LooseVersion``, ESPnet's ``V``, mmcv's/mmengine's ``digit_version``.
_VERSION_WRAPPERS = frozenset(
    {"V", "Version", "parse", "parse_version", "LooseVersion", "StrictVersion", "digit_version"}
)
_OLD_VERSION = re.compile(r"[01](\.\d+)+")
_HOLDS_WHEN_GREATER = {cst.GreaterThan: True, cst.GreaterThanEqual: True}
_HOLDS_WHEN_LESS = {cst.LessThan: True, cst.LessThanEqual: True}
_DEPTH = 3
# The values a module-level name is bound to (None for a binding without one: an import).
ModuleValues = Callable[[str], Sequence[cst.BaseExpression | None]]


def old_torch_arm(parent: cst.CSTNode, child: cst.CSTNode, module: ModuleValues) -> bool:
    """Whether ``child``, an arm of the ``if`` statement or expression ``parent``, runs only on
    a torch older than 2.0: the body of a test that holds only there, or the other arm of a
    test that holds on every later torch."""
    if not isinstance(parent, (cst.If, cst.IfExp)):
        return False
    old = _old_only(parent.test, module, 0)
    if old is None:
        return False
    return child is parent.body if old else child is parent.orelse


def _old_only(test: cst.BaseExpression, module: ModuleValues, depth: int) -> bool | None:
    """True if ``test`` holds only on a torch older than 2.0, False if it holds on every torch
    from 2.0 on, None if the version does not decide it."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _old_only(test.expression, module, depth)
        return None if inner is None else not inner
    if isinstance(test, cst.BooleanOperation):
        sides = (_old_only(test.left, module, depth), _old_only(test.right, module, depth))
        if isinstance(test.operator, cst.And) and True in sides:
            return True  # ``dtype == "float16" and V(torch.__version__) < V("1.5.0")``
        if isinstance(test.operator, cst.Or) and False in sides:
            return False
        return None
    if isinstance(test, cst.Name) and depth < _DEPTH:
        value = _module_constant(module, test.value)
        return None if value is None else _old_only(value, module, depth + 1)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        left, right, operator = test.left, target.comparator, type(target.operator)
        if _torch_version(left) and _old_literal(right):
            newer = operator in _HOLDS_WHEN_GREATER
            older = operator in _HOLDS_WHEN_LESS
        elif _old_literal(left) and _torch_version(right):
            newer = operator in _HOLDS_WHEN_LESS
            older = operator in _HOLDS_WHEN_GREATER
        else:
            return None
        return True if older else False if newer else None
    return None


def _unwrapped(node: cst.BaseExpression) -> cst.BaseExpression:
    """``x`` of ``digit_version(x)``, ``version.parse(x)``, ``V(x)``."""
    if isinstance(node, cst.Call) and len(node.args) == 1 and not node.args[0].keyword:
        func = node.func
        name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
        if name in _VERSION_WRAPPERS:
            return node.args[0].value
    return node


def _torch_version(node: cst.BaseExpression) -> bool:
    """``torch.__version__`` or a name for it (``TORCH_VERSION``, ``torch_version``)."""
    node = _unwrapped(node)
    if isinstance(node, cst.Attribute) and node.attr.value == "__version__":
        owner = node.value
        return isinstance(owner, cst.Name) and owner.value == "torch"
    word = node.value.lower() if isinstance(node, cst.Name) else ""
    return "torch" in word and "version" in word


def _old_literal(node: cst.BaseExpression) -> bool:
    """A version string literal before 2.0: ``"1.6.0"``, ``'0.4'``."""
    node = _unwrapped(node)
    if not isinstance(node, cst.SimpleString):
        return False
    value = node.evaluated_value
    return isinstance(value, str) and _OLD_VERSION.fullmatch(value) is not None


def _module_constant(module: ModuleValues, name: str) -> cst.BaseExpression | None:
    """The value of ``name`` when the module binds it once, to a value
    (``is_torch_1_9_plus = V(torch.__version__) >= V("1.9.0")``)."""
    values = module(name)
    return values[0] if len(values) == 1 else None
