"""A parameter annotated as a list of numbers is host data whatever its callers pass
(``torch.tensor`` of a tensor warns, so code that annotates a list does not hand it one); a
tuple is a shape or a few settings, and a list of tensors is no data of numbers."""

from __future__ import annotations

from typing import ClassVar

import libcst as cst
import pytest

from h2dlint.analysis.host_data import host_sequence
from h2dlint.analysis.provenance import Provenance
from h2dlint.engine import EnabledRule, check_text
from h2dlint.rule import Rule


class SequenceProbe(Rule):
    """## What it does
    Test rule recording whether `probe(x)`'s argument is a host sequence."""

    code = "HTD981"
    name = "sequence-probe"
    message = "probe"
    answers: ClassVar[list[bool]] = []

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "probe":
            provenance = Provenance.of(self.context)
            frame = provenance.current_frame()
            type(self).answers.append(host_sequence(provenance, node.args[0].value, frame))


def host_data(annotation: str) -> bool:
    SequenceProbe.answers = []
    code = (
        "from collections.abc import Sequence\n"
        "from typing import List, Optional, Tuple\n"
        "import torch\n"
        f"def step(data: {annotation}):\n"
        "    probe(data)\n"
    )
    assert check_text(code, "m.py", (EnabledRule(SequenceProbe),)) == []
    return SequenceProbe.answers[-1]


@pytest.mark.parametrize(
    "annotation",
    [
        "list[int]",
        "List[int]",
        "list[list[int]]",
        "Sequence[float]",
        "Sequence[list[bool]]",
        "list[tuple[int, int]]",
        "list[tuple[int, ...]]",
        "Optional[List[int]]",
        "list[int] | None",
    ],
)
def test_a_list_of_numbers_is_host_data(annotation: str) -> None:
    assert host_data(annotation)


@pytest.mark.parametrize(
    "annotation",
    [
        "tuple[int, ...]",  # a shape, a few settings
        "Tuple[int, int]",
        "list[torch.Tensor]",
        "list[list[torch.Tensor]]",
        "Sequence[object]",  # (a bare ``list`` is host data since session 45: list_parameters)
        "list[int] | torch.Tensor",
        "torch.Tensor",
        "int",
    ],
)
def test_other_annotations_are_not(annotation: str) -> None:
    assert not host_data(annotation)


def test_an_unannotated_parameter_is_not() -> None:
    SequenceProbe.answers = []
    code = "def step(data):\n    probe(data)\n"
    assert check_text(code, "m.py", (EnabledRule(SequenceProbe),)) == []
    assert SequenceProbe.answers == [False]
