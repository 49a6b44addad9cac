"""Names a per-item loop binds to a part of its item before moving it (HTD101).

``for r in reqs: e = r.embedding; e = e.to(dev); out.append(e)`` moves each item's field as
``out.append(r.embedding.to(dev))`` does; so does ``feat = req.mm_feature`` followed by ``if
feat is not None: feats.append(feat.to(dev, non_blocking=True))``. A leading statement of the
loop's body that binds a name to a part of the item (an attribute, an element, the item itself:
no call) makes that name an alias of the part, and the transfer is judged on the part itself
(``r.embedding``), so that what the part's name says (a model's output, a parameter) still
counts. The alias may be rebound only by its own transfer (``e = e.to(dev)``). One rebound
under a type test (``new = arg``, then ``if isinstance(arg, torch.Tensor): new = arg.to(dev)``)
makes the loop a mover of a mixed container (:func:`keeps_unmoved_items`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from h2dlint.analysis.item_filters import small_statements
from h2dlint.analysis.loop_transfers import Transfer, calls_in, rooted_in


@dataclass
class Aliases:
    """The aliases of a loop body: each name with the part of the item it stands for, and the
    statements binding them (left out of the body's work)."""

    values: dict[str, cst.BaseExpression] = field(default_factory=dict)
    statements: set[cst.BaseSmallStatement] = field(default_factory=set)

    def resolved(self, transfer: Transfer) -> Transfer:
        """``transfer`` with an alias it moves replaced by the part of the item it stands for."""
        moved = transfer.moved
        if isinstance(moved, cst.Name) and moved.value in self.values:
            return Transfer(transfer.call, self.values[moved.value])
        return transfer


def item_aliases(body: cst.BaseSuite, loop_names: set[str]) -> Aliases:
    """The leading ``name = <part of the item>`` statements of a loop's body."""
    found = Aliases()
    if not isinstance(body, cst.IndentedBlock):
        return found
    for line in body.body:
        if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1):
            break
        small = line.body[0]
        if not (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
        ):
            break
        name = small.targets[0].target.value
        value = small.value
        names = loop_names | set(found.values)
        if (
            name in names
            or not isinstance(value, (cst.Name, cst.Attribute, cst.Subscript))
            or calls_in(value)
            or not rooted_in(value, names)
        ):
            break
        if isinstance(value, cst.Name) and value.value in found.values:
            value = found.values[value.value]
        found.values[name] = value
        found.statements.add(small)
    return found


def keeps_unmoved_items(body: cst.BaseSuite, kept: set[str]) -> bool:
    """``new = arg`` then ``if isinstance(arg, torch.Tensor): new = arg.to(dev)`` (no
    ``else``): a type filter that rebinds a name bound to the item before it (``kept``), so
    what the loop stores is the item moved when it is a tensor and the item itself when it is
    not. That is ``arg.to(dev) if isinstance(arg, torch.Tensor) else arg`` spelt as a default
    and an override: a generic mover of a mixed container (an op's positional arguments),
    which no single copy can carry; a filter that only keeps tensors stores nothing else."""
    if not kept or not isinstance(body, cst.IndentedBlock):
        return False
    for member in body.body:
        if not (isinstance(member, cst.If) and member.orelse is None and _type_test(member.test)):
            continue
        for small in small_statements(member.body) or ():
            targets = small.targets if isinstance(small, cst.Assign) else ()
            if any(isinstance(t.target, cst.Name) and t.target.value in kept for t in targets):
                return True
    return False


def _type_test(test: cst.BaseExpression) -> bool:
    """A test on the item's type (``isinstance``, ``torch.is_tensor``), possibly ``and``-ed:
    not ``x is not None``, which keeps ``None``s rather than items of other kinds."""
    if isinstance(test, cst.BooleanOperation):
        return _type_test(test.left) or _type_test(test.right)
    if not isinstance(test, cst.Call):
        return False
    func = test.func
    name = (
        func.value
        if isinstance(func, cst.Name)
        else func.attr.value
        if isinstance(func, cst.Attribute)
        else ""
    )
    return name in ("isinstance", "is_tensor")
