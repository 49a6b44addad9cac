"""Modules written for exporting a model, or for a runtime off torch's CUDA devices, by where
they sit (HTD107, MEDIUM findings only).

An exporter's code runs when a model is traced for another runtime: a constant tensor made
there becomes a constant of the exported graph, made once per export, not per step.
Transformer Engine's ``pytorch/onnx_extensions.py`` (the eager bodies of the custom ops its
``onnx_forward`` methods call while exporting to ONNX), optimum-intel's
``exporters/openvino/model_patcher.py`` (a model's forward patched for OpenVINO tracing) and
executorch's ``backends/mlx/custom_ops.py`` (the host reference of MLX delegate ops, used for
export and checks) are such modules. Session 45 (fp1xx45): seven HTD107 MEDIUM false alarms
sat there, no labelled true finding of any rule does.

A module counts when its file name starts with ``onnx``, or a folder above it is named
``exporters`` or ``mlx``, or is a host runtime's (:mod:`host_runtimes`: ``openvino``,
``coreml``, ``cortex_m``). A file merely named for export (``transformers/integrations/
executorch.py``, ``export.py``) does not: it may build the model that runs on CUDA. Only
MEDIUM findings are left out: a constant proven made on a device per step is still reported.
"""

from __future__ import annotations

from h2dlint.analysis.host_runtimes import host_runtime_module

# Folder names of exporters and of runtimes whose ops torch only traces or mimics on the host.
EXPORT_FOLDERS = frozenset({"exporters", "mlx"})


def export_module(path: str) -> bool:
    """Whether the module at ``path`` is exporter or host-runtime code: a file named
    ``onnx*``, or one under a folder of :data:`EXPORT_FOLDERS` or of a host runtime."""
    parts = path.replace("\\", "/").split("/")
    if parts[-1].lower().startswith("onnx"):
        return True
    return host_runtime_module(path) or any(p.lower() in EXPORT_FOLDERS for p in parts[:-1])


__all__ = ["EXPORT_FOLDERS", "export_module"]
