"""Session 50 (mine50): trl 1.10.0's ``_chunked_cross_entropy_loss`` tests the device count of
valid labels in a Python ``if`` on every forward (``if n_valid_tensor == 0:``, trl PR 6842
removed it). ``labels`` is rebound in both arms of an ``if``/``else`` from tensor parameters;
the ``else`` arm's ``labels[..., 1:]`` read the ``if`` arm's binding as well (source order), so
the chain of evidence looped on itself and the count was not proven a tensor. A binding in one
arm of an ``if`` cannot reach a use in another arm unless a loop encloses the ``if``
(``analysis/branch_bindings.other_arm``, asked by ``Bindings.reaching_bindings``).
"""

from __future__ import annotations

import libcst as cst
import libcst.metadata
from lint_runs import lint

from h2dlint.analysis.branch_bindings import other_arm

TWO_ARMS = """
import torch


def _chunked_loss(hidden: torch.Tensor, labels: torch.Tensor, shift: torch.Tensor | None):
    if shift is not None:
        labels = shift.reshape(-1)
    else:
        labels = labels[..., 1:].reshape(-1)
    valid = labels != -100
    n_valid = valid.sum()
    if n_valid == 0:
        return hidden.sum() * 0.0
    return hidden.sum()
"""

ELIF = """
import torch


def _chunked_loss(hidden: torch.Tensor, labels: torch.Tensor, mode: int):
    if mode == 0:
        labels = labels.reshape(-1)
    elif mode == 1:
        labels = labels.flatten()
    else:
        labels = labels.reshape(-1, 1)
    valid = labels != -100
    n_valid = valid.sum()
    if n_valid == 0:
        return hidden.sum() * 0.0
    return hidden.sum()
"""

HOST_ARMS = """
import torch


def _chunked_loss(hidden: torch.Tensor, labels: torch.Tensor, lengths: list[int] | None):
    if lengths is not None:
        n_valid = sum(lengths)
    else:
        n_valid = labels.numel()
    if n_valid == 0:
        return hidden.sum() * 0.0
    return hidden.sum()
"""


def _rows(code: str) -> list[int]:
    return sorted(f.start.row for f in lint(code, "HTD202"))


def test_a_name_rebound_in_both_arms_keeps_its_parameter_kind() -> None:
    assert _rows(TWO_ARMS) == [12]


def test_elif_arms_are_exclusive_too() -> None:
    assert _rows(ELIF) == [14]


def test_host_counts_in_both_arms_stay_quiet() -> None:
    assert _rows(HOST_ARMS) == []


LOOPED = """
def f(xs, flag):
    for x in xs:
        if flag:
            y = x
        else:
            z = y
    if flag:
        y = 1
    else:
        z = y
"""


def _arms(code: str) -> list[bool]:
    """``other_arm`` of each ``y = ...`` binding and each ``z = y`` use, in source order."""
    wrapper = cst.metadata.MetadataWrapper(cst.parse_module(code))
    parents = wrapper.resolve(cst.metadata.ParentNodeProvider)
    module = wrapper.module

    def ancestors(node: cst.CSTNode) -> tuple[cst.CSTNode, ...]:
        chain = []
        while node in parents:
            node = parents[node]
            chain.append(node)
        return tuple(chain)

    lines = [n for n in parents if isinstance(n, cst.SimpleStatementLine)]
    binds = [n for n in lines if module.code_for_node(n).strip().startswith("y =")]
    uses = [n for n in lines if module.code_for_node(n).strip().startswith("z =")]
    return [other_arm(b, u, ancestors) for b, u in zip(binds, uses, strict=True)]


def test_other_arm_but_not_across_loop_iterations() -> None:
    # in the loop the `if` arm's `y` reaches the `else` arm on the next iteration
    assert _arms(LOOPED) == [False, True]
