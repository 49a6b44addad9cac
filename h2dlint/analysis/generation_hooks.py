"""Hugging Face generation hooks: a ``LogitsProcessor``'s, ``LogitsWarper``'s or
``StoppingCriteria``'s ``__call__(input_ids, scores)``.

``generate()`` calls every processor and every stopping criterion once per generated token,
with the sequences so far and the next token's scores: tensors on the model's device. A
subclass in any package (found through its bases as imported from ``transformers``, or
through a base class of its own module that is one) takes those two tensors as its first two
parameters however it names them (``input_ids``, ``output_ids``, ``_``) and whether or not it
annotates them: a read of one on the host there (``self.tokenizer.decode(input_ids[0][-1])``,
jsonformer's ``StringStoppingCriteria``; lighteval's ``MultiTokenEOSCriteria``'s
``batch_decode``) waits for the step every token. That says "a tensor"; the device stays
unknown (the model may run on the host), so a read is reported with MEDIUM confidence.

A ``__call__`` of any other callable object (a data collator's, a transform's), a hook class
of another library (outlines' ``OutlinesLogitsProcessor``, whose arrays may be numpy), and a
parameter the hook annotates as something else keep what they were.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.frames import Frame
from h2dlint.analysis.provenance import Provenance

# The base classes of transformers' generation hooks (``LogitsWarper`` is the older name of
# the sampling processors).
HOOK_BASES = frozenset({"LogitsProcessor", "LogitsWarper", "StoppingCriteria"})
# How many base classes of the module's own are followed up to transformers' class.
_MAX_LOCAL_BASES = 3


def generation_hook_class(provenance: Provenance, cls: cst.ClassDef, depth: int = 0) -> bool:
    """Whether ``cls`` subclasses one of transformers' generation hooks (:data:`HOOK_BASES`):
    a base imported from ``transformers`` (``from transformers import StoppingCriteria``,
    ``transformers.LogitsProcessor``), a base defined in transformers' own ``generation``
    package, or a base class of the same module that is such a class."""
    module = provenance.module_name or ""
    for arg in cls.bases:
        base = arg.value
        qualified = provenance.qualify(base)
        if qualified is None and isinstance(base, cst.Name):
            qualified = base.value  # a class of this module: transformers' own, or a local base
        root, _, last = (qualified or "").rpartition(".")
        if last in HOOK_BASES and (
            root.split(".")[0] == "transformers"
            or (not root and module.startswith("transformers.generation"))
        ):
            return True
        if isinstance(base, cst.Name) and depth < _MAX_LOCAL_BASES:
            local = _module_class(provenance, base.value)
            if (
                local is not None
                and local is not cls
                and generation_hook_class(provenance, local, depth + 1)
            ):
                return True
    return False


def _module_class(provenance: Provenance, name: str) -> cst.ClassDef | None:
    for statement in provenance.context.module.body:
        if isinstance(statement, cst.ClassDef) and statement.name.value == name:
            return statement
    return None


def generation_hook_parameter(
    provenance: Provenance, name: cst.Name, frame: Frame, *, unchanged: bool = False
) -> bool:
    """Whether ``name`` is the first or second parameter (after ``self``) of a generation
    hook's ``__call__`` (:func:`generation_hook_class`), without annotation or default: the
    sequences or the scores ``generate()`` hands it, tensors. With ``unchanged``, only where
    the parameter's value is the one that reaches ``name``."""
    function, cls = frame.function, frame.cls
    if not isinstance(function, cst.FunctionDef) or cls is None:
        return False
    if function.name.value != "__call__":
        return False
    params = function.params.params[1:3]
    param = next((p for p in params if p.name.value == name.value), None)
    if param is None or param.annotation is not None or param.default is not None:
        return False
    if unchanged:
        bindings = provenance.bindings(frame)
        if not bindings.is_parameter(name) or bindings.of(name.value).count(None) != 1:
            return False
    return generation_hook_class(provenance, cls)
