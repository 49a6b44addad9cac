"""replace_nodes rebuilds only the paths to the replaced nodes, and gives the same tree as a
transformer visiting every node."""

from __future__ import annotations

from typing import Any

import libcst as cst

from h2dlint.edits import ReplaceNodes, replace_nodes

SOURCE = """\
import torch


def f(x, dev):
    y = x.to(dev)  # keep
    return [y.cuda() for _ in range(3)]


class M:
    def g(self, a):
        return a.cuda() + 1
"""


def _calls(module: cst.Module, attr: str) -> list[cst.Call]:
    found: list[cst.Call] = []

    class Collect(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Attribute) and node.func.attr.value == attr:
                found.append(node)

    module.visit(Collect())
    return found


def _both(
    module: cst.Module,
    replacements: dict[cst.CSTNode, cst.CSTNode | cst.FlattenSentinel[Any]],
) -> tuple[str, str]:
    return replace_nodes(module, replacements).code, module.visit(ReplaceNodes(replacements)).code


def test_replacing_nodes_gives_what_visiting_every_node_gives() -> None:
    module = cst.parse_module(SOURCE)
    first, second = _calls(module, "cuda")
    replacements: dict[cst.CSTNode, cst.CSTNode | cst.FlattenSentinel[Any]] = {
        first: first.func.value,  # type: ignore[attr-defined]
        second: cst.parse_expression("a.to('cuda')"),
    }
    pruned, full = _both(module, replacements)
    assert pruned == full
    assert "return [y for _ in range(3)]" in pruned and "a.to('cuda') + 1" in pruned
    assert "# keep" in pruned


def test_nested_replacements_and_nodes_the_walk_skips_are_replaced_too() -> None:
    module = cst.parse_module(SOURCE)
    (move,) = _calls(module, "to")
    comma = move.args[0].comma  # punctuation: not on the read-only walk's paths
    outer = _calls(module, "cuda")[0]
    replacements: dict[cst.CSTNode, cst.CSTNode | cst.FlattenSentinel[Any]] = {
        outer: cst.parse_expression("y"),
        outer.func: cst.parse_expression("z.cuda"),  # inside a replaced node: dropped
    }
    assert _both(module, replacements)[0] == _both(module, replacements)[1]
    statement = module.body[1]
    replacements = {statement: cst.RemovalSentinel.REMOVE, comma: cst.MaybeSentinel.DEFAULT}
    pruned, full = _both(module, replacements)
    assert pruned == full and "def f" not in pruned
