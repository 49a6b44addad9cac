"""The two libcst internals h2dlint relies on, checked loudly: a libcst release that changes
either fails here, with the reason, before anything subtler breaks. pyproject.toml bounds libcst
below 2 for the same reason.

1. ``CSTNode._visit_and_replace_children``: ``walk._child_fields`` reads the order in which a
   node class visits its fields from that method's code constants (the read-only walks follow
   libcst's own visiting order without rebuilding nodes).
2. ``libcst._nodes.internal.CodegenState``: ``context.Positions`` generates code with it to
   locate nodes without the metadata machinery.
"""

from __future__ import annotations

import inspect

import libcst as cst

from h2dlint.context import Positions
from h2dlint.walk import _child_fields


def test_visit_and_replace_children_still_lists_fields_in_its_constants() -> None:
    method = getattr(cst.Call, "_visit_and_replace_children", None)
    assert method is not None, "libcst nodes lost _visit_and_replace_children: see walk.py"
    assert _child_fields(cst.Call) == (
        "lpar",
        "func",
        "whitespace_after_func",
        "whitespace_before_args",
        "args",
        "rpar",
    ), "the field order h2dlint reads from libcst's code changed: see walk._child_fields"


def test_codegen_state_keeps_the_interface_positions_use() -> None:
    from libcst._nodes.internal import CodegenState

    parameters = inspect.signature(CodegenState).parameters
    assert {"default_indent", "default_newline"} <= set(parameters), (
        "libcst's CodegenState changed its constructor: see context.Positions"
    )
    module = cst.parse_module("x = f(a)\n")
    call = module.body[0].body[0].value  # type: ignore[attr-defined]
    span = Positions.of(module, module.code, [call]).range(call)
    assert (span.start.line, span.start.column, span.end.column) == (1, 4, 8)
