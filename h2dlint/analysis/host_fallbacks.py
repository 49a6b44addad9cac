"""Device reads that are the fallback of a host copy: the ``else`` of ``if src.device.type ==
"cpu": host = src.tolist()`` reading another tensor (``host = cache_seqlens.cpu().tolist()``).
The function reads the host copy its caller supplies (an engine's pinned staging tensor) and
syncs only for a caller that supplies none (a test harness): the branch is the fix of a
per-step sync, not one (exllamav3 1.4.9's MLA lengths). A test of the synced tensor itself
(``if x.device.type == "cpu": v = x.tolist() else: v = x.cpu().tolist()``) still counts: on
a GPU its ``else`` runs on every call. Asked by :mod:`hot_guards` (HTD202's hot code)."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.device_branches import OTHER_BACKEND_FLAGS, only_off_cuda
from h2dlint.walk import ReadOnlyVisitor, visit_read_only


def host_copy_fallback(branch: cst.If, part: cst.CSTNode, node: cst.CSTNode) -> bool:
    """Whether ``node`` is in ``part``, the ``else`` of ``branch``, whose test holds only when a
    named tensor is on the host and whose body reads that tensor, while ``node`` does not."""
    if part is not branch.orelse or not only_off_cuda(branch.test):
        return False
    tested = _host_tested(branch.test)
    if not tested:
        return False  # ``if x.device.type == "xpu":``: its ``else`` runs on CUDA, every call
    return bool(tested & _names(branch.body)) and not tested & _names(node)


def _host_tested(test: cst.BaseExpression) -> set[str]:
    """The names whose placement ``test`` reads (``src`` of ``src.device.type``,
    ``src.is_cpu``), when the test names the host (a ``"cpu"`` string, ``is_cpu``)."""
    collector = _PlacementReads()
    visit_read_only(test, collector)
    return collector.names if collector.host else set()


class _PlacementReads(ReadOnlyVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()
        self.host = False

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        self.host = self.host or node.raw_value == "cpu"

    def visit_Attribute(self, node: cst.Attribute) -> None:
        value = node.value
        self.host = self.host or node.attr.value == "is_cpu"
        if (
            node.attr.value == "type"
            and isinstance(value, cst.Attribute)
            and value.attr.value == "device"
            and isinstance(value.value, cst.Name)
        ):
            self.names.add(value.value.value)
        elif node.attr.value in OTHER_BACKEND_FLAGS and isinstance(value, cst.Name):
            self.names.add(value.value)


def _names(node: cst.CSTNode) -> set[str]:
    collector = _NameReads()
    visit_read_only(node, collector)
    return collector.names


class _NameReads(ReadOnlyVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)
