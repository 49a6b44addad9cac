"""Facts a cycle guard answered in (a loop rebinding names under many branches): kept by the
computations in progress around them and reused by later questions, with the same answers as
without any memo."""

from __future__ import annotations

import libcst as cst

from h2dlint.analysis.facts import Fact
from h2dlint.analysis.frames import method_frame
from h2dlint.analysis.provenance import Provenance
from h2dlint.context import FileContext

CODE = """import torch
def f(words):
    prev = torch.zeros(2)
    cur = torch.ones(2, device="cuda")
    for w in words:
        if w == 1:
            cur = cur + prev
        elif w == 2:
            prev = cur * 2
        else:
            cur = prev
        if cur.sum() > 0:
            prev = prev + cur
        if prev.max() > 1:
            cur = cur - 1
        if cur.min() < 0:
            prev = cur
"""


def _tested_names(module: cst.Module) -> list[cst.Name]:
    names: list[cst.Name] = []

    class Tests(cst.CSTVisitor):
        def visit_If(self, node: cst.If) -> None:
            test = node.test
            if isinstance(test, cst.Comparison) and isinstance(test.left, cst.Call):
                func = test.left.func
                assert isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
                names.append(func.value)

    module.visit(Tests())
    return names


def _answers(memoise: bool) -> tuple[list[Fact], list[int], Provenance]:
    module = cst.parse_module(CODE)
    function = module.body[1]
    assert isinstance(function, cst.FunctionDef)
    provenance = Provenance(FileContext("m.py", CODE, module), memoise=memoise)
    frame = method_frame(function, None)
    computed = 0
    compute = provenance._compute

    def counting(*args: object) -> Fact:
        nonlocal computed
        computed += 1
        return compute(*args)  # type: ignore[arg-type]

    provenance._compute = counting  # type: ignore[method-assign]
    facts, counts = [], []
    for name in _tested_names(module):
        before = computed
        facts.append(provenance.fact(name, frame))
        counts.append(computed - before)
    return facts, counts, provenance


def test_guarded_answers_are_the_answers_without_memo() -> None:
    memoised, counts, provenance = _answers(True)
    plain, _, _ = _answers(False)
    assert memoised == plain
    assert len(counts) == 3
    # The later questions reuse what a guard answered in the earlier ones.
    assert provenance._guarded_memo
