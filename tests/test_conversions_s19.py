"""Session 19 (lead): ``torch.tensor(x).to(dev)`` and ``torch.tensor(x, device=dev)`` are the
same blocking copy from pageable memory and are judged alike (HTD301 and HTD106), with a
parameter's annotation as evidence either way: a list of numbers is host data, a tuple or a
number a few bytes."""

from __future__ import annotations

from lint_runs import lint

from h2dlint.diagnostics import Confidence


def _found(code: str, rule_code: str, path: str = "runner.py") -> list[tuple[int, Confidence]]:
    findings = lint(code, rule_code, path=path)
    return [(f.start.row, f.confidence) for f in findings if f.code == rule_code]


RUNNER = """
    import torch
    class Runner:
        def execute_model(self, batch, token_ids: list[list[int]], shape: tuple[int, int]):
            a = torch.tensor(batch.seq_lens).to(self.device)
            b = torch.tensor(batch.seq_lens, device=self.device)
            c = torch.tensor(token_ids).to(self.device)
            d = torch.tensor(token_ids, device=self.device)
            e = torch.tensor(shape).to(self.device)
            f = torch.tensor(shape, device=self.device)
            return a, b, c, d, e, f
    """


def test_both_spellings_of_a_conversion_on_a_step_path_are_reported_alike() -> None:
    htd301 = _found(RUNNER, "HTD301")
    htd106 = _found(RUNNER, "HTD106")
    # data of unknown type: medium, in either spelling
    assert (5, Confidence.MEDIUM) in htd301
    assert (6, Confidence.MEDIUM) in htd106
    # a parameter annotated as a list of numbers: host data, whatever the callers pass
    assert [row for row, _ in htd301 if row == 7] == [7]
    assert (8, Confidence.HIGH) in htd106
    # a parameter annotated as a tuple: not proven data of unknown length, judged as data of
    # unknown type (medium), in either spelling
    assert (9, Confidence.MEDIUM) in htd301
    assert (10, Confidence.MEDIUM) in htd106


def test_a_conversion_of_unknown_data_in_a_dataset_module_is_not_reported() -> None:
    code = """
        import numpy
        import torch
        def build_mask(source_block, target_block):
            for i in range(source_block.shape[0]):
                mask = target_block[i] >= 1
                arange = numpy.arange(source_block.shape[1])
                history = arange[None,] <= arange[:, None]
                history = torch.tensor(history).to(mask.device)
        """
    # megatron-core's t5_dataset.py: a sample's mask, built in a loader worker on the host
    assert _found(code, "HTD301", "datasets/t5_dataset.py") == []


def test_a_function_named_to_or_cuda_in_a_loop_is_no_copy_and_no_error() -> None:
    # tensordict 0.14's base.py: HTD302 asserted that every `to(...)` was a method call.
    code = """
        def to(x, device):
            return x
        def cuda(x):
            return x
        def step(items, device):
            for item in items:
                to(item, device)
                cuda(item)
        """
    assert lint(code, "HTD302") == []
