"""Inputs that a framework moves to the device before it calls the code that receives them.

Lightning moves each batch to the module's device (``transfer_batch_to_device``, every
tensor of a dict, list or tuple) before it calls a ``LightningModule``'s step hooks; the
``batch`` parameter of ``training_step``, ``validation_step``, ``test_step`` and
``predict_step`` holds device tensors, though nothing in the module says so: its
``.to(self.device)`` copies are no transfers, and ``int(label)`` of its items syncs.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.classes import named_class
from h2dlint.analysis.fact_source import FactSource
from h2dlint.analysis.facts import Fact, Where
from h2dlint.analysis.frames import Frame

# The hooks Lightning calls with a batch it has moved to the device.
LIGHTNING_STEP_HOOKS = frozenset({"training_step", "validation_step", "test_step", "predict_step"})
# The packages whose ``LightningModule`` that is.
LIGHTNING_PACKAGES = ("lightning.", "pytorch_lightning.")
MAX_BASES_DEPTH = 4
# A batch the framework moved to the device before calling the hook (not made here: no
# layout known).
MOVED_BY_FRAMEWORK = Fact(Where.DEVICE, False, None)


def moved_by_framework(provenance: FactSource, name: cst.Name, frame: Frame) -> bool:
    """Whether the parameter ``name`` of ``frame``'s function is a batch the framework moved
    to the device: the first parameter after ``self`` of a Lightning module's step hook."""
    function = frame.function
    if not isinstance(function, cst.FunctionDef) or frame.cls is None:
        return False
    if function.name.value not in LIGHTNING_STEP_HOOKS:
        return False
    params = function.params.params
    if len(params) < 2 or params[1].name.value != name.value:
        return False
    return _lightning_module(provenance, frame.cls, 0)


def lightning_class(provenance: FactSource, cls: cst.ClassDef) -> bool:
    """Whether ``cls`` subclasses Lightning's ``LightningModule`` (through the project's
    classes)."""
    return _lightning_module(provenance, cls, 0)


def _lightning_module(provenance: FactSource, cls: cst.ClassDef, depth: int) -> bool:
    if depth > MAX_BASES_DEPTH:
        return False
    for base in cls.bases:
        qualified = provenance.qualify(base.value) or ""
        if qualified.endswith(".LightningModule") and qualified.startswith(LIGHTNING_PACKAGES):
            return True
        parent = named_class(provenance, base.value)
        if (
            parent is not None
            and parent.node is not None
            and parent.provenance is not None
            and parent.node is not cls
            and _lightning_module(parent.provenance, parent.node, depth + 1)
        ):
            return True
    return False
