"""A metric's ``update()`` runs once per batch.

torchmetrics' ``Metric`` (and the metrics built on it: torchrec's ``RecMetricComputation``,
ignite's ``Metric``) documents ``update(preds, target)`` as the call a training or evaluation
loop makes for every batch (``Metric.forward`` calls it too): a sync inside it, or in a helper
it calls, stalls the host once per batch. A class is a metric when its name, or the name of a
base it lists, has the word ``Metric`` (``SegmentedNEMetricComputation``,
``RecMetricComputation``, ``torchmetrics.Metric``); a logger or tracker of metrics
(``MetricLogger.update(**values)``: it records values already read) is not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import libcst as cst

from h2dlint.analysis.class_bases import written_bases

METRIC_UPDATE_REASON = "a metric's `{}.update()` runs once per batch"
# Words of a class name that make a metric's class a recorder of values read already.
_RECORDER_WORDS = frozenset(
    {"Logger", "Logging", "Writer", "Tracker", "Printer", "Reporter", "Callback", "Meter"}
)
_WORDS = re.compile(r"[A-Z][a-z0-9]*|[a-z0-9]+")


def _metric_name(name: str) -> bool:
    return "Metric" in _words(name)


def metric_update_reason(name: str, cls: str | None, bases: Iterable[str] = ()) -> str | None:
    """Why method ``name`` of class ``cls`` (whose bases are ``bases``, as written or
    qualified) runs once per batch: it is a metric's ``update``."""
    if name != "update" or cls is None:
        return None
    names = (cls, *bases)
    if any(_recorder(n) for n in names) or not any(_metric_name(n) for n in names):
        return None
    return METRIC_UPDATE_REASON.format(cls)


def _words(name: str) -> list[str]:
    return _WORDS.findall(name.rpartition(".")[2])


def _recorder(name: str) -> bool:
    return bool(_RECORDER_WORDS.intersection(_words(name)))


def metric_reason(name: str, cls: cst.ClassDef) -> str | None:
    """:func:`metric_update_reason` of method ``name`` of the class ``cls`` defines."""
    return metric_update_reason(name, cls.name.value, written_bases(cls))
