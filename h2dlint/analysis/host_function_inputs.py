"""A torch function computed on tensors made on the host, its result then moved: the data
constructor among its inputs (HTD301).

``torch.repeat_interleave(torch.arange(a, b), torch.tensor(counts)).to(rows.device)`` builds
a tensor from a Python list, computes on it on the host, and copies the result to the device
with the same blocking copy from pageable memory as ``torch.tensor(data).to(device)`` (agilerl
2.50.0 built each row chunk's expert ids so for every adapter; 2.58 builds them once per layer
on the device with ``output_size=``). HTD301 saw through tensor methods of a constructor
(``torch.tensor(lens).cumsum(0)``) but not through a function of ``torch`` taking it as an
argument. The result of a ``torch`` function stays where its tensor inputs are, so when every
argument is a tensor made on the host here (a constructor of Python data, a shape factory, or
either under value-exact methods) or a number literal, the result is on the host too. A
keyword argument that places or writes the result (``device=``, ``out=``) and any other
argument (a name that may hold a device tensor, a list for ``torch.cat``: HTD104's) leave the
call alone.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.factories import SHAPE_FACTORIES, factory_of, numeric
from h2dlint.analysis.module_constants import CONSTRUCTORS
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.torch_aliases import torch_name

# Keywords that put the result elsewhere than its inputs.
_PLACING = frozenset({"device", "out"})


def constructed_input(provenance: Provenance, node: cst.BaseExpression) -> cst.Call | None:
    """The first constructor of Python data (``torch.tensor(counts)``) among the arguments of
    ``node`` = ``torch.F(...)`` whose every argument is made on the host (see the module's
    docstring); None otherwise."""
    if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
        return None
    qualified = provenance.qualify(node.func)
    if qualified is None or not qualified.startswith("torch.") or qualified.count(".") != 1:
        return None
    found: cst.Call | None = None
    for arg in node.args:
        if arg.star:
            return None
        if arg.keyword is not None:
            if arg.keyword.value in _PLACING:
                return None
            continue
        value = arg.value
        if numeric(value):
            continue
        made = factory_of(value)
        name = torch_name(provenance, made.func) if made is not None else None
        if made is None or name is None:
            return None
        if name in CONSTRUCTORS:
            found = found or made
        elif name not in SHAPE_FACTORIES:
            return None
    return found
