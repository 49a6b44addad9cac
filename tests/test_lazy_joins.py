"""Joins that stop asking once their answer is settled (session 40, speed40).

A parameter's fact is the join of what every call passes (``facts.join``), and a class the one
that every binding, return or assignment agrees on (``classes.agree``). Once the facts joined so
far are unknown in every field, or a class can no longer be agreed on, the rest cannot change
the answer; they are not asked, because asking may parse another module with libcst (an
argument of another module's call, ``chained_arguments``; a class defined elsewhere). These
tests hold both: the answer is the one the whole join gives, and the rest is not asked.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest

from h2dlint.analysis import chained_arguments
from h2dlint.analysis.argument_flow import Passed, Slot
from h2dlint.analysis.classes import ClassRef, agree, agree_or_module, agreed_class
from h2dlint.analysis.facts import UNKNOWN_FACT, Fact, Where, join
from h2dlint.analysis.provenance.common import REMOTE_FACTS
from h2dlint.project.passed_sites import Site

DEVICE = Fact(Where.DEVICE)
PAGEABLE = Fact(Where.PAGEABLE)
PINNED = Fact(Where.PINNED)
FRESH_DEVICE = Fact(Where.DEVICE, True, True)
FACTS = [UNKNOWN_FACT, DEVICE, PAGEABLE, PINNED, FRESH_DEVICE, Fact(Where.HOST, False, None)]


def _site(line: int) -> Site:
    return Site("pkg.caller", line, "?", {}, "helper")


def _flow(codes: list[str]) -> Passed:
    pending = tuple((_site(i), Slot("x", 0)) for i, code in enumerate(codes) if code == "?")
    return Passed([], codes, pending)


def _remote(
    monkeypatch: pytest.MonkeyPatch, codes: list[str], answers: list[Fact], local: list[Fact]
) -> tuple[list[Fact], int]:
    """What ``remote_facts`` gives for ``codes`` (the ``?`` ones answered by ``answers`` in
    order) beside ``local``, and how many ``?`` arguments it asked."""
    asked = iter(answers)
    count = [0]

    def argument_fact(*_args: Any) -> Fact:
        count[0] += 1
        return next(asked)

    monkeypatch.setattr(chained_arguments, "argument_fact", argument_fact)
    found = chained_arguments.remote_facts(
        None,  # type: ignore[arg-type]
        _flow(codes),
        0,
        REMOTE_FACTS,
        UNKNOWN_FACT,
        local,
    )
    return found, count[0]


def test_a_call_passing_python_data_settles_the_join(monkeypatch: pytest.MonkeyPatch) -> None:
    # ``l`` (Python data) is no tensor fact: the join is unknown, the ``?`` calls are not asked.
    found, asked = _remote(monkeypatch, ["l", "?", "?"], [DEVICE, DEVICE], [])
    assert asked == 0
    assert join(found) == UNKNOWN_FACT


def test_an_unknown_argument_stops_the_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    found, asked = _remote(monkeypatch, ["?", "?", "?"], [UNKNOWN_FACT, DEVICE, DEVICE], [])
    assert asked == 1
    assert join(found) == UNKNOWN_FACT


def test_arguments_that_agree_are_all_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    found, asked = _remote(monkeypatch, ["d", "?", "?"], [DEVICE, DEVICE], [])
    assert asked == 2
    assert join(found).where is Where.DEVICE


def test_a_lone_pending_argument_is_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    # Nothing else joined: an empty join is no unknown answer yet.
    found, asked = _remote(monkeypatch, ["?"], [DEVICE], [])
    assert asked == 1
    assert found == [DEVICE]


def test_an_unknown_local_argument_stops_the_remote_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    found, asked = _remote(monkeypatch, ["?", "0"], [DEVICE], [UNKNOWN_FACT])
    assert asked == 0
    assert join([UNKNOWN_FACT, *found]) == UNKNOWN_FACT


@pytest.mark.parametrize("size", [1, 2, 3])
def test_the_join_is_the_whole_join(monkeypatch: pytest.MonkeyPatch, size: int) -> None:
    """Every combination of local facts, codes and answers: the join of what
    ``remote_facts`` gives equals the join of every fact, asked or not."""
    codes = ["d", "c", "p", "l", "0", "?"]
    for local in itertools.product(FACTS, repeat=size - 1):
        for remote in itertools.product(codes, repeat=size):
            pending = remote.count("?")
            for answers in itertools.product(FACTS, repeat=pending):
                found, _ = _remote(monkeypatch, list(remote), list(answers), list(local))
                every = [
                    *local,
                    *(REMOTE_FACTS.get(c, UNKNOWN_FACT) for c in remote if c not in "0?"),
                    *answers,
                ]
                whole = join(every) if every else UNKNOWN_FACT
                given = [*local, *found]
                assert (join(given) if given else UNKNOWN_FACT) == whole


A, B = ClassRef("pkg.A"), ClassRef("pkg.B")
MODULE = ClassRef("torch.nn.Linear")
REFS: list[ClassRef | None] = [A, B, MODULE, ClassRef("torch.nn.ReLU"), None]


def _counted(refs: list[ClassRef | None], taken: list[int]) -> Iterator[ClassRef | None]:
    for ref in refs:
        taken[0] += 1
        yield ref


@pytest.mark.parametrize("modules", [False, True])
def test_agreed_class_is_agree(modules: bool) -> None:
    whole = agree_or_module if modules else agree
    for size in range(4):
        for refs in itertools.product(REFS, repeat=size):
            assert agreed_class(iter(refs), modules) == whole(list(refs))


def test_agreed_class_stops_at_a_none_or_a_second_class() -> None:
    taken = [0]
    assert agreed_class(_counted([A, None, A, A], taken)) is None
    assert taken == [2]
    taken = [0]
    assert agreed_class(_counted([A, B, A], taken)) is None
    assert taken == [2]
    taken = [0]  # modules that differ may still agree on ``nn.Module``: all are asked
    assert agreed_class(_counted([MODULE, ClassRef("torch.nn.ReLU")], taken), True) is not None
    assert taken == [2]
