"""A batch augmentor of the data loader: a plain class named for augmentation whose method
takes a batch of the type a dataset module defines.

NeMo's SSL ``SpeakerNoiseAugmentation`` and ``MultiSpeakerNoiseAugmentation`` (classes of
``object``) mix noise into an ``AudioNoiseBatch`` (imported from ``asr/data/ssl_dataset.py``)
in their ``__call__``: the dataset's collate function calls them (``batch_augmentor(output)``)
on the batch it has just padded, in a loader worker, before anything moves it. The lengths
they read per row (``int(audio_lengths[i] * rate)``) are host tensors (session 44, fp201m44:
nine of NeMo's HTD201 MEDIUM false alarms, ``augmentation.py:98`` to ``:225``).

The proof is the pair: the class is named for augmentation (``Augmentation``, ``Augmentor``,
``Augmenter``) and is no torch module (an ``nn.Module`` augmentation, SpecAugment's, runs in
the model's forward, on the device), and the method's parameter is annotated with a class
imported from a module named for a dataset or collation (:data:`~h2dlint.analysis.host_data.
DATASET_WORDS`: the type the dataset's collate function builds). A model's step annotated with
that batch type is a method of the model, not of an augmentation class.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.class_bases import module_subclass, written_bases
from h2dlint.analysis.host_data import DATASET_WORDS
from h2dlint.analysis.targets import name_words
from h2dlint.imports import ImportTable, dotted_name

AUGMENTATION_WORDS = frozenset({"augmentation", "augmentor", "augmenter", "augmenters"})


def in_batch_augmentor(imports: ImportTable, ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether the code under ``ancestors`` is in a method of a plain augmentation class that
    takes a batch of a dataset module's type (see the module's docstring)."""
    for index in range(len(ancestors) - 1, -1, -1):
        cls = ancestors[index]
        if not isinstance(cls, cst.ClassDef):
            continue
        if not (AUGMENTATION_WORDS & name_words(cls.name.value)) or module_subclass(cls):
            return False
        if any(base.endswith("Module") for base in written_bases(cls)):
            return False
        method = next((n for n in ancestors[index + 1 :] if isinstance(n, cst.FunctionDef)), None)
        return method is not None and any(
            _dataset_type(imports, param.annotation.annotation)
            for param in method.params.params
            if param.annotation is not None
        )
    return False


def _dataset_type(imports: ImportTable, annotation: cst.BaseExpression) -> bool:
    """Whether ``annotation`` names a class imported from a module named for a dataset or
    collation (``from nemo.collections.asr.data.ssl_dataset import AudioNoiseBatch``)."""
    name = dotted_name(annotation)
    if name is None:
        return False
    full = imports.names.get(name.split(".", 1)[0])
    if full is None or "." not in full:
        return False
    module = full.rsplit(".", 1)[0].rsplit(".", 1)[-1]
    return bool(DATASET_WORDS & {word.lower() for word in module.split("_")})
