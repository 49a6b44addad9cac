"""Code in a folder named for data loading: datasets, preprocessors, Lightning data modules.

A module in a ``datasets/`` folder (``pykeen/datasets/ea/combination.py``, which merges two
knowledge graphs' triples at load time), a ``preprocessors/`` folder (modelscope's OFA
preprocessors, which build constraint prefixes from tokenizer output) or a ``data_module/``
folder (pytorch-forecasting's ``setup()``, over ``torch.randperm`` indices) prepares data on
the host: its tensors reach a device when a training or inference step moves the batch.
:func:`~h2dlint.analysis.host_data.dataset_module` says so of a module by its own name; this
says it of the folder (session 44, fp201m44: four HTD201 MEDIUM false alarms).

Only rows not proven on a device are left out, and not in a torch module's class (a model
kept beside the data, opencompass's OmegaFold under ``datasets/``, runs on the device; a
Lightning ``DataModule`` is named like one and is none). A
plain ``data/`` folder is not one of these: it holds the loaders' helpers and model-side
utilities alike (fairseq's ``data/data_utils.py`` masks wav2vec2's device padding mask per
row, torchrl's ``data/`` its replay buffers on the device).
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.class_bases import module_subclass, written_bases

DATA_FOLDERS = frozenset(
    {"datasets", "preprocessors", "data_module", "data_modules", "datamodule", "datamodules"}
)


def in_data_folder(path: str, ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether the code at ``path`` under ``ancestors`` sits in a folder named for data
    loading (:data:`DATA_FOLDERS`), outside any torch module's class."""
    folders = path.replace("\\", "/").split("/")[:-1]
    if not any(folder.lower() in DATA_FOLDERS for folder in folders):
        return False
    return not any(isinstance(n, cst.ClassDef) and _torch_module(n) for n in ancestors)


def _torch_module(cls: cst.ClassDef) -> bool:
    """A torch module's class; a ``LightningDataModule`` is named like one and is not."""
    return module_subclass(cls) and not all(
        base.endswith("DataModule") for base in written_bases(cls) if base.endswith("Module")
    )
