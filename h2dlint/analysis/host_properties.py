"""Properties that name the host device whatever the instance (the device argument of a copy
or an allocation, :mod:`~h2dlint.analysis.targets`).

``self.device`` names an accelerator by its word, unless the file says what it holds. A class
whose ``device`` is a property returning the host's device, as a constant (``return "cpu"``,
``return torch.device("cpu")``), says so: a backend whose model runs elsewhere while its
tensors stay on the host (lm-eval's Neuron backend: "Device are neuron cores, but the created
tensors are on CPU"), an export runner (OpenVINO, ExecuTorch), a CPU runtime. A tensor made with
``device=self.device`` there is a host tensor, and no copy. Only a property of the class itself
whose every ``return`` is such a constant counts.
"""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.frames import decorator_names
from h2dlint.analysis.torch_api import HOST_DEVICE_PREFIXES
from h2dlint.imports import dotted_name
from h2dlint.walk import visit_read_only


def host_property(cls: cst.ClassDef, name: str) -> bool:
    """Whether ``cls`` defines ``name`` as a property whose every return is the host device as
    a constant (see the module's docs)."""
    for statement in cls.body.body:
        if (
            isinstance(statement, cst.FunctionDef)
            and statement.name.value == name
            and "property" in decorator_names(statement)
        ):
            returns = _Returns()
            visit_read_only(statement.body, returns)
            return bool(returns.values) and all(_host_device(v) for v in returns.values)
    return False


def _host_device(value: cst.BaseExpression | None) -> bool:
    if isinstance(value, cst.Call):
        name = dotted_name(value.func)
        args = [a for a in value.args if a.keyword is None]
        if name not in ("torch.device", "device") or len(args) != 1:
            return False
        value = args[0].value
    if isinstance(value, cst.SimpleString):
        text = value.evaluated_value
        return isinstance(text, str) and text.startswith(HOST_DEVICE_PREFIXES)
    return False


class _Returns(cst.CSTVisitor):
    def __init__(self) -> None:
        self.values: list[cst.BaseExpression | None] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Return(self, node: cst.Return) -> None:
        self.values.append(node.value)
