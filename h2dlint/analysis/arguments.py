"""Reading a call's arguments (by keyword, by position, literal ``True``) and what a name says
of where its tensor lives: the small questions every analysis and rule asks of a call."""

from __future__ import annotations

import libcst as cst


def keyword(call: cst.Call, name: str) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def positional(call: cst.Call) -> list[cst.Arg]:
    return [arg for arg in call.args if arg.keyword is None and not arg.star]


def first_positional(call: cst.Call) -> cst.BaseExpression | None:
    args = positional(call)
    return args[0].value if args else None


def is_true(node: cst.BaseExpression | None) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def is_false(node: cst.BaseExpression | None) -> bool:
    return isinstance(node, cst.Name) and node.value in ("False", "None")


def host_named(node: cst.BaseExpression) -> bool:
    """Whether a tensor's name says it lives on the host (``cpu_buf``, ``host_ids``)."""
    while isinstance(node, (cst.Subscript, cst.Attribute)):
        if isinstance(node, cst.Attribute) and _hosty(node.attr.value):
            return True
        node = node.value
    return isinstance(node, cst.Name) and _hosty(node.value)


def _hosty(name: str) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in ("cpu", "host", "pinned", "numpy", "_np"))


def zip_iterables(node: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    """The iterables ``zip(a, b)`` pairs up, also with ``strict=True`` (which only checks
    their lengths; linters ask for it, ruff's B905), or None when ``node`` is no call of
    ``zip`` or takes a star or another keyword."""
    if not (
        isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "zip"
    ):
        return None
    iterables = []
    for arg in node.args:
        if arg.star or (arg.keyword is not None and arg.keyword.value != "strict"):
            return None
        if arg.keyword is None:
            iterables.append(arg.value)
    return iterables
