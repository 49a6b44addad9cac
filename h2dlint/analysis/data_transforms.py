"""Data transforms that only datasets build: a module's ``__call__``/``forward`` run on a
sample in the data pipeline, on the host (HTD202).

stable-audio-tools' ``VolumeNorm(nn.Module)`` (``data/utils.py``) tests a sample's energy and
peak with ``if energy < threshold:``; the only code that builds one is ``data/dataset.py``'s
WebDataset preprocessing, on host audio that a loader worker decoded. A class named for no
transform (:func:`~h2dlint.analysis.host_data.host_pipeline_class` does not know it) is still
one when it is defined in a data folder (:data:`DATA_FOLDERS`) and every call of it the
project index finds is in a dataset module (named for a dataset or a collation, as
:func:`~h2dlint.analysis.host_data.dataset_module` judges a file). A transform a data loader
builds (timm's ``RandomErasing`` in ``loader.py``, run on the device by its prefetcher) or
one built anywhere else stays an entry point; so does one nothing is known to build.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.host_data import DATASET_WORDS
from h2dlint.analysis.provenance import Provenance
from h2dlint.context import FileContext

# Folders that hold a package's data pipeline (datasets, loaders, transforms).
DATA_FOLDERS = frozenset({"data", "datasets", "dataset", "transforms", "augmentations"})
# Calls of the class read before the answer is "not known": a class built this often is
# infrastructure, not a transform of one dataset.
MAX_BUILDERS = 16


def dataset_built_class(context: FileContext, cls: cst.ClassDef) -> bool:
    """Whether ``cls`` (a class of the file being checked) is defined in a data folder and
    built only in dataset modules (see the module)."""
    provenance = Provenance.of(context)
    project, module = provenance.project, provenance.module_name
    if project is None or module is None:
        return False
    if not DATA_FOLDERS & {part.lower() for part in module.split(".")[:-1]}:
        return False  # the cost's gate: only a data package's classes are asked about
    builders = 0
    for caller in project.caller_index().callers(f"{module}.{cls.name.value}"):
        builders += 1
        if builders > MAX_BUILDERS or not _dataset_module(caller.module):
            return False
    return builders > 0


def _dataset_module(module: str) -> bool:
    stem = module.rpartition(".")[2]
    return bool(DATASET_WORDS & {w.lower() for w in stem.split("_")})
