"""Host copies in an inference API's inferencer, the class whose whole job is the end of a
request (HTD202, session 45).

An *inferencer* is the user-facing object that runs a trained model over inputs and hands the
results back as host data: mmengine's ``BaseInferencer`` and its subclasses in mmagic, mmocr,
mmpose, mmdet (``__call__`` -> ``preprocess`` -> ``forward`` -> ``visualize`` ->
``postprocess``/``pred2dict``: ``result['fake_img'] = data_sample.fake_img.data.cpu()``,
``result['scores'] = pred.scores.cpu().numpy().tolist()``), OpenCompass's ICL inferencers
(each block's loss saved per data item). Its methods are hot by their names (``forward``,
``__call__``) or through the callers of those methods (``postprocess`` called from
``__call__``), but no training or sampling step runs them: the copy is the result the user
asked for, made once per request or per evaluated item, and there is nothing left on the
device to overlap it with.

The class is recognised by its own name or a base's name as written (``...Inferencer``). Only
whole-tensor copies count (the rule asks for ``kind == "copy"``): a read of one value in such a
class (``.item()``, an ``if`` on a tensor) is still a sync that could be batched, and stays
reported. Tried and dropped: safety checkers (``...SafetyChecker``) by their name. The project
keeps a checker's copy reported unless its callers are known to run it once per request
(:mod:`h2dlint.analysis.once_outputs`, session 39) or its weights stay on the host (session 38's
placement tests): a checker exported to the package's users, or moved to the GPU by them, may
be run per step.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from h2dlint.analysis.class_bases import class_and_base_names


def request_end_class(ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether the innermost class around ``ancestors`` (outermost first) is an inferencer by
    its name or a base's (see the module)."""
    for node in reversed(ancestors):
        if isinstance(node, cst.ClassDef):
            return any(
                name.rpartition(".")[2].endswith("Inferencer")
                for name in class_and_base_names(node)
            )
    return False
