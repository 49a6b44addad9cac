"""Code written for a runtime that runs the model on the host, by the folder it sits in.

OpenVINO (optimum-intel's ``openvino/`` modelling and export packages), Core ML (executorch's
``coreml/`` examples) and Arm's Cortex-M (executorch's ``cortex_m/`` reference operators) run
a model outside torch's CUDA devices: the torch tensors such code walks are the host inputs
and outputs of that runtime (``torch.from_numpy`` of OpenVINO's results), or the CPU tensors
an export traces with. A row read there waits for no queued kernel. Session 44 (fp201m44):
seven of optimum-intel's and seven of executorch's HTD201 MEDIUM false alarms sat in such
folders (``optimum/intel/openvino/modeling_seq2seq.py``: decoder ids ``.item()`` per row of
the OpenVINO model's host ids).

Only MEDIUM findings (rows not proven on a device) are left out: a tensor proven on a device
there is still one. The words name folders, not files: ``transformers/integrations/
executorch.py`` exports a model that may run on CUDA, and ``npu``, ``mps`` and ``xpu`` name
devices, where a row read is a sync.
"""

from __future__ import annotations

# Folder names of runtimes that take host tensors.
HOST_RUNTIME_FOLDERS = frozenset({"openvino", "coreml", "cortex_m"})


def host_runtime_module(path: str) -> bool:
    """Whether the module at ``path`` sits in a folder named for a host runtime
    (:data:`HOST_RUNTIME_FOLDERS`)."""
    folders = path.replace("\\", "/").split("/")[:-1]
    return any(folder.lower() in HOST_RUNTIME_FOLDERS for folder in folders)
