"""Methods a module's ``Dataset`` calls per sample (HTD201, MEDIUM findings only: rows not
proven on a device).

A ``torch.utils.data.Dataset`` subclass's ``__getitem__`` runs in the data loader, on the host,
once per sample; an object it holds and calls there (``self.noiser.noising(src_tokens_t,
src_lengths)``) transforms that sample's host tensors. fairseq 0.12.2's ``data/noising.py``:
``NoisingDataset.__getitem__`` builds ``src_lengths = torch.LongTensor([len(src_tokens)])``
and hands it to its noiser, whose ``WordDropout.noising`` and ``WordShuffle.noising`` read
``lengths[i]`` and ``x[: lengths[i], i].tolist()`` per sentence (lines 119 and 190): host rows.

Only a method defined in the same module as the dataset class, in a class that is no torch
module (a model kept beside its data runs on the device), whose name the dataset's
``__getitem__`` or ``__iter__`` calls as a method of an object it holds (``self.x.name(...)``)
or of itself (``self.name(...)``). A module that defines a dataset beside other classes whose
methods the dataset never calls (DeepSpeed's ``data_analyzer.py``: a test dataset beside the
distributed ``Dist`` helpers, labelled true) keeps their rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.class_bases import module_subclass, written_bases
from h2dlint.context import FileContext, SharedKey
from h2dlint.walk import visit_read_only

# Bases that make a class a dataset whose items the loader's workers build.
DATASET_BASES = frozenset({"Dataset", "IterableDataset"})
# The dataset's per-sample entry points.
_PER_SAMPLE = frozenset({"__getitem__", "__iter__"})

_CALLED: SharedKey[frozenset[str]] = SharedKey("method names a module's datasets call per sample")


def called_per_sample(context: FileContext, ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether the innermost method around ``ancestors`` is one a dataset class of the module
    calls from its ``__getitem__``/``__iter__`` (see the module), outside any torch module."""
    function = next((a for a in reversed(ancestors) if isinstance(a, cst.FunctionDef)), None)
    owner = next((a for a in reversed(ancestors) if isinstance(a, cst.ClassDef)), None)
    if function is None or owner is None or module_subclass(owner):
        return False
    if owner not in ancestors[: ancestors.index(function)]:
        return False  # a function nested in a method, or a class inside the function
    if _dataset(owner):
        return False  # the dataset's own code: its own question (``dataset_module``)
    called = context.shared(_CALLED, lambda: _called(context.module))
    return function.name.value in called


def _dataset(cls: cst.ClassDef) -> bool:
    return any(base.rsplit(".", 1)[-1] in DATASET_BASES for base in written_bases(cls))


def _called(module: cst.Module) -> frozenset[str]:
    """Method names the module's top-level dataset classes call per sample."""
    names: set[str] = set()
    for statement in module.body:
        if not isinstance(statement, cst.ClassDef) or not _dataset(statement):
            continue
        for member in statement.body.body:
            if isinstance(member, cst.FunctionDef) and member.name.value in _PER_SAMPLE:
                collector = _MethodCalls()
                visit_read_only(member, collector)
                names |= collector.names
    return frozenset(names)


class _MethodCalls(cst.CSTVisitor):
    """Names called as ``self.name(...)`` or ``self.attr.name(...)``."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute):
            return
        receiver = func.value
        if isinstance(receiver, cst.Attribute):
            receiver = receiver.value
        if isinstance(receiver, cst.Name) and receiver.value == "self":
            self.names.add(func.attr.value)


__all__ = ["DATASET_BASES", "called_per_sample"]
