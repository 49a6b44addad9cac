"""Exact structural equality of two fixtures' outputs.

Outputs are tensors, Python scalars (``int``, ``float``, ``complex``, ``bool``, ``str``, ``bytes``,
``None``), or lists, tuples and dicts of them, nested. Equal means: the same structure and types
all the way down; tensors of the same dtype and shape whose values are equal after ``.cpu()``
(``torch.equal``, except that NaN matches NaN in the same place); scalars equal with ``==`` (NaN
matches NaN). Device, ``requires_grad`` and strides are not compared. torch is imported only when
it is already loaded, so this module works (for non-tensor outputs) without it.
"""

from __future__ import annotations

import math
import sys
from typing import Any

_SCALARS = (bool, int, float, complex, str, bytes, type(None))


def _torch() -> Any:
    return sys.modules.get("torch")


def _is_tensor(value: Any) -> bool:
    torch = _torch()
    return torch is not None and isinstance(value, torch.Tensor)


def snapshot(outputs: Any) -> Any:
    """A host copy of ``outputs``: every tensor cloned to the CPU, containers rebuilt. Taken right
    after ``run`` so that a later run overwriting a reused buffer cannot change it."""
    if _is_tensor(outputs):
        return outputs.detach().to("cpu", copy=True)
    if isinstance(outputs, list):
        return [snapshot(item) for item in outputs]
    if isinstance(outputs, tuple):
        items = [snapshot(item) for item in outputs]
        return type(outputs)(*items) if hasattr(outputs, "_fields") else tuple(items)
    if isinstance(outputs, dict):
        return {key: snapshot(value) for key, value in outputs.items()}
    return outputs


def _dtype(tensor: Any) -> str:
    return str(tensor.dtype).removeprefix("torch.")


def _type(value: Any) -> str:
    return "Tensor" if _is_tensor(value) else type(value).__name__


def _tensor_difference(before: Any, after: Any) -> str | None:
    torch = _torch()
    if before.dtype != after.dtype:
        return f"dtype {_dtype(before)} vs {_dtype(after)}"
    if before.shape != after.shape:
        return f"shape {tuple(before.shape)} vs {tuple(after.shape)}"
    a, b = before.detach().cpu(), after.detach().cpu()
    if a.layout != torch.strided:
        a = a.to_dense()
    if b.layout != torch.strided:
        b = b.to_dense()
    if torch.equal(a, b):
        return None
    same = a == b
    if a.is_floating_point() or a.is_complex():
        same = same | (torch.isnan(a) & torch.isnan(b))
    if bool(same.all()):
        return None
    if a.dim() == 0:
        return f"value {a.item()!r} vs {b.item()!r}"
    wrong = (~same).nonzero()
    first = tuple(int(i) for i in wrong[0])
    index = ", ".join(map(str, first))
    return (
        f"values differ at {wrong.shape[0]} of {a.numel()} elements "
        f"(first at [{index}]: {a[first].item()!r} vs {b[first].item()!r})"
    )


def _differs(where: str) -> str:
    return f"{where} differ" if where == "outputs" else f"{where} differs"


def _scalar_equal(before: Any, after: Any) -> bool:
    if isinstance(before, float) and math.isnan(before):
        return isinstance(after, float) and math.isnan(after)
    return bool(before == after)


def compare_outputs(before: Any, after: Any, where: str = "outputs") -> str | None:
    """None when ``before`` and ``after`` are exactly equal; else why not, naming the place, e.g.
    ``"outputs[2] differs: dtype int64 vs int32"``."""
    if _is_tensor(before) or _is_tensor(after):
        if not (_is_tensor(before) and _is_tensor(after)):
            return f"{_differs(where)}: type {_type(before)} vs {_type(after)}"
        difference = _tensor_difference(before, after)
        return None if difference is None else f"{_differs(where)}: {difference}"
    if type(before) is not type(after):
        return f"{_differs(where)}: type {_type(before)} vs {_type(after)}"
    if isinstance(before, (list, tuple)):
        if len(before) != len(after):
            return f"{_differs(where)}: length {len(before)} vs {len(after)}"
        for index, (left, right) in enumerate(zip(before, after, strict=True)):
            reason = compare_outputs(left, right, f"{where}[{index}]")
            if reason is not None:
                return reason
        return None
    if isinstance(before, dict):
        if list(before) != list(after) and set(before) != set(after):
            only_before = sorted(map(repr, set(before) - set(after)))
            only_after = sorted(map(repr, set(after) - set(before)))
            parts = [f"only in before: {', '.join(only_before)}"] if only_before else []
            parts += [f"only in after: {', '.join(only_after)}"] if only_after else []
            return f"{_differs(where)}: keys {'; '.join(parts)}"
        for key in before:
            reason = compare_outputs(before[key], after[key], f"{where}[{key!r}]")
            if reason is not None:
                return reason
        return None
    if isinstance(before, _SCALARS):
        if _scalar_equal(before, after):
            return None
        return f"{_differs(where)}: {before!r} vs {after!r}"
    return f"{where}: unsupported output type {_type(before)} (use tensors, scalars, lists, dicts)"
