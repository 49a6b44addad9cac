"""A local name bound to the device of a tensor field of a structure (session 49, fp1xx49).

``device = rows.token_ids.device`` in agilerl's ``_assemble`` (``utils/segment_balance.py``),
then ``part.to(device)`` for each received part: a copy to the device of the data the function
works on, as ``h.to(x.device)`` is (HTD101 leaves such alignments alone,
:func:`~h2dlint.analysis.loop_transfers.item_transfer`). The field is named by an attribute
chain with no call, none of whose names is a model's, a framework object's or a
configuration's: their ``.device`` (``pipe.unet.device``, ``trainer.accelerator.device``,
``self.encoder.device``) is where host data is sent.
"""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

# Words of such holders, besides the caller's words for a model (``model``, ``layer``...).
_HOLDER_WORDS = (
    "net",
    "coder",
    "vae",
    "accelerat",
    "fabric",
    "engine",
    "pipe",
    "trainer",
    "runner",
    "config",
    "cfg",
    "args",
    "opt",
    "self",
)


def field_of_data(owner: cst.BaseExpression, model_words: Iterable[str]) -> bool:
    """Whether ``owner`` (the ``rows.token_ids`` of ``rows.token_ids.device``) is an attribute
    chain with no call, rooted in a name other than ``cls``, none of whose names holds one of
    ``model_words`` or a holder's word (see the module)."""
    names: list[str] = []
    while isinstance(owner, (cst.Attribute, cst.Subscript)):
        if isinstance(owner, cst.Attribute):
            names.append(owner.attr.value)
        owner = owner.value
    if not isinstance(owner, cst.Name) or owner.value == "cls":
        return False
    names.append(owner.value)
    words = (*model_words, *_HOLDER_WORDS)
    return not any(word in name.lower() for name in names for word in words)
