"""The analysis fact behind session 46's blind-style triage (docs/precision.md, "Session 46
(triage46)"), with the look-alikes that must keep their verdict.

EnCodec's arithmetic coder (``quantization/ac.py``, copied into boson-multimodal, maskgct,
SpeechTokenizer and others) ends with its own self-test: a parameterless ``test()`` that draws
host pdfs with ``torch.randn``, encodes and decodes them, and that only
``if __name__ == "__main__":`` calls. Its loops are the test's cases, not steps of a program, so
the coder's ``.item()`` reads are not on a hot path through it (analysis/self_tests.py), as they
are not through a ``test_*`` function. A script's ``test(model, loader)`` evaluation loop, and a
``test()`` that another function calls, keep their loops of steps."""

from __future__ import annotations

import ast
from pathlib import Path

from lint_runs import cli_rows

from h2dlint.analysis.self_tests import ast_self_tests

CODER = """
import torch

from .data import pdfs_of


def build_stable_quantized_cdf(pdf: torch.Tensor, total_range_bits: int, check: bool = True):
    quantized_cdf = torch.cumsum((pdf * 2**total_range_bits).floor().long() + 2, dim=-1)
    if check:
        if ((quantized_cdf[1:] - quantized_cdf[:-1]) < 2).any():
            raise ValueError("You must increase your total_range_bits.")
    return quantized_cdf


class ArithmeticCoder:
    def __init__(self, fo, total_range_bits: int = 24):
        self.fo = fo
        self.total_range_bits = total_range_bits

    def push(self, symbol: int, quantized_cdf: torch.Tensor):
        range_low = 0 if symbol == 0 else quantized_cdf[symbol - 1].item()
        return range_low


class ArithmeticDecoder:
    def __init__(self, fo, total_range_bits: int = 24):
        self.fo = fo
        self.total_range_bits = total_range_bits

    def pull(self, quantized_cdf: torch.Tensor):
        return None


DRIVER
"""

LOOP = """
    for _ in range(4):
        encoder = ArithmeticCoder(None)
        for pdf in PDFS:
            q_cdf = build_stable_quantized_cdf(pdf, encoder.total_range_bits)
            encoder.push(0, q_cdf)
        decoder = ArithmeticDecoder(None)
        assert decoder.pull(torch.zeros(1)) is None
"""

SELF_TEST = (
    """
def test():
    pdfs = pdfs_of(4)"""
    + LOOP.replace("PDFS", "pdfs")
    + """

if __name__ == "__main__":
    test()
"""
)

# A training script's evaluation: the batches come from the caller.
EVALUATION = (
    """
def test(loader):"""
    + LOOP.replace("PDFS", "loader")
    + """

if __name__ == "__main__":
    test(pdfs_of(4))
"""
)

# Called from another function: a step of that one, not the module's own check.
CALLED_ELSEWHERE = (
    """
def test():
    pdfs = pdfs_of(4)"""
    + LOOP.replace("PDFS", "pdfs")
    + """

def main():
    test()


if __name__ == "__main__":
    main()
"""
)


def coder(driver: str) -> str:
    return CODER.replace("DRIVER", driver)


def test_module_self_test_is_no_loop_of_steps(tmp_path: Path) -> None:
    """boson-multimodal 0.1.1 audio_processing/quantization/ac.py:51, 144, 145; maskgct's and
    SpeechTokenizer's copies."""
    assert cli_rows(tmp_path, coder(SELF_TEST), "HTD202") == []


def test_evaluation_loop_named_test_stays_hot(tmp_path: Path) -> None:
    assert cli_rows(tmp_path, coder(EVALUATION), "HTD202") == [10, 21]


def test_test_called_by_another_function_stays_hot(tmp_path: Path) -> None:
    assert cli_rows(tmp_path, coder(CALLED_ELSEWHERE), "HTD202") == [10, 21]


def test_ast_self_tests_reads_the_same_shape() -> None:
    """The project index's side (step_loops) of the same fact."""
    assert ast_self_tests(ast.parse(coder(SELF_TEST))) == {"test"}
    assert ast_self_tests(ast.parse(coder(EVALUATION))) == frozenset()
    assert ast_self_tests(ast.parse(coder(CALLED_ELSEWHERE))) == frozenset()
    handed_on = coder(SELF_TEST).replace("    test()", "    run(test)")
    assert ast_self_tests(ast.parse(handed_on)) == frozenset()
