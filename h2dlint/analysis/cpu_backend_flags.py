"""A host copy made only when a module-level flag says the backend is the CPU:
``tensor.cpu() if _CPU else tensor`` with ``_CPU = jax.devices()[0].device_kind.lower() ==
"cpu"`` (HTD202, session 44).

skrl's JAX wrappers of GPU simulators (Isaac Lab, ManiSkill, MuJoCo Playground) hand torch
tensors to JAX through DLPack; when JAX has no GPU backend, the module's flag is true and the
tensor must reach the host for JAX to read it at all (DLPack cannot import a GPU tensor into a
CPU backend). The copy is the hand-off the CPU backend needs, nothing is queued to overlap
with it, and on a GPU backend the other arm runs. :mod:`h2dlint.analysis.device_branches`
answers the same question for tests of a tensor's or a ``torch.device``'s type, and for names
a function binds to one; here the flag is a name the module binds, once, at its top level, to
a comparison of a device's or backend's kind with ``"cpu"``.

Only the arm the flag guards counts (the body of ``if _CPU:`` or of ``x if _CPU else y``, the
``else`` of ``if not _CPU:``); a flag bound more than once, or to anything but such a
comparison, says nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.enclosing_branches import enclosing_branches

# Words of the compared expression's names that say it is a device's or backend's kind.
_KIND_WORDS = ("device", "backend", "platform")


def cpu_backend_arm(
    module: cst.Module, ancestors: Sequence[cst.CSTNode], node: cst.CSTNode
) -> bool:
    """Whether ``node`` (below ``ancestors``, outermost first) is in an arm of its function
    that runs only when a module-level CPU-backend flag (see the module) holds."""
    path = [*ancestors, node]
    for _, parent, child in enclosing_branches(path, expressions=True):
        test, negated = parent.test, False
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, negated = test.expression, True
        if not isinstance(test, cst.Name):
            continue
        arm = parent.orelse if negated else parent.body
        if child is arm and _cpu_flag(module, test.value):
            return True
    return False


def _cpu_flag(module: cst.Module, name: str) -> bool:
    """Whether ``name`` is bound once at the module's top level, to ``<kind> == "cpu"``."""
    values = [
        small.value
        for statement in module.body
        if isinstance(statement, cst.SimpleStatementLine)
        for small in statement.body
        if isinstance(small, cst.Assign)
        and any(isinstance(t.target, cst.Name) and t.target.value == name for t in small.targets)
    ]
    return len(values) == 1 and _compares_kind_to_cpu(values[0])


def _compares_kind_to_cpu(value: cst.BaseExpression) -> bool:
    if not isinstance(value, cst.Comparison) or len(value.comparisons) != 1:
        return False
    target = value.comparisons[0]
    if not isinstance(target.operator, cst.Equal):
        return False
    right = target.comparator
    if not (isinstance(right, cst.SimpleString) and right.evaluated_value == "cpu"):
        return False
    return any(word in text for text in _names(value.left) for word in _KIND_WORDS)


def _names(node: cst.BaseExpression) -> list[str]:
    """The lower-cased names and attribute names of an expression's call and attribute chain
    (``jax.devices()[0].device_kind.lower()``: jax, devices, device_kind, lower)."""
    found: list[str] = []
    while True:
        if isinstance(node, cst.Call):
            node = node.func
        elif isinstance(node, cst.Subscript):
            node = node.value
        elif isinstance(node, cst.Attribute):
            found.append(node.attr.value.lower())
            node = node.value
        elif isinstance(node, cst.Name):
            found.append(node.value.lower())
            return found
        else:
            return found
