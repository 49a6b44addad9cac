"""Entry points that work on host data: every entry point of a data-preparation class
(:func:`~h2dlint.analysis.host_data.host_pipeline_class`: tokenizers, processors, transforms,
collators) and the ``__call__`` of a preprocessor (session 34, precision34b)."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.class_bases import written_bases
from h2dlint.analysis.host_data import host_pipeline_class


def preprocessor_call(name: str, cls: str | None, bases: Sequence[str] = ()) -> bool:
    """Whether ``name`` is the ``__call__`` of a class named for preprocessing data (or derived
    from one), and no torch module by a written base: modelscope's
    ``OfaVisualEntailmentPreprocessor(OfaBasePreprocessor)``, ms-swift's
    ``RowPreprocessor``. A preprocessor turns a sample or a row of a dataset into inputs on the
    host, per sample, before the model; it is no per-step entry point. Only ``__call__``: a
    preprocessor that is an ``nn.Module`` (mmdet's ``DetDataPreprocessor``, NeMo's
    ``AudioToMelSpectrogramPreprocessor``, Perceiver's) runs on the device through its
    ``forward``, which stays one (session 34, precision34b)."""
    if name != "__call__" or cls is None:
        return False
    last = [base.rpartition(".")[2] for base in bases]
    if any(b.endswith("Module") for b in last):
        return False
    return any(n.endswith("Preprocessor") for n in (cls, *last))


def host_data_entry(name: str, cls: str | None, bases: Sequence[str] = ()) -> bool:
    """Whether the entry point ``name`` of class ``cls`` works on host data: any entry point
    of a data-preparation class (:func:`host_pipeline_class`), a preprocessor's ``__call__``
    (:func:`preprocessor_call`)."""
    if cls is None:
        return False
    return host_pipeline_class(cls, bases) or preprocessor_call(name, cls, bases)


def host_data_entry_of(name: str, cls: cst.ClassDef) -> bool:
    """:func:`host_data_entry` of a class definition."""
    return host_data_entry(name, cls.name.value, written_bases(cls))
