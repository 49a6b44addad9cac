"""Parsing without libcst's per-node validation gives the same tree, and validation is back on
for the nodes built afterwards (a fix's)."""

from __future__ import annotations

import libcst as cst
import pytest

from h2dlint.cst_parse import parse_valid_python

SOURCE = """
import torch

@torch.no_grad()
def step(batch, device, *, non_blocking=True):
    ids = torch.tensor(batch.ids, dtype=torch.long)
    return [x.to(device, non_blocking=non_blocking) for x in (ids, ids + 1) if x is not None]

class Pool:
    rows: list[int] = []

    async def fill(self, n: int) -> None:
        async with self.lock:
            self.rows[:n] = (lambda k: k ** 2)(n) if n else -1
"""


def test_the_tree_is_the_validated_parse() -> None:
    assert parse_valid_python(SOURCE).deep_equals(cst.parse_module(SOURCE))
    assert parse_valid_python(SOURCE).code == SOURCE


def test_nodes_built_afterwards_are_validated() -> None:
    parse_valid_python(SOURCE)
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")


def test_a_syntax_error_still_raises_and_validation_comes_back() -> None:
    with pytest.raises(cst.ParserSyntaxError):
        parse_valid_python("def f(:\n")
    with pytest.raises(cst.CSTValidationError):
        cst.Name("1x")


def _node_classes(cls: type) -> list[type]:
    found = [cls]
    for sub in cls.__subclasses__():
        found.extend(_node_classes(sub))
    return found


def test_nodes_compare_and_hash_by_identity_through_cpython() -> None:
    from libcst._nodes.base import CSTNode

    first, second = cst.Name("x"), cst.Name("x")
    assert first == first and first != second
    assert (first == second) is False
    assert len({first, second, first}) == 2
    assert hash(first) == object.__hash__(first)
    # Every node class: CPython's slots, not libcst's Python methods (one call per lookup).
    for cls in _node_classes(CSTNode):
        assert cls.__hash__ is object.__hash__, cls
        assert cls.__eq__ is object.__eq__, cls
