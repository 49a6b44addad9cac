"""Attributes that hold numpy arrays: ``self.<attr>`` (or ``obj.<attr>`` of an object of a known
class) whose every assignment in its class is a numpy array, such as a parameter annotated as one
(session 34, precision34b).

d3rlpy's ``EpisodeGenerator.__init__(self, ..., terminals: Float32NDArray)`` keeps
``self._terminals = terminals`` (or ``np.reshape(terminals, [-1])``) and walks it in
``__call__``: ``for i in range(self._terminals.shape[0]): if self._terminals[i] ...``. A name
bound only to numpy arrays already reads as one (``Provenance.is_numpy_array``); an attribute
is the same question asked of every value its class assigns it. ``None`` values are skipped
(an optional array set later, as for names); an assignment whose value is unknown (a tuple
unpacked from a call, ``self.n += 1``) or not a numpy array keeps the attribute unknown, and so
does an attribute no method assigns (a property, a class constant, a field that callers set),
unless the class body declares it a numpy array: a dataclass's ``restype: np.ndarray``, filled
by its constructions (session 49, triage49b: alphafold3-pytorch's ``Biomolecule``, whose
``to_mmcif(biomol: Biomolecule)`` walks ``biomol.restype[unique_indices]`` row by row, and the
protein records of the other folding code). The declaration is trusted as a parameter's
``np.ndarray`` annotation is; an attribute a method assigns is judged by its assignments.
"""

from __future__ import annotations

from typing import Protocol, cast

import libcst as cst

from h2dlint.analysis.classes import class_of
from h2dlint.analysis.container_items import field_annotation
from h2dlint.analysis.fact_source import FactSource
from h2dlint.analysis.frames import Frame, ModuleIndex
from h2dlint.analysis.provenance.common import (
    MAX_DEPTH,
    _is_none,
    annotation_is,
    numpy_array_annotation,
)


class _Owner(Protocol):
    """What is asked of the provenance of the class's module (a ``ProvenanceBase``, which
    imports this module: named by what it does, not imported)."""

    _in_progress: set[object]

    @property
    def index(self) -> ModuleIndex: ...

    def _begin(self, key: object) -> bool: ...


def numpy_attribute(source: FactSource, node: cst.Attribute, frame: Frame, depth: int) -> bool:
    """Whether every value ``node``'s class assigns the attribute is a numpy array."""
    if depth > MAX_DEPTH:
        return False
    base, attr = node.value, node.attr.value
    found: FactSource | None
    cls: cst.ClassDef | None
    if isinstance(base, cst.Name) and frame.cls is not None and base.value == frame.self_name:
        found, cls = source, frame.cls
    else:
        ref = class_of(source, base, frame, depth + 1)
        found, cls = (ref.provenance, ref.node) if ref is not None else (None, None)
    if found is None or cls is None:
        return False
    owner = cast(_Owner, found)
    assigned = [
        (value, value_frame)
        for value, value_frame in owner.index.attributes.get(cls, {}).get(attr, [])
        if value is None or not _is_none(value)
    ]
    if not assigned:
        declared = field_annotation(cls, attr)
        return declared is not None and annotation_is(
            found, declared, lambda annotation: numpy_array_annotation(found, annotation)
        )
    key = ("numpy attribute", cls, attr)
    if not owner._begin(key):
        return False
    try:
        return all(
            value is not None and found.is_numpy_array(value, value_frame, depth + 1)
            for value, value_frame in assigned
        )
    finally:
        owner._in_progress.discard(key)
