"""Module-level host tensors: a name bound once, at the top of a module, to a tensor that a host
factory made (``pi = torch.tensor(3.14159)``, ``_EYE = torch.eye(3)``).

Read in a function, such a name is the same host tensor on every call: ``pi.to(x.device)`` there
copies it to the device again each time (kornia 0.8's ``rad2deg``). The module is this one or,
for an imported name (``from kornia.constants import pi``), the project module that binds it
(the project index follows re-exports). A name the function binds itself (a parameter, an
assignment) is not one; neither is a module name bound twice, or to anything but a factory of
sizes and fill values or a 0-d or few-element numeric literal without ``device=``.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.arguments import first_positional, keyword
from h2dlint.analysis.factories import SHAPE_FACTORIES, factory_of, numeric
from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance
from h2dlint.analysis.top_bindings import imported_top_answer
from h2dlint.imports import ImportTable

CONSTRUCTORS = frozenset({"torch.tensor", "torch.as_tensor", "torch.asarray"})
# Keywords that put the constant elsewhere than pageable host memory.
PLACED = ("device", "out", "pin_memory")
# A literal list longer than this is a table, not a constant (kept conservative).
MAX_LITERAL = 16


def host_constant(provenance: Provenance, node: cst.BaseExpression, frame: Frame) -> str | None:
    """The qualified factory (``torch.tensor``) that made the module-level host tensor ``node``
    names, read in a function; None when ``node`` is not such a name."""
    if not isinstance(node, cst.Name) or not isinstance(frame.function, cst.FunctionDef):
        return None
    if provenance.bindings(frame).of(node.value):
        return None  # a parameter or a local of the function
    module = provenance.context.module
    values = provenance.bindings(Frame(module)).of(node.value)
    qualified = provenance.qualify(node)
    if values and not (qualified is not None and values == [None]):  # not only its import
        if len(values) != 1 or values[0] is None:
            return None
        return _host_factory(values[0], provenance.imports)
    if qualified is None or qualified.startswith("torch."):
        return None
    return imported_top_answer(
        provenance,
        qualified,
        "module-constant",
        lambda value, tree: _host_factory(value, ImportTable.from_module(tree)) or "",
    )


def _host_factory(value: cst.BaseExpression, imports: ImportTable) -> str | None:
    factory = factory_of(value)
    if factory is None:
        return None
    qualified = imports.qualify(factory.func)
    if qualified is None or any(keyword(factory, k) is not None for k in PLACED):
        return None
    if qualified in SHAPE_FACTORIES:
        return qualified
    if qualified not in CONSTRUCTORS:
        return None
    data = first_positional(factory)
    if data is None:
        return None
    if numeric(data):
        return qualified
    if isinstance(data, (cst.List, cst.Tuple)) and 0 < len(data.elements) <= MAX_LITERAL:
        return qualified if all(numeric(e.value) for e in data.elements) else None
    return None
