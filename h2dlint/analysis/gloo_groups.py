"""Lists filled by a gather on a gloo process group: host tensors.

Gloo's ``all_gather`` and ``gather`` take CPU tensors only (PyTorch's backend table), so code
that gathers into ``outs`` over ``group = dist.new_group(backend="gloo")`` (a CPU side group of
a serving engine's workers, detectron2's ``_get_global_gloo_group()``) runs only with ``outs``
on the host, however its items were written (``torch.zeros(1, device=x.device)``): reading
them one by one syncs nothing (session 41). A gather over the default group, an NCCL group, or
a group a caller passes (``group=None`` falling back to a gloo one) proves nothing: the items
keep what the analysis says of them (per-rank reads of an NCCL gather stay reported).

:func:`gloo_gathered` says whether a name is such a list in its function; a group is gloo when
it is ``new_group(..., backend="gloo")`` (or ``Backend.GLOO``), a name or ``self`` attribute
bound only to such groups, or the call of a project helper whose every ``return`` gives one (or
``dist.group.WORLD``, the fallback of a helper that makes a gloo group when the default backend
is NCCL, as detectron2's is).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.returns import returned_values
from h2dlint.walk import visit_read_only

if TYPE_CHECKING:
    from h2dlint.analysis.fact_source import FactSource

MAX_DEPTH = 4
# Collective -> (position of the output list, position of the group), positional arguments.
_GATHERS = {
    "torch.distributed.all_gather": (0, "tensor_list", 2),
    "torch.distributed.gather": (1, "gather_list", 3),
}
_NEW_GROUPS = frozenset({"torch.distributed.new_group", "torch.distributed.new_subgroups"})
_WORLD = frozenset({"torch.distributed.group.WORLD", "torch.distributed.GroupMember.WORLD"})


def gloo_gathered(
    provenance: FactSource, seq: cst.BaseExpression, frame: Frame, *, maybe: bool = False
) -> bool:
    """Whether the list ``seq`` (a name) is the output of a gather of ``frame``'s function on
    a gloo group; with ``maybe``, on a group that is a gloo one on some path (``if group is
    None: group = _get_global_gloo_group()``): its items' device is then unknown."""
    function = frame.function
    if not isinstance(seq, cst.Name) or not isinstance(function, cst.FunctionDef):
        return False
    if "gather" not in provenance.context.source:
        return False
    finder = _Gathers(provenance, seq.value)
    visit_read_only(function.body, finder)
    for group in finder.groups:
        if _gloo(provenance, group, frame, 0):
            return True
        if maybe and isinstance(group, cst.Name):
            values = provenance.bindings(frame).reaching(group)
            if any(v is not None and _gloo(provenance, v, frame, 1) for v in values):
                return True
    return False


class _Gathers(cst.CSTVisitor):
    """The groups of the gathers into the list ``name``."""

    def __init__(self, provenance: FactSource, name: str) -> None:
        self.provenance = provenance
        self.name = name
        self.groups: list[cst.BaseExpression] = []

    def visit_Call(self, node: cst.Call) -> None:
        if not isinstance(node.func, (cst.Name, cst.Attribute)):
            return
        shape = _GATHERS.get(self.provenance.qualify(node.func) or "")
        if shape is None:
            return
        at, keyword, group_at = shape
        positional = [a.value for a in node.args if a.keyword is None]
        named = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        listed = named.get(keyword, positional[at] if len(positional) > at else None)
        group = named.get("group", positional[group_at] if len(positional) > group_at else None)
        if isinstance(listed, cst.Name) and listed.value == self.name and group is not None:
            self.groups.append(group)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False


def _gloo(provenance: FactSource, node: cst.BaseExpression, frame: Frame, depth: int) -> bool:
    if depth > MAX_DEPTH:
        return False
    if isinstance(node, cst.Call):
        if provenance.qualify(node.func) in _NEW_GROUPS:
            return any(
                a.keyword is not None and a.keyword.value == "backend" and _says_gloo(a.value)
                for a in node.args
            )
        found = provenance.callee(node, frame, depth + 1)
        if found is None:
            return False
        source, function = found
        values = returned_values(function)
        own = source.index.frame_of(function)
        gloo = {id(v) for v in values if _gloo(source, v, own, depth + 1)}
        return bool(gloo) and all(id(v) in gloo or source.qualify(v) in _WORLD for v in values)
    if isinstance(node, cst.Name):
        bound = provenance.bindings(frame).reaching(node)
        return bool(bound) and all(
            v is not None and _gloo(provenance, v, frame, depth + 1) for v in bound
        )
    if (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and frame.cls is not None
        and node.value.value == frame.self_name
    ):
        assigned = provenance.index.attributes.get(frame.cls, {}).get(node.attr.value, [])
        return bool(assigned) and all(
            v is not None and _gloo(provenance, v, f, depth + 1) for v, f in assigned
        )
    return False


def _says_gloo(node: cst.BaseExpression) -> bool:
    """``"gloo"``, or ``Backend.GLOO``."""
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value == "gloo"
    return isinstance(node, cst.Attribute) and node.attr.value == "GLOO"
