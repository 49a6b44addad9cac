"""A host copy in a helper whose name says it converts tensors to a host format (HTD202,
session 45).

``def to_numpy(tensor): return tensor.detach().cpu().numpy()`` (robomimic), ``numpify``
(LLaMA-Factory's ``compute_metrics`` input), ``convert_to_numpy`` (MONAI), ``_tensor2img``
(mmagic's demo), ``output_to_pil`` (mmagic's Stable Diffusion): the copy is what the function
is for, and its caller asked for host data by calling it. A hot caller makes the helper hot,
so the copy reads as a per-step sync, but the helper cannot keep the values on the device or
defer the wait: whether the conversion belongs on a hot path is the caller's question, and the
caller's loop (a per-row conversion) is HTD201's. Every labelled copy in such a helper was a
false alarm (session 45: monai, LLaMA-Factory, robomimic, mmagic, ControlNet's mask data).

A function counts, itself or one it is nested in, when its name is a host library's format
after ``to_`` or ``2``, maybe after ``convert``/``tensor``/``output`` (``to_numpy``,
``convert_to_numpy``, ``output_to_pil``), an image made from a tensor (``tensor2img``,
``_tensor2img``, ``output_to_image``), or ``numpify``. A pipeline named for its whole job
(``txt2img``, ``text_to_image``, ``img2img``) runs the denoising loop and is no conversion,
nor is ``seq2img`` (patches back into an image, a device op). Only whole-tensor copies count
(the rule asks for ``kind == "copy"``): a read of one value in such a function stays reported,
as do copies in helpers named otherwise. So does a copy the rule proves is of a device tensor
(HIGH: the rule asks only at MEDIUM): modelscope's ``tensor2numpy`` of the outputs its
multi-view depth model computes per batch of a loop over the views (``casmvs_model.py:112``),
where the callers are known to hand device tensors, one per step.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import libcst as cst

# What a conversion's name may say it converts: nothing (``to_numpy``) or a tensor.
_FROM = r"^_*(?:(?:convert|tensors?|torch|pt|outputs?)_?)?"
# A host library's format, or an image from a tensor (``tensor2img``, not ``txt2img``).
_CONVERSION = re.compile(
    _FROM + r"(?:to_|2)(?:numpy|np|pil|pil_image|ndarray)$"
    r"|^_*(?:tensors?|torch|outputs?)_?(?:to_|2)(?:img|imgs|image|images|im)$"
    r"|^_*numpify$"
)


def conversion_helper(ancestors: Sequence[cst.CSTNode]) -> bool:
    """Whether a function around ``ancestors`` (outermost first) is named for converting
    tensors to a host format (see the module)."""
    return any(
        isinstance(node, cst.FunctionDef) and _CONVERSION.search(node.name.value.lower())
        for node in ancestors
    )
