"""A host copy in the arm of a multi-backend model that runs a host runtime (HTD202,
session 45).

YOLOv5's ``DetectMultiBackend.forward`` picks the runtime its weights were exported for with
flags set once when the weights are loaded: ``if self.pt: y = self.model(im)`` for PyTorch,
``elif self.onnx: im = im.cpu().numpy(); y = self.session.run(...)`` for ONNX Runtime, then
OpenVINO (``self.xml``), CoreML, PaddlePaddle, and TensorFlow in the ``else``. Those runtimes
take numpy arrays on the host: the copy is the hand-off to the runtime that computes the step,
and no device work is queued behind it to overlap with (the model itself runs off torch).
On PyTorch weights the torch arm runs and nothing is copied.

An arm counts when it belongs to an ``if``/``elif`` chain whose every test is a flag (a name or
an attribute, ``self.onnx``) named for a model runtime, one of them a torch one
(:data:`_TORCH`), and the arm's own test names a host runtime (:data:`_HOST`) or the arm is the
chain's ``else``. A chain that tests anything else (``if x.is_cuda``, ``elif self.training``),
and an arm guarded by a GPU runtime's flag (TensorRT's ``self.engine``, which reads device
pointers) say nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.enclosing_branches import enclosing_branches

# Flags that name a torch runtime.
_TORCH = frozenset({"pt", "jit", "torchscript", "pytorch"})
# Flags that name a runtime that takes host (numpy) inputs.
_HOST = frozenset(
    {
        "onnx",
        "dnn",
        "xml",
        "openvino",
        "coreml",
        "paddle",
        "saved_model",
        "pb",
        "tflite",
        "edgetpu",
        "tfjs",
        "ncnn",
        "mnn",
        "rknn",
    }
)
# Flags of runtimes that run on the GPU, allowed in the chain but never the copy's arm.
_GPU = frozenset({"engine", "tensorrt", "trt", "triton"})


def host_runtime_arm(ancestors: Sequence[cst.CSTNode], node: cst.CSTNode) -> bool:
    """Whether ``node`` (below ``ancestors``, outermost first) is in a host runtime's arm of
    a multi-backend dispatch in its function (see the module)."""
    path = [*ancestors, node]
    for index, parent, child in enclosing_branches(path):
        if child is parent.body:
            arm = _flag(parent.test)
            if arm not in _HOST:
                continue
        elif not isinstance(child, cst.Else):
            continue
        if _dispatch(path[: index + 1]):
            return True
    return False


def _dispatch(path: Sequence[cst.CSTNode]) -> bool:
    """Whether the ``if`` at the end of ``path`` is in a chain of runtime flags, one a torch
    runtime's (see the module)."""
    start = len(path) - 1
    while start > 0:
        above = path[start - 1]
        if not (isinstance(above, cst.If) and above.orelse is path[start]):
            break
        start -= 1
    flags: list[str | None] = []
    link: cst.If | cst.Else | None = path[start]  # type: ignore[assignment]
    while isinstance(link, cst.If):
        flags.append(_flag(link.test))
        link = link.orelse
    known = _TORCH | _HOST | _GPU
    return all(flag in known for flag in flags) and any(flag in _TORCH for flag in flags)


def _flag(test: cst.BaseExpression) -> str | None:
    """The flag ``test`` is (``onnx``, ``self.onnx``), or None."""
    if isinstance(test, cst.Name):
        return test.value
    if isinstance(test, cst.Attribute) and isinstance(test.value, cst.Name):
        return test.attr.value
    return None
