"""Tensors computed on the host from a factory's values alone, then moved: arithmetic of a
factory's result with a Python number (``torch.ones(b, h, l, l) / l``, ``ratio *
torch.ones(x.shape)``) and an element-wise draw from it (``torch.bernoulli(p *
torch.ones(x.shape))``). No data enters the tensor but numbers, so the device could compute it
where it is needed: the host allocation, the host kernels and the blocking copy of the whole
result are all waste (session 24: neuralforecast's Informer divided a ``B*H*L*L`` tensor of ones
on the host every forward before moving it; TabNet's obfuscator drew its batch-sized mask on the
host every pretraining step). Asked by HTD301 where :func:`~h2dlint.analysis.factories.factory_of`
finds no factory under the move."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from h2dlint.analysis.arguments import first_positional
from h2dlint.analysis.factories import SHAPE_FACTORIES, chain_root, factory_of, numeric
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.host_data import host_scalar
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.tensor_kinds import tensor_evidence
from h2dlint.analysis.torch_aliases import torch_name

# Operators that compute each element from the factory's element and a number.
_ELEMENTWISE = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Power)
# ``torch`` functions that draw each element from the element of their one tensor argument.
_DRAWS = frozenset({"torch.bernoulli", "torch.poisson"})
_FACTORY_NAMES = frozenset(name.rpartition(".")[2] for name in SHAPE_FACTORIES)


@dataclass(frozen=True)
class ComputedFactory:
    """The factory under the computation, whether the computation draws random numbers (the
    device's generator draws others: no fix), and whether every other operand is a proven
    Python number (else it is a plain name of unknown kind, and the fix is withheld)."""

    factory: cst.Call
    random: bool
    proven: bool


def computed_factory(
    provenance: Provenance, node: cst.BaseExpression, frame: Frame, depth: int = 0
) -> ComputedFactory | None:
    """``node`` (what a ``.to()``/``.cuda()`` moves) as a computation on one factory's result
    with numbers only, seen through value-exact methods and views as ``factory_of`` sees
    them; None when it is not one (a plain factory chain is ``factory_of``'s question)."""
    root = chain_root(node)
    if root is None or depth > 6:
        return None
    if isinstance(root, cst.Call):
        if (provenance.qualify(root.func) or "") not in _DRAWS or len(root.args) != 1:
            return None
        argument = first_positional(root)
        found = _operand(provenance, argument, frame, depth) if argument is not None else None
        return ComputedFactory(found.factory, True, found.proven) if found is not None else None
    if not isinstance(root, cst.BinaryOperation) or not isinstance(root.operator, _ELEMENTWISE):
        return None
    for side, other in ((root.left, root.right), (root.right, root.left)):
        found = _operand(provenance, side, frame, depth)
        if found is None:
            continue
        number = _number_operand(provenance, other, frame)
        if number is None:
            return None
        return ComputedFactory(found.factory, found.random, found.proven and number)
    return None


def _operand(
    provenance: Provenance, node: cst.BaseExpression, frame: Frame, depth: int
) -> ComputedFactory | None:
    """A factory of sizes and fills (seen through its value-exact chain), or a computation on
    one."""
    factory = factory_of(node)
    if (
        factory is not None
        and torch_name(provenance, factory.func, _FACTORY_NAMES.__contains__) in SHAPE_FACTORIES
    ):
        return ComputedFactory(factory, random=False, proven=True)
    return computed_factory(provenance, node, frame, depth + 1)


def _number_operand(provenance: Provenance, node: cst.BaseExpression, frame: Frame) -> bool | None:
    """True for a proven Python number; False for a value the object keeps (``self.ratio``, a
    setting stored by ``__init__``) with no evidence of being a tensor, which may be a number or
    a host tensor (the original works with either, not with a device tensor); None for anything
    else (a parameter or local of unknown kind, a tensor, a call, an index)."""
    if numeric(node) or host_scalar(provenance, node, frame):
        return True
    if not (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value == "self"
    ):
        return None
    if tensor_evidence(provenance, node, frame) is not None or provenance.is_host_data(node, frame):
        return None
    return False
