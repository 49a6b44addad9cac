"""The bases a class statement lists, read one way for every question that asks them by name.

``class Sampler(nn.Module, Generic[T]):`` lists ``nn.Module`` (a dotted name, as written) and a
subscript, which has no name and is left out. A question that needs the class a base resolves to
(another module's class, a framework's) asks the provenance instead
(:func:`h2dlint.analysis.framework_inputs`); these are the questions a name answers: "a torch
module", "a metric", "a pipeline", "a test case".
"""

from __future__ import annotations

import libcst as cst

from h2dlint.imports import dotted_name


def written_bases(cls: cst.ClassDef) -> tuple[str, ...]:
    """The bases ``cls`` lists that are dotted names, as written (``Metric``,
    ``torchmetrics.Metric``), in order."""
    found = []
    for arg in cls.bases:
        name = dotted_name(arg.value)
        if name is not None:
            found.append(name)
    return tuple(found)


def class_and_base_names(cls: cst.ClassDef) -> tuple[str, ...]:
    """``cls``'s own name, then :func:`written_bases`."""
    return (cls.name.value, *written_bases(cls))


def module_subclass(cls: cst.ClassDef) -> bool:
    """Whether a base of ``cls`` is named as a torch module (``nn.Module``, ``LightningModule``,
    ``torch.nn.Module``): its name ends with ``Module``."""
    return any(base.endswith("Module") for base in written_bases(cls))
