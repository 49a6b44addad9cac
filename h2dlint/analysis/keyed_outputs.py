"""A loop that picks named outputs out of a mapping, not rows out of a tensor (HTD201).

``for prop in property_keys: if prop in model_results: results[prop] =
model_results[prop].detach().cpu().numpy()``: SchNetPack's batchwise ASE calculator. A model
may return a dict of named tensors (energy, forces, stress); the loop looks each name up and
copies that whole tensor once, for host code (ASE, numpy) that needs them all. Indexing a
tensor with the loop's target would read a row per iteration, but a tensor is never tested for
holding the key first: ``key in container`` before ``container[key]`` is the mapping idiom,
as is a loop over ``container.keys()`` or ``container.items()``. Either proves that the
indexed value is a mapping and that each iteration copies a different tensor, once.

Only a copy of the whole value counts (``.cpu()``, ``.to(...)``, ``.numpy()``): named outputs
of their own shapes, handed to host code. A scalar read from each entry (``loss_kwargs[k] =
loss_kwargs[k].item()`` over a dict of loss terms, lmms-engine's RAE trainer, a true HTD201
row) is one sync per entry where one stack and one read would do: it stays reported.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.names import target_names
from h2dlint.walk import visit_read_only

_KEY_METHODS = frozenset({"keys", "items"})
# Calls that copy a whole value to the host.
_WHOLE_COPIES = frozenset({"cpu", "to", "numpy"})


def keyed_lookup(loop: cst.For, container: cst.BaseExpression, read: cst.BaseExpression) -> bool:
    """Whether ``read`` copies a whole value of ``container`` to the host and ``loop`` walks
    the keys of ``container`` (``for k in container.keys()``) or tests its own target for
    membership in it (``if k in container:``)."""
    if not (
        isinstance(read, cst.Call)
        and isinstance(read.func, cst.Attribute)
        and read.func.attr.value in _WHOLE_COPIES
    ):
        return False
    iterable = loop.iter
    if (
        isinstance(iterable, cst.Call)
        and isinstance(iterable.func, cst.Attribute)
        and iterable.func.attr.value in _KEY_METHODS
        and iterable.func.value.deep_equals(container)
    ):
        return True
    keys = target_names(loop.target)
    finder = _MembershipTest(keys, container)
    visit_read_only(loop.body, finder)
    return finder.found


class _MembershipTest(cst.CSTVisitor):
    """Finds ``key in container`` with ``key`` one of the loop's names."""

    def __init__(self, keys: set[str], container: cst.BaseExpression) -> None:
        self.keys, self.container, self.found = keys, container, False

    def visit_Comparison(self, node: cst.Comparison) -> None:
        left: cst.BaseExpression = node.left
        for target in node.comparisons:
            if (
                isinstance(target.operator, cst.In)
                and isinstance(left, cst.Name)
                and left.value in self.keys
                and target.comparator.deep_equals(self.container)
            ):
                self.found = True
            left = target.comparator
