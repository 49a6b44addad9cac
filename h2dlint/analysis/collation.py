"""Code that collates a data loader's batches: a module named for collation (``collate_fn.py``,
``data_collate.py``, ``collator.py``) or a function named for it (``qwen2_5_collate_fn``,
``collate_batch``). It runs in the loader (its worker processes, or the main process between
steps) on the samples a dataset gave and a processor tokenized: host tensors, until the
training step moves the batch.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.frames import Frame

# Whole words (``_``-separated) of a module's or function's name that say it collates batches.
COLLATION_WORDS = frozenset({"collate", "collator", "collation"})


def collation_named(name: str) -> bool:
    """Whether a module's stem or a function's name has a word of :data:`COLLATION_WORDS`."""
    return bool(COLLATION_WORDS & {w.lower() for w in name.split("_")})


def collation_code(file_name: str, frame: Frame) -> bool:
    """Whether ``frame``'s code collates batches: its module (``file_name``) or its function
    is named for collation (see the module docs)."""
    function = frame.function
    return collation_named(file_name.removesuffix(".py")) or (
        isinstance(function, cst.FunctionDef) and collation_named(function.name.value)
    )
