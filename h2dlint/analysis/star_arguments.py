"""A loop over a function's ``*args``: the call's positional arguments, a handful of tensors.

hivemind's ``_RemoteMoECall.forward(ctx, ..., *flat_inputs)`` walks the few input tensors of
one expert call (``for tensor in flat_inputs: ... tensor.cpu()``), and its ``backward(ctx,
*raw_grads)`` the gradients of those outputs (``dummy_grad_mask, *flat_grad_outputs =
raw_grads``). Such a loop reads as many items as the caller passes arguments, separate tensors
of their own shapes: there is no whole tensor to read once, and a read per argument is the
floor, as for a display's items (:func:`~h2dlint.analysis.loop_iterables.bound_tiny`). Session
44 (fp201m44): hivemind's ``moe.py:223``/``:225``/``:310``/``:312``, HTD201 MEDIUM false alarms.

Only for rows not proven on a device (HTD201's MEDIUM findings); HTD101's per-item moves of
``*codes`` (swissarmytransformer's templates, one ``torch.tensor(code, device=...)`` per
argument) are another rule's question.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.walk import visit_read_only


def walks_star_arguments(
    ancestors: Sequence[cst.CSTNode], walked: cst.BaseExpression | None
) -> bool:
    """Whether ``walked``, the sequence a loop under ``ancestors`` walks, is the innermost
    function's ``*args`` parameter, or a name bound only by unpacking it into a starred target
    (``head, *rest = args``)."""
    if not isinstance(walked, cst.Name):
        return False
    function = next((n for n in reversed(ancestors) if isinstance(n, cst.FunctionDef)), None)
    if function is None:
        return False
    star = function.params.star_arg
    if not isinstance(star, cst.Param):
        return False
    if walked.value == star.name.value:
        return True
    finder = _Bindings(walked.value)
    visit_read_only(function.body, finder)
    return bool(finder.values) and all(
        isinstance(value, cst.Name) and value.value == star.name.value and starred
        for value, starred in finder.values
    )


class _Bindings(cst.CSTVisitor):
    """The values assigned to ``name`` in a function body, each with whether ``name`` is a
    starred target of a tuple or list unpacking."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.values: list[tuple[cst.BaseExpression | None, bool]] = []

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._target(target.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target, None)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._target(node.target, node.value)

    def visit_For(self, node: cst.For) -> None:
        self._target(node.target, None)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def _target(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        if isinstance(target, cst.Name) and target.value == self.name:
            self.values.append((value, False))
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                if (
                    isinstance(element, cst.StarredElement)
                    and isinstance(element.value, cst.Name)
                    and element.value.value == self.name
                ):
                    self.values.append((value, True))
                elif isinstance(element.value, cst.Name) and element.value.value == self.name:
                    self.values.append((None, False))  # an item of the unpacking
