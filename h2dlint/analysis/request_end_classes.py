"""Host copies in classes whose whole job is the end of a request: an inference API's
inferencer and an image generator's safety checker (HTD202, session 45).

An *inferencer* is the user-facing object that runs a trained model over inputs and hands the
results back as host data: mmengine's ``BaseInferencer`` and its subclasses in mmagic, mmocr,
mmpose, mmdet (``__call__`` -> ``preprocess`` -> ``forward`` -> ``visualize`` ->
``postprocess``/``pred2dict``: ``result['fake_img'] = data_sample.fake_img.data.cpu()``,
``result['scores'] = pred.scores.cpu().numpy().tolist()``), OpenCompass's ICL inferencers
(each block's loss saved per data item). A *safety checker* (diffusers', mmagic's
``StableDiffusionSafetyChecker``) scores the finished images once per request, after the
denoising loop, and its verdict must reach the host to blank images
(``cosine_distance(image_embeds, self.concept_embeds).cpu().float().numpy()``). Both are hot
by the names of their methods (``forward``, ``__call__``) or through the callers of those
methods (``postprocess`` called from ``__call__``), but no training or sampling step runs
them: the copy is the result the user asked for, made once per request or per evaluated
item, and there is nothing left on the device to overlap it with.

The class is recognised by its own name or a base's name as written (``...Inferencer``,
``...SafetyChecker``). Only whole-tensor copies count (the rule asks for ``kind == "copy"``):
a read of one value (``.item()`` of a concept's weight per image, an ``if`` on a tensor) in
such a class is still a sync that could be batched, and stays reported.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.class_bases import class_and_base_names

# Endings of a class's (or a base's) name that say it is such a class.
_ENDINGS = ("Inferencer", "SafetyChecker")


def request_end_class(ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether the innermost class around ``ancestors`` (outermost first) is an inferencer or a
    safety checker by its name or a base's (see the module)."""
    for node in reversed(ancestors):
        if isinstance(node, cst.ClassDef):
            return any(
                name.rpartition(".")[2].endswith(_ENDINGS) for name in class_and_base_names(node)
            )
    return False
