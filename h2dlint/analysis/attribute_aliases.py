"""Local names that stand for an attribute of ``self``: ``helper = self.helper``.

A per-step method often binds an object it holds to a short local name and calls its methods
through it::

    def apply_pair_update(self, group, left, right):      # called from step()
        helper = self.helper                              # self.helper = LoRARiteHelper(...)
        update = helper.get_preconditioned_update(...)    # -> helper.inverse_sqrt(...)

The call runs the method of the attribute's class as ``self.helper.m(...)`` would
(:mod:`h2dlint.analysis.hot_calls` follows that form): pytorch-optimizer 3.10.1's
``LoRARiteHelper.inverse_sqrt`` read ``torch.max(eigenvalues)...item()`` once per LoRA pair per
optimizer step (``lora_rite.py:61``; 4.1 keeps the epsilon on the device), through such a name.
"""

from __future__ import annotations

import libcst as cst


def aliased_attributes(
    function: cst.FunctionDef,
    name: str,
    values: list[cst.BaseExpression],
    self_names: tuple[str, ...],
) -> list[str]:
    """The attributes of ``self`` the local ``name`` of ``function`` stands for, given every
    value the function binds to it (``values``): each must read ``self.<attr>`` (``helper =
    self.helper``); empty when any binding is something else (a name rebound to another object
    is no alias), when there is none, or when ``name`` is a parameter (a caller's object)."""
    params = function.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    if any(param.name.value == name for param in every):
        return []
    found: list[str] = []
    for value in values:
        if not (
            isinstance(value, cst.Attribute)
            and isinstance(value.value, cst.Name)
            and value.value.value in self_names
        ):
            return []
        if value.attr.value not in found:
            found.append(value.attr.value)
    return found
