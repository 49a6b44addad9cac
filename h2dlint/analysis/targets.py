"""Where a copy goes: the device argument of ``.to(...)``, ``device=`` and ``torch.device(...)``."""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

import libcst as cst

from h2dlint.analysis.torch_api import DTYPE_NAMES, HOST_DEVICE_PREFIXES

if TYPE_CHECKING:
    from h2dlint.analysis.frames import Frame
    from h2dlint.analysis.provenance import Provenance

MAX_DEPTH = 6
DEVICE_WORDS = ("device", "dev", "gpu", "cuda", "rank", "accelerator", "xpu", "npu", "mps")


class Target(enum.Enum):
    DEVICE = "device"
    HOST = "host"
    DTYPE = "dtype"
    UNKNOWN = "unknown"


def _string(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    if isinstance(node, cst.FormattedString):
        head = node.parts[0] if node.parts else None
        if isinstance(head, cst.FormattedStringText):
            return head.value
    return None


def _by_string(text: str) -> Target:
    return Target.HOST if text.startswith(HOST_DEVICE_PREFIXES) else Target.DEVICE


def by_name(name: str) -> Target:
    """What a device argument's name suggests, used only when its value is not in the file
    (a parameter, an attribute set elsewhere)."""
    lowered = name.lower()
    if "dtype" in lowered:
        return Target.DTYPE
    if "cpu" in lowered or "host" in lowered:
        return Target.HOST
    if any(word in lowered for word in DEVICE_WORDS):
        return Target.DEVICE
    return Target.UNKNOWN


def _agree(targets: list[Target]) -> Target:
    return targets[0] if targets and all(t is targets[0] for t in targets) else Target.UNKNOWN


def device_target(
    provenance: Provenance, node: cst.BaseExpression, frame: Frame, depth: int = 0
) -> Target:
    """What a device-or-dtype argument names."""
    if depth > MAX_DEPTH:
        return Target.UNKNOWN
    text = _string(node)
    if text is not None:
        return _by_string(text)
    if isinstance(node, cst.Integer):
        return Target.DEVICE  # a CUDA device ordinal
    qualified = provenance.qualify(node)
    if qualified in DTYPE_NAMES:
        return Target.DTYPE
    if isinstance(node, cst.Call):
        called = provenance.qualify(node.func)
        if called == "torch.device":
            args = [a for a in node.args if a.keyword is None]
            first = _string(args[0].value) if args else None
            if first is not None:
                return _by_string(first)
            if args:
                return device_target(provenance, args[0].value, frame, depth + 1)
            return Target.UNKNOWN
        if called in ("torch.cuda.current_device",):
            return Target.DEVICE
        return Target.UNKNOWN
    if isinstance(node, cst.Name):
        values = provenance.bindings(frame).of(node.value)
        if values and all(v is not None for v in values):
            resolved = _agree(
                [device_target(provenance, v, frame, depth + 1) for v in values if v is not None]
            )
            if resolved is not Target.UNKNOWN:
                return resolved
        return by_name(node.value)
    if isinstance(node, cst.Attribute):
        base = node.value
        if isinstance(base, cst.Name) and frame.cls is not None and base.value == frame.self_name:
            assigned = provenance.index.attributes.get(frame.cls, {}).get(node.attr.value, [])
            if assigned and all(v is not None for v, _ in assigned):
                resolved = _agree(
                    [
                        device_target(provenance, v, f, depth + 1)
                        for v, f in assigned
                        if v is not None
                    ]
                )
                if resolved is not Target.UNKNOWN:
                    return resolved
        return by_name(node.attr.value)
    return Target.UNKNOWN


def to_target(provenance: Provenance, call: cst.Call, frame: Frame) -> Target:
    """Where ``x.to(...)`` sends ``x``."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "device":
            return device_target(provenance, arg.value, frame)
    args = [a for a in call.args if a.keyword is None and not a.star]
    if not args:
        if any(a.keyword is not None and a.keyword.value == "dtype" for a in call.args):
            return Target.DTYPE
        return Target.UNKNOWN
    return device_target(provenance, args[0].value, frame)
