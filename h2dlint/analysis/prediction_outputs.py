"""A model's prediction mode copying its results to the host: ``predict()`` of a model that
trains through ``loss()``, ``forward_inference()`` and ``forward_test()`` of one that trains
through ``forward_train()`` (HTD202, session 44).

OpenMMLab's models (mmengine's ``BaseModel``: ``forward(mode="loss" | "predict")``) split
training from prediction: ``loss()`` or ``forward_train()`` runs per training step, while
``predict()``, ``forward_inference()``, ``forward_test()`` (and an editor's ``infer()``) run
only in validation, testing or inference, where the result goes to host metrics, a
``DataSample`` or an image file. mmaction2's localizers copy their scores to numpy for the
host's soft-NMS (``BMN.predict``: ``start[0].cpu().numpy()``), mmagic's editors their images
(``DataSample(pred_img=feats.cpu())``, ``image.cpu().numpy()`` after the denoising loop):
the copy is the prediction's output, once per evaluated batch, and no training step is queued
behind it. Such a method is hot by its name (``forward_inference`` says "forward") or through
``val_step``, so HTD202 reported those copies.

Only a whole-tensor copy (``.cpu()``, ``.to("cpu")``, ``.tolist()``) outside the method's
loops counts: implicit reads (a boolean mask, a tensor as an ``if`` test, ``.item()``) stall
the prediction without being its output and stay reported (TCANet's mask selects in
``predict``, lerobot's ``predict`` that tests a device match), as does a copy per item of a
loop. The names that say prediction alone (:data:`_PREDICTION_ONLY`) need nothing more; the
generic ones (:data:`_PREDICTION`: ``predict``, ``infer``) count only in a class that also
trains (:data:`_TRAINING`, its own method or one a base class of the same module defines): a
``predict()`` with no training counterpart may be a policy's per-step action (d3rlpy) or a
serving call, whatever the labels say of it.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.frames import ModuleIndex
from h2dlint.analysis.hot_calls import inherited_method

# Names that say the method is the evaluation or inference mode of a model's forward.
_PREDICTION_ONLY = frozenset({"forward_test", "forward_inference", "simple_test", "aug_test"})
# Names that say prediction in a class that also trains.
_PREDICTION = frozenset({"predict", "infer"})
# The training counterparts of a prediction method.
_TRAINING = frozenset({"loss", "forward_train", "train_step", "training_step"})
_LOOPS = (cst.For, cst.While, cst.BaseComp, cst.DictComp, cst.Lambda)


def prediction_output(
    index: ModuleIndex, ancestors: Sequence[cst.CSTNode], function: cst.FunctionDef
) -> bool:
    """Whether the host copy below ``ancestors`` (innermost last) is a prediction method's
    output (see the module): ``function`` is a method named for prediction of a class that
    trains elsewhere, and the copy is in none of its loops or nested functions."""
    name = function.name.value
    if name not in _PREDICTION_ONLY and name not in _PREDICTION:
        return False
    try:
        start = next(i for i, node in enumerate(ancestors) if node is function)
    except StopIteration:
        return False
    if any(isinstance(node, (*_LOOPS, cst.FunctionDef)) for node in ancestors[start + 1 :]):
        return False
    owner = ancestors[start - 2] if start >= 2 else None
    if not isinstance(owner, cst.ClassDef):
        return False
    return name in _PREDICTION_ONLY or _trains(index, owner)


def _trains(index: ModuleIndex, cls: cst.ClassDef) -> bool:
    """Whether ``cls`` or a base class of the same module defines a training method."""
    return any(inherited_method(index, cls, name) is not None for name in _TRAINING)
